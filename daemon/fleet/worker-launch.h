/* SPDX-License-Identifier: MIT */
/*
 * How a worker process (worker.h) comes to be, is killed, and how its end
 * is known: what worker-proc.c needs of a process, in one of two ways.
 *
 *   here      jankd execs itself as the worker (posix_spawn of
 *             /proc/self/exe), as its child: killed with kill(2), its end
 *             known from waitpid(2) on SIGCHLD. The worker changes to
 *             [daemon] worker-user itself, which takes jankd being root.
 *   spawner   jankd asks the worker spawner (worker-spawner.h, `jankd
 *             --worker-spawner` under jankd-workers.service, which systemd
 *             runs as jank-worker) over its unix socket: the worker is the
 *             spawner's child and already has its user, so jankd needs no
 *             capability at all (jankd --worker-spawner SOCKET).
 *
 * The spawner's protocol, one SOCK_SEQPACKET connection per worker:
 *   jankd    -> spawner  a jank_spawn_request, with the worker's end of its
 *                        socketpair (SCM_RIGHTS), and, for a worker of this
 *                        host's session, its connection to the binary
 *                        opener's service (binary-opener.h) after it
 *   spawner  -> jankd    STARTED (the worker's pid) or FAILED (an errno)
 *   jankd    -> spawner  KILL, when the worker must die (SIGKILL)
 *   spawner  -> jankd    EXITED (its wait status), then the spawner closes
 * jankd closing the connection kills the worker too. Every message is one
 * packet of a fixed size; anything else ends the connection.
 */
#ifndef JANK_WORKER_LAUNCH_H
#define JANK_WORKER_LAUNCH_H

#include <stdint.h>
#include <sys/types.h>
#include <event2/event.h>
#include "worker-sandbox.h"

#define JANK_SPAWN_MAGIC   0x6a6b7370u /* "jksp" */
#define JANK_SPAWN_VERSION 1u
#define JANK_SPAWN_NAME	   96 /* the worker's name, for ps, NUL-terminated */

enum jank_spawn_type {
	JANK_SPAWN_STARTED = 1, /* value: the worker's pid */
	JANK_SPAWN_FAILED,	/* value: an errno */
	JANK_SPAWN_KILL,	/* jankd -> spawner; value 0 */
	JANK_SPAWN_EXITED,	/* value: the worker's wait status */
};

struct jank_spawn_request {
	uint32_t magic, version;
	char name[JANK_SPAWN_NAME];
};

struct jank_spawn_msg {
	uint32_t type;
	int32_t value;
};

/* How long jankd waits for the spawner's STARTED or FAILED. */
#define JANK_SPAWN_REPLY_MS 3000

/* The wait status given to ended() when the spawner's connection is lost. */
#define JANK_LAUNCH_LOST (-2)

struct jank_launch;

/* The worker's process ended: `status` as waitpid(2) says, or JANK_LAUNCH_LOST. */
typedef void (*jank_worker_launch_ended_fn)(struct jank_launch *l, int status, void *data);

/* Workers through the spawner at `socket_path`; NULL or "": here (the default). */
int jank_worker_launch_set_spawner(const char *socket_path);
/* The spawner's socket, or NULL when workers are started here. */
const char *jank_worker_launch_spawner(void);

/*
 * Start a worker whose end of the socketpair is `fd` (not taken), `name`
 * for ps, as `u` (here only: the spawner's workers keep its user).
 * `opener_fd` (not taken; -1: none) becomes its JANK_OPENER_FD, the binary
 * opener's channel (binary-opener.h), either way. NULL on failure, with -errno
 * in *err and what failed in `why`.
 */
struct jank_launch *jank_worker_launch_start(struct event_base *base, int fd, int opener_fd,
					     const char *name, const struct jank_worker_user *u,
					     jank_worker_launch_ended_fn ended, void *data,
					     int *err, char *why, size_t len);
pid_t jank_worker_launch_pid(const struct jank_launch *l);
/* SIGKILL the worker (ended() follows). */
void jank_worker_launch_kill(struct jank_launch *l);
/* SIGCHLD: a worker started here that ended is reaped, and ended() called. */
void jank_worker_launch_reap(struct jank_launch *l);
/* Forget it: a worker still running is killed (and, started here, reaped). */
void jank_worker_launch_free(struct jank_launch *l);

/*
 * posix_spawn of /proc/self/exe as `jankd --worker PPID USER NAME`, with
 * `fd` as its JANK_WORKER_FD (worker.h); USER as jank_worker_user_format()
 * writes it. Returns the pid, or 0 with the error in *err. Used here and
 * by the spawner.
 */
pid_t jank_worker_launch_spawn(int fd, const char *name, const char *user, int *err);
/* The same, with `opener_fd` (-1: none) as its JANK_OPENER_FD. */
pid_t jank_worker_launch_spawn_fds(int fd, int opener_fd, const char *name, const char *user,
				   int *err);

#endif
