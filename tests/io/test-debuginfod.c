/* SPDX-License-Identifier: MIT */
/*
 * io/debuginfod.c without a server: the cache (what is read from it, its
 * size limit, least recently used first) and "off unless configured"
 * (nothing fetched, no cache made, DEBUGINFOD_URLS cleared). Downloads from
 * a real server: tests/trace/test-debuginfod.sh and the live test.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "debuginfod.h"
#include "dirtree.h"

static char root[] = "/tmp/jank-test-debuginfod-XXXXXX";

static const uint8_t id_a[] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
static const uint8_t id_b[] = { 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
static const uint8_t id_c[] = { 0xcc, 1, 2, 3, 4, 5, 6, 7, 8, 9 };

/* CACHE/HEX(id)/kind, `size` bytes, used (atime and mtime) at `t`. */
static void put(const char *cache, const uint8_t *id, size_t len, const char *kind, size_t size,
		time_t t)
{
	char hex[2 * JANK_DEBUGINFOD_MAX_BUILD_ID + 1], path[PATH_MAX];
	struct timespec ts[2] = { { .tv_sec = t }, { .tv_sec = t } };
	char *buf = calloc(1, size + 1);
	int fd;

	assert_non_null(buf);
	jank_debuginfod_hex(hex, id, len);
	snprintf(path, sizeof(path), "%s/%s", cache, hex);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", cache, hex, kind);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, size), (ssize_t)size);
	assert_int_equal(futimens(fd, ts), 0);
	close(fd);
	free(buf);
}

static bool there(const char *cache, const uint8_t *id, size_t len)
{
	char path[PATH_MAX];
	int fd = jank_debuginfod_open_cached(cache, id, len, path, sizeof(path));

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return jank_dirtree_remove(root);
}

static void hex(void **state)
{
	char h[2 * sizeof(id_a) + 1];

	(void)state;
	jank_debuginfod_hex(h, id_a, sizeof(id_a));
	assert_string_equal(h, "aa010203040506070809");
}

static void cached(void **state)
{
	char cache[128], path[PATH_MAX], want[PATH_MAX];
	int fd;

	(void)state;
	snprintf(cache, sizeof(cache), "%s/read", root);
	assert_int_equal(mkdir(cache, 0755), 0);
	/* Nothing there; then the executable only; then the debug file, which comes first. */
	assert_false(there(cache, id_a, sizeof(id_a)));
	put(cache, id_a, sizeof(id_a), "executable", 10, 1000);
	fd = jank_debuginfod_open_cached(cache, id_a, sizeof(id_a), path, sizeof(path));
	assert_true(fd >= 0);
	close(fd);
	snprintf(want, sizeof(want), "%s/aa010203040506070809/executable", cache);
	assert_string_equal(path, want);
	put(cache, id_a, sizeof(id_a), "debuginfo", 10, 1000);
	fd = jank_debuginfod_open_cached(cache, id_a, sizeof(id_a), path, sizeof(path));
	assert_true(fd >= 0);
	close(fd);
	snprintf(want, sizeof(want), "%s/aa010203040506070809/debuginfo", cache);
	assert_string_equal(path, want);
	/* An empty file (the client's record of a miss) is none. */
	put(cache, id_b, sizeof(id_b), "debuginfo", 0, 1000);
	assert_false(there(cache, id_b, sizeof(id_b)));
	/* A build-id too short or too long is never looked for. */
	assert_false(there(cache, id_a, 7));
	assert_int_equal(jank_debuginfod_open_cached(cache, id_a, 65, path, sizeof(path)), -ENOENT);
}

static void trim(void **state)
{
	char cache[128], other[PATH_MAX];

	(void)state;
	snprintf(cache, sizeof(cache), "%s/trim", root);
	assert_int_equal(mkdir(cache, 0755), 0);
	put(cache, id_a, sizeof(id_a), "debuginfo", 1000, 1000); /* the oldest */
	put(cache, id_b, sizeof(id_b), "debuginfo", 1000, 3000);
	put(cache, id_c, sizeof(id_c), "debuginfo", 1000, 2000);
	/* A file of the client's own beside them: not counted, not removed. */
	snprintf(other, sizeof(other), "%s/cache_clean_interval_s", cache);
	fclose(fopen(other, "w"));
	/* Within the limit (0: none): nothing goes. */
	assert_int_equal(jank_debuginfod_trim(cache, 0, NULL), 3000);
	assert_int_equal(jank_debuginfod_trim(cache, 3000, NULL), 3000);
	/* Past it: the least recently used first, its directory too, until it fits. */
	assert_int_equal(jank_debuginfod_trim(cache, 2500, NULL), 2000);
	assert_false(there(cache, id_a, sizeof(id_a)));
	snprintf(other, sizeof(other), "%s/aa010203040506070809", cache);
	assert_int_equal(access(other, F_OK), -1);
	assert_true(there(cache, id_b, sizeof(id_b)) && there(cache, id_c, sizeof(id_c)));
	/* The one to keep stays, even the oldest; the next goes. */
	assert_int_equal(jank_debuginfod_trim(cache, 1000, "cc010203040506070809"), 1000);
	assert_true(there(cache, id_c, sizeof(id_c)));
	assert_false(there(cache, id_b, sizeof(id_b)));
	snprintf(other, sizeof(other), "%s/cache_clean_interval_s", cache);
	assert_int_equal(access(other, F_OK), 0);
	/* No cache directory: nothing, no error. */
	snprintf(other, sizeof(other), "%s/none", root);
	assert_int_equal(jank_debuginfod_trim(other, 1, NULL), 0);
}

static void off(void **state)
{
	struct jank_debuginfod_config c = { .cache = NULL, .timeout_ns = 1000000000 };
	char cache[128], path[PATH_MAX], err[256];

	(void)state;
	snprintf(cache, sizeof(cache), "%s/off/cache", root);
	c.cache = cache;
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	/* No servers: off; setting up clears the client's variable and makes no cache. */
	assert_false(jank_debuginfod_enabled(&c));
	c.urls = "";
	assert_false(jank_debuginfod_enabled(&c));
	assert_int_equal(jank_debuginfod_setup(&c, err, sizeof(err)), 0);
	assert_null(getenv("DEBUGINFOD_URLS"));
	assert_int_equal(access(cache, F_OK), -1);
	assert_int_equal(jank_debuginfod_fetch(&c, id_a, sizeof(id_a), path, sizeof(path)),
			 -ENOENT);
	assert_int_equal(access(cache, F_OK), -1);
	/* Listed: the variables set, the cache made 0755 with its parents, even under
	 * jankd's umask. */
	umask(077);
	c.urls = "http://127.0.0.1:1 http://127.0.0.1:2";
	c.cache_size = 1 << 20;
	c.timeout_ns = 1500000000;
	assert_true(jank_debuginfod_enabled(&c));
	assert_int_equal(jank_debuginfod_setup(&c, err, sizeof(err)), 0);
	assert_string_equal(getenv("DEBUGINFOD_URLS"), c.urls);
	assert_string_equal(getenv("DEBUGINFOD_CACHE_PATH"), cache);
	assert_string_equal(getenv("DEBUGINFOD_TIMEOUT"), "2");
	{
		struct stat st;

		assert_int_equal(stat(cache, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0755);
	}
	/* A build-id out of range is refused before anything. */
	assert_int_equal(jank_debuginfod_fetch(&c, id_a, 4, path, sizeof(path)), -EINVAL);
	/* In the cache: no server asked (none listens on those ports). */
	put(cache, id_a, sizeof(id_a), "debuginfo", 10, 1000);
	{
		int fd = jank_debuginfod_fetch(&c, id_a, sizeof(id_a), path, sizeof(path));

		assert_true(fd >= 0);
		close(fd);
	}
	/* A relative cache is not "configured". */
	c.cache = "cache";
	assert_false(jank_debuginfod_enabled(&c));
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	unsetenv("DEBUGINFOD_TIMEOUT");
	unsetenv("DEBUGINFOD_MAXTIME");
	umask(022);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hex),
		cmocka_unit_test(cached),
		cmocka_unit_test(trim),
		cmocka_unit_test(off),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
