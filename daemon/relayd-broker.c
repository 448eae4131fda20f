/* SPDX-License-Identifier: MIT */
/*
 * The relayd broker (see relayd-broker.h): the supervisor connects to an
 * input's relayd and passes the socket; the worker asks, from the socket()
 * and connect() that babeltrace2's lttng-live plugin calls.
 *
 * The supervisor resolves the host on its loop (getaddrinfo: an IP address
 * or /etc/hosts, as relayd URLs usually are; a DNS name costs its loop the
 * resolver's answer), then connects without blocking: the answer goes when
 * the connection is made or has failed.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "fd-channel.h"
#include "log.h"
#include "relayd-broker.h"

/* ---- The supervisor's side ---- */

int jank_relayd_url_addr(const char *url, char *host, size_t len, unsigned *port)
{
	const char *p = strncmp(url, "net://", 6) ? NULL : url + 6, *end;
	unsigned long v = JANK_RELAYD_PORT;

	if (!p)
		return -EINVAL;
	if (*p == '[') {
		end = strchr(++p, ']');
		if (!end)
			return -EINVAL;
	} else {
		end = p + strcspn(p, ":/");
	}
	if (end == p || (size_t)(end - p) >= len)
		return -EINVAL;
	memcpy(host, p, (size_t)(end - p));
	host[end - p] = '\0';
	p = end + (*end == ']');
	if (*p == ':') {
		char *e;

		errno = 0;
		v = strtoul(p + 1, &e, 10);
		if (errno || e == p + 1 || (*e && *e != '/') || v == 0 || v > 65535)
			return -EINVAL;
	} else if (*p && *p != '/') {
		return -EINVAL;
	}
	*port = (unsigned)v;
	return 0;
}

struct jank_relayd_conn {
	int fd;
	struct event_base *base;
	struct event *ev;
	char *name;
	char host[256];
	unsigned port;
	/* The connection under way: its socket, the address it goes to, its event. */
	int pending;
	uint32_t seq;
	struct sockaddr_storage to;
	socklen_t to_len;
	struct event *ev_connect;
	uint64_t passed, failed;
};

static int send_reply(int sock, uint32_t seq, int error, int fd)
{
	struct jank_relayd_reply rep = { .magic = JANK_RELAYD_MAGIC, .seq = seq, .error = error };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(u.buf, 0, sizeof(u.buf));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(rep) ? 0 : -1;
}

static void conn_close(struct jank_relayd_conn *c, const char *why)
{
	if (why)
		jank_log(LOG_WARNING, "%s: the relayd broker's channel closed: %s", c->name, why);
	if (c->fd >= 0) {
		event_del(c->ev);
		close(c->fd);
		c->fd = -1;
	}
}

static void pending_drop(struct jank_relayd_conn *c)
{
	if (c->pending < 0)
		return;
	event_del(c->ev_connect);
	close(c->pending);
	c->pending = -1;
}

/* Answer the request under way: the socket (error 0) or the error. */
static void answer(struct jank_relayd_conn *c, int error)
{
	int fd = error ? -1 : c->pending;

	if (error) {
		c->failed++;
		jank_log(LOG_DEBUG, "%s: relayd broker: cannot connect to %s:%u: %s", c->name,
			 c->host, c->port, strerror(error));
	} else {
		c->passed++;
		/* The plugin made a blocking socket, and expects one. */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	}
	if (c->fd >= 0 && send_reply(c->fd, c->seq, error, fd) < 0)
		conn_close(c, "the worker does not read its answers");
	pending_drop(c);
}

/* The peer is the address asked for: nothing else goes to the worker. */
static bool peer_is(int fd, const struct sockaddr_storage *to, socklen_t to_len)
{
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);

	return getpeername(fd, (struct sockaddr *)&peer, &len) == 0 && len == to_len &&
	       !memcmp(&peer, to, len);
}

static void on_connected(evutil_socket_t sock, short what, void *data)
{
	struct jank_relayd_conn *c = data;
	int e = 0;
	socklen_t len = sizeof(e);

	if (what & EV_TIMEOUT)
		e = ETIMEDOUT;
	else if (getsockopt(sock, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
		e = errno;
	if (!e && !peer_is(sock, &c->to, c->to_len))
		e = EADDRNOTAVAIL;
	answer(c, e);
}

/* The relayd's address: its first IPv4 one (as lttng-live), else the first. */
static int resolve(struct jank_relayd_conn *c)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG },
			*res = NULL, *a, *pick;
	char port[8];
	int e;

	snprintf(port, sizeof(port), "%u", c->port);
	e = getaddrinfo(c->host, port, &hints, &res);
	if (e)
		return e == EAI_SYSTEM ? errno : EHOSTUNREACH;
	pick = res;
	for (a = res; a; a = a->ai_next)
		if (a->ai_family == AF_INET) {
			pick = a;
			break;
		}
	if (!pick || pick->ai_addrlen > sizeof(c->to)) {
		freeaddrinfo(res);
		return EHOSTUNREACH;
	}
	memset(&c->to, 0, sizeof(c->to));
	memcpy(&c->to, pick->ai_addr, pick->ai_addrlen);
	c->to_len = pick->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static void start_connect(struct jank_relayd_conn *c, uint32_t seq)
{
	struct timeval tv = { .tv_sec = JANK_RELAYD_CONNECT_MS / 1000,
			      .tv_usec = (JANK_RELAYD_CONNECT_MS % 1000) * 1000 };
	int e;

	pending_drop(c); /* a request that timed out on the worker's side */
	c->seq = seq;
	e = resolve(c);
	if (!e) {
		c->pending = socket(c->to.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		e = c->pending < 0 ? errno : 0;
	}
	if (!e && connect(c->pending, (struct sockaddr *)&c->to, c->to_len) < 0 &&
	    errno != EINPROGRESS)
		e = errno;
	if (e) {
		answer(c, e);
		return;
	}
	event_assign(c->ev_connect, c->base, c->pending, EV_WRITE, on_connected, c);
	if (event_add(c->ev_connect, &tv) < 0)
		answer(c, ENOMEM);
}

static void on_request(evutil_socket_t sock, short what, void *data)
{
	struct jank_relayd_conn *c = data;
	struct jank_relayd_request req;
	char buf[sizeof(req) + 1];
	ssize_t n = recv(sock, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);

	(void)what;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == 0) {
		pending_drop(c);
		conn_close(c, NULL); /* the worker ended */
		return;
	}
	if (n != (ssize_t)sizeof(req)) {
		pending_drop(c);
		conn_close(c, "a packet that is not a request");
		return;
	}
	memcpy(&req, buf, sizeof(req));
	if (req.magic != JANK_RELAYD_MAGIC) {
		pending_drop(c);
		conn_close(c, "a packet that is not a request");
		return;
	}
	start_connect(c, req.seq);
}

struct jank_relayd_conn *jank_relayd_conn_new(struct event_base *base, int fd, const char *name,
					      const char *url)
{
	struct jank_relayd_conn *c = calloc(1, sizeof(*c));

	if (!c || jank_relayd_url_addr(url, c->host, sizeof(c->host), &c->port) < 0 ||
	    !(c->name = strdup(name)) ||
	    !(c->ev_connect = event_new(base, -1, 0, on_connected, c)) ||
	    !(c->ev = event_new(base, fd, EV_READ | EV_PERSIST, on_request, c)) ||
	    event_add(c->ev, NULL) < 0) {
		if (c && c->ev)
			event_free(c->ev);
		if (c && c->ev_connect)
			event_free(c->ev_connect);
		if (c)
			free(c->name);
		free(c);
		close(fd);
		return NULL;
	}
	c->base = base;
	c->fd = fd;
	c->pending = -1;
	return c;
}

void jank_relayd_conn_free(struct jank_relayd_conn *c)
{
	if (!c)
		return;
	pending_drop(c);
	event_free(c->ev_connect);
	event_free(c->ev);
	if (c->fd >= 0)
		close(c->fd);
	free(c->name);
	free(c);
}

void jank_relayd_conn_counts(const struct jank_relayd_conn *c, uint64_t *passed, uint64_t *failed)
{
	*passed = c->passed;
	*failed = c->failed;
}

/* ---- The worker's side ---- */

static int client_fd = -1;
static uint32_t client_seq;

void jank_relayd_client_init(void)
{
	client_fd = jank_fd_channel_open(JANK_RELAYD_FD);
}

int jank_relayd_client_ready(void)
{
	return client_fd >= 0;
}

static void client_close(void)
{
	close(client_fd);
	client_fd = -1;
}

/* One reply: 1 and *fd (-1: none came) and *rep; 0: nothing there; -1: the channel is over. */
static int client_recv(struct jank_relayd_reply *rep, int *fd)
{
	int r = jank_fd_channel_recv(client_fd, rep, sizeof(*rep), fd);

	if (r > 0 && rep->magic != JANK_RELAYD_MAGIC) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -1;
	}
	return r;
}

/* A descriptor the supervisor passed must be a TCP socket. */
static bool is_stream_socket(int fd)
{
	struct stat st;
	int type = 0;
	socklen_t tl = sizeof(type);

	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 && type == SOCK_STREAM;
}

int jank_relayd_client_connect(void)
{
	struct jank_relayd_request req = { .magic = JANK_RELAYD_MAGIC, .seq = ++client_seq };
	struct pollfd p = { .events = POLLIN };

	if (client_fd < 0)
		return -ENOTCONN;
	if (send(client_fd, &req, sizeof(req), MSG_NOSIGNAL | MSG_DONTWAIT) != sizeof(req)) {
		client_close();
		return -ENOTCONN;
	}
	p.fd = client_fd;
	for (;;) {
		struct jank_relayd_reply rep;
		int fd, r = poll(&p, 1, JANK_RELAYD_REPLY_MS);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return -ETIMEDOUT;
		r = r < 0 ? -1 : client_recv(&rep, &fd);
		if (r < 0) {
			client_close();
			return -ENOTCONN;
		}
		if (r == 0 || rep.seq != req.seq) {
			if (r > 0 && fd >= 0)
				close(fd); /* the answer to a request that timed out */
			continue;
		}
		if (rep.error == 0 && fd >= 0 && is_stream_socket(fd))
			return fd;
		if (fd >= 0)
			close(fd);
		return rep.error > 0 ? -rep.error : -EPROTO;
	}
}

/* ---- What lttng-live calls (see relayd-broker.h) ---- */

/*
 * The placeholders socket() gave and connect() has not replaced yet: each
 * one /dev/null, with the flags socket() was asked for.
 */
#define PLACEHOLDERS 16

static struct placeholder {
	int fd; /* -1: a free slot */
	int flags;
} placeholders[PLACEHOLDERS] = { [0 ... PLACEHOLDERS - 1] = { .fd = -1 } };

static bool is_dev_null(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

static struct placeholder *placeholder_of(int fd)
{
	for (int i = 0; i < PLACEHOLDERS; i++)
		if (placeholders[i].fd == fd)
			return is_dev_null(fd) ? &placeholders[i] : NULL;
	return NULL;
}

static int placeholder_new(int type)
{
	struct placeholder *slot = NULL;
	int fd;

	for (int i = 0; !slot && i < PLACEHOLDERS; i++)
		if (placeholders[i].fd < 0 || !is_dev_null(placeholders[i].fd))
			slot = &placeholders[i];
	if (!slot) {
		errno = EMFILE;
		return -1;
	}
	fd = open("/dev/null", O_RDONLY | (type & SOCK_CLOEXEC ? O_CLOEXEC : 0));
	if (fd < 0)
		return -1;
	/* A slot whose descriptor number socket() gives again is that one's. */
	for (int i = 0; i < PLACEHOLDERS; i++)
		if (placeholders[i].fd == fd)
			slot = &placeholders[i];
	slot->fd = fd;
	slot->flags = type & (SOCK_CLOEXEC | SOCK_NONBLOCK);
	return fd;
}

int socket(int domain, int type, int protocol)
{
	if (client_fd >= 0 && (domain == AF_INET || domain == AF_INET6) &&
	    (type & ~(SOCK_CLOEXEC | SOCK_NONBLOCK)) == SOCK_STREAM)
		return placeholder_new(type);
	return (int)syscall(SYS_socket, domain, type, protocol);
}

/*
 * The address the plugin passes is not used: the only one a worker may
 * reach is its input's relayd, which the supervisor connects to.
 */
int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct placeholder *ph = client_fd >= 0 ? placeholder_of(fd) : NULL;
	int s;

	if (!ph)
		return (int)syscall(SYS_connect, fd, addr, len);
	s = jank_relayd_client_connect();
	if (s < 0) {
		errno = -s;
		return -1;
	}
	if ((ph->flags & SOCK_NONBLOCK) && fcntl(s, F_SETFL, O_NONBLOCK) < 0) {
		close(s);
		return -1;
	}
	if (dup3(s, fd, ph->flags & SOCK_CLOEXEC ? O_CLOEXEC : 0) < 0) {
		close(s);
		return -1;
	}
	close(s);
	ph->fd = -1;
	return 0;
}

/*
 * jank's own live client (io/trace-live.c) resolves relayd's host with
 * getaddrinfo() before its socket(): in a worker with a channel, no lookup
 * (a DNS query would need a socket the filter refuses) but loopback's
 * numeric address, of the family asked, which connect() does not use. It
 * is glibc's own answer (freeaddrinfo() frees it).
 */
int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		struct addrinfo **res)
{
	int (*next)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
	struct addrinfo h = { .ai_socktype = SOCK_STREAM };

	*(void **)&next = dlsym(RTLD_NEXT, "getaddrinfo");
	if (!next)
		return EAI_SYSTEM;
	if (client_fd < 0 || !node)
		return next(node, service, hints, res);
	if (hints)
		h = *hints;
	h.ai_flags = (h.ai_flags & AI_NUMERICSERV) | AI_NUMERICHOST;
	return next(h.ai_family == AF_INET6 ? "::1" : "127.0.0.1", service, &h, res);
}

/*
 * lttng-live resolves relayd's host before its socket(): in a worker with
 * a channel, no lookup (the supervisor resolves; a DNS query would need a
 * socket the filter refuses) and an address that connect() does not use.
 */
struct hostent *gethostbyname(const char *name)
{
	static struct in_addr any;
	static char *addrs[] = { (char *)&any, NULL };
	static char *aliases[] = { NULL };
	static char shown[256];
	static struct hostent h = {
		.h_name = shown,
		.h_aliases = aliases,
		.h_addrtype = AF_INET,
		.h_length = sizeof(struct in_addr),
		.h_addr_list = addrs,
	};
	struct hostent *(*next)(const char *);

	if (client_fd >= 0) {
		snprintf(shown, sizeof(shown), "%s", name);
		any.s_addr = htonl(INADDR_LOOPBACK);
		return &h;
	}
	next = (struct hostent * (*)(const char *)) dlsym(RTLD_NEXT, "gethostbyname");
	if (!next) {
		h_errno = NO_RECOVERY;
		return NULL;
	}
	return next(name);
}
