/* SPDX-License-Identifier: MIT */
/*
 * The control socket, on libevent: a listener, and one bufferevent per
 * client that reads a request line, writes the reply and closes once the
 * reply is out. A client that says nothing for CLIENT_TIMEOUT_S is dropped.
 *
 * Root and the group jank, twice over: the socket is created 0600 (umask
 * around bind), then given to the group jank (when it exists) as 0660, and
 * each peer is checked with SO_PEERCRED and SO_PEERGROUPS, so that a
 * socket whose mode was loosened by hand still refuses other users. (A
 * jankd that does not run as root also answers its own user.) As journald's
 * systemd-journal group does, jank lets operators read without sudo: every
 * request the socket answers is read-only (status in its formats); a
 * request that changed anything would have to check for root itself.
 *
 * In a user namespace of its own (jankd.service's PrivateUsers=yes), jankd
 * sees every other user as the overflow uid. jankd.service runs it with
 * Group=jank, which that namespace maps: the socket is jank's (jankd's own
 * group), and SO_PEERGROUPS shows a member's jank, so the check above holds
 * there too. Only in a namespace that does not map jank (a unit without
 * Group=jank, whose socket a set-group-ID directory gave to jank) does
 * jankd let an unmapped peer in, the socket's mode being what kept the
 * others out; when it cannot give the socket to jank at all, a warning says
 * so, and the socket stays root's.
 */
#define _GNU_SOURCE /* struct ucred */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>
#include "control-socket.h"
#include "log.h"

#define CLIENT_TIMEOUT_S 5

struct client {
	struct jank_control *ctl;
	struct bufferevent *bev;
	struct client *prev, *next;
	bool replied;
};

struct jank_control {
	struct event_base *base;
	struct evconnlistener *listener;
	char *path;
	gid_t group;	/* JANK_CONTROL_GROUP's gid, (gid_t)-1: none */
	bool userns;	/* jankd runs in a user namespace of its own that does not map group */
	uid_t overflow; /* the uid the kernel shows for users it does not map */
	jank_control_socket_fn fn;
	void *data;
	struct client *clients;
};

static void client_free(struct client *cl)
{
	if (cl->prev)
		cl->prev->next = cl->next;
	else
		cl->ctl->clients = cl->next;
	if (cl->next)
		cl->next->prev = cl->prev;
	bufferevent_free(cl->bev);
	free(cl);
}

static void client_reply(struct client *cl, const char *reply)
{
	cl->replied = true;
	bufferevent_disable(cl->bev, EV_READ);
	bufferevent_write(cl->bev, reply, strlen(reply));
}

static void client_read(struct bufferevent *bev, void *data)
{
	struct client *cl = data;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n;
	char *line, *reply;

	if (cl->replied)
		return;
	line = evbuffer_readln(in, &n, EVBUFFER_EOL_CRLF);
	if (!line) {
		if (evbuffer_get_length(in) > JANK_CONTROL_MAX_REQUEST)
			client_reply(cl, "error: request too long\n");
		return;
	}
	reply = cl->ctl->fn(line, cl->ctl->data);
	free(line);
	client_reply(cl, reply ? reply : "error: out of memory\n");
	free(reply);
}

/* The reply is out: close. */
static void client_write(struct bufferevent *bev, void *data)
{
	struct client *cl = data;

	if (cl->replied && evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		client_free(cl);
}

static void client_event(struct bufferevent *bev, short what, void *data)
{
	(void)bev;
	(void)what; /* EOF, error or timeout: the client is done either way */
	client_free(data);
}

/*
 * A short error to a peer we do not serve; the socket is fresh, the write
 * fits. What the peer sent is read first: closing a unix socket with unread
 * data resets the connection, and the peer might then lose the error.
 */
static void refuse(evutil_socket_t fd, const char *msg)
{
	char buf[JANK_CONTROL_MAX_REQUEST];
	ssize_t r;

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	r = send(fd, msg, strlen(msg), MSG_NOSIGNAL);
	(void)r;
	close(fd);
}

/* Whether the peer's supplementary groups (SO_PEERGROUPS) hold `gid`. */
static bool peer_in_group(evutil_socket_t fd, gid_t gid)
{
	gid_t groups[256];
	socklen_t len = sizeof(groups);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0)
		return false; /* ERANGE: more than 256 groups; refused, as before */
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/*
 * Root; jankd's own user, when it does not run as root (tests); a member
 * of the group jank; in a user namespace of jankd's that does not map jank,
 * a user it does not map (the socket's mode let it connect: root or jank).
 */
static bool allowed(const struct jank_control *ctl, evutil_socket_t fd, const struct ucred *cred)
{
	if (cred->uid == 0 || cred->uid == geteuid())
		return true;
	if (ctl->group != (gid_t)-1 && (cred->gid == ctl->group || peer_in_group(fd, ctl->group)))
		return true;
	return ctl->userns && cred->uid == ctl->overflow;
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len,
		      void *data)
{
	struct jank_control *ctl = data;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct timeval tv = { CLIENT_TIMEOUT_S, 0 };
	struct client *cl;
	char msg[160];

	(void)l;
	(void)sa;
	(void)len;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
		refuse(fd, "error: cannot check who is asking\n");
		return;
	}
	if (!allowed(ctl, fd, &cred)) {
		snprintf(msg, sizeof(msg),
			 "error: permission denied: the control socket of jankd is for root and "
			 "the group %s (uid %u asked)\n",
			 JANK_CONTROL_GROUP, (unsigned)cred.uid);
		refuse(fd, msg);
		return;
	}
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		refuse(fd, "error: out of memory\n");
		return;
	}
	cl->ctl = ctl;
	cl->bev = bufferevent_socket_new(ctl->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!cl->bev) {
		free(cl);
		refuse(fd, "error: out of memory\n");
		return;
	}
	cl->next = ctl->clients;
	if (cl->next)
		cl->next->prev = cl;
	ctl->clients = cl;
	bufferevent_setcb(cl->bev, client_read, client_write, client_event, cl);
	bufferevent_set_timeouts(cl->bev, &tv, &tv);
	bufferevent_enable(cl->bev, EV_READ | EV_WRITE);
}

/* mkdir -p the directory of `path`, 0755 for what it creates. */
static int make_parent(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (c == '\0')
			return 0;
	}
}

/* Whether this process runs in a user namespace other than the initial one. */
static bool in_user_namespace(uid_t *overflow)
{
	unsigned long inside, outside, count = 0;
	FILE *f = fopen("/proc/self/uid_map", "re");
	bool whole;

	*overflow = 65534;
	if (!f)
		return false;
	whole = fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 &&
		outside == 0 && count == 4294967295UL;
	fclose(f);
	f = fopen("/proc/sys/kernel/overflowuid", "re");
	if (f) {
		unsigned long u;

		if (fscanf(f, "%lu", &u) == 1)
			*overflow = (uid_t)u;
		fclose(f);
	}
	return !whole;
}

/* Whether this process's user namespace maps gid (/proc/self/gid_map). */
static bool gid_mapped(gid_t gid)
{
	unsigned long inside, outside, count;
	FILE *f = fopen("/proc/self/gid_map", "re");
	bool found = false;

	if (!f)
		return true; /* no user namespaces here: the initial one */
	while (!found && fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3)
		found = gid >= inside && gid - inside < count;
	fclose(f);
	return found;
}

/*
 * The socket's mode: 0660 when it belongs to the group jank (given here, or
 * by a set-group-ID directory), else 0600.
 */
static mode_t socket_mode(struct jank_control *ctl, const char *path)
{
	struct group *gr = getgrnam(JANK_CONTROL_GROUP);
	struct stat st;

	ctl->group = gr ? gr->gr_gid : (gid_t)-1;
	ctl->userns = in_user_namespace(&ctl->overflow) && !(gr && gid_mapped(gr->gr_gid));
	if (!gr)
		return 0600;
	/* jankd's group already (jankd.service's Group=jank: chown(2) is outside its filter). */
	if (stat(path, &st) == 0 && st.st_gid == gr->gr_gid)
		return 0660;
	if (chown(path, (uid_t)-1, gr->gr_gid) == 0)
		return 0660;
	/* In a user namespace that does not map the group: a set-group-ID directory's. */
	if (stat(path, &st) == 0 && st.st_gid != getegid() && ctl->userns)
		return 0660;
	jank_log(LOG_WARNING, "%s: cannot give the control socket to the group %s (%s): root only",
		 path, JANK_CONTROL_GROUP, strerror(errno));
	return 0600;
}

/* A socket file already at the path: in use by a live jankd, or stale. */
static int check_stale(const struct sockaddr_un *sa, char *err, size_t errlen)
{
	struct stat st;
	int fd, r;

	if (lstat(sa->sun_path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s: exists and is not a socket", sa->sun_path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	close(fd);
	if (r == 0) {
		snprintf(err, errlen, "%s: another jankd answers on this control socket",
			 sa->sun_path);
		return -EADDRINUSE;
	}
	return unlink(sa->sun_path) == 0 || errno == ENOENT ? 0 : -errno;
}

struct jank_control *jank_control_socket_open(struct event_base *base, const char *path,
					      jank_control_socket_fn fn, void *data, char *err,
					      size_t errlen)
{
	struct jank_control *ctl = NULL;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old_umask;
	int fd = -1, r;

	err[0] = '\0';
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "%s: path too long for a unix socket", path);
		return NULL;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	r = make_parent(path);
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot create its directory: %s", path, strerror(-r));
		return NULL;
	}
	r = check_stale(&sa, err, errlen);
	if (r < 0)
		goto fail;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		r = -errno;
		goto fail;
	}
	old_umask = umask(0177);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? 0 : -errno;
	umask(old_umask);
	if (r < 0)
		goto fail;
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl) {
		r = -ENOMEM;
		goto fail_unlink;
	}
	if (chmod(path, socket_mode(ctl, path)) != 0 || listen(fd, 16) != 0) {
		r = -errno;
		goto fail_unlink;
	}
	ctl->base = base;
	ctl->fn = fn;
	ctl->data = data;
	ctl->path = strdup(path);
	ctl->listener = evconnlistener_new(base, on_accept, ctl,
					   LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1, fd);
	if (!ctl->path || !ctl->listener) {
		r = -ENOMEM;
		goto fail_unlink;
	}
	return ctl;
fail_unlink:
	unlink(path);
fail:
	if (ctl && ctl->listener)
		fd = -1; /* the listener owns it */
	if (fd >= 0)
		close(fd);
	if (ctl) {
		if (ctl->listener)
			evconnlistener_free(ctl->listener);
		free(ctl->path);
		free(ctl);
	}
	if (!err[0])
		snprintf(err, errlen, "%s: cannot listen: %s", path, strerror(-r));
	return NULL;
}

void jank_control_socket_close(struct jank_control *ctl)
{
	if (!ctl)
		return;
	while (ctl->clients)
		client_free(ctl->clients);
	evconnlistener_free(ctl->listener);
	unlink(ctl->path);
	free(ctl->path);
	free(ctl);
}
