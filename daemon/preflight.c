/* SPDX-License-Identifier: MIT */
/*
 * The checks of the host against the configuration (preflight.h). Each
 * problem names the key that asked for it (FILE:LINE, found by parsing the
 * files again with the schema's parser) and, when there is one, the command
 * that fixes it: what an operator can paste.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capture-policy.h"
#include "config-schema.h"
#include "dirtree.h"
#include "preflight.h"

#define WHERE_LEN 1100
#define MSG_LEN	  2048

struct run {
	const struct jank_preflight *pf;
	jank_preflight_fn fn;
	void *data;
	size_t problems;
};

/* "FILE:LINE" where [section] key was last set, or the main file's name when never. */
static bool locate(const struct jank_preflight *pf, const char *section, const char *key,
		   char *where, size_t len)
{
	const struct jank_config_schema_key *k =
		jank_config_schema_key_find(&jank_config_schema, section, key);
	const struct jank_config_sources *s = pf->sources;
	struct jank_config_schema_parser p;
	struct jank_config_schema_where w = { 0 };
	struct jank_config scratch;

	snprintf(where, len, "%s", pf->config->path ? pf->config->path : "config");
	if (!k || !s || s->n == 0)
		return false;
	jank_config_init(&scratch);
	jank_config_schema_parser_init(&p, &jank_config_schema, &scratch);
	for (size_t i = 0; !p.ini.failed && i < s->n; i++)
		jank_config_schema_parse(&p, s->v[i].name, s->v[i].text, s->v[i].len);
	if (!p.ini.failed)
		w = jank_config_schema_last(&p, k);
	if (w.file)
		snprintf(where, len, "%s:%u", w.file, w.line);
	jank_config_schema_parser_fini(&p);
	jank_config_fini(&scratch);
	return w.file != NULL;
}

static void problem(struct run *r, const char *section, const char *key, const char *fix,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* One problem of the key [section] key ("--worker-spawner" when section is NULL). */
static void problem(struct run *r, const char *section, const char *key, const char *fix,
		    const char *fmt, ...)
{
	char where[WHERE_LEN], msg[MSG_LEN];
	bool set = false;
	va_list ap;
	int n;

	if (section)
		set = locate(r->pf, section, key, where, sizeof(where));
	else
		snprintf(where, sizeof(where), "%s", key);
	n = section ? snprintf(msg, sizeof(msg), "[%s] %s%s: ", section, key,
			       set ? "" : " (the default)")
		    : 0;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	r->problems++;
	r->fn(where, msg, fix, r->data);
}

/* ---- The workers' user ---- */

static void check_user(struct run *r)
{
	const struct jank_config_daemon *d = &r->pf->config->daemon;
	char fix[512];
	struct passwd *pw;

	/* The spawner's workers have the spawner's user; a jankd not root keeps its own. */
	if (r->pf->spawner || (!r->pf->all && !r->pf->as_root))
		return;
	errno = 0;
	pw = getpwnam(d->worker_user);
	if (!pw) {
		int e = errno;

		snprintf(
			fix, sizeof(fix),
			"%suseradd --system --no-create-home --shell "
			"/usr/sbin/nologin %s",
			strcmp(d->worker_user, "jank-worker")
				? ""
				: "systemd-sysusers (with jank's sysusers.d file, jank.conf), or: ",
			d->worker_user);
		problem(r, "daemon", "worker-user", fix,
			"no user '%s' (jankd's workers run as it)%s%s", d->worker_user,
			e ? ": " : "", e ? strerror(e) : "");
		return;
	}
	if (pw->pw_uid == 0 && !d->workers_as_root)
		problem(r, "daemon", "worker-user",
			"set [daemon] worker-user to an unprivileged user such as jank-worker",
			"'%s' is root (uid 0), and workers-as-root is not set", d->worker_user);
}

/* ---- Directories ---- */

/* The nearest directory of `path` (or above) that exists, into `up`. */
static int existing_ancestor(const char *path, char *up, size_t len)
{
	struct stat st;
	char *slash;

	snprintf(up, len, "%s", path);
	for (;;) {
		slash = strrchr(up, '/');
		if (!slash)
			return -ENOENT;
		if (slash == up) {
			up[1] = '\0';
			return 0;
		}
		*slash = '\0';
		if (stat(up, &st) == 0)
			return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
		if (errno != ENOENT)
			return -errno;
	}
}

/*
 * A directory jankd writes in: it exists and jankd may use it, or it can be
 * made (`make`: made now). Returns 0, or -errno with `why`.
 */
static int check_dir(const char *path, bool make, char *why, size_t len)
{
	char up[4096];
	struct stat st;
	int e;

	if (stat(path, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(why, len, "'%s' is not a directory", path);
			return -ENOTDIR;
		}
		if (access(path, R_OK | W_OK | X_OK) != 0) {
			e = errno;
			snprintf(why, len,
				 "'%s' is not readable and writable by jankd (uid %u): %s", path,
				 (unsigned)geteuid(), strerror(e));
			return -e;
		}
		return 0;
	}
	e = errno;
	if (e != ENOENT) {
		snprintf(why, len, "'%s' cannot be reached: %s", path, strerror(e));
		return -e;
	}
	if (make) {
		e = -jank_dirtree_make(path);
		if (e)
			snprintf(why, len, "'%s' does not exist, and cannot be made: %s", path,
				 strerror(e));
		return -e;
	}
	e = -existing_ancestor(path, up, sizeof(up));
	if (!e && access(up, W_OK | X_OK) != 0)
		e = errno;
	if (e) {
		snprintf(why, len, "'%.1000s' does not exist, and cannot be made in '%.1000s': %s",
			 path, up, strerror(e));
		return -e;
	}
	return 0;
}

static void check_dir_key(struct run *r, const char *section, const char *key, const char *path,
			  bool make)
{
	char why[4096], fix[1100];

	if (!path || check_dir(path, make, why, sizeof(why)) == 0)
		return;
	snprintf(fix, sizeof(fix),
		 "systemd-tmpfiles --create jankd.conf, or: install -d -m 0750 %.1000s", path);
	problem(r, section, key, fix, "%s", why);
}

static bool captures(const struct jank_config *c)
{
	if (c->capture.mode == JANK_CAPTURE_NONE)
		return false;
	for (size_t i = 0; i < c->nrules; i++)
		if (c->rules[i].capture)
			return true;
	return false;
}

static void check_dirs(struct run *r)
{
	const struct jank_config *c = r->pf->config;
	char parent[JANK_CONFIG_SOCKET_LEN];
	char *slash;

	check_dir_key(r, "daemon", "state-dir", c->daemon.state_dir, !r->pf->all);
	if (!r->pf->all)
		return;
	if (captures(c))
		check_dir_key(r, "capture", "dir",
			      c->capture.dir ? c->capture.dir : JANK_CAPTURE_DEFAULT_DIR, false);
	/* The control socket's directory: jankd makes it. */
	snprintf(parent, sizeof(parent), "%s", c->daemon.control_socket);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		check_dir_key(r, "daemon", "control-socket", parent, false);
	}
}

/* ---- The worker spawner ---- */

static void check_spawner(struct run *r)
{
	const char *path = r->pf->spawner;
	struct stat st;

	if (!path)
		return;
	if (stat(path, &st) != 0)
		problem(r, NULL, "--worker-spawner", "systemctl start jankd-workers.socket",
			"%s: %s: the worker spawner does not listen there", path, strerror(errno));
	else if (!S_ISSOCK(st.st_mode))
		problem(r, NULL, "--worker-spawner", "systemctl start jankd-workers.socket",
			"%s: not a socket", path);
}

/* ---- Addresses ---- */

int jank_preflight_url_host(const char *url, char *host, size_t len)
{
	const char *p = strstr(url, "://"), *end;

	if (!p)
		return -EINVAL;
	p += 3;
	if (*p == '[') {
		end = strchr(++p, ']');
		if (!end)
			return -EINVAL;
	} else {
		end = p + strcspn(p, ":/");
	}
	if (end == p || (size_t)(end - p) >= len)
		return -EINVAL;
	memcpy(host, p, (size_t)(end - p));
	host[end - p] = '\0';
	return 0;
}

static void check_url(struct run *r, const char *key, const char *url)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	char host[256];
	int e;

	if (!url[0] || jank_preflight_url_host(url, host, sizeof(host)) < 0)
		return; /* the parser checked its form */
	e = getaddrinfo(host, NULL, &hints, &res);
	if (e)
		problem(r, "live", key, NULL, "'%s': cannot resolve '%s': %s", url, host,
			e == EAI_SYSTEM ? strerror(errno) : gai_strerror(e));
	else
		freeaddrinfo(res);
}

/* A numeric address to listen on is one of this host's: binding it to port 0 says. */
static void check_listen(struct run *r, const char *section, const char *host)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	socklen_t slen;
	int fd, e = 0;

	if (!host[0])
		return;
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		slen = sizeof(*a4);
	} else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		slen = sizeof(*a6);
	} else {
		return;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (bind(fd, (struct sockaddr *)&ss, slen) != 0)
		e = errno;
	close(fd);
	if (e)
		problem(r, section, "listen", NULL, "cannot listen on %s: %s", host, strerror(e));
}

static void check_addresses(struct run *r)
{
	const struct jank_config *c = r->pf->config;

	for (size_t i = 0; i < c->live.nurls; i++)
		check_url(r, "url", c->live.urls[i]);
	if (c->live.create)
		check_url(r, "relayd", c->live.relayd);
	check_url(r, "discover", c->live.discover);
	check_listen(r, "metrics", c->metrics.host);
	check_listen(r, "web", c->web.host);
}

size_t jank_preflight_run(const struct jank_preflight *pf, jank_preflight_fn fn, void *data)
{
	struct run r = { .pf = pf, .fn = fn, .data = data };

	check_user(&r);
	check_spawner(&r);
	check_dirs(&r);
	if (pf->all)
		check_addresses(&r);
	return r.problems;
}
