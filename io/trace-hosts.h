/* SPDX-License-Identifier: MIT */
/*
 * Which host each CTF trace under some paths was recorded on: the hostname
 * of its metadata's environment (LTTng writes it; relayd keys sessions by
 * it). An analysis over the traces of several hosts runs an engine per
 * host (lib/crosshost.h), because pids and tids of two hosts collide.
 */
#ifndef JANK_TRACE_HOSTS_H
#define JANK_TRACE_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#define JANK_HOSTNAME_LEN 65 /* HOST_NAME_MAX + 1 */

struct jank_trace_host {
	char *dir;		      /* a CTF trace directory */
	char host[JANK_HOSTNAME_LEN]; /* "" when its environment names none */
	bool bad;		      /* it names one that is not a hostname (host "") */
};

/*
 * The trace directories under paths[0..n) and their hosts, in the readers'
 * order. A hostname is letters, digits, '.', '_' and '-' (as hostnames and
 * relayd's paths are); another is `bad`. Returns 0 or -errno with a
 * one-line message in err.
 */
int jank_trace_hosts(const char *const *paths, size_t n, struct jank_trace_host **out, size_t *nout,
		     char *err, size_t errlen);
void jank_trace_hosts_free(struct jank_trace_host *v, size_t n);

/*
 * The distinct hostnames of v[0..n), in order of first appearance: their
 * count (the first `max` are written to hosts[], pointing into v).
 */
size_t jank_trace_hosts_distinct(const struct jank_trace_host *v, size_t n, const char **hosts,
				 size_t max);

/* Whether a hostname taken from a trace is one (non-empty, at most 64 of [A-Za-z0-9._-]). */
int jank_hostname_ok(const char *s, size_t n);

#endif
