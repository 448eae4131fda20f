/* SPDX-License-Identifier: MIT */
/*
 * Capture policy and bookkeeping: when a jank may take a capture, where it
 * goes, what is written next to it, and what is deleted to stay in quota.
 *
 * Pure logic and filesystem work: no lttng-ctl, no event loop. The daemon
 * asks jank_capture_policy_decide() on every jank; on START it records the snapshot
 * (or, in rotation mode, collects the chunks) into the directory it was given,
 * then calls jank_capture_policy_done(). One capture is in flight at a time: a jank
 * that arrives meanwhile joins it.
 *
 * Refusals come in episodes: the first refusal for a reason is logged (the
 * verdict's `log` flag) and counted in `episodes`; the ones after it are only
 * counted in `refused`, until the reason stops applying (its check passes
 * again). Cooldown episodes are per rule, the others global.
 *
 * Times: `now` is the wall clock (CLOCK_REALTIME, ns since the Unix epoch).
 * It names the capture directories, and it drives the cooldown and the hourly
 * limit; a clock stepped backwards restarts those windows at the new time.
 *
 * A capture directory is <dir>/<UTC YYYYmmddTHHMMSSZ>-<action>-<tid>/ (then
 * .2 to .9 when that name was taken or given already: a policy never gives
 * a name twice) and holds capture.json (see README, "Captures"), the trace, and the report
 * files. Only directories named that way are ever deleted.
 */
#ifndef JANK_CAPTURE_POLICY_H
#define JANK_CAPTURE_POLICY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture-chunks.h"
#include "capture-json.h"
#include "config-file.h"
#include "engine.h"

#define JANK_CAPTURE_DEFAULT_DIR "/var/lib/jankd/captures"
#define JANK_CAPTURE_MSG_LEN	 (PATH_MAX + 512)

struct jank_capture_settings {
	enum jank_capture_mode mode;
	const char *dir;	 /* NULL: JANK_CAPTURE_DEFAULT_DIR */
	int64_t cooldown_ns;	 /* per rule */
	uint64_t max_per_hour;	 /* starts in any rolling hour; 0: no limit */
	uint64_t quota;		 /* bytes of the capture dir; 0: no quota */
	uint64_t min_free;	 /* free bytes the filesystem must keep ... */
	double min_free_percent; /* ... or percent of its size (the larger applies) */
	const char *session;	 /* capture session name, for capture.json (may be NULL) */
	/* The config's flows, for capture.json (its report replays the trace with them). */
	const struct jank_flow_rule *flows;
	size_t nflows;
};

/* The [capture] section as a policy; `p` points into `c`. */
void jank_capture_settings_from_config(struct jank_capture_settings *p,
				       const struct jank_config_capture *c);

enum jank_capture_decision {
	JANK_CAPTURE_START = 0, /* take a capture into verdict.dir (made, with capture.json) */
	JANK_CAPTURE_JOIN,	/* a capture is in flight (verdict.dir): the jank joined it */
	JANK_CAPTURE_REFUSED,	/* no capture: verdict.reason */
};

enum jank_capture_reason {
	JANK_CAPTURE_REASON_NONE = 0,
	JANK_CAPTURE_REASON_DISABLED,  /* mode none, or the rule says capture = no: never logged */
	JANK_CAPTURE_REASON_COOLDOWN,  /* the rule's cooldown has not elapsed */
	JANK_CAPTURE_REASON_HOURLY,    /* max-per-hour reached */
	JANK_CAPTURE_REASON_DISK_FULL, /* the filesystem is below min-free */
	JANK_CAPTURE_REASON_QUOTA,     /* over quota, and nothing of ours left to delete */
	JANK_CAPTURE_REASON_ERROR,     /* the directory or capture.json cannot be written */
	JANK_CAPTURE_REASON_COUNT,
};

struct jank_capture_answer {
	enum jank_capture_decision decision;
	enum jank_capture_reason reason; /* REFUSED */
	bool log;	    /* log `message` now (START, first refusal of an episode) */
	char dir[PATH_MAX]; /* START, JOIN: the capture directory */
	char message[JANK_CAPTURE_MSG_LEN];
};

/* What jank_capture_policy_done() did. */
struct jank_capture_outcome {
	bool log; /* log `message` now (completion, first failure of an episode, deletions) */
	uint64_t deleted; /* captures the quota deleted */
	uint64_t deleted_bytes;
	char message[JANK_CAPTURE_MSG_LEN];
};

struct jank_capture_stats {
	uint64_t started;
	uint64_t joined;
	uint64_t completed;
	uint64_t failed;	   /* snapshot failures: trace removed, capture.json says failed */
	uint64_t failure_episodes; /* runs of failures, each logged once */
	uint64_t refused[JANK_CAPTURE_REASON_COUNT];  /* janks refused, per reason */
	uint64_t episodes[JANK_CAPTURE_REASON_COUNT]; /* refusal episodes (each logged once) */
	uint64_t deleted;			      /* captures deleted by the quota */
	uint64_t deleted_bytes;
	uint64_t bytes; /* size on disk of the capture dir, last measured */
	bool in_flight;
};

struct jank_capture_policy;

/*
 * Free space of the filesystem holding `path`: bytes available to
 * unprivileged users and total size. Returns 0 or -errno. Tests inject one.
 */
typedef int (*jank_capture_policy_statfs_fn)(const char *path, uint64_t *avail, uint64_t *size,
					     void *data);

/* Copies the policy. NULL on allocation failure. */
struct jank_capture_policy *jank_capture_policy_new(const struct jank_capture_settings *p);
void jank_capture_policy_free(struct jank_capture_policy *c);
/* New policy (config reload): counters, cooldowns and the capture in flight stay. */
int jank_capture_policy_set_settings(struct jank_capture_policy *c,
				     const struct jank_capture_settings *p);
void jank_capture_policy_set_statfs(struct jank_capture_policy *c, jank_capture_policy_statfs_fn fn,
				    void *data);
/* The version written to capture.json (default: jankd's). */
void jank_capture_policy_set_version(struct jank_capture_policy *c, const char *version);

/* The capture dir in use. */
const char *jank_capture_policy_dir(const struct jank_capture_policy *c);

/*
 * A jank was reported: start a capture, join the one in flight, or refuse.
 * On START the directory exists and holds capture.json (state "recording").
 * On JOIN, capture.json lists the jank under "joined". Returns the decision.
 */
enum jank_capture_decision jank_capture_policy_decide(struct jank_capture_policy *c,
						      const struct jank_verdict *r, int64_t now,
						      struct jank_capture_answer *out);

/* The capture in flight, or NULL. */
const char *jank_capture_policy_in_flight(const struct jank_capture_policy *c);

/*
 * The capture in flight ended. ok: capture.json says "complete", and the
 * quota deletes the oldest captures (never this one) until the dir is under
 * quota. Failure (`why` says what failed): what the directory holds is
 * removed but its capture.json, which then says "failed" and gives `why` as
 * "error" (the directory goes too only when that cannot be written): the
 * alerts that named the capture never name a directory that is gone.
 * Returns 0, or -ENOENT when `dir` is not the capture in flight.
 */
int jank_capture_policy_done(struct jank_capture_policy *c, const char *dir, bool ok,
			     const char *why, struct jank_capture_outcome *out);

/*
 * Delete the oldest captures until the capture dir is under quota. `keep`
 * (a capture directory, may be NULL) and the capture in flight are never
 * deleted. Returns how many were deleted (bytes in *bytes), or -errno.
 */
int jank_capture_policy_prune(struct jank_capture_policy *c, const char *keep, uint64_t *bytes);

void jank_capture_policy_get_stats(const struct jank_capture_policy *c,
				   struct jank_capture_stats *out);
/* "cooldown", "disk-full", ... ("?" out of range); and back (-1 for no reason). */
JANK_STRTABLE_DECLARE(jank_capture_reason, enum jank_capture_reason);

/*
 * Rotation mode: move a kept chunk (capture-chunks.h) from `archives` into
 * <capture_dir>/chunks/<name> (copied then removed when they are on
 * different filesystems). When capture_dir is the capture in flight,
 * capture.json lists it under "chunks". Returns 0 or -errno.
 */
int jank_capture_policy_keep_chunk(struct jank_capture_policy *c, const char *archives,
				   const struct jank_chunk *chunk, const char *capture_dir);

#endif
