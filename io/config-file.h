/* SPDX-License-Identifier: MIT */
/*
 * The configuration file of jankd and `jankctl analyze` (INI, see jankd.conf(5)).
 *
 * Sections: [live], [graph], [alerts], [capture], [daemon], [metrics], [web], one
 * [action NAME] per rule, and one [flow NAME] per flow. Unknown sections and keys are errors; every
 * error names the file and, when it comes from one line, the line.
 *
 * Every section and key is a row of jank_config_schema (io/config-file.c), which
 * says where its value goes in these structs, its default, and whether a
 * running jankd applies a change to it at a reload or needs a restart.
 */
#ifndef JANK_CONFIG_FILE_H
#define JANK_CONFIG_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "actions.h"
#include "config-schema.h"
#include "engine.h"
#include "ini-reader.h"
#include "strtable.h"

/* Where alerts go: daemon/alert/alert-target.h has each one's operations. */
enum jank_alert_target {
	JANK_ALERT_JOURNAL = 0,
	JANK_ALERT_STDERR,
	JANK_ALERT_JSON,
	JANK_ALERT_TARGETS, /* how many */
};

enum jank_capture_mode {
	JANK_CAPTURE_SNAPSHOT = 0,
	JANK_CAPTURE_ROTATION,
	JANK_CAPTURE_NONE,
};

#define JANK_CONFIG_SESSION_LEN 256 /* lttng's LTTNG_NAME_MAX */
#define JANK_CONFIG_URL_LEN	1024
#define JANK_CONFIG_SOCKET_LEN	108 /* sizeof(sun_path) */
#define JANK_CONFIG_USER_LEN	33  /* useradd's 32 characters */

struct jank_config_live {
	char **urls;  /* [live] url: each live session to watch, in file order */
	size_t nurls; /* 0: none given */
	bool create;  /* create and own the live session */
	bool network; /* jankd's sessions enable the TCP segments' kernel events (default yes) */
	int64_t timer_ns;
	/* The session jankd creates (create = yes). */
	char session[JANK_CONFIG_SESSION_LEN]; /* default jankd-live */
	char relayd[JANK_CONFIG_URL_LEN];      /* lttng control/data URL, default net://127.0.0.1 */
	unsigned relayd_live_port;	       /* default 5344 */
	uint64_t tracefile_size;	       /* bytes, default 64 MiB */
	uint64_t tracefile_count;	       /* default 4 */
	/* Discovery: every session of this relayd whose host and name match. */
	char discover[JANK_CONFIG_URL_LEN]; /* net://HOST[:LIVE-PORT], "" when none */
	char **hosts;			    /* glob patterns (fnmatch); none: every host */
	size_t nhosts;
	char **sessions; /* glob patterns; none: every session */
	size_t nsessions;
	int64_t discover_interval_ns; /* how often relayd's sessions are listed (default 2 s) */
	uint64_t max_inputs;	      /* sessions discovery watches at most (default 64) */
	/* Each input runs in a worker process: one silent this long is restarted. */
	int64_t worker_timeout_ns; /* default 10 s */
	/* Which decoder reads each session: enum jank_decoder (auto, native, babeltrace2). */
	int decoder;
	/*
	 * A path that crosses hosts: how long a slow action's alert waits for the
	 * other host's part (default 5 s; JANK_CONFIG_CROSSING_TIMEOUT_MIN..MAX).
	 */
	int64_t crossing_timeout_ns;
};

#define JANK_CONFIG_CROSSING_TIMEOUT_MIN 100000000LL	/* 100 ms */
#define JANK_CONFIG_CROSSING_TIMEOUT_MAX 600000000000LL /* 10 min */

struct jank_config_graph {
	int64_t retention_ns;
	uint64_t memory_limit;
	int64_t action_timeout_ns;
	int64_t overdue_grace_ns; /* 0: no overdue reports */
	bool functions; /* call stacks: cyg-profile and statedump events in the sessions */
};

/*
 * The user-space events jankd's sessions enable with [graph] functions:
 * function entries and exits, and the statedump that names their addresses.
 * NULL-terminated.
 */
extern const char *const jank_function_events[];

struct jank_config_alerts {
	enum jank_alert_target target;
	uint64_t rate_limit_count;    /* at most this many alerts ... */
	int64_t rate_limit_period_ns; /* ... per this period */
};

struct jank_config_capture {
	enum jank_capture_mode mode;
	char *dir;
	int64_t cooldown_ns;
	uint64_t max_per_hour; /* 0: no hourly limit */
	uint64_t quota;
	/* Refuse to start a capture when the filesystem has less free space than this: */
	uint64_t min_free;	 /* bytes (0: see min_free_percent) */
	double min_free_percent; /* of the filesystem's size; default 5 */
	/* The capture session: adopted when it exists, else created (and owned) by jankd. */
	char session[JANK_CONFIG_SESSION_LEN]; /* "": jankd-capture, always created */
	char **events;			       /* events added to the capture session */
	size_t nevents;
	uint64_t buffer_size; /* ring buffer per CPU and domain, bytes; 0: lttng's default */
	/* mode = rotation: */
	int64_t rotation_period_ns; /* rotate this often (default 10 s; 0: by size only) */
	uint64_t rotation_size;	    /* and after this many bytes (default 0: never) */
	int64_t retention_ns;	    /* trace kept before a jank, and before now (default 10 s) */
};

struct jank_config_daemon {
	char control_socket[JANK_CONFIG_SOCKET_LEN]; /* default /run/jankd/control */
	int64_t status_interval_ns;		     /* default 5 s */
	int64_t ready_timeout_ns; /* READY=1 after this even if not attached (default 10 s; 0:
				     never) */
	/* The user the worker processes run as (default jank-worker); root needs
	 * workers_as_root too. */
	char worker_user[JANK_CONFIG_USER_LEN];
	bool workers_as_root;
	/* Open the binaries local processes map for the workers (binary opener; default yes). */
	bool open_binaries;
	char *state_dir; /* the inputs' baselines, kept across restarts (default
			    /var/lib/jankd/state) */
};

/*
 * Where the symbolizer looks binaries up beyond this host's files: the
 * debuginfod servers it may download debug files from, by build-id (off
 * unless debuginfod_urls is set; io/debuginfod.h).
 */
struct jank_config_symbols {
	char *debuginfod_urls;		/* space-separated; NULL: off */
	char *debuginfod_cache;		/* default /var/cache/jankd/debuginfod */
	uint64_t debuginfod_cache_size; /* default 1 GiB; 0: no limit */
	int64_t debuginfod_timeout_ns;	/* one download, at most (default 10 s) */
	uint64_t memory_limit;		/* the symbolizer's budget (io/symbols.h), default 64 MiB */
};

/* [symbols] memory-limit's range. */
#define JANK_CONFIG_SYMBOLS_MIN_LIMIT ((uint64_t)1 << 20)
#define JANK_CONFIG_SYMBOLS_MAX_LIMIT ((uint64_t)64 << 30)

#define JANK_CONFIG_HOST_LEN 46 /* INET6_ADDRSTRLEN */

/* The OpenMetrics endpoint; off unless [metrics] listen is set. */
struct jank_config_metrics {
	char host[JANK_CONFIG_HOST_LEN]; /* a numeric address; "": off */
	unsigned port;
	bool listen_public;	  /* a non-loopback host was asked for */
	uint64_t composition_top; /* names per rule in jank_critical_path_seconds (default 10) */
};

/* The web pages of recent janks; off unless [web] listen is set. */
struct jank_config_web {
	char host[JANK_CONFIG_HOST_LEN]; /* a numeric address; "": off */
	unsigned port;
	bool listen_public; /* a non-loopback host was asked for */
};

struct jank_config {
	char *path;
	char **dropins; /* the drop-ins read after it (conf.d/ *.conf), in order */
	size_t ndropins;
	struct jank_config_live live;
	struct jank_config_graph graph;
	struct jank_config_symbols symbols;
	struct jank_config_alerts alerts;
	struct jank_config_capture capture;
	struct jank_config_daemon daemon;
	struct jank_config_metrics metrics;
	struct jank_config_web web;
	struct jank_rule *rules; /* one per [action NAME], in file order */
	size_t nrules;
	struct jank_flow_rule *flows; /* one per [flow NAME], in file order */
	size_t nflows;
};

/* Defaults: the values a config without the key gets. */
void jank_config_init(struct jank_config *c);
void jank_config_fini(struct jank_config *c);

/*
 * Parse `path` into `c` (initialised by the call), then its drop-ins: the
 * *.conf files of conf.d/ beside it, in the byte order of their names. A
 * drop-in may add [action NAME] sections, change keys of an earlier file's
 * action (the others stay), and set keys of any other section again (a list
 * such as [live] url is replaced whole). Returns 0, or -errno and a one-line
 * message in `err`: "FILE:LINE: unknown key 'foo' in section [graph]",
 * "FILE: No such file or directory", ..., FILE being the drop-in at fault.
 * On failure `c` is empty: all zero, nothing to free.
 */
int jank_config_load(struct jank_config *c, const char *path, char *err, size_t errlen);

/*
 * The same in two steps, for a program that hands the very text it checked
 * to another (jankd's workers): read the file and its drop-ins whole
 * (jank_config_read(), io/ini-reader.h), then parse those texts: s->v[0] is
 * the file, the others its drop-ins.
 */
int jank_config_load_sources(struct jank_config *c, const struct jank_config_sources *s, char *err,
			     size_t errlen);

/*
 * What a loaded config must also be, for jankd and jankctl alike: at least
 * one [action] rule, and in rotation mode a rotation-period or a
 * rotation-size. Returns 0, or -EINVAL with a message naming the file.
 */
int jank_config_check(const struct jank_config *c, char *err, size_t errlen);
/* Same, from a string; `name` stands for the file in messages. */
int jank_config_load_string(struct jank_config *c, const char *name, const char *text, char *err,
			    size_t errlen);

/* Engine settings from [graph]; the other fields of `ec` are left alone. */
void jank_config_apply_engine(const struct jank_config *c, struct jank_engine_config *ec);

/* [symbols]' debuginfod keys, as io/debuginfod.h takes them (pointing into c). */
struct jank_debuginfod_config;
void jank_config_debuginfod(const struct jank_config *c, struct jank_debuginfod_config *out);
/*
 * Add every rule and every flow to the engine. Returns 0, or -errno and
 * "[action NAME]: why" (or "[flow NAME]: ...") in err.
 */
int jank_config_add_rules(const struct jank_config *c, struct jank_engine *e, char *err,
			  size_t errlen);
/*
 * Replace the engine's rules and flows with the config's (jankd's reload;
 * jank_engine_replace_rules(), jank_engine_replace_flows()). Returns 0 or
 * -errno: on error the old rules, or the old flows, may stay.
 */
int jank_config_replace_rules(const struct jank_config *c, struct jank_engine *e);

/* jank's sections and keys (io/config-schema.h), over struct jank_config. */
extern const struct jank_config_schema jank_config_schema;

/* "journal", "snapshot", ... as the config spells them ("?" out of range); and back (-1). */
JANK_STRTABLE_DECLARE(jank_alert_target, enum jank_alert_target);
JANK_STRTABLE_DECLARE(jank_capture_mode, enum jank_capture_mode);

#endif
