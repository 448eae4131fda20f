/* SPDX-License-Identifier: MIT */
/*
 * io/config-schema.c with jank's table (io/config-file.c), walked row by
 * row, so that a new row is covered without a new test:
 *   - the table holds together (sections exist, keys are unique, defaults
 *     parse, the limits of the engine are not exceeded);
 *   - every key is documented in its section of jankd.conf(5), and every key
 *     documented there is in the table;
 *   - the reload comparison sees a change of every key (of each field a key
 *     fills), says it about that key only, and jankd's way of taking the keys
 *     that apply at once leaves only the ones that need a restart different.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "config-file.h"

static const struct jank_config_schema *S = &jank_config_schema;

/* One action and one flow, so that [action NAME] and [flow NAME] have an instance to change. */
static const char base_conf[] = "[action a]\nbegin = x:a\nend = x:b\nthreshold = 1ms\n"
				"[flow a]\nfrom = y:a\nto = y:b\nkey = k\n";

static void load_base(struct jank_config *c)
{
	char err[512] = "";

	if (jank_config_load_string(c, "base.conf", base_conf, err, sizeof(err)) != 0)
		fail_msg("the base config does not load: %s", err);
}

static const struct jank_config_schema_section *section_of(const struct jank_config_schema_key *k)
{
	return jank_config_schema_section_find(S, k->section);
}

/* The struct a key of c lives in: its section's, or the one instance's. */
static void *struct_of(const struct jank_config_schema_key *k, struct jank_config *c)
{
	return jank_config_schema_section_struct(section_of(k), c, 0);
}

/* ---- The table ---- */

static void table_holds_together(void **state)
{
	struct jank_config c;
	char err[512] = "";
	size_t per_section[JANK_CONF_MAX_SECTIONS] = { 0 };

	(void)state;
	assert_true(S->nsections <= JANK_CONF_MAX_SECTIONS);
	assert_true(S->nkeys <= JANK_CONF_MAX_ROWS);
	for (size_t i = 0; i < S->nkeys; i++) {
		const struct jank_config_schema_key *k = &S->keys[i];
		const struct jank_config_schema_section *sec = section_of(k);

		if (!sec)
			fail_msg("[%s] %s: no such section in the table", k->section, k->name);
		per_section[sec - S->sections]++;
		assert_non_null(k->type);
		assert_non_null(k->type->parse);
		assert_non_null(k->type->equal);
		assert_true(k->size > 0);
		if (k->type->second != (k->size2 > 0))
			fail_msg("[%s] %s: type '%s' %s", k->section, k->name, k->type->name,
				 k->type->second ? "fills a second field: the row must give it"
						 : "fills no second field: the row gives one");
		/* A named section is taken whole at a reload: its keys must all apply at once. */
		if (sec->named && k->reload != JANK_CONF_LIVE)
			fail_msg("[%s] %s: a key of a named section needs a restart", k->section,
				 k->name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(S->keys[j].section, k->section) &&
			    !strcmp(S->keys[j].name, k->name))
				fail_msg("[%s] %s: twice in the table", k->section, k->name);
	}
	for (size_t i = 0; i < S->nsections; i++)
		assert_true(per_section[i] > 0 && per_section[i] <= JANK_CONF_MAX_KEYS);
	memset(&c, 0, sizeof(c));
	if (jank_config_schema_check_defaults(S, &c, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	jank_config_fini(&c);
}

/* The defaults a config gets are the rows' (and, for [graph], the engine's). */
static void defaults(void **state)
{
	struct jank_engine_config ec;
	struct jank_config c;

	(void)state;
	jank_engine_config_defaults(&ec);
	jank_config_init(&c);
	assert_int_equal(c.graph.retention_ns, ec.retention_ns);
	assert_int_equal(c.graph.memory_limit, ec.memory_limit);
	assert_int_equal(c.graph.action_timeout_ns, ec.action_timeout_ns);
	assert_int_equal(c.graph.overdue_grace_ns, 1000000000LL);
	assert_int_equal(c.live.timer_ns, 100000000LL);
	assert_string_equal(c.live.session, "jankd-live");
	assert_string_equal(c.live.relayd, "net://127.0.0.1");
	assert_int_equal(c.live.relayd_live_port, 5344);
	assert_int_equal(c.live.tracefile_size, 64ull << 20);
	assert_int_equal(c.alerts.rate_limit_count, 10);
	assert_int_equal(c.alerts.rate_limit_period_ns, 10000000000LL);
	assert_int_equal(c.capture.quota, 2ull << 30);
	assert_true(c.capture.min_free_percent == 5.0);
	assert_string_equal(c.daemon.control_socket, "/run/jankd/control");
	assert_null(c.capture.dir);
	jank_config_fini(&c);
}

/* ---- jankd.conf(5) ---- */

/* The man page's text, split in lines. */
static char **man_lines(size_t *n)
{
	const char *top = getenv("top_srcdir");
	char path[4096], line[4096], **v = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/man/jankd.conf.5", top ? top : "..");
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		v = realloc(v, (*n + 1) * sizeof(*v));
		assert_non_null(v);
		v[(*n)++] = strdup(line);
	}
	fclose(f);
	return v;
}

/* ".SH [live]" or ".SH [action NAME]": the section's heading. */
static void heading(const struct jank_config_schema_section *sec, char *buf, size_t len)
{
	snprintf(buf, len, ".SH [%s%s]", sec->name, sec->named ? " NAME" : "");
}

/* ".BI relayd\-live\-port " = PORT"": the key "relayd-live-port", or 0. */
static int documented_key(const char *line, char *key, size_t len)
{
	size_t n = 0;

	if (strncmp(line, ".BI ", 4) != 0)
		return 0;
	for (line += 4; *line && *line != ' ' && n + 1 < len; line++) {
		if (line[0] == '\\' && line[1] == '-')
			line++;
		key[n++] = *line;
	}
	key[n] = '\0';
	return !strncmp(line, " \" = ", 5);
}

static void man_page_documents_every_key(void **state)
{
	size_t n, missing = 0, unknown = 0;
	char **lines = man_lines(&n);

	(void)state;
	for (size_t s = 0; s < S->nsections; s++) {
		const struct jank_config_schema_section *sec = &S->sections[s];
		bool found[JANK_CONF_MAX_ROWS] = { false };
		bool in = false, seen = false;
		char h[128], key[128];

		heading(sec, h, sizeof(h));
		for (size_t i = 0; i < n; i++) {
			const struct jank_config_schema_key *k;

			if (!strncmp(lines[i], ".SH ", 4)) {
				in = !strcmp(lines[i], h);
				seen |= in;
				continue;
			}
			if (!in || !documented_key(lines[i], key, sizeof(key)))
				continue;
			k = jank_config_schema_key_find(S, sec->name, key);
			if (!k) {
				print_message("jankd.conf.5: [%s] %s is not in the schema\n",
					      sec->name, key);
				unknown++;
				continue;
			}
			found[k - S->keys] = true;
		}
		if (!seen) {
			print_message("jankd.conf.5: no section '%s'\n", h);
			missing++;
		}
		for (size_t i = 0; i < S->nkeys; i++) {
			if (strcmp(S->keys[i].section, sec->name) != 0 || found[i])
				continue;
			print_message("jankd.conf.5: [%s] %s is not documented (as .BI %s \" = "
				      "...)\n",
				      sec->name, S->keys[i].name, S->keys[i].name);
			missing++;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	assert_int_equal(missing, 0);
	assert_int_equal(unknown, 0);
}

/* ---- The reload comparison ---- */

/*
 * Values of each type, pairwise different, each pair differing in some
 * field the type fills (a rate's count, then its period). A type without
 * values here fails the test: add some.
 */
struct samples {
	const char *type;
	const char *v[6];
};

static const struct samples samples[] = {
	{ "duration", { "3s", "7s" } },
	{ "size", { "3MiB", "7MiB" } },
	{ "bool", { "yes", "no" } },
	{ "uint", { "3", "7" } },
	{ "port", { "3", "7" } },
	{ "url list",
	  { "net://r/host/a/s", "net://r/host/b/s", "net://r/host/a/s,net://r/host/b/s" } },
	{ "session name", { "a", "b" } },
	{ "relayd url", { "net://a", "net://b" } },
	{ "discover url", { "net://a", "net://b" } },
	{ "pattern list", { "a*", "b*", "a*,b*" } },
	{ "URL list", { "http://a", "https://b", "http://a,https://b" } },
	{ "worker timeout", { "3s", "7s" } },
	{ "crossing timeout", { "100ms", "5s", "10min" } },
	{ "rate", { "3/4s", "5/4s", "3/6s" } },
	{ "path", { "/a", "/b" } },
	{ "socket path", { "/a", "/b" } },
	{ "user name", { "jank-worker", "nobody" } },
	{ "event", { "x:c", "x:d" } },
	{ "host list", { "alpha", "alpha, beta" } },
	{ "event list", { "x:c", "x:d", "x:c,x:d" } },
	{ "size or percentage", { "1GiB", "2GiB", "3%", "4%" } },
	{ "address:port", { "127.0.0.1:1", "127.0.0.1:2", "127.0.0.2:1" } },
	{ "field list", { "tid", "vtid", "tid,vtid" } },
	{ "match", { "name == \"a\"", "name == \"b\"", "id == 3", "other == \"a\"" } },
	{ "threshold", { "3ms", "7ms", "p99", "p99*2", "p90" } },
};

/* The values to try for key k (its enum names, for an enum). */
static size_t values_of(const struct jank_config_schema_key *k, const char **v, size_t max)
{
	size_t n = 0;

	if (k->names) {
		for (; k->names[n] && n < max; n++)
			v[n] = k->names[n];
		return n;
	}
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		if (strcmp(samples[i].type, k->type->name) != 0)
			continue;
		for (; n < max && n < 6 && samples[i].v[n]; n++)
			v[n] = samples[i].v[n];
	}
	return n;
}

struct seen {
	size_t n;
	const struct jank_config_schema_key *key;
	const char *instance;
};

static void on_diff(const struct jank_config_schema_section *sec,
		    const struct jank_config_schema_key *k, const char *instance, void *data)
{
	struct seen *s = data;

	(void)sec;
	s->n++;
	s->key = k;
	s->instance = instance;
}

static void set(const struct jank_config_schema_key *k, struct jank_config *c, const char *v)
{
	char err[512] = "";

	if (jank_config_schema_set(k, struct_of(k, c), v, err, sizeof(err)) != 0)
		fail_msg("[%s] %s = %s: %s", k->section, k->name, v, err);
}

static void same_config_no_difference(void **state)
{
	struct jank_config a, b;
	struct seen s = { 0 };

	(void)state;
	load_base(&a);
	load_base(&b);
	assert_int_equal(jank_config_schema_diff(S, &a, &b, on_diff, &s), 0);
	assert_int_equal(s.n, 0);
	jank_config_fini(&a);
	jank_config_fini(&b);
}

static void reload_sees_every_key(void **state)
{
	size_t checked = 0;

	(void)state;
	for (size_t r = 0; r < S->nkeys; r++) {
		const struct jank_config_schema_key *k = &S->keys[r];
		const char *v[8];
		size_t n = values_of(k, v, 8);

		if (n < 2)
			fail_msg("[%s] %s: no sample values for type '%s' in this test", k->section,
				 k->name, k->type->name);
		for (size_t i = 0; i < n; i++) {
			for (size_t j = i + 1; j < n; j++) {
				struct jank_config a, b;
				struct seen s = { 0 };

				load_base(&a);
				load_base(&b);
				set(k, &a, v[i]);
				set(k, &b, v[j]);
				jank_config_schema_diff(S, &a, &b, on_diff, &s);
				if (s.n != 1 || s.key != k)
					fail_msg("[%s] %s = %s, then %s: %zu differences seen, the "
						 "last [%s] %s",
						 k->section, k->name, v[i], v[j], s.n,
						 s.key ? s.key->section : "-",
						 s.key ? s.key->name : "-");
				if (section_of(k)->named)
					assert_string_equal(s.instance, "a");
				else
					assert_null(s.instance);
				/* And the same value is no change. */
				set(k, &b, v[i]);
				s.n = 0;
				jank_config_schema_diff(S, &a, &b, on_diff, &s);
				assert_int_equal(s.n, 0);
				jank_config_fini(&a);
				jank_config_fini(&b);
				checked++;
			}
		}
	}
	print_message("# %zu keys, %zu changes seen\n", S->nkeys, checked);
}

/* What jankd does: take the keys that apply at once; the ones that need a restart stay. */
static void take_leaves_restart_keys(void **state)
{
	(void)state;
	for (size_t r = 0; r < S->nkeys; r++) {
		const struct jank_config_schema_key *k = &S->keys[r];
		struct jank_config old, new, want;
		struct seen s = { 0 };
		const char *v[8];

		if (section_of(k)->named)
			continue; /* taken whole */
		assert_true(values_of(k, v, 8) >= 2);
		load_base(&old);
		load_base(&new);
		load_base(&want); /* what new is: the take gives it the old values */
		set(k, &old, v[0]);
		set(k, &new, v[1]);
		set(k, &want, v[1]);
		for (size_t i = 0; i < S->nkeys; i++)
			if (!section_of(&S->keys[i])->named && S->keys[i].reload == JANK_CONF_LIVE)
				jank_config_schema_take(S, &S->keys[i], &old, &new);
		jank_config_schema_diff(S, &old, &want, on_diff, &s);
		if (s.n != (k->reload == JANK_CONF_LIVE ? 0u : 1u) || (s.n && s.key != k))
			fail_msg("[%s] %s: %zu differences left after the take, the last [%s] %s",
				 k->section, k->name, s.n, s.key ? s.key->section : "-",
				 s.key ? s.key->name : "-");
		jank_config_fini(&old); /* each frees what it holds now: no double free */
		jank_config_fini(&new);
		jank_config_fini(&want);
	}
}

/* A rule added or removed is a difference without a key. */
static void instances_added_and_removed(void **state)
{
	struct jank_config a, b;
	struct seen s = { 0 };
	char err[512];

	(void)state;
	load_base(&a);
	assert_int_equal(jank_config_load_string(&b, "b.conf",
						 "[action b]\nbegin = x:a\nend = x:b\n"
						 "threshold = 1ms\n"
						 "[flow a]\nfrom = y:a\nto = y:b\nkey = k\n",
						 err, sizeof(err)),
			 0);
	assert_int_equal(jank_config_schema_diff(S, &a, &b, on_diff, &s), 2);
	assert_null(s.key);
	assert_string_equal(s.instance, "b"); /* the added one comes last */
	jank_config_fini(&b);
	/* And a flow: the same action, flow a gone and flow c new. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(jank_config_load_string(&b, "b.conf",
						 "[action a]\nbegin = x:a\nend = x:b\n"
						 "threshold = 1ms\n"
						 "[flow c]\nfrom = y:a\nto = y:b\nkey = k\n",
						 err, sizeof(err)),
			 0);
	assert_int_equal(jank_config_schema_diff(S, &a, &b, on_diff, &s), 2);
	assert_null(s.key);
	assert_string_equal(s.instance, "c");
	jank_config_fini(&a);
	jank_config_fini(&b);
}

/* The messages the table makes: every section, every name of an enum. */
static void messages_from_the_table(void **state)
{
	struct jank_config c;
	char err[512];

	(void)state;
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[nope]\n", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err, "t.conf:1: unknown section [nope] (expected [live], [graph], [symbols], "
		     "[alerts], [capture], [daemon], [metrics], [web], [action NAME] or [flow "
		     "NAME])");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[alerts]\ntarget = syslog\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: bad value 'syslog' for target (expected journal, "
				 "stderr or json)");
	assert_int_equal(
		jank_config_schema_set(jank_config_schema_key_find(S, "graph", "retention"),
				       &c.graph, "0", err, sizeof(err)),
		-EINVAL);
	assert_string_equal(err, "bad duration '0' for retention");
}

/* A drop-in's threshold leaves the warmup of an earlier file, and either order works. */
static void warmup_and_threshold(void **state)
{
	struct jank_config c;
	char err[512];

	(void)state;
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[action a]\nbegin = x:a\nend = x:b\nwarmup = 7\n"
						 "threshold = p99\n",
						 err, sizeof(err)),
			 0);
	assert_int_equal(c.rules[0].threshold.warmup, 7);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", base_conf, err, sizeof(err)), 0);
	assert_int_equal(c.rules[0].threshold.warmup, 100);
	jank_config_fini(&c);
	{
		struct jank_config_source v[] = {
			{ "t.conf",
			  "[action a]\nbegin = x:a\nend = x:b\nthreshold = p99\nwarmup = 7\n", 0 },
			{ "conf.d/1.conf", "[action a]\nthreshold = p90\n", 0 },
		};
		struct jank_config_sources src = { v, 2 };

		v[0].len = strlen(v[0].text);
		v[1].len = strlen(v[1].text);
		assert_int_equal(jank_config_load_sources(&c, &src, err, sizeof(err)), 0);
		assert_true(c.rules[0].threshold.percentile == 90);
		assert_int_equal(c.rules[0].threshold.warmup, 7);
		jank_config_fini(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_holds_together),
		cmocka_unit_test(defaults),
		cmocka_unit_test(man_page_documents_every_key),
		cmocka_unit_test(same_config_no_difference),
		cmocka_unit_test(reload_sees_every_key),
		cmocka_unit_test(take_leaves_restart_keys),
		cmocka_unit_test(instances_added_and_removed),
		cmocka_unit_test(messages_from_the_table),
		cmocka_unit_test(warmup_and_threshold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
