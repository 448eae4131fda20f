/* SPDX-License-Identifier: MIT */
/*
 * One worker process, seen from the supervisor (see worker-proc.h); how
 * its process is started, killed and reaped is worker-launch.h's. A worker
 * is gone when both its end of the socket is drained and its process
 * reaped, in either order: a verdict sent just before an abort is still
 * read.
 */
#define _GNU_SOURCE /* strsignal */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <event2/bufferevent.h>
#include "clock.h"
#include "log.h"
#include "units.h"
#include "binary-opener.h"
#include "relayd-broker.h"
#include "worker-launch.h"
#include "worker-proc-int.h"
#include "worker-proto.h"
#include "worker-sandbox.h"
#include "worker.h"

/* [daemon] worker-user and workers-as-root, for every worker of this process. */
static char worker_user[64] = "jank-worker";
static bool workers_as_root;
static unsigned warned_root; /* once per jankd */

void worker_proc_start_later(struct jank_proc *p)
{
	struct timeval tv = jank_clock_timeval(p->backoff_ns);

	event_add(p->ev_restart, &tv);
	p->backoff_ns *= 2;
	if (p->backoff_ns > RESTART_MAX_NS)
		p->backoff_ns = RESTART_MAX_NS;
}

static void on_restart(evutil_socket_t fd, short what, void *data)
{
	struct jank_proc *p = data;

	(void)fd;
	(void)what;
	if (!p->ending && !p->pid) {
		p->episode_restarts++;
		jank_worker_proc_start(p);
	}
}

struct jank_proc *jank_worker_proc_new(struct event_base *base, const char *name,
				       int64_t timeout_ns, const struct jank_worker_proc_ops *ops,
				       void *data)
{
	struct jank_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->base = base;
	p->name = strdup(name);
	p->timeout_ns = timeout_ns;
	p->ops = ops;
	p->data = data;
	p->last_status = -1;
	p->backoff_ns = RESTART_MIN_NS;
	p->ev_restart = evtimer_new(base, on_restart, p);
	if (!p->name || !p->ev_restart) {
		jank_worker_proc_free(p);
		return NULL;
	}
	return p;
}

void jank_worker_proc_free(struct jank_proc *p)
{
	if (!p)
		return;
	jank_worker_launch_free(p->launch);
	jank_binary_opener_conn_free(p->opener);
	jank_relayd_conn_free(p->relayd);
	free(p->relayd_url);
	if (p->bev)
		bufferevent_free(p->bev);
	jank_worker_proto_reader_fini(&p->reader);
	if (p->ev_restart)
		event_free(p->ev_restart);
	free(p->name);
	free(p);
}

/* ---- Ending ---- */

const char *worker_proc_status_text(int st, char *buf, size_t len)
{
	if (st == JANK_LAUNCH_LOST)
		snprintf(buf, len, "was lost with the connection to the worker spawner (%s)",
			 jank_worker_launch_spawner());
	else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
		snprintf(buf, len,
			 "was killed by its seccomp filter (signal %d, %s): it made a system call "
			 "outside the worker's allowlist (see jankd(8), Security)",
			 SIGSYS, strsignal(SIGSYS));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "died of signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (WIFEXITED(st) && WEXITSTATUS(st) == JANK_WORKER_EXIT_MEMORY)
		snprintf(buf, len,
			 "ran out of memory: an allocation past its limit failed "
			 "(JANK_WORKER_MEMORY_MAX; exit status %d)",
			 JANK_WORKER_EXIT_MEMORY);
	else if (WIFEXITED(st) && WEXITSTATUS(st) == JANK_WORKER_EXIT_SANDBOX)
		snprintf(buf, len, "could not drop its privileges (exit status %d)",
			 JANK_WORKER_EXIT_SANDBOX);
	else if (WIFEXITED(st))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else
		snprintf(buf, len, "ended (wait status %d)", st);
	return buf;
}

/* Log the first failure of an episode; the next ones are counted only. */
static void failed(struct jank_proc *p, const char *what)
{
	char next[32];

	if (!p->failing) {
		jank_log(LOG_WARNING,
			 "%s: worker %s; restarting it in %s (further failures are counted, not "
			 "logged, until it works again)",
			 p->name, what, jank_units_duration(p->backoff_ns, next, sizeof(next)));
		p->failing_since = jank_clock_realtime_ns();
	}
	/* What status shows while it fails: the last failure, since the first. */
	snprintf(p->error, sizeof(p->error), "worker %s", what);
	p->failing = true;
}

/* Both the socket drained and the process reaped: the worker is gone. */
void worker_proc_maybe_gone(struct jank_proc *p)
{
	char what[256];

	if (!p->launch || !p->eof || !p->reaped)
		return;
	jank_worker_launch_free(p->launch);
	p->launch = NULL;
	jank_binary_opener_conn_free(p->opener);
	p->opener = NULL;
	jank_relayd_conn_free(p->relayd);
	p->relayd = NULL;
	p->pid = 0;
	if (p->ending) {
		p->done = true;
		p->ops->gone(p, p->data);
		return;
	}
	if (!p->silenced && !p->refused) {
		p->crashes++;
		failed(p, worker_proc_status_text(p->last_status, what, sizeof(what)));
	}
	worker_proc_start_later(p);
}

void jank_worker_proc_refuse(struct jank_proc *p, const char *what)
{
	char next[32];

	if (!p->pid || p->reaped || p->silenced || p->refused || p->ending)
		return;
	p->refused = true;
	p->bad_frames++;
	if (p->bev)
		bufferevent_disable(p->bev, EV_READ);
	jank_worker_launch_kill(p->launch);
	/* Each one is said: a worker that sends them again waits longer each time. */
	jank_log(
		LOG_ERR,
		"%s: worker pid %ld sent %s: killed, restarting it in %s (%llu bad frame%s so far)",
		p->name, (long)p->pid, what, jank_units_duration(p->backoff_ns, next, sizeof(next)),
		(unsigned long long)p->bad_frames, p->bad_frames == 1 ? "" : "s");
	p->failing = true;
}

static void on_message(struct jank_proc *p)
{
	struct json_object *msg;
	int r = 0;

	p->heard_mono = jank_clock_monotonic_ns();
	while (!p->refused &&
	       (r = jank_worker_proto_read(&p->reader, bufferevent_get_input(p->bev), &msg)) > 0) {
		p->ops->message(p, msg, p->data);
		json_object_put(msg);
	}
	if (r < 0)
		jank_worker_proc_refuse(
			p, r == -EMSGSIZE ? "a frame longer than " JANK_PROTO_MAX_FRAME_TEXT
					  : "a frame that is not one JSON object");
}

static void on_read(struct bufferevent *bev, void *data)
{
	(void)bev;
	on_message(data);
}

/* The worker's end closed: it exited, died, or is about to. */
static void on_event(struct bufferevent *bev, short what, void *data)
{
	struct jank_proc *p = data;

	(void)bev;
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	on_message(p);
	bufferevent_free(p->bev);
	p->bev = NULL;
	p->eof = true;
	if (!p->reaped)
		jank_worker_launch_kill(p->launch); /* without its socket it is of no use */
	worker_proc_maybe_gone(p);
}

/* The process ended (worker-launch.h). */
void worker_proc_on_ended(struct jank_launch *l, int status, void *data)
{
	struct jank_proc *p = data;

	(void)l;
	p->reaped = true;
	p->last_status = status;
	worker_proc_maybe_gone(p);
}

void jank_worker_proc_reap(struct jank_proc *p)
{
	if (p->launch && !p->reaped)
		jank_worker_launch_reap(p->launch);
}

/* ---- Starting ---- */

void jank_worker_proc_set_user(const char *user, bool as_root)
{
	snprintf(worker_user, sizeof(worker_user), "%s", user);
	workers_as_root = as_root;
}

/*
 * [daemon] worker-user, resolved here (the worker needs no NSS): at every
 * start, so that a user created meanwhile is taken. A jankd that is not
 * root keeps its own user for its workers: it could not change it. The
 * spawner's workers keep the spawner's user.
 */
static int resolve_user(struct jank_worker_user *u, char *what, size_t len)
{
	struct passwd *pw;

	memset(u, 0, sizeof(*u));
	if (geteuid() != 0 || jank_worker_launch_spawner()) {
		u->same = true;
		return 0;
	}
	errno = 0;
	pw = getpwnam(worker_user);
	if (!pw) {
		snprintf(what, len, "cannot start: no user '%s' ([daemon] worker-user)%s%s",
			 worker_user, errno ? ": " : "", errno ? strerror(errno) : "");
		return -ENOENT;
	}
	if (pw->pw_uid == 0 && !workers_as_root) {
		snprintf(what, len,
			 "cannot start: [daemon] worker-user '%s' is root, and workers-as-root is "
			 "not set",
			 worker_user);
		return -EPERM;
	}
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	return 0;
}

/* A socketpair whose worker end is not JANK_WORKER_FD already (dup2 would keep its CLOEXEC). */
static int make_pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if (sv[1] == JANK_WORKER_FD) {
		int fd = fcntl(sv[1], F_DUPFD_CLOEXEC, JANK_WORKER_FD + 1);

		close(sv[1]);
		sv[1] = fd;
		if (fd < 0) {
			close(sv[0]);
			return -errno;
		}
	}
	return 0;
}

static bool open_binaries = true;
static char opener_socket[108]; /* sun_path */

void jank_worker_proc_set_open_binaries(bool on)
{
	open_binaries = on;
}

int jank_worker_proc_set_opener_socket(const char *path)
{
	if (!path)
		path = "";
	if (strlen(path) >= sizeof(opener_socket))
		return -ENAMETOOLONG;
	snprintf(opener_socket, sizeof(opener_socket), "%s", path);
	return 0;
}

/*
 * Under the spawner: a connection of the worker's own to the opener's
 * service (binary-opener-service.c), or -1 (none: said once per episode).
 */
static int connect_opener(void)
{
	static bool failing;
	int fd;

	if (!opener_socket[0])
		return -1;
	fd = jank_binary_opener_service_connect(opener_socket);
	if (fd < 0 && !failing)
		jank_log(LOG_WARNING,
			 "cannot reach the binary opener at %s: %s (is jankd-opener.socket "
			 "active?): the workers name only the binaries they can open themselves",
			 opener_socket, strerror(-fd));
	else if (fd >= 0 && failing)
		jank_log(LOG_INFO, "the binary opener at %s answers again", opener_socket);
	failing = fd < 0;
	return fd < 0 ? -1 : fd;
}

void jank_worker_proc_want_opener(struct jank_proc *p, bool want)
{
	p->opener_wanted = want;
}

/*
 * The binary opener's channel for the worker about to start: its end in
 * *worker_fd (-1: none). Served here when this process started as root and
 * starts its workers itself (asked once whether it can); under the spawner
 * (jankd has no capability), a connection to the opener's own service when
 * --binary-opener names its socket.
 */
static void make_opener(struct jank_proc *p, int *worker_fd)
{
	static int available = -1;
	int sv[2];

	*worker_fd = -1;
	if (!open_binaries || !p->opener_wanted)
		return;
	if (jank_worker_launch_spawner()) {
		*worker_fd = connect_opener();
		return;
	}
	if (available < 0)
		available = jank_binary_opener_available();
	if (!available || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	p->opener = jank_binary_opener_conn_new(p->base, sv[0], p->name);
	if (!p->opener) {
		close(sv[1]);
		return;
	}
	*worker_fd = sv[1];
}

int jank_worker_proc_set_relayd(struct jank_proc *p, const char *url)
{
	char host[256];
	unsigned port;
	char *copy;

	if (jank_relayd_url_addr(url, host, sizeof(host), &port) < 0)
		return -EINVAL;
	copy = strdup(url);
	if (!copy)
		return -ENOMEM;
	free(p->relayd_url);
	p->relayd_url = copy;
	return 0;
}

/*
 * The relayd broker's channel for the worker about to start: its end in
 * *worker_fd (-1: none, and the worker reaches no relayd). Either way of
 * starting it: through the spawner, the channel goes with the request.
 */
static int make_relayd(struct jank_proc *p, int *worker_fd)
{
	int sv[2];

	*worker_fd = -1;
	if (!p->relayd_url)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	p->relayd = jank_relayd_conn_new(p->base, sv[0], p->name, p->relayd_url);
	if (!p->relayd) {
		close(sv[1]);
		return -ENOMEM;
	}
	*worker_fd = sv[1];
	return 0;
}

/* No worker could be made: counted as a crash, and tried again later. */
static int start_failed(struct jank_proc *p, int r, const char *why)
{
	char what[256];

	if (why)
		snprintf(what, sizeof(what), "%s", why);
	else
		snprintf(what, sizeof(what), "cannot start: %s", strerror(-r));
	p->crashes++;
	failed(p, what);
	worker_proc_start_later(p);
	return r;
}

int jank_worker_proc_start(struct jank_proc *p)
{
	struct jank_worker_user u;
	char why[256];
	int sv[2], opener_fd, relayd_fd, r;

	r = resolve_user(&u, why, sizeof(why));
	if (r < 0)
		return start_failed(p, r, why);
	if (!u.same && u.uid == 0 && !warned_root++)
		jank_log(LOG_WARNING,
			 "workers run as root ([daemon] workers-as-root = yes): a bug in a parser "
			 "of what a remote host sends is root on this host");
	r = make_pair(sv);
	if (r < 0)
		return start_failed(p, r, NULL);
	r = make_relayd(p, &relayd_fd);
	if (r < 0) {
		close(sv[0]);
		close(sv[1]);
		return start_failed(p, r, NULL);
	}
	p->reaped = false;
	make_opener(p, &opener_fd);
	p->launch = jank_worker_launch_start(p->base, sv[1], opener_fd, relayd_fd, p->name, &u,
					     worker_proc_on_ended, p, &r, why, sizeof(why));
	close(sv[1]);
	if (opener_fd >= 0)
		close(opener_fd);
	if (relayd_fd >= 0)
		close(relayd_fd);
	if (!p->launch) {
		jank_binary_opener_conn_free(p->opener);
		p->opener = NULL;
		jank_relayd_conn_free(p->relayd);
		p->relayd = NULL;
		close(sv[0]);
		return start_failed(p, r, why);
	}
	p->pid = jank_worker_launch_pid(p->launch);
	p->eof = p->silenced = p->refused = false;
	p->heard_mono = jank_clock_monotonic_ns();
	p->starts++;
	if (evutil_make_socket_nonblocking(sv[0]) < 0 ||
	    !(p->bev = bufferevent_socket_new(p->base, sv[0], BEV_OPT_CLOSE_ON_FREE))) {
		/* Reaped as a crash, and started again. */
		close(sv[0]);
		p->eof = true;
		jank_worker_launch_kill(p->launch);
		return -ENOMEM;
	}
	bufferevent_setcb(p->bev, on_read, NULL, on_event, p);
	/*
	 * The worker is not trusted: at most one whole frame is buffered, and
	 * on_read() takes every whole one, so reading never stops on a frame.
	 */
	bufferevent_setwatermark(p->bev, EV_READ, 0, JANK_PROTO_HEAD + JANK_PROTO_MAX_FRAME);
	bufferevent_enable(p->bev, EV_READ);
	jank_worker_proc_send(p, p->ops->start_msg(p, p->data));
	return 0;
}

void jank_worker_proc_send(struct jank_proc *p, struct json_object *msg)
{
	int r = msg && p->bev && !p->eof
			? jank_worker_proto_put(bufferevent_get_output(p->bev), msg)
			: 0;

	if (r == -EMSGSIZE)
		jank_log(
			LOG_ERR,
			"%s: a message to the worker (%s) is longer than " JANK_PROTO_MAX_FRAME_TEXT
			" (a configuration that large?): not sent",
			p->name, jank_worker_proto_type(msg));
	else if (r < 0)
		jank_log(LOG_ERR, "%s: out of memory: a message to the worker is lost", p->name);
	json_object_put(msg);
}

/* ---- Watching ---- */

void jank_worker_proc_check(struct jank_proc *p, int64_t now)
{
	char d[32], what[160];

	if (!p->pid || p->reaped || p->silenced || p->refused ||
	    now - p->heard_mono <= p->timeout_ns)
		return;
	p->silenced = true;
	jank_worker_launch_kill(p->launch);
	if (p->ending)
		return;
	p->timeouts++;
	snprintf(what, sizeof(what), "pid %ld silent for %s (blocked on relayd?): killed",
		 (long)p->pid, jank_units_duration(now - p->heard_mono, d, sizeof(d)));
	failed(p, what);
}

void jank_worker_proc_recovered(struct jank_proc *p, const char *how)
{
	if (p->failing)
		jank_log(LOG_NOTICE, "%s: worker pid %ld %s, after %llu restart%s", p->name,
			 (long)p->pid, how, (unsigned long long)p->episode_restarts,
			 p->episode_restarts == 1 ? "" : "s");
	p->failing = false;
	p->error[0] = '\0';
	p->failing_since = 0;
	p->episode_restarts = 0;
	p->backoff_ns = RESTART_MIN_NS;
}

void jank_worker_proc_set_timeout(struct jank_proc *p, int64_t timeout_ns)
{
	p->timeout_ns = timeout_ns;
}

/* ---- Ending on purpose ---- */

static void end(struct jank_proc *p, bool kill_it)
{
	p->ending = true;
	event_del(p->ev_restart);
	if (!p->pid) {
		p->done = true;
		return;
	}
	if (kill_it && !p->reaped)
		jank_worker_launch_kill(p->launch);
	else
		jank_worker_proc_send(p, jank_worker_proto_new("stop"));
}

void jank_worker_proc_stop(struct jank_proc *p)
{
	end(p, false);
}

void jank_worker_proc_retire(struct jank_proc *p)
{
	end(p, true);
}

bool jank_worker_proc_done(const struct jank_proc *p)
{
	return p->done;
}

bool jank_worker_proc_running(const struct jank_proc *p)
{
	return p->pid != 0;
}

const char *jank_worker_proc_name(const struct jank_proc *p)
{
	return p->name;
}

void jank_worker_proc_get_stats(const struct jank_proc *p, struct jank_worker_proc_stats *out)
{
	out->pid = p->pid;
	out->starts = p->starts;
	out->crashes = p->crashes;
	out->timeouts = p->timeouts;
	out->bad_frames = p->bad_frames;
	out->silent_ns = p->pid ? jank_clock_monotonic_ns() - p->heard_mono : 0;
	out->failing = p->failing;
	out->last_status = p->last_status;
	snprintf(out->error, sizeof(out->error), "%s", p->failing ? p->error : "");
	out->failing_since = p->failing ? p->failing_since : 0;
}
