/* SPDX-License-Identifier: MIT */
/*
 * The worker spawner: `jankd --worker-spawner`, which starts jankd's worker
 * processes (worker.h) on its behalf, so that jankd itself needs no
 * capability to run them as another user.
 *
 * systemd runs it as jankd-workers.service, user jank-worker, on the
 * SOCK_SEQPACKET socket of jankd-workers.socket (root's alone), which it
 * gets as socket activation (sd_listen_fds). jankd connects once per
 * worker (worker-launch.h has the protocol): the spawner checks that the
 * peer is root, the user jankd runs as (never its own user: that is its
 * workers' too), and that fewer than --max-workers=N (default
 * JANK_SPAWNER_MAX_WORKERS) of its workers run; takes the worker's end of
 * the socketpair,
 * execs `jankd --worker` as its child, says its pid, kills it when asked or
 * when jankd's connection ends, and says its wait status when it ends.
 *
 * Its workers keep its user: it refuses to run as root. It trusts nothing
 * of what comes on a connection but the peer's credentials: one packet of
 * the request's exact size with one or two file descriptors, sockets (the
 * worker's end; its binary opener's channel, which the worker gets as
 * JANK_OPENER_FD), and a name that ends within it; anything else closes
 * the connection. It logs
 * to stderr (the journal, under systemd). SIGTERM ends it; its workers die
 * with it (their parent-death signal).
 */
#ifndef JANK_WORKER_SPAWNER_H
#define JANK_WORKER_SPAWNER_H

#define JANK_SPAWNER_ARG "--worker-spawner"
/* The only peer it serves: jankd, which runs as root (jankd.service). */
#define JANK_SPAWNER_PEER_UID 0
/* Workers at once, at most: [live] max-inputs (64 by default) and discovery, with room. */
#define JANK_SPAWNER_MAX_WORKERS 1024

/* The main of the spawner (argv[1] is JANK_SPAWNER_ARG). Returns its exit status. */
int jank_worker_spawner_main(int argc, char **argv);

#endif
