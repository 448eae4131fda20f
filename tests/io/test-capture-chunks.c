/* SPDX-License-Identifier: MIT */
/*
 * io/capture-chunks.c: the names of lttng's archived chunks, and which a
 * capture keeps or housekeeping deletes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "capture-chunks.h"

#define MS  1000000LL
#define S   1000000000LL
#define MiB (1024ull * 1024)
/* 2024-05-01T12:00:00Z */
#define T0 (1714564800LL * S)

/* lttng 2.13's archive names: local times with their UTC offset. */
static void chunk_names(void **state)
{
	struct jank_chunk ch;

	(void)state;
	assert_int_equal(
		jank_capture_chunk_parse("20240501T140000+0200-20240501T140010+0200-3", &ch), 0);
	assert_int_equal(ch.begin_ns, T0);
	assert_int_equal(ch.end_ns, T0 + 11 * S); /* rounded up */
	assert_int_equal(ch.index, 3);
	assert_int_equal(
		jank_capture_chunk_parse("20240501T073000-0430-20240501T073005-0430-12", &ch), 0);
	assert_int_equal(ch.begin_ns, T0);
	assert_int_equal(ch.index, 12);
	assert_int_equal(jank_capture_chunk_parse("20240501T140000+0200-3", &ch),
			 -EINVAL); /* active */
	assert_int_equal(
		jank_capture_chunk_parse("20240501T140010+0200-20240501T140000+0200-3", &ch),
		-EINVAL);
	assert_int_equal(jank_capture_chunk_parse("metadata", &ch), -EINVAL);
}

static struct jank_chunk chunk(int64_t begin_s, int64_t end_s, uint64_t index)
{
	struct jank_chunk c = { .begin_ns = T0 + begin_s * S,
				.end_ns = T0 + (end_s + 1) * S,
				.index = index };

	snprintf(c.name, sizeof(c.name), "chunk-%llu", (unsigned long long)index);
	return c;
}

static void chunk_selection(void **state)
{
	/* Chunks of 10 s from T0; retention 2 s; now = T0 + 100 s. */
	struct jank_chunk c[10];
	struct jank_interval janks[] = {
		{ T0 + 23 * S, T0 + 24 * S },		 /* from 21 s (retention): chunk 2 only */
		{ T0 + 40 * S + 500 * MS, T0 + 51 * S }, /* begins in 4 minus retention: 3, 4, 5 */
	};
	struct jank_capture_chunk_times p = { .retention_ns = 2 * S,
					      .now_ns = T0 + 100 * S,
					      .oldest_open_ns = INT64_MAX };
	const enum jank_capture_chunk_fate want[10] = {
		JANK_CHUNK_DELETE, JANK_CHUNK_DELETE,  JANK_CHUNK_KEEP,	  JANK_CHUNK_KEEP,
		JANK_CHUNK_KEEP,   JANK_CHUNK_KEEP,    JANK_CHUNK_DELETE, JANK_CHUNK_DELETE,
		JANK_CHUNK_DELETE, JANK_CHUNK_PENDING,
	};

	(void)state;
	for (int i = 0; i < 10; i++)
		c[i] = chunk(i * 10, i * 10 + 9, (uint64_t)i);
	/* Chunk 9 (90..99, ends at 100): within the retention of now. */
	jank_capture_chunks_select(c, 10, janks, 2, &p);
	for (int i = 0; i < 10; i++)
		if (c[i].fate != want[i])
			fail_msg("chunk %d: fate %d, expected %d", i, c[i].fate, want[i]);
	assert_int_equal(c[2].jank, 0);
	assert_int_equal(c[3].jank, 1);
	assert_int_equal(c[5].jank, 1);
	/* An action open since T0 + 65 s may still become a jank: keep what it may need. */
	p.oldest_open_ns = T0 + 65 * S;
	jank_capture_chunks_select(c, 10, janks, 2, &p);
	assert_int_equal(c[6].fate, JANK_CHUNK_PENDING);
	assert_int_equal(c[5].fate, JANK_CHUNK_KEEP);
	assert_int_equal(c[1].fate, JANK_CHUNK_DELETE);
	/* No jank: only old chunks go. */
	jank_capture_chunks_select(c, 10, NULL, 0, &p);
	assert_int_equal(c[2].fate, JANK_CHUNK_DELETE);
	assert_int_equal(c[7].fate, JANK_CHUNK_PENDING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(chunk_names),
		cmocka_unit_test(chunk_selection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
