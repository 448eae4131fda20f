/* SPDX-License-Identifier: MIT */
/*
 * The relayd broker: how a worker reaches its relayd without the right to
 * make a socket.
 *
 * A worker's seccomp filter kills it on socket(2) for the Internet
 * families, connect(2) and bind(2) (worker-sandbox.c): a worker a crafted
 * trace took over can reach nothing. Yet it must reach one address, its
 * input's relayd. So the supervisor keeps a third channel per worker (a
 * SOCK_SEQPACKET socketpair, the worker's end on JANK_RELAYD_FD; through
 * the spawner, jankd passes it with the worker's socket) and answers one
 * question only:
 *
 *   worker -> supervisor  struct jank_relayd_request {magic, seq}
 *   supervisor -> worker  struct jank_relayd_reply {magic, seq, error},
 *                         and when error is 0 a TCP socket connected to the
 *                         relayd of that worker's input (SCM_RIGHTS)
 *
 * The request names no address: the supervisor connects to the host and
 * live port of the URL it gave the worker (net://HOST[:PORT]/..., 5344
 * when none), resolved by the supervisor, and checks that the socket's
 * peer is that address before passing it. The connection is made without
 * blocking the supervisor's loop (at most JANK_RELAYD_CONNECT_MS); a
 * worker asks again for each new connection (a reconnection after relayd
 * restarted asks again). A packet that is not exactly one request closes
 * the channel.
 *
 * The worker's side is jank's own live client (io/trace-live.c) or
 * babeltrace2's lttng-live plugin, which call getaddrinfo() or
 * gethostbyname(), socket() and connect() through libc. jankd's executable
 * defines those (the dlopen'ed plugin binds to them too): in a worker with
 * a channel, the lookups answer without a name lookup (loopback's address:
 * the supervisor resolves), socket(AF_INET or AF_INET6, SOCK_STREAM) gives a
 * placeholder (/dev/null, read-only: no socket is made), and connect() on
 * a placeholder asks the supervisor and puts the connected socket in its
 * place (dup3), or fails with the supervisor's errno (ECONNREFUSED...).
 * Everywhere else (the supervisor, the spawner, a worker without a
 * channel) they are the system calls: in a worker, its filter then kills
 * it.
 */
#ifndef JANK_RELAYD_BROKER_H
#define JANK_RELAYD_BROKER_H

#include <stdint.h>
#include <event2/event.h>

#define JANK_RELAYD_FD	       5	   /* the worker's end, beside JANK_OPENER_FD */
#define JANK_RELAYD_MAGIC      0x6a6b726cu /* "jkrl" */
#define JANK_RELAYD_PORT       5344	   /* relayd's live port when the URL names none */
#define JANK_RELAYD_CONNECT_MS 5000	   /* the supervisor's connect, at most */
#define JANK_RELAYD_REPLY_MS   (JANK_RELAYD_CONNECT_MS + 1000) /* the worker's wait */

struct jank_relayd_request {
	uint32_t magic, seq;
};

struct jank_relayd_reply {
	uint32_t magic, seq;
	int32_t error; /* 0: a descriptor comes with it; else an errno */
	uint32_t pad;
};

/* ---- The supervisor's side ---- */

/*
 * The relayd of `url` (net://HOST[:PORT][/...], HOST an [IPv6] in
 * brackets): its host into `host` and its port into *port. 0, or -EINVAL.
 */
int jank_relayd_url_addr(const char *url, char *host, size_t len, unsigned *port);

struct jank_relayd_conn;
/*
 * Serve requests on `fd` (taken: closed by _free) from the loop `base`, by
 * connections to the relayd of `url` only. `name` prefixes its log lines.
 * NULL: out of memory, or a URL without a relayd address.
 */
struct jank_relayd_conn *jank_relayd_conn_new(struct event_base *base, int fd, const char *name,
					      const char *url);
void jank_relayd_conn_free(struct jank_relayd_conn *c);
/* Connections passed so far, and requests that got an error. */
void jank_relayd_conn_counts(const struct jank_relayd_conn *c, uint64_t *passed, uint64_t *failed);

/* ---- The worker's side ---- */

/* Take JANK_RELAYD_FD if the supervisor gave one; call first, before any other descriptor. */
void jank_relayd_client_init(void);
/* 1 when the worker has a channel to the broker. */
int jank_relayd_client_ready(void);
/*
 * Ask for a connected socket: a descriptor, or -errno (the supervisor's,
 * ETIMEDOUT: no answer in JANK_RELAYD_REPLY_MS; ENOTCONN: no channel, or
 * it closed).
 */
int jank_relayd_client_connect(void);

#endif
