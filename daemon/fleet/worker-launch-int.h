/* SPDX-License-Identifier: MIT */
/*
 * Inside worker-launch.c: a launch's state and the spawner's reader, for
 * worker-proc.c's test. Not for use outside daemon/fleet/worker-launch.c
 * and tests/daemon/test-worker-proc.c.
 */
#ifndef JANK_WORKER_LAUNCH_INT_H
#define JANK_WORKER_LAUNCH_INT_H

#include <stdbool.h>
#include <sys/types.h>
#include <event2/event.h>
#include "worker-launch.h"

struct jank_launch {
	pid_t pid;
	bool ended;
	jank_worker_launch_ended_fn fn;
	void *data;
	/* Through the spawner: its connection, and the event reading it. */
	int conn;
	struct event *ev;
};

/* worker-launch.c */
void worker_launch_on_spawner(evutil_socket_t fd, short what, void *data);

#endif
