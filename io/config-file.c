/* SPDX-License-Identifier: MIT */
/*
 * jank's configuration: its schema (the table of sections and keys at the
 * end of the types below), the types of value only jank has (live URLs,
 * session names, rates, thresholds...), and the checks at a section's end.
 * The INI reading is io/ini-reader.c's, the table's machinery
 * io/config-schema.c's; loading, and the checks across keys and files,
 * config-load.c's.
 *
 * A new key is one row of `keys` (and its field, and jankd.conf(5)); a new
 * section one row of `sections` and its struct.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "config-file.h"
#include "trace-hosts.h"
#include "units.h"

#define fail	jank_config_schema_fail
#define LINE(p) jank_config_schema_lineno(p)

/* ---- Values of jank's own ---- */

/*
 * The next element of the comma-separated list at *s, blanks trimmed, into
 * buf: 1, or 0 at the list's end, or -EINVAL for an empty or too long one.
 */
static int next_item(const char **s, char *buf, size_t len)
{
	const char *comma, *b = *s;
	size_t n;

	if (!b)
		return 0;
	comma = strchr(b, ',');
	n = comma ? (size_t)(comma - b) : strlen(b);
	while (n && isspace((unsigned char)*b)) {
		b++;
		n--;
	}
	while (n && isspace((unsigned char)b[n - 1]))
		n--;
	if (n == 0 || n >= len)
		return -EINVAL;
	memcpy(buf, b, n);
	buf[n] = '\0';
	*s = comma ? comma + 1 : NULL;
	return 1;
}

/* Whether v starts with one of the schemes, something that is not in `not_first` after it. */
static bool has_scheme(const char *v, const char *const *schemes, const char *not_first,
		       size_t *after)
{
	for (size_t i = 0; schemes[i]; i++) {
		size_t n = strlen(schemes[i]);

		if (!strncmp(v, schemes[i], n) && v[n] && !strchr(not_first, v[n])) {
			*after = n;
			return true;
		}
	}
	return false;
}

static const char *const live_schemes[] = { "net://", "net4://", "net6://", NULL };

/* A string into the char array of k->size at k's offset. */
static void copy_array(const struct jank_config_schema_key *k, void *sec, const char *v)
{
	memcpy(JANK_CONF_FIELD(sec, k, char), v, strlen(v) + 1);
}

/* [live] url: a comma-separated list of live URLs, one session (or host) each. */
static int live_urls_parse(struct jank_config_schema_parser *p,
			   const struct jank_config_schema_key *k, const char *v, void *sec)
{
	char ***urls = JANK_CONF_FIELD(sec, k, char **);
	size_t *n = JANK_CONF_FIELD2(sec, k, size_t), after;
	char url[JANK_CONFIG_URL_LEN];
	const char *s = v;
	int r;

	/* A drop-in's url replaces the list of an earlier file. */
	jank_config_schema_list_free(urls, n);
	while ((r = next_item(&s, url, sizeof(url))) > 0) {
		if (!has_scheme(url, live_schemes, "/", &after) || !strstr(url + after, "/host/")) {
			fail(p, LINE(p),
			     "bad url '%s' (expected net://RELAYD-HOST/host/HOSTNAME/SESSION)",
			     url);
			return -EINVAL;
		}
		for (size_t i = 0; i < *n; i++) {
			if (!strcmp((*urls)[i], url)) {
				fail(p, LINE(p), "url '%s' is listed twice", url);
				return -EINVAL;
			}
		}
		if (jank_config_schema_list_add(p, urls, n, url) < 0)
			return -ENOMEM;
	}
	if (r < 0)
		fail(p, LINE(p), "bad url list '%s' (an element is empty or too long)", v);
	return r;
}

static const struct jank_config_schema_type live_urls = { .name = "url list",
							  .parse = live_urls_parse,
							  .equal = jank_config_schema_list_equal,
							  .free = jank_config_schema_list_fini,
							  .second = true };

/* An lttng session name: letters, digits and _-.: (no '/'), shorter than LTTNG_NAME_MAX. */
static int session_parse(struct jank_config_schema_parser *p,
			 const struct jank_config_schema_key *k, const char *v, void *sec)
{
	bool ok = strlen(v) < k->size && v[0] != '.' && v[0] != '-';

	for (const char *s = v; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.:", *s))
			ok = false;
	if (!ok) {
		fail(p, LINE(p),
		     "bad session name '%s' (expected letters, digits and _-.:, at most %zu)", v,
		     k->size - 1);
		return -EINVAL;
	}
	copy_array(k, sec, v);
	return 0;
}

static const struct jank_config_schema_type session_name = {
	.name = "session name", .parse = session_parse, .equal = jank_config_schema_array_equal
};

/* The lttng output URL of the created session: where relayd listens. */
static int relayd_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
			const char *v, void *sec)
{
	static const char *const schemes[] = { "net://", "net6://", "tcp://", "tcp6://", NULL };
	size_t after;
	bool ok = has_scheme(v, schemes, "/:", &after);

	for (const char *s = v; *s; s++)
		if (isspace((unsigned char)*s) || *s == ',')
			ok = false;
	if (!ok || strlen(v) >= k->size) {
		fail(p, LINE(p), "bad relayd '%s' (expected an lttng URL such as net://HOST)", v);
		return -EINVAL;
	}
	copy_array(k, sec, v);
	return 0;
}

static const struct jank_config_schema_type relayd_url = {
	.name = "relayd url", .parse = relayd_parse, .equal = jank_config_schema_array_equal
};

/* The relayd whose sessions are discovered: net://HOST[:LIVE-PORT], no path. */
static int discover_parse(struct jank_config_schema_parser *p,
			  const struct jank_config_schema_key *k, const char *v, void *sec)
{
	size_t after;
	bool ok = has_scheme(v, live_schemes, ":", &after) && !strpbrk(v + after, "/, \t");

	if (!ok || strlen(v) >= k->size) {
		fail(p, LINE(p),
		     "bad discover '%s' (expected net://RELAYD-HOST[:LIVE-PORT], without a path)",
		     v);
		return -EINVAL;
	}
	copy_array(k, sec, v);
	return 0;
}

static const struct jank_config_schema_type discover_url = {
	.name = "discover url", .parse = discover_parse, .equal = jank_config_schema_array_equal
};

/* Glob patterns (fnmatch) of host or session names: no blanks, no '/'. A drop-in's replaces. */
static int patterns_parse(struct jank_config_schema_parser *p,
			  const struct jank_config_schema_key *k, const char *v, void *sec)
{
	char ***list = JANK_CONF_FIELD(sec, k, char **);
	size_t *n = JANK_CONF_FIELD2(sec, k, size_t);
	char pat[JANK_CONFIG_SESSION_LEN];
	const char *s = v;
	int r;

	jank_config_schema_list_free(list, n);
	while ((r = next_item(&s, pat, sizeof(pat))) > 0) {
		if (strpbrk(pat, "/ \t\"'")) {
			fail(p, LINE(p),
			     "bad pattern '%s' for %s (a glob such as web-* : no blanks, quotes "
			     "or '/')",
			     pat, k->name);
			return -EINVAL;
		}
		if (jank_config_schema_list_add(p, list, n, pat) < 0)
			return -ENOMEM;
	}
	if (r < 0)
		fail(p, LINE(p), "bad pattern list '%s' for %s (an element is empty or too long)",
		     v, k->name);
	return r;
}

static const struct jank_config_schema_type patterns = { .name = "pattern list",
							 .parse = patterns_parse,
							 .equal = jank_config_schema_list_equal,
							 .free = jank_config_schema_list_fini,
							 .second = true };

/* Workers send something every second: a timeout shorter than 2 s would kill sound ones. */
static int worker_timeout_parse(struct jank_config_schema_parser *p,
				const struct jank_config_schema_key *k, const char *v, void *sec)
{
	int r = jank_config_schema_duration.parse(p, k, v, sec);

	if (r == 0 && *JANK_CONF_FIELD(sec, k, int64_t) < 2000000000LL) {
		fail(p, LINE(p), "bad %s '%s' (at least 2s: a worker speaks every second)", k->name,
		     v);
		r = -EINVAL;
	}
	return r;
}

static const struct jank_config_schema_type worker_timeout = {
	.name = "worker timeout",
	.parse = worker_timeout_parse,
	.equal = jank_config_schema_bytes_equal
};

/*
 * How long an alert waits for another host's part of its path: held alerts
 * are late by this much at worst, so not past minutes; below 100 ms no
 * stream of another host could have been read.
 */
static int crossing_timeout_parse(struct jank_config_schema_parser *p,
				  const struct jank_config_schema_key *k, const char *v, void *sec)
{
	int r = jank_config_schema_duration.parse(p, k, v, sec);
	int64_t t = r == 0 ? *JANK_CONF_FIELD(sec, k, int64_t) : 0;

	if (r == 0 &&
	    (t < JANK_CONFIG_CROSSING_TIMEOUT_MIN || t > JANK_CONFIG_CROSSING_TIMEOUT_MAX)) {
		fail(p, LINE(p), "bad %s '%s' (from 100ms to 10min)", k->name, v);
		r = -EINVAL;
	}
	return r;
}

static const struct jank_config_schema_type crossing_timeout = {
	.name = "crossing timeout",
	.parse = crossing_timeout_parse,
	.equal = jank_config_schema_bytes_equal
};

/* "10/10s": at most 10 per 10 seconds; the count at offset, the period at offset2. */
static int rate_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
		      const char *v, void *sec)
{
	const char *slash = strchr(v, '/');
	char count[32];
	uint64_t n;
	int64_t ns;

	if (!slash || (size_t)(slash - v) >= sizeof(count))
		goto bad;
	memcpy(count, v, slash - v);
	count[slash - v] = '\0';
	if (jank_config_schema_parse_uint(count, &n) < 0 || n == 0)
		goto bad;
	if (jank_units_parse_duration(slash + 1, &ns) < 0 || ns <= 0)
		goto bad;
	*JANK_CONF_FIELD(sec, k, uint64_t) = n;
	*JANK_CONF_FIELD2(sec, k, int64_t) = ns;
	return 0;
bad:
	fail(p, LINE(p), "bad %s '%s' (expected COUNT/DURATION, e.g. 10/10s)", k->name, v);
	return -EINVAL;
}

static const struct jank_config_schema_type rate = {
	.name = "rate", .parse = rate_parse, .equal = jank_config_schema_bytes_equal, .second = true
};

/* An absolute path, into a char * (a size of sizeof(char *)) or a char array. */
static int path_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
		      const char *v, void *sec)
{
	if (v[0] != '/') {
		fail(p, LINE(p), "bad %s '%s' (expected an absolute path)", k->name, v);
		return -EINVAL;
	}
	return jank_config_schema_strdup(p, v, JANK_CONF_FIELD(sec, k, char *));
}

static const struct jank_config_schema_type abs_path = { .name = "path",
							 .parse = path_parse,
							 .equal = jank_config_schema_str_equal,
							 .free = jank_config_schema_str_fini };

static int socket_path_parse(struct jank_config_schema_parser *p,
			     const struct jank_config_schema_key *k, const char *v, void *sec)
{
	if (v[0] != '/' || strlen(v) >= k->size) {
		fail(p, LINE(p), "bad %s '%s' (expected an absolute path, at most %zu)", k->name, v,
		     k->size - 1);
		return -EINVAL;
	}
	copy_array(k, sec, v);
	return 0;
}

static const struct jank_config_schema_type socket_path = {
	.name = "socket path", .parse = socket_path_parse, .equal = jank_config_schema_array_equal
};

/* A user name as useradd(8) and systemd-sysusers(8) take it, or a numeric uid. */
static int user_name_parse(struct jank_config_schema_parser *p,
			   const struct jank_config_schema_key *k, const char *v, void *sec)
{
	bool ok = v[0] && strlen(v) < k->size && v[0] != '-';

	for (const char *s = v; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			ok = false;
	if (!ok) {
		fail(p, LINE(p),
		     "bad %s '%s' (expected a user name: letters, digits and _-., at most %zu)",
		     k->name, v, k->size - 1);
		return -EINVAL;
	}
	copy_array(k, sec, v);
	return 0;
}

static const struct jank_config_schema_type user_name = { .name = "user name",
							  .parse = user_name_parse,
							  .equal = jank_config_schema_array_equal };

/* An event name: no blanks, no quotes. */
static bool event_name_ok(const char *v)
{
	for (const char *s = v; *s; s++)
		if (isspace((unsigned char)*s) || *s == '"' || *s == '\'' || *s == ',')
			return false;
	return true;
}

static int event_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
		       const char *v, void *sec)
{
	if (!event_name_ok(v)) {
		fail(p, LINE(p), "bad event name '%s' for %s", v, k->name);
		return -EINVAL;
	}
	return jank_config_schema_strdup(p, v, JANK_CONF_FIELD(sec, k, char *));
}

/* Hostnames, comma-separated (a flow across hosts pairs between those only): "a,b". */
static int host_list_parse(struct jank_config_schema_parser *p,
			   const struct jank_config_schema_key *k, const char *v, void *sec)
{
	char list[1024];
	size_t n = 0;

	for (const char *s = v, *e; *s; s = *e ? e + 1 : e) {
		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strcspn(s, ",");
		size_t len = (size_t)(e - s);

		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (!jank_hostname_ok(s, len) || n + len + 2 > sizeof(list)) {
			fail(p, LINE(p),
			     "bad %s '%s' (expected hostnames, comma-separated: letters, digits "
			     "and ._-)",
			     k->name, v);
			return -EINVAL;
		}
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%.*s", n ? "," : "", (int)len,
				      s);
	}
	if (!n) {
		fail(p, LINE(p), "bad %s '' (expected hostnames, comma-separated)", k->name);
		return -EINVAL;
	}
	return jank_config_schema_strdup(p, list, JANK_CONF_FIELD(sec, k, char *));
}

static const struct jank_config_schema_type host_list = { .name = "host list",
							  .parse = host_list_parse,
							  .equal = jank_config_schema_str_equal,
							  .free = jank_config_schema_str_fini };

/* debuginfod servers: http(s) URLs, comma-separated; kept as the client takes them. */
static int url_list_parse(struct jank_config_schema_parser *p,
			  const struct jank_config_schema_key *k, const char *v, void *sec)
{
	static const char *const schemes[] = { "http://", "https://", NULL };
	char list[4096], url[1024];
	const char *s = v;
	size_t n = 0, after;
	int r;

	while ((r = next_item(&s, url, sizeof(url))) > 0) {
		bool ok = has_scheme(url, schemes, "/", &after) && url[after];

		for (const char *c = url; ok && *c; c++)
			ok = (unsigned char)*c > ' ' && *c != '"' && *c != '\'' && *c != 0x7f;
		if (!ok || n + strlen(url) + 2 > sizeof(list)) {
			r = -EINVAL;
			break;
		}
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? " " : "", url);
	}
	if (r < 0 || !n) {
		fail(p, LINE(p), "bad %s '%s' (expected http:// or https:// URLs, comma-separated)",
		     k->name, v);
		return -EINVAL;
	}
	return jank_config_schema_strdup(p, list, JANK_CONF_FIELD(sec, k, char *));
}

static const struct jank_config_schema_type url_list = { .name = "URL list",
							 .parse = url_list_parse,
							 .equal = jank_config_schema_str_equal,
							 .free = jank_config_schema_str_fini };

/* The symbolizer's budget: a size within JANK_CONFIG_SYMBOLS_{MIN,MAX}_LIMIT. */
static int symbols_limit_parse(struct jank_config_schema_parser *p,
			       const struct jank_config_schema_key *k, const char *v, void *sec)
{
	uint64_t bytes;

	if (jank_units_parse_size(v, &bytes) < 0 || bytes < JANK_CONFIG_SYMBOLS_MIN_LIMIT ||
	    bytes > JANK_CONFIG_SYMBOLS_MAX_LIMIT || bytes > SIZE_MAX) {
		fail(p, LINE(p), "bad size '%s' for %s (expected 1MiB to 64GiB)", v, k->name);
		return -EINVAL;
	}
	*JANK_CONF_FIELD(sec, k, uint64_t) = bytes;
	return 0;
}

static const struct jank_config_schema_type symbols_limit = {
	.name = "size", .parse = symbols_limit_parse, .equal = jank_config_schema_bytes_equal
};

static const struct jank_config_schema_type event = { .name = "event",
						      .parse = event_parse,
						      .equal = jank_config_schema_str_equal,
						      .free = jank_config_schema_str_fini };

/* Event names, comma-separated: provider:event (user space) or a kernel event; wildcards
 * allowed. A drop-in's list replaces the earlier one. */
static int events_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
			const char *v, void *sec)
{
	char ***list = JANK_CONF_FIELD(sec, k, char **);
	size_t *n = JANK_CONF_FIELD2(sec, k, size_t);
	const char *s = v;
	char name[256];
	int r;

	jank_config_schema_list_free(list, n);
	while ((r = next_item(&s, name, sizeof(name))) > 0) {
		if (!event_name_ok(name)) {
			fail(p, LINE(p), "bad event name '%s' for %s", name, k->name);
			return -EINVAL;
		}
		if (jank_config_schema_list_add(p, list, n, name) < 0)
			return -ENOMEM;
	}
	if (r < 0)
		fail(p, LINE(p), "bad event list '%s' for %s (an element is empty or too long)", v,
		     k->name);
	return r;
}

static const struct jank_config_schema_type events = { .name = "event list",
						       .parse = events_parse,
						       .equal = jank_config_schema_list_equal,
						       .free = jank_config_schema_list_fini,
						       .second = true };

/* "5%" of the filesystem (the double at offset2), or a size such as "1GiB" (the bytes at
 * offset); "0" never refuses. */
static int min_free_parse(struct jank_config_schema_parser *p,
			  const struct jank_config_schema_key *k, const char *v, void *sec)
{
	uint64_t *bytes = JANK_CONF_FIELD(sec, k, uint64_t);
	double *percent = JANK_CONF_FIELD2(sec, k, double);
	size_t n = strlen(v);

	if (n > 1 && v[n - 1] == '%') {
		char num[32], *end;
		double pct;

		if (n - 1 >= sizeof(num) || !isdigit((unsigned char)v[0]))
			goto bad;
		memcpy(num, v, n - 1);
		num[n - 1] = '\0';
		errno = 0;
		pct = strtod(num, &end);
		if (errno || *end || pct < 0 || pct >= 100)
			goto bad;
		*bytes = 0;
		*percent = pct;
		return 0;
	}
	if (!strcmp(v, "0")) {
		*bytes = 0;
		*percent = 0;
		return 0;
	}
	if (jank_units_parse_size(v, bytes) < 0)
		goto bad;
	*percent = 0;
	return 0;
bad:
	fail(p, LINE(p), "bad %s '%s' (expected a size such as 1GiB or a percentage such as 5%%)",
	     k->name, v);
	return -EINVAL;
}

static const struct jank_config_schema_type min_free = { .name = "size or percentage",
							 .parse = min_free_parse,
							 .equal = jank_config_schema_bytes_equal,
							 .second = true };

/* A numeric address, "[v6]" or "localhost": the address into host. */
static int parse_host(const char *s, size_t n, char *host)
{
	unsigned char a[sizeof(struct in6_addr)];
	char buf[JANK_CONFIG_HOST_LEN];
	int family = AF_INET;

	if (n == 9 && !strncmp(s, "localhost", 9)) {
		snprintf(host, JANK_CONFIG_HOST_LEN, "127.0.0.1");
		return 0;
	}
	if (n > 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
		family = AF_INET6;
	}
	if (n >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
	if (inet_pton(family, buf, a) != 1)
		return -EINVAL;
	memcpy(host, buf, strlen(buf) + 1);
	return 0;
}

/* 127.0.0.0/8, ::1 or ::ffff:127.x.y.z. */
static bool host_is_loopback(const char *host)
{
	unsigned char a[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET, host, a) == 1)
		return a[0] == 127;
	if (inet_pton(AF_INET6, host, a) == 1)
		return IN6_IS_ADDR_LOOPBACK((struct in6_addr *)a) ||
		       (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)a) && a[12] == 127);
	return false;
}

/* ADDRESS:PORT, the address at offset (a char array), the port (unsigned) at offset2; whether
 * a non-loopback address is allowed is checked at the section's end. */
static int listen_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
			const char *v, void *sec)
{
	char *host = JANK_CONF_FIELD(sec, k, char);
	const char *colon = strrchr(v, ':');
	uint64_t port;

	if (!colon || jank_config_schema_parse_uint(colon + 1, &port) < 0 || port == 0 ||
	    port > 65535 || parse_host(v, (size_t)(colon - v), host) < 0) {
		host[0] = '\0';
		fail(p, LINE(p),
		     "bad %s '%s' (expected ADDRESS:PORT: 127.0.0.1:9479, [::1]:9479 or "
		     "localhost:9479)",
		     k->name, v);
		return -EINVAL;
	}
	*JANK_CONF_FIELD2(sec, k, unsigned) = (unsigned)port;
	return 0;
}

static const struct jank_config_schema_type listen_address = {
	.name = "address:port",
	.parse = listen_parse,
	.equal = jank_config_schema_bytes_equal,
	.second = true
};

/* [action NAME] key: the fields that pair a begin with its end. */
static int rule_keys_parse(struct jank_config_schema_parser *p,
			   const struct jank_config_schema_key *k, const char *v, void *sec)
{
	(void)k;
	if (jank_rule_set_keys(sec, v) < 0) {
		fail(p, LINE(p), "bad key '%s' (expected up to %d field names separated by commas)",
		     v, JANK_RULE_MAX_KEYS);
		return -EINVAL;
	}
	return 0;
}

/* [flow NAME] key: the same, for a `from` and its `to`. */
static int flow_keys_parse(struct jank_config_schema_parser *p,
			   const struct jank_config_schema_key *k, const char *v, void *sec)
{
	(void)k;
	if (jank_flow_rule_set_keys(sec, v) < 0) {
		fail(p, LINE(p), "bad key '%s' (expected up to %d field names separated by commas)",
		     v, JANK_RULE_MAX_KEYS);
		return -EINVAL;
	}
	return 0;
}

/* Key fields: a char *[] at offset, their unsigned count at offset2. */
static bool keys_equal(const struct jank_config_schema_key *k, const void *a, const void *b)
{
	char *const *x = JANK_CONF_FIELD(a, k, char *const), *const *y = JANK_CONF_FIELD(
								     b, k, char *const);
	unsigned n = *JANK_CONF_FIELD2(a, k, const unsigned);

	if (n != *JANK_CONF_FIELD2(b, k, const unsigned))
		return false;
	for (unsigned i = 0; i < n; i++)
		if (strcmp(x[i], y[i]) != 0)
			return false;
	return true;
}

static const struct jank_config_schema_type rule_keys = {
	.name = "field list", .parse = rule_keys_parse, .equal = keys_equal, .second = true
};

static const struct jank_config_schema_type flow_keys = {
	.name = "field list", .parse = flow_keys_parse, .equal = keys_equal, .second = true
};

/* [flow NAME] to-key: the `to` event's own fields, in key's order. */
static int flow_to_keys_parse(struct jank_config_schema_parser *p,
			      const struct jank_config_schema_key *k, const char *v, void *sec)
{
	(void)k;
	if (jank_flow_rule_set_to_keys(sec, v) < 0) {
		fail(p, LINE(p),
		     "bad to-key '%s' (expected up to %d field names separated by commas)", v,
		     JANK_RULE_MAX_KEYS);
		return -EINVAL;
	}
	return 0;
}

static const struct jank_config_schema_type flow_to_keys = {
	.name = "field list", .parse = flow_to_keys_parse, .equal = keys_equal, .second = true
};

/* [action NAME] match: FIELD == VALUE. */
static int match_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
		       const char *v, void *sec)
{
	(void)k;
	if (jank_rule_set_match(sec, v) < 0) {
		fail(p, LINE(p), "bad match '%s' (expected FIELD == \"string\" or FIELD == NUMBER)",
		     v);
		return -EINVAL;
	}
	return 0;
}

static int flow_match_parse(struct jank_config_schema_parser *p,
			    const struct jank_config_schema_key *k, const char *v, void *sec)
{
	(void)k;
	if (jank_flow_rule_set_match(sec, v) < 0) {
		fail(p, LINE(p), "bad match '%s' (expected FIELD == \"string\" or FIELD == NUMBER)",
		     v);
		return -EINVAL;
	}
	return 0;
}

/* A match: its field (char *) at offset, its value (struct jank_value) at offset2. */
static bool match_equal(const struct jank_config_schema_key *k, const void *a, const void *b)
{
	const char *fx = *JANK_CONF_FIELD(a, k, char *const),
		   *fy = *JANK_CONF_FIELD(b, k, char *const);
	const struct jank_value *u = JANK_CONF_FIELD2(a, k, const struct jank_value);
	const struct jank_value *w = JANK_CONF_FIELD2(b, k, const struct jank_value);

	if (!fx || !fy)
		return fx == fy;
	if (strcmp(fx, fy) != 0 || u->type != w->type)
		return false;
	return u->type == JANK_VALUE_STR ? !strcmp(u->s, w->s) : u->i == w->i;
}

static const struct jank_config_schema_type match = {
	.name = "match", .parse = match_parse, .equal = match_equal, .second = true
};

static const struct jank_config_schema_type flow_match = {
	.name = "match", .parse = flow_match_parse, .equal = match_equal, .second = true
};

/*
 * [action NAME] threshold: a duration, or pPERCENTILE[*FACTOR]. The warmup
 * is a key of its own: the one set before or after stays.
 */
static int threshold_parse(struct jank_config_schema_parser *p,
			   const struct jank_config_schema_key *k, const char *v, void *sec)
{
	struct jank_threshold *out = JANK_CONF_FIELD(sec, k, struct jank_threshold), t;

	if (jank_threshold_parse(v, &t) < 0 || (t.kind == JANK_THRESHOLD_FIXED && t.ns <= 0)) {
		if (v[0] == 'p' || v[0] == 'P')
			fail(p, LINE(p),
			     "bad threshold '%s' (expected pPERCENTILE[*FACTOR], e.g. p99*1.5: a "
			     "percentile above 0 and below 100, a factor above 0 and at most 1000)",
			     v);
		else
			fail(p, LINE(p), "bad duration '%s' for %s", v, k->name);
		return -EINVAL;
	}
	t.warmup = out->warmup;
	*out = t;
	return 0;
}

static bool threshold_equal(const struct jank_config_schema_key *k, const void *a, const void *b)
{
	const struct jank_threshold *x = JANK_CONF_FIELD(a, k, const struct jank_threshold);
	const struct jank_threshold *y = JANK_CONF_FIELD(b, k, const struct jank_threshold);

	return x->kind == y->kind && x->ns == y->ns && x->percentile == y->percentile &&
	       x->factor == y->factor;
}

static const struct jank_config_schema_type threshold = { .name = "threshold",
							  .parse = threshold_parse,
							  .equal = threshold_equal };

/* ---- Checks at a section's end ---- */

/* The endpoint tells about the host's programs: beyond loopback only when asked. */
static void metrics_end(struct jank_config_schema_parser *p, void *sec)
{
	const struct jank_config_metrics *m = sec;
	struct jank_config_schema_where w;

	if (m->composition_top > JANK_COMPOSITION_TOP_MAX) {
		w = jank_config_schema_last(
			p, jank_config_schema_key_find(p->schema, "metrics", "composition-top"));
		jank_ini_fail_in(&p->ini, w.file, w.line,
				 "[metrics] composition-top: %" PRIu64
				 " is more than %d names per rule",
				 m->composition_top, JANK_COMPOSITION_TOP_MAX);
		return;
	}
	if (!m->host[0] || host_is_loopback(m->host) || m->listen_public)
		return;
	w = jank_config_schema_last(p, jank_config_schema_key_find(p->schema, "metrics", "listen"));
	jank_ini_fail_in(&p->ini, w.file, w.line,
			 "[metrics] listen: %s is not a loopback address: whoever reaches it can "
			 "read jankd's metrics (say listen-public = yes to serve it there)",
			 m->host);
}

/* The pages show what traced programs did: beyond loopback only when asked. */
static void web_end(struct jank_config_schema_parser *p, void *sec)
{
	const struct jank_config_web *m = sec;
	struct jank_config_schema_where w;

	if (!m->host[0] || host_is_loopback(m->host) || m->listen_public)
		return;
	w = jank_config_schema_last(p, jank_config_schema_key_find(p->schema, "web", "listen"));
	jank_ini_fail_in(&p->ini, w.file, w.line,
			 "[web] listen: %s is not a loopback address: whoever reaches it can "
			 "read the janks of the traced programs (say listen-public = yes to serve "
			 "them there)",
			 m->host);
}

static void action_end(struct jank_config_schema_parser *p, void *sec)
{
	const struct jank_rule *r = sec;

	if (!strcmp(r->begin_event, r->end_event))
		fail(p, p->section_line,
		     "[%s]: begin and end are the same event '%s' (an action needs two)",
		     p->section, r->begin_event);
}

const char *const jank_function_events[] = {
	"lttng_ust_cyg_profile:*",
	"lttng_ust_cyg_profile_fast:*",
	"lttng_ust_statedump:*",
	"lttng_ust_dl:*",
	NULL,
};

static void flow_end(struct jank_config_schema_parser *p, void *sec)
{
	const struct jank_flow_rule *f = sec;

	if (!strcmp(f->from_event, f->to_event))
		fail(p, p->section_line,
		     "[%s]: from and to are the same event '%s' (a flow needs two: one where a "
		     "thread hands the work over, one where another picks it up)",
		     p->section, f->from_event);
	else if (!jank_flow_rule_ok(f))
		fail(p, p->section_line,
		     "[%s]: to-key names %u fields and key %u (to-key gives the `to` event's "
		     "field for each field of key, in the same order)",
		     p->section, f->nto_keys, f->nkeys);
}

/* [graph]'s defaults are the engine's. */
static void graph_init(void *sec)
{
	struct jank_config_graph *g = sec;
	struct jank_engine_config ec;

	jank_engine_config_defaults(&ec);
	g->retention_ns = ec.retention_ns;
	g->memory_limit = ec.memory_limit;
	g->action_timeout_ns = ec.action_timeout_ns;
}

static void rule_fini(void *sec)
{
	jank_rule_fini(sec);
}

static void flow_fini(void *sec)
{
	jank_flow_rule_fini(sec);
}

/* ---- The schema ---- */

/* By value, and NULL-terminated for the schema's enum keys. */
static const char *const jank_alert_target_names[] = {
	[JANK_ALERT_JOURNAL] = "journal",
	[JANK_ALERT_STDERR] = "stderr",
	[JANK_ALERT_JSON] = "json",
	NULL,
};
_Static_assert(JANK_STRTABLE_LEN(jank_alert_target_names) == JANK_ALERT_TARGETS + 1,
	       "a name for each alert target");
/* [live] decoder: the order of enum jank_decoder (io/trace-reader.h). */
static const char *const jank_live_decoder_names[] = {
	"auto",
	"native",
	"babeltrace2",
	NULL,
};
static const char *const jank_capture_mode_names[] = {
	[JANK_CAPTURE_SNAPSHOT] = "snapshot",
	[JANK_CAPTURE_ROTATION] = "rotation",
	[JANK_CAPTURE_NONE] = "none",
	NULL,
};

JANK_STRTABLE_DEFINE(jank_alert_target, enum jank_alert_target, "?")
JANK_STRTABLE_DEFINE(jank_capture_mode, enum jank_capture_mode, "?")

#define FIELD(type, f)	.offset = offsetof(type, f), .size = sizeof(((type *)0)->f)
#define FIELD2(type, f) .offset2 = offsetof(type, f), .size2 = sizeof(((type *)0)->f)
#define LIVE(f)		FIELD(struct jank_config_live, f)
#define LIVE2(f)	FIELD2(struct jank_config_live, f)
#define GRAPH(f)	FIELD(struct jank_config_graph, f)
#define SYMBOLS(f)	FIELD(struct jank_config_symbols, f)
#define ALERTS(f)	FIELD(struct jank_config_alerts, f)
#define ALERTS2(f)	FIELD2(struct jank_config_alerts, f)
#define CAPTURE(f)	FIELD(struct jank_config_capture, f)
#define CAPTURE2(f)	FIELD2(struct jank_config_capture, f)
#define DAEMON(f)	FIELD(struct jank_config_daemon, f)
#define METRICS(f)	FIELD(struct jank_config_metrics, f)
#define METRICS2(f)	FIELD2(struct jank_config_metrics, f)
#define WEB(f)		FIELD(struct jank_config_web, f)
#define WEB2(f)		FIELD2(struct jank_config_web, f)
#define ACTION(f)	FIELD(struct jank_rule, f)
#define ACTION2(f)	FIELD2(struct jank_rule, f)
#define FLOW(f)		FIELD(struct jank_flow_rule, f)
#define FLOW2(f)	FIELD2(struct jank_flow_rule, f)
#define ZERO		.flags = JANK_CONF_ZERO
#define REQUIRED	.flags = JANK_CONF_REQUIRED

/* A key: its section, its name, its type, what a reload does with a change, its default (NULL:
 * zero, or the section's init), and its field. */
#define K(sec, key, ty, reload_, def_, ...)                                                        \
	{                                                                                          \
		.section = sec, .name = key, .type = &(ty), .reload = JANK_CONF_##reload_,         \
		.def = def_, __VA_ARGS__                                                           \
	}

/* clang-format off */
static const struct jank_config_schema_section sections[] = {
	{ "live", .offset = offsetof(struct jank_config, live) },
	{ "graph", .offset = offsetof(struct jank_config, graph), .init = graph_init },
	{ "symbols", .offset = offsetof(struct jank_config, symbols) },
	{ "alerts", .offset = offsetof(struct jank_config, alerts) },
	{ "capture", .offset = offsetof(struct jank_config, capture) },
	{ "daemon", .offset = offsetof(struct jank_config, daemon) },
	{ "metrics", .offset = offsetof(struct jank_config, metrics), .end = metrics_end },
	{ "web", .offset = offsetof(struct jank_config, web), .end = web_end },
	{ "action", .named = true, .offset = offsetof(struct jank_config, rules),
	  .count_offset = offsetof(struct jank_config, nrules), .size = sizeof(struct jank_rule),
	  .name_offset = offsetof(struct jank_rule, name), .fini = rule_fini, .end = action_end },
	{ "flow", .named = true, .offset = offsetof(struct jank_config, flows),
	  .count_offset = offsetof(struct jank_config, nflows), .size = sizeof(struct jank_flow_rule),
	  .name_offset = offsetof(struct jank_flow_rule, name), .fini = flow_fini, .end = flow_end },
};

static const struct jank_config_schema_key keys[] = {
	/* [live]: the inputs are set up at start; a change needs a restart. */
	K("live", "url",               live_urls,          RESTART, NULL, LIVE(urls), LIVE2(nurls)),
	K("live", "create",            jank_config_schema_bool,     RESTART, "no", LIVE(create)),
	K("live", "timer",             jank_config_schema_duration, RESTART, "100ms", LIVE(timer_ns)),
	K("live", "session",           session_name,       RESTART, "jankd-live", LIVE(session)),
	K("live", "relayd",            relayd_url,         RESTART, "net://127.0.0.1", LIVE(relayd)),
	K("live", "relayd-live-port",  jank_config_schema_port,     RESTART, "5344", LIVE(relayd_live_port)),
	K("live", "tracefile-size",    jank_config_schema_size,     RESTART, "64MiB", LIVE(tracefile_size)),
	K("live", "tracefile-count",   jank_config_schema_uint,     RESTART, "4", LIVE(tracefile_count), .min = 1),
	K("live", "discover",          discover_url,       RESTART, NULL, LIVE(discover)),
	K("live", "hosts",             patterns,           RESTART, NULL, LIVE(hosts), LIVE2(nhosts)),
	K("live", "sessions",          patterns,           RESTART, NULL, LIVE(sessions), LIVE2(nsessions)),
	K("live", "discover-interval", jank_config_schema_duration, RESTART, "2s", LIVE(discover_interval_ns)),
	K("live", "max-inputs",        jank_config_schema_uint,     RESTART, "64", LIVE(max_inputs), .min = 1),
	K("live", "worker-timeout",    worker_timeout,     RESTART, "10s", LIVE(worker_timeout_ns)),
	K("live", "decoder",           jank_config_schema_enum,     RESTART, "auto", LIVE(decoder), .names = jank_live_decoder_names),
	K("live", "crossing-timeout",  crossing_timeout,   LIVE, "5s", LIVE(crossing_timeout_ns)),
	K("live", "network",           jank_config_schema_bool,     RESTART, "yes", LIVE(network)),
	/* [graph]: the workers get the new limits with the rules. Defaults: the engine's. */
	K("graph", "retention",        jank_config_schema_duration, LIVE, NULL, GRAPH(retention_ns)),
	K("graph", "memory-limit",     jank_config_schema_size,     LIVE, NULL, GRAPH(memory_limit)),
	K("graph", "action-timeout",   jank_config_schema_duration, LIVE, NULL, GRAPH(action_timeout_ns)),
	K("graph", "overdue-grace",    jank_config_schema_duration, LIVE, "1s", GRAPH(overdue_grace_ns), ZERO),
	K("graph", "functions",        jank_config_schema_bool,     RESTART, "no", GRAPH(functions)),
	/* [symbols]: the workers' symbolizers and the supervisor's fetcher are set up at start. */
	K("symbols", "debuginfod-urls", url_list,          RESTART, NULL, SYMBOLS(debuginfod_urls)),
	K("symbols", "debuginfod-cache", abs_path,         RESTART, "/var/cache/jankd/debuginfod", SYMBOLS(debuginfod_cache)),
	K("symbols", "debuginfod-cache-size", jank_config_schema_size, RESTART, "1GiB", SYMBOLS(debuginfod_cache_size), ZERO),
	K("symbols", "debuginfod-timeout", jank_config_schema_duration, RESTART, "10s", SYMBOLS(debuginfod_timeout_ns)),
	K("symbols", "memory-limit", symbols_limit,       RESTART, "64MiB", SYMBOLS(memory_limit)),
	/* [alerts]: the alerter takes them (a --log-target wins over target). */
	K("alerts", "target",          jank_config_schema_enum,     LIVE, "journal", ALERTS(target), .names = jank_alert_target_names),
	K("alerts", "rate-limit",      rate,               LIVE, "10/10s", ALERTS(rate_limit_count), ALERTS2(rate_limit_period_ns)),
	/* [capture]: the capturer takes them, and sets its session up again. */
	K("capture", "mode",           jank_config_schema_enum,     LIVE, "snapshot", CAPTURE(mode), .names = jank_capture_mode_names),
	K("capture", "dir",            abs_path,           LIVE, NULL, CAPTURE(dir)),
	K("capture", "cooldown",       jank_config_schema_duration, LIVE, "30s", CAPTURE(cooldown_ns), ZERO),
	K("capture", "max-per-hour",   jank_config_schema_uint,     LIVE, "20", CAPTURE(max_per_hour)),
	K("capture", "quota",          jank_config_schema_size,     LIVE, "2GiB", CAPTURE(quota)),
	K("capture", "min-free",       min_free,           LIVE, "5%", CAPTURE(min_free), CAPTURE2(min_free_percent)),
	K("capture", "session",        session_name,       LIVE, NULL, CAPTURE(session)),
	K("capture", "events",         events,             LIVE, NULL, CAPTURE(events), CAPTURE2(nevents)),
	K("capture", "buffer-size",    jank_config_schema_size,     LIVE, NULL, CAPTURE(buffer_size), ZERO),
	K("capture", "rotation-period", jank_config_schema_duration, LIVE, "10s", CAPTURE(rotation_period_ns), ZERO),
	K("capture", "rotation-size",  jank_config_schema_size,     LIVE, NULL, CAPTURE(rotation_size), ZERO),
	K("capture", "retention",      jank_config_schema_duration, LIVE, "10s", CAPTURE(retention_ns)),
	/* [daemon]: the socket is bound, READY=1 sent, and the state directory read, at start. */
	K("daemon", "control-socket",  socket_path,        RESTART, "/run/jankd/control", DAEMON(control_socket)),
	K("daemon", "status-interval", jank_config_schema_duration, LIVE, "5s", DAEMON(status_interval_ns)),
	K("daemon", "ready-timeout",   jank_config_schema_duration, RESTART, "10s", DAEMON(ready_timeout_ns), ZERO),
	K("daemon", "worker-user",     user_name,          RESTART, "jank-worker", DAEMON(worker_user)),
	K("daemon", "workers-as-root", jank_config_schema_bool,     RESTART, "no", DAEMON(workers_as_root)),
	K("daemon", "open-binaries",   jank_config_schema_bool,     RESTART, "yes", DAEMON(open_binaries)),
	K("daemon", "state-dir",       abs_path,           RESTART, "/var/lib/jankd/state", DAEMON(state_dir)),
	/* [metrics]: the endpoint listens from the start. */
	K("metrics", "listen",         listen_address,     RESTART, NULL, METRICS(host), METRICS2(port)),
	K("metrics", "listen-public",  jank_config_schema_bool,     RESTART, "no", METRICS(listen_public)),
	K("metrics", "composition-top", jank_config_schema_uint,    RESTART, "10", METRICS(composition_top)),
	/* [web]: the pages are served from the start. */
	K("web", "listen",             listen_address,     RESTART, NULL, WEB(host), WEB2(port)),
	K("web", "listen-public",      jank_config_schema_bool,     RESTART, "no", WEB(listen_public)),
	/* [action NAME]: each rule; the workers take them all whole. */
	K("action", "begin",           event,              LIVE, NULL, ACTION(begin_event), REQUIRED),
	K("action", "end",             event,              LIVE, NULL, ACTION(end_event), REQUIRED),
	K("action", "key",             rule_keys,          LIVE, NULL, ACTION(keys), ACTION2(nkeys)),
	K("action", "match",           match,              LIVE, NULL, ACTION(match_field), ACTION2(match_value)),
	K("action", "threshold",       threshold,          LIVE, NULL, ACTION(threshold), REQUIRED),
	K("action", "capture",         jank_config_schema_bool,     LIVE, NULL, ACTION(capture)),
	K("action", "warmup",          jank_config_schema_uint,     LIVE, "100", ACTION(threshold.warmup)),
	/* [flow NAME]: each flow; the workers take them all whole, with the rules. */
	K("flow", "from",              event,              LIVE, NULL, FLOW(from_event), REQUIRED),
	K("flow", "to",                event,              LIVE, NULL, FLOW(to_event), REQUIRED),
	K("flow", "key",               flow_keys,          LIVE, NULL, FLOW(keys), FLOW2(nkeys), REQUIRED),
	K("flow", "to-key",            flow_to_keys,       LIVE, NULL, FLOW(to_keys), FLOW2(nto_keys)),
	K("flow", "match",             flow_match,         LIVE, NULL, FLOW(match_field), FLOW2(match_value)),
	K("flow", "hosts",             host_list,          LIVE, NULL, FLOW(hosts)),
};
/* clang-format on */

const struct jank_config_schema jank_config_schema = {
	.sections = sections,
	.nsections = sizeof(sections) / sizeof(sections[0]),
	.keys = keys,
	.nkeys = sizeof(keys) / sizeof(keys[0]),
};
