/* SPDX-License-Identifier: MIT */
/*
 * bench-stacks: weeks of short-lived instrumented processes, compressed,
 * through the engine: does the table of call stacks, and the memory, stay
 * flat, and is the last process still named?
 *
 * A spawner forks one process after another (10 ms of trace apart, each its
 * own pid, as cron jobs, CGI scripts or build steps are): each enters main
 * and 20 nested functions, has one slow request (2 ms blocked in the
 * innermost), returns and exits. Two kinds of run, under memory-limit =
 * 4 MiB (a table of 10,922 stacks):
 *
 *   per process   each process's functions at addresses of its own (ASLR,
 *                 no mapping known): stacks by (process, address), shared
 *                 by none, freed by GC once their process is gone
 *   one binary    every process maps one binary, which a locator names (as
 *                 the symbolizer does from the statedump): stacks by
 *                 (binary, offset), shared by all the processes
 *
 * Every tenth of the run prints a Markdown row: processes so far, trace
 * time, live stacks, the table's bytes, stacks freed and refused so far,
 * the engine's memory, the process's RSS, and how many of the window's slow
 * requests had a function named on their path. Figures, not a test.
 *
 * Usage: bench-stacks [PROCESSES]   (default 200000: one every 3 s for a week)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine.h"

#define US	1000LL
#define MS	1000000LL
#define SPAWNER 10
#define DEPTH	20
#define TEXT	0x400000ull
#define MAIN	0x401000ull

struct cls {
	uint32_t id;
	const char *const *fields;
	unsigned nfields;
};

struct field {
	const char *name;
	int64_t i;
	const char *s;
};

struct feed {
	struct jank_engine *e;
	unsigned slow, named;
};

static struct cls *class_of(struct feed *f, enum jank_domain d, const char *name)
{
	static struct {
		struct jank_engine *e;
		const char *name;
		struct cls c;
	} cache[32];
	static unsigned n;

	for (unsigned i = 0; i < n; i++)
		if (cache[i].e == f->e && !strcmp(cache[i].name, name)) {
			/* The engine's table of classes may have moved: ask again (cheap). */
			jank_engine_resolve_class(f->e, d, name, &cache[i].c.fields,
						  &cache[i].c.nfields);
			return &cache[i].c;
		}
	if (n == 32) {
		fprintf(stderr, "bench-stacks: too many classes\n");
		exit(1);
	}
	cache[n].e = f->e;
	cache[n].name = name;
	cache[n].c.id =
		jank_engine_resolve_class(f->e, d, name, &cache[n].c.fields, &cache[n].c.nfields);
	if (cache[n].c.id == JANK_CLASS_INVALID) {
		fprintf(stderr, "bench-stacks: cannot resolve %s\n", name);
		exit(1);
	}
	return &cache[n++].c;
}

static void event(struct feed *f, enum jank_domain d, int64_t ts, int cpu, int tid,
		  const char *name, const struct field *fl, unsigned n)
{
	struct cls *c = class_of(f, d, name);
	struct jank_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ts = ts;
	ev.cpu = cpu;
	ev.tid = tid;
	ev.pid = tid;
	ev.class_id = c->id;
	ev.nfields = c->nfields;
	for (unsigned i = 0; i < ev.nfields; i++) {
		ev.fields[i].type = JANK_VALUE_NONE;
		for (unsigned j = 0; j < n; j++) {
			if (strcmp(fl[j].name, c->fields[i]))
				continue;
			if (fl[j].s) {
				ev.fields[i].type = JANK_VALUE_STR;
				ev.fields[i].s = fl[j].s;
			} else {
				ev.fields[i].type = JANK_VALUE_INT;
				ev.fields[i].i = fl[j].i;
			}
		}
	}
	jank_engine_process(f->e, &ev);
}

#define K(f, ts, cpu, name, ...)                                                                   \
	event((f), JANK_DOMAIN_KERNEL, (ts), (cpu), -1, (name),                                    \
	      (const struct field[]){ __VA_ARGS__ },                                               \
	      sizeof((const struct field[]){ __VA_ARGS__ }) / sizeof(struct field))
#define U(f, ts, cpu, tid, name, ...)                                                              \
	event((f), JANK_DOMAIN_UST, (ts), (cpu), (tid), (name),                                    \
	      (const struct field[]){ __VA_ARGS__ },                                               \
	      sizeof((const struct field[]){ __VA_ARGS__ }) / sizeof(struct field))

static void sw(struct feed *f, int64_t ts, int cpu, int prev, int prev_state, int next)
{
	K(f, ts, cpu, "sched_switch", { "prev_comm", 0, "t" }, { "prev_tid", prev, NULL },
	  { "prev_state", prev_state, NULL }, { "next_comm", 0, "t" }, { "next_tid", next, NULL });
}

static void fn(struct feed *f, int64_t ts, int tid, bool entry, uint64_t addr)
{
	U(f, ts, 1, tid,
	  entry ? "lttng_ust_cyg_profile:func_entry" : "lttng_ust_cyg_profile:func_exit",
	  { "addr", (int64_t)addr, NULL }, { "call_site", (int64_t)addr + 8, NULL });
}

static void on_verdict(const struct jank_verdict *r, void *data)
{
	struct feed *f = data;

	if (!r->over_threshold)
		return;
	f->slow++;
	f->named += r->breakdown && r->breakdown->nfunctions > 0;
}

#ifndef BENCH_BEFORE
static bool locator(int64_t pid, uint64_t addr, uint32_t *code, uint64_t *offset, void *data)
{
	(void)pid;
	(void)data;
	if (addr < TEXT || addr >= TEXT + 0x100000)
		return false;
	*code = 1;
	*offset = addr - TEXT;
	return true;
}
#endif

/* One process: fork, main → f1 → ... → f20, a 2 ms slow request, exit. */
static void process(struct feed *f, int64_t t, int tid, bool one_binary)
{
	uint64_t base = one_binary ? 0 : (uint64_t)tid << 12;

	K(f, t, 0, "sched_process_fork", { "parent_comm", 0, "t" }, { "parent_tid", SPAWNER, NULL },
	  { "parent_pid", SPAWNER, NULL }, { "child_comm", 0, "t" }, { "child_tid", tid, NULL },
	  { "child_pid", tid, NULL });
	K(f, t + 1, 0, "sched_wakeup_new", { "comm", 0, "t" }, { "tid", tid, NULL },
	  { "target_cpu", 1, NULL });
	sw(f, t + 2 * US, 1, 0, 0, tid);
	t += 3 * US;
	fn(f, t, tid, true, MAIN + base);
	U(f, t + 10 * US, 1, tid, "app:req_begin", { "id", tid, NULL });
	for (int d = 1; d <= DEPTH; d++)
		fn(f, t + 10 * US + d, tid, true, MAIN + base + 16 * (uint64_t)d);
	sw(f, t + 20 * US, 1, tid, 1, 0);
	K(f, t + 2 * MS, 0, "sched_waking", { "comm", 0, "t" }, { "tid", tid, NULL },
	  { "target_cpu", 1, NULL });
	K(f, t + 2 * MS, 0, "sched_wakeup", { "comm", 0, "t" }, { "tid", tid, NULL },
	  { "target_cpu", 1, NULL });
	sw(f, t + 2 * MS + US, 1, 0, 0, tid);
	for (int d = DEPTH; d >= 1; d--)
		fn(f, t + 2 * MS + 2 * US + d, tid, false, MAIN + base + 16 * (uint64_t)d);
	U(f, t + 2 * MS + 50 * US, 1, tid, "app:req_end", { "id", tid, NULL });
	t += 2 * MS + 100 * US;
	fn(f, t, tid, false, MAIN + base);
	K(f, t + US, 1, "sched_process_exit", { "comm", 0, "t" }, { "tid", tid, NULL });
	sw(f, t + US, 1, tid, 64, 0);
	K(f, t + 3 * US, 0, "sched_process_free", { "comm", 0, "t" }, { "tid", tid, NULL });
}

static long rss_kib(void)
{
	long pages = 0, rss = 0;
	FILE *fp = fopen("/proc/self/statm", "r");

	if (fp) {
		if (fscanf(fp, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(fp);
	}
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static void run(int nproc, bool one_binary)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct jank_rule r;
	struct feed f = { 0 };
	unsigned slow0 = 0, named0 = 0;
	int64_t t = 1 * MS;

	jank_engine_config_defaults(&cfg);
	cfg.memory_limit = 4u << 20;
	f.e = jank_engine_new(&cfg);
	if (!f.e)
		exit(1);
	jank_engine_set_layout(f.e, 2, 13);
	jank_rule_init(&r);
	r.name = (char *)"request";
	r.begin_event = (char *)"app:req_begin";
	r.end_event = (char *)"app:req_end";
	if (jank_rule_set_keys(&r, "id") < 0 || jank_threshold_parse("1ms", &r.threshold) < 0 ||
	    jank_engine_add_rule(f.e, &r) < 0)
		exit(1);
	for (unsigned i = 0; i < r.nkeys; i++)
		free(r.keys[i]);
	jank_engine_set_verdict_cb(f.e, on_verdict, &f);
#ifndef BENCH_BEFORE
	if (one_binary)
		jank_engine_set_locator(f.e, locator, NULL);
#endif
	printf("\n%s, memory-limit 4 MiB:\n\n",
	       one_binary ? "One binary (a locator)" : "A binary per process (no mapping known)");
	printf("| processes | trace time | live stacks | table | freed | full | refused (share) "
	       "| engine memory | RSS | slow requests named |\n"
	       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	sw(&f, t, 0, 0, 0, SPAWNER);
	for (int i = 1; i <= nproc; i++) {
		process(&f, t, 1000 + i, one_binary);
		t += 10 * MS;
		if (i % (nproc / 10) && i != nproc)
			continue;
		jank_engine_tick(f.e, t);
		jank_engine_get_stats(f.e, &st);
		printf("| %d | %.0f s | %" PRIu64 " | %" PRIu64 " KiB | %" PRIu64 " | %" PRIu64
		       " | %" PRIu64 " | %" PRIu64 " KiB | %ld KiB | %u/%u |\n",
		       i, (double)t / 1e9, st.stacks,
		       jank_stacks_bytes(jank_graph_stacks_const(jank_engine_graph(f.e))) >> 10,
#ifndef BENCH_BEFORE
		       st.stacks_freed, st.stacks_full, st.stacks_refused_share,
#else
		       (uint64_t)0, st.stacks_full, (uint64_t)0,
#endif
		       st.memory_bytes >> 10, rss_kib(), f.named - named0, f.slow - slow0);
		slow0 = f.slow;
		named0 = f.named;
	}
	jank_engine_free(f.e);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200000;

	if (n < 10) {
		fprintf(stderr, "usage: bench-stacks [PROCESSES >= 10]\n");
		return 2;
	}
	run(n, false);
	run(n, true);
	return 0;
}
