/* SPDX-License-Identifier: MIT */
/*
 * fuzz-ctf-packet: the native decoder's packet reader (io/trace-native.c,
 * io/ctf-plan.c) on hostile stream files, into an engine with rules.
 *
 * The metadata is fixed (ctf-lttng.h: compact and large event headers,
 * text arrays, sequences, strings, a float, nested network-header
 * variants). The input is cut into up to 3 stream files at each "\n--\n".
 * Each file's first 8 bytes choose its first packet's header (stream
 * class, and whether the sizes are right or taken from the input: sizes
 * past the end, content past the packet, unaligned sizes); the rest is the
 * packet's events, then whatever packets follow, as they come.
 * Checked: the reader ends or fails with one line; it never reads outside
 * the files (ASan); its counters agree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config-file.h"
#include "ctf-lttng.h"
#include "trace-native.h"
#include "trace-reader-int.h"
#include "fuzz-check.h"

static const char config[] = "[action frame]\nbegin = jank:action_begin\nend = jank:action_end\n"
			     "key = name, id\nthreshold = 1ms\n"
			     "[action read]\nbegin = syscall_entry_read\nend = sched_switch\n"
			     "key = fd\nthreshold = 1ms\n";

#define HEAD 84

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8); /* the metadata says little-endian; so is every host we fuzz on */
}

/* The packet header (32 bytes) and context (52) before the input's bytes. */
static size_t write_header(uint8_t *h, const uint8_t *sel, size_t body)
{
	uint64_t total = HEAD + body;
	uint32_t magic = 0xc1fc1fc1, sid = sel[0] & 1, cpu = sel[0] >> 1;

	memset(h, 0, HEAD);
	memcpy(h, &magic, 4);
	memcpy(h + 20, &sid, 4);
	put64(h + 24, sel[1]);			 /* stream_instance_id */
	put64(h + 32, 1000 + sel[2]);		 /* timestamp_begin */
	put64(h + 40, 1000000 + sel[3] * 1000u); /* timestamp_end */
	put64(h + 48, total * 8);		 /* content_size */
	put64(h + 56, total * 8);		 /* packet_size */
	if (sel[4] & 1) {
		uint64_t bad = (uint64_t)sel[5] << (sel[6] & 31);

		put64(h + (sel[4] & 2 ? 48 : 56), bad);
	}
	put64(h + 64, sel[7]);	   /* packet_seq_num */
	put64(h + 72, sel[5] & 3); /* events_discarded */
	memcpy(h + 80, &cpu, 4);
	return HEAD;
}

static int write_file(const char *path, const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -errno;
	ok = fwrite(a, 1, na, f) == na && fwrite(b, 1, nb, f) == nb;
	return fclose(f) == 0 && ok ? 0 : -EIO;
}

static int rm_one(const char *p, const struct stat *s, int t, struct FTW *w)
{
	(void)s;
	(void)t;
	(void)w;
	return remove(p);
}

static struct jank_engine *engine_with_rules(void)
{
	struct jank_engine_config ec;
	struct jank_config conf;
	struct jank_engine *e;
	char err[256];

	memset(&conf, 0, sizeof(conf));
	jank_engine_config_defaults(&ec);
	FUZZ_ASSERT(jank_config_load_string(&conf, "fuzz", config, err, sizeof(err)) == 0);
	jank_config_apply_engine(&conf, &ec);
	e = jank_engine_new(&ec);
	FUZZ_ASSERT(e && jank_config_add_rules(&conf, e, err, sizeof(err)) == 0);
	jank_config_fini(&conf);
	return e;
}

static void read_trace(const char *dir)
{
	struct jank_reader *in = calloc(1, sizeof(*in));
	const char *dirs[1] = { dir };
	size_t comp[1] = { 0 };
	char why[INPUT_ERR_LEN];
	enum jank_reader_status st = JANK_READER_STATUS_OK;

	FUZZ_ASSERT(in);
	in->engine = engine_with_rules();
	in->name = strdup(dir);
	in->last_ts = in->advanced_ts = INT64_MIN;
	in->generation = jank_engine_generation(in->engine);
	why[0] = '\0';
	if (native_open(in, dirs, comp, 1, why, sizeof(why)) < 0) {
		FUZZ_ASSERT(why[0] && !strchr(why, '\n'));
	} else {
		for (int i = 0; i < 100000 && st == JANK_READER_STATUS_OK; i++)
			st = in->failed ? JANK_READER_STATUS_ERROR : native_run_once(in);
		FUZZ_ASSERT(st != JANK_READER_STATUS_OK);
		if (st == JANK_READER_STATUS_ERROR)
			FUZZ_ASSERT(in->err[0] && !strchr(in->err, '\n'));
		FUZZ_ASSERT(in->stats.events_used <= in->stats.events);
		native_free(in->native);
	}
	jank_engine_free(in->engine);
	free(in->name);
	free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char dir[] = "/tmp/fuzz-ctf-packet-XXXXXX", path[128];
	uint8_t head[HEAD];
	size_t at = 0;

	if (!mkdtemp(dir))
		return 0;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	FUZZ_ASSERT(write_file(path, (const uint8_t *)ctf_lttng_metadata,
			       sizeof(ctf_lttng_metadata) - 1, NULL, 0) == 0);
	for (int k = 0; k < 3 && at + 8 <= n; k++) {
		const uint8_t *cut = memmem(data + at, n - at, "\n--\n", 4);
		size_t end = cut ? (size_t)(cut - data) : n, body;

		if (end < at + 8)
			break;
		body = end - at - 8;
		write_header(head, data + at, body);
		snprintf(path, sizeof(path), "%s/channel0_%d", dir, k);
		FUZZ_ASSERT(write_file(path, head, sizeof(head), data + at + 8, body) == 0);
		at = cut ? end + 4 : n;
	}
	read_trace(dir);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}
