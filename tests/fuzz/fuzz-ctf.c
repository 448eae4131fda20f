/* SPDX-License-Identifier: MIT */
/*
 * fuzz-ctf: the CTF path, from a jank-gen script to verdicts.
 *
 * The input is a jank-gen script (tests/gen/jank-gen.c), or up to 3 of them
 * one after the other (each `@trace` line starts the next one): a kernel and
 * a user-space trace read together, as an lttng output directory holds them.
 * The built jank-gen writes each as CTF (JANK_GEN names another one); the
 * traces then go through io/trace-reader into an engine with rules, as
 * `jankctl analyze --all` does, and the verdicts through io/format. Lines
 * `#@ ...` (comments to jank-gen) are a config that replaces the default one
 * below when it loads. Scripts asking for more than 64 CPUs are skipped:
 * jank-gen would write a stream per CPU.
 *
 * Checked: each verdict (fuzz-check.c); the reader's errors are one line;
 * its counters agree; jankctl's critical-path queries on the final graph.
 * jank-gen failing on a script is no finding (most mutations are bad
 * scripts), unless it crashes or a sanitizer stops it: that aborts here too,
 * with its report, since jank-gen is part of the project.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "config-file.h"
#include "format.h"
#include "trace-reader.h"
#include "verdict-json.h"
#include "fuzz-check.h"

#ifndef JANK_GEN_PATH
#define JANK_GEN_PATH "jank-gen"
#endif

#define MAX_TRACES    3
#define MAX_CPUS      64
#define GEN_TIMEOUT_S 20
#define GEN_SAN_EXIT  86 /* jank-gen stopped by a sanitizer */
#define ERR_LEN	      1024

static const char default_config[] = "[graph]\n"
				     "retention = 10ms\n"
				     "memory-limit = 64KiB\n"
				     "[action frame]\n"
				     "begin = jank:action_begin\n"
				     "end = jank:action_end\n"
				     "key = name, id\n"
				     "match = name == \"frame\"\n"
				     "threshold = 16ms\n"
				     "[action read]\n"
				     "begin = syscall_entry_read\n"
				     "end = syscall_exit_read\n"
				     "threshold = 1ms\n"
				     "[action id]\n"
				     "begin = jank:action_begin\n"
				     "end = jank:action_end\n"
				     "key = id\n"
				     "threshold = p90*1.1\n"
				     "warmup = 2\n";

static char work[256]; /* this process's directory for scripts and traces */
static const char *gen;
static char **gen_env;
static FILE *devnull;

struct text {
	char *p;
	size_t n, cap;
};

static void text_put(struct text *t, const char *s, size_t n)
{
	if (t->n + n + 1 > t->cap) {
		t->cap = (t->n + n + 1) * 2;
		t->p = realloc(t->p, t->cap);
		FUZZ_ASSERT(t->p);
	}
	memcpy(t->p + t->n, s, n);
	t->n += n;
	t->p[t->n] = '\0';
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The environment of jank-gen: ours, its sanitizers' failures made recognisable. */
static char **child_env(void)
{
	extern char **environ;
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	FUZZ_ASSERT(env);
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "ASAN_OPTIONS=", 13) &&
		    strncmp(environ[i], "UBSAN_OPTIONS=", 14))
			env[k++] = environ[i];
	/* Leaks of a short-lived tool are not worth stopping the fuzzer for. */
	env[k++] = "ASAN_OPTIONS=exitcode=86:detect_leaks=0:abort_on_error=0";
	env[k++] = "UBSAN_OPTIONS=exitcode=86:halt_on_error=1:print_stacktrace=1";
	return env;
}

static void cleanup(void)
{
	rm_tree(work);
}

static void init(void)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(work, sizeof(work), "%s/jank-fuzz-ctf.XXXXXX", tmp);
	FUZZ_ASSERT(mkdtemp(work));
	atexit(cleanup);
	gen = getenv("JANK_GEN");
	if (!gen || !*gen)
		gen = JANK_GEN_PATH;
	gen_env = child_env();
	devnull = fopen("/dev/null", "w");
	FUZZ_ASSERT(devnull);
}

/* Run jank-gen SCRIPT OUTDIR: true when it wrote the trace. */
static bool run_gen(const char *script, const char *outdir)
{
	char *argv[] = { (char *)"jank-gen", (char *)script, (char *)outdir, NULL };
	posix_spawn_file_actions_t fa;
	char errpath[300];
	struct pollfd pfd;
	int st, pidfd;
	pid_t pid;

	snprintf(errpath, sizeof(errpath), "%s/gen.err", work);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FUZZ_ASSERT(posix_spawn(&pid, gen, &fa, NULL, argv, gen_env) == 0);
	posix_spawn_file_actions_destroy(&fa);
	pidfd = pidfd_open(pid, 0);
	FUZZ_ASSERT(pidfd >= 0);
	pfd = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	if (poll(&pfd, 1, GEN_TIMEOUT_S * 1000) == 0) {
		fprintf(stderr, "fuzz-ctf: jank-gen ran for more than %d s: killed\n",
			GEN_TIMEOUT_S);
		kill(pid, SIGKILL);
	}
	close(pidfd);
	FUZZ_ASSERT(waitpid(pid, &st, 0) == pid);
	if ((WIFEXITED(st) && WEXITSTATUS(st) == GEN_SAN_EXIT) ||
	    (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)) {
		char cmd[400];

		fprintf(stderr, "fuzz-ctf: jank-gen failed on %s (status 0x%x); its stderr:\n",
			script, st);
		snprintf(cmd, sizeof(cmd), "head -c 4000 %s >&2", errpath);
		if (system(cmd) != 0)
			fprintf(stderr, "(unreadable)\n");
		FUZZ_ASSERT(!"jank-gen crashed");
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The number after @cpus (the line is not NUL-terminated). */
static unsigned long cpus(const char *s, size_t n)
{
	unsigned long v = 0;
	size_t i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9' && v <= MAX_CPUS; i++)
		v = v * 10 + (unsigned long)(s[i] - '0');
	return v;
}

/*
 * Split the input into scripts (at `@trace` lines) and the config (`#@`
 * lines). Returns the number of scripts, 0 when the input is skipped.
 */
static size_t split(const uint8_t *data, size_t size, struct text *scripts, struct text *conf)
{
	size_t n = 0;

	for (size_t i = 0; i < size;) {
		const char *line = (const char *)data + i;
		const char *nl = memchr(line, '\n', size - i);
		size_t len = nl ? (size_t)(nl - line) + 1 : size - i;

		i += len;
		if (len >= 2 && !memcmp(line, "#@", 2)) {
			text_put(conf, line + 2, len - 2);
			if (!nl)
				text_put(conf, "\n", 1);
			continue;
		}
		if (len >= 5 && !memcmp(line, "@cpus", 5) && cpus(line + 5, len - 5) > MAX_CPUS)
			return 0;
		if ((len >= 6 && !memcmp(line, "@trace", 6) && n < MAX_TRACES &&
		     (n == 0 || strstr(scripts[n - 1].p, "@trace"))) ||
		    n == 0)
			n++;
		text_put(&scripts[n - 1], line, len);
	}
	return n;
}

static void on_verdict(const struct jank_verdict *r, void *data)
{
	fuzz_check_verdict(data, r);
	jank_format_verdict_text(devnull, r);
	jank_format_json_print(devnull, jank_verdict_to_json(r, JANK_VERDICT_JSON_FULL));
}

/* Load the input's config, or the default one when it has none or it does not load. */
static void load_config(struct jank_config *c, const struct text *conf)
{
	char err[ERR_LEN];

	if (conf->n && jank_config_load_string(c, "fuzz.conf", conf->p, err, sizeof(err)) == 0) {
		if (jank_config_check(c, err, sizeof(err)) == 0)
			return;
		jank_config_fini(c);
	}
	FUZZ_ASSERT(jank_config_load_string(c, "default.conf", default_config, err, sizeof(err)) ==
		    0);
}

/* One line, that says something. */
static void check_message(const char *s)
{
	FUZZ_ASSERT(s && s[0] && strlen(s) < ERR_LEN && !strchr(s, '\n'));
}

/* `jankctl analyze --all` on the traces under dir. */
static void analyze(const char *dir, const struct jank_config *conf)
{
	const char *paths[] = { dir };
	struct jank_reader_stats rs;
	struct jank_engine_stats es;
	struct jank_engine_config ec;
	enum jank_reader_status st;
	struct jank_reader *in;
	struct jank_engine *e;
	char err[ERR_LEN] = "";

	jank_engine_config_defaults(&ec);
	jank_config_apply_engine(conf, &ec);
	ec.overdue_grace_ns = 0;
	ec.gc = true;
	ec.report_all = true;
	e = jank_engine_new(&ec);
	FUZZ_ASSERT(e);
	FUZZ_ASSERT(jank_config_add_rules(conf, e, err, sizeof(err)) == 0);
	jank_engine_set_verdict_cb(e, on_verdict, e);
	in = jank_reader_new_ctf(paths, 1, e, err, sizeof(err));
	if (!in) {
		check_message(err);
		jank_engine_free(e);
		return;
	}
	st = jank_reader_run_all(in);
	FUZZ_ASSERT(st == JANK_READER_STATUS_END || st == JANK_READER_STATUS_ERROR);
	if (st == JANK_READER_STATUS_ERROR)
		check_message(jank_reader_error(in));
	jank_reader_get_stats(in, &rs);
	jank_engine_get_stats(e, &es);
	FUZZ_ASSERT(rs.events_used <= rs.events);
	FUZZ_ASSERT(es.events <= rs.events_used);
	FUZZ_ASSERT(es.janks <= es.actions_completed);
	if (es.events) {
		const struct jank_graph *g = jank_engine_graph(e);

		fuzz_check_queries(g, 4, rs.last_ts == INT64_MIN ? 0 : rs.last_ts / 2, rs.last_ts);
		jank_format_graph_json(devnull, g, -1);
		jank_format_graph_text(devnull, g, -1);
	}
	jank_format_summary_text(devnull, e);
	jank_reader_free(in);
	jank_engine_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct text scripts[MAX_TRACES] = { { 0 } }, conf = { 0 };
	char traces[300], script[300], out[300];
	struct jank_config c;
	size_t n, ok = 0;

	if (!work[0])
		init();
	n = split(data, size, scripts, &conf);
	snprintf(traces, sizeof(traces), "%s/traces", work);
	rm_tree(traces);
	FUZZ_ASSERT(mkdir(traces, 0700) == 0);
	for (size_t i = 0; i < n; i++) {
		FILE *f;

		snprintf(script, sizeof(script), "%s/%zu.script", work, i);
		snprintf(out, sizeof(out), "%s/%zu", traces, i);
		f = fopen(script, "w");
		FUZZ_ASSERT(f);
		FUZZ_ASSERT(fwrite(scripts[i].p, 1, scripts[i].n, f) == scripts[i].n);
		FUZZ_ASSERT(fclose(f) == 0);
		ok += run_gen(script, out);
	}
	if (ok) {
		load_config(&c, &conf);
		analyze(traces, &c);
		jank_config_fini(&c);
	}
	for (size_t i = 0; i < MAX_TRACES; i++)
		free(scripts[i].p);
	free(conf.p);
	return 0;
}
