/* SPDX-License-Identifier: MIT */
/*
 * The metrics endpoint of jankd ([metrics] listen): libevent's HTTP server
 * on jankd's own loop. GET /metrics answers the OpenMetrics format when the
 * client's Accept asks for it (Prometheus does), else the Prometheus text
 * format; every other path is 404, every other method 405.
 *
 * A slow or hostile client must not hold the loop or its memory: at most
 * JANK_METRICS_SERVER_MAX_CONNECTIONS connections (past it, a new one
 * evicts the oldest idle connection of the peer holding the most; it is
 * closed at once only when every connection is being answered), at most
 * JANK_METRICS_SERVER_MAX_PER_PEER of them from one address, a request must arrive whole within
 * JANK_METRICS_SERVER_TIMEOUT_S of the connection or of the previous reply (a slowloris is closed
 * then), headers of at most JANK_METRICS_SERVER_MAX_HEADERS bytes (413 past it) and no body. The
 * answer is rendered on the loop (about 2 us a series: BENCHMARKS.md, "A scrape of jankd's
 * metrics").
 *
 * The same server, with the same limits, serves jankd's web pages ([web]
 * listen, daemon/http/web.c): opened with jank_metrics_server_open_web(), it hands
 * every GET to a handler of the caller's.
 */
#ifndef JANK_METRICS_SERVER_H
#define JANK_METRICS_SERVER_H

#include <stddef.h>
#include <event2/event.h>
#include "metrics.h"

#define JANK_METRICS_SERVER_MAX_CONNECTIONS 16
#define JANK_METRICS_SERVER_MAX_PER_PEER    8
#define JANK_METRICS_SERVER_TIMEOUT_S	    5
#define JANK_METRICS_SERVER_MAX_HEADERS	    8192
#define JANK_METRICS_SERVER_ADDRESS_LEN	    64

/* The exposition in format f, malloc'ed (its length in *len); NULL: out of memory. */
typedef char *(*jank_metrics_server_fn)(enum jank_metrics_format f, size_t *len, void *data);

/*
 * Answer one GET request for `path` (the URL's path, "" when it has none):
 * evhttp_send_reply() or evhttp_send_error() before returning.
 */
struct evhttp_request;
typedef void (*jank_metrics_server_handler_fn)(struct evhttp_request *req, const char *path,
					       void *data);

struct jank_metrics_server;

/*
 * Listen on host (a numeric address) and port. NULL and a message in err
 * when it cannot (the address is in use, not local, ...).
 */
struct jank_metrics_server *jank_metrics_server_open(struct event_base *base, const char *host,
						     unsigned port, jank_metrics_server_fn fn,
						     void *data, char *err, size_t errlen);
/* The same machinery (limits, deadlines, evictions) for a handler's pages. */
struct jank_metrics_server *jank_metrics_server_open_web(struct event_base *base, const char *host,
							 unsigned port,
							 jank_metrics_server_handler_fn handler,
							 void *data, char *err, size_t errlen);
/* Where it listens: "127.0.0.1:9479", "[::1]:9479". */
const char *jank_metrics_server_address(const struct jank_metrics_server *s);
/* Close every connection and stop listening. */
void jank_metrics_server_close(struct jank_metrics_server *s);
void jank_metrics_server_get_stats(const struct jank_metrics_server *s,
				   struct jank_metrics_http_stats *out);

#endif
