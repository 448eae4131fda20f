/* SPDX-License-Identifier: MIT */
/*
 * The engine's view of one trace event, decoded once by the input layer.
 *
 * The input layer asks the engine, once per event class, what the class
 * means (jank_engine_resolve_class) and which fields it needs, in which
 * order. It then fills `fields` in that order for every event of the class.
 * Nothing here points at babeltrace2 objects; strings only need to live
 * until jank_engine_process() returns.
 */
#ifndef JANK_EVENT_H
#define JANK_EVENT_H

#include <stdint.h>
#include <stdbool.h>

#define JANK_EVENT_MAX_FIELDS 12

enum jank_event_type {
	JANK_EVENT_USER = 0, /* no meaning for the model; only rules look at it */
	JANK_EVENT_SCHED_SWITCH,
	JANK_EVENT_SCHED_WAKEUP,
	JANK_EVENT_SCHED_WAKING,
	JANK_EVENT_SCHED_WAKEUP_NEW,
	JANK_EVENT_PROCESS_FORK,
	JANK_EVENT_PROCESS_EXEC,
	JANK_EVENT_PROCESS_EXIT,
	JANK_EVENT_PROCESS_FREE,
	JANK_EVENT_STATEDUMP_PROCESS,
	JANK_EVENT_IRQ_ENTRY,
	JANK_EVENT_IRQ_EXIT,
	JANK_EVENT_SOFTIRQ_ENTRY,
	JANK_EVENT_SOFTIRQ_EXIT,
	JANK_EVENT_SOFTIRQ_RAISE,
	JANK_EVENT_HRTIMER_ENTRY,
	JANK_EVENT_HRTIMER_EXIT,
	JANK_EVENT_IPI_ENTRY,
	JANK_EVENT_IPI_EXIT,
	JANK_EVENT_SYSCALL_ENTRY,
	JANK_EVENT_SYSCALL_EXIT,
	JANK_EVENT_MUTEX_REQ,
	JANK_EVENT_MUTEX_ACQ,
	JANK_EVENT_MUTEX_UNLOCK,
	JANK_EVENT_MUTEX_TRYLOCK,
	JANK_EVENT_PAGE_FAULT, /* x86_exceptions_page_fault_*: the thread is in the kernel */
	/* lttng_ust_cyg_profile{,_fast}:func_entry/func_exit (-finstrument-functions) */
	JANK_EVENT_FUNC_ENTRY,
	JANK_EVENT_FUNC_EXIT,
	/* net_dev_queue, net_if_receive_skb: IP and TCP headers (lttng-modules >= 2.9) */
	JANK_EVENT_NET_SEND,
	JANK_EVENT_NET_RECV,
	JANK_EVENT_TYPE_COUNT,
};

enum jank_domain {
	JANK_DOMAIN_KERNEL = 0,
	JANK_DOMAIN_UST,
};

enum jank_value_type {
	JANK_VALUE_NONE = 0, /* the class has no such field */
	JANK_VALUE_INT,
	JANK_VALUE_UINT,
	JANK_VALUE_STR,
	JANK_VALUE_ARRAY, /* a sequence of unsigned integers (callstack_user, callstack_kernel) */
};

struct jank_value {
	enum jank_value_type type;
	union {
		int64_t i;
		uint64_t u;
		const char *s;
		struct {
			const uint64_t *v;
			uint32_t n;
		} a;
	};
};

struct jank_event {
	int64_t ts;	   /* ns from the trace clock's origin */
	int32_t cpu;	   /* packet context cpu_id, -1 when unknown */
	int32_t tid;	   /* context vtid/tid, -1 when absent */
	int32_t pid;	   /* context vpid/pid, -1 when absent */
	uint32_t pid_ns;   /* context pid_ns (its PID namespace's inode), 0 when absent */
	const char *comm;  /* context procname, NULL when absent */
	uint32_t class_id; /* from jank_engine_resolve_class() */
	uint32_t nfields;
	struct jank_value fields[JANK_EVENT_MAX_FIELDS];
};

/*
 * A process, as the symbolizer keys it: the pid the trace gives (vpid),
 * and its PID namespace where the trace gives it (lttng-ust's pid_ns
 * context), so that two containers' pid 1 are two processes. The vpid
 * alone (pid_ns 0, or no pid) is its own key; with a namespace, the key is
 * the namespace's inode above the pid (a pid is below 2^22, an inode below
 * 2^32): never a vpid's, never negative.
 */
static inline int64_t jank_process_key(uint32_t pid_ns, int64_t pid)
{
	if (!pid_ns || pid < 0 || pid > INT32_MAX)
		return pid;
	return (int64_t)pid_ns << 31 | pid;
}

/* The pid of a process key (the vpid the trace gave), and its namespace (0: unknown). */
static inline int64_t jank_process_key_pid(int64_t key)
{
	return key > INT32_MAX ? key & INT32_MAX : key;
}

static inline uint32_t jank_process_key_ns(int64_t key)
{
	return key > INT32_MAX ? (uint32_t)(key >> 31) : 0;
}

static inline int64_t jank_value_as_int(const struct jank_value *v, int64_t dflt)
{
	switch (v->type) {
	case JANK_VALUE_INT:
		return v->i;
	case JANK_VALUE_UINT:
		return (int64_t)v->u;
	case JANK_VALUE_NONE:
	case JANK_VALUE_STR:
	case JANK_VALUE_ARRAY:
		break;
	}
	return dflt;
}

#endif
