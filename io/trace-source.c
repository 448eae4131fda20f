/* SPDX-License-Identifier: MIT */
/*
 * The trace reader's babeltrace2 graph: its source components → jank's
 * merging sink (io/trace-merge.c), which hands each message, in time
 * order, to trace-decode.c.
 *
 * The sources are src.ctf.fs (one component per trace group that
 * trace-find.c found under the paths given, with the group's directories as
 * its inputs) or src.ctf.lttng-live; nothing downstream of the source
 * differs, so live and offline decode the same way. Each source component
 * has a label, the path its read errors name.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <babeltrace2/babeltrace.h>
#include "errbuf.h"
#include "time-limit.h"
#include "trace-merge.h"
#include "trace-native.h"
#include "trace-reader-int.h"

/*
 * babeltrace2 2.0 keeps one process-wide list of the component classes of
 * its shared-object plugins, which bt_plugin_find() and the destruction of a
 * class change without a lock of its own. jankd makes inputs on two threads
 * (the live one on its event loop, capture reports on the capturer's analyst
 * thread): making an input (which finds plugins) and freeing one (which
 * drops their classes) hold this lock. Reading messages does not need it.
 */
static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;

static void input_destroy(struct jank_reader *in);

static int find_component_class(const char *plugin_name, const char *class_name, char type,
				const void **cls, const bt_plugin **plugin, char *err, size_t len)
{
	bt_plugin_find_status st;

	st = bt_plugin_find(plugin_name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, plugin);
	if (st != BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		jank_errf(err, len,
			  "cannot load the babeltrace2 plugin '%s' (is babeltrace2 installed?)",
			  plugin_name);
		return -ENOENT;
	}
	if (type == 's')
		*cls = bt_plugin_borrow_source_component_class_by_name_const(*plugin, class_name);
	else
		*cls = bt_plugin_borrow_filter_component_class_by_name_const(*plugin, class_name);
	if (!*cls) {
		jank_errf(err, len, "the babeltrace2 plugin '%s' has no component class '%s'",
			  plugin_name, class_name);
		return -ENOENT;
	}
	return 0;
}

static struct jank_reader *input_alloc(struct jank_engine *engine)
{
	struct jank_reader *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->engine = engine;
	in->last_ts = INT64_MIN;
	in->advanced_ts = INT64_MIN;
	in->generation = jank_engine_generation(engine);
	in->graph = bt_graph_create(0);
	if (!in->graph) {
		free(in);
		return NULL;
	}
	return in;
}

static int input_add_label(struct jank_reader *in, const char *label)
{
	char **v = realloc(in->labels, (in->nlabels + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	in->labels = v;
	v[in->nlabels] = strdup(label);
	if (!v[in->nlabels])
		return -ENOMEM;
	in->nlabels++;
	return 0;
}

static int input_set_name(struct jank_reader *in, const char *const *paths, size_t n)
{
	size_t len = 1;
	char *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(paths[i]) + 1;
	in->name = p = malloc(len);
	if (!p)
		return -ENOMEM;
	p[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(p, " ");
		strcat(p, paths[i]);
	}
	snprintf(in->limit_what, sizeof(in->limit_what), "reading %s", p);
	return 0;
}

/*
 * Connect every output port of the sources to an input port of the merging
 * sink (io/trace-merge.c), made with as many input ports as the sources
 * have output ports.
 */
static int connect_graph(struct jank_reader *in, const bt_component_source **srcs, size_t nsrcs,
			 char *err, size_t len)
{
	const bt_component_sink *sink = NULL;
	char reason[INPUT_ERR_LEN];
	size_t nports = 0, k = 0;

	for (size_t i = 0; i < nsrcs; i++)
		nports += bt_component_source_get_output_port_count(srcs[i]);
	in->merge_ops = (struct jank_trace_merge_ops){
		.time = reader_message_time,
		.take = reader_take_message,
		.error = reader_merge_error,
		.data = in,
	};
	if (jank_trace_merge_add(in->graph, "jank", nports, &in->merge_ops, &sink) < 0)
		goto bt_error;
	for (size_t i = 0; i < nsrcs; i++) {
		uint64_t n = bt_component_source_get_output_port_count(srcs[i]);

		for (uint64_t p = 0; p < n; p++, k++)
			if (bt_graph_connect_ports(
				    in->graph,
				    bt_component_source_borrow_output_port_by_index_const(srcs[i],
											  p),
				    bt_component_sink_borrow_input_port_by_index_const(sink, k),
				    NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
				goto bt_error;
	}
	return 0;
bt_error:
	reader_take_bt_error(reason, sizeof(reason), NULL, 0);
	jank_errf(err, len, "%s: cannot build the babeltrace2 graph: %s", in->name, reason);
	return -EIO;
}

static bt_value *params_with_inputs(const char *const *inputs, size_t n)
{
	bt_value *params = bt_value_map_create();
	bt_value *arr = bt_value_array_create();
	bt_value *ret = NULL;

	if (!params || !arr)
		goto end;
	for (size_t i = 0; i < n; i++)
		if (bt_value_array_append_string_element(arr, inputs[i]) !=
		    BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK)
			goto end;
	if (bt_value_map_insert_entry(params, "inputs", arr) != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK)
		goto end;
	ret = params;
	params = NULL;
end:
	bt_value_put_ref(arr);
	bt_value_put_ref(params);
	return ret;
}

/* Keep the canonical path of each trace directory, for release_trace_pages() (trace-reader.c). */
static int remember_trace_dirs(struct jank_reader *in, const struct trace_dir *v, size_t n)
{
	in->trace_dirs = calloc(n, sizeof(*in->trace_dirs));
	if (!in->trace_dirs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char *real = realpath(v[i].dir, NULL);
		size_t len;

		if (!real)
			continue; /* src.ctf.fs will say what is wrong with it */
		len = strlen(real);
		in->trace_dirs[in->ntrace_dirs] = malloc(len + 2);
		if (!in->trace_dirs[in->ntrace_dirs]) {
			free(real);
			return -ENOMEM;
		}
		memcpy(in->trace_dirs[in->ntrace_dirs], real, len);
		memcpy(in->trace_dirs[in->ntrace_dirs] + len, "/", 2);
		in->ntrace_dirs++;
		free(real);
	}
	return 0;
}

/* What a read error names: the trace directory (without its final '/'), or the path given. */
static int add_run_label(struct jank_reader *in, const char *path)
{
	size_t n = strlen(path);
	char *copy;
	int r;

	while (n > 1 && path[n - 1] == '/')
		n--;
	copy = strndup(path, n);
	if (!copy)
		return -ENOMEM;
	r = input_add_label(in, copy);
	free(copy);
	return r;
}

/*
 * Add the source component `comp`: src.ctf.fs over its directories. Its
 * label, for read errors, is its trace directory when it has one, else the
 * path given by the user that holds them.
 */
static int add_fs_source(struct jank_reader *in, const bt_component_class_source *fs_cls,
			 const char *const *paths, const struct trace_dir *v, size_t n, size_t comp,
			 const bt_component_source **src, char *err, size_t errlen)
{
	const char **inputs = calloc(n, sizeof(*inputs));
	const char *label = NULL;
	char cname[32], reason[INPUT_ERR_LEN], what[PATH_MAX + 64];
	bt_graph_add_component_status st;
	bt_value *params = NULL;
	size_t ninputs = 0;
	int r = 0;

	if (!inputs)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		if (v[i].comp != comp)
			continue;
		inputs[ninputs++] = v[i].dir;
		if (!label)
			label = paths[v[i].arg];
	}
	params = params_with_inputs(inputs, ninputs);
	if (!params || add_run_label(in, ninputs == 1 ? inputs[0] : label) < 0)
		goto nomem;
	snprintf(cname, sizeof(cname), "src%zu", comp);
	snprintf(what, sizeof(what), "opening the trace %s", label);
	jank_time_limit_begin(what);
	st = bt_graph_add_source_component(in->graph, fs_cls, cname, params, BT_LOGGING_LEVEL_NONE,
					   src);
	jank_time_limit_end();
	if (st != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		reader_take_bt_error(reason, sizeof(reason), NULL, 0);
		jank_errf(err, errlen, "%s: not a CTF trace: %s", label, reason);
		r = -EINVAL;
	}
	goto end;
nomem:
	jank_errf(err, errlen, "out of memory");
	r = -ENOMEM;
end:
	bt_value_put_ref(params);
	free(inputs);
	return r;
}

/* The end of a jank_reader_new_*(): drop the plugin, and the reader unless `ok`; unlock. */
static struct jank_reader *reader_done(struct jank_reader *in, bool ok, const bt_plugin *plugin)
{
	bt_plugin_put_ref(plugin);
	if (!ok) {
		input_destroy(in);
		in = NULL;
	}
	pthread_mutex_unlock(&plugin_lock);
	return in;
}

struct jank_reader *jank_reader_new_ctf(const char *const *paths, size_t n,
					struct jank_engine *engine, char *err, size_t errlen)
{
	const bt_component_class_source *fs_cls;
	const bt_component_source **srcs = NULL;
	const bt_plugin *plugin = NULL;
	struct jank_reader *in = NULL;
	struct trace_dir *dirs = NULL;
	size_t ndirs = 0, ncomp;
	bool ok = false;

	pthread_mutex_lock(&plugin_lock);
	if (n == 0) {
		jank_errf(err, errlen, "no trace given");
		goto end;
	}
	in = input_alloc(engine);
	if (!in || input_set_name(in, paths, n) < 0)
		goto nomem;
	if (find_component_class("ctf", "fs", 's', (const void **)&fs_cls, &plugin, err, errlen) <
	    0)
		goto end;
	if (reader_collect_trace_dirs(fs_cls, paths, n, reader_groups_for_decoder(), &dirs, &ndirs,
				      err, errlen) < 0)
		goto end;
	if (remember_trace_dirs(in, dirs, ndirs) < 0)
		goto nomem;
	ncomp = reader_assign_components(dirs, ndirs);
	switch (reader_choose_native(in, dirs, ndirs, err, errlen)) {
	case 1:
		ok = true;
		goto end;
	case 0:
		break;
	default:
		goto end;
	}
	/* babeltrace2's graph: its components grouped as src.ctf.fs groups them. */
	reader_query_groups(fs_cls, dirs, ndirs);
	ncomp = reader_assign_components(dirs, ndirs);
	srcs = calloc(ncomp, sizeof(*srcs));
	if (!srcs)
		goto nomem;
	for (size_t c = 0; c < ncomp; c++)
		if (add_fs_source(in, fs_cls, paths, dirs, ndirs, c, &srcs[c], err, errlen) < 0)
			goto end;
	ok = connect_graph(in, srcs, ncomp, err, errlen) == 0;
	goto end;
nomem:
	jank_errf(err, errlen, "out of memory");
end:
	reader_trace_dirs_free(dirs, ndirs);
	free(srcs);
	return reader_done(in, ok, plugin);
}

struct jank_reader *jank_reader_new_live(const char *url, const char *session_not_found_action,
					 struct jank_engine *engine, char *err, size_t errlen)
{
	const bt_component_class_source *live_cls;
	const bt_component_source *src = NULL;
	const bt_plugin *plugin = NULL;
	struct jank_reader *in = NULL;
	char reason[INPUT_ERR_LEN];
	bt_value *params = NULL;
	bool ok = false;

	pthread_mutex_lock(&plugin_lock);
	in = input_alloc(engine);
	if (!in || input_set_name(in, &url, 1) < 0 || input_add_label(in, url) < 0)
		goto nomem;
	if (find_component_class("ctf", "lttng-live", 's', (const void **)&live_cls, &plugin, err,
				 errlen) < 0)
		goto end;
	params = params_with_inputs(&url, 1);
	if (!params)
		goto nomem;
	if (bt_value_map_insert_string_entry(params, "session-not-found-action",
					     session_not_found_action ? session_not_found_action
								      : "continue") !=
	    BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK)
		goto nomem;
	if (bt_graph_add_source_component(in->graph, live_cls, "src0", params,
					  BT_LOGGING_LEVEL_NONE,
					  &src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		reader_take_bt_error(reason, sizeof(reason), NULL, 0);
		jank_errf(err, errlen, "%s: cannot attach to the live session: %s", url, reason);
		goto end;
	}
	ok = connect_graph(in, &src, 1, err, errlen) == 0;
	goto end;
nomem:
	jank_errf(err, errlen, "out of memory");
end:
	bt_value_put_ref(params);
	return reader_done(in, ok, plugin);
}

void jank_reader_set_notices(struct jank_reader *in, bool strict, jank_reader_notice_fn fn,
			     void *data)
{
	in->strict = strict;
	in->notice = fn;
	in->notice_data = data;
}

struct jank_reader *jank_reader_new_live_native(const char *url, struct jank_engine *engine,
						char *err, size_t errlen)
{
	struct jank_reader *in = calloc(1, sizeof(*in));

	if (!in || input_set_name(in, &url, 1) < 0 || input_add_label(in, url) < 0) {
		jank_errf(err, errlen, "out of memory");
		input_destroy(in);
		return NULL;
	}
	in->engine = engine;
	in->last_ts = INT64_MIN;
	in->advanced_ts = INT64_MIN;
	in->generation = jank_engine_generation(engine);
	if (live_open(in, url, err, errlen) < 0) {
		input_destroy(in);
		return NULL;
	}
	return in;
}

void jank_reader_free(struct jank_reader *in)
{
	if (!in)
		return;
	pthread_mutex_lock(&plugin_lock);
	input_destroy(in);
	pthread_mutex_unlock(&plugin_lock);
}

static void input_destroy(struct jank_reader *in)
{
	if (!in)
		return;
	/* The graph first: finalizing the sink must not see freed caches. */
	bt_graph_put_ref(in->graph);
	native_free(in->native);
	live_free(in->live);
	reader_decode_fini(in);
	for (size_t i = 0; i < in->nlabels; i++)
		free(in->labels[i]);
	free(in->labels);
	for (size_t i = 0; i < in->ntrace_dirs; i++)
		free(in->trace_dirs[i]);
	free(in->trace_dirs);
	free(in->name);
	free(in);
}
