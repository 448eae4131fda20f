/* SPDX-License-Identifier: MIT */
/*
 * System model: what each CPU runs, its interrupt-context stack, and each
 * thread's state, comm and pid. It turns kernel (and user-space lock) events
 * into execution-graph operations.
 */
#ifndef JANK_MODEL_H
#define JANK_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "graph.h"
#include "layout.h"

#define JANK_IRQ_STACK_MAX   8
#define JANK_SYSCALL_CLASSES 4096

enum jank_ctx_kind {
	JANK_CTX_IRQ = 1,
	JANK_CTX_SOFTIRQ,
	JANK_CTX_HRTIMER,
	JANK_CTX_IPI,
};

struct jank_ctx {
	uint8_t kind;
	uint8_t vec;	  /* softirq vector */
	bool hop;	  /* NET_RX: the sender's `network` interval was opened here */
	uint32_t sender;  /* NET_RX raised in a thread's context: its serial, else 0 */
	int64_t entry_ts; /* when the context began */
};

/* A switch-in: who ran on a CPU from ts on. */
struct jank_cpu_run {
	int64_t ts;
	int32_t tid;	 /* 0: idle; -1: unknown (events lost) */
	uint32_t serial; /* its thread serial, JANK_NO_THREAD for idle or unknown */
};

/*
 * The last switch-ins of each CPU are kept, to say who had a CPU while a
 * thread waited for it: a ring that doubles from 64 up to this many (32 KiB
 * per CPU), which covers the last few hundred milliseconds of a busy CPU.
 */
#define JANK_CPU_HISTORY 2048

/* Time a thread ran on a CPU (jank_model_cpu_shares). */
struct jank_cpu_share {
	int32_t tid;
	uint32_t serial;
	int64_t ns;
};

struct jank_cpu {
	int32_t cur_tid;	 /* -1 when unknown, 0 for idle */
	struct jank_thread *cur; /* NULL when idle or unknown */
	uint32_t depth;		 /* interrupt contexts entered, including those beyond the stack */
	uint32_t net_raiser;	 /* serial of the thread that raised NET_RX here, 0 */
	struct jank_ctx stack[JANK_IRQ_STACK_MAX];
	/* The last softirq exit that emptied the stack, for the ksoftirqd it may wake. */
	bool softirq_left;
	uint8_t softirq_left_vec;
	int64_t softirq_left_ts;
	struct jank_cpu_run *runs; /* ring: run i is at runs[i & (runs_cap - 1)] */
	uint64_t nruns;		   /* recorded ever */
	uint32_t runs_cap;
	bool runs_fixed; /* a doubling failed: the ring keeps its size */
};

struct jank_model {
	struct jank_graph *graph;
	const struct jank_layout *layout; /* the trace's, for prev_state */
	struct jank_cpu *cpus;
	uint32_t ncpus;
	uint64_t lost_contexts;	   /* exits with no matching entry */
	uint64_t repaired_current; /* CPUs whose current thread the tid context corrected */
	bool kernel;		   /* scheduler events seen: they hold the waits */
	/*
	 * Classes of system call entries seen (by class id, up to
	 * JANK_SYSCALL_CLASSES): a thread's user mode is trusted only once the
	 * trace shows that it records every system call, not a rule's few.
	 */
	uint64_t syscall_classes[JANK_SYSCALL_CLASSES / 64];
	uint32_t nsyscall_classes;
	uint64_t untraced_wakeups; /* thread-context wakeups read as an untraced interrupt's */
	struct jank_locks *locks;
};

/* `layout` is read at each switch: it may change (a trace's environment) after init. */
int jank_model_init(struct jank_model *m, struct jank_graph *g, const struct jank_layout *layout);
void jank_model_fini(struct jank_model *m);
void jank_model_process(struct jank_model *m, enum jank_event_type type,
			const struct jank_event *ev);
/* Thread running on a CPU at the time of the last event, or -1. */
int32_t jank_model_current_tid(const struct jank_model *m, int32_t cpu);
/* Events were lost on a CPU (-1: any): forget what may have changed unseen. */
void jank_model_discarded(struct jank_model *m, int32_t cpu, int64_t ts);
/*
 * Who ran on `cpu` over [a, b): the time of each thread is added to `v`
 * (merged by tid; *n entries, at most `max`; idle and unknown left out).
 * Returns false when the history does not reach back to a (then only the
 * part it covers is added).
 */
bool jank_model_cpu_shares(const struct jank_model *m, int32_t cpu, int64_t a, int64_t b,
			   struct jank_cpu_share *v, size_t *n, size_t max);
/*
 * Whether `tid` was switched in on `cpu` at exactly ts, by its history:
 * `cpu`, or -1. With `others`, every other CPU is looked at too (O(CPUs)).
 */
int32_t jank_model_switch_cpu(const struct jank_model *m, int32_t tid, int64_t ts, int32_t cpu,
			      bool others);
/* Bytes of the per-CPU records and their histories. */
uint64_t jank_model_bytes(const struct jank_model *m);
/* State that a wakeup from the given interrupt context gives the wakee's wait. */
enum jank_state jank_model_context_label(const struct jank_ctx *c);

#endif
