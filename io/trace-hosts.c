/* SPDX-License-Identifier: MIT */
/*
 * The host of each CTF trace (trace-hosts.h): the metadata as TSDL text
 * (packetized or not), whose `env` block says `hostname = "NAME";`, read by
 * the native decoder's TSDL parser (io/ctf-metadata.c). jank's own reader of
 * the metadata file gives the text (ctf-meta-file.c); src.ctf.fs's
 * metadata-info query, which parses the whole metadata with babeltrace2's
 * parser first, gives it when that reader refuses the file (CTF 2,
 * compressed packets) or with `--decoder babeltrace2`. The text is the
 * tracer's (or a remote host's, through relayd): the name is checked.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <babeltrace2/babeltrace.h>
#include "ctf-meta.h"
#include "errbuf.h"
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

/*
 * The hostname of the env block of TSDL text: 0 with host "" when there is
 * none (or the text does not parse: the reader will say why), 1 with it,
 * -EINVAL when it is not a hostname.
 */
static int env_hostname(const char *tsdl, size_t len, char *host)
{
	const struct ctf_env *env;
	struct ctf_meta *m;
	char err[256];
	int r = 0;

	host[0] = '\0';
	m = ctf_meta_parse(tsdl, len, err, sizeof(err));
	if (!m)
		return 0;
	env = ctf_meta_env(m, "hostname");
	if (env && (env->is_int || !env->s || !jank_hostname_ok(env->s, strlen(env->s)))) {
		r = -EINVAL;
	} else if (env) {
		strcpy(host, env->s);
		r = 1;
	}
	ctf_meta_free(m);
	return r;
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

/*
 * A trace directory's metadata as text (*len bytes): jank's reader's, or
 * src.ctf.fs's answer (up to its first NUL, as babeltrace2 gives it); NULL
 * when neither has it.
 */
static char *metadata_text(const bt_component_class_source *fs, const char *dir, size_t *len)
{
	char path[PATH_MAX], why[256], *text = NULL;

	if (reader_groups_for_decoder() == READER_GROUPS_OWN &&
	    snprintf(path, sizeof(path), "%s/metadata", dir) < (int)sizeof(path) &&
	    ctf_meta_read_file(path, &text, len, why, sizeof(why)) == 0) {
		*len = strnlen(text, *len);
		return text;
	}
	text = reader_query_string(fs, "metadata-info", dir, "text");
	*len = text ? strlen(text) : 0;
	return text;
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
		r = reader_collect_trace_dirs(fs, paths, n, READER_GROUPS_NONE, &dirs, &ndirs, err,
					      errlen);
	if (r == 0 && !(v = calloc(ndirs ? ndirs : 1, sizeof(*v)))) {
		jank_errf(err, errlen, "out of memory");
		r = -ENOMEM;
	}
	for (size_t i = 0; r == 0 && i < ndirs; i++) {
		size_t len;
		char *text = metadata_text(fs, dirs[i].dir, &len);

		v[i].dir = dirs[i].dir;
		dirs[i].dir = NULL;
		*nout = i + 1;
		if (text && env_hostname(text, len, v[i].host) < 0)
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
