/* SPDX-License-Identifier: MIT */
/*
 * The PID namespace jankd or jankctl runs in, for lib/pidns.c: the threads
 * of its own namespace keep their vtid (a jankd in a container, watching
 * the apps beside it).
 */
#ifndef JANK_PIDNS_HOME_H
#define JANK_PIDNS_HOME_H

/* Tell the engine the program's own PID namespace (nothing when /proc says none). */
void jank_pidns_home_init(void);

#endif
