/* SPDX-License-Identifier: MIT */
/*
 * A worker process of jankd: one live input (its babeltrace2 graph and its
 * engine), or the discovery of a relayd's sessions, away from the
 * supervisor, so that a relayd that stops answering, or a babeltrace2 that
 * hangs or aborts, takes only that input down (fleet.h restarts it).
 *
 * jankd, or the worker spawner on its behalf (worker-launch.h), execs
 * itself as `jankd --worker PPID USER [NAME]` with the socketpair to the
 * supervisor on JANK_WORKER_FD (PPID: the process that started it; USER:
 * "UID:GID", or "-" to stay that process's user; NAME only shows in ps). The worker first drops its
 * privileges (worker-sandbox.h), before it reads anything; then it waits
 * for its "start" message (worker-proto.h), and loops over its input:
 *
 *   input     pumps the live input (live-input.c) and runs its engine's
 *             ticks; sends each verdict at once, its status when its
 *             state changed (within 250 ms), when its counters changed
 *             (once a second while events come, within 500 ms once they
 *             stop) and at least every 5 s, and a heartbeat every second;
 *   discover  lists relayd's live sessions every interval_ns and sends the
 *             list, and a status every second.
 *
 * Its log lines go to the supervisor, which logs them. It ignores SIGINT,
 * SIGTERM and SIGHUP (the supervisor says when to stop), and dies with the
 * supervisor (PR_SET_PDEATHSIG, and the end of its socket).
 */
#ifndef JANK_WORKER_H
#define JANK_WORKER_H

#define JANK_WORKER_FD	3
#define JANK_WORKER_ARG "--worker"

/* The main of a worker process (argv[1] is JANK_WORKER_ARG). Returns its exit status. */
int jank_worker_main(int argc, char **argv);

#endif
