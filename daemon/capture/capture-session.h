/* SPDX-License-Identifier: MIT */
/*
 * The capture session (README "Captures"; ARCHITECTURE, step 7): what the
 * config asks of it (a want), and the state machine that brings it up, takes
 * it down, and makes it again when lttng-sessiond lost it. It calls lttng-ctl
 * only through an ops table (jank_capture_session_lttng_ops in
 * capture-session-lttng.c; the tests give a fake one), and runs on one
 * thread: the capturer's recorder (capturer.c), or its caller before the
 * recorder runs.
 *
 * The session exists only when [capture] mode is snapshot or rotation and
 * some rule says capture = yes. It is the session named by [capture]
 * session when that one exists (adopted: never changed, destroyed or made
 * again), else one that jankd creates (jankd-capture by default) and
 * destroys at exit. Without a kernel tracer it records user-space events
 * only, with one warning per run. In rotation mode it is a rotating session
 * of jankd's own, writing to DIR/.rotating/NAME (capture-rotation.h).
 *
 * A session jankd created dies with lttng-sessiond: jank_capture_session_tick()
 * looks for it every 2 s, and takes it for gone only on evidence
 * (sessiond-probe.h: three answers in a row, 250 ms apart); made again, it
 * never replaces a session of that name that is there after all; while lttng-sessiond is away, or
 * the session cannot be made again, the next look backs off, doubling up to 30 s. A snapshot that
 * failed as if the session were gone asks for a look at once.
 *
 * Other threads read `current`, `owned`, `kernel_ok`, `error` and
 * `recreated` under `*lock` (when not NULL); this module writes them under
 * it. The rest is the owner thread's.
 */
#ifndef JANK_CAPTURE_SESSION_H
#define JANK_CAPTURE_SESSION_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture-policy.h"
#include "config-file.h"
#include "lttng-session.h"
#include "sessiond-probe.h"

struct jank_capture_rotation;

#define JANK_CAPTURE_SESSION_DEFAULT_NAME "jankd-capture"
#define JANK_CAPTURE_SESSION_ERR_LEN	  1024
/* Rotation mode: the session's output is DIR/JANK_CAPTURE_SESSION_ROTATING_DIR/NAME. */
#define JANK_CAPTURE_SESSION_ROTATING_DIR ".rotating"
/* Looks at the session jankd owns: every WATCH_NS, backing off up to WATCH_MAX_NS. */
#define JANK_CAPTURE_SESSION_WATCH_NS	  2000000000LL
#define JANK_CAPTURE_SESSION_WATCH_MAX_NS 30000000000LL

/*
 * lttng-ctl, as the session needs it. Return values follow lttng-session.h:
 * -errno with `err` set, or >= 0, a set of JANK_LTTNG_SESSION_* flags with a
 * note in `err` when > 0.
 */
struct jank_capture_session_ops {
	/* Snapshot mode when `output` is NULL, else a rotating session writing to `output`. */
	int (*create)(const struct jank_lttng_session_spec *spec, const char *output,
		      uint64_t period_us, uint64_t size, bool *kernel_ok, char *err, size_t len);
	int (*destroy)(const char *name, char *err, size_t len);
	int (*exists)(const char *name, char *err, size_t len); /* 1, 0 or -errno */
	int (*snapshot_record)(const char *name, const char *dir, char *err, size_t len);
	/* jank_lttng_session_rotate(), without the archive's path. */
	int (*rotate)(const char *name, bool (*covered)(void *arg), void *arg, char *err,
		      size_t len);
	/* Whether lttng-sessiond's socket answers (1, 0); NULL: no such evidence. */
	int (*answers)(void);
};

/* The real ones: daemon/lttng/lttng-session.c. */
extern const struct jank_capture_session_ops jank_capture_session_lttng_ops;

/* What the config asks of the capture session. */
struct jank_capture_want {
	bool enabled; /* mode snapshot or rotation, and some rule has capture = yes */
	enum jank_capture_mode mode;
	bool named; /* [capture] session given: adopt it when it exists (snapshot) */
	char name[JANK_CONFIG_SESSION_LEN];
	char **events; /* the rules' events, then [capture] events; no duplicates */
	size_t nevents;
	uint64_t buffer_size;
	bool network;	       /* [live] network: the TCP segments' kernel events */
	char output[PATH_MAX]; /* rotation: the session's output, DIR/.rotating/NAME */
	int64_t period_ns;     /* rotation */
	uint64_t size;	       /* rotation */
};

/* 0, -ENOMEM or -ENAMETOOLONG (nothing to free then). */
int jank_capture_want_from_config(struct jank_capture_want *w, const struct jank_config *c);
int jank_capture_want_copy(struct jank_capture_want *dst, const struct jank_capture_want *src);
bool jank_capture_want_equal(const struct jank_capture_want *a, const struct jank_capture_want *b);
void jank_capture_want_fini(struct jank_capture_want *w);

/* A line to log (the capturer hands it to the loop). */
typedef void (*jank_capture_session_log_fn)(void *data, int priority, const char *line);

struct jank_capture_session {
	const struct jank_capture_session_ops *ops;
	pthread_mutex_t *lock; /* may be NULL */
	jank_capture_session_log_fn log;
	void *log_data;

	/* Read by other threads under *lock. */
	struct jank_capture_want current; /* what it was made from; enabled: it is up */
	bool owned;			  /* jankd created it: destroy it at exit */
	bool kernel_ok;
	char error[JANK_CAPTURE_SESSION_ERR_LEN]; /* why it is not up, "" when it is or is off */
	uint64_t recreated;			  /* made again after lttng-sessiond lost it */
	uint64_t recreate_refused; /* ... and found there after all: kept, not replaced */

	/* The owner thread's. */
	bool kernel_warned;
	uint64_t chunks_seen;	       /* rotation: 1 + the highest chunk index seen, 0: none yet */
	struct jank_capture_want lost; /* the session jankd owned, gone with lttng-sessiond */
	bool retrying;	       /* making it again: failures are logged by the caller, once */
	bool again_failing;    /* ... and it failed: logged */
	bool sessiond_away;    /* logged */
	bool sessiond_failing; /* it answers, but its calls fail: logged */
	struct jank_sessiond_probe probe;
	int64_t watch_ns;	 /* until the next look */
	int64_t watch_resume_ns; /* watch_ns before a look that was asked again */
	int64_t watch_mono;	 /* the last look */
	bool watch_now;		 /* a snapshot failed: look at once */
};

void jank_capture_session_init(struct jank_capture_session *s,
			       const struct jank_capture_session_ops *ops, pthread_mutex_t *lock,
			       jank_capture_session_log_fn log, void *log_data);
/* Frees the wants; destroys nothing (jank_capture_session_down() does). */
void jank_capture_session_fini(struct jank_capture_session *s);

/*
 * Make the session match `w` (nothing when it does already): down, then up
 * when w->enabled. A failure is logged ("captures are off until a reload")
 * and kept in `error`.
 */
void jank_capture_session_apply(struct jank_capture_session *s, const struct jank_capture_want *w);

/* Destroy the session when jankd created it (rotation: and its files); forget it. */
void jank_capture_session_down(struct jank_capture_session *s);

/* Whether the session needs looking after: one jankd owns is up, or is to be made again. */
bool jank_capture_session_watching(const struct jank_capture_session *s);

/* Look for the session when it is time (`now`: monotonic ns); make it again when it is gone. */
void jank_capture_session_tick(struct jank_capture_session *s, int64_t now);

/*
 * Record the capture in flight, `dir`: a snapshot, or in rotation mode a
 * rotation and the chunks of its janks (jank_capture_rotation_collect()),
 * then tell `policy` (under *lock) whether it is complete; `out` gets what
 * the policy did. Returns 0 when the capture is complete, else -errno with
 * `err` saying why it failed (capture.json says "failed" then). A failure
 * that says the session may be gone (lttng-sessiond restarted) asks for a
 * look at the next tick.
 */
int jank_capture_session_record(struct jank_capture_session *s, struct jank_capture_rotation *rot,
				struct jank_capture_policy *policy, const char *dir,
				struct jank_capture_outcome *out, char *err, size_t len);

#endif
