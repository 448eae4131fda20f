/* SPDX-License-Identifier: MIT */
/*
 * jankd's reload (SIGHUP): the new file and drop-ins read and checked, what
 * changed applied at once, and what needs a restart said and ignored.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include "jankd-int.h"

/* ---- Reload ---- */

/* What a reload changes, key by key (the schema of io/config-file.c). */
struct reload_diff {
	bool key[JANK_CONF_MAX_ROWS];	      /* per key of the schema: its value changed */
	bool restart[JANK_CONF_MAX_SECTIONS]; /* per section: a key that needs a restart did */
	bool changed[JANK_CONF_MAX_SECTIONS]; /* per section: a key applied at once did */
};

static void on_diff(const struct jank_config_schema_section *sec,
		    const struct jank_config_schema_key *k, const char *instance, void *data)
{
	struct reload_diff *rd = data;
	size_t i = (size_t)(sec - jank_config_schema.sections);

	(void)instance;
	if (k)
		rd->key[k - jank_config_schema.keys] = true;
	if (k && k->reload == JANK_CONF_RESTART)
		rd->restart[i] = true;
	else
		rd->changed[i] = true; /* or an instance added or removed */
}

static bool section_changed(const struct reload_diff *rd, const char *name)
{
	const struct jank_config_schema_section *sec =
		jank_config_schema_section_find(&jank_config_schema, name);

	return rd->changed[sec - jank_config_schema.sections];
}

static bool key_changed(const struct reload_diff *rd, const char *section, const char *name)
{
	const struct jank_config_schema_key *k =
		jank_config_schema_key_find(&jank_config_schema, section, name);

	return rd->key[k - jank_config_schema.keys];
}

/* Whether every key of the section needs a restart: then the message names the section only. */
static bool all_restart(const struct jank_config_schema_section *sec)
{
	const struct jank_config_schema *s = &jank_config_schema;

	for (size_t i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].section, sec->name) &&
		    s->keys[i].reload != JANK_CONF_RESTART)
			return false;
	return true;
}

/* Say which changes of the new config wait for a restart, or lose to the command line. */
static void reload_ignored(const struct jankd *d, const struct jank_config *nc,
			   const struct reload_diff *rd)
{
	const struct jank_config_schema *s = &jank_config_schema;

	for (size_t i = 0; i < s->nsections; i++) {
		const struct jank_config_schema_section *sec = &s->sections[i];

		if (!rd->restart[i])
			continue;
		if (all_restart(sec)) {
			jank_log(LOG_WARNING, "reload: changes to [%s] need a restart; ignored",
				 sec->name);
			continue;
		}
		for (size_t k = 0; k < s->nkeys; k++)
			if (rd->key[k] && s->keys[k].reload == JANK_CONF_RESTART &&
			    !strcmp(s->keys[k].section, sec->name))
				jank_log(LOG_WARNING,
					 "reload: changes to [%s] %s need a restart; ignored",
					 sec->name, s->keys[k].name);
	}
	if (d->target_from_cmdline && nc->alerts.target != d->target)
		jank_log(LOG_NOTICE, "reload: [alerts] target ignored: --log-target=%s wins",
			 jank_alert_target_name(d->target));
}

/* Say the [graph] limits of the new config (the workers get them with the rules). */
static void reload_graph(const struct jank_config *nc)
{
	struct jank_engine_config ec;
	char rt[32], to[32], gr[32];

	jank_engine_config_defaults(&ec);
	jank_config_apply_engine(nc, &ec);
	jank_log(LOG_INFO,
		 "reload: [graph] retention %s, memory-limit %" PRIu64
		 " bytes, action-timeout %s, overdue-grace %s",
		 jank_units_duration(ec.retention_ns, rt, sizeof(rt)), ec.memory_limit,
		 jank_units_duration(ec.action_timeout_ns, to, sizeof(to)),
		 jank_units_duration(ec.overdue_grace_ns, gr, sizeof(gr)));
}

/*
 * Take every key of `nc` that applies at once, and every named section
 * (the rules) whole; what was there before goes into `nc`, which the
 * caller frees. Then apply them: the alerter, the workers (the new text:
 * its rules and [graph] limits), the capturer, the status timer.
 */
static void reload_take(struct jankd *d, struct jank_config *nc, struct jank_config_sources *src,
			const struct reload_diff *rd)
{
	const struct jank_config_schema *s = &jank_config_schema;
	struct jank_config_sources old = d->config_sources;
	struct jank_alert_config ac;

	d->config_sources = *src;
	*src = old;
	for (size_t i = 0; i < s->nkeys; i++)
		if (!jank_config_schema_section_find(s, s->keys[i].section)->named &&
		    s->keys[i].reload == JANK_CONF_LIVE)
			jank_config_schema_take(s, &s->keys[i], &d->config, nc);
	for (size_t i = 0; i < s->nsections; i++)
		if (s->sections[i].named)
			jank_config_schema_take_section(&s->sections[i], &d->config, nc);
	if (!d->target_from_cmdline) {
		d->target = d->config.alerts.target;
		jank_log_set_journal(d->target == JANK_ALERT_JOURNAL && !d->log_stderr);
	}
	jankd_alert_config(d, &ac);
	jank_alerter_set_config(d->alerter, &ac);
	if (jank_fleet_set_config(d->fleet, &d->config, &d->config_sources) < 0) {
		jank_log(LOG_ERR, "reload: out of memory: the workers keep their rules");
		d->reload_errors++;
	}
	jank_capturer_reload(d->capturer, &d->config);
	jankd_comp_history_rules(d);
	if (key_changed(rd, "daemon", "status-interval"))
		jankd_add_timer(d, &d->ev_status, d->config.daemon.status_interval_ns,
				jankd_on_status);
}

/* SIGHUP: a config that loads and passes the checks replaces the old one; else nothing changes. */
void jankd_reload(struct jankd *d)
{
	struct jank_config nc;
	struct jank_config_sources src;
	char err[ERR_LEN];
	int r;

	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%" PRId64, jank_clock_monotonic_ns() / 1000);
	jank_log(LOG_INFO, "reloading %s", d->config_path);
	r = jankd_load_config(&nc, &src, d->config_path, err, sizeof(err));
	if (r < 0) {
		jank_log(LOG_ERR, "reload rejected, the previous configuration stays: %s", err);
		d->reload_errors++;
	} else {
		struct reload_diff rd;

		memset(&rd, 0, sizeof(rd));
		jank_config_schema_diff(&jank_config_schema, &d->config, &nc, on_diff, &rd);
		reload_ignored(d, &nc, &rd);
		if (section_changed(&rd, "graph"))
			reload_graph(&nc);
		reload_take(d, &nc, &src, &rd);
		jank_config_fini(&nc);
		jank_config_sources_fini(&src);
		d->reloads++;
		jank_log(LOG_INFO, "reloaded %s: %zu rule%s", d->config_path, d->config.nrules,
			 d->config.nrules == 1 ? "" : "s");
	}
	if (d->ready)
		jankd_notify_status(d, true);
}
