/* SPDX-License-Identifier: MIT */
/*
 * The groups (trace UUIDs) and hosts of trace directories, from jank's own
 * parse of their metadata against babeltrace2's src.ctf.fs queries
 * (io/trace-find.c, io/trace-hosts.c), on variants of tests/data/ctf-lttng
 * made here: its own, another host with the same UUID (a chunk of the same
 * trace), another UUID written in capitals with its stream files to match,
 * the same packetized in two packets, no UUID and a hostname that is none,
 * metadata jank's parser refuses (a 16-bit float) and packets jank's reader
 * refuses (the last one's padding missing from the file), both of which
 * babeltrace2 takes.
 *
 *   groups   both paths give every directory the same group, and jank's
 *            parse runs no babeltrace2 query except for the two refused
 *   hosts    jank_trace_hosts() gives the same hosts and `bad` flags with
 *            --decoder auto and babeltrace2 (the host is read with jank's
 *            parser either way); auto runs the metadata-info query only for
 *            the file jank's reader refuses
 *   reader   the native decoder opens one trace, and two traces of
 *            different UUIDs, with no babeltrace2 query; two chunks of one
 *            trace go to babeltrace2, which groups them with its queries
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "engine.h"
#include "trace-hosts.h"
#include "trace-reader-int.h"
#include "trace-reader.h"

#define UUID_TEXT "2a6422d0-6cee-11e0-8c08-cb07d7b3a564"
#define UUID_CAPS "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9"
#define MAX_FILE  (1 << 16)

static const uint8_t uuid_bytes[16] = { 0x2a, 0x64, 0x22, 0xd0, 0x6c, 0xee, 0x11, 0xe0,
					0x8c, 0x08, 0xcb, 0x07, 0xd7, 0xb3, 0xa5, 0x64 };
static const uint8_t caps_bytes[16] = { 0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71,
					0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9 };

static char base[] = "/tmp/jank-test-groups.XXXXXX";
/* The variants, under base; the last two are refused by jank's parser, by its reader. */
static const char *const names[] = { "own",    "chunk",	   "caps",    "packed",
				     "nouuid", "unparsed", "unpadded" };
#define NDIRS	 (sizeof(names) / sizeof(names[0]))
#define NREAD	 (NDIRS - 2)
#define UNPARSED (NDIRS - 2)
#define UNPADDED (NDIRS - 1)
static char dirs[NDIRS][256];

static size_t slurp(const char *name, uint8_t *buf)
{
	const char *srcdir = getenv("top_srcdir");
	char path[4096];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/tests/data/ctf-lttng/%s", srcdir ? srcdir : ".", name);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	n = fread(buf, 1, MAX_FILE, fp);
	fclose(fp);
	assert_true(n > 0 && n < MAX_FILE);
	return n;
}

static void spill(const char *dir, const char *name, const void *buf, size_t n)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

/* Replace the first `from` of text[0..*n) (NUL-terminated) by `to`. */
static void replace(char *text, size_t *n, const char *from, const char *to)
{
	char *at = strstr(text, from);
	size_t lf = strlen(from), lt = strlen(to);

	assert_non_null(at);
	assert_true(*n - lf + lt < MAX_FILE);
	memmove(at + lt, at + lf, (size_t)(text + *n - (at + lf)) + 1);
	memcpy(at, to, lt);
	*n = *n - lf + lt;
}

/* The stream files, their packets' UUID replaced by `uuid`. */
static void streams(const char *dir, const uint8_t *uuid)
{
	static const char *const files[] = { "channel0_0", "channel0_1" };
	uint8_t *buf = malloc(MAX_FILE);

	assert_non_null(buf);
	for (size_t f = 0; f < 2; f++) {
		size_t n = slurp(files[f], buf);

		for (size_t i = 0; i + 16 <= n; i++)
			if (!memcmp(buf + i, uuid_bytes, 16))
				memcpy(buf + i, uuid, 16);
		spill(dir, files[f], buf, n);
	}
	free(buf);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * Text into LTTng's metadata packets (little-endian): two, the second with
 * 16 bytes of padding, which are in the file if `padded`.
 */
static void packetize(const char *dir, const char *text, size_t n, bool padded)
{
	uint8_t *out = calloc(1, 2 * 37 + n + 64);
	size_t at = 0, half = n / 2;

	assert_non_null(out);
	for (int k = 0; k < 2; k++) {
		size_t len = k ? n - half : half, pad = k ? 16 : 0;
		uint8_t *h = out + at;

		put32(h, 0x75d11d57);
		memcpy(h + 4, caps_bytes, 16);
		put32(h + 24, (uint32_t)((37 + len) * 8));
		put32(h + 28, (uint32_t)((37 + len + pad) * 8));
		h[35] = 1; /* major */
		h[36] = 8; /* minor */
		memcpy(h + 37, text + (k ? half : 0), len);
		at += 37 + len + (padded ? pad : 0);
	}
	spill(dir, "metadata", out, at);
	free(out);
}

static int setup(void **state)
{
	char *orig = malloc(MAX_FILE), *text = malloc(MAX_FILE);
	size_t n0, n;

	(void)state;
	if (!orig || !text || !mkdtemp(base))
		return -1;
	n0 = slurp("metadata", (uint8_t *)orig);
	orig[n0] = '\0';
	for (size_t i = 0; i < NDIRS; i++) {
		snprintf(dirs[i], sizeof(dirs[i]), "%s/%s", base, names[i]);
		if (mkdir(dirs[i], 0700) < 0)
			return -1;
	}
	spill(dirs[0], "metadata", orig, n0);
	streams(dirs[0], uuid_bytes);

	memcpy(text, orig, n0 + 1);
	n = n0;
	replace(text, &n, "hostname = \"fuzz\"", "hostname = \"beta\"");
	spill(dirs[1], "metadata", text, n);
	streams(dirs[1], uuid_bytes);

	memcpy(text, orig, n0 + 1);
	n = n0;
	replace(text, &n, UUID_TEXT, UUID_CAPS);
	replace(text, &n, "hostname = \"fuzz\"", "hostname = \"gamma-1\"");
	spill(dirs[2], "metadata", text, n);
	streams(dirs[2], caps_bytes);

	replace(text, &n, "hostname = \"gamma-1\"", "hostname = \"packed.example\"");
	replace(text, &n, "/* CTF 1.8 */", "");
	packetize(dirs[3], text, n, true);
	replace(text, &n, "hostname = \"packed.example\"", "hostname = \"unpadded\"");
	packetize(dirs[6], text, n, false);

	memcpy(text, orig, n0 + 1);
	n = n0;
	replace(text, &n, "uuid = \"" UUID_TEXT "\";", "");
	replace(text, &n, "hostname = \"fuzz\"", "hostname = \"not a host\"");
	spill(dirs[4], "metadata", text, n);

	memcpy(text, orig, n0 + 1);
	n = n0;
	replace(text, &n, "hostname = \"fuzz\"", "hostname = \"unparsed\"");
	assert_true(n + 100 < MAX_FILE);
	n += (size_t)sprintf(text + n, "typealias floating_point { exp_dig = 5; mant_dig = 11; "
				       "byte_order = le; align = 16; } := half_t;\n");
	spill(dirs[5], "metadata", text, n);
	free(orig);
	free(text);
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static const bt_component_class_source *fs_class(const bt_plugin **plugin)
{
	const bt_component_class_source *fs;

	assert_int_equal(
		bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, plugin),
		BT_PLUGIN_FIND_STATUS_OK);
	fs = bt_plugin_borrow_source_component_class_by_name_const(*plugin, "fs");
	assert_non_null(fs);
	return fs;
}

/* dirs[i]'s group the way `how` finds it; *queries: the babeltrace2 queries it ran. */
static char *group_of(const bt_component_class_source *fs, size_t i, enum reader_groups how,
		      bool *own, unsigned long *queries)
{
	const char *path = dirs[i];
	unsigned long q0 = jank_reader_bt_queries();
	struct trace_dir *v = NULL;
	size_t nv = 0;
	char err[512] = "", *g;

	if (reader_collect_trace_dirs(fs, &path, 1, how, &v, &nv, err, sizeof(err)) < 0)
		fail_msg("%s: %s", path, err);
	assert_int_equal(nv, 1);
	*queries = jank_reader_bt_queries() - q0;
	*own = v[0].own_group;
	g = v[0].group ? strdup(v[0].group) : NULL;
	reader_trace_dirs_free(v, nv);
	return g;
}

static void test_groups(void **state)
{
	const bt_plugin *plugin = NULL;
	const bt_component_class_source *fs = fs_class(&plugin);
	static const char *const want[NDIRS] = {
		UUID_TEXT,
		UUID_TEXT,
		"0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
		"0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
		NULL,
		UUID_TEXT,
		"0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
	};

	(void)state;
	for (size_t i = 0; i < NDIRS; i++) {
		unsigned long qo, qb;
		bool own, own_b;
		char *go = group_of(fs, i, READER_GROUPS_OWN, &own, &qo);
		char *gb = group_of(fs, i, READER_GROUPS_QUERY, &own_b, &qb);

		if (want[i]) {
			assert_non_null(go);
			assert_non_null(gb);
			assert_string_equal(go, want[i]);
			assert_string_equal(gb, want[i]);
		} else {
			assert_null(go);
			assert_null(gb);
		}
		assert_int_equal(qb, 1);
		assert_false(own_b);
		assert_int_equal(own, i < NREAD);
		assert_int_equal(qo, i < NREAD ? 0 : 1);
		free(go);
		free(gb);
	}
	bt_plugin_put_ref(plugin);
}

static void hosts(const char *const *paths, size_t n, enum jank_decoder d,
		  struct jank_trace_host **v, size_t *nv, unsigned long *queries)
{
	unsigned long q0 = jank_reader_bt_queries();
	char err[512] = "";

	jank_reader_set_decoder(d);
	if (jank_trace_hosts(paths, n, v, nv, err, sizeof(err)) < 0)
		fail_msg("hosts: %s", err);
	*queries = jank_reader_bt_queries() - q0;
	assert_int_equal(*nv, n);
}

static void test_hosts(void **state)
{
	static const char *const want[NDIRS] = { "fuzz", "beta", "gamma-1", "packed.example",
						 "",	 "",	 "unpadded" };
	const char *paths[NDIRS];
	struct jank_trace_host *a, *b;
	size_t na, nb;
	unsigned long qa, qb;

	(void)state;
	for (size_t i = 0; i < NDIRS; i++)
		paths[i] = dirs[i];
	/* The directories jank reads: no query. */
	hosts(paths, NREAD, JANK_DECODER_AUTO, &a, &na, &qa);
	hosts(paths, NREAD, JANK_DECODER_BABELTRACE2, &b, &nb, &qb);
	assert_int_equal(qa, 0);
	assert_int_equal(qb, NREAD);
	for (size_t i = 0; i < NREAD; i++) {
		assert_string_equal(a[i].dir, b[i].dir);
		assert_string_equal(a[i].host, want[i]);
		assert_string_equal(b[i].host, want[i]);
		assert_int_equal(a[i].bad, b[i].bad);
		assert_int_equal(a[i].bad, i == 4);
	}
	jank_trace_hosts_free(a, na);
	jank_trace_hosts_free(b, nb);
	/* All of them: the file jank's reader refuses through the query, the same. */
	hosts(paths, NDIRS, JANK_DECODER_AUTO, &a, &na, &qa);
	hosts(paths, NDIRS, JANK_DECODER_BABELTRACE2, &b, &nb, &qb);
	assert_int_equal(qa, 1);
	assert_int_equal(qb, NDIRS);
	for (size_t i = 0; i < NDIRS; i++) {
		assert_string_equal(a[i].host, want[i]);
		assert_string_equal(b[i].host, want[i]);
		assert_int_equal(a[i].bad, b[i].bad);
	}
	jank_trace_hosts_free(a, na);
	jank_trace_hosts_free(b, nb);
	jank_reader_set_decoder(JANK_DECODER_AUTO);
}

/* Open (and read) dirs[i..] with decoder `d`: the decoder that read them, and the queries. */
static const char *open_read(const size_t *idx, size_t n, enum jank_decoder d,
			     unsigned long *queries, uint64_t *events)
{
	const char *paths[NDIRS];
	struct jank_engine_config ec;
	struct jank_reader_stats st;
	struct jank_engine *e;
	struct jank_reader *in;
	unsigned long q0;
	char err[512] = "";
	const char *name;

	for (size_t i = 0; i < n; i++)
		paths[i] = dirs[idx[i]];
	jank_engine_config_defaults(&ec);
	e = jank_engine_new(&ec);
	assert_non_null(e);
	jank_reader_set_decoder(d);
	q0 = jank_reader_bt_queries();
	in = jank_reader_new_ctf(paths, n, e, err, sizeof(err));
	if (!in)
		fail_msg("cannot open the traces: %s", err);
	*queries = jank_reader_bt_queries() - q0;
	name = jank_reader_decoder_name(in);
	if (jank_reader_run_all(in) != JANK_READER_STATUS_END)
		fail_msg("reading failed: %s", jank_reader_error(in));
	jank_reader_get_stats(in, &st);
	*events = st.events;
	jank_reader_free(in);
	jank_engine_free(e);
	jank_reader_set_decoder(JANK_DECODER_AUTO);
	return name;
}

static void test_reader(void **state)
{
	static const size_t one[] = { 0 }, two[] = { 0, 2 }, chunks[] = { 0, 1 };
	unsigned long q;
	uint64_t ev1, ev2, evb;

	(void)state;
	assert_string_equal(open_read(one, 1, JANK_DECODER_AUTO, &q, &ev1), "native");
	assert_int_equal(q, 0);
	assert_true(ev1 > 0);
	assert_string_equal(open_read(two, 2, JANK_DECODER_AUTO, &q, &ev2), "native");
	assert_int_equal(q, 0);
	assert_int_equal(ev2, 2 * ev1);
	assert_string_equal(open_read(two, 2, JANK_DECODER_BABELTRACE2, &q, &evb), "babeltrace2");
	assert_int_equal(q, 2);
	assert_int_equal(evb, ev2);
	/* One trace in two directories: babeltrace2 reads it, grouped by its own queries. */
	assert_string_equal(open_read(chunks, 2, JANK_DECODER_AUTO, &q, &evb), "babeltrace2");
	assert_int_equal(q, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_reader),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
