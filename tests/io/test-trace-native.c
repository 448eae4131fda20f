/* SPDX-License-Identifier: MIT */
/*
 * io/trace-native.c on packets made here: tests/data/ctf-lttng's metadata,
 * and a stream file of its first packet followed by empty packets whose
 * counters (packet_seq_num, events_discarded) this test chooses.
 *
 *   counted    counters that grow: the events the tracer discarded and
 *              the packets missing from the sequence are counted
 *   backward   counters below the previous packet's (writers sharing a
 *              buffer end its packets out of order): nothing counted, not
 *              2^64, and the highest seen stays the base
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "engine.h"
#include "trace-reader.h"

/* The layout of the fixture's packet header and context (all little-endian). */
#define OFF_TS_BEGIN	 32
#define OFF_TS_END	 40
#define OFF_CONTENT_SIZE 48
#define OFF_PACKET_SIZE	 56
#define OFF_SEQ		 64
#define OFF_DISCARDED	 72
#define EMPTY_PACKET	 88 /* header and context (84 bytes), padded */

struct empty_packet {
	uint64_t begin, end, seq, discarded;
};

static char dir[] = "/tmp/jank-test-native.XXXXXX";

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static size_t slurp(const char *path, uint8_t *buf, size_t cap)
{
	FILE *fp = fopen(path, "rb");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, cap, fp);
	fclose(fp);
	assert_true(n > EMPTY_PACKET && n < cap);
	return n;
}

static void spill(const char *path, const uint8_t *buf, size_t n)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

/* The trace: the fixture's metadata, channel0_0's packet, then `n` empty packets. */
static void make_trace(const struct empty_packet *pk, size_t n)
{
	const char *srcdir = getenv("top_srcdir");
	char src[4096], path[4096];
	uint8_t buf[1 << 16];
	size_t len, first;

	snprintf(src, sizeof(src), "%s/tests/data/ctf-lttng/metadata", srcdir ? srcdir : ".");
	len = slurp(src, buf, sizeof(buf));
	snprintf(path, sizeof(path), "%s/metadata", dir);
	spill(path, buf, len);

	snprintf(src, sizeof(src), "%s/tests/data/ctf-lttng/channel0_0", srcdir ? srcdir : ".");
	first = slurp(src, buf, sizeof(buf));
	len = first;
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = buf + len;

		assert_true(len + EMPTY_PACKET <= sizeof(buf));
		memcpy(p, buf, EMPTY_PACKET); /* the first packet's header: magic, uuid, stream */
		memset(p + OFF_TS_BEGIN, 0, EMPTY_PACKET - OFF_TS_BEGIN);
		put64(p + OFF_TS_BEGIN, pk[i].begin);
		put64(p + OFF_TS_END, pk[i].end);
		put64(p + OFF_CONTENT_SIZE, 84 * 8);
		put64(p + OFF_PACKET_SIZE, EMPTY_PACKET * 8);
		put64(p + OFF_SEQ, pk[i].seq);
		put64(p + OFF_DISCARDED, pk[i].discarded);
		len += EMPTY_PACKET;
	}
	snprintf(path, sizeof(path), "%s/channel0_0", dir);
	spill(path, buf, len);
}

/* What the native decoder says the tracer discarded in the trace made. */
static uint64_t discarded(void)
{
	const char *paths[] = { dir };
	struct jank_engine_config ec;
	struct jank_engine *e;
	struct jank_reader *in;
	struct jank_reader_stats st;
	char err[512] = "";

	jank_engine_config_defaults(&ec);
	e = jank_engine_new(&ec);
	assert_non_null(e);
	jank_reader_set_decoder(JANK_DECODER_NATIVE);
	in = jank_reader_new_ctf(paths, 1, e, err, sizeof(err));
	if (!in)
		fail_msg("cannot open the trace: %s", err);
	if (jank_reader_run_all(in) != JANK_READER_STATUS_END)
		fail_msg("reading failed: %s", jank_reader_error(in));
	jank_reader_get_stats(in, &st);
	jank_reader_free(in);
	jank_engine_free(e);
	assert_true(st.events > 0);
	return st.discarded;
}

static void test_counted(void **state)
{
	/* 7 events discarded before the second packet; packets 2 to 4 missing before the third. */
	const struct empty_packet pk[] = {
		{ 2000000, 3000000, 1, 7 },
		{ 4000000, 5000000, 5, 7 },
	};

	(void)state;
	make_trace(pk, 2);
	assert_int_equal(discarded(), 7 + 3);
}

static void test_backward(void **state)
{
	/*
	 * 7 events discarded; then both counters below (nothing); then 5
	 * events, still below the highest (nothing); then 9: 2 more. The
	 * sequence: 1, 0, 1, 2, no packet missing.
	 */
	const struct empty_packet pk[] = {
		{ 2000000, 3000000, 1, 7 },
		{ 4000000, 5000000, 0, 3 },
		{ 6000000, 7000000, 1, 5 },
		{ 8000000, 9000000, 2, 9 },
	};

	(void)state;
	make_trace(pk, 4);
	assert_int_equal(discarded(), 7 + 2);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/channel0_0", dir);
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counted),
		cmocka_unit_test(test_backward),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
