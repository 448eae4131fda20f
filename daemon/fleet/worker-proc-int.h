/* SPDX-License-Identifier: MIT */
/*
 * Inside worker-proc.c: a worker's state as the supervisor keeps it, and
 * the steps of its ending and restart, for its test. Not for use outside
 * daemon/fleet/worker-proc.c and tests/daemon/test-worker-proc.c.
 */
#ifndef JANK_WORKER_PROC_INT_H
#define JANK_WORKER_PROC_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <event2/bufferevent.h>
#include "binary-opener.h"
#include "worker-launch.h"
#include "worker-proc.h"
#include "worker-proto.h"

#define RESTART_MIN_NS 1000000000LL  /* 1 s */
#define RESTART_MAX_NS 30000000000LL /* 30 s */

struct jank_proc {
	struct event_base *base;
	char *name;
	int64_t timeout_ns;
	const struct jank_worker_proc_ops *ops;
	void *data;

	struct jank_launch *launch; /* NULL: none */
	bool opener_wanted;	    /* a live input of this host's (jank_worker_proc_want_opener) */
	struct jank_binary_opener_conn *opener;
	char *relayd_url; /* its workers' relayd (jank_worker_proc_set_relayd); NULL: none */
	struct jank_relayd_conn *relayd;
	pid_t pid; /* its pid, 0: none */
	struct bufferevent *bev;
	struct jank_worker_proto_reader reader; /* its frames' parser, kept across them */
	bool eof, reaped;
	bool silenced; /* killed for its silence */
	bool refused;  /* killed for a frame that could not be read */
	bool ending;   /* stop or retire: no restart */
	bool done;
	int last_status;
	int64_t heard_mono;

	struct event *ev_restart;
	int64_t backoff_ns;
	bool failing;
	char error[JANK_PROC_ERROR_LEN]; /* the last failure of the episode */
	int64_t failing_since;		 /* wall clock: when the episode began */
	uint64_t episode_restarts;
	uint64_t starts, crashes, timeouts, bad_frames;
};

/* worker-proc.c */
void worker_proc_start_later(struct jank_proc *p);
const char *worker_proc_status_text(int st, char *buf, size_t len);
void worker_proc_maybe_gone(struct jank_proc *p);
void worker_proc_on_ended(struct jank_launch *l, int status, void *data);

#endif
