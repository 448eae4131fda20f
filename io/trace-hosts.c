/* SPDX-License-Identifier: MIT */
/*
 * The host of each CTF trace (trace-hosts.h): src.ctf.fs's metadata-info
 * query gives the metadata as TSDL text (packetized or not), whose `env`
 * block says `hostname = "NAME";`. The text is the tracer's (or a remote
 * host's, through relayd): read within its length, the name checked.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <babeltrace2/babeltrace.h>
#include "errbuf.h"
#include "time-limit.h"
#include "trace-hosts.h"
#include "trace-reader-int.h"

int jank_hostname_ok(const char *s, size_t n)
{
	if (n == 0 || n >= JANK_HOSTNAME_LEN)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

/* The TSDL text of a trace's metadata, or NULL (the reader will say why later). */
static char *metadata_text(const bt_component_class_source *fs_cls, const char *dir)
{
	bt_value *params = bt_value_map_create();
	const bt_value *result = NULL, *text;
	bt_query_executor *q = NULL;
	char *ret = NULL, what[4200];

	if (!params || bt_value_map_insert_string_entry(params, "path", dir))
		goto end;
	q = bt_query_executor_create(bt_component_class_source_as_component_class_const(fs_cls),
				     "metadata-info", params);
	if (!q)
		goto end;
	bt_query_executor_set_logging_level(q, BT_LOGGING_LEVEL_NONE);
	snprintf(what, sizeof(what), "reading the metadata of %s", dir);
	jank_time_limit_begin(what);
	if (bt_query_executor_query(q, &result) != BT_QUERY_EXECUTOR_QUERY_STATUS_OK)
		result = NULL;
	jank_time_limit_end();
	if (!result || bt_value_get_type(result) != BT_VALUE_TYPE_MAP)
		goto end;
	text = bt_value_map_borrow_entry_value_const(result, "text");
	if (text && bt_value_get_type(text) == BT_VALUE_TYPE_STRING)
		ret = strdup(bt_value_string_get(text));
end:
	bt_current_thread_clear_error();
	bt_value_put_ref(result);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	return ret;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/*
 * The hostname of the env block of TSDL text: 0 with host "" when there is
 * none, 1 with it, -EINVAL when it is not a hostname.
 */
static int env_hostname(const char *tsdl, char *host)
{
	const char *env = strstr(tsdl, "env {"), *end, *p, *q;

	host[0] = '\0';
	if (!env)
		return 0;
	end = strchr(env, '}');
	for (p = strstr(env, "hostname"); p && (!end || p < end); p = strstr(p + 1, "hostname")) {
		if (p[-1] != '\t' && p[-1] != ' ' && p[-1] != '\n' && p[-1] != '{')
			continue;
		q = skip_blanks(p + 8);
		if (*q != '=')
			continue;
		q = skip_blanks(q + 1);
		if (*q != '"')
			return -EINVAL;
		p = strchr(q + 1, '"');
		if (!p || !jank_hostname_ok(q + 1, (size_t)(p - q - 1)))
			return -EINVAL;
		memcpy(host, q + 1, (size_t)(p - q - 1));
		host[p - q - 1] = '\0';
		return 1;
	}
	return 0;
}

static int find_fs(const bt_plugin **plugin, const bt_component_class_source **fs, char *err,
		   size_t errlen)
{
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, plugin) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		jank_errf(err, errlen,
			  "cannot load the babeltrace2 plugin 'ctf' (is babeltrace2 installed?)");
		return -ENOENT;
	}
	*fs = bt_plugin_borrow_source_component_class_by_name_const(*plugin, "fs");
	if (!*fs) {
		jank_errf(err, errlen, "the babeltrace2 plugin 'ctf' has no component class 'fs'");
		return -ENOENT;
	}
	return 0;
}

int jank_trace_hosts(const char *const *paths, size_t n, struct jank_trace_host **out, size_t *nout,
		     char *err, size_t errlen)
{
	const bt_component_class_source *fs = NULL;
	const bt_plugin *plugin = NULL;
	struct trace_dir *dirs = NULL;
	struct jank_trace_host *v = NULL;
	size_t ndirs = 0;
	int r;

	*out = NULL;
	*nout = 0;
	r = find_fs(&plugin, &fs, err, errlen);
	if (r == 0)
		r = reader_collect_trace_dirs(fs, paths, n, &dirs, &ndirs, err, errlen);
	if (r == 0 && !(v = calloc(ndirs ? ndirs : 1, sizeof(*v)))) {
		jank_errf(err, errlen, "out of memory");
		r = -ENOMEM;
	}
	for (size_t i = 0; r == 0 && i < ndirs; i++) {
		char *text = metadata_text(fs, dirs[i].dir);

		v[i].dir = dirs[i].dir;
		dirs[i].dir = NULL;
		*nout = i + 1;
		if (text && env_hostname(text, v[i].host) < 0)
			v[i].bad = true;
		free(text);
	}
	reader_trace_dirs_free(dirs, ndirs);
	bt_plugin_put_ref(plugin);
	*out = v;
	return r;
}

void jank_trace_hosts_free(struct jank_trace_host *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].dir);
	free(v);
}

size_t jank_trace_hosts_distinct(const struct jank_trace_host *v, size_t n, const char **hosts,
				 size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(v[j].host, v[i].host);
		if (seen)
			continue;
		if (k < max)
			hosts[k] = v[i].host;
		k++;
	}
	return k;
}
