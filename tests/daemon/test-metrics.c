/* SPDX-License-Identifier: MIT */
/*
 * daemon/http/metrics.c: the renderer of the metrics endpoint, on figures made
 * by hand. Names, HELP and TYPE per format, the histogram's cumulative
 * counts against the values put in, escaping, exemplars, content negotiation.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "metrics.h"
#include "textsafe.h"

#define MS 1000000LL

struct fixture {
	struct jank_histogram hist[2];
	struct jank_rule_stats stats[2];
	struct jank_metrics_rule rules[2];
	struct jank_composition_entry comp[2];
	struct jank_input_figures fig;
	struct jank_metrics_input inputs[2];
	struct jank_capture_stats captures;
	struct jank_metrics_http_stats http;
	struct jank_metrics m;
	int64_t values[1000];
	size_t nvalues;
};

/* 1000 durations from 0.2 ms to 60 ms, some right at the threshold's edges. */
static void fill(struct fixture *f)
{
	for (size_t i = 0; i < 1000; i++) {
		int64_t v = 200000 + (int64_t)(i * i) * 60;

		if (i % 100 == 7)
			v = 16 * MS; /* the threshold itself: not a jank */
		if (i % 100 == 8)
			v = (int64_t)jank_histogram_bucket_high(jank_histogram_bucket(16 * MS));
		f->values[f->nvalues++] = v;
		jank_histogram_add(&f->hist[0], v);
	}
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	jank_histogram_init(&f->hist[0]);
	jank_histogram_init(&f->hist[1]);
	fill(f);
	f->stats[0].janks = 3;
	f->stats[0].overdue = 2;
	f->stats[0].expired = 1;
	f->stats[0].evicted = 4;
	f->stats[0].last_jank_ns = 45 * MS;
	snprintf(f->stats[0].last_jank_key, sizeof(f->stats[0].last_jank_key), "name=frame,id=49");
	strcpy(f->comp[0].on, "db/io");
	f->comp[0].ns[JANK_CLASS_SLOW][JANK_STATE_BLOCK_DEVICE] = 250 * MS;
	f->comp[0].ns[JANK_CLASS_NORMAL][JANK_STATE_RUNNING] = 3 * MS;
	strcpy(f->comp[1].on, JANK_COMPOSITION_OTHER);
	f->comp[1].ns[JANK_CLASS_SLOW][JANK_STATE_PREEMPTED] = 1500000000LL;
	f->rules[0] = (struct jank_metrics_rule){ "frame", &f->hist[0], &f->stats[0],
						  16 * MS, f->comp,	2 };
	f->rules[1] = (struct jank_metrics_rule){ "io", &f->hist[1], &f->stats[1], 0, NULL, 0 };
	/* The worker's figures: the figures table says which are metrics. */
	jank_input_figures_init(&f->fig);
	f->fig.engine.events = 2000;
	f->fig.engine.discarded_events = 5;
	f->fig.disconnects = 1;
	f->fig.reconnects = 1;
	f->fig.engine.memory_bytes = 4096;
	f->fig.engine.budget_forced = 7;
	f->fig.engine.flows_paired = 45;
	f->fig.engine.flows_evicted = 3;
	f->fig.engine.function_resyncs = 6;
	f->fig.engine.stacks_full = 12;
	f->fig.engine.stacks_refused_share = 13;
	f->inputs[0] = (struct jank_metrics_input){
		.url = "net://127.0.0.1/host/h/s",
		.connected = true,
		.fig = &f->fig,
		.worker_restarts = 2,
		.worker_rss_bytes = 8 << 20,
		.rules = f->rules,
		.nrules = 2,
	};
	f->captures.started = 2;
	f->captures.refused[JANK_CAPTURE_REASON_COOLDOWN] = 9;
	f->captures.bytes = 1 << 20;
	f->http.requests = 11;
	f->m = (struct jank_metrics){
		.version = "0.1.0",
		.inputs = f->inputs,
		.ninputs = 1,
		.memory_limit = 256 << 20,
		.captures = &f->captures,
		.http = &f->http,
	};
	f->m.alerts.sent = 3;
	f->m.workers_cpu_ns = 1500 * MS;
	/* Two pairs of hosts: beta 37 ms behind alpha, bracketed; gamma heard one way only. */
	{
		static const struct jank_metrics_clock clocks[] = {
			{ "beta", "alpha", -37000267, -37253989, -36746545, 20, 20 },
			{ "gamma", "alpha", 5000000, 5000000, INT64_MAX, 3, 0 },
		};

		f->m.clocks = clocks;
		f->m.nclocks = 2;
		f->m.crossing_held = 4;
		f->m.crossing_joined = 3;
		f->m.crossing_timed_out = 1;
		f->m.flow_events_evicted = 100;
	}
	jank_metrics_process_read(&f->m.process, 1700000000LL * 1000000000);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static char *render(struct fixture *f, enum jank_metrics_format fmt)
{
	size_t len = 0;
	char *text = jank_metrics_render(&f->m, fmt, &len);

	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *s = text; (s = strstr(s, line)); s++)
		if ((s == text || s[-1] == '\n') && (s[n] == '\n' || s[n] == ' '))
			return true;
	return false;
}

/* The family a sample belongs to has a TYPE: its name, less a suffix of the sample names. */
static bool sample_typed(const char *text, const char *name)
{
	static const char *const suffixes[] = {
		"", "_total", "_info", "_bucket", "_sum", "_count"
	};
	char line[256];

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t n = strlen(name), k = strlen(suffixes[i]);

		if (n < k || strcmp(name + n - k, suffixes[i]))
			continue;
		snprintf(line, sizeof(line), "# TYPE %.*s", (int)(n - k), name);
		if (has_line(text, line))
			return true;
	}
	return false;
}

/* Every sample has a family with a TYPE. */
static void check_families(const char *text)
{
	char *copy = strdup(text), *save = NULL;
	unsigned samples = 0;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[128];

		if (l[0] == '#')
			continue;
		assert_int_equal(sscanf(l, "%127[a-zA-Z0-9_:]", name), 1);
		if (!sample_typed(text, name))
			fail_msg("no TYPE for %s", name);
		samples++;
	}
	assert_true(samples > 40);
	free(copy);
}

static void openmetrics_names(void **state)
{
	char *t = render(*state, JANK_METRICS_OPENMETRICS);

	check_families(t);
	assert_true(has_line(t, "# TYPE jank_janks counter"));
	assert_true(has_line(t, "# HELP jank_janks Completed actions that took longer than their "
				"rule's threshold."));
	assert_true(has_line(t, "jank_janks_total{action=\"frame\"} 3"));
	assert_true(has_line(t, "jank_overdue_actions_total{action=\"frame\"} 2"));
	assert_true(has_line(t, "jank_expired_actions_total{action=\"frame\"} 1"));
	assert_true(has_line(t, "jank_evicted_actions_total{action=\"frame\"} 4"));
	assert_true(has_line(t, "# TYPE jank_action_duration_seconds histogram"));
	assert_true(has_line(t, "# UNIT jank_action_duration_seconds seconds"));
	assert_true(has_line(t, "jank_action_threshold_seconds{action=\"frame\"} 0.016"));
	assert_true(has_line(t, "jank_action_threshold_seconds{action=\"io\"} 0"));
	assert_true(
		has_line(t, "jank_input_events_total{input=\"net://127.0.0.1/host/h/s\"} 2000"));
	assert_true(has_line(t,
			     "jank_graph_budget_forced_collections_total{input=\"net://127.0.0.1/"
			     "host/h/s\"} 7"));
	assert_true(has_line(
		t, "jank_input_worker_restarts_total{input=\"net://127.0.0.1/host/h/s\"} 2"));
	assert_true(has_line(t, "jank_input_worker_resident_memory_bytes{input=\"net://127.0.0.1/"
				"host/h/s\"} 8388608"));
	assert_true(has_line(t, "# TYPE jank_input_flows counter"));
	assert_true(has_line(t, "jank_input_flows_total{input=\"net://127.0.0.1/host/h/s\","
				"outcome=\"paired\"} 45"));
	assert_true(has_line(t, "jank_input_flows_total{input=\"net://127.0.0.1/host/h/s\","
				"outcome=\"evicted\"} 3"));
	assert_true(has_line(t, "jank_input_flows_total{input=\"net://127.0.0.1/host/h/s\","
				"outcome=\"unmatched\"} 0"));
	assert_true(has_line(t, "jank_input_function_resyncs_total{input=\"net://127.0.0.1/"
				"host/h/s\"} 6"));
	assert_true(has_line(t, "jank_input_stacks_full_total{input=\"net://127.0.0.1/host/h/"
				"s\"} 12"));
	assert_true(has_line(t, "jank_input_stacks_refused_share_total{input=\"net://127.0.0.1/"
				"host/h/s\"} 13"));
	assert_true(has_line(t, "# TYPE jank_workers_cpu_seconds counter"));
	assert_true(has_line(t, "jank_workers_cpu_seconds_total 1.5"));
	assert_true(has_line(t, "# TYPE jank_host_clock_offset_seconds gauge"));
	assert_true(has_line(t, "jank_host_clock_offset_seconds{host=\"beta\",reference=\"alpha\"} "
				"-0.037000267"));
	assert_true(has_line(t, "jank_host_clock_offset_low_seconds{host=\"beta\",reference="
				"\"alpha\"} -0.037253989"));
	assert_true(has_line(t, "jank_host_clock_offset_high_seconds{host=\"beta\",reference="
				"\"alpha\"} -0.036746545"));
	assert_true(has_line(t, "jank_host_clock_offset_low_seconds{host=\"gamma\",reference="
				"\"alpha\"} 0.005"));
	assert_null(strstr(t, "jank_host_clock_offset_high_seconds{host=\"gamma\""));
	assert_true(has_line(t, "jank_host_clock_messages_total{host=\"beta\",reference=\"alpha\","
				"direction=\"from\"} 20"));
	assert_true(has_line(t, "jank_crosshost_held_total 4"));
	assert_true(has_line(t, "jank_crosshost_not_seen_total 1"));
	assert_true(has_line(t, "jank_crosshost_flow_events_evicted_total 100"));
	assert_true(has_line(t, "jank_captures_refused_total{reason=\"cooldown\"} 9"));
	assert_true(has_line(t, "jank_captures_disk_usage_bytes 1048576"));
	assert_true(has_line(t, "jank_alerts_sent_total 3"));
	assert_true(has_line(t, "jank_metrics_requests_total 11"));
	assert_true(has_line(t, "# TYPE jank_build info"));
	assert_true(has_line(t, "jank_build_info{version=\"0.1.0\"} 1"));
	assert_true(has_line(t, "# TYPE process_cpu_seconds counter"));
	assert_true(has_line(t, "process_start_time_seconds 1700000000"));
	assert_non_null(strstr(t, "\nprocess_resident_memory_bytes "));
	assert_non_null(strstr(t, "\nprocess_cpu_seconds_total "));
	assert_string_equal(t + strlen(t) - 6, "# EOF\n");
	free(t);
}

static void prometheus_names(void **state)
{
	char *t = render(*state, JANK_METRICS_PROMETHEUS);

	check_families(t);
	assert_true(has_line(t, "# TYPE jank_janks_total counter"));
	assert_true(has_line(t, "# HELP jank_janks_total Completed actions that took longer than "
				"their rule's threshold."));
	assert_true(has_line(t, "jank_janks_total{action=\"frame\"} 3"));
	assert_true(has_line(t, "# TYPE jank_build_info gauge"));
	assert_true(has_line(t, "# TYPE process_cpu_seconds_total counter"));
	assert_null(strstr(t, "# EOF"));
	assert_null(strstr(t, "# UNIT"));
	assert_null(strstr(t, " # {")); /* no exemplars in this format */
	free(t);
}

/* Each bucket holds exactly the values up to its bound; +Inf, _count and _sum are all of them. */
static void histogram_counts(void **state)
{
	struct fixture *f = *state;
	char *t = render(f, JANK_METRICS_PROMETHEUS), *save = NULL;
	uint64_t last = 0, sum = 0, below = 0, above = UINT64_MAX;
	unsigned buckets = 0;
	double prev = -1, total_sum = 0;

	for (size_t i = 0; i < f->nvalues; i++)
		sum += (uint64_t)f->values[i];
	for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char le[32];
		uint64_t count, exact = 0;

		if (sscanf(l, "jank_action_duration_seconds_sum{action=\"frame\"} %lf",
			   &total_sum) == 1)
			continue;
		if (sscanf(l, "jank_action_duration_seconds_count{action=\"frame\"} %" SCNu64,
			   &count) == 1) {
			assert_int_equal(count, f->nvalues);
			continue;
		}
		if (sscanf(l,
			   "jank_action_duration_seconds_bucket{action=\"frame\",le=\"%31[^\"]\"} "
			   "%" SCNu64,
			   le, &count) != 2)
			continue;
		buckets++;
		if (!strcmp(le, "+Inf")) {
			assert_int_equal(count, f->nvalues);
			continue;
		}
		/* le is exact decimal seconds of an integer ns bound */
		uint64_t bound = (uint64_t)(strtod(le, NULL) * 1e9 + 0.5);

		assert_true(strtod(le, NULL) > prev);
		prev = strtod(le, NULL);
		for (size_t i = 0; i < f->nvalues; i++)
			exact += (uint64_t)f->values[i] <= bound;
		assert_int_equal(count, exact);
		assert_true(count >= last);
		last = count;
		if (bound < 16 * MS)
			below = bound;
		else if (above == UINT64_MAX)
			above = bound;
	}
	assert_true(buckets > 20 && buckets <= JANK_METRICS_MAX_BOUNDS + 1);
	assert_true(total_sum > (double)sum / 1e9 - 1e-6 && total_sum < (double)sum / 1e9 + 1e-6);
	/* The threshold is bracketed within one of the engine's buckets (1/16 of an octave). */
	assert_true(below < 16 * MS && above >= 16 * MS);
	assert_true(above - below <= 16 * MS / 16);
	free(t);
}

static void bucket_bounds(void **state)
{
	uint64_t b[JANK_METRICS_MAX_BOUNDS];
	size_t n = jank_metrics_bucket_bounds(0, b);

	(void)state;
	assert_int_equal(n, 27);
	assert_int_equal(b[0], 1023);
	/* A threshold on an octave's edge adds one bound, not two equal ones. */
	n = jank_metrics_bucket_bounds((1 << 20) - 1, b);
	assert_int_equal(n, 28);
	for (size_t i = 1; i < n; i++)
		assert_true(b[i] > b[i - 1]);
	for (size_t i = 0; i < n; i++) /* each is the end of one of the engine's buckets */
		assert_int_equal(jank_histogram_bucket_high(jank_histogram_bucket(b[i])), b[i]);
}

static void escaping(void **state)
{
	struct fixture *f = *state;
	char *t;

	f->rules[0].action = "a\"b\\c\nd";
	f->inputs[0].url = "net://h/host/x/s\"1";
	snprintf(f->stats[0].last_jank_key, sizeof(f->stats[0].last_jank_key), "name=\"x\\y\"");
	t = render(f, JANK_METRICS_OPENMETRICS);
	assert_true(has_line(t, "jank_janks_total{action=\"a\\\"b\\\\c\\nd\"} 3"));
	assert_true(has_line(t, "jank_input_events_total{input=\"net://h/host/x/s\\\"1\"} 2000"));
	assert_non_null(strstr(t, " # {key=\"name=\\\"x\\\\y\\\"\"} 0.045\n"));
	free(t);
}

/*
 * Traced keys (and any label value) are made valid UTF-8: a key with an
 * invalid byte and one cut inside a character (as an older engine cut them
 * at 95 bytes) would make Prometheus drop the whole scrape. With
 * JANK_METRICS_PAGES=DIR in the environment, the pages are written there
 * for daemon/test-metrics-promtool.sh.
 */
static void untrusted_strings(void **state)
{
	struct fixture *f = *state;
	char *key = f->stats[0].last_jank_key, *t, *o;
	const char *dir = getenv("JANK_METRICS_PAGES");
	size_t n;

	f->rules[0].action = "fr\xffme\n\x1b[31m";
	strcpy(key, "name=\xc3\x28");
	for (n = strlen(key); n + 3 <= JANK_KEY_LEN - 3; n += 3)
		strcat(key, "\xe2\x82\xac");
	strcat(key, "\xe2\x82"); /* cut inside a '€' */
	o = render(f, JANK_METRICS_OPENMETRICS);
	t = render(f, JANK_METRICS_PROMETHEUS);
	assert_true(jank_utf8_valid(o, strlen(o)));
	assert_true(jank_utf8_valid(t, strlen(t)));
	assert_non_null(strstr(o, " # {key=\"name=\xef\xbf\xbd(\xe2\x82\xac"));
	assert_non_null(strstr(o, "\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd\"} 0.045\n"));
	assert_true(has_line(t, "jank_janks_total{action=\"fr\xef\xbf\xbdme\\n\x1b[31m\"} 3"));
	if (dir) {
		char path[4096];
		FILE *out;

		snprintf(path, sizeof(path), "%s/metrics.txt", dir);
		assert_non_null(out = fopen(path, "w"));
		fputs(t, out);
		fclose(out);
		snprintf(path, sizeof(path), "%s/metrics.om", dir);
		assert_non_null(out = fopen(path, "w"));
		fputs(o, out);
		fclose(out);
	}
	free(o);
	free(t);
}

/* The composition: one sample per name, class and state with time; none for a rule without. */
static void critical_path(void **state)
{
	char *o = render(*state, JANK_METRICS_OPENMETRICS);
	char *t = render(*state, JANK_METRICS_PROMETHEUS);
	unsigned n = 0;

	assert_true(has_line(o, "# TYPE jank_critical_path_seconds counter"));
	assert_true(has_line(o, "# UNIT jank_critical_path_seconds seconds"));
	assert_true(has_line(t, "# TYPE jank_critical_path_seconds_total counter"));
	assert_true(has_line(o, "jank_critical_path_seconds_total{action=\"frame\",class=\"slow\","
				"state=\"block_device\",on=\"db/io\"} 0.25"));
	assert_true(has_line(t,
			     "jank_critical_path_seconds_total{action=\"frame\",class=\"normal\","
			     "state=\"running\",on=\"db/io\"} 0.003"));
	assert_true(has_line(o, "jank_critical_path_seconds_total{action=\"frame\",class=\"slow\","
				"state=\"preempted\",on=\"other\"} 1.5"));
	assert_null(strstr(o, "state=\"running\",on=\"other\""));
	assert_null(strstr(o, "jank_critical_path_seconds_total{action=\"io\""));
	/* Three samples in all. */
	for (const char *p = o; (p = strstr(p, "\njank_critical_path_seconds_total{")); p++)
		n++;
	assert_int_equal(n, 3);
	free(o);
	free(t);
}

/* With several inputs, a rule's figures say which input they are from. */
static void several_inputs(void **state)
{
	struct fixture *f = *state;
	char *t;

	f->inputs[1] = f->inputs[0];
	f->inputs[1].url = "net://127.0.0.1/host/h/other";
	f->inputs[1].nrules = 1;
	/* Blind: its worker cannot start; the reason is a label, escaped. */
	f->inputs[1].connected = false;
	f->inputs[1].blind = true;
	f->inputs[1].blind_reason = "worker cannot start: no user \"jank-worker\"";
	f->inputs[1].blind_since_s = 1700000000;
	f->m.ninputs = 2;
	t = render(f, JANK_METRICS_OPENMETRICS);
	check_families(t);
	assert_true(
		has_line(t, "jank_input_blind{input=\"net://127.0.0.1/host/h/s\",reason=\"\"} 0"));
	assert_true(has_line(t, "jank_input_blind{input=\"net://127.0.0.1/host/h/other\",reason="
				"\"worker cannot start: no user \\\"jank-worker\\\"\"} 1"));
	assert_true(has_line(t,
			     "jank_input_blind_since_seconds{input=\"net://127.0.0.1/host/h/"
			     "other\",reason=\"worker cannot start: no user \\\"jank-worker\\\"\"} "
			     "1700000000"));
	assert_true(has_line(t, "jank_input_blind_since_seconds{input=\"net://127.0.0.1/host/h/"
				"s\",reason=\"\"} 0"));
	assert_true(has_line(t, "jank_janks_total{action=\"frame\",input=\"net://127.0.0.1/host/h/"
				"s\"} 3"));
	assert_true(has_line(t, "jank_janks_total{action=\"frame\",input=\"net://127.0.0.1/host/h/"
				"other\"} 3"));
	/* One TYPE per family, however many inputs. */
	assert_null(strstr(strstr(t, "# TYPE jank_janks ") + 1, "# TYPE jank_janks "));
	free(t);
}

/* The last jank is an exemplar of the bucket that holds it, and of that one only. */
static void exemplar(void **state)
{
	char *t = render(*state, JANK_METRICS_OPENMETRICS), *s = strstr(t, " # {"), *line;

	assert_non_null(s);
	assert_null(strstr(s + 1, " # {"));
	for (line = s; line > t && line[-1] != '\n'; line--)
		;
	assert_true(!strncmp(
		line, "jank_action_duration_seconds_bucket{action=\"frame\",le=\"0.067108863\"}",
		strlen("jank_action_duration_seconds_bucket{action=\"frame\",le=\"0."
		       "067108863\"}")));
	assert_true(!strncmp(s, " # {key=\"name=frame,id=49\"} 0.045\n",
			     strlen(" # {key=\"name=frame,id=49\"} 0.045\n")));
	free(t);
}

/* A process's figures from /proc: this one, a child that burnt CPU, one that is gone. */
static void process_figures(void **state)
{
	int64_t before = jank_metrics_children_cpu_ns(), self;
	volatile unsigned long spin = 0;
	pid_t pid;
	int st;

	(void)state;
	assert_true(jank_metrics_pid_rss(getpid()) > 1 << 20);
	for (unsigned long i = 0; i < 200000000UL && jank_metrics_pid_cpu_ns(getpid()) < 20 * MS;
	     i++)
		spin += i;
	self = jank_metrics_pid_cpu_ns(getpid());
	assert_true(self >= 20 * MS);
	assert_true(self < 3600LL * 1000 * MS);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct timespec t0, t;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
		do {
			spin++;
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		} while ((t.tv_sec - t0.tv_sec) * 1000 * MS + (t.tv_nsec - t0.tv_nsec) < 50 * MS);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	/* Reaped: its CPU is the children's now, and its /proc entry is gone. */
	assert_true(jank_metrics_children_cpu_ns() - before >= 40 * MS);
	assert_int_equal(jank_metrics_pid_rss(pid), 0);
	assert_int_equal(jank_metrics_pid_cpu_ns(pid), 0);
	assert_int_equal(jank_metrics_pid_rss(0), 0);
	assert_int_equal(jank_metrics_pid_cpu_ns(-1), 0);
}

static void negotiate(void **state)
{
	(void)state;
	/* What Prometheus 2.42 sends */
	assert_int_equal(
		jank_metrics_negotiate(
			"application/openmetrics-text;version=1.0.0,application/"
			"openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,"
			"*/*;q=0.1"),
		JANK_METRICS_OPENMETRICS);
	assert_int_equal(jank_metrics_negotiate(NULL), JANK_METRICS_PROMETHEUS);
	assert_int_equal(jank_metrics_negotiate("*/*"), JANK_METRICS_PROMETHEUS);
	assert_int_equal(jank_metrics_negotiate("application/openmetrics-text; q=0"),
			 JANK_METRICS_PROMETHEUS);
	assert_int_equal(
		jank_metrics_negotiate("text/plain;q=0.9, application/openmetrics-text;q=0.5"),
		JANK_METRICS_PROMETHEUS);
	assert_int_equal(jank_metrics_negotiate(" Application/OpenMetrics-Text ; version=1.0.0"),
			 JANK_METRICS_OPENMETRICS);
	assert_string_equal(jank_metrics_content_type(JANK_METRICS_OPENMETRICS),
			    "application/openmetrics-text; version=1.0.0; charset=utf-8");
	assert_string_equal(jank_metrics_content_type(JANK_METRICS_PROMETHEUS),
			    "text/plain; version=0.0.4; charset=utf-8");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(openmetrics_names, setup, teardown),
		cmocka_unit_test_setup_teardown(prometheus_names, setup, teardown),
		cmocka_unit_test_setup_teardown(histogram_counts, setup, teardown),
		cmocka_unit_test(bucket_bounds),
		cmocka_unit_test_setup_teardown(escaping, setup, teardown),
		cmocka_unit_test_setup_teardown(untrusted_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(several_inputs, setup, teardown),
		cmocka_unit_test_setup_teardown(critical_path, setup, teardown),
		cmocka_unit_test_setup_teardown(exemplar, setup, teardown),
		cmocka_unit_test(process_figures),
		cmocka_unit_test(negotiate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
