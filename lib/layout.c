/* SPDX-License-Identifier: MIT */
/*
 * Event names of lttng-modules across versions, and the fields the model
 * reads from each event type.
 *
 *   what       <= 2.5                 2.6                   >= 2.7            >= 2.8
 *   syscalls   sys_*, exit_syscall    syscall_entry/exit_*  same              same
 *   softirq    softirq_*              same                  irq_softirq_*     same
 *   hrtimer    hrtimer_expire_*       same                  timer_hrtimer_*   same
 *   waker      sched_wakeup           same                  same              sched_waking
 *
 * Names that never collide across versions are accepted whatever the
 * detected version, so a trace with an odd environment still works. The
 * one ambiguous family, `sys_*`, is a syscall entry only in the old layout.
 */
#include <stdlib.h>
#include <string.h>
#include "layout.h"

struct name_type {
	const char *name;
	enum jank_event_type type;
	/* The layouts that have this name (UNKNOWN: no bound), for the sessions to enable. */
	enum jank_layout_version since, until;
};

#define V(x) JANK_LAYOUT_##x

/* clang-format off */
static const struct name_type kernel_names[] = {
	{ "sched_switch", JANK_EVENT_SCHED_SWITCH, 0, 0 },
	{ "sched_waking", JANK_EVENT_SCHED_WAKING, V(2_8), 0 },
	{ "sched_wakeup", JANK_EVENT_SCHED_WAKEUP, 0, 0 },
	{ "sched_wakeup_new", JANK_EVENT_SCHED_WAKEUP_NEW, 0, 0 },
	{ "sched_process_fork", JANK_EVENT_PROCESS_FORK, 0, 0 },
	{ "sched_process_exec", JANK_EVENT_PROCESS_EXEC, 0, 0 },
	{ "sched_process_exit", JANK_EVENT_PROCESS_EXIT, 0, 0 },
	{ "sched_process_free", JANK_EVENT_PROCESS_FREE, 0, 0 },
	{ "lttng_statedump_process_state", JANK_EVENT_STATEDUMP_PROCESS, 0, 0 },
	{ "irq_handler_entry", JANK_EVENT_IRQ_ENTRY, 0, 0 },
	{ "irq_handler_exit", JANK_EVENT_IRQ_EXIT, 0, 0 },
	{ "irq_softirq_entry", JANK_EVENT_SOFTIRQ_ENTRY, V(2_7), 0 },
	{ "irq_softirq_exit", JANK_EVENT_SOFTIRQ_EXIT, V(2_7), 0 },
	{ "irq_softirq_raise", JANK_EVENT_SOFTIRQ_RAISE, V(2_7), 0 },
	{ "softirq_entry", JANK_EVENT_SOFTIRQ_ENTRY, 0, V(2_6) },
	{ "softirq_exit", JANK_EVENT_SOFTIRQ_EXIT, 0, V(2_6) },
	{ "softirq_raise", JANK_EVENT_SOFTIRQ_RAISE, 0, V(2_6) },
	{ "timer_hrtimer_expire_entry", JANK_EVENT_HRTIMER_ENTRY, V(2_7), 0 },
	{ "timer_hrtimer_expire_exit", JANK_EVENT_HRTIMER_EXIT, V(2_7), 0 },
	{ "hrtimer_expire_entry", JANK_EVENT_HRTIMER_ENTRY, 0, V(2_6) },
	{ "hrtimer_expire_exit", JANK_EVENT_HRTIMER_EXIT, 0, V(2_6) },
	{ "exit_syscall", JANK_EVENT_SYSCALL_EXIT, 0, V(2_5) },
	/* The headers since 2.9: older layouts have the events, and nothing to match. */
	{ "net_dev_queue", JANK_EVENT_NET_SEND, 0, 0 },
	{ "net_if_receive_skb", JANK_EVENT_NET_RECV, 0, 0 },
	/* Families known by their prefix (jank_layout_classify), enabled by a wildcard. */
	{ "x86_irq_vectors_*", JANK_EVENT_IPI_ENTRY, V(2_8), 0 }, /* _entry and _exit */
	{ NULL, JANK_EVENT_USER, 0, 0 },
};
/* clang-format on */

static const struct name_type ust_names[] = {
	{ "lttng_ust_pthread:pthread_mutex_lock_req", JANK_EVENT_MUTEX_REQ, 0, 0 },
	{ "lttng_ust_pthread:pthread_mutex_lock_acq", JANK_EVENT_MUTEX_ACQ, 0, 0 },
	{ "lttng_ust_pthread:pthread_mutex_unlock", JANK_EVENT_MUTEX_UNLOCK, 0, 0 },
	{ "lttng_ust_pthread:pthread_mutex_trylock", JANK_EVENT_MUTEX_TRYLOCK, 0, 0 },
	{ "lttng_ust_cyg_profile:func_entry", JANK_EVENT_FUNC_ENTRY, 0, 0 },
	{ "lttng_ust_cyg_profile:func_exit", JANK_EVENT_FUNC_EXIT, 0, 0 },
	{ "lttng_ust_cyg_profile_fast:func_entry", JANK_EVENT_FUNC_ENTRY, 0, 0 },
	{ "lttng_ust_cyg_profile_fast:func_exit", JANK_EVENT_FUNC_EXIT, 0, 0 },
	{ NULL, JANK_EVENT_USER, 0, 0 },
};

static const char *const switch_fields[] = { "prev_comm", "prev_tid", "prev_state",
					     "next_comm", "next_tid", NULL };
static const char *const wakeup_fields[] = { "comm", "tid", "target_cpu", NULL };
static const char *const fork_fields[] = { "parent_tid", "parent_pid", "child_comm",
					   "child_tid",	 "child_pid",  NULL };
static const char *const exec_fields[] = { "filename", "tid", NULL };
static const char *const exit_fields[] = { "comm", "tid", NULL };
static const char *const statedump_fields[] = { "tid", "pid", "name", "status", NULL };
static const char *const irq_fields[] = { "irq", NULL };
static const char *const softirq_fields[] = { "vec", NULL };
static const char *const mutex_fields[] = { "mutex", "status", NULL };
static const char *const syscall_exit_fields[] = { "ret", NULL };
static const char *const func_fields[] = { "addr", NULL };
/*
 * In netmatch.h's order (JANK_F_NET_*): nested fields by their dotted path
 * through the network_header and transport_header variants, whichever of
 * IPv4 or IPv6 and TCP the event holds (io/ctf-plan.h).
 */
static const char *const net_fields[] = {
	"network_header.saddr",
	"network_header.daddr",
	"network_header.tot_len",
	"network_header.ihl",
	"network_header.payload_len",
	"network_header.transport_header.source_port",
	"network_header.transport_header.dest_port",
	"network_header.transport_header.seq",
	"network_header.transport_header.ack_seq",
	"network_header.transport_header.data_offset",
	"network_header.transport_header.flags",
	NULL,
};
static const char *const no_fields[] = { NULL };

const char *const *jank_layout_fields(enum jank_event_type type)
{
	switch (type) {
	case JANK_EVENT_SCHED_SWITCH:
		return switch_fields;
	case JANK_EVENT_SCHED_WAKEUP:
	case JANK_EVENT_SCHED_WAKING:
	case JANK_EVENT_SCHED_WAKEUP_NEW:
		return wakeup_fields;
	case JANK_EVENT_PROCESS_FORK:
		return fork_fields;
	case JANK_EVENT_PROCESS_EXEC:
		return exec_fields;
	case JANK_EVENT_PROCESS_EXIT:
	case JANK_EVENT_PROCESS_FREE:
		return exit_fields;
	case JANK_EVENT_STATEDUMP_PROCESS:
		return statedump_fields;
	case JANK_EVENT_IRQ_ENTRY:
	case JANK_EVENT_IRQ_EXIT:
		return irq_fields;
	case JANK_EVENT_SOFTIRQ_ENTRY:
	case JANK_EVENT_SOFTIRQ_EXIT:
	case JANK_EVENT_SOFTIRQ_RAISE:
		return softirq_fields;
	case JANK_EVENT_MUTEX_REQ:
	case JANK_EVENT_MUTEX_ACQ:
	case JANK_EVENT_MUTEX_UNLOCK:
	case JANK_EVENT_MUTEX_TRYLOCK:
		return mutex_fields;
	case JANK_EVENT_FUNC_ENTRY:
	case JANK_EVENT_FUNC_EXIT:
		return func_fields;
	case JANK_EVENT_SYSCALL_EXIT:
		return syscall_exit_fields;
	case JANK_EVENT_NET_SEND:
	case JANK_EVENT_NET_RECV:
		return net_fields;
	case JANK_EVENT_USER:
	case JANK_EVENT_PAGE_FAULT:
	case JANK_EVENT_HRTIMER_ENTRY:
	case JANK_EVENT_HRTIMER_EXIT:
	case JANK_EVENT_IPI_ENTRY:
	case JANK_EVENT_IPI_EXIT:
	case JANK_EVENT_SYSCALL_ENTRY:
	case JANK_EVENT_TYPE_COUNT:
		break;
	}
	return no_fields;
}

void jank_layout_from_env(struct jank_layout *l, long major, long minor)
{
	if (major < 2 || minor < 0)
		return;
	l->from_env = true;
	if (major > 2 || minor >= 8)
		l->version = JANK_LAYOUT_2_8;
	else if (minor == 7)
		l->version = JANK_LAYOUT_2_7;
	else if (minor == 6)
		l->version = JANK_LAYOUT_2_6;
	else
		l->version = JANK_LAYOUT_2_5;
}

void jank_layout_set_kernel(struct jank_layout *l, const char *release)
{
	char *end;
	long major, minor;

	l->kernel_major = l->kernel_minor = 0;
	if (!release)
		return;
	major = strtol(release, &end, 10);
	if (end == release || *end != '.' || major <= 0 || major > 1000)
		return;
	minor = strtol(end + 1, &end, 10);
	if (minor < 0 || minor > 1000)
		return;
	l->kernel_major = (int)major;
	l->kernel_minor = (int)minor;
}

/*
 * Task state bits as sched_switch reports them (include/linux/sched.h).
 * Since 4.14 the kernel reports TASK_REPORT states: 1 S, 2 D, 4 T, 8 t,
 * 16 X (EXIT_DEAD), 32 Z (EXIT_ZOMBIE), 64 P (parked), 128 I (idle), and
 * 256 (TASK_REPORT_MAX) for any preemption. Before, it reports the raw
 * task->state: 64 is TASK_DEAD, 128 TASK_WAKEKILL (always with 2), and a
 * preemption is TASK_STATE_MAX alone (1024 on 3.x, 2048 or 4096 on 4.x).
 * A preemption flag never comes with a sleeping bit. With the kernel
 * unknown, 64 is read as TASK_DEAD: exits are far more frequent than parked
 * kernel threads.
 */
enum jank_switch_out jank_layout_switch_out(const struct jank_layout *l, int64_t prev_state)
{
	bool modern = l->kernel_major > 4 || (l->kernel_major == 4 && l->kernel_minor >= 14);
	int64_t exiting = modern ? 16 | 32 : 16 | 32 | 64;
	int64_t sleeping = modern ? 1 | 2 | 64 | 128 : 1 | 2 | 128;

	if (prev_state < 0)
		return JANK_SWITCH_OUT_BLOCKED; /* not a state: keep the old reading */
	if (prev_state & exiting)
		return JANK_SWITCH_OUT_EXITING;
	if (prev_state & sleeping)
		return JANK_SWITCH_OUT_BLOCKED;
	return JANK_SWITCH_OUT_PREEMPTED;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

void jank_layout_observe(struct jank_layout *l, const char *name)
{
	enum jank_layout_version seen = JANK_LAYOUT_UNKNOWN;

	if (l->from_env)
		return;
	if (strcmp(name, "sched_waking") == 0)
		seen = JANK_LAYOUT_2_8;
	else if (has_prefix(name, "irq_softirq_") || has_prefix(name, "timer_hrtimer_"))
		seen = JANK_LAYOUT_2_7;
	else if (has_prefix(name, "syscall_entry_") || has_prefix(name, "syscall_exit_"))
		seen = JANK_LAYOUT_2_6;
	else if (strcmp(name, "exit_syscall") == 0 || has_prefix(name, "softirq_") ||
		 has_prefix(name, "hrtimer_expire_"))
		seen = JANK_LAYOUT_2_5;
	if (seen > l->version)
		l->version = seen;
	else if (seen == JANK_LAYOUT_2_5 && l->version == JANK_LAYOUT_UNKNOWN)
		l->version = seen;
}

static const char *const jank_layout_names[] = {
	[JANK_LAYOUT_UNKNOWN] = "unknown",	    [JANK_LAYOUT_2_5] = "lttng-modules <= 2.5",
	[JANK_LAYOUT_2_6] = "lttng-modules 2.6",    [JANK_LAYOUT_2_7] = "lttng-modules 2.7",
	[JANK_LAYOUT_2_8] = "lttng-modules >= 2.8",
};

JANK_STRTABLE_DEFINE(jank_layout, enum jank_layout_version, "unknown")

size_t jank_layout_kernel_events(enum jank_layout_version v, bool network, const char **names,
				 size_t max)
{
	size_t n = 0;

	if (v == JANK_LAYOUT_UNKNOWN)
		v = JANK_LAYOUT_2_8;
	for (const struct name_type *t = kernel_names; t->name && n + 1 < max; t++) {
		if (!network && (t->type == JANK_EVENT_NET_SEND || t->type == JANK_EVENT_NET_RECV))
			continue;
		if ((!t->since || v >= t->since) && (!t->until || v <= t->until))
			names[n++] = t->name;
	}
	if (max)
		names[n] = NULL;
	return n;
}

static enum jank_event_type lookup(const struct name_type *t, const char *name)
{
	for (; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t->type;
	return JANK_EVENT_USER;
}

enum jank_event_type jank_layout_classify(const struct jank_layout *l, enum jank_domain domain,
					  const char *name)
{
	enum jank_event_type t;

	if (domain == JANK_DOMAIN_UST)
		return lookup(ust_names, name);
	t = lookup(kernel_names, name);
	if (t != JANK_EVENT_USER)
		return t;
	if (has_prefix(name, "syscall_entry_") || has_prefix(name, "compat_syscall_entry_"))
		return JANK_EVENT_SYSCALL_ENTRY;
	if (has_prefix(name, "syscall_exit_") || has_prefix(name, "compat_syscall_exit_"))
		return JANK_EVENT_SYSCALL_EXIT;
	/* sys_* only means a syscall entry in the old layout (or when nothing says otherwise). */
	if (has_prefix(name, "sys_") &&
	    (l->version == JANK_LAYOUT_2_5 || l->version == JANK_LAYOUT_UNKNOWN))
		return JANK_EVENT_SYSCALL_ENTRY;
	/*
	 * Page faults (x86_exceptions_page_fault_user/_kernel): read when the
	 * trace has them, never enabled by a session (too many).
	 */
	if (has_prefix(name, "x86_exceptions_page_fault_"))
		return JANK_EVENT_PAGE_FAULT;
	/* x86 IPIs: x86_irq_vectors_<vector>_entry/_exit. */
	if (has_prefix(name, "x86_irq_vectors_")) {
		if (has_suffix(name, "_entry"))
			return JANK_EVENT_IPI_ENTRY;
		if (has_suffix(name, "_exit"))
			return JANK_EVENT_IPI_EXIT;
	}
	return JANK_EVENT_USER;
}
