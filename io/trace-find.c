/* SPDX-License-Identifier: MIT */
/*
 * Finding the CTF traces an offline input reads: every directory under the
 * paths given that holds a `metadata` file (symbolic links below the top
 * are not followed), its metadata checked before src.ctf.fs sees it, and its
 * group, the trace UUID src.ctf.fs reports: the directories of one trace
 * (the chunks of a rotated session) go to one source component, those of
 * different traces to different ones (trace-source.c makes them). When the
 * native decoder may read the traces, the group comes from jank's own parse
 * of the metadata (the trace block's uuid, which is what src.ctf.fs reports);
 * babeltrace2's query, which parses the whole metadata again with its own
 * parser, only runs when jank's parser refuses it, or for babeltrace2's path.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <babeltrace2/babeltrace.h>
#include "array.h"
#include "ctf-meta.h"
#include "errbuf.h"
#include "time-limit.h"
#include "trace-reader-int.h"

#define MAX_WALK_DEPTH 16

struct path_list {
	char **v;
	size_t n;
	size_t cap;
};

static int path_list_add(struct path_list *l, const char *path)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(path);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static void path_list_fini(struct path_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Collect every directory under `dir` (itself included) that holds a
 * `metadata` file. Symbolic links below the top are not followed, so a link
 * loop cannot trap the walk.
 */
static int find_traces(const char *dir, int depth, struct path_list *out)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int r = 0;

	if (depth > MAX_WALK_DEPTH)
		return 0;
	d = opendir(dir);
	if (!d)
		return depth == 0 ? -errno : 0;
	if (snprintf(path, sizeof(path), "%s/metadata", dir) < (int)sizeof(path) &&
	    stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		r = path_list_add(out, dir);
		goto end; /* a trace's subdirectories (index/) hold no other trace */
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		r = find_traces(path, depth + 1, out);
		if (r < 0)
			goto end;
	}
end:
	closedir(d);
	return r;
}

/*
 * Check the metadata file before src.ctf.fs sees it: on garbage, src.ctf.fs
 * only says "Cannot create trace" (the details go to its log) and reads
 * uninitialised memory on the way. CTF metadata is either packetized (it
 * starts with the packet magic) or text that starts with the signature
 * comment of CTF 1.8.
 */
static bool metadata_looks_bad(const char *dir, char *why, size_t len)
{
	static const unsigned char magic_le[4] = { 0x57, 0x1d, 0xd1, 0x75 };
	static const unsigned char magic_be[4] = { 0x75, 0xd1, 0x1d, 0x57 };
	unsigned char head[8] = { 0 };
	char path[PATH_MAX];
	size_t n;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/metadata", dir) >= (int)sizeof(path))
		return false;
	f = fopen(path, "rb");
	if (!f) {
		jank_errf(why, len, "%s: %s", path, strerror(errno));
		return true;
	}
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n >= 4 && (!memcmp(head, magic_le, 4) || !memcmp(head, magic_be, 4)))
		return false;
	if (n >= 6 && !memcmp(head, "/* CTF", 6))
		return false;
	jank_errf(why, len, "%s is not CTF metadata (no packet magic, no \"/* CTF\" signature)",
		  path);
	return true;
}

/* The babeltrace2 queries run (jank_reader_bt_queries()). */
static unsigned long queries_run;

unsigned long jank_reader_bt_queries(void)
{
	return __atomic_load_n(&queries_run, __ATOMIC_RELAXED);
}

/* One query of src.ctf.fs about `dir` (trace-reader-int.h). */
char *reader_query_string(const bt_component_class_source *fs_cls, const char *object,
			  const char *dir, const char *key)
{
	bool info = !strcmp(object, "metadata-info");
	bt_value *params = bt_value_map_create();
	const bt_value *result = NULL, *v;
	bt_query_executor *q = NULL;
	bt_query_executor_query_status st;
	char *ret = NULL, what[PATH_MAX + 64];

	/* metadata-info takes the directory as `path`, support-info as an `input` of a `type`. */
	if (!params || bt_value_map_insert_string_entry(params, info ? "path" : "input", dir) ||
	    (!info && bt_value_map_insert_string_entry(params, "type", "directory")))
		goto end;
	q = bt_query_executor_create(bt_component_class_source_as_component_class_const(fs_cls),
				     object, params);
	if (!q)
		goto end;
	bt_query_executor_set_logging_level(q, BT_LOGGING_LEVEL_NONE);
	__atomic_fetch_add(&queries_run, 1, __ATOMIC_RELAXED);
	snprintf(what, sizeof(what), "reading the metadata of %s", dir);
	jank_time_limit_begin(what);
	st = bt_query_executor_query(q, &result);
	jank_time_limit_end();
	if (st != BT_QUERY_EXECUTOR_QUERY_STATUS_OK)
		goto end;
	if (bt_value_get_type(result) != BT_VALUE_TYPE_MAP)
		goto end;
	v = bt_value_map_borrow_entry_value_const(result, key);
	if (v && bt_value_get_type(v) == BT_VALUE_TYPE_STRING)
		ret = strdup(bt_value_string_get(v));
end:
	bt_current_thread_clear_error();
	bt_value_put_ref(result);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	return ret;
}

/*
 * The group src.ctf.fs gives a trace directory (its trace UUID) through the
 * babeltrace.support-info query: directories of the same trace (the chunks of
 * a rotated session) must go to one component, and directories of different
 * traces must not (src.ctf.fs refuses traces whose UUIDs differ). NULL when
 * there is none or the query fails (the component will say why).
 */
static char *query_group(const bt_component_class_source *fs_cls, const char *dir)
{
	return reader_query_string(fs_cls, "babeltrace.support-info", dir, "group");
}

/*
 * The group from jank's own parse of the metadata (ctf-meta.h): the trace
 * block's uuid written as babeltrace2 writes it (bt_uuid_to_str: lower-case
 * hex, 8-4-4-4-12). 1 with *group (NULL: the trace has no uuid), 0 when
 * jank's reader or parser refuses the metadata (CTF 2, compressed packets,
 * a declaration it does not know), -ENOMEM.
 */
static int own_group(const char *dir, char **group)
{
	char path[PATH_MAX], why[INPUT_ERR_LEN], *text = NULL;
	struct ctf_meta *m;
	size_t n;
	int r = 0;

	*group = NULL;
	if (snprintf(path, sizeof(path), "%s/metadata", dir) >= (int)sizeof(path) ||
	    ctf_meta_read_file(path, &text, &n, why, sizeof(why)) < 0)
		return 0;
	m = ctf_meta_parse(text, n, why, sizeof(why));
	free(text);
	if (!m)
		return 0;
	r = 1;
	if (m->has_uuid) {
		const uint8_t *u = m->uuid;

		*group = malloc(37);
		if (!*group)
			r = -ENOMEM;
		else
			snprintf(*group, 37,
				 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
				 "%02x%02x%02x%02x%02x%02x",
				 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
				 u[11], u[12], u[13], u[14], u[15]);
	}
	ctf_meta_free(m);
	return r;
}

/* A directory's group as `how` asks (trace-reader-int.h). */
static int find_group(const bt_component_class_source *fs_cls, struct trace_dir *d,
		      enum reader_groups how)
{
	int r;

	d->group = NULL;
	d->own_group = false;
	if (how == READER_GROUPS_NONE)
		return 0;
	if (how == READER_GROUPS_OWN) {
		r = own_group(d->dir, &d->group);
		if (r != 0) {
			d->own_group = r > 0;
			return r < 0 ? r : 0;
		}
	}
	d->group = query_group(fs_cls, d->dir);
	return 0;
}

void reader_query_groups(const bt_component_class_source *fs_cls, struct trace_dir *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!v[i].own_group)
			continue;
		free(v[i].group);
		v[i].group = query_group(fs_cls, v[i].dir);
		v[i].own_group = false;
	}
}

/* The trace directories under each path, and their groups (trace-reader-int.h). */
int reader_collect_trace_dirs(const bt_component_class_source *fs_cls, const char *const *paths,
			      size_t n, enum reader_groups how, struct trace_dir **out,
			      size_t *nout, char *err, size_t errlen)
{
	struct path_list found = { 0 };
	struct trace_dir *v = NULL;
	size_t nv = 0;
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		struct stat st;
		struct trace_dir *nvv;

		if (stat(paths[i], &st) != 0) {
			r = -errno;
			jank_errf(err, errlen, "%s: %s", paths[i], strerror(errno));
			goto end;
		}
		if (!S_ISDIR(st.st_mode)) {
			r = -ENOTDIR;
			jank_errf(err, errlen, "%s: not a directory (give a CTF trace directory)",
				  paths[i]);
			goto end;
		}
		path_list_fini(&found);
		r = find_traces(paths[i], 0, &found);
		if (r < 0) {
			jank_errf(err, errlen, "%s: %s", paths[i], strerror(-r));
			goto end;
		}
		if (found.n == 0) {
			r = -ENOENT;
			jank_errf(err, errlen, "%s: no CTF trace found (no metadata file)",
				  paths[i]);
			goto end;
		}
		jank_sort(found.v, found.n, sizeof(*found.v), cmp_str);
		nvv = realloc(v, (nv + found.n) * sizeof(*v));
		if (!nvv) {
			r = -ENOMEM;
			jank_errf(err, errlen, "out of memory");
			goto end;
		}
		v = nvv;
		for (size_t k = 0; k < found.n; k++) {
			char why[INPUT_ERR_LEN];

			/* Garbage metadata trips src.ctf.fs into reading uninitialised memory. */
			if (metadata_looks_bad(found.v[k], why, sizeof(why))) {
				r = -EINVAL;
				jank_errf(err, errlen, "%s: not a CTF trace: %s", paths[i], why);
				goto end;
			}
			v[nv].dir = found.v[k];
			found.v[k] = NULL;
			v[nv].arg = i;
			v[nv].comp = 0;
			r = find_group(fs_cls, &v[nv], how);
			nv++;
			if (r < 0) {
				jank_errf(err, errlen, "out of memory");
				goto end;
			}
		}
	}
end:
	path_list_fini(&found);
	*out = v;
	*nout = nv;
	return r;
}

void reader_trace_dirs_free(struct trace_dir *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].dir);
		free(v[i].group);
	}
	free(v);
}

/* One component per group, one per directory without a group. */
size_t reader_assign_components(struct trace_dir *v, size_t n)
{
	size_t ncomp = 0;

	for (size_t i = 0; i < n; i++) {
		v[i].comp = ncomp;
		for (size_t k = 0; v[i].group && k < i; k++) {
			if (v[k].group && !strcmp(v[k].group, v[i].group)) {
				v[i].comp = v[k].comp;
				break;
			}
		}
		if (v[i].comp == ncomp)
			ncomp++;
	}
	return ncomp;
}
