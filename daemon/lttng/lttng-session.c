/* SPDX-License-Identifier: MIT */
/*
 * LTTng sessions through lttng-ctl (lttng-tools 2.13).
 *
 * A session is made in one pass: create it from a session descriptor, add a
 * user-space channel (events and contexts), try a kernel channel, start.
 * When a step after the creation fails, the half-made session is destroyed,
 * so that a failed call leaves nothing behind.
 *
 * Three facts about lttng-ctl 2.13 shape this file:
 * - lttng_create_session_ext() returns a positive enum lttng_error_code; the
 *   other calls return negative codes. session_lttng_code() folds both.
 * - When lttng-sessiond refuses a command early (kernel domain without a
 *   kernel tracer), it closes the socket while lttng-ctl is still sending
 *   the command's payload: the send raises SIGPIPE, which would kill a
 *   process that does not ignore it. Every public function blocks SIGPIPE
 *   in the calling thread and consumes the one it caused (sigpipe_guard).
 * - A session without a kernel tracer is still useful: the kernel channel
 *   is best effort, and its failure is a note, not an error.
 * - liblttng-ctl keeps one connection to lttng-sessiond for the whole
 *   process (a static socket and a "connected" flag, no lock): two threads
 *   calling it at once close each other's socket, and a call then fails
 *   with "No session daemon is available", or reads the other call's reply
 *   (a session list without the session). jankd calls it from the live
 *   keeper's thread and the capturer's. So every public function holds one
 *   process-wide lock across its lttng-ctl calls (CTL_ENTER), and lets go
 *   of it only while it sleeps between polls (ctl_sleep).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <lttng/lttng.h>
#include "lttng-session-int.h"

#define ROTATE_TIMEOUT_MS 10000
#define ROTATE_POLL_MS	  10

/*
 * How long to wait for a rotation that is already in progress: the
 * session's own schedule (periodic or size), or an earlier rotate. lttng-
 * sessiond refuses a rotation meanwhile (LTTNG_ERR_ROTATION_PENDING), and
 * the implicit rotation of a destruction fails with the same code. It is a
 * normal state of a rotating session, which ends once the consumers have
 * closed the chunk: poll again after 5 ms, doubling up to 200 ms, for at
 * most PENDING_LIMIT_MS in all.
 */
#define PENDING_FIRST_MS   5
#define PENDING_STEP_MS	   200
#define PENDING_LIMIT_MS   10000
#define PENDING_LIMIT_TEXT "10 s"

/* ---- SIGPIPE ---- */

struct sigpipe_guard {
	sigset_t old;
	bool was_pending;
};

static void sigpipe_block(struct sigpipe_guard *g)
{
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigemptyset(&pending);
	sigpending(&pending);
	g->was_pending = sigismember(&pending, SIGPIPE) == 1;
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
}

/* Consume a SIGPIPE raised while blocked (not one that was pending before), then unblock. */
static void sigpipe_restore(struct sigpipe_guard *g)
{
	static const struct timespec zero = { 0, 0 };
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigemptyset(&pending);
	if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
		while (sigtimedwait(&set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* ---- The one owner of lttng-ctl in this process ---- */

static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;

struct ctl_guard {
	struct sigpipe_guard sigpipe;
};

static void ctl_enter(struct ctl_guard *g)
{
	sigpipe_block(&g->sigpipe);
	pthread_mutex_lock(&ctl_lock);
}

static void ctl_leave(struct ctl_guard *g)
{
	pthread_mutex_unlock(&ctl_lock);
	sigpipe_restore(&g->sigpipe);
}

/*
 * Enter a public function: SIGPIPE blocked in this thread, and lttng-ctl
 * ours until the function returns.
 */
#define CTL_ENTER(g)                                                                               \
	struct ctl_guard g __attribute__((cleanup(ctl_leave)));                                    \
	ctl_enter(&g)

/* Sleep between two polls, letting the other threads' lttng-ctl calls through. */
static void ctl_sleep(const struct timespec *ts)
{
	pthread_mutex_unlock(&ctl_lock);
	nanosleep(ts, NULL);
	pthread_mutex_lock(&ctl_lock);
}

/* ---- Errors ---- */

/* The result of an lttng-ctl call that returns 0 or a negative code, as an enum. */
enum lttng_error_code session_lttng_code(int ret)
{
	return ret < 0 ? (enum lttng_error_code)(-ret) : LTTNG_OK;
}

const char *session_code_str(enum lttng_error_code code)
{
	return lttng_strerror(-(int)code);
}

int session_code_errno(enum lttng_error_code code)
{
	switch (code) {
	case LTTNG_OK:
		return 0;
	case LTTNG_ERR_NO_SESSIOND:
		return -ECONNREFUSED;
	case LTTNG_ERR_RELAYD_CONNECT_FAIL:
	case LTTNG_ERR_RELAYD_VERSION_FAIL:
		return -EHOSTUNREACH; /* told apart: jankd's live keeper waits for relayd */
	case LTTNG_ERR_EPERM:
	case LTTNG_ERR_NEED_ROOT_SESSIOND:
		return -EPERM;
	case LTTNG_ERR_EXIST_SESS:
		return -EEXIST;
	case LTTNG_ERR_SESS_NOT_FOUND:
	case LTTNG_ERR_SESSION_NOT_EXIST:
	case LTTNG_ERR_NO_SESSION:
		return -ENOENT;
	case LTTNG_ERR_NOMEM:
		return -ENOMEM;
	case LTTNG_ERR_INVALID:
		return -EINVAL;
	case LTTNG_ERR_SNAPSHOT_NODATA:
		return -ENODATA;
	default:
		return -EIO;
	}
}

/* Report a failed lttng-ctl call on `what`; returns -errno. */
int session_lttng_fail(char *err, size_t errlen, enum lttng_error_code code, const char *what)
{
	if (code == LTTNG_ERR_NO_SESSIOND)
		jank_errf(err, errlen, "cannot reach lttng-sessiond: is it running? (%s)",
			  session_code_str(code));
	else
		jank_errf(err, errlen, "%s: %s", what, session_code_str(code));
	return session_code_errno(code);
}

/* A bounded backoff while a rotation is pending. */
struct pending_wait {
	int waited_ms;
	int step_ms;
};

/* Sleep the next step; false once PENDING_LIMIT_MS have passed (nothing slept). */
static bool pending_wait_more(struct pending_wait *w)
{
	struct timespec ts;

	if (w->waited_ms >= PENDING_LIMIT_MS)
		return false;
	w->step_ms = w->step_ms ? w->step_ms * 2 : PENDING_FIRST_MS;
	if (w->step_ms > PENDING_STEP_MS)
		w->step_ms = PENDING_STEP_MS;
	ts.tv_sec = w->step_ms / 1000;
	ts.tv_nsec = (w->step_ms % 1000) * 1000000L;
	ctl_sleep(&ts);
	w->waited_ms += w->step_ms;
	return true;
}

static bool sessiond_unreachable(char *err, size_t errlen)
{
	if (lttng_session_daemon_alive() == 1)
		return false;
	session_lttng_fail(err, errlen, LTTNG_ERR_NO_SESSIOND, "");
	return true;
}

/* A call on session `name`: it has a name, and lttng-sessiond answers. Returns 0 or -errno. */
static int check_name(const char *name, char *err, size_t errlen)
{
	if (!name || !name[0]) {
		jank_errf(err, errlen, "no session name");
		return -EINVAL;
	}
	if (sessiond_unreachable(err, errlen))
		return -ECONNREFUSED;
	return 0;
}

void session_add_note(struct build *b, int flag, const char *fmt, ...)
{
	size_t n = strlen(b->note);
	va_list ap;

	b->flags |= flag;
	if (n && n + 2 < sizeof(b->note)) {
		memcpy(b->note + n, "; ", 3);
		n += 2;
	}
	if (n + 1 >= sizeof(b->note))
		return;
	va_start(ap, fmt);
	vsnprintf(b->note + n, sizeof(b->note) - n, fmt, ap);
	va_end(ap);
}

void session_add_missing(struct build *b, const char *event)
{
	size_t n = strlen(b->missing);

	snprintf(b->missing + n, sizeof(b->missing) - n, "%s%s", n ? ", " : "", event);
}

/* ---- Spec checks ---- */

bool session_is_kernel_event(const char *name)
{
	return !strchr(name, ':');
}

uint64_t session_round_up_pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p < v && p < (UINT64_C(1) << 63))
		p <<= 1;
	return p;
}

/* The checks every create call begins with; *kernel_ok is false until the kernel channel is on. */
static int check_spec(const struct jank_lttng_session_spec *spec, bool *kernel_ok, char *err,
		      size_t errlen)
{
	if (kernel_ok)
		*kernel_ok = false;
	if (!spec || !spec->name || !spec->name[0]) {
		jank_errf(err, errlen, "no session name");
		return -EINVAL;
	}
	if (strlen(spec->name) >= LTTNG_NAME_MAX || strchr(spec->name, '/')) {
		jank_errf(err, errlen, "bad session name '%s' (at most %d characters, no '/')",
			  spec->name, LTTNG_NAME_MAX - 1);
		return -EINVAL;
	}
	for (size_t i = 0; i < spec->n_ust_events; i++) {
		const char *e = spec->ust_events[i];

		if (!e || !e[0] || strlen(e) >= LTTNG_SYMBOL_NAME_LEN) {
			jank_errf(err, errlen, "bad event name '%s'", e ? e : "(null)");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * HOST of a relayd URL net[4|6]://HOST[:CTRL[:DATA]][/PATH], with the
 * scheme to use for the live URL; IPv6 hosts keep their brackets.
 */
static int relayd_host(const char *url, char *scheme, size_t schemelen, char *host, size_t hostlen,
		       char *err, size_t errlen)
{
	static const char *const schemes[] = { "net://", "net4://", "net6://" };
	const char *h = NULL, *end;

	for (size_t i = 0; i < N_ELEMENTS(schemes); i++) {
		size_t n = strlen(schemes[i]);

		if (!strncmp(url, schemes[i], n)) {
			h = url + n;
			snprintf(scheme, schemelen, "%.*s", (int)(n - 3), schemes[i]);
			break;
		}
	}
	if (!h)
		goto bad;
	if (h[0] == '[') {
		end = strchr(h, ']');
		if (!end)
			goto bad;
		end++;
	} else {
		end = h + strcspn(h, ":/");
	}
	if (end == h || (size_t)(end - h) >= hostlen)
		goto bad;
	snprintf(host, hostlen, "%.*s", (int)(end - h), h);
	return 0;
bad:
	jank_errf(err, errlen, "bad relayd URL '%s' (expected net://HOST[:CTRL-PORT[:DATA-PORT]])",
		  url);
	return -EINVAL;
}

/* ---- Sessions ---- */

/* Remove the rotation schedules of `name`, so that no rotation starts from now on. */
static void remove_schedules(const char *name)
{
	struct lttng_rotation_schedules *list = NULL;
	unsigned int n = 0;

	if (lttng_session_list_rotation_schedules(name, &list) != LTTNG_ROTATION_STATUS_OK)
		return;
	if (lttng_rotation_schedules_get_count(list, &n) == LTTNG_ROTATION_STATUS_OK)
		for (unsigned int i = 0; i < n; i++)
			lttng_session_remove_rotation_schedule(
				name, lttng_rotation_schedules_get_at_index(list, i));
	lttng_rotation_schedules_destroy(list);
}

/*
 * Stop `name` and wait until its data, and any rotation in progress, is on
 * disk: lttng_data_pending() says 1 until both are done. Bounded by
 * PENDING_LIMIT_MS; false when that passed with data still pending.
 */
static bool stop_and_settle(const char *name)
{
	struct pending_wait w = { 0 };

	remove_schedules(name);
	lttng_stop_tracing_no_wait(name);
	while (lttng_data_pending(name) == 1)
		if (!pending_wait_more(&w))
			return false;
	return true;
}

/* Whether lttng-sessiond has session `name`: 1, 0, or a negative lttng error code. */
static int listed(const char *name)
{
	struct lttng_session *sessions = NULL;
	int n, found = 0;

	n = lttng_list_sessions(&sessions);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		if (!strcmp(sessions[i].name, name))
			found = 1;
	free(sessions);
	return found;
}

static int destroy_session(const char *name, char *err, size_t errlen)
{
	struct lttng_destruction_handle *handle = NULL;
	enum lttng_destruction_handle_status status;
	enum lttng_error_code code, result;
	char what[LTTNG_NAME_MAX + 32];
	bool settled;

	snprintf(what, sizeof(what), "cannot destroy session '%s'", name);
	/*
	 * A destruction rotates a session that was ever rotated, and that
	 * implicit rotation fails while another one is pending (a scheduled
	 * one, say): the last chunk would stay unfinished. So the schedules
	 * go first, then the session stops and its pending work settles.
	 */
	settled = stop_and_settle(name);
	code = lttng_destroy_session_ext(name, &handle);
	switch (code) {
	case LTTNG_OK:
		break;
	case LTTNG_ERR_SESS_NOT_FOUND:
	case LTTNG_ERR_SESSION_NOT_EXIST:
	case LTTNG_ERR_NO_SESSION:
		jank_errf(err, errlen, "session '%s' did not exist", name);
		return JANK_LTTNG_SESSION_ABSENT;
	default:
		return session_lttng_fail(err, errlen, code, what);
	}
	status = lttng_destruction_handle_wait_for_completion(handle, DESTROY_TIMEOUT_MS);
	if (status == LTTNG_DESTRUCTION_HANDLE_STATUS_TIMEOUT) {
		lttng_destruction_handle_destroy(handle);
		jank_errf(err, errlen, "session '%s': destruction still in progress after %d s",
			  name, DESTROY_TIMEOUT_MS / 1000);
		return -ETIMEDOUT;
	}
	if (status != LTTNG_DESTRUCTION_HANDLE_STATUS_COMPLETED ||
	    lttng_destruction_handle_get_result(handle, &result) !=
		    LTTNG_DESTRUCTION_HANDLE_STATUS_OK) {
		lttng_destruction_handle_destroy(handle);
		jank_errf(err, errlen, "session '%s': lost track of its destruction", name);
		return -EIO;
	}
	lttng_destruction_handle_destroy(handle);
	if (result == LTTNG_ERR_ROTATION_PENDING) {
		/* The session is gone all the same; only its last chunk was not closed. */
		jank_errf(err, errlen,
			  "session '%s' destroyed, but a rotation was still pending%s: its last "
			  "chunk "
			  "may be incomplete",
			  name, settled ? "" : " after " PENDING_LIMIT_TEXT);
		return JANK_LTTNG_SESSION_UNSETTLED;
	}
	if (result == LTTNG_ERR_SESS_NOT_FOUND) {
		jank_errf(err, errlen, "session '%s' did not exist", name);
		return JANK_LTTNG_SESSION_ABSENT;
	}
	if (result != LTTNG_OK) {
		/*
		 * A live session whose relayd restarted: its consumer cannot
		 * rotate or close the last chunk, and says so, but the session
		 * is destroyed all the same. Only one that is still there failed.
		 */
		if (listed(name) != 0)
			return session_lttng_fail(err, errlen, result, what);
		jank_errf(err, errlen,
			  "session '%s' destroyed, but its data could not be closed: %s", name,
			  session_code_str(result));
		return JANK_LTTNG_SESSION_UNSETTLED;
	}
	if (!settled) {
		jank_errf(err, errlen,
			  "session '%s' destroyed, but its data was still pending "
			  "after " PENDING_LIMIT_TEXT ": its last chunk may be incomplete",
			  name);
		return JANK_LTTNG_SESSION_UNSETTLED;
	}
	return 0;
}

/*
 * Create the session from descriptors made by `make`; a session of that
 * name is destroyed first (a leftover of a crash: the name is ours), unless
 * the spec keeps it (-EEXIST).
 */
static int create_session(struct build *b,
			  struct lttng_session_descriptor *(*make)(struct build *b,
								   const void *arg),
			  const void *arg, char *err, size_t errlen)
{
	const char *name = b->spec->name;
	char what[LTTNG_NAME_MAX + 32];
	enum lttng_error_code code;

	snprintf(what, sizeof(what), "cannot create session '%s'", name);
	for (int attempt = 0;; attempt++) {
		struct lttng_session_descriptor *desc = make(b, arg);
		int r;

		if (!desc) {
			jank_errf(err, errlen,
				  "cannot describe session '%s' (bad URL or out of memory)", name);
			return -EINVAL;
		}
		code = lttng_create_session_ext(desc);
		lttng_session_descriptor_destroy(desc);
		if (code != LTTNG_ERR_EXIST_SESS || attempt > 0)
			break;
		if (b->spec->keep_existing) {
			jank_errf(err, errlen, "session '%s' exists: kept as it is", name);
			return -EEXIST;
		}
		r = destroy_session(name, err, errlen);
		if (r < 0)
			return r;
		session_add_note(b, JANK_LTTNG_SESSION_REPLACED,
				 "destroyed a leftover session '%s' (from an earlier run) first",
				 name);
	}
	if (code != LTTNG_OK)
		return session_lttng_fail(err, errlen, code, what);
	return 0;
}

/* After create_session: channels, then start. Destroys the session on failure. */
static int setup_and_start(struct build *b, bool *kernel_ok, char *err, size_t errlen)
{
	const char *name = b->spec->name;
	char what[LTTNG_NAME_MAX + 32];
	char ignored[256];
	int r;

	r = session_setup_ust(b, name, err, errlen);
	if (r < 0)
		goto undo;
	if (b->spec->kernel) {
		r = session_setup_kernel(b, name, err, errlen);
		if (r < 0)
			goto undo;
	}
	r = lttng_start_tracing(name);
	if (r < 0) {
		snprintf(what, sizeof(what), "cannot start session '%s'", name);
		r = session_lttng_fail(err, errlen, session_lttng_code(r), what);
		goto undo;
	}
	if (kernel_ok)
		*kernel_ok = b->kernel_ok;
	if (b->flags)
		jank_errf(err, errlen, "%s", b->note);
	else
		jank_errf(err, errlen, "%s", "");
	return b->flags;
undo:
	destroy_session(name, ignored, sizeof(ignored));
	return r;
}

static struct lttng_session_descriptor *make_live(struct build *b, const void *arg)
{
	const struct jank_lttng_session_spec *spec = b->spec;

	(void)arg;
	return lttng_session_descriptor_live_network_create(
		spec->name, spec->relayd_url ? spec->relayd_url : JANK_LTTNG_SESSION_DEFAULT_RELAYD,
		NULL,
		spec->live_timer_us ? (unsigned long long)spec->live_timer_us
				    : JANK_LTTNG_SESSION_DEFAULT_LIVE_TIMER_US);
}

typedef struct lttng_session_descriptor *(*make_fn)(struct build *b, const void *arg);

static int add_schedules(const char *name, uint64_t period_us, uint64_t size, char *err,
			 size_t errlen);

/*
 * Create the session from `make`, add its rotation schedules (rotating),
 * then set it up and start it. A failure leaves no session behind.
 */
static int build_session(struct build *b, make_fn make, const void *arg, bool *kernel_ok, char *err,
			 size_t errlen)
{
	char ignored[256];
	int r;

	if (sessiond_unreachable(err, errlen))
		return -ECONNREFUSED;
	r = create_session(b, make, arg, err, errlen);
	if (r == 0 && b->kind == KIND_ROTATING) {
		r = add_schedules(b->spec->name, b->period_us, b->rotate_size, err, errlen);
		if (r < 0)
			destroy_session(b->spec->name, ignored, sizeof(ignored));
	}
	if (r < 0)
		return r;
	return setup_and_start(b, kernel_ok, err, errlen);
}

int jank_lttng_session_create_live(const struct jank_lttng_session_spec *spec, char *url,
				   size_t urllen, bool *kernel_ok, char *err, size_t errlen)
{
	struct build b = { .spec = spec, .kind = KIND_LIVE };
	char scheme[8], host[256], hostname[HOST_NAME_MAX + 1];
	const char *relayd;
	unsigned port;
	int r;
	CTL_ENTER(guard);

	r = check_spec(spec, kernel_ok, err, errlen);
	if (r < 0)
		return r;
	if (spec->live_timer_us < 0 || spec->live_timer_us > UINT_MAX) {
		jank_errf(err, errlen, "bad live timer %lld us", (long long)spec->live_timer_us);
		return -EINVAL;
	}
	if (spec->tracefile_count && !spec->tracefile_size) {
		jank_errf(err, errlen, "a tracefile count needs a tracefile size");
		return -EINVAL;
	}
	relayd = spec->relayd_url ? spec->relayd_url : JANK_LTTNG_SESSION_DEFAULT_RELAYD;
	r = relayd_host(relayd, scheme, sizeof(scheme), host, sizeof(host), err, errlen);
	if (r < 0)
		return r;
	port = spec->relayd_live_port ? spec->relayd_live_port
				      : JANK_LTTNG_SESSION_DEFAULT_LIVE_PORT;
	if (port > 65535) {
		jank_errf(err, errlen, "bad relayd live port %u", port);
		return -EINVAL;
	}
	if (gethostname(hostname, sizeof(hostname)) < 0) {
		r = -errno;
		jank_errf(err, errlen, "gethostname: %s", strerror(errno));
		return r;
	}
	hostname[sizeof(hostname) - 1] = '\0';
	if ((size_t)snprintf(url, urllen, "%s://%s:%u/host/%s/%s", scheme, host, port, hostname,
			     spec->name) >= urllen) {
		jank_errf(err, errlen, "the live URL of session '%s' does not fit in %zu bytes",
			  spec->name, urllen);
		return -ENAMETOOLONG;
	}
	return build_session(&b, make_live, NULL, kernel_ok, err, errlen);
}

static struct lttng_session_descriptor *make_snapshot(struct build *b, const void *arg)
{
	const char *dir = arg;

	if (dir)
		return lttng_session_descriptor_snapshot_local_create(b->spec->name, dir);
	return lttng_session_descriptor_snapshot_create(b->spec->name);
}

int jank_lttng_session_create_snapshot(const struct jank_lttng_session_spec *spec,
				       const char *output_dir, bool *kernel_ok, char *err,
				       size_t errlen)
{
	struct build b = { .spec = spec, .kind = KIND_SNAPSHOT };
	int r;
	CTL_ENTER(guard);

	r = check_spec(spec, kernel_ok, err, errlen);
	if (r < 0)
		return r;
	if (output_dir && output_dir[0] != '/') {
		jank_errf(err, errlen, "bad snapshot output '%s' (expected an absolute path)",
			  output_dir);
		return -EINVAL;
	}
	return build_session(&b, make_snapshot, output_dir, kernel_ok, err, errlen);
}

static struct lttng_session_descriptor *make_local(struct build *b, const void *arg)
{
	return lttng_session_descriptor_local_create(b->spec->name, arg);
}

/* Add the rotation schedules of a rotating session. */
static int add_schedules(const char *name, uint64_t period_us, uint64_t size, char *err,
			 size_t errlen)
{
	for (int i = 0; i < 2; i++) {
		uint64_t v = i == 0 ? period_us : size;
		struct lttng_rotation_schedule *s;
		enum lttng_rotation_status st;

		if (!v)
			continue;
		s = i == 0 ? lttng_rotation_schedule_periodic_create()
			   : lttng_rotation_schedule_size_threshold_create();
		if (!s)
			return session_lttng_fail(err, errlen, LTTNG_ERR_NOMEM, name);
		st = i == 0 ? lttng_rotation_schedule_periodic_set_period(s, v)
			    : lttng_rotation_schedule_size_threshold_set_threshold(s, v);
		if (st == LTTNG_ROTATION_STATUS_OK)
			st = lttng_session_add_rotation_schedule(name, s);
		lttng_rotation_schedule_destroy(s);
		if (st != LTTNG_ROTATION_STATUS_OK) {
			jank_errf(err, errlen,
				  "session '%s': cannot add a %s rotation schedule (status %d)",
				  name, i == 0 ? "periodic" : "size", (int)st);
			return -EINVAL;
		}
	}
	return 0;
}

int jank_lttng_session_create_rotating(const struct jank_lttng_session_spec *spec,
				       const char *output_dir, uint64_t period_us, uint64_t size,
				       bool *kernel_ok, char *err, size_t errlen)
{
	struct build b = {
		.spec = spec, .kind = KIND_ROTATING, .period_us = period_us, .rotate_size = size
	};
	int r;
	CTL_ENTER(guard);

	r = check_spec(spec, kernel_ok, err, errlen);
	if (r < 0)
		return r;
	if (!output_dir || output_dir[0] != '/') {
		jank_errf(err, errlen,
			  "bad rotating session output '%s' (expected an absolute path)",
			  output_dir ? output_dir : "(null)");
		return -EINVAL;
	}
	return build_session(&b, make_local, output_dir, kernel_ok, err, errlen);
}

int jank_lttng_session_rotate(const char *name, bool (*covered)(void *arg), void *arg,
			      char *archive, size_t archivelen, char *err, size_t errlen)
{
	const struct lttng_trace_archive_location *loc = NULL;
	struct lttng_rotation_handle *h = NULL;
	enum lttng_rotation_state state = LTTNG_ROTATION_STATE_ONGOING;
	struct pending_wait pending = { 0 };
	char what[LTTNG_NAME_MAX + 64];
	const char *path = NULL;
	int r;
	CTL_ENTER(guard);

	r = check_name(name, err, errlen);
	if (r < 0)
		return r;
	/* A rotation of the session's own schedule may be in progress: wait for it. */
	while ((r = lttng_rotate_session(name, NULL, &h)) == -LTTNG_ERR_ROTATION_PENDING) {
		if (covered && covered(arg)) {
			if (archive && archivelen)
				archive[0] = '\0';
			jank_errf(err, errlen,
				  "session '%s': waited %d ms, until a rotation that started "
				  "meanwhile "
				  "archived the chunk",
				  name, pending.waited_ms);
			return JANK_LTTNG_SESSION_WAITED | JANK_LTTNG_SESSION_COVERED;
		}
		if (!pending_wait_more(&pending)) {
			jank_errf(err, errlen,
				  "session '%s': a rotation was still pending "
				  "after " PENDING_LIMIT_TEXT ", so none could start",
				  name);
			return -EBUSY;
		}
	}
	if (r < 0) {
		snprintf(what, sizeof(what), "cannot rotate session '%s'", name);
		return session_lttng_fail(err, errlen, session_lttng_code(r), what);
	}
	for (int waited = 0; waited < ROTATE_TIMEOUT_MS; waited += ROTATE_POLL_MS) {
		const struct timespec ts = { 0, ROTATE_POLL_MS * 1000000L };

		if (lttng_rotation_handle_get_state(h, &state) != LTTNG_ROTATION_STATUS_OK)
			state = LTTNG_ROTATION_STATE_ERROR;
		if (state != LTTNG_ROTATION_STATE_ONGOING)
			break;
		ctl_sleep(&ts);
	}
	if (state == LTTNG_ROTATION_STATE_COMPLETED &&
	    lttng_rotation_handle_get_archive_location(h, &loc) == LTTNG_ROTATION_STATUS_OK &&
	    loc &&
	    lttng_trace_archive_location_get_type(loc) == LTTNG_TRACE_ARCHIVE_LOCATION_TYPE_LOCAL &&
	    lttng_trace_archive_location_local_get_absolute_path(loc, &path) ==
		    LTTNG_TRACE_ARCHIVE_LOCATION_STATUS_OK &&
	    path)
		snprintf(archive, archivelen, "%s", path);
	else if (archive && archivelen)
		archive[0] = '\0';
	lttng_rotation_handle_destroy(h);
	switch (state) {
	case LTTNG_ROTATION_STATE_EXPIRED:
		/*
		 * A later rotation (the schedule's, say) is being archived or
		 * was: rotations never overlap, so this one has ended. Only its
		 * archive's location is no longer known.
		 */
	case LTTNG_ROTATION_STATE_COMPLETED:
		if (!pending.waited_ms) {
			jank_errf(err, errlen, "%s", "");
			return 0;
		}
		jank_errf(err, errlen,
			  "session '%s': waited %d ms for a rotation already in progress", name,
			  pending.waited_ms);
		return JANK_LTTNG_SESSION_WAITED;
	case LTTNG_ROTATION_STATE_ONGOING:
		jank_errf(err, errlen, "session '%s': the rotation did not end within %d s", name,
			  ROTATE_TIMEOUT_MS / 1000);
		return -ETIMEDOUT;
	default:
		jank_errf(err, errlen, "session '%s': the rotation failed", name);
		return -EIO;
	}
}

int jank_lttng_session_snapshot_record(const char *name, const char *output_path, char *err,
				       size_t errlen)
{
	struct lttng_snapshot_output *out = NULL;
	char what[LTTNG_NAME_MAX + 64];
	int r;
	CTL_ENTER(guard);

	if (output_path && output_path[0] != '/') {
		jank_errf(err, errlen, "bad snapshot output '%s' (expected an absolute path)",
			  output_path);
		return -EINVAL;
	}
	r = check_name(name, err, errlen);
	if (r < 0)
		return r;
	if (output_path) {
		out = lttng_snapshot_output_create();
		if (!out)
			return session_lttng_fail(err, errlen, LTTNG_ERR_NOMEM, name);
		r = lttng_snapshot_output_set_local_path(output_path, out);
		if (r < 0) {
			lttng_snapshot_output_destroy(out);
			jank_errf(err, errlen, "bad snapshot output '%s'", output_path);
			return -EINVAL;
		}
	}
	r = lttng_snapshot_record(name, out, 0);
	if (out)
		lttng_snapshot_output_destroy(out);
	if (r < 0) {
		snprintf(what, sizeof(what), "cannot record a snapshot of session '%s'", name);
		return session_lttng_fail(err, errlen, session_lttng_code(r), what);
	}
	jank_errf(err, errlen, "%s", "");
	return 0;
}

int jank_lttng_session_destroy(const char *name, char *err, size_t errlen)
{
	int r;
	CTL_ENTER(guard);

	r = check_name(name, err, errlen);
	if (r < 0)
		return r;
	jank_errf(err, errlen, "%s", "");
	return destroy_session(name, err, errlen);
}

int jank_lttng_session_exists(const char *name, char *err, size_t errlen)
{
	int r;
	CTL_ENTER(guard);

	if (!name || !name[0]) {
		jank_errf(err, errlen, "no session name");
		return -EINVAL;
	}
	r = listed(name);
	if (r < 0)
		return session_lttng_fail(err, errlen, session_lttng_code(r),
					  "cannot list sessions");
	return r;
}

int jank_lttng_sessiond_answers(void)
{
	CTL_ENTER(guard);

	return lttng_session_daemon_alive() == 1;
}
