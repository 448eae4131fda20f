/* SPDX-License-Identifier: MIT */
/*
 * The binary opener as a service of its own: `jankd --binary-opener`, for
 * jankd under systemd, which has no capability (binary-opener.h says what
 * the opener answers, and why it needs one).
 *
 * systemd runs one instance of jankd-opener@.service per connection to
 * jankd-opener.socket (Accept=yes, root's alone), as the user jank-opener
 * with three capabilities and nothing else: CAP_CHECKPOINT_RESTORE (to open
 * /proc/PID/map_files), CAP_SYS_PTRACE (to read another user's
 * /proc/PID/maps and reach its map_files) and CAP_DAC_READ_SEARCH (the
 * build-id checked path of a process that exited, under a 0700 directory).
 * jankd connects once per worker of a live session of this host, and
 * passes the connection to the worker spawner with the worker's socketpair:
 * the worker asks, this instance answers, and ends when the worker's end
 * closes. The instance serves a connection only if its peer (the one that
 * connected: jankd) is root, and answers the opener's three requests only.
 */
#define _GNU_SOURCE /* struct ucred */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>
#include "binary-opener.h"
#include "log.h"

/* The connection from systemd (Accept=yes): exactly one connected SOCK_SEQPACKET unix socket. */
static int service_fd(void)
{
	int n = sd_listen_fds(1);

	if (n != 1 || sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_SEQPACKET, 0, NULL, 0) <= 0) {
		jank_log(LOG_ERR,
			 "binary opener: expected one connected SOCK_SEQPACKET unix socket from "
			 "systemd (jankd-opener.socket, Accept=yes), got %d file descriptor%s",
			 n < 0 ? 0 : n, n == 1 ? " of another kind" : "s");
		return -1;
	}
	return SD_LISTEN_FDS_START;
}

int jank_binary_opener_service_main(int argc, char **argv)
{
	struct event_base *base;
	struct jank_binary_opener_conn *c;
	struct ucred cr = { 0 };
	socklen_t len = sizeof(cr);
	int fd, r;

	(void)argv;
	jank_log_set_journal(false);
	if (argc != 2) {
		jank_log(LOG_ERR, "binary opener: takes no argument");
		return 2;
	}
	prctl(PR_SET_NAME, "jankd-opener");
	/* What it opens, and its capabilities, are no one else's to borrow. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	fd = service_fd();
	if (fd < 0)
		return 1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof(cr) ||
	    cr.uid != JANK_OPENER_PEER_UID) {
		jank_log(LOG_WARNING,
			 "binary opener: refused a connection from pid %ld, uid %ld: only jankd "
			 "(uid %d) may connect",
			 (long)cr.pid, (long)cr.uid, JANK_OPENER_PEER_UID);
		close(fd);
		return 1;
	}
	if (evutil_make_socket_closeonexec(fd) < 0 || !(base = event_base_new())) {
		jank_log(LOG_ERR, "binary opener: out of memory");
		close(fd);
		return 1;
	}
	c = jank_binary_opener_conn_new(base, fd, "binary opener");
	if (!c) {
		jank_log(LOG_ERR, "binary opener: out of memory");
		event_base_free(base);
		return 1;
	}
	/* Until the worker's end closes (or a bad request closes it): no event is left then. */
	r = event_base_dispatch(base);
	jank_binary_opener_conn_free(c);
	event_base_free(base);
	return r < 0 ? 1 : 0;
}

int jank_binary_opener_service_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	/* Non-blocking: a full backlog makes connect fail (EAGAIN), never wait on jankd's loop. */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}
