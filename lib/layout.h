/* SPDX-License-Identifier: MIT */
/*
 * Kernel event layouts of lttng-modules, from 2.5 and older up to 2.13:
 * which event names mean what, and which fields the model reads from each.
 */
#ifndef JANK_LAYOUT_H
#define JANK_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include "event.h"
#include "strtable.h"

enum jank_layout_version {
	JANK_LAYOUT_UNKNOWN = 0,
	JANK_LAYOUT_2_5, /* sys_*, exit_syscall, softirq_*, hrtimer_*, no sched_waking */
	JANK_LAYOUT_2_6, /* syscall_entry_*, syscall_exit_* */
	JANK_LAYOUT_2_7, /* irq_softirq_*, timer_hrtimer_* */
	JANK_LAYOUT_2_8, /* sched_waking */
};

struct jank_layout {
	enum jank_layout_version version;
	bool from_env;	  /* version read from the trace environment */
	int kernel_major; /* from the environment's kernel_release, 0 when unknown */
	int kernel_minor;
};

/* What a sched_switch's prev_state says of the thread switched out. */
enum jank_switch_out {
	JANK_SWITCH_OUT_PREEMPTED, /* runnable: 0, a preemption flag, no sleeping bit */
	JANK_SWITCH_OUT_BLOCKED,   /* a sleeping bit */
	JANK_SWITCH_OUT_EXITING,   /* the thread is ending (EXIT_DEAD, EXIT_ZOMBIE, TASK_DEAD) */
};

/* From the environment's tracer_major/minor (lttng-modules). */
void jank_layout_from_env(struct jank_layout *l, long major, long minor);
/* From the environment's kernel_release, e.g. "4.4.3-1-ARCH"; NULL or junk: unknown. */
void jank_layout_set_kernel(struct jank_layout *l, const char *release);
/* Decode prev_state, whose bits depend on the kernel version (the table is in layout.c). */
enum jank_switch_out jank_layout_switch_out(const struct jank_layout *l, int64_t prev_state);
/* Refine an undetermined layout from an event class name. */
void jank_layout_observe(struct jank_layout *l, const char *name);
/* "lttng-modules 2.6", ..., "unknown"; and back (-1 for no layout). */
JANK_STRTABLE_DECLARE(jank_layout, enum jank_layout_version);

/*
 * The kernel events of layout v that the model reads, as a session enables
 * them (x86_irq_vectors_* for the IPIs; system calls are the rules' own):
 * at most max - 1 names into `names`, NULL-terminated; returns how many.
 * UNKNOWN is the newest layout. Without `network`, the TCP segments'
 * events (net_dev_queue, net_if_receive_skb) are left out.
 */
#define JANK_LAYOUT_MAX_KERNEL_EVENTS 32
size_t jank_layout_kernel_events(enum jank_layout_version v, bool network, const char **names,
				 size_t max);

/* What an event class means in a domain; JANK_EVENT_USER when nothing. */
enum jank_event_type jank_layout_classify(const struct jank_layout *l, enum jank_domain domain,
					  const char *name);
/*
 * Payload fields the model reads for a type, in the order it reads them
 * (NULL-terminated). The model uses the JANK_F_* positions below.
 */
const char *const *jank_layout_fields(enum jank_event_type type);

/* Field positions, per type. */
enum {
	JANK_F_SWITCH_PREV_COMM,
	JANK_F_SWITCH_PREV_TID,
	JANK_F_SWITCH_PREV_STATE,
	JANK_F_SWITCH_NEXT_COMM,
	JANK_F_SWITCH_NEXT_TID
};
enum {
	JANK_F_WAKEUP_COMM,
	JANK_F_WAKEUP_TID,
	JANK_F_WAKEUP_TARGET_CPU
};
enum {
	JANK_F_FORK_PARENT_TID,
	JANK_F_FORK_PARENT_PID,
	JANK_F_FORK_CHILD_COMM,
	JANK_F_FORK_CHILD_TID,
	JANK_F_FORK_CHILD_PID
};
enum {
	JANK_F_EXEC_FILENAME,
	JANK_F_EXEC_TID
};
enum {
	JANK_F_EXIT_COMM,
	JANK_F_EXIT_TID
};
enum {
	JANK_F_STATEDUMP_TID,
	JANK_F_STATEDUMP_PID,
	JANK_F_STATEDUMP_NAME,
	JANK_F_STATEDUMP_STATUS
};
enum {
	JANK_F_IRQ_IRQ
};
enum {
	JANK_F_SYSCALL_EXIT_RET
};
enum {
	JANK_F_SOFTIRQ_VEC
};
enum {
	JANK_F_MUTEX_MUTEX,
	JANK_F_MUTEX_STATUS
};

#endif
