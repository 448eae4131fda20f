/* SPDX-License-Identifier: MIT */
/*
 * daemon/journal.c: entries as journald's native datagrams, the bounded
 * queue (drop the oldest, count), and delivery on a real datagram socket
 * standing for journald: one that does not read (stopped), one that goes
 * away and a new one on the same path (restarted), one that is only a
 * little behind (a burst), and the exit drain.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "journal.h"

/* ---- Entries ---- */

/* The value of KEY in a datagram, as a string ("" when absent; NULL when malformed). */
static const char *field(const char *data, size_t len, const char *key, char *buf, size_t blen)
{
	const char *k, *v;
	size_t pos = 0, kn, vn;
	int r;

	buf[0] = '\0';
	while ((r = jank_journal_field_next(data, len, &pos, &k, &kn, &v, &vn)) == 1)
		if (kn == strlen(key) && !memcmp(k, key, kn)) {
			snprintf(buf, blen, "%.*s", (int)vn, v);
			return buf;
		}
	return r < 0 ? NULL : buf;
}

static void entry_format(void **state)
{
	struct jank_journal_entry e;
	static const char expect[] = "MESSAGE=JANK frame: 60 ms\n"
				     "JANK_PID=42\n"
				     "JANK_CRITICAL_PATH\n\x06\0\0\0\0\0\0\0a\nb\xff\x01z\n"
				     "EMPTY=\n";

	(void)state;
	jank_journal_entry_init(&e);
	jank_journal_entry_add(&e, "MESSAGE", "JANK frame: 60 ms");
	jank_journal_entry_addf(&e, "JANK_PID", "%d", 42);
	/* A newline: the binary-safe form, its size as 64-bit little endian; raw bytes kept. */
	jank_journal_entry_add(&e, "JANK_CRITICAL_PATH", "a\nb\xff\x01z");
	jank_journal_entry_add(&e, "EMPTY", "");
	assert_false(e.truncated);
	assert_false(e.failed);
	assert_int_equal(e.len, sizeof(expect) - 1);
	assert_memory_equal(e.data, expect, sizeof(expect) - 1);
	jank_journal_entry_fini(&e);
	assert_null(e.data);
}

static void entry_parse(void **state)
{
	struct jank_journal_entry e;
	const char *k, *v;
	size_t pos = 0, kn, vn;
	char buf[64];

	(void)state;
	jank_journal_entry_init(&e);
	jank_journal_entry_add(&e, "A", "1");
	jank_journal_entry_add(&e, "B", "x\ny");
	jank_journal_entry_add(&e, "C", "3");
	assert_int_equal(jank_journal_field_next(e.data, e.len, &pos, &k, &kn, &v, &vn), 1);
	assert_int_equal(kn, 1);
	assert_memory_equal(k, "A", 1);
	assert_int_equal(vn, 1);
	assert_int_equal(jank_journal_field_next(e.data, e.len, &pos, &k, &kn, &v, &vn), 1);
	assert_int_equal(vn, 3);
	assert_memory_equal(v, "x\ny", 3);
	assert_int_equal(jank_journal_field_next(e.data, e.len, &pos, &k, &kn, &v, &vn), 1);
	assert_int_equal(jank_journal_field_next(e.data, e.len, &pos, &k, &kn, &v, &vn), 0);
	assert_string_equal(field(e.data, e.len, "C", buf, sizeof(buf)), "3");
	/* Malformed: cut inside the binary field, a size past the end, no '=' or newline. */
	assert_null(field(e.data, 8, "C", buf, sizeof(buf)));
	assert_null(field("B\n\xff\0\0\0\0\0\0\0x\n", 19, "Z", buf, sizeof(buf)));
	assert_null(field("NOEND", 5, "Z", buf, sizeof(buf)));
	assert_null(field("=x\n", 3, "Z", buf, sizeof(buf)));
	jank_journal_entry_fini(&e);
}

static void entry_limits(void **state)
{
	struct jank_journal_entry e;
	char *big = malloc(JANK_JOURNAL_FIELD_MAX + 100), buf[8];
	size_t n = 0;

	(void)state;
	assert_non_null(big);
	memset(big, 'x', JANK_JOURNAL_FIELD_MAX + 99);
	big[JANK_JOURNAL_FIELD_MAX + 99] = '\0';
	jank_journal_entry_init(&e);
	/* Bad keys are left out: lower case, a leading '_' (trusted fields), empty. */
	jank_journal_entry_add(&e, "message", "x");
	jank_journal_entry_add(&e, "_PID", "1");
	jank_journal_entry_add(&e, "", "1");
	assert_int_equal(e.len, 0);
	assert_true(e.truncated);
	jank_journal_entry_fini(&e);

	jank_journal_entry_init(&e);
	jank_journal_entry_add(&e, "BIG", big);
	assert_true(e.truncated);
	assert_int_equal(e.len, strlen("BIG=") + JANK_JOURNAL_FIELD_MAX + 1);
	/* Fields that would take the entry past its limit are left out. */
	for (int i = 0; i < 8; i++)
		jank_journal_entry_add(&e, "BIG", big);
	assert_true(e.len <= JANK_JOURNAL_ENTRY_MAX);
	jank_journal_entry_add(&e, "SMALL", "s");
	assert_string_equal(field(e.data, e.len, "SMALL", buf, sizeof(buf)), "s");
	{
		const char *k, *v;
		size_t pos = 0, kn, vn;

		while (jank_journal_field_next(e.data, e.len, &pos, &k, &kn, &v, &vn) == 1)
			n++;
	}
	/* Three BIG fields (32 KiB + 5 each) fit in 128 KiB, the fourth does not; SMALL does. */
	assert_int_equal(n, 4);
	jank_journal_entry_fini(&e);
	free(big);
}

/* ---- The queue ---- */

static char *dup_str(const char *s)
{
	char *p = strdup(s);

	assert_non_null(p);
	return p;
}

static void queue_drop_oldest(void **state)
{
	struct jank_journal_queue q;
	const struct jank_journal_item *it;
	char name[16];

	(void)state;
	assert_int_equal(jank_journal_queue_init(&q, 3, 1 << 20), 0);
	assert_null(jank_journal_queue_head(&q));
	for (int i = 1; i <= 3; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		assert_int_equal(
			jank_journal_queue_push(&q, dup_str(name), 2,
						i == 1 ? JANK_JOURNAL_ALERT : JANK_JOURNAL_OTHER),
			0);
	}
	assert_int_equal(q.n, 3);
	assert_int_equal(q.bytes, 6);
	/* Full: each new one drops the oldest, counted by the dropped one's class. */
	assert_int_equal(jank_journal_queue_push(&q, dup_str("e4"), 2, JANK_JOURNAL_ALERT), 1);
	assert_int_equal(q.dropped[JANK_JOURNAL_ALERT], 1);
	assert_int_equal(q.dropped[JANK_JOURNAL_OTHER], 0);
	assert_int_equal(jank_journal_queue_push(&q, dup_str("e5"), 2, JANK_JOURNAL_ALERT), 1);
	assert_int_equal(q.dropped[JANK_JOURNAL_OTHER], 1);
	assert_int_equal(q.n, 3);
	/* In order, the newest three. */
	for (int i = 3; i <= 5; i++) {
		it = jank_journal_queue_head(&q);
		assert_non_null(it);
		snprintf(name, sizeof(name), "e%d", i);
		assert_string_equal(it->data, name);
		jank_journal_queue_pop(&q);
	}
	assert_null(jank_journal_queue_head(&q));
	assert_int_equal(q.bytes, 0);
	/* Around the ring's end. */
	for (int i = 0; i < 7; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		jank_journal_queue_push(&q, dup_str(name), 2, JANK_JOURNAL_OTHER);
	}
	assert_string_equal(jank_journal_queue_head(&q)->data, "r4");
	assert_int_equal(q.dropped[JANK_JOURNAL_OTHER], 5);
	jank_journal_queue_fini(&q);
}

static void queue_bytes(void **state)
{
	struct jank_journal_queue q;

	(void)state;
	assert_int_equal(jank_journal_queue_init(&q, 100, 10), 0);
	jank_journal_queue_push(&q, dup_str("aaaa"), 4, JANK_JOURNAL_ALERT);
	jank_journal_queue_push(&q, dup_str("bbbb"), 4, JANK_JOURNAL_ALERT);
	assert_int_equal(q.n, 2);
	/* 12 bytes > 10: the oldest goes. */
	assert_int_equal(jank_journal_queue_push(&q, dup_str("cccc"), 4, JANK_JOURNAL_ALERT), 1);
	assert_int_equal(q.bytes, 8);
	assert_string_equal(jank_journal_queue_head(&q)->data, "bbbb");
	/* Larger than the whole queue: dropped itself, the others stay. */
	assert_int_equal(
		jank_journal_queue_push(&q, dup_str("0123456789a"), 11, JANK_JOURNAL_OTHER), 1);
	assert_int_equal(q.n, 2);
	assert_int_equal(q.dropped[JANK_JOURNAL_OTHER], 1);
	assert_int_equal(q.dropped[JANK_JOURNAL_ALERT], 1);
	jank_journal_queue_fini(&q);
}

/* ---- Delivery on a socket standing for journald ---- */

struct fake {
	char dir[48];
	char path[96];
	int fd;
};

static void fake_bind(struct fake *f)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	f->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(f->fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	unlink(f->path);
	assert_int_equal(bind(f->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/jank-journal.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/socket", f->dir);
	f->fd = -1;
	*state = f;
	/* A send that blocks would hang the test: fail it instead. */
	alarm(20);
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;

	alarm(0);
	jank_journal_reset(NULL, 0, 0);
	if (f->fd >= 0)
		close(f->fd);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static enum jank_journal_result send_one(const char *msg, enum jank_journal_class cls)
{
	struct jank_journal_entry e;

	jank_journal_entry_init(&e);
	jank_journal_entry_add(&e, "MESSAGE", msg);
	jank_journal_entry_add(&e, "SYSLOG_IDENTIFIER", "jank-test");
	return jank_journal_send(cls, &e);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* The next datagram, or -1 when none waits. */
static ssize_t fake_recv(struct fake *f, char *buf, size_t len)
{
	return recv(f->fd, buf, len, MSG_DONTWAIT);
}

static void never_reached(void **state)
{
	struct fake *f = *state;
	struct jank_journal_stats s;

	/* No socket at all: the caller writes it on stderr; nothing waits. */
	jank_journal_reset(f->path, 4, 1 << 20);
	assert_int_equal(send_one("first", JANK_JOURNAL_ALERT), JANK_JOURNAL_STDERR);
	jank_journal_get_stats(&s);
	assert_false(s.reached);
	assert_int_equal(s.pending, 0);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].to_stderr, 1);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].queued, 0);
	/* journald appears: from then on, it gets them. */
	fake_bind(f);
	assert_int_equal(send_one("second", JANK_JOURNAL_ALERT), JANK_JOURNAL_SENT);
	jank_journal_get_stats(&s);
	assert_true(s.reached);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].sent, 1);
}

/*
 * journald stops reading: sends never block, the queue holds the newest
 * `max` entries and counts the rest as dropped; when it reads again, the
 * queue goes in order, then one entry says how it went.
 */
static void stopped_then_back(void **state)
{
	struct fake *f = *state;
	struct jank_journal_stats s;
	char buf[4096], v[64], msg[32];
	int i, first_queued = -1, total;
	ssize_t n;
	int expect, got_back = 0;

	jank_journal_reset(f->path, 8, 1 << 20);
	fake_bind(f);
	for (i = 0; i < 100000 && first_queued < 0; i++) {
		snprintf(msg, sizeof(msg), "n=%d", i);
		if (send_one(msg, JANK_JOURNAL_ALERT) == JANK_JOURNAL_QUEUED)
			first_queued = i;
	}
	assert_true(first_queued > 0);
	total = first_queued + 20;
	for (i = first_queued + 1; i < total; i++) {
		snprintf(msg, sizeof(msg), "n=%d", i);
		assert_int_equal(send_one(msg, JANK_JOURNAL_ALERT), JANK_JOURNAL_QUEUED);
	}
	jank_journal_retry(); /* still full: nothing moves, nothing blocks */
	jank_journal_get_stats(&s);
	assert_true(s.outage);
	assert_int_equal(s.outages, 1);
	assert_int_equal(s.pending, 8);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].sent, first_queued);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].queued, 20);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].dropped, 12);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].late, 0);

	/* journald reads again: what it had, then the 8 newest, in order, then the news. */
	expect = 0;
	for (int round = 0; round < 1000 && !got_back; round++) {
		while ((n = fake_recv(f, buf, sizeof(buf))) > 0) {
			assert_non_null(field(buf, (size_t)n, "MESSAGE", v, sizeof(v)));
			if (!strncmp(v, "journald is accepting entries again", 35)) {
				assert_int_equal(expect, total);
				assert_string_equal(
					field(buf, (size_t)n, "JANK_LATE", v, sizeof(v)), "8");
				assert_string_equal(
					field(buf, (size_t)n, "JANK_DROPPED", v, sizeof(v)), "12");
				got_back = 1;
				continue;
			}
			snprintf(msg, sizeof(msg), "n=%d", expect);
			assert_string_equal(v, msg);
			expect++;
			if (expect == first_queued)
				expect = total - 8; /* 12 dropped, the oldest of those queued */
		}
		jank_journal_retry();
	}
	assert_true(got_back);
	jank_journal_get_stats(&s);
	assert_false(s.outage);
	assert_int_equal(s.pending, 0);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].sent, first_queued + 8);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].late, 8);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].dropped, 12);
	assert_int_equal(s.counts[JANK_JOURNAL_OTHER].sent, 1); /* the news */
	/* Accepting again: no new outage. */
	assert_int_equal(send_one("after", JANK_JOURNAL_OTHER), JANK_JOURNAL_SENT);
	jank_journal_get_stats(&s);
	assert_int_equal(s.outages, 1);
}

/*
 * journald is a little behind (a burst over its socket's queue), and
 * catches up at once: the entries wait and go, counted late, and that is
 * not an outage (nothing on stderr, no entry about it).
 */
static void burst(void **state)
{
	struct fake *f = *state;
	struct jank_journal_stats s;
	char buf[4096], v[64], msg[32];
	int i, first_queued = -1, got = 0;
	ssize_t n;

	jank_journal_reset(f->path, 8, 1 << 20);
	fake_bind(f);
	for (i = 0; i < 100000 && first_queued < 0; i++) {
		snprintf(msg, sizeof(msg), "n=%d", i);
		if (send_one(msg, JANK_JOURNAL_ALERT) == JANK_JOURNAL_QUEUED)
			first_queued = i;
	}
	assert_true(first_queued > 0);
	for (i = first_queued + 1; i < first_queued + 4; i++) {
		snprintf(msg, sizeof(msg), "n=%d", i);
		assert_int_equal(send_one(msg, JANK_JOURNAL_ALERT), JANK_JOURNAL_QUEUED);
	}
	for (int round = 0; round < 1000 && got < first_queued + 4; round++) {
		while ((n = fake_recv(f, buf, sizeof(buf))) > 0) {
			field(buf, (size_t)n, "MESSAGE", v, sizeof(v));
			snprintf(msg, sizeof(msg), "n=%d", got++);
			assert_string_equal(v, msg);
		}
		jank_journal_retry();
	}
	assert_int_equal(got, first_queued + 4);
	assert_true(fake_recv(f, buf, sizeof(buf)) < 0); /* no news */
	jank_journal_get_stats(&s);
	assert_false(s.backlog);
	assert_int_equal(s.outages, 0);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].queued, 4);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].late, 4);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].dropped, 0);
	assert_int_equal(s.counts[JANK_JOURNAL_OTHER].sent, 0);
}

/* journald dies; a new one binds the same path: what waited goes to the new one. */
static void restarted(void **state)
{
	struct fake *f = *state;
	struct jank_journal_stats s;
	char buf[4096], v[64];
	ssize_t n;
	int got = 0;

	jank_journal_reset(f->path, 8, 1 << 20);
	fake_bind(f);
	assert_int_equal(send_one("before", JANK_JOURNAL_ALERT), JANK_JOURNAL_SENT);
	close(f->fd);
	f->fd = -1;
	/* Gone: the socket file stays, nobody is bound to it (connection refused). */
	assert_int_equal(send_one("meanwhile 1", JANK_JOURNAL_ALERT), JANK_JOURNAL_QUEUED);
	assert_int_equal(send_one("meanwhile 2", JANK_JOURNAL_ALERT), JANK_JOURNAL_QUEUED);
	jank_journal_retry();
	jank_journal_get_stats(&s);
	assert_true(s.backlog);
	assert_false(s.outage); /* not yet: journald may only be behind */
	assert_int_equal(s.pending, 2);
	/* Away for more than a second: an outage (the next retry says so). */
	sleep_ms(1100);
	jank_journal_retry();
	jank_journal_get_stats(&s);
	assert_true(s.outage);
	assert_int_equal(s.outages, 1);
	fake_bind(f);
	jank_journal_retry();
	while ((n = fake_recv(f, buf, sizeof(buf))) > 0) {
		field(buf, (size_t)n, "MESSAGE", v, sizeof(v));
		if (got == 0)
			assert_string_equal(v, "meanwhile 1");
		if (got == 1)
			assert_string_equal(v, "meanwhile 2");
		got++;
	}
	assert_int_equal(got, 3); /* and the news */
	jank_journal_get_stats(&s);
	assert_false(s.outage);
	assert_false(s.backlog);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].late, 2);
}

/* At exit, what journald did not take goes to stderr (a file here), counted. */
static void drain_to_stderr(void **state)
{
	struct fake *f = *state;
	struct jank_journal_stats s;
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	char out[4096];
	size_t n;

	assert_non_null(tmp);
	jank_journal_reset(f->path, 8, 1 << 20);
	fake_bind(f);
	assert_int_equal(send_one("ok", JANK_JOURNAL_ALERT), JANK_JOURNAL_SENT);
	close(f->fd);
	f->fd = -1;
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	assert_int_equal(send_one("lost 1", JANK_JOURNAL_ALERT), JANK_JOURNAL_QUEUED);
	assert_int_equal(send_one("lost 2", JANK_JOURNAL_OTHER), JANK_JOURNAL_QUEUED);
	jank_journal_drain(100000000);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	assert_non_null(strstr(out, "journald did not take 2 entries before exit"));
	assert_non_null(strstr(out, "jankd: not delivered to journald: lost 1\n"
				    "  SYSLOG_IDENTIFIER=jank-test\n"));
	assert_non_null(strstr(out, "jankd: not delivered to journald: lost 2\n"));
	jank_journal_get_stats(&s);
	assert_int_equal(s.pending, 0);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].to_stderr, 1);
	assert_int_equal(s.counts[JANK_JOURNAL_OTHER].to_stderr, 1);
	assert_int_equal(s.counts[JANK_JOURNAL_ALERT].queued, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entry_format),
		cmocka_unit_test(entry_parse),
		cmocka_unit_test(entry_limits),
		cmocka_unit_test(queue_drop_oldest),
		cmocka_unit_test(queue_bytes),
		cmocka_unit_test_setup_teardown(never_reached, setup, teardown),
		cmocka_unit_test_setup_teardown(stopped_then_back, setup, teardown),
		cmocka_unit_test_setup_teardown(burst, setup, teardown),
		cmocka_unit_test_setup_teardown(restarted, setup, teardown),
		cmocka_unit_test_setup_teardown(drain_to_stderr, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
