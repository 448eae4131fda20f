/* SPDX-License-Identifier: MIT */
/*
 * A worker process started here or by the spawner (see worker-launch.h).
 *
 * posix_spawn, not fork: the supervisor has threads (the capturer's),
 * and a child forked from them could inherit a lock one of them held
 * (babeltrace2's plugin loading, glib); exec gives the worker a clean
 * process, and what it shares with the others (the libraries' pages) stays
 * shared.
 *
 * The spawner is asked synchronously, within JANK_SPAWN_REPLY_MS: it answers
 * as soon as posix_spawn returns, so the wait is one round trip (and, the
 * first time, systemd starting it on its socket). After that its messages
 * come on jankd's event loop.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "binary-opener.h"
#include "relayd-broker.h"
#include "worker-launch-int.h"
#include "worker.h"

extern char **environ;

static char spawner_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

int jank_worker_launch_set_spawner(const char *socket_path)
{
	if (!socket_path)
		socket_path = "";
	if (strlen(socket_path) >= sizeof(spawner_path))
		return -ENAMETOOLONG;
	snprintf(spawner_path, sizeof(spawner_path), "%s", socket_path);
	return 0;
}

const char *jank_worker_launch_spawner(void)
{
	return spawner_path[0] ? spawner_path : NULL;
}

/* A copy of `fd` above the worker's descriptors when it is among them (in *tmp), else fd. */
static int above(int fd, int *tmp)
{
	if (fd < JANK_WORKER_FD || fd > JANK_RELAYD_FD)
		return fd;
	*tmp = fcntl(fd, F_DUPFD_CLOEXEC, JANK_RELAYD_FD + 1);
	return *tmp;
}

static void close_all(const int tmp[3])
{
	for (int i = 0; i < 3; i++)
		if (tmp[i] >= 0)
			close(tmp[i]);
}

pid_t jank_worker_launch_spawn(int fd, int relayd_fd, const char *name, const char *user, int *err)
{
	return jank_worker_launch_spawn_fds(fd, -1, relayd_fd, name, user, err);
}

pid_t jank_worker_launch_spawn_fds(int fd, int opener_fd, int relayd_fd, const char *name,
				   const char *user, int *err)
{
	char arg0[] = "jankd", arg1[] = JANK_WORKER_ARG, ppid[24];
	char *argv[] = { arg0, arg1, ppid, (char *)user, (char *)name, NULL };
	int tmp[3] = { -1, -1, -1 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none;
	pid_t pid = 0;

	/* None on a number another takes first (the dup2s and closes go in order). */
	fd = above(fd, &tmp[0]);
	opener_fd = above(opener_fd, &tmp[1]);
	relayd_fd = above(relayd_fd, &tmp[2]);
	if (fd < 0) {
		*err = errno;
		close_all(tmp);
		return 0;
	}
	snprintf(ppid, sizeof(ppid), "%ld", (long)getpid());
	sigemptyset(&none);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	*err = posix_spawn_file_actions_adddup2(&fa, fd, JANK_WORKER_FD);
	/* Nothing else is open in the worker: no opener, no descriptor on its number. */
	if (!*err)
		*err = opener_fd >= 0
			       ? posix_spawn_file_actions_adddup2(&fa, opener_fd, JANK_OPENER_FD)
			       : posix_spawn_file_actions_addclose(&fa, JANK_OPENER_FD);
	if (!*err)
		*err = relayd_fd >= 0
			       ? posix_spawn_file_actions_adddup2(&fa, relayd_fd, JANK_RELAYD_FD)
			       : posix_spawn_file_actions_addclose(&fa, JANK_RELAYD_FD);
	if (!*err)
		*err = posix_spawn_file_actions_addclosefrom_np(&fa, JANK_RELAYD_FD + 1);
	if (!*err)
		*err = posix_spawnattr_setsigmask(&at, &none);
	if (!*err)
		*err = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	if (!*err)
		*err = posix_spawn(&pid, "/proc/self/exe", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close_all(tmp);
	return *err ? 0 : pid;
}

/* The callback may free `l`. */
static void ended(struct jank_launch *l, int status)
{
	if (l->ended)
		return;
	l->ended = true;
	if (l->ev)
		event_del(l->ev);
	l->fn(l, status, l->data);
}

/* ---- Through the spawner ---- */

static int send_msg(int conn, uint32_t type)
{
	struct jank_spawn_msg m = { .type = type };

	return send(conn, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT) == sizeof(m) ? 0 : -1;
}

/*
 * One message from the spawner: 1; 0 when none is there yet; -1 when the
 * connection is over (closed, or a packet that is not one message).
 *
 * A spawner that closes with a message of ours unread (the KILL sent as
 * the worker's socket ended, crossing the worker's EXITED) makes the
 * kernel report ECONNRESET once, ahead of the messages still queued: the
 * next receive gives them.
 */
static int recv_msg(int conn, struct jank_spawn_msg *m)
{
	ssize_t n = recv(conn, m, sizeof(*m), MSG_DONTWAIT | MSG_TRUNC);

	if (n < 0 && errno == ECONNRESET)
		n = recv(conn, m, sizeof(*m), MSG_DONTWAIT | MSG_TRUNC);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	return n == (ssize_t)sizeof(*m) ? 1 : -1;
}

/*
 * What the spawner sent: EXITED ends it, and so do the end of the
 * connection or anything else (lost); nothing there yet does not, unless
 * `gone` (the spawner closed). ended() may free `l`: nothing after it.
 */
static void take_msg(struct jank_launch *l, bool gone)
{
	struct jank_spawn_msg m;
	int r = recv_msg(l->conn, &m);

	if (r != 0 || gone)
		ended(l, r > 0 && m.type == JANK_SPAWN_EXITED ? m.value : JANK_LAUNCH_LOST);
}

void worker_launch_on_spawner(evutil_socket_t fd, short what, void *data)
{
	(void)fd;
	(void)what;
	take_msg(data, false);
}

static int spawner_connect(char *why, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	/* Non-blocking: a spawner whose backlog is full makes connect fail (EAGAIN), not wait. */
	int conn = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (conn < 0) {
		snprintf(why, len, "cannot make a socket: %s", strerror(errno));
		return -errno;
	}
	memcpy(sa.sun_path, spawner_path, sizeof(spawner_path));
	if (connect(conn, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		snprintf(why, len,
			 "cannot reach the worker spawner at %s: %s (is jankd-workers.socket "
			 "active?)",
			 spawner_path, strerror(e));
		close(conn);
		return -e;
	}
	return conn;
}

/*
 * The request, with the worker's end (fd), its relayd broker's channel
 * (relayd_fd, unless -1) and its opener's channel (opener_fd, unless -1;
 * sent only after a relayd channel, so that their order tells them apart).
 */
static int spawner_request(int conn, int fd, int relayd_fd, int opener_fd, const char *name,
			   char *why, size_t len)
{
	int fds[3] = { fd, relayd_fd, opener_fd };
	size_t nfds = relayd_fd < 0 ? 1 : opener_fd < 0 ? 2 : 3;
	struct jank_spawn_request req = { .magic = JANK_SPAWN_MAGIC,
					  .version = JANK_SPAWN_VERSION };
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &req, .iov_len = sizeof(req) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = CMSG_SPACE(nfds * sizeof(int)) };
	struct cmsghdr *c;

	snprintf(req.name, sizeof(req.name), "%s", name);
	memset(u.buf, 0, sizeof(u.buf));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	if (sendmsg(conn, &mh, MSG_NOSIGNAL) != (ssize_t)sizeof(req)) {
		int e = errno ? errno : EIO;

		snprintf(why, len, "cannot ask the worker spawner at %s: %s", spawner_path,
			 strerror(e));
		return -e;
	}
	return 0;
}

/* The spawner's STARTED (its pid) or FAILED, within JANK_SPAWN_REPLY_MS. */
static pid_t spawner_reply(int conn, int *err, char *why, size_t len)
{
	struct pollfd pfd = { .fd = conn, .events = POLLIN };
	struct jank_spawn_msg m;
	int r;

	do
		r = poll(&pfd, 1, JANK_SPAWN_REPLY_MS);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		*err = -ETIMEDOUT;
		snprintf(why, len, "the worker spawner at %s did not answer within %d ms",
			 spawner_path, JANK_SPAWN_REPLY_MS);
		return 0;
	}
	if (r < 0 || recv_msg(conn, &m) <= 0) {
		*err = -EPROTO;
		snprintf(why, len, "the worker spawner at %s closed the connection", spawner_path);
		return 0;
	}
	if (m.type == JANK_SPAWN_STARTED && m.value > 0)
		return m.value;
	*err = m.type == JANK_SPAWN_FAILED && m.value > 0 ? -m.value : -EPROTO;
	snprintf(why, len, "the worker spawner at %s could not start it: %s", spawner_path,
		 strerror(-*err));
	return 0;
}

static int start_spawner(struct jank_launch *l, struct event_base *base, int fd, int relayd_fd,
			 int opener_fd, const char *name, char *why, size_t len)
{
	int r, conn = spawner_connect(why, len);

	if (conn < 0)
		return conn;
	r = spawner_request(conn, fd, relayd_fd, opener_fd, name, why, len);
	if (r == 0)
		l->pid = spawner_reply(conn, &r, why, len);
	if (r == 0 &&
	    !(l->ev = event_new(base, conn, EV_READ | EV_PERSIST, worker_launch_on_spawner, l)))
		r = -ENOMEM;
	if (r == 0 && event_add(l->ev, NULL) < 0)
		r = -ENOMEM;
	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(why, len, "out of memory");
		close(conn); /* the spawner kills a worker it started */
		return r;
	}
	l->conn = conn;
	return 0;
}

/* ---- Either way ---- */

struct jank_launch *jank_worker_launch_start(struct event_base *base, int fd, int opener_fd,
					     int relayd_fd, const char *name,
					     const struct jank_worker_user *u,
					     jank_worker_launch_ended_fn fn, void *data, int *err,
					     char *why, size_t len)
{
	struct jank_launch *l = calloc(1, sizeof(*l));
	char who[48];

	*err = 0;
	if (!l) {
		*err = -ENOMEM;
		snprintf(why, len, "out of memory");
		return NULL;
	}
	l->fn = fn;
	l->data = data;
	l->conn = -1;
	if (spawner_path[0]) {
		*err = start_spawner(l, base, fd, relayd_fd, opener_fd, name, why, len);
	} else {
		jank_worker_user_format(u, who, sizeof(who));
		l->pid = jank_worker_launch_spawn_fds(fd, opener_fd, relayd_fd, name, who, err);
		*err = -*err;
		if (*err)
			snprintf(why, len, "cannot start: %s", strerror(-*err));
	}
	if (*err) {
		free(l);
		return NULL;
	}
	return l;
}

pid_t jank_worker_launch_pid(const struct jank_launch *l)
{
	return l->pid;
}

void jank_worker_launch_kill(struct jank_launch *l)
{
	if (l->ended)
		return;
	if (l->conn < 0)
		kill(l->pid, SIGKILL);
	else if (send_msg(l->conn, JANK_SPAWN_KILL) < 0)
		take_msg(l,
			 true); /* the spawner closed: after the worker's EXITED, if it sent it */
}

void jank_worker_launch_reap(struct jank_launch *l)
{
	int st;

	if (l->conn < 0 && !l->ended && waitpid(l->pid, &st, WNOHANG) == l->pid)
		ended(l, st);
}

void jank_worker_launch_free(struct jank_launch *l)
{
	if (!l)
		return;
	if (l->conn < 0 && !l->ended) {
		kill(l->pid, SIGKILL);
		waitpid(l->pid, NULL, 0); /* SIGKILL: at once */
	}
	if (l->ev)
		event_free(l->ev);
	if (l->conn >= 0)
		close(l->conn); /* the spawner kills its worker, if it still runs */
	free(l);
}
