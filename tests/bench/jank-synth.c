/* SPDX-License-Identifier: MIT */
/*
 * jank-synth: a synthetic, deterministic system workload, written as a
 * tests/gen/jank-gen script on stdout, for the benchmarks.
 *
 * Usage: jank-synth [OPTION]...   (see usage[] below)
 *
 * The simulated host has CPUS CPUs and THREADS long-lived threads in
 * processes of ten. The first thread of each process (of the first 4 x CPUS
 * processes: not every process draws frames) is a UI thread: it
 * sleeps on a timer, wakes up, draws a frame (jank:action_begin/end in the
 * user-space trace, with vpid/vtid/procname context), and sleeps again. Every
 * thread runs system calls, gets preempted, blocks on the disk, the network,
 * a timer or a futex; hands work to an idle thread and waits for its reply
 * (so wakeups chain across threads and processes); is woken from hard IRQs,
 * softirqs (NET_RX, BLOCK, TIMER, RCU) and hrtimers; and forks short-lived
 * threads that exit and are freed. Time advances RATE events per second.
 *
 * With --functions (the function-heavy shape), the programs are built with
 * -finstrument-functions and traced with liblttng-ust-cyg-profile: most of
 * the time a running thread calls and returns from functions, in bursts of
 * lttng_ust_cyg_profile:func_entry/func_exit events (addr and call_site as
 * lttng-ust 2.13 declares them: unsigned long, hexadecimal). A third of the
 * threads have deep stacks (up to 48 to 64 frames, recursion included), the
 * others shallow ones (2 to 5 frames); each thread's stack lives on across
 * its waits, and a thread that exits returns from its functions first.
 *
 * One run writes one trace's script (--domain kernel or ust). Run it once
 * per domain with the same options: both runs simulate the same host from
 * the same seed and stop at the same event, so that the two traces together
 * hold exactly EVENTS events.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: jank-synth [OPTION]...\n"
	"Write a jank-gen script of a synthetic kernel or user-space trace on stdout.\n"
	"\n"
	"  -d, --domain kernel|ust   the trace to write (default kernel)\n"
	"  -n, --events N            events of both traces together (default 1000000)\n"
	"  -c, --cpus N              CPUs (default 8)\n"
	"  -t, --threads N           long-lived threads, in processes of 10 (default 1000)\n"
	"  -r, --rate N              events per second of trace time (default 250000)\n"
	"  -p, --packet N            events per packet and CPU (default 4096)\n"
	"  -s, --seed N              random seed (default 1)\n"
	"  -f, --functions           the function-heavy shape: cyg-profile function\n"
	"                            entries and exits while threads run (ust)\n"
	"  -S, --stats               print the event mix on stderr at the end\n"
	"  -h, --help                show this help\n";

enum domain {
	D_KERNEL,
	D_UST
};

/* Why a blocked thread waits; each but W_THREAD has a pool that wakeups pick from. */
enum wait {
	W_NONE,
	W_IDLE,
	W_NET,
	W_DISK,
	W_TIMER,
	W_THREAD,
	W_COUNT
};
enum tstate {
	T_RUNNING,
	T_RUNNABLE,
	T_BLOCKED,
	T_FREE
};
enum sys {
	SYS_NONE,
	SYS_READ,
	SYS_FUTEX,
	SYS_NANOSLEEP,
	SYS_EPOLL
};

/* Event kinds, for the mix printed by --stats. */
enum kind {
	K_SWITCH,
	K_WAKING,
	K_WAKEUP,
	K_WAKEUP_NEW,
	K_FORK,
	K_EXIT,
	K_FREE,
	K_STATEDUMP,
	K_IRQ,
	K_SOFTIRQ,
	K_HRTIMER,
	K_SYSCALL,
	K_ACTION,
	K_MARK,
	K_FUNC,
	K_COUNT,
};

static const char *const kind_names[K_COUNT] = {
	[K_SWITCH] = "sched_switch",
	[K_WAKING] = "sched_waking",
	[K_WAKEUP] = "sched_wakeup",
	[K_WAKEUP_NEW] = "sched_wakeup_new",
	[K_FORK] = "sched_process_fork",
	[K_EXIT] = "sched_process_exit",
	[K_FREE] = "sched_process_free",
	[K_STATEDUMP] = "lttng_statedump_process_state",
	[K_IRQ] = "irq_handler_*",
	[K_SOFTIRQ] = "irq_softirq_*",
	[K_HRTIMER] = "timer_hrtimer_expire_*",
	[K_SYSCALL] = "syscall_entry/exit_*",
	[K_ACTION] = "jank:action_begin/end (ust)",
	[K_MARK] = "jank:mark (ust)",
	[K_FUNC] = "lttng_ust_cyg_profile:func_* (ust)",
};

struct thr {
	int32_t tid, pid;
	uint8_t st, wait, sys; /* enum tstate, enum wait, pending syscall exit */
	bool ui, short_lived, action_open;
	int32_t pool_pos; /* in pools[wait] */
	int32_t waiter;	  /* thread waiting for this one's reply, -1 */
	int32_t cpu;	  /* last CPU */
	uint32_t frame_left;
	uint32_t life; /* short-lived: steps left to run */
	uint64_t action_id;
	uint8_t depth, max_depth; /* --functions: the call stack's depth and its limit */
	char comm[16];
};

#define MAX_FRAMES 64
#define NFUNCS	   256

/* A frame of a simulated call stack: what func_entry said, for the func_exit. */
struct frame {
	uint64_t addr, call_site;
};

struct pool {
	int32_t *v;
	uint32_t n;
};

/* Threads that wait for a device or a timer, by deadline (a binary min-heap). */
struct due {
	uint64_t at;
	int32_t i;
};

struct heap {
	struct due *v;
	uint32_t n;
};

struct sim {
	/* options */
	enum domain out;
	uint64_t events, rate, seed, packet;
	uint32_t ncpus, nthreads;
	bool stats, functions;

	uint64_t rng;
	uint64_t now, count, mean_gap;
	bool done;

	struct thr *t;
	uint32_t nslots, nshort_max, nshort;
	int32_t next_tid;
	struct pool pools[W_COUNT]; /* W_IDLE and W_THREAD: picked at random */
	struct heap heaps[W_COUNT]; /* W_NET, W_DISK, W_TIMER: woken when due */
	struct pool free_slots;	    /* slots for short-lived threads */
	int32_t *runq;		    /* FIFO of runnable threads */
	uint32_t rq_head, rq_len;
	int32_t *cur;  /* per CPU: running thread, -1 idle */
	int32_t *dead; /* exited, not yet freed (FIFO) */
	uint32_t dead_head, dead_len;
	uint64_t next_action;
	struct frame *stacks; /* --functions: MAX_FRAMES per thread slot */
	uint64_t kinds[K_COUNT];
};

/* ---- randomness: xorshift64*, deterministic ---- */

static uint64_t rnd64(struct sim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 2685821657736338717ull;
}

static uint32_t rnd(struct sim *s, uint32_t n)
{
	return (uint32_t)((rnd64(s) >> 32) % n);
}

/* ---- pools ---- */

static void pool_add(struct sim *s, enum wait w, int32_t i)
{
	struct pool *p = &s->pools[w];

	s->t[i].pool_pos = (int32_t)p->n;
	p->v[p->n++] = i;
}

static void pool_del(struct sim *s, int32_t i)
{
	struct pool *p = &s->pools[s->t[i].wait];
	int32_t pos = s->t[i].pool_pos, last = p->v[--p->n];

	p->v[pos] = last;
	s->t[last].pool_pos = pos;
}

static int32_t pool_pick(struct sim *s, enum wait w)
{
	struct pool *p = &s->pools[w];

	return p->n ? p->v[rnd(s, p->n)] : -1;
}

static void heap_add(struct sim *s, enum wait w, uint64_t at, int32_t i)
{
	struct heap *h = &s->heaps[w];
	uint32_t k = h->n++;

	while (k > 0 && h->v[(k - 1) / 2].at > at) {
		h->v[k] = h->v[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	h->v[k] = (struct due){ .at = at, .i = i };
}

static int32_t heap_pop(struct sim *s, enum wait w)
{
	struct heap *h = &s->heaps[w];
	struct due last;
	int32_t top;
	uint32_t k = 0;

	top = h->v[0].i;
	last = h->v[--h->n];
	for (;;) {
		uint32_t c = 2 * k + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1].at < h->v[c].at)
			c++;
		if (h->v[c].at >= last.at)
			break;
		h->v[k] = h->v[c];
		k = c;
	}
	if (h->n)
		h->v[k] = last;
	return top;
}

/* A latency: mostly short, sometimes long, rarely very long (ns). */
static uint64_t latency(struct sim *s, uint64_t base, uint64_t slow, uint64_t tail)
{
	uint32_t r = rnd(s, 1000);

	if (r < 5)
		return tail + rnd64(s) % (2 * tail);
	if (r < 50)
		return slow + rnd64(s) % (2 * slow);
	return base / 4 + rnd64(s) % (2 * base);
}

static void runq_push(struct sim *s, int32_t i)
{
	s->runq[(s->rq_head + s->rq_len++) % s->nslots] = i;
	s->t[i].st = T_RUNNABLE;
}

static int32_t runq_pop(struct sim *s)
{
	int32_t i;

	if (!s->rq_len)
		return -1;
	i = s->runq[s->rq_head];
	s->rq_head = (s->rq_head + 1) % s->nslots;
	s->rq_len--;
	return i;
}

/* ---- events ---- */

/*
 * Start an event of `d` at the next instant. Returns the stream to print to,
 * or NULL when the event belongs to the other trace or the trace is complete
 * (the simulation still runs the same in both cases).
 */
static FILE *ev(struct sim *s, enum domain d, enum kind k)
{
	if (s->done)
		return NULL;
	s->now += 1 + rnd64(s) % (2 * s->mean_gap - 1);
	s->kinds[k]++;
	if (++s->count == s->events)
		s->done = true;
	return d == s->out ? stdout : NULL;
}

static const char *comm_of(const struct sim *s, int32_t i)
{
	return i < 0 ? "swapper" : s->t[i].comm;
}

static int32_t tid_of(const struct sim *s, int32_t i)
{
	return i < 0 ? 0 : s->t[i].tid;
}

static void ev_switch(struct sim *s, uint32_t cpu, int32_t prev, int prev_state, int32_t next)
{
	FILE *f = ev(s, D_KERNEL, K_SWITCH);

	if (f)
		fprintf(f,
			"%" PRIu64 " %u sched_switch prev_comm=\"%s\" prev_tid=%d prev_prio=20 "
			"prev_state=%d next_comm=\"%s\" next_tid=%d next_prio=20\n",
			s->now, cpu, comm_of(s, prev), tid_of(s, prev), prev_state,
			comm_of(s, next), tid_of(s, next));
}

static void ev_wake1(struct sim *s, enum kind k, const char *name, uint32_t cpu, int32_t i,
		     uint32_t target)
{
	FILE *f = ev(s, D_KERNEL, k);

	if (f)
		fprintf(f, "%" PRIu64 " %u %s comm=\"%s\" tid=%d prio=20 target_cpu=%u\n", s->now,
			cpu, name, s->t[i].comm, s->t[i].tid, target);
}

static void ev_syscall(struct sim *s, uint32_t cpu, enum sys sys, bool entry)
{
	FILE *f = ev(s, D_KERNEL, K_SYSCALL);

	if (!f)
		return;
	switch (sys) {
	case SYS_READ:
		if (entry)
			fprintf(f, "%" PRIu64 " %u syscall_entry_read fd=%u count=4096\n", s->now,
				cpu, 3 + rnd(s, 60));
		else
			fprintf(f, "%" PRIu64 " %u syscall_exit_read ret=%u buf=0x7ffd5a2c1000\n",
				s->now, cpu, rnd(s, 4097));
		break;
	case SYS_FUTEX:
		if (entry)
			fprintf(f,
				"%" PRIu64 " %u syscall_entry_futex uaddr=0x7f3a%08x op=%u val=1 "
				"utime=0x0 uaddr2=0x0 val3=0\n",
				s->now, cpu, rnd(s, 1u << 30), 128 + rnd(s, 2));
		else
			fprintf(f,
				"%" PRIu64 " %u syscall_exit_futex ret=0 uaddr=0x7f3a5c001000 "
				"uaddr2=0x0\n",
				s->now, cpu);
		break;
	case SYS_NANOSLEEP:
		if (entry)
			fprintf(f,
				"%" PRIu64 " %u syscall_entry_clock_nanosleep which_clock=1 "
				"flags=1 rqtp=0x7ffd5a2c1f00\n",
				s->now, cpu);
		else
			fprintf(f, "%" PRIu64 " %u syscall_exit_clock_nanosleep ret=0 rmtp=0x0\n",
				s->now, cpu);
		break;
	case SYS_EPOLL:
		if (entry)
			fprintf(f,
				"%" PRIu64 " %u syscall_entry_epoll_wait epfd=%u "
				"maxevents=64 timeout=-1\n",
				s->now, cpu, 3 + rnd(s, 8));
		else
			fprintf(f,
				"%" PRIu64 " %u syscall_exit_epoll_wait ret=1 "
				"events=0x7ffd5a2c2000\n",
				s->now, cpu);
		break;
	case SYS_NONE:
		if (entry)
			fprintf(f, "%" PRIu64 " %u syscall_entry_write fd=%u count=%u\n", s->now,
				cpu, 3 + rnd(s, 60), 1 + rnd(s, 8192));
		else
			fprintf(f, "%" PRIu64 " %u syscall_exit_write ret=%u\n", s->now, cpu,
				rnd(s, 8192));
		break;
	}
}

static void ev_irq(struct sim *s, uint32_t cpu, bool entry, unsigned irq, const char *name)
{
	FILE *f = ev(s, D_KERNEL, K_IRQ);

	if (f && entry)
		fprintf(f, "%" PRIu64 " %u irq_handler_entry irq=%u name=\"%s\"\n", s->now, cpu,
			irq, name);
	else if (f)
		fprintf(f, "%" PRIu64 " %u irq_handler_exit irq=%u ret=1\n", s->now, cpu, irq);
}

static void ev_softirq(struct sim *s, uint32_t cpu, const char *what, unsigned vec)
{
	FILE *f = ev(s, D_KERNEL, K_SOFTIRQ);

	if (f)
		fprintf(f, "%" PRIu64 " %u irq_softirq_%s vec=%u\n", s->now, cpu, what, vec);
}

static void ev_hrtimer(struct sim *s, uint32_t cpu, bool entry)
{
	FILE *f = ev(s, D_KERNEL, K_HRTIMER);

	if (f && entry)
		fprintf(f,
			"%" PRIu64 " %u timer_hrtimer_expire_entry hrtimer=0xffff9a7d3fc1e0a0 "
			"now=%" PRIu64 " function=0xffffffffa5d3b6a0\n",
			s->now, cpu, s->now);
	else if (f)
		fprintf(f, "%" PRIu64 " %u timer_hrtimer_expire_exit hrtimer=0xffff9a7d3fc1e0a0\n",
			s->now, cpu);
}

static void ev_ust(struct sim *s, uint32_t cpu, int32_t i, const char *name, uint64_t id,
		   enum kind k)
{
	FILE *f = ev(s, D_UST, k);
	const struct thr *t = &s->t[i];

	if (!f)
		return;
	if (k == K_MARK)
		fprintf(f,
			"%" PRIu64 " %u jank:mark name=\"upload\" value=%" PRIu64 " vpid=%d "
			"vtid=%d procname=\"%s\"\n",
			s->now, cpu, id, t->pid, t->tid, t->comm);
	else
		fprintf(f,
			"%" PRIu64 " %u %s name=\"frame\" id=%" PRIu64 " vpid=%d vtid=%d "
			"procname=\"%s\"\n",
			s->now, cpu, name, id, t->pid, t->tid, t->comm);
}

/* The address of function f: 192 in the program (PIE), the rest in a library. */
static uint64_t func_addr(uint32_t f)
{
	return f < 192 ? 0x55d0c0a01000ull + f * 0x90ull : 0x7f3a5c100000ull + f * 0x120ull;
}

static void ev_func(struct sim *s, uint32_t cpu, int32_t i, bool entry, const struct frame *fr)
{
	FILE *f = ev(s, D_UST, K_FUNC);
	const struct thr *t = &s->t[i];

	if (f)
		fprintf(f,
			"%" PRIu64 " %u lttng_ust_cyg_profile:func_%s addr=0x%" PRIx64
			" call_site=0x%" PRIx64 " vpid=%d vtid=%d procname=\"%s\"\n",
			s->now, cpu, entry ? "entry" : "exit", fr->addr, fr->call_site, t->pid,
			t->tid, t->comm);
}

/*
 * Thread i computes: a burst of 4 to 19 calls and returns, a random walk of
 * its stack that tends down to its limit (deep threads) or stays near the
 * top (shallow ones). Deep threads recurse now and then.
 */
static void calls(struct sim *s, uint32_t cpu, int32_t i)
{
	struct thr *t = &s->t[i];
	struct frame *st = &s->stacks[(size_t)i * MAX_FRAMES];
	uint32_t n = 4 + rnd(s, 16), down = t->max_depth > 8 ? 600 : 500;

	for (uint32_t k = 0; k < n && !s->done; k++) {
		if (t->depth > 0 && (t->depth == t->max_depth || rnd(s, 1000) >= down)) {
			ev_func(s, cpu, i, false, &st[--t->depth]);
			continue;
		}
		if (t->depth == 0) {
			/* From the thread's start routine, in libc. */
			st[0].addr = func_addr(rnd(s, 8));
			st[0].call_site = 0x7f3a5b894ac3ull;
		} else {
			const struct frame *caller = &st[t->depth - 1];
			uint32_t callee = (uint32_t)((caller->addr >> 4) * 31 + rnd(s, 6)) % NFUNCS;

			if (t->max_depth > 8 && rnd(s, 8) == 0)
				st[t->depth].addr = caller->addr; /* recursion */
			else
				st[t->depth].addr = func_addr(callee);
			st[t->depth].call_site = caller->addr + 0x14 + rnd(s, 0x60);
		}
		ev_func(s, cpu, i, true, &st[t->depth++]);
	}
}

/* ---- the simulation ---- */

/* Wake thread i from `cpu`: thread context (the running thread) or an interrupt. */
static void wake(struct sim *s, uint32_t cpu, int32_t i)
{
	struct thr *t = &s->t[i];
	uint32_t target = t->cpu >= 0 ? (uint32_t)t->cpu : cpu;

	if (t->wait == W_IDLE || t->wait == W_THREAD)
		pool_del(s, i);
	t->wait = W_NONE;
	ev_wake1(s, K_WAKING, "sched_waking", cpu, i, target);
	ev_wake1(s, K_WAKEUP, "sched_wakeup", target, i, target);
	runq_push(s, i);
}

/* The running thread of `cpu` blocks for `w`, in syscall `sys`; the next runnable runs. */
static void block(struct sim *s, uint32_t cpu, enum wait w, enum sys sys, int prev_state)
{
	int32_t i = s->cur[cpu], next;
	struct thr *t = &s->t[i];

	ev_syscall(s, cpu, sys, true);
	t->sys = (uint8_t)sys;
	t->st = T_BLOCKED;
	t->wait = (uint8_t)w;
	switch (w) {
	case W_NET:
		heap_add(s, w, s->now + latency(s, 400000, 3000000, 20000000), i);
		break;
	case W_DISK:
		heap_add(s, w, s->now + latency(s, 300000, 2000000, 30000000), i);
		break;
	case W_TIMER:
		heap_add(s, w,
			 s->now + (t->ui ? 4000000 + rnd64(s) % 30000000
					 : latency(s, 1000000, 5000000, 50000000)),
			 i);
		break;
	default:
		pool_add(s, w, i);
		break;
	}
	next = runq_pop(s);
	ev_switch(s, cpu, i, prev_state, next);
	s->cur[cpu] = next;
	if (next >= 0) {
		s->t[next].st = T_RUNNING;
		s->t[next].cpu = (int32_t)cpu;
	}
}

static void preempt(struct sim *s, uint32_t cpu)
{
	int32_t i = s->cur[cpu], next = runq_pop(s);

	ev_switch(s, cpu, i, 0, next);
	if (i >= 0)
		runq_push(s, i);
	s->cur[cpu] = next;
	if (next >= 0) {
		s->t[next].st = T_RUNNING;
		s->t[next].cpu = (int32_t)cpu;
	}
}

/*
 * An interrupt on `cpu`: the device or timer of wait `w` (W_NONE: the tick)
 * completes, and wakes the threads that are due (at most 4).
 */
static void interrupt(struct sim *s, uint32_t cpu, enum wait w)
{
	struct heap *h = &s->heaps[w];
	int32_t i;

	switch (w) {
	case W_NET:
	case W_DISK: {
		unsigned irq = w == W_NET ? 40 + cpu % 8 : 30, vec = w == W_NET ? 3 : 4;

		ev_irq(s, cpu, true, irq, w == W_NET ? "eth0" : "nvme0q1");
		ev_softirq(s, cpu, "raise", vec);
		ev_irq(s, cpu, false, irq, NULL);
		ev_softirq(s, cpu, "entry", vec);
		for (int k = 0; k < 4 && h->n && h->v[0].at <= s->now; k++)
			wake(s, cpu, heap_pop(s, w));
		/* Sometimes a new request arrives for an idle thread. */
		if (w == W_NET && rnd(s, 4) == 0 && (i = pool_pick(s, W_IDLE)) >= 0)
			wake(s, cpu, i);
		ev_softirq(s, cpu, "exit", vec);
		break;
	}
	case W_TIMER:
		ev_hrtimer(s, cpu, true);
		for (int k = 0; k < 4 && h->n && h->v[0].at <= s->now; k++)
			wake(s, cpu, heap_pop(s, w));
		ev_hrtimer(s, cpu, false);
		break;
	default:
		/* The tick: timer and RCU softirqs that wake nobody. */
		ev_irq(s, cpu, true, 0, "timer");
		ev_softirq(s, cpu, "raise", 1);
		ev_irq(s, cpu, false, 0, NULL);
		ev_softirq(s, cpu, "entry", 1);
		ev_softirq(s, cpu, "exit", 1);
		ev_softirq(s, cpu, "entry", 9);
		ev_softirq(s, cpu, "exit", 9);
		break;
	}
}

/* The wait whose next deadline has passed, or W_NONE. */
static enum wait due_wait(const struct sim *s)
{
	static const enum wait timed[] = { W_NET, W_DISK, W_TIMER };

	for (unsigned k = 0; k < 3; k++) {
		const struct heap *h = &s->heaps[timed[k]];

		if (h->n && h->v[0].at <= s->now)
			return timed[k];
	}
	return W_NONE;
}

static void fork_thread(struct sim *s, uint32_t cpu)
{
	int32_t pi = s->cur[cpu], ci;
	struct thr *p = &s->t[pi], *c;
	FILE *f;

	if (s->nshort >= s->nshort_max || !s->free_slots.n)
		return;
	ci = s->free_slots.v[--s->free_slots.n];
	c = &s->t[ci];
	memset(c, 0, sizeof(*c));
	c->tid = s->next_tid++;
	c->pid = p->pid;
	c->short_lived = true;
	c->waiter = -1;
	c->cpu = (int32_t)cpu;
	c->life = 1 + rnd(s, 8);
	c->max_depth = (uint8_t)(2 + rnd(s, 4));
	snprintf(c->comm, sizeof(c->comm), "job-%d", c->tid % 100000);
	s->nshort++;
	f = ev(s, D_KERNEL, K_FORK);
	if (f)
		fprintf(f,
			"%" PRIu64 " %u sched_process_fork parent_comm=\"%s\" parent_tid=%d "
			"parent_pid=%d parent_ns_inum=0xf0000000 child_comm=\"%s\" child_tid=%d "
			"child_pid=%d child_ns_inum=0xf0000000\n",
			s->now, cpu, p->comm, p->tid, p->pid, c->comm, c->tid, c->pid);
	ev_wake1(s, K_WAKEUP_NEW, "sched_wakeup_new", cpu, ci, cpu);
	runq_push(s, ci);
}

/* The short-lived running thread exits; it is freed a little later. */
static void exit_thread(struct sim *s, uint32_t cpu)
{
	int32_t i = s->cur[cpu], next;
	FILE *f;

	/* It returns from its functions first. */
	while (s->functions && s->t[i].depth > 0) {
		s->t[i].depth--;
		ev_func(s, cpu, i, false, &s->stacks[(size_t)i * MAX_FRAMES + s->t[i].depth]);
	}
	f = ev(s, D_KERNEL, K_EXIT);
	if (f)
		fprintf(f, "%" PRIu64 " %u sched_process_exit comm=\"%s\" tid=%d prio=20\n", s->now,
			cpu, s->t[i].comm, s->t[i].tid);
	s->t[i].st = T_FREE;
	next = runq_pop(s);
	ev_switch(s, cpu, i, 64 /* TASK_DEAD */, next);
	s->cur[cpu] = next;
	if (next >= 0) {
		s->t[next].st = T_RUNNING;
		s->t[next].cpu = (int32_t)cpu;
	}
	s->dead[(s->dead_head + s->dead_len++) % s->nshort_max] = i;
}

static void free_dead(struct sim *s, uint32_t cpu)
{
	int32_t i = s->dead[s->dead_head];
	FILE *f = ev(s, D_KERNEL, K_FREE);

	if (f)
		fprintf(f, "%" PRIu64 " %u sched_process_free comm=\"%s\" tid=%d prio=20\n", s->now,
			cpu, s->t[i].comm, s->t[i].tid);
	s->dead_head = (s->dead_head + 1) % s->nshort_max;
	s->dead_len--;
	s->free_slots.v[s->free_slots.n++] = i;
	s->nshort--;
}

/* One step of the thread running on `cpu`. */
static void run_thread(struct sim *s, uint32_t cpu)
{
	int32_t i = s->cur[cpu], j;
	struct thr *t = &s->t[i];
	bool in_frame = t->ui && t->action_open;
	uint32_t r = rnd(s, 1000);

	if (t->sys != SYS_NONE) {
		/* Back from the system call it blocked in. */
		ev_syscall(s, cpu, t->sys, false);
		t->sys = SYS_NONE;
		return;
	}
	if (t->short_lived && t->life > 0)
		t->life--;
	if (t->short_lived && t->life == 0 && t->waiter < 0) {
		exit_thread(s, cpu);
		return;
	}
	/* The function-heavy shape: most of the time, it computes in its functions. */
	if (s->functions && rnd(s, 100) < 85) {
		calls(s, cpu, i);
		return;
	}
	if (t->ui && !t->action_open) {
		t->action_open = true;
		t->action_id = s->next_action++;
		t->frame_left = 1 + rnd(s, 8);
		ev_ust(s, cpu, i, "jank:action_begin", t->action_id, K_ACTION);
		return;
	}
	if (in_frame && t->frame_left == 0) {
		ev_ust(s, cpu, i, "jank:action_end", t->action_id, K_ACTION);
		t->action_open = false;
		block(s, cpu, W_TIMER, SYS_NANOSLEEP, 1); /* until the next vsync */
		return;
	}
	if (in_frame)
		t->frame_left--;
	if (t->waiter >= 0 && r < 250) {
		/* Reply to the thread that waits for us, then maybe wait for more work. */
		j = t->waiter;
		t->waiter = -1;
		ev_syscall(s, cpu, SYS_FUTEX, true);
		wake(s, cpu, j);
		ev_syscall(s, cpu, SYS_FUTEX, false);
		if (rnd(s, 2) && !t->ui)
			block(s, cpu, W_IDLE, SYS_FUTEX, 1);
		return;
	}
	r = rnd(s, 1000);
	if (r < 200) {
		enum sys sys = (enum sys)rnd(s, 3); /* write, read, futex */

		ev_syscall(s, cpu, sys, true);
		ev_syscall(s, cpu, sys, false);
	} else if (r < 400) {
		if (s->rq_len)
			preempt(s, cpu);
		else
			ev_syscall(s, cpu, SYS_NONE, true), ev_syscall(s, cpu, SYS_NONE, false);
	} else if (r < 480) {
		if (rnd(s, 5) < 2)
			block(s, cpu, W_DISK, SYS_READ, 2 /* TASK_UNINTERRUPTIBLE */);
		else
			block(s, cpu, W_NET, rnd(s, 2) ? SYS_READ : SYS_EPOLL, 1);
	} else if (r < 580) {
		/* Hand work to an idle thread and wait for its reply. */
		j = pool_pick(s, W_IDLE);
		if (j < 0 || s->t[j].waiter >= 0)
			return;
		s->t[j].waiter = i;
		ev_syscall(s, cpu, SYS_FUTEX, true);
		wake(s, cpu, j);
		ev_syscall(s, cpu, SYS_FUTEX, false);
		block(s, cpu, W_THREAD, SYS_FUTEX, 1);
	} else if (r < 620) {
		interrupt(s, cpu, W_NONE);
	} else if (r < 650) {
		fork_thread(s, cpu);
	} else if (r < 700 + 60 * (s->rq_len / s->ncpus) && !in_frame && t->waiter < 0 && !t->ui) {
		/* Out of work (sooner when the run queues are long). */
		block(s, cpu, W_IDLE, SYS_FUTEX, 1);
	} else if (r < 850 && !in_frame && t->waiter < 0) {
		block(s, cpu, W_TIMER, SYS_NANOSLEEP, 1);
	} else if (r < 870 && t->ui) {
		ev_ust(s, cpu, i, "jank:mark", r, K_MARK);
	} else if (r < 930) {
		ev_syscall(s, cpu, SYS_NONE, true);
		ev_syscall(s, cpu, SYS_NONE, false);
	} /* else: it computes, no event */
}

static void step(struct sim *s)
{
	uint32_t cpu = rnd(s, s->ncpus);
	enum wait w = due_wait(s);
	int32_t next;

	if (w != W_NONE) {
		/* A device or timer completes on the CPU its first waiter last ran on. */
		int32_t i = s->heaps[w].v[0].i;

		interrupt(s, s->t[i].cpu >= 0 ? (uint32_t)s->t[i].cpu : cpu, w);
		return;
	}
	if (s->dead_len && rnd(s, 4) == 0) {
		free_dead(s, cpu);
		return;
	}
	if (s->cur[cpu] >= 0) {
		run_thread(s, cpu);
		return;
	}
	next = runq_pop(s);
	if (next < 0) {
		/* Idle: time passes; now and then the tick, or a request from the network. */
		uint32_t r = rnd(s, 100);

		if (r < 2)
			interrupt(s, cpu, W_NONE);
		else if (r < 6 && s->pools[W_IDLE].n)
			interrupt(s, cpu, W_NET);
		s->now += s->mean_gap;
		return;
	}
	ev_switch(s, cpu, -1, 0, next);
	s->cur[cpu] = next;
	s->t[next].st = T_RUNNING;
	s->t[next].cpu = (int32_t)cpu;
}

static int sim_init(struct sim *s)
{
	s->nshort_max = s->nthreads / 20 + 8;
	s->nslots = s->nthreads + s->nshort_max;
	s->t = calloc(s->nslots, sizeof(*s->t));
	s->runq = calloc(s->nslots, sizeof(*s->runq));
	s->cur = calloc(s->ncpus, sizeof(*s->cur));
	s->dead = calloc(s->nshort_max, sizeof(*s->dead));
	s->free_slots.v = calloc(s->nshort_max, sizeof(int32_t));
	if (!s->t || !s->runq || !s->cur || !s->dead || !s->free_slots.v)
		return -ENOMEM;
	if (s->functions &&
	    !(s->stacks = calloc((size_t)s->nslots * MAX_FRAMES, sizeof(*s->stacks))))
		return -ENOMEM;
	for (int w = 0; w < W_COUNT; w++) {
		s->pools[w].v = calloc(s->nslots, sizeof(int32_t));
		s->heaps[w].v = calloc(s->nslots, sizeof(struct due));
		if (!s->pools[w].v || !s->heaps[w].v)
			return -ENOMEM;
	}
	s->rng = s->seed * 0x9e3779b97f4a7c15ull + 1;
	s->mean_gap = s->rate >= 1000000000 ? 1 : 1000000000 / s->rate;
	if (s->mean_gap < 1)
		s->mean_gap = 1;
	s->now = 1000000000;
	s->next_tid = 1000 + (int32_t)s->nthreads + 1000;
	for (uint32_t c = 0; c < s->ncpus; c++)
		s->cur[c] = -1;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		struct thr *t = &s->t[i];

		t->tid = 1000 + (int32_t)i;
		t->pid = 1000 + (int32_t)(i / 10 * 10);
		/* Not every process draws frames: at most 4 UI threads per CPU. */
		t->ui = i % 10 == 0 && i / 10 < 4 * s->ncpus;
		t->waiter = -1;
		t->cpu = (int32_t)(i % s->ncpus);
		t->st = T_BLOCKED;
		/* A third deep (48 to 64 frames), the others shallow (2 to 5). */
		t->max_depth = (uint8_t)(i % 3 == 0 ? 48 + i % 17 : 2 + i % 4);
		if (t->ui)
			snprintf(t->comm, sizeof(t->comm), "app%u", i / 10);
		else
			snprintf(t->comm, sizeof(t->comm), "app%u-w%u", i / 10, i % 10);
		t->wait = t->ui ? W_TIMER : W_IDLE;
		if (t->ui)
			heap_add(s, W_TIMER, s->now + rnd64(s) % 30000000, (int32_t)i);
		else
			pool_add(s, W_IDLE, (int32_t)i);
	}
	for (uint32_t i = s->nthreads; i < s->nslots; i++) {
		s->t[i].st = T_FREE;
		s->free_slots.v[s->free_slots.n++] = (int32_t)i;
	}
	return 0;
}

static void header(const struct sim *s)
{
	if (s->out == D_KERNEL)
		printf("@trace kernel\n@env hostname=\"synth\"\n@cpus %u\n@packet %" PRIu64 "\n",
		       s->ncpus, s->packet);
	else
		printf("@trace ust\n@env hostname=\"synth\"\n@cpus %u\n@packet %" PRIu64 "\n"
		       "@context vpid vtid procname:string\n",
		       s->ncpus, s->packet);
}

/* The session starts with a state dump of every thread: all waiting. */
static void statedump(struct sim *s)
{
	for (uint32_t i = 0; i < s->nthreads && !s->done; i++) {
		const struct thr *t = &s->t[i];
		FILE *f = ev(s, D_KERNEL, K_STATEDUMP);

		if (f)
			fprintf(f,
				"%" PRIu64 " %u lttng_statedump_process_state tid=%d vtid=%d "
				"pid=%d vpid=%d ppid=1 vppid=1 name=\"%s\" type=0 mode=5 "
				"submode=0 status=5 ns_level=0\n",
				s->now, i % s->ncpus, t->tid, t->tid, t->pid, t->pid, t->comm);
	}
}

static int parse_u64(const char *arg, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max || arg[0] == '-') {
		fprintf(stderr, "jank-synth: bad %s '%s' (%" PRIu64 "..%" PRIu64 ")\n", what, arg,
			min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "domain", required_argument, NULL, 'd' },
		{ "events", required_argument, NULL, 'n' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "rate", required_argument, NULL, 'r' },
		{ "packet", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "stats", no_argument, NULL, 'S' },
		{ "functions", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char buf[1 << 20];
	struct sim s = { .out = D_KERNEL,
			 .events = 1000000,
			 .ncpus = 8,
			 .nthreads = 1000,
			 .rate = 250000,
			 .packet = 4096,
			 .seed = 1 };
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "d:n:c:t:r:p:s:Sfh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!strcmp(optarg, "kernel")) {
				s.out = D_KERNEL;
			} else if (!strcmp(optarg, "ust")) {
				s.out = D_UST;
			} else {
				fprintf(stderr, "jank-synth: bad --domain '%s' (kernel or ust)\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			if (parse_u64(optarg, "--events", 1, UINT64_MAX / 2, &s.events))
				return 2;
			break;
		case 'c':
			if (parse_u64(optarg, "--cpus", 1, 4096, &v))
				return 2;
			s.ncpus = (uint32_t)v;
			break;
		case 't':
			if (parse_u64(optarg, "--threads", 1, 1000000, &v))
				return 2;
			s.nthreads = (uint32_t)v;
			break;
		case 'r':
			if (parse_u64(optarg, "--rate", 1, 1000000000, &s.rate))
				return 2;
			break;
		case 'p':
			if (parse_u64(optarg, "--packet", 1, UINT32_MAX, &s.packet))
				return 2;
			break;
		case 's':
			if (parse_u64(optarg, "--seed", 0, UINT64_MAX, &s.seed))
				return 2;
			break;
		case 'S':
			s.stats = true;
			break;
		case 'f':
			s.functions = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "jank-synth: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	if (sim_init(&s) < 0) {
		fprintf(stderr, "jank-synth: out of memory\n");
		return 1;
	}
	header(&s);
	statedump(&s);
	while (!s.done)
		step(&s);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("jank-synth: stdout");
		return 1;
	}
	if (s.stats) {
		fprintf(stderr, "# %" PRIu64 " events over %.3f s of trace time\n", s.count,
			(double)(s.now - 1000000000) / 1e9);
		for (int k = 0; k < K_COUNT; k++)
			fprintf(stderr, "#   %-32s %10" PRIu64 "  %5.1f%%\n", kind_names[k],
				s.kinds[k], 100.0 * (double)s.kinds[k] / (double)s.count);
		fprintf(stderr, "#   actions begun: %" PRIu64 "\n", s.next_action);
	}
	return 0;
}
