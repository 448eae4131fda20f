/* SPDX-License-Identifier: MIT */
/*
 * jank's configuration loaded (config-file.h): the file and its drop-ins
 * read through the schema of config-file.c, the checks across keys and
 * files, and the rules given to the engine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config-file.h"
#include "debuginfod.h"

/* ---- Loading ---- */

/* The checks across keys and files, once every file is read without an error. */
static void check_across(const struct jank_config *c, struct jank_config_schema_parser *p)
{
	const struct jank_config_schema *s = &jank_config_schema;
	struct jank_config_schema_where url =
		jank_config_schema_last(p, jank_config_schema_key_find(s, "live", "url"));
	struct jank_config_schema_where create =
		jank_config_schema_last(p, jank_config_schema_key_find(s, "live", "create"));
	struct jank_config_schema_where disc =
		jank_config_schema_last(p, jank_config_schema_key_find(s, "live", "discover"));
	struct jank_config_schema_where hosts =
		jank_config_schema_first(p, jank_config_schema_key_find(s, "live", "hosts"));
	struct jank_config_schema_where sess =
		jank_config_schema_first(p, jank_config_schema_key_find(s, "live", "sessions"));
	struct jank_config_schema_where wuser =
		jank_config_schema_last(p, jank_config_schema_key_find(s, "daemon", "worker-user"));
	const struct jank_config_schema_section *action =
		jank_config_schema_section_find(s, "action");
	const struct jank_config_schema_section *flow = jank_config_schema_section_find(s, "flow");
	const struct jank_config_schema_where *at = p->instance[action - s->sections];
	const struct jank_config_schema_where *fat = p->instance[flow - s->sections];
	struct jank_ini *ini = &p->ini;
	const char *ev;
	size_t bad;
	int r;

	if (c->live.nurls && create.file && c->live.create) {
		const struct jank_config_schema_where *last =
			create.order > url.order ? &create : &url;

		jank_ini_fail_in(ini, last->file, last->line,
				 "[live]: 'url' and 'create = yes' exclude each other");
	}
	if (disc.file && (c->live.nurls || c->live.create))
		jank_ini_fail_in(ini, disc.file, disc.line,
				 "[live]: 'discover' excludes 'url' and 'create = yes' (one jankd "
				 "watches one relayd's sessions)");
	if ((hosts.file || sess.file) && !disc.file) {
		/* Where hosts or sessions was first set. */
		const struct jank_config_schema_where *first =
			!sess.file || (hosts.file && hosts.order < sess.order) ? &hosts : &sess;

		jank_ini_fail_in(ini, first->file, first->line,
				 "[live]: 'hosts' and 'sessions' need 'discover'");
	}
	/* The uid a name stands for is known when a worker starts (jankd checks it again). */
	if (wuser.file && !c->daemon.workers_as_root &&
	    (!strcmp(c->daemon.worker_user, "root") || !strcmp(c->daemon.worker_user, "0")))
		jank_ini_fail_in(
			ini, wuser.file, wuser.line,
			"[daemon]: 'worker-user = %s' needs 'workers-as-root = yes' (workers "
			"parse what remote hosts send: as root, a bug in a parser is root on "
			"this host)",
			c->daemon.worker_user);
	r = jank_rules_flows_check(c->rules, c->nrules, c->flows, c->nflows, &bad, &ev);
	if (r == -ENOMEM)
		jank_ini_fail_in(ini, c->path, 0, "out of memory");
	else if (r < 0 && bad < c->nrules)
		jank_ini_fail_in(ini, at[bad].file, at[bad].line,
				 "[action %s]: event '%s' cannot serve one more rule: at most %d "
				 "actions and flows begin, end, hand over or pick up on one event, "
				 "reading at most %d key and match fields",
				 c->rules[bad].name, ev, JANK_MAX_RULES_PER_EVENT,
				 JANK_MAX_FIELDS_PER_EVENT);
	else if (r < 0)
		jank_ini_fail_in(ini, fat[bad - c->nrules].file, fat[bad - c->nrules].line,
				 "[flow %s]: event '%s' cannot serve one more flow: at most %d "
				 "actions and flows begin, end, hand over or pick up on one event, "
				 "reading at most %d key and match fields",
				 c->flows[bad - c->nrules].name, ev, JANK_MAX_RULES_PER_EVENT,
				 JANK_MAX_FIELDS_PER_EVENT);
}

/* The message of the first error, if any. */
static int finish(struct jank_config *c, struct jank_config_schema_parser *p, char *err,
		  size_t errlen)
{
	int r;

	if (!p->ini.failed)
		check_across(c, p);
	r = jank_ini_error(&p->ini, err, errlen);
	jank_config_schema_parser_fini(p);
	if (r < 0)
		jank_config_fini(c); /* nothing left to free: a caller need not */
	return r;
}

int jank_config_load_sources(struct jank_config *c, const struct jank_config_sources *s, char *err,
			     size_t errlen)
{
	struct jank_config_schema_parser p;

	if (s->n == 0) {
		memset(c, 0, sizeof(*c));
		snprintf(err, errlen, "no configuration");
		return -EINVAL;
	}
	jank_config_init(c);
	c->path = strdup(s->v[0].name);
	c->dropins = calloc(s->n, sizeof(*c->dropins));
	for (size_t i = 1; c->dropins && i < s->n; i++)
		if ((c->dropins[i - 1] = strdup(s->v[i].name)))
			c->ndropins = i;
	if (!c->path || !c->dropins || c->ndropins != s->n - 1) {
		jank_config_fini(c);
		snprintf(err, errlen, "%s: out of memory", s->v[0].name);
		return -ENOMEM;
	}
	jank_config_schema_parser_init(&p, &jank_config_schema, c);
	/* Names that live as long as the config: the messages keep them. */
	for (size_t i = 0; !p.ini.failed && i < s->n; i++)
		jank_config_schema_parse(&p, i ? c->dropins[i - 1] : c->path, s->v[i].text,
					 s->v[i].len);
	if (p.ini.failed && !p.ini.fail_name) /* the parser's own allocation */
		p.ini.fail_name = c->path;
	return finish(c, &p, err, errlen);
}

int jank_config_load(struct jank_config *c, const char *path, char *err, size_t errlen)
{
	struct jank_config_sources s;
	int r = jank_config_read(path, &s, err, errlen);

	if (r < 0) {
		memset(c, 0, sizeof(*c));
		return r;
	}
	r = jank_config_load_sources(c, &s, err, errlen);
	jank_config_sources_fini(&s);
	return r;
}

int jank_config_load_string(struct jank_config *c, const char *name, const char *text, char *err,
			    size_t errlen)
{
	struct jank_config_source src = { .name = (char *)name, .text = (char *)text };
	struct jank_config_sources s = { .v = &src, .n = 1 };

	src.len = strlen(text);
	return jank_config_load_sources(c, &s, err, errlen);
}

/* ---- The rest ---- */

void jank_config_init(struct jank_config *c)
{
	memset(c, 0, sizeof(*c));
	jank_config_schema_init(&jank_config_schema, c);
}

void jank_config_fini(struct jank_config *c)
{
	jank_config_schema_fini(&jank_config_schema, c);
	free(c->path);
	jank_config_schema_list_free(&c->dropins, &c->ndropins);
	memset(c, 0, sizeof(*c));
}

void jank_config_apply_engine(const struct jank_config *c, struct jank_engine_config *ec)
{
	ec->retention_ns = c->graph.retention_ns;
	ec->memory_limit = c->graph.memory_limit;
	ec->action_timeout_ns = c->graph.action_timeout_ns;
	ec->overdue_grace_ns = c->graph.overdue_grace_ns;
	ec->composition_top = (unsigned)c->metrics.composition_top;
}

void jank_config_debuginfod(const struct jank_config *c, struct jank_debuginfod_config *out)
{
	*out = (struct jank_debuginfod_config){ .urls = c->symbols.debuginfod_urls,
						.cache = c->symbols.debuginfod_cache,
						.cache_size = c->symbols.debuginfod_cache_size,
						.timeout_ns = c->symbols.debuginfod_timeout_ns };
}

int jank_config_add_rules(const struct jank_config *c, struct jank_engine *e, char *err,
			  size_t errlen)
{
	for (size_t i = 0; i < c->nrules; i++) {
		int r = jank_engine_add_rule(e, &c->rules[i]);

		if (r < 0) {
			snprintf(err, errlen, "[action %s]: %s", c->rules[i].name, strerror(-r));
			return r;
		}
	}
	for (size_t i = 0; i < c->nflows; i++) {
		int r = jank_engine_add_flow(e, &c->flows[i]);

		if (r < 0) {
			snprintf(err, errlen, "[flow %s]: %s", c->flows[i].name, strerror(-r));
			return r;
		}
	}
	return 0;
}

int jank_config_replace_rules(const struct jank_config *c, struct jank_engine *e)
{
	int r = jank_engine_replace_rules(e, c->rules, c->nrules);

	if (r == -E2BIG) {
		/* The new rules fit the new flows (the config's check), maybe not the old
		 * ones: the flows first, and if the old rules do not fit them either, no
		 * flows while the rules change. */
		r = jank_engine_replace_flows(e, c->flows, c->nflows);
		if (r == -E2BIG)
			r = jank_engine_replace_flows(e, NULL, 0);
		if (r == 0)
			r = jank_engine_replace_rules(e, c->rules, c->nrules);
	}
	return r < 0 ? r : jank_engine_replace_flows(e, c->flows, c->nflows);
}

int jank_config_check(const struct jank_config *c, char *err, size_t errlen)
{
	const char *path = c->path ? c->path : "config";

	if (c->nrules == 0) {
		snprintf(err, errlen, "%s: no [action ...] section", path);
		return -EINVAL;
	}
	if (c->capture.mode == JANK_CAPTURE_ROTATION && !c->capture.rotation_period_ns &&
	    !c->capture.rotation_size) {
		snprintf(err, errlen,
			 "%s: [capture] mode = rotation needs a rotation-period or a rotation-size",
			 path);
		return -EINVAL;
	}
	return 0;
}
