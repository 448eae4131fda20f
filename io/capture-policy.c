/* SPDX-License-Identifier: MIT */
/*
 * Capture policy and bookkeeping (see capture-policy.h).
 *
 * The checks of jank_capture_policy_decide() run in a fixed order, cheapest first:
 * disabled, in flight (join), the rule's cooldown, the hourly limit, then the
 * filesystem (free space, quota), which costs a statvfs and a walk of the
 * capture dir, and so runs only when a capture is about to start.
 *
 * The capture in flight keeps its capture.json as a record (capture-json.h),
 * so that joined janks, chunks and the final state can be added to it; the
 * file is rewritten whole (a temporary file renamed over it) at each change.
 *
 * Trees are walked with the *at() calls and never follow symbolic links, so
 * that a link planted in the capture dir cannot make the quota delete or
 * count anything outside it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "capture-policy.h"
#include "capture-list.h"
#include "dirtree.h"
#include "format.h"
#include "units.h"
#include "verdict-json.h"

#ifndef JANK_VERSION
#define JANK_VERSION "unknown"
#endif

#define NS_PER_S	  1000000000LL
#define HOUR_NS		  (3600 * NS_PER_S)
#define NAME_TIME_LEN	  16 /* "20240501T120000Z" */
#define JANK_DIRTREE_MODE 0750

#define GIVEN_NAMES 16 /* names remembered, beyond what the capture dir holds */

struct given_name {
	char base[NAME_MAX + 1];
	int suffix; /* 1: the name without a suffix */
};

struct rule_slot {
	char *name;
	int64_t last_start; /* valid when started */
	bool started;
	bool cooldown_episode; /* refusals for cooldown are being counted, not logged */
};

struct jank_capture_policy {
	struct jank_capture_settings policy; /* dir and session are owned copies */
	char *version;
	jank_capture_policy_statfs_fn statfs;
	void *statfs_data;

	struct rule_slot *rules;
	size_t nrules;

	int64_t *starts; /* start times within the last hour, oldest first */
	size_t nstarts;
	size_t starts_cap;

	bool episode[JANK_CAPTURE_REASON_COUNT];	 /* global episodes in progress */
	uint64_t since_start[JANK_CAPTURE_REASON_COUNT]; /* refusals since the last start */
	bool failing;					 /* a failure episode is in progress */

	char flight[PATH_MAX]; /* the capture in flight, "" when none */
	struct jank_capture_record meta;
	bool has_meta; /* meta is the capture in flight's */

	/* The last names given (without their suffix), and their suffixes: never given again. */
	struct given_name given[GIVEN_NAMES];
	size_t ngiven; /* ever */

	struct jank_capture_stats stats;
};

/* ---- Small helpers ---- */

/* "20240501T120000Z" (compact, for names) or "2024-05-01T12:00:00Z". */
static void fmt_utc(int64_t ns, bool compact, char *buf, size_t len)
{
	time_t t = (time_t)(ns / NS_PER_S - (ns % NS_PER_S < 0));
	struct tm tm;

	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	strftime(buf, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int default_statfs(const char *path, uint64_t *avail, uint64_t *size, void *data)
{
	struct statvfs sv;

	(void)data;
	if (statvfs(path, &sv) != 0)
		return -errno;
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	*size = (uint64_t)sv.f_blocks * sv.f_frsize;
	return 0;
}

/* ---- The manager ---- */

void jank_capture_settings_from_config(struct jank_capture_settings *p,
				       const struct jank_config_capture *c)
{
	memset(p, 0, sizeof(*p));
	p->mode = c->mode;
	p->dir = c->dir;
	p->cooldown_ns = c->cooldown_ns;
	p->max_per_hour = c->max_per_hour;
	p->quota = c->quota;
	p->min_free = c->min_free;
	p->min_free_percent = c->min_free_percent;
}

static void flows_free(struct jank_flow_rule *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		jank_flow_rule_fini(&f[i]);
	free(f);
}

static void policy_fini(struct jank_capture_settings *p)
{
	free((char *)p->dir);
	free((char *)p->session);
	flows_free((struct jank_flow_rule *)p->flows, p->nflows);
	memset(p, 0, sizeof(*p));
}

/* Copies of flows[0..n), or NULL (also when n is 0: then *ok stays true). */
static struct jank_flow_rule *flows_copy(const struct jank_flow_rule *flows, size_t n, bool *ok)
{
	struct jank_flow_rule *f = n ? calloc(n, sizeof(*f)) : NULL;

	*ok = !n || f;
	for (size_t i = 0; f && i < n; i++) {
		if (jank_flow_rule_copy(&f[i], &flows[i]) < 0) {
			flows_free(f, i);
			*ok = false;
			return NULL;
		}
	}
	return f;
}

static int policy_copy(struct jank_capture_settings *dst, const struct jank_capture_settings *src)
{
	char *dir, *session = NULL;
	struct jank_flow_rule *flows;
	bool flows_ok;
	size_t n;

	dir = strdup(src->dir ? src->dir : JANK_CAPTURE_DEFAULT_DIR);
	if (src->session)
		session = strdup(src->session);
	flows = flows_copy(src->flows, src->nflows, &flows_ok);
	if (!dir || (src->session && !session) || !flows_ok) {
		free(dir);
		free(session);
		flows_free(flows, src->nflows);
		return -ENOMEM;
	}
	/* "/var/x/" and "/var/x" name the same capture dir. */
	for (n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
		dir[n - 1] = '\0';
	*dst = *src;
	dst->dir = dir;
	dst->session = session;
	dst->flows = flows;
	return 0;
}

struct jank_capture_policy *jank_capture_policy_new(const struct jank_capture_settings *p)
{
	struct jank_capture_policy *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->version = strdup(JANK_VERSION);
	if (!c->version || policy_copy(&c->policy, p) < 0) {
		free(c->version);
		free(c);
		return NULL;
	}
	c->statfs = default_statfs;
	jank_capture_record_init(&c->meta);
	return c;
}

void jank_capture_policy_free(struct jank_capture_policy *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nrules; i++)
		free(c->rules[i].name);
	free(c->rules);
	free(c->starts);
	jank_capture_record_fini(&c->meta);
	policy_fini(&c->policy);
	free(c->version);
	free(c);
}

int jank_capture_policy_set_settings(struct jank_capture_policy *c,
				     const struct jank_capture_settings *p)
{
	struct jank_capture_settings np;
	int r = policy_copy(&np, p);

	if (r < 0)
		return r;
	policy_fini(&c->policy);
	c->policy = np;
	return 0;
}

void jank_capture_policy_set_statfs(struct jank_capture_policy *c, jank_capture_policy_statfs_fn fn,
				    void *data)
{
	c->statfs = fn ? fn : default_statfs;
	c->statfs_data = fn ? data : NULL;
}

void jank_capture_policy_set_version(struct jank_capture_policy *c, const char *version)
{
	char *v = strdup(version ? version : JANK_VERSION);

	if (!v)
		return;
	free(c->version);
	c->version = v;
}

const char *jank_capture_policy_dir(const struct jank_capture_policy *c)
{
	return c->policy.dir;
}

const char *jank_capture_policy_in_flight(const struct jank_capture_policy *c)
{
	return c->flight[0] ? c->flight : NULL;
}

void jank_capture_policy_get_stats(const struct jank_capture_policy *c,
				   struct jank_capture_stats *out)
{
	*out = c->stats;
	out->in_flight = c->flight[0] != '\0';
}

static const char *const jank_capture_reason_names[JANK_CAPTURE_REASON_COUNT] = {
	[JANK_CAPTURE_REASON_NONE] = "none",
	[JANK_CAPTURE_REASON_DISABLED] = "disabled",
	[JANK_CAPTURE_REASON_COOLDOWN] = "cooldown",
	[JANK_CAPTURE_REASON_HOURLY] = "max-per-hour",
	[JANK_CAPTURE_REASON_DISK_FULL] = "disk-full",
	[JANK_CAPTURE_REASON_QUOTA] = "quota",
	[JANK_CAPTURE_REASON_ERROR] = "error",
};

JANK_STRTABLE_DEFINE(jank_capture_reason, enum jank_capture_reason, "?")

static struct rule_slot *rule_slot(struct jank_capture_policy *c, const char *name)
{
	struct rule_slot *v;

	for (size_t i = 0; i < c->nrules; i++)
		if (!strcmp(c->rules[i].name, name))
			return &c->rules[i];
	v = realloc(c->rules, (c->nrules + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->rules = v;
	memset(&v[c->nrules], 0, sizeof(*v));
	v[c->nrules].name = strdup(name);
	if (!v[c->nrules].name)
		return NULL;
	return &v[c->nrules++];
}

/* Forget starts older than an hour; a clock stepped back restarts the window. */
static void starts_trim(struct jank_capture_policy *c, int64_t now)
{
	size_t k = 0;

	for (size_t i = 0; i < c->nstarts; i++) {
		if (c->starts[i] > now)
			continue;
		if (now - c->starts[i] < HOUR_NS)
			c->starts[k++] = c->starts[i];
	}
	c->nstarts = k;
}

static int starts_add(struct jank_capture_policy *c, int64_t now)
{
	if (c->nstarts == c->starts_cap) {
		size_t cap = c->starts_cap ? c->starts_cap * 2 : 16;
		int64_t *v = realloc(c->starts, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->starts = v;
		c->starts_cap = cap;
	}
	c->starts[c->nstarts++] = now;
	return 0;
}

/*
 * A refusal: counted always, logged when it opens an episode. `episode` is
 * the flag of the episode (per rule for the cooldown, global otherwise).
 */
static enum jank_capture_decision refuse(struct jank_capture_policy *c,
					 enum jank_capture_reason reason, bool *episode,
					 struct jank_capture_answer *out)
{
	out->decision = JANK_CAPTURE_REFUSED;
	out->reason = reason;
	c->stats.refused[reason]++;
	if (reason == JANK_CAPTURE_REASON_DISABLED)
		return out->decision;
	c->since_start[reason]++;
	out->log = !*episode;
	if (!*episode) {
		*episode = true;
		c->stats.episodes[reason]++;
		size_t n = strlen(out->message);

		snprintf(out->message + n, sizeof(out->message) - n,
			 " (further refusals for this reason are counted, not logged)");
	}
	return out->decision;
}

/* ---- capture.json ---- */

/* The record of a capture starting now for verdict r (capture-json.h). Returns 0 or -ENOMEM. */
static int meta_new(struct jank_capture_policy *c, const struct jank_verdict *r, int64_t now,
		    const char *name)
{
	struct jank_capture_record *m = &c->meta;
	char when[32], host[256] = "", story[1024];
	int e = 0;

	jank_capture_record_fini(m);
	c->has_meta = false;
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	fmt_utc(now, false, when, sizeof(when));
	/* The flagged action's path, as jankd saw it live, in words. */
	if (r->path)
		jank_format_path_story(story, sizeof(story), r->path, 12);
	e |= jank_capture_set_str(&m->format, JANK_CAPTURE_FORMAT);
	e |= jank_capture_set_str(&m->name, name);
	e |= jank_capture_set_str(&m->mode, jank_capture_mode_name(c->policy.mode));
	e |= jank_capture_set_str(&m->state, "recording");
	e |= jank_capture_set_str(&m->time, when);
	m->time_ns = now;
	e |= jank_capture_set_str(&m->hostname, host);
	e |= jank_capture_set_str(&m->session, c->policy.session);
	e |= jank_capture_set_str(&m->jankd_version, c->version);
	if (r->rule)
		e |= jank_rule_copy(&m->rule, r->rule);
	if (c->policy.nflows && !e) {
		m->flows = calloc(c->policy.nflows, sizeof(*m->flows));
		e |= m->flows ? 0 : -ENOMEM;
		for (size_t i = 0; m->flows && i < c->policy.nflows && !e; i++, m->nflows++)
			e |= jank_flow_rule_copy(&m->flows[i], &c->policy.flows[i]);
	}
	if (!e)
		e = jank_capture_action_set(&m->action, r, r->path ? story : NULL);
	if (e) {
		jank_capture_record_fini(m);
		return -ENOMEM;
	}
	c->has_meta = true;
	return 0;
}

static int meta_print(FILE *f, void *data)
{
	return jank_capture_record_print(f, data);
}

/* Write capture.json of `dir` whole. */
static int meta_write(const char *dir, struct jank_capture_record *meta)
{
	return jank_dirtree_write_file(dir, JANK_CAPTURE_FILE, meta_print, meta);
}

/* Whether r's path is on two hosts or more (as jankd joined it live). */
static bool crosses_hosts(const struct jank_verdict *r)
{
	const struct jank_path *p = r->path;

	for (size_t i = 1; p && i < p->n; i++)
		if (p->segs[i].host != p->segs[0].host)
			return true;
	return false;
}

static int live_path_print(FILE *f, void *data)
{
	struct json_object *j = jank_verdict_to_json(data, JANK_VERDICT_JSON_FULL);
	const char *s = j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN) : NULL;
	int r = s && fprintf(f, "%s\n", s) >= 0 ? 0 : -ENOMEM;

	json_object_put(j);
	return r;
}

/*
 * live-path.json, when r's path crossed hosts: the capture's report gives
 * the other hosts' parts of it (capture-json.h). Best effort: the report
 * is then one host's.
 */
static void live_path_write(const char *dir, const struct jank_verdict *r)
{
	if (crosses_hosts(r))
		jank_dirtree_write_file(dir, JANK_CAPTURE_LIVE_PATH_FILE, live_path_print,
					(void *)r);
}

/* ---- Decide ---- */

static bool disk_low(const struct jank_capture_policy *c, uint64_t avail, uint64_t size,
		     uint64_t *need)
{
	uint64_t pct = (uint64_t)((double)size * c->policy.min_free_percent / 100.0);

	*need = c->policy.min_free > pct ? c->policy.min_free : pct;
	return avail < *need;
}

/*
 * Delete the oldest captures of ours (not `keep`, not the one in flight)
 * while the dir's total is over `limit` (or at it, when `strict`).
 */
static int prune_to(struct jank_capture_policy *c, const char *keep, uint64_t limit, bool strict,
		    uint64_t *total, uint64_t *freed)
{
	struct jank_capture_entry *v;
	int n, deleted = 0;

	*freed = 0;
	if (jank_dirtree_du(c->policy.dir, total) < 0)
		return -EIO;
	if (*total < limit || (*total == limit && !strict))
		return 0;
	n = jank_capture_list(c->policy.dir, &v, true);
	if (n < 0)
		return n;
	for (int i = 0; i < n && (*total > limit || (strict && *total == limit)); i++) {
		char path[PATH_MAX];

		if ((keep && !strcmp(v[i].name, keep)) ||
		    (c->flight[0] && !strcmp(v[i].name, strrchr(c->flight, '/') + 1)))
			continue;
		if (jank_dirtree_join(path, sizeof(path), c->policy.dir, v[i].name) < 0)
			continue;
		if (jank_dirtree_remove(path) < 0)
			continue; /* partly removed: the next measure tells */
		deleted++;
		*freed += v[i].bytes;
		*total = *total > v[i].bytes ? *total - v[i].bytes : 0;
	}
	free(v);
	c->stats.deleted += (uint64_t)deleted;
	c->stats.deleted_bytes += *freed;
	/* Measure again: deleting may have freed more or less than counted. */
	if (deleted)
		jank_dirtree_du(c->policy.dir, total);
	return deleted;
}

int jank_capture_policy_prune(struct jank_capture_policy *c, const char *keep, uint64_t *bytes)
{
	const char *k = keep && strrchr(keep, '/') ? strrchr(keep, '/') + 1 : keep;
	uint64_t total, freed;
	int r;

	*bytes = 0;
	if (!c->policy.quota)
		return 0;
	r = prune_to(c, k, c->policy.quota, false, &total, &freed);
	c->stats.bytes = total;
	*bytes = freed;
	return r;
}

/* The filesystem checks: free space, then the quota. Returns a reason or NONE. */
static enum jank_capture_reason check_disk(struct jank_capture_policy *c,
					   struct jank_capture_answer *out)
{
	uint64_t avail, size, need, total, freed;
	char a[32], b[32], d[32];
	int r;

	r = c->statfs(c->policy.dir, &avail, &size, c->statfs_data);
	if (r < 0) {
		snprintf(out->message, sizeof(out->message),
			 "capture refused: cannot read the free space of %s: %s", c->policy.dir,
			 strerror(-r));
		return JANK_CAPTURE_REASON_ERROR;
	}
	if (disk_low(c, avail, size, &need)) {
		snprintf(out->message, sizeof(out->message),
			 "capture refused: the filesystem of %s has %s free of %s, under min-free "
			 "(%s)",
			 c->policy.dir, jank_units_size(avail, a, sizeof(a)),
			 jank_units_size(size, b, sizeof(b)), jank_units_size(need, d, sizeof(d)));
		return JANK_CAPTURE_REASON_DISK_FULL;
	}
	c->episode[JANK_CAPTURE_REASON_DISK_FULL] = false;
	if (!c->policy.quota)
		return JANK_CAPTURE_REASON_NONE;
	r = prune_to(c, NULL, c->policy.quota, true, &total, &freed);
	c->stats.bytes = total;
	if (r < 0) {
		snprintf(out->message, sizeof(out->message),
			 "capture refused: cannot measure %s: %s", c->policy.dir, strerror(-r));
		return JANK_CAPTURE_REASON_ERROR;
	}
	if (total >= c->policy.quota) {
		snprintf(out->message, sizeof(out->message),
			 "capture refused: %s holds %s, at its quota of %s, and no capture is left "
			 "to delete",
			 c->policy.dir, jank_units_size(total, a, sizeof(a)),
			 jank_units_size(c->policy.quota, b, sizeof(b)));
		return JANK_CAPTURE_REASON_QUOTA;
	}
	c->episode[JANK_CAPTURE_REASON_QUOTA] = false;
	return JANK_CAPTURE_REASON_NONE;
}

/* Remember a name given: `base` with the suffix `i` (1: none). */
static void give_name(struct jank_capture_policy *c, const char *base, int i)
{
	struct given_name *g = NULL;

	for (size_t k = 0; k < c->ngiven && k < GIVEN_NAMES; k++)
		if (!strcmp(base, c->given[k].base))
			g = &c->given[k];
	if (!g) {
		g = &c->given[c->ngiven++ % GIVEN_NAMES];
		snprintf(g->base, sizeof(g->base), "%s", base);
	}
	g->suffix = i;
}

/*
 * Create <dir>/<time>-<action>-<tid>, or with .2 to .9 after it: on a clash,
 * and after the names this policy gave already, so that a name is never
 * given twice even when its capture is gone (failed, or deleted).
 */
static int make_capture_dir(struct jank_capture_policy *c, const struct jank_verdict *r,
			    int64_t now, char *path, size_t len, const char **name)
{
	char stamp[32], base[NAME_MAX + 1];
	int n, from = 1;

	fmt_utc(now, true, stamp, sizeof(stamp));
	n = snprintf(base, sizeof(base), "%s-%s-%" PRId32, stamp,
		     r->rule && r->rule->name ? r->rule->name : "action", r->tid);
	if (n < 0 || (size_t)n >= sizeof(base) - 2)
		return -ENAMETOOLONG;
	for (size_t k = 0; k < c->ngiven && k < GIVEN_NAMES; k++)
		if (!strcmp(base, c->given[k].base) && c->given[k].suffix >= from)
			from = c->given[k].suffix + 1;
	for (int i = from; i <= 9; i++) {
		int m = i == 1 ? snprintf(path, len, "%s/%s", c->policy.dir, base)
			       : snprintf(path, len, "%s/%s.%d", c->policy.dir, base, i);

		if (m < 0 || (size_t)m >= len)
			return -ENAMETOOLONG;
		if (mkdir(path, JANK_DIRTREE_MODE) == 0) {
			*name = strrchr(path, '/') + 1;
			give_name(c, base, i);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static void start_message(struct jank_capture_policy *c, const struct jank_verdict *r,
			  struct jank_capture_answer *out)
{
	uint64_t total = 0;
	char d[32];
	size_t n;

	n = (size_t)snprintf(out->message, sizeof(out->message),
			     "capture started: %s (%s [%s] %s on tid %" PRId32 ")", out->dir,
			     r->rule && r->rule->name ? r->rule->name : "?", r->key ? r->key : "",
			     jank_units_duration(r->duration, d, sizeof(d)), r->tid);
	for (int i = 0; i < JANK_CAPTURE_REASON_COUNT; i++)
		total += c->since_start[i];
	if (!total || n >= sizeof(out->message))
		return;
	n += (size_t)snprintf(out->message + n, sizeof(out->message) - n,
			      "; %" PRIu64 " janks got no capture since the last one:", total);
	for (int i = 0, first = 1; i < JANK_CAPTURE_REASON_COUNT && n < sizeof(out->message); i++) {
		if (!c->since_start[i])
			continue;
		n += (size_t)snprintf(out->message + n, sizeof(out->message) - n,
				      "%s %" PRIu64 " %s", first ? "" : ",", c->since_start[i],
				      jank_capture_reason_name(i));
		first = 0;
	}
}

static void join(struct jank_capture_policy *c, const struct jank_verdict *r,
		 struct jank_capture_answer *out)
{
	out->decision = JANK_CAPTURE_JOIN;
	snprintf(out->dir, sizeof(out->dir), "%s", c->flight);
	c->stats.joined++;
	if (!c->has_meta)
		return;
	jank_capture_record_join(&c->meta, r);
	meta_write(c->flight, &c->meta); /* best effort: the capture goes on without it */
}

enum jank_capture_decision jank_capture_policy_decide(struct jank_capture_policy *c,
						      const struct jank_verdict *r, int64_t now,
						      struct jank_capture_answer *out)
{
	const char *rule = r->rule && r->rule->name ? r->rule->name : "?";
	enum jank_capture_reason reason;
	struct rule_slot *slot;
	const char *name = NULL;
	char d[32];
	int e;

	memset(out, 0, sizeof(*out));
	if (c->policy.mode == JANK_CAPTURE_NONE || (r->rule && !r->rule->capture)) {
		snprintf(out->message, sizeof(out->message), "no capture: %s",
			 c->policy.mode == JANK_CAPTURE_NONE ? "[capture] mode = none"
							     : "the rule has capture = no");
		return refuse(c, JANK_CAPTURE_REASON_DISABLED, &c->episode[0], out);
	}
	if (c->flight[0]) {
		join(c, r, out);
		return out->decision;
	}
	slot = rule_slot(c, rule);
	if (!slot) {
		snprintf(out->message, sizeof(out->message), "capture refused: out of memory");
		return refuse(c, JANK_CAPTURE_REASON_ERROR, &c->episode[JANK_CAPTURE_REASON_ERROR],
			      out);
	}
	if (slot->started && slot->last_start > now)
		slot->last_start = now; /* the clock was stepped back */
	if (slot->started && now - slot->last_start < c->policy.cooldown_ns) {
		snprintf(out->message, sizeof(out->message),
			 "capture refused for action '%s': in its cooldown of %s", rule,
			 jank_units_duration(c->policy.cooldown_ns, d, sizeof(d)));
		return refuse(c, JANK_CAPTURE_REASON_COOLDOWN, &slot->cooldown_episode, out);
	}
	slot->cooldown_episode = false;
	starts_trim(c, now);
	if (c->policy.max_per_hour && c->nstarts >= c->policy.max_per_hour) {
		snprintf(out->message, sizeof(out->message),
			 "capture refused: %zu captures in the last hour (max-per-hour = %" PRIu64
			 ")",
			 c->nstarts, c->policy.max_per_hour);
		return refuse(c, JANK_CAPTURE_REASON_HOURLY,
			      &c->episode[JANK_CAPTURE_REASON_HOURLY], out);
	}
	c->episode[JANK_CAPTURE_REASON_HOURLY] = false;
	e = jank_dirtree_make(c->policy.dir);
	if (e < 0) {
		snprintf(out->message, sizeof(out->message),
			 "capture refused: cannot create %s: %s", c->policy.dir, strerror(-e));
		return refuse(c, JANK_CAPTURE_REASON_ERROR, &c->episode[JANK_CAPTURE_REASON_ERROR],
			      out);
	}
	reason = check_disk(c, out);
	if (reason != JANK_CAPTURE_REASON_NONE)
		return refuse(c, reason, &c->episode[reason], out);
	e = make_capture_dir(c, r, now, out->dir, sizeof(out->dir), &name);
	if (e == 0) {
		e = meta_new(c, r, now, name);
		if (e == 0)
			e = meta_write(out->dir, &c->meta);
		if (e == 0)
			live_path_write(out->dir, r);
		if (e < 0)
			jank_dirtree_remove(out->dir);
	}
	if (e < 0) {
		snprintf(out->message, sizeof(out->message),
			 "capture refused: cannot create a capture in %s: %s", c->policy.dir,
			 strerror(-e));
		out->dir[0] = '\0';
		return refuse(c, JANK_CAPTURE_REASON_ERROR, &c->episode[JANK_CAPTURE_REASON_ERROR],
			      out);
	}
	c->episode[JANK_CAPTURE_REASON_ERROR] = false;
	snprintf(c->flight, sizeof(c->flight), "%s", out->dir);
	slot->started = true;
	slot->last_start = now;
	starts_add(c, now);
	c->stats.started++;
	out->decision = JANK_CAPTURE_START;
	out->log = true;
	start_message(c, r, out);
	memset(c->since_start, 0, sizeof(c->since_start));
	return out->decision;
}

/* ---- Done ---- */

/* Remove everything in `dir` but its capture.json. Returns 0 or the first -errno. */
static int empty_but_meta(const char *dir)
{
	struct dirent *de;
	int r = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		int e;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, JANK_CAPTURE_FILE))
			continue;
		e = jank_dirtree_join(path, sizeof(path), dir, de->d_name);
		if (e == 0)
			e = jank_dirtree_remove(path);
		if (e < 0 && r == 0)
			r = e;
	}
	closedir(d);
	return r;
}

/*
 * A capture failed: its partial trace is removed, and its directory stays
 * with a capture.json that says "failed" and why, so that the alerts that
 * named it never point at nothing (the quota deletes it like any capture).
 * When even that cannot be written, the directory goes. Returns 0 (kept) or
 * -errno (removed, or not even that).
 */
static int keep_failed(struct jank_capture_policy *c, const char *why, bool *removed)
{
	int r = empty_but_meta(c->flight);

	*removed = false;
	if (r == 0 && c->has_meta) {
		r = jank_capture_set_str(&c->meta.state, "failed");
		if (r == 0)
			r = jank_capture_set_str(&c->meta.error, why);
		if (r == 0)
			r = meta_write(c->flight, &c->meta);
	} else if (r == 0) {
		r = -ENOMEM;
	}
	if (r == 0)
		return 0;
	*removed = jank_dirtree_remove(c->flight) == 0;
	return r;
}

int jank_capture_policy_done(struct jank_capture_policy *c, const char *dir, bool ok,
			     const char *why, struct jank_capture_outcome *out)
{
	char a[32], b[32], t[32];
	uint64_t total = 0, freed = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (!c->flight[0] || strcmp(dir, c->flight) != 0)
		return -ENOENT;
	if (!ok) {
		const char *reason = why && why[0] ? why : "error";
		bool removed;

		r = keep_failed(c, reason, &removed);
		c->stats.failed++;
		out->log = !c->failing;
		if (!c->failing) {
			c->failing = true;
			c->stats.failure_episodes++;
		}
		if (r == 0)
			snprintf(out->message, sizeof(out->message),
				 "capture failed: %s: %s; partial capture removed, its "
				 "capture.json says it failed (further failures are counted, not "
				 "logged, until a capture succeeds)",
				 c->flight, reason);
		else
			snprintf(out->message, sizeof(out->message),
				 "capture failed: %s: %s; cannot mark it failed (%s): %s",
				 c->flight, reason, strerror(-r),
				 removed ? "partial capture removed" : "cannot remove it either");
		goto end;
	}
	c->failing = false;
	c->stats.completed++;
	if (c->has_meta && jank_capture_set_str(&c->meta.state, "complete") == 0)
		meta_write(c->flight, &c->meta);
	out->log = true;
	r = 0;
	if (c->policy.quota) {
		r = prune_to(c, strrchr(c->flight, '/') + 1, c->policy.quota, false, &total,
			     &freed);
		c->stats.bytes = total;
	}
	if (r > 0) {
		out->deleted = (uint64_t)r;
		out->deleted_bytes = freed;
		snprintf(out->message, sizeof(out->message),
			 "capture complete: %s; quota %s: deleted the %d oldest capture%s (%s), "
			 "%s in use",
			 c->flight, jank_units_size(c->policy.quota, a, sizeof(a)), r,
			 r > 1 ? "s" : "", jank_units_size(freed, b, sizeof(b)),
			 jank_units_size(total, t, sizeof(t)));
	} else {
		snprintf(out->message, sizeof(out->message), "capture complete: %s", c->flight);
	}
end:
	c->flight[0] = '\0';
	jank_capture_record_fini(&c->meta);
	c->has_meta = false;
	return 0;
}

int jank_capture_policy_keep_chunk(struct jank_capture_policy *c, const char *archives,
				   const struct jank_chunk *chunk, const char *capture_dir)
{
	char dst[PATH_MAX];
	int r;

	if (jank_dirtree_join(dst, sizeof(dst), capture_dir, "chunks") < 0)
		return -ENAMETOOLONG;
	if (mkdir(dst, JANK_DIRTREE_MODE) != 0 && errno != EEXIST)
		return -errno;
	r = jank_dirtree_move(archives, chunk->name, dst);
	if (r < 0 || !c->has_meta || strcmp(capture_dir, c->flight) != 0)
		return r;
	if (jank_capture_record_add_chunk(&c->meta, chunk->name, chunk->index, chunk->begin_ns,
					  chunk->end_ns) == 0)
		meta_write(c->flight, &c->meta);
	return 0;
}
