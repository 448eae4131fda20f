/* SPDX-License-Identifier: MIT */
/*
 * Debug files from debuginfod servers (debuginfod.h), on elfutils'
 * libdebuginfod.
 *
 * The client takes its servers, cache and connection timeout from the
 * environment only (elfutils 0.188 has no call for them), so
 * jank_debuginfod_setup() sets it once; its progress callback bounds the
 * whole download, in time and in size (the cache's, at most 4 GiB). The client writes a download as
 * a private temporary file and renames it into place: a reader of the cache sees a whole file or
 * none. It makes the files 0600 (mkstemp): we open them up to 0644 for
 * jankd's workers, which run as another user.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <elfutils/debuginfod.h>
#include "debuginfod.h"
#include "errbuf.h"

static const char *const kinds[] = { "debuginfo", "executable" };

bool jank_debuginfod_enabled(const struct jank_debuginfod_config *c)
{
	return c && c->urls && *c->urls && c->cache && c->cache[0] == '/';
}

void jank_debuginfod_hex(char *out, const uint8_t *id, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * len] = '\0';
}

/* One directory, 0755 whatever the umask (jankd's is 0077), if missing. */
static int make_dir(const char *p)
{
	if (mkdir(p, 0755) == 0)
		return chmod(p, 0755) < 0 ? -errno : 0;
	return errno == EEXIST ? 0 : -errno;
}

/* mkdir -p, 0755: the workers, as another user, go through to the files. */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX];
	size_t n = strlen(dir);
	int r;

	if (n == 0 || n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, n + 1);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		r = make_dir(p);
		if (r < 0)
			return r;
		*s = '/';
	}
	return make_dir(p);
}

/* The largest file a download may bring: the cache's size, at most what the symbolizer reads. */
static uint64_t max_bytes(const struct jank_debuginfod_config *c)
{
	return c->cache_size && c->cache_size < JANK_DEBUGINFOD_MAX_FILE ? c->cache_size
									 : JANK_DEBUGINFOD_MAX_FILE;
}

/* One download's time, at most a day (a larger one would overflow the deadline). */
static int64_t timeout_ns(const struct jank_debuginfod_config *c)
{
	return c->timeout_ns > 0 && c->timeout_ns < JANK_DEBUGINFOD_MAX_TIMEOUT_NS
		       ? c->timeout_ns
		       : JANK_DEBUGINFOD_MAX_TIMEOUT_NS;
}

int jank_debuginfod_setup(const struct jank_debuginfod_config *c, char *err, size_t errlen)
{
	char secs[32], size[32];
	int r;

	/* What a user's environment says is not ours to follow. */
	unsetenv(DEBUGINFOD_PROGRESS_ENV_VAR);
	unsetenv(DEBUGINFOD_VERBOSE_ENV_VAR);
	unsetenv(DEBUGINFOD_HEADERS_FILE_ENV_VAR);
	if (!jank_debuginfod_enabled(c)) {
		unsetenv(DEBUGINFOD_URLS_ENV_VAR);
		return 0;
	}
	snprintf(secs, sizeof(secs), "%lld",
		 (long long)((timeout_ns(c) + 999999999LL) / 1000000000LL));
	snprintf(size, sizeof(size), "%llu", (unsigned long long)max_bytes(c));
	if (setenv(DEBUGINFOD_URLS_ENV_VAR, c->urls, 1) < 0 ||
	    setenv(DEBUGINFOD_MAXSIZE_ENV_VAR, size, 1) < 0 ||
	    setenv(DEBUGINFOD_CACHE_PATH_ENV_VAR, c->cache, 1) < 0 ||
	    setenv(DEBUGINFOD_TIMEOUT_ENV_VAR, secs, 1) < 0 ||
	    setenv(DEBUGINFOD_MAXTIME_ENV_VAR, secs, 1) < 0) {
		jank_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = make_dirs(c->cache);
	if (r < 0)
		jank_errf(err, errlen, "cannot make the debuginfod cache %s: %s", c->cache,
			  strerror(-r));
	return r;
}

int jank_debuginfod_open_cached(const char *cache, const uint8_t *id, size_t len, char *path,
				size_t pathlen)
{
	char h[2 * JANK_DEBUGINFOD_MAX_BUILD_ID + 1];

	if (!cache || len < JANK_DEBUGINFOD_MIN_BUILD_ID || len > JANK_DEBUGINFOD_MAX_BUILD_ID)
		return -ENOENT;
	jank_debuginfod_hex(h, id, len);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct stat st;
		int w = snprintf(path, pathlen, "%s/%s/%s", cache, h, kinds[i]), fd;

		if (w < 0 || (size_t)w >= pathlen)
			return -ENOENT;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One download's bounds (the client's user data). */
struct bounds {
	int64_t deadline; /* monotonic */
	uint64_t max_bytes;
};

/* Past the deadline, or past the size (what came so far: a), the download stops. */
static int progress(debuginfod_client *client, long a, long b)
{
	const struct bounds *bd = debuginfod_get_user_data(client);

	(void)b;
	return bd && (mono_ns() > bd->deadline || (a > 0 && (uint64_t)a > bd->max_bytes));
}

/* What the client left: readable by jankd's workers, and the cache within its size. */
static void after_download(const struct jank_debuginfod_config *c, int fd, const char *hexid)
{
	char dir[PATH_MAX];

	fchmod(fd, 0644);
	if (snprintf(dir, sizeof(dir), "%s/%s", c->cache, hexid) < (int)sizeof(dir))
		chmod(dir, 0755);
	if (c->cache_size)
		jank_debuginfod_trim(c->cache, c->cache_size, hexid);
}

int jank_debuginfod_fetch(const struct jank_debuginfod_config *c, const uint8_t *id, size_t len,
			  char *path, size_t pathlen)
{
	char h[2 * JANK_DEBUGINFOD_MAX_BUILD_ID + 1];
	debuginfod_client *client;
	struct bounds bd;
	int fd;

	if (len < JANK_DEBUGINFOD_MIN_BUILD_ID || len > JANK_DEBUGINFOD_MAX_BUILD_ID)
		return -EINVAL;
	if (!jank_debuginfod_enabled(c))
		return -ENOENT;
	fd = jank_debuginfod_open_cached(c->cache, id, len, path, pathlen);
	if (fd >= 0)
		return fd;
	client = debuginfod_begin();
	if (!client)
		return -ENOMEM;
	bd = (struct bounds){ .deadline = mono_ns() + timeout_ns(c), .max_bytes = max_bytes(c) };
	debuginfod_set_user_data(client, &bd);
	debuginfod_set_progressfn(client, progress);
	fd = debuginfod_find_debuginfo(client, id, (int)len, NULL);
	if (fd < 0 && mono_ns() <= bd.deadline)
		fd = debuginfod_find_executable(client, id, (int)len, NULL);
	debuginfod_end(client);
	if (fd < 0)
		return mono_ns() > bd.deadline ? -ETIME : fd;
	jank_debuginfod_hex(h, id, len);
	after_download(c, fd, h);
	close(fd);
	/* The path of the file, as jankd's workers open it. */
	return jank_debuginfod_open_cached(c->cache, id, len, path, pathlen);
}

int jank_debuginfod_fetch_fn(const uint8_t *id, size_t len, char *path, size_t pathlen, void *data)
{
	return jank_debuginfod_fetch(data, id, len, path, pathlen);
}

/* ---- The cache's size ---- */

struct cached {
	char *path;
	uint64_t size;
	int64_t used; /* the later of its access and modification times */
	bool keep;
};

static int by_use(const void *a, const void *b)
{
	const struct cached *x = a, *y = b;

	return (x->used > y->used) - (x->used < y->used);
}

static bool is_hex_name(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n >= 2 * JANK_DEBUGINFOD_MIN_BUILD_ID && s[n] == '\0';
}

/* The files of one build-id's directory, appended to *v. */
static int list_dir(const char *cache, const char *name, bool keep, struct cached **v, size_t *n,
		    size_t *cap, uint64_t *total)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (snprintf(dir, sizeof(dir), "%s/%s", cache, name) >= (int)sizeof(dir) ||
	    !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d)) != NULL) {
		char p[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.' ||
		    snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p) ||
		    lstat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct cached *nv = realloc(*v, nc * sizeof(*nv));

			if (!nv)
				break;
			*v = nv;
			*cap = nc;
		}
		(*v)[*n] = (struct cached){ .path = strdup(p),
					    .size = (uint64_t)st.st_size,
					    .used = st.st_atime > st.st_mtime ? st.st_atime
									      : st.st_mtime,
					    .keep = keep };
		if ((*v)[*n].path) {
			*total += (uint64_t)st.st_size;
			(*n)++;
		}
	}
	closedir(d);
	return 0;
}

uint64_t jank_debuginfod_trim(const char *cache, uint64_t limit, const char *keep)
{
	struct cached *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *e;
	DIR *d = opendir(cache);

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (is_hex_name(e->d_name))
			list_dir(cache, e->d_name, keep && strcmp(e->d_name, keep) == 0, &v, &n,
				 &cap, &total);
	closedir(d);
	qsort(v, n, sizeof(*v), by_use);
	for (size_t i = 0; i < n; i++) {
		if (limit && total > limit && !v[i].keep && unlink(v[i].path) == 0) {
			char *slash = strrchr(v[i].path, '/');

			total -= v[i].size;
			*slash = '\0';
			rmdir(v[i].path); /* once empty */
		}
		free(v[i].path);
	}
	free(v);
	return total;
}
