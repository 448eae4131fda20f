/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's side of one worker process (worker.h): it starts it,
 * reads its messages without ever blocking, and restarts it when it dies or
 * goes silent.
 *
 * Start: a worker process is made with a socketpair on its JANK_WORKER_FD,
 * as jankd's child or by the worker spawner (worker-launch.h), and is sent
 * the "start" message that the owner's start_msg() makes.
 *
 * The worker is not trusted: its frames are read at most one at a time
 * (a read watermark of one frame, JANK_PROTO_MAX_FRAME), and one too long
 * or not a JSON object gets it killed; so does one whose members the owner
 * cannot read (jank_worker_proc_refuse). Either is logged, counted (bad_frames)
 * and restarted as a crash is. A worker killed by its seccomp
 * filter (SIGSYS), or that could not drop its privileges, is logged as such.
 *
 * Heartbeat: any message counts. A worker silent for longer than the
 * timeout (jank_worker_proc_check, called every second) is killed (SIGKILL); a
 * worker that exits or dies is gone once it is reaped (jank_worker_proc_reap, on
 * SIGCHLD) and all it sent has been read. Either way it is counted, and
 * started again after a back-off: 1 s, doubling up to 30 s while it keeps
 * failing. The first failure of an episode is logged, the others counted;
 * the owner ends the episode with jank_worker_proc_recovered() once the new worker
 * works (logged too, with the count).
 */
#ifndef JANK_WORKER_PROC_H
#define JANK_WORKER_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <event2/event.h>
#include <json-c/json.h>

struct jank_proc;

#define JANK_PROC_ERROR_LEN 256

struct jank_worker_proc_ops {
	/* The "start" message of a new worker (a new object), NULL on allocation failure. */
	struct json_object *(*start_msg)(struct jank_proc *p, void *data);
	/* A message from the worker (borrowed). */
	void (*message)(struct jank_proc *p, struct json_object *msg, void *data);
	/* The worker is gone for good: jank_worker_proc_stop() or jank_worker_proc_retire() was
	 * called. */
	void (*gone)(struct jank_proc *p, void *data);
};

struct jank_worker_proc_stats {
	pid_t pid;	     /* 0: none now */
	uint64_t starts;     /* workers started */
	uint64_t crashes;    /* exited or died by themselves */
	uint64_t timeouts;   /* killed for their silence */
	uint64_t bad_frames; /* killed for a frame that could not be read */
	int64_t silent_ns;   /* since the last message (0 without a worker) */
	bool failing;	     /* an episode of failures is going on */
	int last_status;     /* the last worker's wait status, -1 when none ended */
	/* While failing: its last failure ("cannot start: no user ..."), and when the episode
	 * began. */
	char error[JANK_PROC_ERROR_LEN];
	int64_t failing_since; /* wall clock (ns), 0: not failing */
};

/* `name` prefixes the log lines ("URL: worker ..."). NULL on allocation failure. */
struct jank_proc *jank_worker_proc_new(struct event_base *base, const char *name,
				       int64_t timeout_ns, const struct jank_worker_proc_ops *ops,
				       void *data);
/* Kills the worker if there is one (without waiting). */
void jank_worker_proc_free(struct jank_proc *p);

/*
 * The user the workers run as ([daemon] worker-user; a uid 0 needs
 * as_root), resolved at each start. Default: jank-worker, not as root.
 */
void jank_worker_proc_set_user(const char *user, bool as_root);
/*
 * Give its workers a channel to the binary opener (binary-opener.h): for a
 * live input on this host, when jankd runs as root and starts them itself.
 */
void jank_worker_proc_want_opener(struct jank_proc *p, bool want);
/* [daemon] open-binaries: whether any worker gets that channel (default yes). */
void jank_worker_proc_set_open_binaries(bool on);
/*
 * Under the spawner: the binary opener's socket (jankd-opener.socket), to
 * which each worker that wants an opener gets a connection of its own; NULL
 * or "": none (the default). 0, or -ENAMETOOLONG.
 */
int jank_worker_proc_set_opener_socket(const char *path);
/* Start the worker. Returns 0, or -errno (logged; retried with back-off). */
int jank_worker_proc_start(struct jank_proc *p);
/* Send a message (taken). Dropped when there is no worker. */
void jank_worker_proc_send(struct jank_proc *p, struct json_object *msg);
/* Kill a worker silent past the timeout. */
void jank_worker_proc_check(struct jank_proc *p, int64_t now);
/* SIGCHLD: reap the worker if it ended. */
void jank_worker_proc_reap(struct jank_proc *p);
/*
 * The worker sent a message that cannot be read (`what`: "a status that
 * cannot be read: input.rules: not an array"): killed, logged, counted in
 * bad_frames, restarted after the back-off; nothing more of it is read.
 */
void jank_worker_proc_refuse(struct jank_proc *p, const char *what);
/* The worker works again: end the failure episode, reset the back-off. */
void jank_worker_proc_recovered(struct jank_proc *p, const char *how);
void jank_worker_proc_set_timeout(struct jank_proc *p, int64_t timeout_ns);

/* Ask the worker to stop ("stop"); gone() once it has, no restart. */
void jank_worker_proc_stop(struct jank_proc *p);
/* Kill it; gone() once reaped, no restart. */
void jank_worker_proc_retire(struct jank_proc *p);
/* No worker and none to come: stopped, retired, or never started. */
bool jank_worker_proc_done(const struct jank_proc *p);
/* A worker runs (started, not gone yet). */
bool jank_worker_proc_running(const struct jank_proc *p);

const char *jank_worker_proc_name(const struct jank_proc *p);
void jank_worker_proc_get_stats(const struct jank_proc *p, struct jank_worker_proc_stats *out);

#endif
