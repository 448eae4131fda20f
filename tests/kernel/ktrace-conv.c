/* SPDX-License-Identifier: MIT */
/*
 * ktrace-conv: what ktrace-record.sh saved of an ftrace instance (the raw
 * ring-buffer pages of each CPU and the format of each event) becomes two
 * jank-gen scripts: a kernel trace as lttng-modules 2.13 lays it out, with
 * the tid, pid and procname contexts that jankd's sessions add, and a
 * lttng-ust trace of the jank:* lines written to the instance's trace_marker.
 *
 * Usage: ktrace-conv RECDIR KERNEL_SCRIPT UST_SCRIPT
 *
 * The raw pages are read, not the text of the `trace` file: that prints
 * microseconds and the letters of prev_state, where the pages hold the
 * nanoseconds and the number the kernel computed (the same function as
 * lttng-modules' on >= 5.18: TASK_REPORT_MAX, 256, for a preemption).
 *
 * Event names: softirq_* become irq_softirq_*, hrtimer_expire_* become
 * timer_hrtimer_expire_*, netif_receive_skb becomes net_if_receive_skb;
 * ftrace's *_pid payload fields are thread ids, named *_tid as lttng names
 * them. What ftrace lacks or records otherwise, and how it is filled in:
 *
 *  - prio fields: ftrace records task->prio (120 for nice 0); lttng-modules
 *    records prio - MAX_RT_PRIO (20): 100 is subtracted.
 *  - tid context: common_pid, the current task of the CPU, as lttng's tid
 *    context (also in interrupt context: the interrupted task; 0 in idle).
 *  - pid context, and fork's parent_pid/child_pid (thread group ids in
 *    lttng, thread ids in ftrace): from the /proc snapshot taken at record
 *    start, then the kernel's saved_tgids (the instance sets record-tgid),
 *    then forks (a child not in saved_tgids is taken as a process). The
 *    idle task is 0.
 *  - procname context: the comm of the thread, as the events say it: the
 *    last sched_switch that named it, a wakeup, fork or exit naming it, the
 *    basename of an exec'd file; before any of these, the /proc snapshot,
 *    then saved_cmdlines, then the first comm the trace gives it.
 *  - sched_process_fork: parent_ns_inum and child_ns_inum are the pid
 *    namespace inode the recorder read from /proc/self/ns/pid; the vtids
 *    sequence of signed integers is left out (jank-gen has only unsigned
 *    arrays, jank does not read it).
 *  - lttng_statedump_process_state: made from the /proc snapshot, one event
 *    per thread at the first timestamp of the trace, between
 *    lttng_statedump_start and lttng_statedump_end, in the context of the
 *    recorder (lttng runs the statedump in the session daemon's context).
 *    status as lttng-modules 2.13 computes it: a TASK_RUNNING task is
 *    LTTNG_WAIT_FORK (1) unless it is a real-time one (LTTNG_WAIT_CPU, 2),
 *    as its `rt.run_list` test does; S, D and I are LTTNG_WAIT (5); Z and X
 *    are LTTNG_ZOMBIE (4) and LTTNG_DEAD (7); others LTTNG_UNNAMED (0).
 *    type is kernel thread when PF_KTHREAD is set; mode is LTTNG_MODE_UNKNOWN
 *    (5) and submode LTTNG_NONE (0), as lttng writes them;
 *    file_table_address is 0.
 *  - irq_handler_entry name: ftrace has it.
 *  - block_rq_issue/complete: rwbs is lttng's RWBS_FLAG_* bits, parsed back
 *    from ftrace's letters; block_rq_issue's tid is common_pid.
 *  - net_dev_queue, net_if_receive_skb: the network_header variant is left
 *    out.
 *  - sched_process_exit: group_dead becomes 0 or 1.
 *  - events lost: a page that says so starts with @discarded (its count
 *    when the kernel stored one, else 1).
 *  - syscalls:sys_enter_NAME and sys_exit_NAME (recorded with -e) become
 *    syscall_entry_NAME and syscall_exit_NAME, lttng-modules' names; their
 *    fields are ftrace's (the arguments, named as the kernel's
 *    SYSCALL_DEFINE, ret), pointers and unsigned longs in hexadecimal:
 *    lttng-modules' own per-system-call field lists are not followed.
 *  - stacks (recorded with -u, -k; info says userstacktrace=1,
 *    stacktrace=1): ftrace writes a ftrace:kernel_stack and then a
 *    ftrace:user_stack record right after each event (but trace_marker
 *    writes), on its CPU; each is given to the innermost event of its CPU
 *    still waiting for one, written by the same task (an interrupt between
 *    an event and its stacks writes its events and their stacks in
 *    between). Every kernel event then has the contexts callstack_kernel
 *    and callstack_user, as lttng-modules 2.13 adds them to all the events
 *    of a channel (put_stack() says the layout); an event with no stack
 *    record (the statedump's) has empty ones. The count of stack records
 *    given and not given to an event is a comment of the kernel script.
 *
 * The UST trace: a marker "jank:EVENT FIELD=VALUE..." becomes the event
 * jank:EVENT with those fields, and the vpid, vtid and procname contexts of
 * the thread that wrote it. Both scripts take the trace's CLOCK_MONOTONIC
 * nanoseconds as timestamps, and jank-gen gives both the same clock.
 *
 * With the memory maps the recorder saved (-u: maps/PID), the UST trace
 * begins, at the first timestamp of the recording, with the statedump
 * lttng-ust writes when a process registers (lttng-ust-statedump-provider.h),
 * for each of those processes, with its vpid (and as vtid) and comm:
 * lttng_ust_statedump:start; per ELF file mapped (a path beginning with '/',
 * once per path; the vdso, which lttng-ust dumps with memsz 0, and
 * pseudo-files are left out) a bin_info: baddr, the run-time address of its
 * first PT_LOAD segment (the start of the path's first mapping, minus its
 * file offset, plus that segment's page-aligned offset), memsz (the span of
 * the PT_LOAD segments), path, is_pic (e_type is ET_DYN), has_build_id,
 * has_debug_link; a build_id (baddr, build_id: the NT_GNU_BUILD_ID note)
 * and a debug_link (baddr, crc, filename: the .gnu_debuglink section) when
 * it has them; then lttng_ust_statedump:end. The ELF files are read on this
 * host, as jank reads them. Fields have lttng-ust's names and order, and
 * jank-gen's types: lttng-ust's uint8_t and uint32_t fields are unsigned
 * 64-bit integers here, build_id an array of them after a 32-bit length.
 * jank names the callstack_user addresses from it (io/trace-symbols.c).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <elf.h>

#define MAX_FIELDS 32
#define COMM_LEN   16
#define MAX_CPUS   4096

/* Ring-buffer event header types (include/linux/ring_buffer.h). */
#define RB_PADDING	 29
#define RB_TIME_EXTEND	 30
#define RB_TIME_STAMP	 31
#define RB_MISSED_EVENTS (1ULL << 31)
#define RB_MISSED_STORED (1ULL << 30)
#define RB_COMMIT_MASK	 ((1ULL << 27) - 1)
#define TS_MSB_SHIFT	 59

/* lttng-modules RWBS_FLAG_*. */
enum {
	RWBS_WRITE = 1 << 0,
	RWBS_DISCARD = 1 << 1,
	RWBS_READ = 1 << 2,
	RWBS_RAHEAD = 1 << 3,
	RWBS_SYNC = 1 << 5,
	RWBS_META = 1 << 6,
	RWBS_SECURE = 1 << 7,
	RWBS_FLUSH = 1 << 8,
	RWBS_FUA = 1 << 9,
	RWBS_PREFLUSH = 1 << 10,
};

/* lttng-modules enum lttng_process_status. */
enum {
	ST_UNNAMED = 0,
	ST_WAIT_FORK = 1,
	ST_WAIT_CPU = 2,
	ST_ZOMBIE = 4,
	ST_WAIT = 5,
	ST_DEAD = 7,
};

enum fkind {
	F_INT,
	F_STR,	    /* char name[N] */
	F_DATA_LOC, /* __data_loc char[]: u32 length << 16 | offset */
	F_REL_LOC,  /* __rel_loc: the offset counts from the field's end */
	F_TAIL,	    /* char name[]: up to the end of the record */
};

struct ffield {
	char name[64];
	enum fkind kind;
	unsigned int offset, size;
	bool is_signed;
	bool is_hex; /* a pointer or an unsigned long: written in hexadecimal */
};

enum conv {
	C_NONE,
	C_SWITCH,
	C_WAKEUP,
	C_FORK,
	C_EXEC,
	C_EXIT,
	C_FREE,
	C_IRQ_ENTRY,
	C_IRQ_EXIT,
	C_SOFTIRQ,
	C_HRTIMER_ENTRY,
	C_HRTIMER_EXIT,
	C_RQ_ISSUE,
	C_RQ_COMPLETE,
	C_NET,
	C_MARKER,
	C_SYSCALL,
	C_USTACK, /* ftrace:user_stack, the user stack of the event before */
	C_KSTACK, /* ftrace:kernel_stack */
};

struct fevent {
	char system[64], name[64];
	unsigned int id;
	unsigned int nfields;
	struct ffield f[MAX_FIELDS];
	enum conv conv;
	const char *out_name; /* lttng-modules name */
	char out_buf[96];
};

struct rec {
	uint64_t ts;
	uint32_t cpu;
	uint32_t seq;
	uint32_t len;
	uint32_t missed; /* events lost before this one */
	const uint8_t *data;
	/* The ftrace:user_stack and ftrace:kernel_stack records that follow it. */
	const uint8_t *ustack, *kstack;
	uint32_t ustack_len, kstack_len;
};

/*
 * The events of a CPU that wait for their stack records, innermost last: an
 * interrupt between an event and its stacks writes its own events and their
 * stacks in between.
 */
#define MAX_WAIT 16
struct cpu_wait {
	size_t rec[MAX_WAIT];
	unsigned int n;
	uint32_t missed; /* events lost before a stack record: for the next event */
};

struct thread {
	int32_t tid;		   /* 0: free slot (tid 0 is kept apart) */
	int32_t tgid;		   /* -1: unknown */
	char comm[COMM_LEN];	   /* "": unknown */
	char first_comm[COMM_LEN]; /* the first comm the trace gives */
};

static struct {
	const char *dir;
	struct fevent **by_id;
	unsigned int max_id;
	unsigned int subbuf;
	unsigned int commit_size, data_off;
	unsigned int ncpus;
	struct rec *recs;
	size_t nrecs, caprecs;
	struct thread *threads;
	size_t nthreads, capthreads; /* open addressing, power of two */
	long long pidns;
	int dumper_tid, dumper_pid;
	char dumper_comm[COMM_LEN];
	char hostname[256], release[256];
	bool ustacks, kstacks; /* the recorder's -u, -k */
	const struct fevent *ustack_ev, *kstack_ev;
	struct cpu_wait *wait;
	size_t stacks_matched, stacks_unmatched;
	FILE *k, *u;
} g;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("ktrace-conv: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static FILE *open_in(const char *name, bool must)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", g.dir, name);
	f = fopen(path, "r");
	if (!f && must)
		die("%s: %s", path, strerror(errno));
	return f;
}

/* ------------------------------------------------------------- threads */

static uint32_t hash_tid(int32_t tid)
{
	return (uint32_t)tid * 2654435761u;
}

static struct thread *thread_get(int32_t tid)
{
	size_t mask, i;

	if (tid <= 0)
		return NULL;
	if (2 * (g.nthreads + 1) > g.capthreads) {
		struct thread *old = g.threads;
		size_t oldcap = g.capthreads;

		g.capthreads = oldcap ? 2 * oldcap : 4096;
		g.threads = calloc(g.capthreads, sizeof(*g.threads));
		if (!g.threads)
			die("out of memory");
		g.nthreads = 0;
		for (i = 0; i < oldcap; i++) {
			if (old[i].tid) {
				struct thread *t = thread_get(old[i].tid);

				*t = old[i];
			}
		}
		free(old);
	}
	mask = g.capthreads - 1;
	for (i = hash_tid(tid) & mask; g.threads[i].tid; i = (i + 1) & mask)
		if (g.threads[i].tid == tid)
			return &g.threads[i];
	g.threads[i].tid = tid;
	g.threads[i].tgid = -1;
	g.nthreads++;
	return &g.threads[i];
}

static void set_comm(char *dst, const char *src)
{
	size_t n = strnlen(src, COMM_LEN - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* ------------------------------------------------------------- formats */

static enum conv conv_of(const char *sys, const char *name, const char **out)
{
	static const struct {
		const char *sys, *name, *out;
		enum conv conv;
	} t[] = {
		{ "sched", "sched_switch", "sched_switch", C_SWITCH },
		{ "sched", "sched_waking", "sched_waking", C_WAKEUP },
		{ "sched", "sched_wakeup", "sched_wakeup", C_WAKEUP },
		{ "sched", "sched_wakeup_new", "sched_wakeup_new", C_WAKEUP },
		{ "sched", "sched_process_fork", "sched_process_fork", C_FORK },
		{ "sched", "sched_process_exec", "sched_process_exec", C_EXEC },
		{ "sched", "sched_process_exit", "sched_process_exit", C_EXIT },
		{ "sched", "sched_process_free", "sched_process_free", C_FREE },
		{ "irq", "irq_handler_entry", "irq_handler_entry", C_IRQ_ENTRY },
		{ "irq", "irq_handler_exit", "irq_handler_exit", C_IRQ_EXIT },
		{ "irq", "softirq_entry", "irq_softirq_entry", C_SOFTIRQ },
		{ "irq", "softirq_exit", "irq_softirq_exit", C_SOFTIRQ },
		{ "irq", "softirq_raise", "irq_softirq_raise", C_SOFTIRQ },
		{ "timer", "hrtimer_expire_entry", "timer_hrtimer_expire_entry", C_HRTIMER_ENTRY },
		{ "timer", "hrtimer_expire_exit", "timer_hrtimer_expire_exit", C_HRTIMER_EXIT },
		{ "block", "block_rq_issue", "block_rq_issue", C_RQ_ISSUE },
		{ "block", "block_rq_complete", "block_rq_complete", C_RQ_COMPLETE },
		{ "net", "net_dev_queue", "net_dev_queue", C_NET },
		{ "net", "netif_receive_skb", "net_if_receive_skb", C_NET },
		{ "ftrace", "print", NULL, C_MARKER },
		{ "ftrace", "user_stack", NULL, C_USTACK },
		{ "ftrace", "kernel_stack", NULL, C_KSTACK },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (!strcmp(t[i].sys, sys) && !strcmp(t[i].name, name)) {
			*out = t[i].out;
			return t[i].conv;
		}
	}
	*out = NULL;
	return C_NONE;
}

/* "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" */
static void parse_field(struct fevent *e, char *line, const char *path)
{
	char *decl = line + strlen("field:"), *semi, *name, *br;
	struct ffield *f;
	unsigned int off, size, sgn = 0;
	char *o;

	semi = strchr(decl, ';');
	o = strstr(line, "offset:");
	if (!semi || !o || sscanf(o, "offset:%u;\tsize:%u;\tsigned:%u;", &off, &size, &sgn) < 2)
		die("%s: bad field line: %s", path, line);
	*semi = '\0';
	name = strrchr(decl, ' ');
	name = name ? name + 1 : decl;
	if (e->nfields == MAX_FIELDS)
		die("%s: too many fields", path);
	f = &e->f[e->nfields++];
	f->offset = off;
	f->size = size;
	f->is_signed = sgn;
	f->is_hex = strchr(decl, '*') ||
		    (!sgn && size == 8 && (strstr(decl, "long") || strstr(decl, "size_t")));
	br = strchr(name, '[');
	if (!strncmp(decl, "__data_loc ", 11))
		f->kind = F_DATA_LOC;
	else if (!strncmp(decl, "__rel_loc ", 10))
		f->kind = F_REL_LOC;
	else if (br && strstr(decl, "char"))
		f->kind = size ? F_STR : F_TAIL;
	else
		f->kind = F_INT;
	if (br)
		*br = '\0';
	snprintf(f->name, sizeof(f->name), "%s", name);
}

static void load_format(const char *file)
{
	char path[4096], line[4096];
	struct fevent *e = calloc(1, sizeof(*e));
	const char *colon = strchr(file, ':');
	bool have_id = false;
	FILE *f;

	if (!e)
		die("out of memory");
	if (!colon)
		return;
	snprintf(e->system, sizeof(e->system), "%.*s", (int)(colon - file), file);
	snprintf(path, sizeof(path), "formats/%s", file);
	f = open_in(path, true);
	while (fgets(line, sizeof(line), f)) {
		char *s = line;

		while (*s == ' ' || *s == '\t')
			s++;
		s[strcspn(s, "\n")] = '\0';
		if (!strncmp(s, "name: ", 6))
			snprintf(e->name, sizeof(e->name), "%s", s + 6);
		else if (!strncmp(s, "ID: ", 4))
			have_id = sscanf(s + 4, "%u", &e->id) == 1;
		else if (!strncmp(s, "field:", 6))
			parse_field(e, s, path);
	}
	fclose(f);
	if (!have_id || !e->name[0] || e->id > 65535)
		die("%s/%s: no name or ID", g.dir, path);
	e->conv = conv_of(e->system, e->name, &e->out_name);
	if (!strcmp(e->system, "syscalls")) {
		/* sys_enter_NAME, sys_exit_NAME: syscall_entry_NAME, syscall_exit_NAME */
		if (!strncmp(e->name, "sys_enter_", 10))
			snprintf(e->out_buf, sizeof(e->out_buf), "syscall_entry_%s", e->name + 10);
		else if (!strncmp(e->name, "sys_exit_", 9))
			snprintf(e->out_buf, sizeof(e->out_buf), "syscall_exit_%s", e->name + 9);
		if (e->out_buf[0]) {
			e->conv = C_SYSCALL;
			e->out_name = e->out_buf;
		}
	}
	if (e->conv == C_USTACK)
		g.ustack_ev = e;
	else if (e->conv == C_KSTACK)
		g.kstack_ev = e;
	if (e->id >= g.max_id) {
		unsigned int n = e->id + 1;

		g.by_id = xrealloc(g.by_id, n * sizeof(*g.by_id));
		memset(g.by_id + g.max_id, 0, (n - g.max_id) * sizeof(*g.by_id));
		g.max_id = n;
	}
	g.by_id[e->id] = e;
}

static void load_formats(void)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/formats", g.dir);
	dir = opendir(path);
	if (!dir)
		die("%s: %s", path, strerror(errno));
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			load_format(d->d_name);
	closedir(dir);
}

static const struct ffield *field(const struct fevent *e, const char *name)
{
	for (unsigned int i = 0; i < e->nfields; i++)
		if (!strcmp(e->f[i].name, name))
			return &e->f[i];
	die("event %s:%s has no field %s", e->system, e->name, name);
}

static bool has_field(const struct fevent *e, const char *name)
{
	for (unsigned int i = 0; i < e->nfields; i++)
		if (!strcmp(e->f[i].name, name))
			return true;
	return false;
}

/* Integers are little-endian: these machines are x86_64 or aarch64. */
static uint64_t rd(const uint8_t *p, unsigned int size)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < size && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int64_t fint(const struct rec *r, const struct fevent *e, const char *name)
{
	const struct ffield *f = field(e, name);
	uint64_t v;

	if (f->offset + f->size > r->len)
		die("event %s: field %s past the record", e->name, name);
	v = rd(r->data + f->offset, f->size);
	if (f->is_signed && f->size < 8 && (v >> (8 * f->size - 1)) & 1)
		v |= ~0ULL << (8 * f->size);
	return (int64_t)v;
}

/* A string field, NUL-terminated into buf. */
static const char *fstr(const struct rec *r, const struct fevent *e, const char *name, char *buf,
			size_t n)
{
	const struct ffield *f = field(e, name);
	size_t off = f->offset, len = f->size;

	switch (f->kind) {
	case F_INT:
		die("event %s: field %s is not a string", e->name, name);
	case F_STR:
		break;
	case F_DATA_LOC:
	case F_REL_LOC: {
		uint32_t loc = (uint32_t)rd(r->data + f->offset, 4);

		off = loc & 0xffff;
		len = loc >> 16;
		if (f->kind == F_REL_LOC)
			off += f->offset + f->size;
		break;
	}
	case F_TAIL:
		len = r->len > off ? r->len - off : 0;
		break;
	}
	if (off > r->len)
		len = 0;
	else if (off + len > r->len)
		len = r->len - off;
	if (len >= n)
		len = n - 1;
	memcpy(buf, r->data + off, len);
	buf[len] = '\0';
	buf[strnlen(buf, len)] = '\0';
	return buf;
}

/* ---------------------------------------------------------------- pages */

/*
 * A stack record (ftrace:user_stack or kernel_stack): the stack of the
 * innermost event of the CPU that waits for it, which current wrote too
 * (ftrace writes the kernel stack, then the user stack, right after the
 * event). An event has all its stacks with its user stack (or its kernel
 * stack when only kernel stacks are recorded).
 */
static void add_stack(const struct fevent *e, uint32_t cpu, const uint8_t *data, uint32_t len)
{
	struct cpu_wait *w = &g.wait[cpu];
	struct rec *r;

	if (!w->n || len < 8) {
		g.stacks_unmatched++;
		return;
	}
	r = &g.recs[w->rec[w->n - 1]];
	if (rd(r->data + 4, 4) != rd(data + 4, 4)) { /* common_pid */
		g.stacks_unmatched++;
		return;
	}
	if (e->conv == C_USTACK) {
		r->ustack = data;
		r->ustack_len = len;
		w->n--;
	} else if (r->kstack) {
		g.stacks_unmatched++;
		return;
	} else {
		r->kstack = data;
		r->kstack_len = len;
		if (!g.ustacks)
			w->n--;
	}
	g.stacks_matched++;
}

static void add_rec(uint64_t ts, uint32_t cpu, const uint8_t *data, uint32_t len, uint32_t missed)
{
	uint16_t id = (uint16_t)rd(data, 2);
	const struct fevent *e = id < g.max_id ? g.by_id[id] : NULL;
	struct cpu_wait *w = &g.wait[cpu];
	struct rec *r;

	if (missed)
		w->n = 0; /* what waited may have lost its stacks */
	missed += w->missed;
	w->missed = 0;
	if (e && (e->conv == C_USTACK || e->conv == C_KSTACK)) {
		add_stack(e, cpu, data, len);
		w->missed = missed;
		return;
	}
	/* Every event gets its stacks but trace_marker writes (ftrace:print). */
	if ((g.ustacks || g.kstacks) && !(e && e->conv == C_MARKER)) {
		if (w->n == MAX_WAIT) {
			memmove(w->rec, w->rec + 1, (MAX_WAIT - 1) * sizeof(w->rec[0]));
			w->n--;
		}
		w->rec[w->n++] = g.nrecs;
	}
	if (g.nrecs == g.caprecs) {
		g.caprecs = g.caprecs ? 2 * g.caprecs : 65536;
		g.recs = xrealloc(g.recs, g.caprecs * sizeof(*g.recs));
	}
	r = &g.recs[g.nrecs];
	r->ts = ts;
	r->cpu = cpu;
	r->seq = (uint32_t)g.nrecs;
	r->data = data;
	r->len = len;
	r->missed = missed;
	r->ustack = r->kstack = NULL;
	r->ustack_len = r->kstack_len = 0;
	g.nrecs++;
}

/* One sub-buffer: header (timestamp, commit), then events. */
static void read_page(const uint8_t *page, uint32_t cpu)
{
	uint64_t ts = rd(page, 8);
	uint64_t commit = rd(page + 8, g.commit_size);
	size_t len = commit & RB_COMMIT_MASK;
	const uint8_t *p = page + g.data_off, *end;
	uint32_t missed = 0;

	if (len > g.subbuf - g.data_off)
		die("cpu%u: page with %zu bytes of data", cpu, len);
	end = p + len;
	if (commit & RB_MISSED_EVENTS) {
		missed = 1;
		if ((commit & RB_MISSED_STORED) && len + 8 <= g.subbuf - g.data_off)
			missed = (uint32_t)rd(end, 8);
	}
	while (p + 4 <= end) {
		uint32_t hdr = (uint32_t)rd(p, 4);
		uint32_t type_len = hdr & 31, delta = hdr >> 5;
		uint32_t dlen;

		switch (type_len) {
		case RB_PADDING:
			if (!delta)
				return; /* the rest of the page is empty */
			p += 4 + (uint32_t)rd(p + 4, 4);
			continue;
		case RB_TIME_EXTEND:
			ts += ((uint64_t)rd(p + 4, 4) << 27) | delta;
			p += 8;
			continue;
		case RB_TIME_STAMP: {
			uint64_t abs = ((uint64_t)rd(p + 4, 4) << 27) | delta;

			ts = abs | (ts & ~((1ULL << TS_MSB_SHIFT) - 1));
			p += 8;
			continue;
		}
		case 0:
			dlen = (uint32_t)rd(p + 4, 4);
			if (dlen < 4 || p + 4 + dlen > end)
				die("cpu%u: bad event length %u", cpu, dlen);
			ts += delta;
			add_rec(ts, cpu, p + 8, dlen - 4, missed);
			p += 4 + dlen;
			break;
		default:
			dlen = type_len * 4;
			if (p + 4 + dlen > end)
				die("cpu%u: event past the page", cpu);
			ts += delta;
			add_rec(ts, cpu, p + 4, dlen, missed);
			p += 4 + dlen;
			break;
		}
		missed = 0;
	}
}

static void load_cpu(uint32_t cpu)
{
	char name[64];
	uint8_t *buf;
	size_t n, cap = 1 << 20, len = 0;
	FILE *f;

	snprintf(name, sizeof(name), "cpu%u.raw", cpu);
	f = open_in(name, true);
	buf = xrealloc(NULL, cap);
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	fclose(f);
	if (len % g.subbuf)
		die("%s: %zu bytes, not a whole number of %u-byte pages", name, len, g.subbuf);
	/* buf is kept: the records point into it. */
	for (size_t off = 0; off < len; off += g.subbuf)
		read_page(buf + off, cpu);
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* --------------------------------------------------------------- inputs */

static void load_info(void)
{
	char line[4096];
	FILE *f = open_in("info", true);

	g.subbuf = 4096;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, '=');

		if (!v)
			continue;
		*v++ = '\0';
		v[strcspn(v, "\n")] = '\0';
		if (!strcmp(line, "subbuf_size"))
			g.subbuf = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "ncpus"))
			g.ncpus = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(line, "pidns"))
			g.pidns = strtoll(v, NULL, 10);
		else if (!strcmp(line, "dumper_tid"))
			g.dumper_tid = (int)strtol(v, NULL, 10);
		else if (!strcmp(line, "dumper_comm"))
			set_comm(g.dumper_comm, v);
		else if (!strcmp(line, "hostname"))
			snprintf(g.hostname, sizeof(g.hostname), "%s", v);
		else if (!strcmp(line, "kernel_release"))
			snprintf(g.release, sizeof(g.release), "%s", v);
		else if (!strcmp(line, "userstacktrace"))
			g.ustacks = !strcmp(v, "1");
		else if (!strcmp(line, "stacktrace"))
			g.kstacks = !strcmp(v, "1");
	}
	fclose(f);
	g.dumper_pid = g.dumper_tid;
	if (!g.ncpus || g.ncpus > MAX_CPUS || g.subbuf < 64)
		die("%s/info: bad ncpus or subbuf_size", g.dir);
}

/* header_page: where commit and data are (the commit size is a long's). */
static void load_header_page(void)
{
	char line[512];
	FILE *f = open_in("header_page", true);

	g.commit_size = 8;
	g.data_off = 16;
	while (fgets(line, sizeof(line), f)) {
		unsigned int off, size;
		char *o = strstr(line, "offset:");

		if (!o || sscanf(o, "offset:%u;\tsize:%u;", &off, &size) != 2)
			continue;
		if (strstr(line, " commit;"))
			g.commit_size = size;
		else if (strstr(line, " data;"))
			g.data_off = off;
	}
	fclose(f);
	if ((g.commit_size != 4 && g.commit_size != 8) || g.data_off >= g.subbuf)
		die("%s/header_page: unexpected layout", g.dir);
}

struct proc {
	int32_t tid, tgid, ppid;
	char state;
	char comm[COMM_LEN];
	unsigned long flags;
	int cpu, policy;
};

static struct proc *procs;
static size_t nprocs;

/* "/proc/PID/task/TID/stat:TID (COMM) S PPID ..." lines, from grep -H. */
static void load_procs(void)
{
	char line[8192];
	FILE *f = open_in("procs", true);

	while (fgets(line, sizeof(line), f)) {
		struct proc p = { 0 };
		char *c, *rp, *s;
		int field;

		if (sscanf(line, "/proc/%d/task/%d/stat:", &p.tgid, &p.tid) != 2)
			continue;
		c = strchr(line, '(');
		rp = strrchr(line, ')');
		if (!c || !rp || rp < c)
			continue;
		snprintf(p.comm, sizeof(p.comm), "%.*s", (int)(rp - c - 1), c + 1);
		s = rp + 2;
		p.state = *s;
		/* Fields after the comm: 3 state, 4 ppid, 9 flags, 39 processor, 41 policy. */
		for (field = 3; s && *s; field++) {
			if (field == 4)
				p.ppid = (int32_t)strtol(s, NULL, 10);
			else if (field == 9)
				p.flags = strtoul(s, NULL, 10);
			else if (field == 39)
				p.cpu = (int)strtol(s, NULL, 10);
			else if (field == 41)
				p.policy = (int)strtol(s, NULL, 10);
			s = strchr(s, ' ');
			if (s)
				s++;
		}
		procs = xrealloc(procs, (nprocs + 1) * sizeof(*procs));
		procs[nprocs++] = p;
		{
			struct thread *t = thread_get(p.tid);

			if (t) {
				t->tgid = p.tgid;
				set_comm(t->comm, p.comm);
			}
		}
	}
	fclose(f);
}

static void load_saved(void)
{
	char line[512];
	FILE *f;

	f = open_in("saved_tgids", false);
	while (f && fgets(line, sizeof(line), f)) {
		int pid, tgid;
		struct thread *t;

		if (sscanf(line, "%d %d", &pid, &tgid) == 2 && (t = thread_get(pid)) && tgid > 0)
			t->tgid = tgid;
	}
	if (f)
		fclose(f);
	f = open_in("saved_cmdlines", false);
	while (f && fgets(line, sizeof(line), f)) {
		int pid, n = 0;
		struct thread *t;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%d %n", &pid, &n) == 1 && n && (t = thread_get(pid)) &&
		    !t->comm[0] && strcmp(line + n, "<...>"))
			set_comm(t->comm, line + n);
	}
	if (f)
		fclose(f);
}

/* --------------------------------------------------------------- output */

/* A comm or string as a jank-gen string: escapes, no control characters. */
static void put_str(FILE *o, const char *name, const char *s)
{
	fprintf(o, " %s=\"", name);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fputc('\\', o);
		fputc(c < 0x20 || c == 0x7f ? '?' : c, o);
	}
	fputc('"', o);
}

static void put_int(FILE *o, const char *name, int64_t v)
{
	fprintf(o, " %s=%" PRId64, name, v);
}

static void put_hex(FILE *o, const char *name, uint64_t v)
{
	fprintf(o, " %s=0x%" PRIx64, name, v);
}

static int32_t tgid_of(int32_t tid)
{
	struct thread *t = thread_get(tid);

	if (tid == 0)
		return 0;
	return t && t->tgid > 0 ? t->tgid : tid;
}

static const char *comm_of(int32_t tid, uint32_t cpu, char *buf)
{
	struct thread *t;

	if (tid == 0) {
		snprintf(buf, COMM_LEN, "swapper/%u", cpu);
		return buf;
	}
	t = thread_get(tid);
	if (t && t->comm[0])
		return t->comm;
	if (t && t->first_comm[0])
		return t->first_comm;
	return "";
}

static void learn_comm(int32_t tid, const char *comm)
{
	struct thread *t = thread_get(tid);

	if (t && comm[0])
		set_comm(t->comm, comm);
}

static void begin_kernel(const struct rec *r, const char *name)
{
	fprintf(g.k, "%" PRIu64 " %u %s", r->ts, r->cpu, name);
}

/*
 * A stack record as the context lttng-modules 2.13 gives (its
 * lttng-context-callstack.c and -stackwalk-impl.h): _NAME_length, an
 * unsigned int, then NAME, a sequence of unsigned long in hexadecimal,
 * innermost first, as the kernel's stack_trace_save_user() and
 * stack_trace_save() give them (for the user stack: the user IP at kernel
 * entry, then the return addresses in the frame records). lttng-modules
 * saves 128 entries and adds ULONG_MAX to a full stack, which may go on;
 * ftrace saves 8 of the user stack (its caller[8], zeros after the last),
 * and a full one gets ULONG_MAX here too. Without a stack record (an event
 * of the statedump, a stack lost), the sequence is empty.
 */
static void put_stack(FILE *o, const char *name, const struct fevent *e, const uint8_t *data,
		      uint32_t len)
{
	const struct ffield *caller;
	uint32_t n = 0, max;

	fprintf(o, " %s=[", name);
	if (data) {
		caller = field(e, "caller");
		max = len > caller->offset ? (len - caller->offset) / 8 : 0;
		if (e->conv == C_USTACK) {
			if (max > caller->size / 8)
				max = caller->size / 8;
		} else {
			const struct ffield *size = field(e, "size");
			int64_t sz = (int64_t)rd(data + size->offset, size->size);

			if (sz >= 0 && (uint64_t)sz < max)
				max = (uint32_t)sz;
		}
		for (; n < max; n++) {
			uint64_t a = rd(data + caller->offset + 8 * n, 8);

			if (!a && e->conv == C_USTACK)
				break;
			fprintf(o, "%s0x%" PRIx64, n ? "," : "", a);
		}
		if (e->conv == C_USTACK && n && n == caller->size / 8)
			fprintf(o, ",0x%" PRIx64, UINT64_MAX);
	}
	fputc(']', o);
}

static void end_kernel(const struct rec *r, int32_t tid)
{
	char buf[COMM_LEN];

	fprintf(g.k, " ctx.tid=%d ctx.pid=%d", tid, tgid_of(tid));
	put_str(g.k, "ctx.procname", comm_of(tid, r->cpu, buf));
	if (g.kstacks)
		put_stack(g.k, "ctx.callstack_kernel", g.kstack_ev, r->kstack, r->kstack_len);
	if (g.ustacks)
		put_stack(g.k, "ctx.callstack_user", g.ustack_ev, r->ustack, r->ustack_len);
	fputc('\n', g.k);
}

static uint32_t rwbs_flags(const char *s)
{
	uint32_t v = 0;

	if (s[0] == 'F' && s[1] && strchr("WDFRN", s[1])) {
		v |= RWBS_PREFLUSH;
		s++;
	}
	switch (*s) {
	case 'W':
		v |= RWBS_WRITE;
		break;
	case 'D':
		v |= RWBS_DISCARD;
		if (s[1] == 'E') {
			v |= RWBS_SECURE;
			s++;
		}
		break;
	case 'F':
		v |= RWBS_FLUSH;
		break;
	case 'R':
		v |= RWBS_READ;
		break;
	default:
		break;
	}
	if (*s)
		s++;
	for (; *s; s++) {
		if (*s == 'F')
			v |= RWBS_FUA;
		else if (*s == 'A')
			v |= RWBS_RAHEAD;
		else if (*s == 'S')
			v |= RWBS_SYNC;
		else if (*s == 'M')
			v |= RWBS_META;
	}
	return v;
}

static void marker(const struct rec *r, const struct fevent *e, int32_t tid)
{
	char buf[4096], cbuf[COMM_LEN];
	char *s, *name;
	size_t n;

	fstr(r, e, "buf", buf, sizeof(buf));
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	if (strncmp(buf, "jank:", 5))
		return;
	name = buf;
	s = buf + strcspn(buf, " ");
	if (*s)
		*s++ = '\0';
	fprintf(g.u, "%" PRIu64 " %u %s %s vpid=%d vtid=%d", r->ts, r->cpu, name, s, tgid_of(tid),
		tid);
	put_str(g.u, "procname", comm_of(tid, r->cpu, cbuf));
	fputc('\n', g.u);
}

static void convert(const struct rec *r)
{
	uint16_t id = (uint16_t)rd(r->data, 2);
	const struct fevent *e = id < g.max_id ? g.by_id[id] : NULL;
	char s1[256], s2[256];
	int32_t tid;

	if (!e || e->conv == C_NONE)
		return;
	tid = (int32_t)fint(r, e, "common_pid");
	if (r->missed)
		fprintf(g.k, "@discarded %u %u\n", r->cpu, r->missed);
	switch (e->conv) {
	case C_NONE:
	case C_USTACK:
	case C_KSTACK:
		return;
	case C_SYSCALL:
		begin_kernel(r, e->out_name);
		for (unsigned int i = 0; i < e->nfields; i++) {
			const struct ffield *f = &e->f[i];

			if (!strncmp(f->name, "common_", 7) || !strcmp(f->name, "__syscall_nr"))
				continue;
			if (f->kind != F_INT)
				put_str(g.k, f->name, fstr(r, e, f->name, s1, sizeof(s1)));
			else if (f->is_hex)
				put_hex(g.k, f->name, (uint64_t)fint(r, e, f->name));
			else
				put_int(g.k, f->name, fint(r, e, f->name));
		}
		end_kernel(r, tid);
		return;
	case C_MARKER:
		marker(r, e, tid);
		return;
	case C_SWITCH: {
		int32_t prev = (int32_t)fint(r, e, "prev_pid");
		int32_t next = (int32_t)fint(r, e, "next_pid");

		fstr(r, e, "prev_comm", s1, sizeof(s1));
		fstr(r, e, "next_comm", s2, sizeof(s2));
		learn_comm(prev, s1);
		begin_kernel(r, e->out_name);
		put_str(g.k, "prev_comm", s1);
		put_int(g.k, "prev_tid", prev);
		put_int(g.k, "prev_prio", fint(r, e, "prev_prio") - 100);
		put_int(g.k, "prev_state", fint(r, e, "prev_state"));
		put_str(g.k, "next_comm", s2);
		put_int(g.k, "next_tid", next);
		put_int(g.k, "next_prio", fint(r, e, "next_prio") - 100);
		end_kernel(r, tid);
		/* Events after the switch run next: name it from now on. */
		learn_comm(next, s2);
		return;
	}
	case C_WAKEUP: {
		int32_t who = (int32_t)fint(r, e, "pid");

		fstr(r, e, "comm", s1, sizeof(s1));
		learn_comm(who, s1);
		begin_kernel(r, e->out_name);
		put_str(g.k, "comm", s1);
		put_int(g.k, "tid", who);
		put_int(g.k, "prio", fint(r, e, "prio") - 100);
		put_int(g.k, "target_cpu", fint(r, e, "target_cpu"));
		end_kernel(r, tid);
		return;
	}
	case C_FORK: {
		int32_t parent = (int32_t)fint(r, e, "parent_pid");
		int32_t child = (int32_t)fint(r, e, "child_pid");
		struct thread *ct = thread_get(child);

		fstr(r, e, "parent_comm", s1, sizeof(s1));
		fstr(r, e, "child_comm", s2, sizeof(s2));
		learn_comm(child, s2);
		if (ct && ct->tgid <= 0)
			ct->tgid = child;
		begin_kernel(r, e->out_name);
		put_str(g.k, "parent_comm", s1);
		put_int(g.k, "parent_tid", parent);
		put_int(g.k, "parent_pid", tgid_of(parent));
		put_int(g.k, "parent_ns_inum", g.pidns);
		put_str(g.k, "child_comm", s2);
		put_int(g.k, "child_tid", child);
		put_int(g.k, "child_pid", tgid_of(child));
		put_int(g.k, "child_ns_inum", g.pidns);
		end_kernel(r, tid);
		return;
	}
	case C_EXEC: {
		const char *base;

		fstr(r, e, "filename", s1, sizeof(s1));
		base = strrchr(s1, '/');
		learn_comm((int32_t)fint(r, e, "pid"), base ? base + 1 : s1);
		begin_kernel(r, e->out_name);
		put_str(g.k, "filename", s1);
		put_int(g.k, "tid", fint(r, e, "pid"));
		put_int(g.k, "old_tid", fint(r, e, "old_pid"));
		end_kernel(r, tid);
		return;
	}
	case C_EXIT:
	case C_FREE:
		fstr(r, e, "comm", s1, sizeof(s1));
		begin_kernel(r, e->out_name);
		put_str(g.k, "comm", s1);
		put_int(g.k, "tid", fint(r, e, "pid"));
		put_int(g.k, "prio", fint(r, e, "prio") - 100);
		if (e->conv == C_EXIT)
			put_int(g.k, "group_dead",
				has_field(e, "group_dead") ? !!fint(r, e, "group_dead") : 0);
		end_kernel(r, tid);
		return;
	case C_IRQ_ENTRY:
		begin_kernel(r, e->out_name);
		put_int(g.k, "irq", fint(r, e, "irq"));
		put_str(g.k, "name", fstr(r, e, "name", s1, sizeof(s1)));
		end_kernel(r, tid);
		return;
	case C_IRQ_EXIT:
		begin_kernel(r, e->out_name);
		put_int(g.k, "irq", fint(r, e, "irq"));
		put_int(g.k, "ret", fint(r, e, "ret"));
		end_kernel(r, tid);
		return;
	case C_SOFTIRQ:
		begin_kernel(r, e->out_name);
		put_int(g.k, "vec", fint(r, e, "vec"));
		end_kernel(r, tid);
		return;
	case C_HRTIMER_ENTRY:
		begin_kernel(r, e->out_name);
		put_hex(g.k, "hrtimer", (uint64_t)fint(r, e, "hrtimer"));
		put_int(g.k, "now", fint(r, e, "now"));
		put_hex(g.k, "function", (uint64_t)fint(r, e, "function"));
		end_kernel(r, tid);
		return;
	case C_HRTIMER_EXIT:
		begin_kernel(r, e->out_name);
		put_hex(g.k, "hrtimer", (uint64_t)fint(r, e, "hrtimer"));
		end_kernel(r, tid);
		return;
	case C_RQ_ISSUE:
		begin_kernel(r, e->out_name);
		put_int(g.k, "dev", fint(r, e, "dev"));
		put_int(g.k, "sector", fint(r, e, "sector"));
		put_int(g.k, "nr_sector", fint(r, e, "nr_sector"));
		put_int(g.k, "bytes", fint(r, e, "bytes"));
		put_int(g.k, "tid", tid);
		put_int(g.k, "rwbs", rwbs_flags(fstr(r, e, "rwbs", s1, sizeof(s1))));
		put_str(g.k, "comm", fstr(r, e, "comm", s2, sizeof(s2)));
		end_kernel(r, tid);
		return;
	case C_RQ_COMPLETE:
		begin_kernel(r, e->out_name);
		put_int(g.k, "dev", fint(r, e, "dev"));
		put_int(g.k, "sector", fint(r, e, "sector"));
		put_int(g.k, "nr_sector", fint(r, e, "nr_sector"));
		put_int(g.k, "error", fint(r, e, "error"));
		put_int(g.k, "rwbs", rwbs_flags(fstr(r, e, "rwbs", s1, sizeof(s1))));
		end_kernel(r, tid);
		return;
	case C_NET:
		begin_kernel(r, e->out_name);
		put_hex(g.k, "skbaddr", (uint64_t)fint(r, e, "skbaddr"));
		put_int(g.k, "len", fint(r, e, "len"));
		put_str(g.k, "name", fstr(r, e, "name", s1, sizeof(s1)));
		end_kernel(r, tid);
		return;
	}
}

/* The first comm the trace gives each thread, for its events before that. */
static void first_comms(void)
{
	char s[COMM_LEN + 1];

	for (size_t i = 0; i < g.nrecs; i++) {
		const struct rec *r = &g.recs[i];
		uint16_t id = (uint16_t)rd(r->data, 2);
		const struct fevent *e = id < g.max_id ? g.by_id[id] : NULL;
		const char *pid_f = NULL, *comm_f = NULL;
		struct thread *t;

		if (!e)
			continue;
		switch (e->conv) {
		case C_SWITCH:
			pid_f = "next_pid";
			comm_f = "next_comm";
			break;
		case C_WAKEUP:
		case C_EXIT:
		case C_FREE:
			pid_f = "pid";
			comm_f = "comm";
			break;
		case C_FORK:
			pid_f = "child_pid";
			comm_f = "child_comm";
			break;
		default:
			continue;
		}
		t = thread_get((int32_t)fint(r, e, pid_f));
		if (t && !t->first_comm[0])
			set_comm(t->first_comm, fstr(r, e, comm_f, s, sizeof(s)));
		if (e->conv == C_SWITCH) {
			t = thread_get((int32_t)fint(r, e, "prev_pid"));
			if (t && !t->first_comm[0])
				set_comm(t->first_comm, fstr(r, e, "prev_comm", s, sizeof(s)));
		}
	}
}

static void statedump(uint64_t ts)
{
	const struct rec r = { .ts = ts, .cpu = 0 };

	begin_kernel(&r, "lttng_statedump_start");
	end_kernel(&r, g.dumper_tid);
	for (size_t i = 0; i < nprocs; i++) {
		const struct proc *p = &procs[i];
		int status;

		switch (p->state) {
		case 'R':
			status = p->policy == 1 || p->policy == 2 ? ST_WAIT_CPU : ST_WAIT_FORK;
			break;
		case 'S':
		case 'D':
		case 'I':
			status = ST_WAIT;
			break;
		case 'Z':
			status = ST_ZOMBIE;
			break;
		case 'X':
			status = ST_DEAD;
			break;
		default:
			status = ST_UNNAMED;
			break;
		}
		begin_kernel(&r, "lttng_statedump_process_state");
		put_int(g.k, "tid", p->tid);
		put_int(g.k, "pid", p->tgid);
		put_int(g.k, "ppid", p->ppid);
		put_str(g.k, "name", p->comm);
		put_int(g.k, "type", p->flags & 0x00200000 ? 1 : 0);
		put_int(g.k, "mode", 5);
		put_int(g.k, "submode", 0);
		put_int(g.k, "status", status);
		put_int(g.k, "cpu", p->cpu);
		put_hex(g.k, "file_table_address", 0);
		end_kernel(&r, g.dumper_tid);
	}
	begin_kernel(&r, "lttng_statedump_end");
	end_kernel(&r, g.dumper_tid);
}

/* ------------------------------------------- the lttng-ust statedump */

/* What lttng-ust's statedump reads of an ELF file (src/common/elf.c). */
struct elf_info {
	uint64_t memsz, first_offset;
	bool is_pic;
	uint8_t build_id[64];
	size_t build_id_len;
	char debug_link[256]; /* "": none */
	uint32_t crc;
};

/* A 64-bit little-endian ELF file, read whole (a size cap); false: not one. */
static bool elf_read(const char *path, struct elf_info *ei)
{
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	const Elf64_Shdr *sh;
	uint64_t low = UINT64_MAX, high = 0;
	bool first = true;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, r;
	FILE *f = fopen(path, "rb");

	memset(ei, 0, sizeof(*ei));
	if (!f)
		return false;
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			if (cap > (size_t)256 << 20)
				break;
			buf = xrealloc(buf, cap);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	eh = (const Elf64_Ehdr *)buf;
	if (n < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_phentsize != sizeof(*ph) || eh->e_phoff > n ||
	    (n - eh->e_phoff) / sizeof(*ph) < eh->e_phnum) {
		free(buf);
		return false;
	}
	ei->is_pic = eh->e_type == ET_DYN;
	ph = (const Elf64_Phdr *)(buf + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			if (first)
				ei->first_offset = ph[i].p_offset;
			first = false;
			low = ph[i].p_vaddr < low ? ph[i].p_vaddr : low;
			if (ph[i].p_vaddr + ph[i].p_memsz > high)
				high = ph[i].p_vaddr + ph[i].p_memsz;
		} else if (ph[i].p_type == PT_NOTE && ph[i].p_offset <= n &&
			   ph[i].p_filesz <= n - ph[i].p_offset && !ei->build_id_len) {
			const uint8_t *p = buf + ph[i].p_offset, *end = p + ph[i].p_filesz;

			while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
				const Elf64_Nhdr *nh = (const Elf64_Nhdr *)p;
				size_t nsz = (nh->n_namesz + 3) & ~3u,
				       dsz = (nh->n_descsz + 3) & ~3u;

				p += sizeof(*nh);
				if ((size_t)(end - p) < nsz || (size_t)(end - p) - nsz < dsz)
					break;
				if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
				    !memcmp(p, "GNU", 4) && nh->n_descsz <= sizeof(ei->build_id)) {
					memcpy(ei->build_id, p + nsz, nh->n_descsz);
					ei->build_id_len = nh->n_descsz;
					break;
				}
				p += nsz + dsz;
			}
		}
	}
	ei->memsz = high > low ? high - low : 0;
	/* The .gnu_debuglink section: a file name, padding to 4, its CRC-32. */
	sh = eh->e_shoff <= n ? (const Elf64_Shdr *)(buf + eh->e_shoff) : NULL;
	if (sh && eh->e_shoff && eh->e_shentsize == sizeof(*sh) &&
	    (n - eh->e_shoff) / sizeof(*sh) >= eh->e_shnum && eh->e_shstrndx < eh->e_shnum &&
	    sh[eh->e_shstrndx].sh_offset < n) {
		const char *names = (const char *)buf + sh[eh->e_shstrndx].sh_offset;
		size_t names_len = n - sh[eh->e_shstrndx].sh_offset;

		for (unsigned i = 0; i < eh->e_shnum; i++) {
			static const char want[] = ".gnu_debuglink";
			const char *d;
			size_t len;

			if (sh[i].sh_name >= names_len ||
			    names_len - sh[i].sh_name < sizeof(want) ||
			    memcmp(names + sh[i].sh_name, want, sizeof(want)) ||
			    sh[i].sh_type != SHT_PROGBITS || sh[i].sh_offset > n ||
			    sh[i].sh_size > n - sh[i].sh_offset)
				continue;
			d = (const char *)buf + sh[i].sh_offset;
			len = strnlen(d, sh[i].sh_size);
			if (len >= sizeof(ei->debug_link) ||
			    ((len + 4) & ~(size_t)3) + 4 > sh[i].sh_size)
				break;
			memcpy(ei->debug_link, d, len);
			memcpy(&ei->crc, d + ((len + 4) & ~(size_t)3), 4);
			break;
		}
	}
	free(buf);
	return true;
}

/*
 * The statedump of a process as lttng-ust writes it when the process
 * registers with a session (src/lib/lttng-ust/lttng-ust-statedump.c and
 * -statedump-provider.h), from the memory map the recorder saved: one
 * bin_info per mapped ELF file (the first mapping of each path that begins
 * with '/'), then its build_id and debug_link when it has them.
 */
static void ust_statedump_process(uint64_t ts, int32_t pid, FILE *maps)
{
	char line[4096], path[4096], done[64][512], cbuf[COMM_LEN];
	unsigned long long start, end, off;
	size_t ndone = 0;
	const char *comm = comm_of(pid, 0, cbuf);

#define UST_EVENT(name) fprintf(g.u, "%" PRIu64 " 0 lttng_ust_statedump:" name, ts)
#define UST_CTX()                                                                                  \
	do {                                                                                       \
		fprintf(g.u, " vpid=%d vtid=%d", (int)pid, (int)pid);                              \
		put_str(g.u, "procname", comm);                                                    \
		fputc('\n', g.u);                                                                  \
	} while (0)
	UST_EVENT("start");
	UST_CTX();
	while (fgets(line, sizeof(line), maps)) {
		struct elf_info ei;
		uint64_t baddr;
		size_t i;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &off, path) !=
			    4 ||
		    path[0] != '/' || strlen(path) >= sizeof(done[0]))
			continue;
		for (i = 0; i < ndone && strcmp(done[i], path); i++)
			;
		if (i < ndone || ndone == sizeof(done) / sizeof(done[0]))
			continue;
		strcpy(done[ndone++], path);
		if (!elf_read(path, &ei))
			continue;
		/* The run-time address of the first PT_LOAD segment. */
		baddr = start - off + (ei.first_offset & ~(uint64_t)0xfff);
		UST_EVENT("bin_info");
		put_hex(g.u, "baddr", baddr);
		put_hex(g.u, "memsz", ei.memsz);
		put_str(g.u, "path", path);
		put_hex(g.u, "is_pic", ei.is_pic);
		put_hex(g.u, "has_build_id", ei.build_id_len > 0);
		put_hex(g.u, "has_debug_link", ei.debug_link[0] != '\0');
		UST_CTX();
		if (ei.build_id_len) {
			UST_EVENT("build_id");
			put_hex(g.u, "baddr", baddr);
			fputs(" build_id=[", g.u);
			for (i = 0; i < ei.build_id_len; i++)
				fprintf(g.u, "%s0x%x", i ? "," : "", ei.build_id[i]);
			fputc(']', g.u);
			UST_CTX();
		}
		if (ei.debug_link[0]) {
			UST_EVENT("debug_link");
			put_hex(g.u, "baddr", baddr);
			put_hex(g.u, "crc", ei.crc);
			put_str(g.u, "filename", ei.debug_link);
			UST_CTX();
		}
	}
	UST_EVENT("end");
	UST_CTX();
#undef UST_EVENT
#undef UST_CTX
}

/*
 * The pid the kernel's events give the process that /proc (in the
 * recorder's PID namespace) named `pid`: from the recorder's marker
 * "ktrace:pid PID", written by the process itself; `pid` without one.
 */
static int32_t kernel_pid(int32_t pid)
{
	for (size_t i = 0; i < g.nrecs; i++) {
		const struct rec *r = &g.recs[i];
		uint16_t id = (uint16_t)rd(r->data, 2);
		const struct fevent *e = id < g.max_id ? g.by_id[id] : NULL;
		char buf[256];
		long v;

		if (!e || e->conv != C_MARKER)
			continue;
		fstr(r, e, "buf", buf, sizeof(buf));
		if (sscanf(buf, "ktrace:pid %ld", &v) == 1 && v == pid)
			return (int32_t)fint(r, e, "common_pid"); /* its only thread then */
	}
	return pid;
}

/* A statedump for each process whose memory map the recorder saved (-u). */
static void ust_statedump(uint64_t ts)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/maps", g.dir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *e;
		long pid = strtol(de->d_name, &e, 10);
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9' || *e || pid > INT32_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/maps/%s", g.dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		ust_statedump_process(ts, kernel_pid((int32_t)pid), f);
		fclose(f);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	struct thread *dt;

	if (argc != 4) {
		fprintf(stderr, "usage: ktrace-conv RECDIR KERNEL_SCRIPT UST_SCRIPT\n");
		return 2;
	}
	g.dir = argv[1];
	load_info();
	load_header_page();
	load_formats();
	if ((g.ustacks && !g.ustack_ev) || (g.kstacks && !g.kstack_ev))
		die("%s: stacks were recorded, but formats/ has no ftrace:%s", g.dir,
		    g.ustacks && !g.ustack_ev ? "user_stack" : "kernel_stack");
	g.wait = xrealloc(NULL, g.ncpus * sizeof(*g.wait));
	memset(g.wait, 0, g.ncpus * sizeof(*g.wait));
	load_procs();
	load_saved();
	for (uint32_t cpu = 0; cpu < g.ncpus; cpu++)
		load_cpu(cpu);
	qsort(g.recs, g.nrecs, sizeof(*g.recs), rec_cmp);
	first_comms();
	dt = thread_get(g.dumper_tid);
	if (dt && !dt->comm[0])
		set_comm(dt->comm, g.dumper_comm);

	g.k = fopen(argv[2], "w");
	g.u = fopen(argv[3], "w");
	if (!g.k || !g.u)
		die("cannot write the scripts: %s", strerror(errno));
	fprintf(g.k, "# made by ktrace-conv from the ftrace recording %s\n@trace kernel\n", g.dir);
	fprintf(g.k, "@env hostname=\"%s\"\n@env kernel_release=\"%s\"\n", g.hostname, g.release);
	fprintf(g.k, "@cpus %u\n@context tid pid procname:string%s%s\n", g.ncpus,
		g.kstacks ? " callstack_kernel:uint[]" : "",
		g.ustacks ? " callstack_user:uint[]" : "");
	if (g.ustacks || g.kstacks)
		fprintf(g.k, "# stack records: %zu given to their events, %zu not\n",
			g.stacks_matched, g.stacks_unmatched);
	fprintf(g.u, "# made by ktrace-conv from the trace_marker lines of %s\n@trace ust\n",
		g.dir);
	fprintf(g.u, "@env hostname=\"%s\"\n@cpus %u\n@context vpid vtid procname:string\n",
		g.hostname, g.ncpus);
	if (g.nrecs) {
		statedump(g.recs[0].ts);
		ust_statedump(g.recs[0].ts);
	}
	for (size_t i = 0; i < g.nrecs; i++)
		convert(&g.recs[i]);
	if (fclose(g.k) || fclose(g.u))
		die("cannot write the scripts: %s", strerror(errno));
	return 0;
}
