/* SPDX-License-Identifier: MIT */
/*
 * Threads of containers. lttng-ust names a thread by its vtid, which is
 * unique only within its PID namespace: two replicas of a service, each in
 * its own container, both have a thread 1. With the pid_ns context (jankd's
 * sessions add it), the engine tells them apart: a thread of the host's
 * PID namespace (the initial one, whose vtid is the kernel's tid) or of the
 * program's own (jankd or jankctl in a container, with the apps it watches)
 * keeps its vtid, and a thread of any other namespace is numbered
 * N x 2^22 + vtid, N (1 to 511) the namespace's number in the order
 * namespaces were seen. Tids are below 2^22 (PID_MAX_LIMIT),
 * so the two never meet, and the result stays a positive 32-bit tid.
 *
 * Past 511 namespaces, the one seen least recently gives its number over
 * (counted): on a host whose containers come and go, the number of one
 * long gone. A vtid of 2^22 or more, in another namespace, is not a tid
 * (-1: the event has no thread).
 */
#ifndef JANK_PIDNS_H
#define JANK_PIDNS_H

#include <stdint.h>

/* The inode of the initial PID namespace (Linux's PROC_PID_INIT_INO). */
#define JANK_PID_NS_INIT 0xEFFFFFFCu
#define JANK_PIDNS_SHIFT 22
#define JANK_PIDNS_MAX	 511

struct jank_pidns {
	uint32_t ns[JANK_PIDNS_MAX + 1]; /* [1..n]: the inode numbered i */
	int64_t seen[JANK_PIDNS_MAX + 1];
	uint32_t n;
	uint32_t last;	 /* the number found last */
	uint64_t reused; /* numbers given over to another namespace */
};

/*
 * The program's own PID namespace (the inode of /proc/self/ns/pid; 0:
 * none), set once at its start: its threads keep their vtid too.
 */
void jank_pidns_set_home(uint32_t ns);
extern uint32_t jank_pidns_home; /* what jank_pidns_set_home() set: read it through _is_host() */

/*
 * The host's namespace, the program's, and no namespace said (0): their vtid
 * is the tid. Inline: the engine asks for every user-space event.
 */
static inline int jank_pidns_is_host(uint32_t ns)
{
	return ns == 0 || ns == JANK_PID_NS_INIT || ns == jank_pidns_home;
}

/* The engine's tid of thread vtid of namespace ns (not the host's), seen at ts. */
int32_t jank_pidns_tid(struct jank_pidns *t, uint32_t ns, int32_t vtid, int64_t ts);

/* The vtid a tid of jank_pidns_tid() stands for, and its namespace's number (0: the host's). */
static inline int32_t jank_pidns_vtid(int32_t tid)
{
	return tid < 0 ? tid : tid & ((1 << JANK_PIDNS_SHIFT) - 1);
}

static inline uint32_t jank_pidns_number(int32_t tid)
{
	return tid < 0 ? 0 : (uint32_t)tid >> JANK_PIDNS_SHIFT;
}

#endif
