/* SPDX-License-Identifier: MIT */
/*
 * The configuration file of jankd and `jankctl analyze` (INI, see jankd.conf(5)).
 *
 * Sections: [live], [graph], [alerts], [capture], and one [action NAME] per
 * rule. Unknown sections and keys are errors; every error names the file
 * and, when it comes from one line, the line.
 */
#ifndef JANK_CONFIG_H
#define JANK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "actions.h"
#include "engine.h"

enum jank_alert_target {
	JANK_ALERT_JOURNAL = 0,
	JANK_ALERT_STDERR,
	JANK_ALERT_JSON,
};

enum jank_capture_mode {
	JANK_CAPTURE_SNAPSHOT = 0,
	JANK_CAPTURE_ROTATION,
	JANK_CAPTURE_NONE,
};

struct jank_config_live {
	char *url;   /* NULL: none given */
	bool create; /* create and own the live session */
	int64_t timer_ns;
};

struct jank_config_graph {
	int64_t retention_ns;
	uint64_t memory_limit;
	int64_t action_timeout_ns;
};

struct jank_config_alerts {
	enum jank_alert_target target;
	uint64_t rate_limit_count;    /* at most this many alerts ... */
	int64_t rate_limit_period_ns; /* ... per this period */
};

struct jank_config_capture {
	enum jank_capture_mode mode;
	char *dir;
	int64_t cooldown_ns;
	uint64_t max_per_hour;
	uint64_t quota;
};

struct jank_config {
	char *path;
	struct jank_config_live live;
	struct jank_config_graph graph;
	struct jank_config_alerts alerts;
	struct jank_config_capture capture;
	struct jank_rule *rules; /* one per [action NAME], in file order */
	size_t nrules;
};

/* Defaults: the values a config without the key gets. */
void jank_config_init(struct jank_config *c);
void jank_config_fini(struct jank_config *c);

/*
 * Parse `path` into `c` (initialised by the call). Returns 0, or -errno and
 * a one-line message in `err`: "FILE:LINE: unknown key 'foo' in section
 * [graph]", "FILE: No such file or directory", ...
 */
int jank_config_load(struct jank_config *c, const char *path, char *err, size_t errlen);
/* Same, from a string; `name` stands for the file in messages. */
int jank_config_load_string(struct jank_config *c, const char *name, const char *text, char *err,
			    size_t errlen);

/* Engine settings from [graph]; the other fields of `ec` are left alone. */
void jank_config_apply_engine(const struct jank_config *c, struct jank_engine_config *ec);
/* Add every rule to the engine. Returns 0 or -errno. */
int jank_config_add_rules(const struct jank_config *c, struct jank_engine *e);

const char *jank_alert_target_name(enum jank_alert_target t);
const char *jank_capture_mode_name(enum jank_capture_mode m);

#endif
