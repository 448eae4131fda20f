/* SPDX-License-Identifier: MIT */
/*
 * The worker spawner (see worker-spawner.h): a libevent loop over the
 * listening socket, one connection per worker, and SIGCHLD.
 */
#define _GNU_SOURCE /* struct ucred */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>
#include "log.h"
#include "textsafe.h"
#include "worker-launch.h"
#include "worker-spawner.h"

/* One connection of jankd's, and the worker it asked for. */
struct conn {
	struct spawner *s;
	int fd;
	struct event *ev;
	pid_t pid;   /* 0: none (yet, or reaped) */
	bool closed; /* jankd's end is gone: the worker is killed, its conn freed when reaped */
	struct conn *next;
};

struct spawner {
	struct event_base *base;
	int listen_fd;
	uid_t uid;	       /* its own, its workers' */
	unsigned long max;     /* workers running at once, at most */
	unsigned long running; /* workers started and not reaped yet */
	struct conn *conns;
	unsigned long started, refused, over;
};

static void conn_free(struct conn *c)
{
	struct conn **pp;

	for (pp = &c->s->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (c->ev)
		event_free(c->ev);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

static void conn_reply(struct conn *c, uint32_t type, int32_t value)
{
	struct jank_spawn_msg m = { .type = type, .value = value };

	if (!c->closed)
		send(c->fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* jankd's end is gone, or said what it should not: the worker dies. */
static void conn_close(struct conn *c)
{
	if (c->closed)
		return;
	c->closed = true;
	event_del(c->ev);
	if (c->pid > 0)
		kill(c->pid, SIGKILL); /* freed once reaped */
	else
		conn_free(c);
}

/*
 * The request: one packet of its exact size, one or two descriptors (both
 * sockets: the worker's end, then its binary opener's channel), a name
 * that ends within it. Returns the first descriptor, the second in
 * *opener_fd (-1: none), -EAGAIN when nothing came yet, or -1.
 */
static int take_request(struct conn *c, char *name, size_t len, int *opener_fd)
{
	struct jank_spawn_request req;
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &req, .iov_len = sizeof(req) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	int fds[2] = { -1, -1 }, nfds = 0;
	struct stat st;
	ssize_t n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	*opener_fd = -1;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -EAGAIN;

	for (cm = CMSG_FIRSTHDR(&mh); n >= 0 && cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k = cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
					   cm->cmsg_len >= CMSG_LEN(0)
				   ? (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int)
				   : 0;

		for (size_t i = 0; i < k; i++) {
			int got;

			memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (nfds < 2)
				fds[nfds] = got;
			else
				close(got);
			nfds++;
		}
	}
	if (n != (ssize_t)sizeof(req) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || nfds < 1 ||
	    nfds > 2 || req.magic != JANK_SPAWN_MAGIC || req.version != JANK_SPAWN_VERSION ||
	    !memchr(req.name, '\0', sizeof(req.name)) || fstat(fds[0], &st) < 0 ||
	    !S_ISSOCK(st.st_mode) ||
	    (fds[1] >= 0 && (fstat(fds[1], &st) < 0 || !S_ISSOCK(st.st_mode)))) {
		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		return -1;
	}
	snprintf(name, len, "%s", req.name);
	*opener_fd = fds[1];
	return fds[0];
}

static void on_request(evutil_socket_t fd, short what, void *data);

/* Its first packet: the request; then only KILL (or the end). */
static void on_conn(evutil_socket_t fd, short what, void *data)
{
	struct conn *c = data;
	struct jank_spawn_msg m;
	ssize_t n;

	(void)what;
	n = recv(fd, &m, sizeof(m), MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == (ssize_t)sizeof(m) && m.type == JANK_SPAWN_KILL) {
		if (c->pid > 0)
			kill(c->pid, SIGKILL);
		return;
	}
	conn_close(c);
}

static void on_request(evutil_socket_t fd, short what, void *data)
{
	struct conn *c = data;
	char name[JANK_SPAWN_NAME];
	int wfd, ofd, err;
	pid_t pid;

	(void)fd;
	(void)what;
	wfd = take_request(c, name, sizeof(name), &ofd);
	if (wfd == -EAGAIN) {
		event_add(c->ev, NULL);
		return;
	}
	if (wfd < 0) {
		jank_log(LOG_WARNING,
			 "worker spawner: a request that is not one: connection closed");
		conn_close(c);
		return;
	}
	/* Every worker is a process of the unit's: a cap, whoever asks. */
	if (c->s->running >= c->s->max) {
		close(wfd);
		if (ofd >= 0)
			close(ofd);
		if (!c->s->over++ || c->s->over % 1000 == 0)
			jank_log(LOG_WARNING,
				 "worker spawner: %lu workers run already, the most it starts "
				 "(--max-workers): a request refused (%lu so far)",
				 c->s->running, c->s->over);
		conn_reply(c, JANK_SPAWN_FAILED, EAGAIN);
		conn_close(c);
		return;
	}
	/* "-": the worker keeps this process's user (worker-sandbox.h). */
	pid = jank_worker_launch_spawn_fds(wfd, ofd, name, "-", &err);
	close(wfd);
	if (ofd >= 0)
		close(ofd);
	if (!pid) {
		char shown[JANK_TEXT_BUF];

		/* The name is an input's URL, which may hold a remote host's names. */
		jank_log(LOG_ERR, "worker spawner: cannot start a worker for %s: %s",
			 jank_text(shown, sizeof(shown), name), strerror(err));
		conn_reply(c, JANK_SPAWN_FAILED, err);
		conn_close(c);
		return;
	}
	c->pid = pid;
	c->s->started++;
	c->s->running++;
	conn_reply(c, JANK_SPAWN_STARTED, pid);
	event_del(c->ev);
	event_assign(c->ev, c->s->base, c->fd, EV_READ | EV_PERSIST, on_conn, c);
	event_add(c->ev, NULL);
}

/*
 * Root, the user jankd runs as (jankd.service), and nobody else: not the
 * spawner's own user, which is its workers' too (a worker must not get
 * more workers).
 */
static bool peer_allowed(int fd, struct ucred *cr)
{
	socklen_t len = sizeof(*cr);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cr, &len) == 0 && len == sizeof(*cr) &&
	       cr->uid == JANK_SPAWNER_PEER_UID;
}

static void on_accept(evutil_socket_t lfd, short what, void *data)
{
	struct spawner *s = data;
	struct ucred cr = { 0 };
	struct conn *c;
	int fd;

	(void)what;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	if (!peer_allowed(fd, &cr)) {
		if (s->refused++ < 10 || s->refused % 1000 == 0) /* the first ones, then a few */
			jank_log(LOG_WARNING,
				 "worker spawner: refused a connection from pid %ld, uid %ld: only "
				 "jankd's user (uid %d) may ask for workers (%lu refused so far)",
				 (long)cr.pid, (long)cr.uid, JANK_SPAWNER_PEER_UID, s->refused);
		close(fd);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->ev = event_new(s->base, fd, EV_READ, on_request, c))) {
		free(c);
		close(fd);
		return;
	}
	c->s = s;
	c->fd = fd;
	c->next = s->conns;
	s->conns = c;
	event_add(c->ev, NULL);
}

/* Every worker that ended: its status to jankd, and its connection closed. */
static void on_child(evutil_socket_t sig, short what, void *data)
{
	struct spawner *s = data;
	pid_t pid;
	int st;

	(void)sig;
	(void)what;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		s->running -= s->running > 0;
		for (struct conn *c = s->conns; c; c = c->next) {
			if (c->pid != pid)
				continue;
			c->pid = 0;
			conn_reply(c, JANK_SPAWN_EXITED, st);
			conn_free(c);
			break;
		}
	}
}

static void on_term(evutil_socket_t sig, short what, void *data)
{
	struct spawner *s = data;

	(void)sig;
	(void)what;
	event_base_loopbreak(s->base);
}

/* The listening socket from systemd: exactly one, a SOCK_SEQPACKET unix socket. */
static int listen_fd(void)
{
	int n = sd_listen_fds(1);

	if (n <= 0) {
		jank_log(LOG_ERR,
			 "worker spawner: no socket from systemd%s%s (it runs as "
			 "jankd-workers.service, on jankd-workers.socket)",
			 n < 0 ? ": " : "", n < 0 ? strerror(-n) : "");
		return -1;
	}
	if (n != 1 || sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_SEQPACKET, 1, NULL, 0) <= 0) {
		jank_log(LOG_ERR,
			 "worker spawner: expected one listening SOCK_SEQPACKET unix socket from "
			 "systemd (jankd-workers.socket), got %d file descriptor%s%s",
			 n, n == 1 ? "" : "s", n == 1 ? " of another kind" : "");
		return -1;
	}
	return SD_LISTEN_FDS_START;
}

/* --max-workers=N (1 to 65536), or none: the default. Returns 0, or -1 (said). */
static int parse_args(int argc, char **argv, struct spawner *s)
{
	static const char opt[] = "--max-workers=";

	s->max = JANK_SPAWNER_MAX_WORKERS;
	for (int i = 2; i < argc; i++) {
		char *end;
		unsigned long v;

		if (strncmp(argv[i], opt, sizeof(opt) - 1) != 0) {
			jank_log(LOG_ERR, "worker spawner: unexpected argument '%.64s'", argv[i]);
			return -1;
		}
		errno = 0;
		v = strtoul(argv[i] + sizeof(opt) - 1, &end, 10);
		if (errno || *end || end == argv[i] + sizeof(opt) - 1 || v < 1 || v > 65536) {
			jank_log(LOG_ERR, "worker spawner: bad %.64s (expected 1 to 65536)",
				 argv[i]);
			return -1;
		}
		s->max = v;
	}
	return 0;
}

int jank_worker_spawner_main(int argc, char **argv)
{
	struct spawner s = { .uid = getuid() };
	struct event *ev_listen = NULL, *ev_chld = NULL, *ev_term = NULL, *ev_int = NULL;
	int status = 1;

	jank_log_set_journal(false);
	if (parse_args(argc, argv, &s) < 0)
		return 2;
	if (geteuid() == 0 || s.uid == 0) {
		jank_log(LOG_ERR, "worker spawner: refusing to run as root: its workers keep its "
				  "user (run it as jank-worker: jankd-workers.service)");
		return 1;
	}
	prctl(PR_SET_NAME, "jankd-spawner");
	/* Its workers, of its user, must not read its memory (worker-sandbox.c). */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	signal(SIGPIPE, SIG_IGN);
	s.listen_fd = listen_fd();
	if (s.listen_fd < 0)
		return 1;
	if (evutil_make_socket_nonblocking(s.listen_fd) < 0 ||
	    evutil_make_socket_closeonexec(s.listen_fd) < 0)
		return 1;
	s.base = event_base_new();
	if (s.base) {
		ev_listen = event_new(s.base, s.listen_fd, EV_READ | EV_PERSIST, on_accept, &s);
		ev_chld = evsignal_new(s.base, SIGCHLD, on_child, &s);
		ev_term = evsignal_new(s.base, SIGTERM, on_term, &s);
		ev_int = evsignal_new(s.base, SIGINT, on_term, &s);
	}
	if (ev_listen && ev_chld && ev_term && ev_int && event_add(ev_listen, NULL) == 0 &&
	    event_add(ev_chld, NULL) == 0 && event_add(ev_term, NULL) == 0 &&
	    event_add(ev_int, NULL) == 0) {
		jank_log(LOG_INFO, "worker spawner: ready (uid %ld, at most %lu workers)",
			 (long)s.uid, s.max);
		status = event_base_dispatch(s.base) < 0 ? 1 : 0;
		jank_log(LOG_INFO, "worker spawner: stopping after %lu worker%s started", s.started,
			 s.started == 1 ? "" : "s");
	} else {
		jank_log(LOG_ERR, "worker spawner: out of memory");
	}
	/* Its workers die with it (their parent-death signal); kill them anyway. */
	while (s.conns) {
		if (s.conns->pid > 0)
			kill(s.conns->pid, SIGKILL);
		conn_free(s.conns);
	}
	if (ev_listen)
		event_free(ev_listen);
	if (ev_chld)
		event_free(ev_chld);
	if (ev_term)
		event_free(ev_term);
	if (ev_int)
		event_free(ev_int);
	if (s.base)
		event_base_free(s.base);
	return status;
}
