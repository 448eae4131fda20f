/* SPDX-License-Identifier: MIT */
/*
 * bench-metrics: what one scrape of jankd's metrics endpoint costs the
 * supervisor's loop, with many inputs and jank_critical_path_seconds fully
 * populated.
 *
 * Each input's figures are typed (daemon/worker/input-figures.h), as a worker's
 * heartbeat leaves them in the supervisor: per rule a histogram of 10,000
 * latencies, its counts, the last jank, and a composition of K + 1 names
 * ("other" and K = [metrics] composition-top names) with time in every state
 * of both classes: (K + 1) x JANK_STATE_COUNT x 2 series per rule, the most
 * there can be (without a worker restart, which keeps the names of the
 * workers that ended too). A scrape does what jank_status_metrics()
 * (daemon/status.c) does: each input's figures merged into a copy
 * (jank_input_figures_merge, as jank_fleet_input_figures), its worker's RSS and
 * CPU read from /proc (this process stands in for the workers), the
 * metrics structs pointed at them, jankd's own figures from /proc, and the
 * page rendered (OpenMetrics, what Prometheus asks for).
 *
 * Prints a Markdown table per case (inputs x rules): the page's size, its
 * series (sample lines), those of jank_critical_path_seconds, the CPU time
 * per scrape (the whole scrape, and the rendering alone), and this process's
 * RSS after the case and its peak.
 *
 * Usage: bench-metrics [--quick] [--page FILE] [INPUTS [K]]
 * (default 64 inputs, K = 10; --page: the page of the first case into FILE)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "composition.h"
#include "input-figures.h"
#include "metrics.h"

#define MS 1000000LL

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* VmRSS or VmHWM of this process, in KiB. */
static long status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long v = -1;
	size_t n = strlen(field);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-metrics: %s\n", what);
	exit(1);
}

/* One rule's figures: a histogram, counts, the last jank, k + 1 names in every state and class. */
static void fill_rule(struct jank_rule_figures *r, size_t input, size_t rule, unsigned k)
{
	static const char *const procs[] = { "postgres", "nginx", "java", "python3", "envoy" };
	struct jank_composition_entry comp[JANK_COMPOSITION_TOP_MAX + 1];

	snprintf(r->action, sizeof(r->action), "checkout-%zu", rule);
	jank_histogram_init(&r->hist);
	for (int64_t i = 0; i < 10000; i++)
		jank_histogram_add(&r->hist, 200000 + (i * i * 37) % (60 * MS));
	r->count = r->hist.count;
	r->threshold_ns = 16 * MS;
	r->stats.janks = r->count / 20;
	r->stats.overdue = 3;
	r->stats.expired = 1;
	r->stats.evicted = 0;
	r->stats.last_jank_ns = 17 * MS;
	snprintf(r->stats.last_jank_key, sizeof(r->stats.last_jank_key), "order-%zu-%zu", input,
		 rule);
	r->p50_ns = jank_histogram_percentile(&r->hist, 50);
	r->p90_ns = jank_histogram_percentile(&r->hist, 90);
	r->p99_ns = jank_histogram_percentile(&r->hist, 99);
	r->max_ns = r->hist.max;
	r->composition_top = k;
	memset(comp, 0, sizeof(comp));
	for (unsigned n = 0; n <= k; n++) {
		if (n == 0)
			snprintf(comp[n].on, sizeof(comp[n].on), "%s", JANK_COMPOSITION_OTHER);
		else
			snprintf(comp[n].on, sizeof(comp[n].on), "%s/worker-%02u",
				 procs[n % (sizeof(procs) / sizeof(procs[0]))], n);
		for (int c = 0; c < JANK_CLASS_COUNT; c++)
			for (int s = 0; s < JANK_STATE_COUNT; s++)
				comp[n].ns[c][s] = 1000003ull * (n + 1) * (s + 1) + 7ull * c;
	}
	if (jank_input_figures_set_composition(r, comp, k + 1) < 0)
		die("out of memory");
}

static void fill_input(struct jank_input_figures *f, size_t i, size_t nrules, unsigned k)
{
	jank_input_figures_init(f);
	f->reported = f->counted = true;
	snprintf(f->url, sizeof(f->url), "net://relayd.example.com:5344/host/web-%02zu/jank", i);
	snprintf(f->state, sizeof(f->state), "connected");
	f->attached = true;
	f->events_read = f->engine.events = 123456789;
	f->events_per_sec = 10000;
	f->engine.memory_bytes = 48 << 20;
	f->engine.actions_open = 12;
	if (jank_input_figures_set_rules(f, nrules) < 0)
		die("out of memory");
	for (size_t r = 0; r < nrules; r++)
		fill_rule(&f->rules[r], i, r, k);
}

struct scrape {
	size_t ninputs, nrules;
	const struct jank_input_figures *status, *past;
	struct jank_input_figures *merged;
	struct jank_metrics_input *inputs;
	struct jank_metrics_rule *rules;
};

/* One page, as jank_status_metrics() makes it; *render_ns: the rendering's share. */
static char *scrape(struct scrape *s, size_t *len, int64_t *render_ns)
{
	static const struct jank_journal_stats js;
	static const struct jank_capture_stats cs;
	static const struct jank_metrics_http_stats hs;
	struct jank_metrics m = { .version = "bench", .memory_limit = 256 << 20 };
	pid_t self = getpid();
	size_t k = 0;
	int64_t t;
	char *page;

	for (size_t i = 0; i < s->ninputs; i++) {
		const struct jank_input_figures *f = &s->merged[i];
		struct jank_metrics_input *in = &s->inputs[i];

		jank_input_figures_init(&s->merged[i]);
		if (jank_input_figures_merge(&s->merged[i], &s->status[i], &s->past[i]) < 0)
			die("out of memory");
		memset(in, 0, sizeof(*in));
		in->url = f->url;
		in->connected = f->attached;
		in->fig = f;
		in->worker_rss_bytes = jank_metrics_pid_rss(self);
		m.workers_cpu_ns += jank_metrics_pid_cpu_ns(self);
		in->rules = s->rules + k;
		in->nrules = f->nrules;
		for (size_t r = 0; r < f->nrules; r++, k++) {
			const struct jank_rule_figures *rf = &f->rules[r];
			struct jank_metrics_rule *mr = &s->rules[k];

			mr->action = rf->action;
			mr->hist = &rf->hist;
			mr->stats = &rf->stats;
			mr->threshold_ns = rf->threshold_ns > 0 ? rf->threshold_ns : 0;
			mr->comp = rf->comp;
			mr->ncomp = rf->ncomp;
		}
	}
	m.inputs = s->inputs;
	m.ninputs = s->ninputs;
	m.workers_cpu_ns += jank_metrics_children_cpu_ns();
	m.journal = &js;
	m.captures = &cs;
	m.http = &hs;
	jank_metrics_process_read(&m.process, 0);
	t = cpu_ns();
	page = jank_metrics_render(&m, JANK_METRICS_OPENMETRICS, len);
	*render_ns = cpu_ns() - t;
	if (!page)
		die("out of memory");
	for (size_t i = 0; i < s->ninputs; i++)
		jank_input_figures_fini(&s->merged[i]);
	return page;
}

/* Sample lines, and those of the family named `prefix`. */
static void count_series(const char *page, size_t len, size_t *all, size_t *family,
			 const char *prefix)
{
	size_t plen = strlen(prefix);

	*all = *family = 0;
	for (const char *p = page; p < page + len;) {
		const char *nl = memchr(p, '\n', (size_t)(page + len - p));

		if (*p != '#' && *p != '\n') {
			(*all)++;
			*family += !strncmp(p, prefix, plen);
		}
		p = nl ? nl + 1 : page + len;
	}
}

static void run_case(size_t ninputs, size_t nrules, unsigned k, double budget_s,
		     const char *page_file)
{
	struct jank_input_figures *status = calloc(ninputs, sizeof(*status));
	struct jank_input_figures *past = calloc(ninputs, sizeof(*past));
	struct scrape s = {
		.ninputs = ninputs,
		.nrules = nrules,
		.merged = calloc(ninputs, sizeof(*s.merged)),
		.inputs = calloc(ninputs + 1, sizeof(*s.inputs)),
		.rules = calloc(ninputs * nrules + 1, sizeof(*s.rules)),
	};
	int64_t total = 0, render = 0, r, t0;
	size_t len = 0, series, comp, n = 0;
	char *page;

	if (!status || !past || !s.merged || !s.inputs || !s.rules)
		die("out of memory");
	for (size_t i = 0; i < ninputs; i++) {
		fill_input(&status[i], i, nrules, k);
		jank_input_figures_init(&past[i]); /* no worker restarted: nothing to add */
	}
	s.status = status;
	s.past = past;

	/* One untimed scrape, then as many as fit in the budget (5 at least). */
	page = scrape(&s, &len, &r);
	count_series(page, len, &series, &comp, "jank_critical_path_seconds");
	if (page_file) {
		FILE *f = fopen(page_file, "we");

		if (!f || fwrite(page, 1, len, f) != len || fclose(f) != 0)
			die("cannot write the page");
	}
	free(page);
	t0 = cpu_ns();
	while (n < 5 || (double)(cpu_ns() - t0) < budget_s * 1e9) {
		int64_t t = cpu_ns();
		size_t l;

		page = scrape(&s, &l, &r);
		total += cpu_ns() - t;
		render += r;
		free(page);
		n++;
	}
	printf("| %zu | %zu | %u | %zu | %.2f | %zu | %zu | %.2f | %.2f | %zu | %.1f | %.1f |\n",
	       ninputs, nrules, k, len, (double)len / (1 << 20), series, comp,
	       (double)total / (double)n / 1e6, (double)render / (double)n / 1e6, n,
	       (double)status_kib("VmRSS") / 1024, (double)status_kib("VmHWM") / 1024);
	fflush(stdout);
	for (size_t i = 0; i < ninputs; i++) {
		jank_input_figures_fini(&status[i]);
		jank_input_figures_fini(&past[i]);
	}
	free(status);
	free(past);
	free(s.merged);
	free(s.inputs);
	free(s.rules);
}

int main(int argc, char **argv)
{
	const char *page_file = NULL;
	double budget = 3;
	size_t ninputs = 64;
	unsigned k = JANK_COMPOSITION_TOP_DEFAULT;
	int a = 1;

	for (; a < argc && argv[a][0] == '-'; a++)
		if (!strcmp(argv[a], "--quick"))
			budget = 0.2;
		else if (!strcmp(argv[a], "--page") && a + 1 < argc)
			page_file = argv[++a];
		else
			die("usage: bench-metrics [--quick] [--page FILE] [INPUTS [K]]");
	if (a < argc)
		ninputs = strtoul(argv[a++], NULL, 10);
	if (a < argc)
		k = (unsigned)strtoul(argv[a++], NULL, 10);
	if (!ninputs || k > JANK_COMPOSITION_TOP_MAX)
		die("usage: bench-metrics [--quick] [--page FILE] [INPUTS [K]]");

	printf("| inputs | rules each | K | page bytes | page MiB | series |"
	       " of which critical path | CPU ms per scrape | of which rendering | scrapes |"
	       " RSS MiB after | peak RSS MiB |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	run_case(ninputs, 1, k, budget, page_file);
	run_case(ninputs, 4, k, budget, NULL);
	return 0;
}
