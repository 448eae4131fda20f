/* SPDX-License-Identifier: MIT */
/*
 * io/trace-live.c, jank's lttng-live client, against a relayd of this test
 * in a thread on 127.0.0.1 that serves tests/data/ctf-lttng (its metadata,
 * each stream file as one window of packets) as a live session.
 *
 *   clean    every reply right: the client reads the events the offline
 *            native decoder reads from the same directory
 *   hostile  by a seeded random choice, replies with statuses out of range,
 *            counts and lengths past what follows or past the limits,
 *            metadata and packet bytes flipped or cut, the connection
 *            closed halfway: each run ends in ERROR with a message, or goes
 *            on; never a crash or a read out of bounds (the sanitizer
 *            build), never a wait (every reply comes, or the connection
 *            closes)
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include "engine.h"
#include "trace-reader.h"

#define SESSION_ID  42
#define TRACE_ID    7
#define META_STREAM 100
#define NSTREAMS    2
#define HOSTNAME    "fuzz-host"
#define SESSION	    "fuzz"
#define MAX_FILE    (1 << 20)

struct file {
	uint8_t *d;
	size_t n;
};

static struct {
	struct file meta, streams[NSTREAMS];
	int lfd;
	unsigned port;
	unsigned seed;	 /* 0: every reply right */
	unsigned chance; /* of a corrupted reply, in 1/16 */
	pthread_t thread;
	volatile int stop;
} S;

static void load(struct file *f, const char *path)
{
	FILE *fp = fopen(path, "rb");

	assert_non_null(fp);
	f->d = malloc(MAX_FILE);
	assert_non_null(f->d);
	f->n = fread(f->d, 1, MAX_FILE, fp);
	fclose(fp);
	assert_true(f->n > 0);
}

/* ---- The server ---- */

struct conn {
	int fd;
	unsigned rnd;
	size_t meta_sent;
	int sent[NSTREAMS]; /* indexes sent: the window, then beacons, then hang-up */
	int announced;	    /* data streams told of */
};

struct buf {
	uint8_t d[8192];
	size_t n;
};

static unsigned rnd(struct conn *c)
{
	c->rnd = c->rnd * 1103515245u + 12345u;
	return (c->rnd >> 16) & 0x7fff;
}

static void put32(struct buf *b, uint32_t v)
{
	v = htobe32(v);
	memcpy(b->d + b->n, &v, 4);
	b->n += 4;
}

static void put64(struct buf *b, uint64_t v)
{
	v = htobe64(v);
	memcpy(b->d + b->n, &v, 8);
	b->n += 8;
}

static void put_str(struct buf *b, const char *s, size_t field)
{
	memset(b->d + b->n, 0, field);
	memcpy(b->d + b->n, s, strlen(s) < field ? strlen(s) : field);
	b->n += field;
}

static void put_stream(struct buf *b, uint64_t id, int metadata, const char *name)
{
	put64(b, id);
	put64(b, TRACE_ID);
	put32(b, (uint32_t)metadata);
	put_str(b, "fuzz-host/fuzz/ust/uid/0/64-bit", 4096);
	put_str(b, name, 255);
}

static bool send_all(int fd, const void *p, size_t n)
{
	const uint8_t *c = p;

	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

static bool recv_all(int fd, void *p, size_t n)
{
	uint8_t *c = p;

	while (n) {
		ssize_t r = recv(fd, c, n, 0);

		if (r <= 0)
			return false;
		c += r;
		n -= (size_t)r;
	}
	return true;
}

static bool corrupt(struct conn *c)
{
	return S.seed && rnd(c) % 16 < S.chance;
}

/* Send the fixed part of a reply, perhaps damaged, then `tail` bytes (perhaps cut). */
static bool reply(struct conn *c, struct buf *b, const uint8_t *tail, size_t n)
{
	if (corrupt(c)) {
		switch (rnd(c) % 4) {
		case 0: /* a status or count out of range */
			if (b->n >= 4)
				memset(b->d + (rnd(c) % (b->n / 4)) * 4, 0xff, 4);
			break;
		case 1: /* a byte flipped */
			if (b->n)
				b->d[rnd(c) % b->n] ^= (uint8_t)(1 + rnd(c) % 255);
			break;
		case 2: /* cut, then closed */
			send_all(c->fd, b->d, rnd(c) % (b->n + 1));
			return false;
		default: /* a small integer where a big one was */
			if (b->n >= 4)
				b->d[(rnd(c) % (b->n / 4)) * 4 + 3] = (uint8_t)(rnd(c) % 8);
			break;
		}
	}
	if (!send_all(c->fd, b->d, b->n))
		return false;
	if (n && corrupt(c)) {
		uint8_t *copy = malloc(n);
		size_t cut = rnd(c) % 2 ? rnd(c) % n : n;
		bool ok;

		memcpy(copy, tail, n);
		for (int i = 0; i < 4; i++)
			copy[rnd(c) % n] ^= (uint8_t)(1 + rnd(c) % 255);
		ok = send_all(c->fd, copy, cut) && cut == n;
		free(copy);
		return ok;
	}
	return !n || send_all(c->fd, tail, n);
}

static bool serve(struct conn *c)
{
	uint8_t hdr[16], p[64];
	struct buf b = { .n = 0 };
	uint64_t size, id;
	uint32_t cmd;
	int k;

	if (!recv_all(c->fd, hdr, 16))
		return false;
	memcpy(&size, hdr, 8);
	memcpy(&cmd, hdr + 8, 4);
	size = be64toh(size);
	cmd = be32toh(cmd);
	if (size > sizeof(p) || (size && !recv_all(c->fd, p, size)))
		return false;
	memcpy(&id, p, 8);
	id = be64toh(id);
	switch (cmd) {
	case 1: /* CONNECT */
		put64(&b, 1);
		put32(&b, 2);
		put32(&b, 13);
		put32(&b, 1);
		return reply(c, &b, NULL, 0);
	case 8: /* CREATE_SESSION */
		put32(&b, 1);
		return reply(c, &b, NULL, 0);
	case 2: /* LIST_SESSIONS */
		put32(&b, 1);
		put64(&b, SESSION_ID);
		put32(&b, 100000);
		put32(&b, 0);
		put32(&b, NSTREAMS);
		put_str(&b, HOSTNAME, 64);
		put_str(&b, SESSION, 255);
		return reply(c, &b, NULL, 0);
	case 3: /* ATTACH_SESSION: the metadata stream now, the data streams later */
		put32(&b, 1);
		put32(&b, 1);
		put_stream(&b, META_STREAM, 1, "metadata");
		return reply(c, &b, NULL, 0);
	case 7: /* GET_NEW_STREAMS: one data stream at a time, then none */
		if (c->announced == NSTREAMS) {
			put32(&b, 2);
			put32(&b, 0);
			return reply(c, &b, NULL, 0);
		}
		put32(&b, 1);
		put32(&b, 1);
		c->announced++;
		put_stream(&b, (uint64_t)c->announced, 0, "channel0_x");
		return reply(c, &b, NULL, 0);
	case 6: { /* GET_METADATA, in pieces of at most 1000 bytes */
		size_t n = S.meta.n - c->meta_sent;

		n = n > 1000 ? 1000 : n;
		put64(&b, n);
		put32(&b, n ? 1 : 2);
		c->meta_sent += n;
		return reply(c, &b, S.meta.d + c->meta_sent - n, n);
	}
	case 4: /* GET_NEXT_INDEX: the whole file as one window, then beacons, then hang-up */
		k = id == 1 ? 0 : id == 2 ? 1 : -1;
		if (k < 0) {
			memset(b.d, 0, 56);
			b.n = 56;
			put32(&b, 4);
			put32(&b, 0);
			return reply(c, &b, NULL, 0);
		}
		put64(&b, 0);
		put64(&b, c->sent[k] ? 0 : S.streams[k].n * 8);
		put64(&b, c->sent[k] ? 0 : S.streams[k].n * 8);
		put64(&b, 0);
		put64(&b, c->sent[k] ? UINT64_C(1) << 62 : 0);
		put64(&b, 0);
		put64(&b, 0);
		put32(&b, c->sent[k] == 0 ? 1 : c->sent[k] < 4 ? 5 : 3);
		put32(&b, c->announced < NSTREAMS ? 2 : 0);
		c->sent[k]++;
		return reply(c, &b, NULL, 0);
	case 5: { /* GET_PACKET */
		uint64_t off;
		uint32_t len;

		k = id == 1 ? 0 : id == 2 ? 1 : -1;
		memcpy(&off, p + 8, 8);
		memcpy(&len, p + 16, 4);
		off = be64toh(off);
		len = be32toh(len);
		if (k < 0 || off > S.streams[k].n || len > S.streams[k].n - off) {
			put32(&b, 3);
			put32(&b, 0);
			put32(&b, 0);
			return reply(c, &b, NULL, 0);
		}
		put32(&b, 1);
		put32(&b, len);
		put32(&b, 0);
		return reply(c, &b, S.streams[k].d + off, len);
	}
	default:
		return false;
	}
}

static void *server(void *arg)
{
	(void)arg;
	while (!S.stop) {
		struct conn c = { .rnd = S.seed };
		struct timeval tv = { .tv_usec = 100000 }; /* a client waiting for more: close */

		c.fd = accept(S.lfd, NULL, NULL);
		if (c.fd < 0)
			continue;
		setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		S.seed = S.seed ? S.seed * 7 + 1 : 0; /* each connection its own damage */
		while (serve(&c))
			;
		close(c.fd);
	}
	return NULL;
}

static int setup(void **state)
{
	const char *srcdir = getenv("top_srcdir");
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	char path[4096];
	int one = 1;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/ctf-lttng/metadata", srcdir ? srcdir : ".");
	load(&S.meta, path);
	for (int i = 0; i < NSTREAMS; i++) {
		snprintf(path, sizeof(path), "%s/tests/data/ctf-lttng/channel0_%d",
			 srcdir ? srcdir : ".", i);
		load(&S.streams[i], path);
	}
	S.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(S.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (S.lfd < 0 || bind(S.lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(S.lfd, 8) ||
	    getsockname(S.lfd, (struct sockaddr *)&sa, &len))
		return -1;
	S.port = ntohs(sa.sin_port);
	return pthread_create(&S.thread, NULL, server, NULL) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	S.stop = 1;
	shutdown(S.lfd, SHUT_RDWR); /* accept() fails: the server sees stop */
	pthread_join(S.thread, NULL);
	close(S.lfd);
	free(S.meta.d);
	for (int i = 0; i < NSTREAMS; i++)
		free(S.streams[i].d);
	return 0;
}

static struct jank_engine *engine(void)
{
	struct jank_engine_config ec;

	jank_engine_config_defaults(&ec);
	return jank_engine_new(&ec);
}

/* Run a reader on the session until ERROR or `runs` runs; its status, its event count. */
static enum jank_reader_status run(struct jank_engine *e, int runs, uint64_t *events, char *err,
				   size_t errlen)
{
	char url[128];
	struct jank_reader *in;
	struct jank_reader_stats st;
	enum jank_reader_status s = JANK_READER_STATUS_AGAIN;

	snprintf(url, sizeof(url), "net://127.0.0.1:%u/host/%s/%s", S.port, HOSTNAME, SESSION);
	in = jank_reader_new_live_native(url, e, err, errlen);
	assert_non_null(in);
	for (int i = 0; i < runs && s != JANK_READER_STATUS_ERROR; i++)
		s = jank_reader_run_once(in);
	if (s == JANK_READER_STATUS_ERROR)
		snprintf(err, errlen, "%s", jank_reader_error(in));
	jank_reader_get_stats(in, &st);
	*events = st.events;
	jank_reader_free(in);
	return s;
}

static void test_clean(void **state)
{
	const char *srcdir = getenv("top_srcdir");
	char dir[4096], err[512] = "";
	const char *paths[] = { dir };
	struct jank_engine *e = engine(), *e2 = engine();
	struct jank_reader_stats st;
	struct jank_reader *off;
	uint64_t events;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tests/data/ctf-lttng", srcdir ? srcdir : ".");
	jank_reader_set_decoder(JANK_DECODER_NATIVE);
	off = jank_reader_new_ctf(paths, 1, e2, err, sizeof(err));
	assert_non_null(off);
	assert_int_equal(jank_reader_run_all(off), JANK_READER_STATUS_END);
	jank_reader_get_stats(off, &st);
	jank_reader_free(off);
	assert_true(st.events > 0);

	S.seed = 0;
	assert_int_not_equal(run(e, 60, &events, err, sizeof(err)), JANK_READER_STATUS_ERROR);
	assert_int_equal(events, st.events);
	jank_engine_free(e);
	jank_engine_free(e2);
}

static void test_hostile(void **state)
{
	unsigned errors = 0, clean = 0;

	(void)state;
	for (unsigned seed = 1; seed <= 200; seed++) {
		struct jank_engine *e = engine();
		char err[512] = "";
		uint64_t events;

		S.seed = seed;
		S.chance = 1 + seed % 6;
		if (run(e, 40, &events, err, sizeof(err)) == JANK_READER_STATUS_ERROR) {
			assert_true(err[0] != '\0');
			errors++;
		} else {
			clean++;
		}
		jank_engine_free(e);
	}
	print_message("hostile relayd: %u runs failed with a message, %u went on\n", errors, clean);
	assert_true(errors > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
