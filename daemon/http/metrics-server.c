/* SPDX-License-Identifier: MIT */
/*
 * The metrics endpoint on evhttp (libevent 2.1).
 *
 * libevent 2.1's evhttp has read and write timeouts and size limits, but no
 * connection limit, and its timeouts restart with every byte read, so a
 * client that trickles its headers would keep a connection for hours. We
 * make each connection's bufferevent ourselves (evhttp_set_bevcb) and keep a
 * reference to it: that counts the connections and holds each one's
 * deadline. When the deadline passes, or when the connection is one too
 * many, we shut its socket down, and evhttp frees it as it frees any
 * connection whose peer went away. evhttp says nothing when it frees one,
 * but a bufferevent it has freed has no callbacks left: the connections are
 * swept then (before each new one is counted, and once a second), and our
 * reference, the last, closes the socket.
 *
 * At the limit, a new connection is not refused: the oldest idle one of the
 * peer that holds the most is closed instead ("evicted"). One client that
 * opens connections and sends nothing (or a request a byte a second) thus
 * only ever competes with itself, and a scrape, which asks at once, gets
 * its answer. A connection is idle from its accept or its last answer
 * until a byte of its next request comes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include "metrics-server.h"

#define SWEEP_S	     1
#define READ_HIGH_WM 65536 /* what a connection reads ahead, even one evhttp let go of */

struct conn {
	struct jank_metrics_server *srv;
	struct bufferevent *bev; /* evhttp's, and one reference of ours */
	struct event *deadline;
	bool excess; /* over the connection limit, or evicted: being closed */
	bool evicted;
	int64_t idle_since; /* accepted, or last answered (monotonic ns) */
	struct conn *prev, *next;
};

struct jank_metrics_server {
	struct event_base *base;
	struct evhttp *http;
	struct event *sweep;
	jank_metrics_server_fn fn;		/* the metrics, or ... */
	jank_metrics_server_handler_fn handler; /* ... any page (the web pages) */
	void *data;
	char address[JANK_METRICS_SERVER_ADDRESS_LEN]; /* HOST:PORT, [HOST]:PORT for IPv6 */
	struct conn *conns;
	size_t nconns; /* those within the limit: the others are being closed */
	struct jank_metrics_http_stats stats;
};

/* evhttp has freed its connection: bufferevent_free() clears the callbacks. */
static bool released(const struct conn *c)
{
	bufferevent_event_cb eventcb = NULL;

	bufferevent_getcb(c->bev, NULL, NULL, &eventcb, NULL);
	return eventcb == NULL;
}

/* Forget a released connection: our reference was the last, the socket closes. */
static void conn_free(struct conn *c)
{
	struct jank_metrics_server *s = c->srv;

	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns -= !c->excess;
	event_free(c->deadline);
	bufferevent_decref(c->bev);
	free(c);
}

static void evict(struct conn *c);
static bool is_idle(const struct conn *c);
static void peer_of(const struct conn *c, char *buf, size_t len);
static size_t peer_count(struct jank_metrics_server *s, const char *peer);

/*
 * A peer over its share: evict its idle connections, oldest first, until it
 * holds JANK_METRICS_SERVER_MAX_PER_PEER (the list is newest first). On a
 * connection's first sweep, its address is known.
 */
static void bound_peers(struct jank_metrics_server *s)
{
	char p[INET6_ADDRSTRLEN];
	struct conn *last = s->conns;

	while (last && last->next)
		last = last->next;
	for (struct conn *c = last; c; c = c->prev) {
		if (!is_idle(c))
			continue;
		peer_of(c, p, sizeof(p));
		if (p[0] && peer_count(s, p) > JANK_METRICS_SERVER_MAX_PER_PEER)
			evict(c);
	}
}

static void sweep(struct jank_metrics_server *s)
{
	struct conn *next;

	for (struct conn *c = s->conns; c; c = next) {
		next = c->next;
		if (released(c))
			conn_free(c);
	}
}

static void on_sweep(evutil_socket_t fd, short what, void *data)
{
	(void)fd;
	(void)what;
	sweep(data);
	bound_peers(data);
}

/* Past its deadline, or one too many: evhttp sees the peer go, and frees the connection. */
static void on_deadline(evutil_socket_t fd, short what, void *data)
{
	struct conn *c = data;
	evutil_socket_t sock = bufferevent_getfd(c->bev);

	(void)fd;
	(void)what;
	if (released(c)) {
		conn_free(c);
		return;
	}
	if (c->evicted)
		c->srv->stats.evicted++;
	else if (c->excess)
		c->srv->stats.rejected++;
	else
		c->srv->stats.timed_out++;
	if (sock >= 0)
		shutdown(sock, SHUT_RDWR);
}

static void arm_deadline(struct conn *c, int seconds)
{
	struct timeval tv = { seconds, 0 };

	event_add(c->deadline, &tv);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The peer's address, without its port: "" when unknown. */
static void peer_of(const struct conn *c, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	evutil_socket_t fd = bufferevent_getfd(c->bev);
	const void *addr = NULL;

	buf[0] = '\0';
	if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &sl) != 0)
		return;
	if (ss.ss_family == AF_INET)
		addr = &((struct sockaddr_in *)&ss)->sin_addr;
	else if (ss.ss_family == AF_INET6)
		addr = &((struct sockaddr_in6 *)&ss)->sin6_addr;
	if (!addr || !inet_ntop(ss.ss_family, addr, buf, (socklen_t)len))
		buf[0] = '\0';
}

static size_t peer_count(struct jank_metrics_server *s, const char *peer)
{
	char p[INET6_ADDRSTRLEN];
	size_t n = 0;

	for (struct conn *c = s->conns; c; c = c->next) {
		if (c->excess)
			continue;
		peer_of(c, p, sizeof(p));
		n += !strcmp(p, peer);
	}
	return n;
}

/*
 * Idle: accepted or answered, and nothing of a request has come since (not
 * in our input buffer, nor in the socket's): a client that has begun to ask
 * is never evicted.
 */
static bool is_idle(const struct conn *c)
{
	evutil_socket_t fd = bufferevent_getfd(c->bev);
	int pending = 0;

	if (c->excess || c->idle_since == 0)
		return false;
	if (evbuffer_get_length(bufferevent_get_input(c->bev)) > 0)
		return false;
	return fd < 0 || ioctl(fd, FIONREAD, &pending) != 0 || pending == 0;
}

/*
 * At the limit: the connection to close so that a new one can be served.
 * Among the idle ones (no request being answered), those of the peer with
 * the most connections, and of these the one idle longest. NULL when every
 * connection is busy.
 */
static struct conn *victim(struct jank_metrics_server *s)
{
	struct conn *best = NULL;
	size_t best_n = 0;
	char p[INET6_ADDRSTRLEN];

	for (struct conn *c = s->conns; c; c = c->next) {
		size_t n;

		if (!is_idle(c))
			continue;
		peer_of(c, p, sizeof(p));
		n = peer_count(s, p);
		if (!best || n > best_n || (n == best_n && c->idle_since < best->idle_since)) {
			best = c;
			best_n = n;
		}
	}
	return best;
}

static void evict(struct conn *c)
{
	c->excess = true;
	c->evicted = true;
	c->srv->nconns--;
	arm_deadline(c, 0);
}

/* evhttp's bufferevent for a new connection (no fd yet: evhttp sets it). */
static struct bufferevent *new_conn(struct event_base *base, void *data)
{
	struct jank_metrics_server *s = data;
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL; /* evhttp makes one of its own: served, but not counted */
	c->srv = s;
	c->deadline = evtimer_new(base, on_deadline, c);
	if (c->deadline)
		c->bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev) {
		if (c->deadline)
			event_free(c->deadline);
		free(c);
		return NULL;
	}
	bufferevent_incref(c->bev);
	bufferevent_setwatermark(c->bev, EV_READ, 0, READ_HIGH_WM);
	sweep(s); /* count only the connections still open */
	if (s->nconns >= JANK_METRICS_SERVER_MAX_CONNECTIONS) {
		struct conn *v = victim(s);

		if (v)
			evict(v);
	}
	c->excess = s->nconns >= JANK_METRICS_SERVER_MAX_CONNECTIONS;
	c->idle_since = now_ns();
	c->next = s->conns;
	if (c->next)
		c->next->prev = c;
	s->conns = c;
	s->nconns += !c->excess;
	arm_deadline(c, c->excess ? 0 : JANK_METRICS_SERVER_TIMEOUT_S);
	return c->bev;
}

static struct conn *find_conn(struct jank_metrics_server *s, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;

	for (struct conn *c = s->conns; c; c = c->next)
		if (c->bev == bev)
			return c;
	return NULL;
}

static void free_body(const void *data, size_t len, void *extra)
{
	(void)len;
	(void)extra;
	free((void *)data);
}

static void send_metrics(struct jank_metrics_server *s, struct evhttp_request *req)
{
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	enum jank_metrics_format f = jank_metrics_negotiate(evhttp_find_header(in, "Accept"));
	struct evbuffer *body = evbuffer_new();
	size_t len = 0;
	char *text = body ? s->fn(f, &len, s->data) : NULL;

	if (!text || evbuffer_add_reference(body, text, len, free_body, NULL) != 0) {
		free(text);
		if (body)
			evbuffer_free(body);
		evhttp_send_error(req, HTTP_INTERNAL, "out of memory");
		return;
	}
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  jank_metrics_content_type(f));
	evhttp_send_reply(req, HTTP_OK, "OK", body);
	evbuffer_free(body);
	s->stats.requests++;
}

static void on_request(struct evhttp_request *req, void *data)
{
	struct jank_metrics_server *s = data;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	struct conn *c = find_conn(s, req);

	if (c)
		c->idle_since = 0; /* answering: not to be evicted */
	if (s->handler) {
		s->handler(req, path ? path : "", s->data);
		s->stats.requests++;
	} else if (path && !strcmp(path, "/metrics"))
		send_metrics(s, req);
	else
		evhttp_send_error(req, HTTP_NOTFOUND, "jankd serves /metrics only");
	/* The next request, on a kept-alive connection, has a deadline of its own. */
	if (c && !c->excess)
		arm_deadline(c, JANK_METRICS_SERVER_TIMEOUT_S);
	if (c)
		c->idle_since = now_ns();
}

static struct jank_metrics_server *server_open(struct event_base *base, const char *host,
					       unsigned port, jank_metrics_server_fn fn,
					       jank_metrics_server_handler_fn handler, void *data,
					       char *err, size_t errlen)
{
	struct jank_metrics_server *s = calloc(1, sizeof(*s));
	struct timeval tv = { JANK_METRICS_SERVER_TIMEOUT_S, 0 };

	struct timeval every = { SWEEP_S, 0 };

	if (!s || !(s->http = evhttp_new(base)) ||
	    !(s->sweep = event_new(base, -1, EV_PERSIST, on_sweep, s)) ||
	    event_add(s->sweep, &every) != 0) {
		snprintf(err, errlen, "out of memory");
		if (s && s->http)
			evhttp_free(s->http);
		if (s && s->sweep)
			event_free(s->sweep);
		free(s);
		return NULL;
	}
	s->base = base;
	s->fn = fn;
	s->handler = handler;
	s->data = data;
	snprintf(s->address, sizeof(s->address), "%s%s%s:%u", strchr(host, ':') ? "[" : "", host,
		 strchr(host, ':') ? "]" : "", port);
	evhttp_set_timeout_tv(s->http, &tv);
	evhttp_set_max_headers_size(s->http, JANK_METRICS_SERVER_MAX_HEADERS);
	evhttp_set_max_body_size(s->http, 0);
	evhttp_set_allowed_methods(s->http, EVHTTP_REQ_GET);
	evhttp_set_bevcb(s->http, new_conn, s);
	evhttp_set_gencb(s->http, on_request, s);
	errno = 0;
	if (!evhttp_bind_socket_with_handle(s->http, host, (ev_uint16_t)port)) {
		snprintf(err, errlen, "cannot listen on %s: %s", s->address,
			 errno ? strerror(errno) : "no such address");
		evhttp_free(s->http);
		event_free(s->sweep);
		free(s);
		return NULL;
	}
	return s;
}

struct jank_metrics_server *jank_metrics_server_open(struct event_base *base, const char *host,
						     unsigned port, jank_metrics_server_fn fn,
						     void *data, char *err, size_t errlen)
{
	return server_open(base, host, port, fn, NULL, data, err, errlen);
}

struct jank_metrics_server *jank_metrics_server_open_web(struct event_base *base, const char *host,
							 unsigned port,
							 jank_metrics_server_handler_fn handler,
							 void *data, char *err, size_t errlen)
{
	return server_open(base, host, port, NULL, handler, data, err, errlen);
}

void jank_metrics_server_close(struct jank_metrics_server *s)
{
	if (!s)
		return;
	evhttp_free(s->http); /* releases every connection */
	while (s->conns)
		conn_free(s->conns);
	event_free(s->sweep);
	free(s);
}

const char *jank_metrics_server_address(const struct jank_metrics_server *s)
{
	return s->address;
}

void jank_metrics_server_get_stats(const struct jank_metrics_server *s,
				   struct jank_metrics_http_stats *out)
{
	*out = s->stats;
}
