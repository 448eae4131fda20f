/* SPDX-License-Identifier: MIT */
/*
 * The babeltrace2 input layer: source(s) → jank's merging sink
 * (io/trace-merge.c), which takes the messages of every port in time order
 * and hands each to this module to decode.
 *
 * The sources are src.ctf.fs (one component per path given, with every CTF
 * trace found under the path as its inputs) or src.ctf.lttng-live; nothing
 * downstream of the source differs, so live and offline decode the same way.
 *
 * Decode once: the first event of an event class resolves the class with the
 * engine and caches, per wanted field, where it lives (payload, specific
 * context or common context member index) and its value type. Per stream
 * class we cache the common-context indices of vtid/tid, vpid/pid and
 * procname, the packet-context index of cpu_id and the clock's offset. Two
 * small direct-mapped caches, keyed by object address, give an event
 * class's caches and a packet's CPU without asking babeltrace2 again. The
 * per-event path only indexes arrays: no name lookup, no allocation.
 *
 * src.ctf.fs maps each stream file in windows of 8 MiB and keeps what it
 * has read mapped until it moves to the next window: up to 8 MiB of RSS per
 * stream, clean page cache that is no memory of the analysis. An offline
 * input gives those pages back every RELEASE_EVERY events (MADV_DONTNEED on
 * the read-only mappings of its trace files; a page read again is mapped
 * again from the page cache), so that RSS does not grow with the number of
 * CPUs of the trace.
 *
 * Nothing from babeltrace2 crosses into lib/: the engine sees jank_event only.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <babeltrace2/babeltrace.h>
#include "array.h"
#include "trace-reader.h"
#include "errbuf.h"
#include "time-limit.h"
#include "trace-merge.h"

#define INPUT_ERR_LEN  512
#define MAX_WALK_DEPTH 16
/* Event class ids below this index an array; larger (unusual) ids go to a list. */
#define DENSE_CLASS_IDS (1u << 16)
/* Direct-mapped caches by address (powers of two). */
#define EC_CACHE_SIZE  256
#define PKT_CACHE_SIZE 256
/* Offline: give back the mapped trace pages already read, this often (events). */
#define RELEASE_EVERY 262144

enum field_scope {
	SCOPE_NONE = 0,
	SCOPE_PAYLOAD,
	SCOPE_SPECIFIC_CTX,
	SCOPE_COMMON_CTX,
};

/* Where a field lives in an event, resolved once per event class. */
struct field_loc {
	uint8_t scope; /* enum field_scope */
	uint8_t type;  /* enum jank_value_type */
	uint32_t index;
};

struct class_cache {
	bool resolved;
	bool wanted;
	bool need_payload, need_specific, need_common;
	uint32_t class_id;
	uint32_t nfields;
	struct field_loc loc[JANK_EVENT_MAX_FIELDS];
};

struct sparse_class {
	uint64_t id;
	struct class_cache cache;
};

struct sc_cache {
	const bt_stream_class *sc; /* strong reference: keeps the pointer unique */
	enum jank_domain domain;
	bool has_clock;
	bool fast_clock; /* 1 GHz clock: ns from origin = clock_base_ns + value */
	int64_t clock_base_ns;
	struct field_loc tid, pid, comm; /* common context */
	struct field_loc cpu;		 /* packet context */
	struct class_cache *dense;	 /* indexed by event class id */
	size_t ndense;
	struct sparse_class *sparse;
	size_t nsparse;
};

struct stream_rec {
	const bt_stream *stream; /* strong reference */
	int32_t cpu;		 /* of the stream's last packet, -1 */
};

/* An event class's caches; both pointers are invalidated when their arrays move. */
struct ec_cache_entry {
	const bt_event_class *ec;
	struct sc_cache *sc;
	struct class_cache *cc;
};

/*
 * A packet's CPU. babeltrace2 recycles packet objects, but every packet's
 * beginning message comes before its events and rewrites its entry.
 */
struct pkt_cache_entry {
	const bt_packet *packet;
	int32_t cpu;
};

struct jank_reader {
	struct jank_engine *engine;
	bt_graph *graph;
	char *name;
	char **labels; /* per source component: the path it reads */
	size_t nlabels;

	struct sc_cache *scs;
	size_t nscs;
	struct sc_cache *last_sc;

	const bt_trace **traces; /* strong references */
	size_t ntraces;

	struct stream_rec *streams;
	size_t nstreams;

	struct ec_cache_entry ec_cache[EC_CACHE_SIZE];
	struct pkt_cache_entry pkt_cache[PKT_CACHE_SIZE];

	char **trace_dirs; /* offline: canonical trace directories, with a final '/' */
	size_t ntrace_dirs;
	uint64_t released_at; /* events read at the last release_trace_pages() */

	int64_t last_ts;
	int64_t advanced_ts; /* the latest inactivity beacon (see jank_reader_stats) */
	uint64_t generation; /* the engine's, when the class caches were filled */
	bool ended;
	bool failed;
	bool decode_error;		/* err was set by the sink itself */
	bool strict;			/* a rule that cannot apply is an error */
	char limit_what[PATH_MAX + 16]; /* "reading NAME", for the time limit */
	jank_reader_notice_fn notice;
	void *notice_data;
	struct jank_merge_ops merge_ops;
	struct jank_reader_stats stats;
	char err[INPUT_ERR_LEN];
};

/*
 * babeltrace2 messages end with "key=value" lists that include object
 * addresses ("msg-it-addr=0x55..."): noise for a user, drop those items.
 */
static void drop_addresses(char *s)
{
	char *p = s;

	while ((p = strstr(p, "-addr=0x"))) {
		char *start = p, *end = p + 8;

		while (start > s && start[-1] != ' ' && start[-1] != ',' && start[-1] != ':')
			start--;
		while (isxdigit((unsigned char)*end))
			end++;
		if (*end == ',')
			end++;
		while (*end == ' ')
			end++;
		memmove(start, end, strlen(end) + 1);
		p = start;
	}
	/* A list left empty, or ending with ", ". */
	for (size_t n = strlen(s); n && (s[n - 1] == ' ' || s[n - 1] == ','); n--)
		s[n - 1] = '\0';
}

/* Fold a multi-line message into one line, without trailing blanks or dots. */
static void one_line(char *s)
{
	char *w = s;
	bool space = false;
	size_t n;

	for (char *r = s; *r; r++) {
		if (*r == '\n' || *r == '\r' || *r == '\t' || *r == ' ') {
			space = w != s;
			continue;
		}
		if (space)
			*w++ = ' ';
		space = false;
		*w++ = *r;
	}
	*w = '\0';
	drop_addresses(s);
	n = strlen(s);
	while (n && (s[n - 1] == '.' || s[n - 1] == ':'))
		s[--n] = '\0';
}

/*
 * Take the current thread's babeltrace2 error and keep one line of it: the
 * root cause (the first appended), which says what is wrong with the input;
 * the later causes only say which layer passed it on. `*component` is set to
 * the name of the component that appended the root cause, when known.
 */
/* src.ctf.fs names an output port "[UUID | ]/path/of/the/stream": its file, or NULL. */
static const char *stream_file(const char *port)
{
	const char *bar = port ? strstr(port, "| /") : NULL;

	if (bar)
		return bar + 2;
	return port && port[0] == '/' ? port : NULL;
}

/*
 * babeltrace2's messages speak of its internals. For the ones a user meets,
 * say what happened and what to do first; keep the original as detail.
 */
static void explain(char *buf, size_t len, const char *msg)
{
	static const struct {
		const char *says; /* a part of babeltrace2's message */
		const char *means;
	} known[] = {
		{ "timestamp is less than muxer's",
		  "timestamps go backwards between two of the traces: were they recorded with "
		  "the same clock? (read them separately)" },
		{ "Clock classes are not compatible",
		  "the traces' clocks cannot be merged: were they recorded on the same host with "
		  "the same clock? (read them separately)" },
		{ "Expecting a clock class",
		  "some traces have a clock and others none: they cannot be merged in time order" },
		{ "Cannot handle state",
		  "a packet cannot be decoded: the trace is corrupt or truncated" },
		{ "Failed to create metadata decoder",
		  "the trace's metadata cannot be read: is it complete?" },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strstr(msg, known[i].says)) {
			snprintf(buf, len, "%s (babeltrace2: %s)", known[i].means, msg);
			return;
		}
	}
	snprintf(buf, len, "%s", msg);
}

static void take_bt_error(char *buf, size_t len, char *component, size_t clen)
{
	const bt_error *error = bt_current_thread_take_error();
	const bt_error_cause *cause = NULL;
	const char *msg = NULL;
	uint64_t n;

	if (component && clen)
		component[0] = '\0';
	if (!error) {
		snprintf(buf, len, "unknown babeltrace2 error");
		return;
	}
	n = bt_error_get_cause_count(error);
	for (uint64_t i = 0; i < n; i++) {
		cause = bt_error_borrow_cause_by_index(error, i);
		msg = bt_error_cause_get_message(cause);
		if (msg && msg[0])
			break;
	}
	explain(buf, len, msg && msg[0] ? msg : "unknown babeltrace2 error");
	one_line(buf);
	if (cause && component && clen) {
		const char *name = NULL;

		switch (bt_error_cause_get_actor_type(cause)) {
		case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT:
			name = bt_error_cause_component_actor_get_component_name(cause);
			break;
		case BT_ERROR_CAUSE_ACTOR_TYPE_MESSAGE_ITERATOR:
			/* src.ctf.fs names each output port after its stream's file. */
			name = stream_file(
				bt_error_cause_message_iterator_actor_get_component_output_port_name(
					cause));
			if (!name)
				name = bt_error_cause_message_iterator_actor_get_component_name(
					cause);
			break;
		case BT_ERROR_CAUSE_ACTOR_TYPE_UNKNOWN:
		case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT_CLASS:
			break;
		}
		if (name)
			snprintf(component, clen, "%s", name);
	}
	bt_error_release(error);
}

/* ---- Finding the CTF traces under a path ---- */

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

/* ---- Graph construction ---- */

static int message_time(const bt_message *msg, int64_t *ts, void *data);
static int take_message(const bt_message *msg, int64_t ts, bool timed, void *data);
static void merge_error(const char *what, void *data);

/*
 * babeltrace2 2.0 keeps one process-wide list of the component classes of
 * its shared-object plugins, which bt_plugin_find() and the destruction of a
 * class change without a lock of its own. jankd makes inputs on two threads
 * (the live one on its event loop, capture reports on a worker): making an
 * input (which finds plugins) and freeing one (which drops their classes)
 * hold this lock. Reading messages does not need it.
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

/* The label of the source component `name` ("src3" → its path), or the input name. */
static const char *component_label(const struct jank_reader *in, const char *name)
{
	unsigned long i;
	char *endp;

	if (name && name[0] == '/')
		return name; /* a stream's file */
	if (name && !strncmp(name, "src", 3)) {
		i = strtoul(name + 3, &endp, 10);
		if (endp != name + 3 && *endp == '\0' && i < in->nlabels)
			return in->labels[i];
	}
	return in->name ? in->name : "input";
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
	in->merge_ops = (struct jank_merge_ops){
		.time = message_time, .take = take_message, .error = merge_error, .data = in
	};
	if (jank_merge_add(in->graph, "jank", nports, &in->merge_ops, &sink) < 0)
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
	take_bt_error(reason, sizeof(reason), NULL, 0);
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

/* A trace directory found under a path given by the user. */
struct trace_dir {
	char *dir;
	size_t arg;  /* index of the path it was found under */
	char *group; /* the trace's UUID as src.ctf.fs reports it, NULL: none */
	size_t comp; /* source component it goes to */
};

/*
 * The group src.ctf.fs gives a trace directory (its trace UUID) through the
 * babeltrace.support-info query: directories of the same trace (the chunks of
 * a rotated session) must go to one component, and directories of different
 * traces must not (src.ctf.fs refuses traces whose UUIDs differ). NULL when
 * there is none or the query fails (the component will say why).
 */
static char *query_group(const bt_component_class_source *fs_cls, const char *dir)
{
	bt_value *params = bt_value_map_create();
	const bt_value *result = NULL, *group;
	bt_query_executor *q = NULL;
	bt_query_executor_query_status st;
	char *ret = NULL, what[PATH_MAX + 64];

	if (!params || bt_value_map_insert_string_entry(params, "input", dir) ||
	    bt_value_map_insert_string_entry(params, "type", "directory"))
		goto end;
	q = bt_query_executor_create(bt_component_class_source_as_component_class_const(fs_cls),
				     "babeltrace.support-info", params);
	if (!q)
		goto end;
	bt_query_executor_set_logging_level(q, BT_LOGGING_LEVEL_NONE);
	snprintf(what, sizeof(what), "reading the metadata of %s", dir);
	jank_time_limit_begin(what);
	st = bt_query_executor_query(q, &result);
	jank_time_limit_end();
	if (st != BT_QUERY_EXECUTOR_QUERY_STATUS_OK)
		goto end;
	if (bt_value_get_type(result) != BT_VALUE_TYPE_MAP)
		goto end;
	group = bt_value_map_borrow_entry_value_const(result, "group");
	if (group && bt_value_get_type(group) == BT_VALUE_TYPE_STRING)
		ret = strdup(bt_value_string_get(group));
end:
	bt_current_thread_clear_error();
	bt_value_put_ref(result);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	return ret;
}

/* Find the trace directories under each path, and their groups. */
static int collect_trace_dirs(const bt_component_class_source *fs_cls, const char *const *paths,
			      size_t n, struct trace_dir **out, size_t *nout, char *err,
			      size_t errlen)
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
			v[nv].group = query_group(fs_cls, v[nv].dir);
			v[nv].comp = 0;
			nv++;
		}
	}
end:
	path_list_fini(&found);
	*out = v;
	*nout = nv;
	return r;
}

static void trace_dirs_free(struct trace_dir *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].dir);
		free(v[i].group);
	}
	free(v);
}

/* Keep the canonical path of each trace directory, for release_trace_pages(). */
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

/* Give each directory its component: one per group, one per directory without a group. */
static size_t assign_components(struct trace_dir *v, size_t n)
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
		take_bt_error(reason, sizeof(reason), NULL, 0);
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
	if (collect_trace_dirs(fs_cls, paths, n, &dirs, &ndirs, err, errlen) < 0)
		goto end;
	if (remember_trace_dirs(in, dirs, ndirs) < 0)
		goto nomem;
	ncomp = assign_components(dirs, ndirs);
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
	trace_dirs_free(dirs, ndirs);
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
		take_bt_error(reason, sizeof(reason), NULL, 0);
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

static void sc_cache_fini(struct sc_cache *c)
{
	bt_stream_class_put_ref(c->sc);
	free(c->dense);
	free(c->sparse);
}

void jank_reader_set_notices(struct jank_reader *in, bool strict, jank_reader_notice_fn fn,
			     void *data)
{
	in->strict = strict;
	in->notice = fn;
	in->notice_data = data;
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
	for (size_t i = 0; i < in->nscs; i++)
		sc_cache_fini(&in->scs[i]);
	free(in->scs);
	for (size_t i = 0; i < in->ntraces; i++)
		bt_trace_put_ref(in->traces[i]);
	free(in->traces);
	for (size_t i = 0; i < in->nstreams; i++)
		bt_stream_put_ref(in->streams[i].stream);
	free(in->streams);
	for (size_t i = 0; i < in->nlabels; i++)
		free(in->labels[i]);
	free(in->labels);
	for (size_t i = 0; i < in->ntrace_dirs; i++)
		free(in->trace_dirs[i]);
	free(in->trace_dirs);
	free(in->name);
	free(in);
}

/* ---- Resolution (once per class) ---- */

static enum jank_value_type value_type_of(const bt_field_class *fc)
{
	bt_field_class_type t = bt_field_class_get_type(fc);

	/* Enumerations are integers of these two kinds. */
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return JANK_VALUE_INT;
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return JANK_VALUE_UINT;
	if (t == BT_FIELD_CLASS_TYPE_STRING)
		return JANK_VALUE_STR;
	return JANK_VALUE_NONE;
}

static bool find_member(const bt_field_class *fc, const char *name, enum field_scope scope,
			struct field_loc *loc)
{
	uint64_t n;

	if (!fc || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return false;
	n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);

		if (strcmp(bt_field_class_structure_member_get_name(m), name) != 0)
			continue;
		loc->type =
			value_type_of(bt_field_class_structure_member_borrow_field_class_const(m));
		loc->scope = loc->type == JANK_VALUE_NONE ? SCOPE_NONE : scope;
		loc->index = (uint32_t)i;
		return true;
	}
	return false;
}

static void resolve_context_field(const bt_field_class *fc, const char *virt, const char *name,
				  struct field_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	if (virt && find_member(fc, virt, SCOPE_COMMON_CTX, loc) && loc->scope != SCOPE_NONE)
		return;
	find_member(fc, name, SCOPE_COMMON_CTX, loc);
}

static const char *env_string(const bt_trace *trace, const char *name)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(trace, name);

	if (!v || bt_value_get_type(v) != BT_VALUE_TYPE_STRING)
		return NULL;
	return bt_value_string_get(v);
}

static long env_long(const bt_trace *trace, const char *name)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(trace, name);

	if (!v)
		return -1;
	switch (bt_value_get_type(v)) {
	case BT_VALUE_TYPE_SIGNED_INTEGER:
		return (long)bt_value_integer_signed_get(v);
	case BT_VALUE_TYPE_UNSIGNED_INTEGER:
		return (long)bt_value_integer_unsigned_get(v);
	case BT_VALUE_TYPE_STRING:
		return strtol(bt_value_string_get(v), NULL, 10);
	default:
		return -1;
	}
}

/* The trace's domain from its environment; a trace that says nothing is a kernel trace. */
static enum jank_domain trace_domain(const bt_trace *trace)
{
	const char *domain = env_string(trace, "domain");
	const char *tracer = env_string(trace, "tracer_name");

	if (domain)
		return strcmp(domain, "ust") == 0 ? JANK_DOMAIN_UST : JANK_DOMAIN_KERNEL;
	if (tracer && strcmp(tracer, "lttng-ust") == 0)
		return JANK_DOMAIN_UST;
	return JANK_DOMAIN_KERNEL;
}

/*
 * A 1 GHz clock's offset in ns, when it fits: then an event's ns from origin
 * is this plus its clock value, as babeltrace2 computes it.
 */
static bool clock_base_ns(const bt_clock_class *cc, int64_t *base)
{
	int64_t seconds, ns;
	uint64_t cycles;

	if (bt_clock_class_get_frequency(cc) != UINT64_C(1000000000))
		return false;
	bt_clock_class_get_offset(cc, &seconds, &cycles);
	if (cycles >= UINT64_C(1000000000) || __builtin_mul_overflow(seconds, 1000000000, &ns) ||
	    __builtin_add_overflow(ns, (int64_t)cycles, &ns))
		return false;
	*base = ns;
	return true;
}

static struct sc_cache *sc_cache_add(struct jank_reader *in, const bt_stream_class *sc,
				     const bt_stream *stream)
{
	struct sc_cache *v = realloc(in->scs, (in->nscs + 1) * sizeof(*v));
	const bt_field_class *common, *packet;
	struct sc_cache *c;

	if (!v)
		return NULL;
	in->scs = v;
	c = &v[in->nscs++];
	in->last_sc = c; /* the array may have moved: no older pointer into it is kept */
	memset(in->ec_cache, 0, sizeof(in->ec_cache));
	memset(c, 0, sizeof(*c));
	c->sc = sc;
	bt_stream_class_get_ref(sc);
	c->domain = trace_domain(bt_stream_borrow_trace_const(stream));
	c->has_clock = bt_stream_class_borrow_default_clock_class_const(sc) != NULL;
	c->fast_clock =
		c->has_clock && clock_base_ns(bt_stream_class_borrow_default_clock_class_const(sc),
					      &c->clock_base_ns);
	common = bt_stream_class_borrow_event_common_context_field_class_const(sc);
	resolve_context_field(common, "vtid", "tid", &c->tid);
	resolve_context_field(common, "vpid", "pid", &c->pid);
	resolve_context_field(common, NULL, "procname", &c->comm);
	if (c->comm.type != JANK_VALUE_STR)
		c->comm.scope = SCOPE_NONE;
	packet = bt_stream_class_borrow_packet_context_field_class_const(sc);
	memset(&c->cpu, 0, sizeof(c->cpu));
	/* The scope tag only needs to be non-NONE: read_value() gets the packet context. */
	find_member(packet, "cpu_id", SCOPE_PAYLOAD, &c->cpu);
	if (c->cpu.type == JANK_VALUE_STR)
		c->cpu.scope = SCOPE_NONE;
	return c;
}

/* The stream class's cache, or NULL on first sight (then sc_cache_add() it). */
static inline struct sc_cache *sc_cache_find(struct jank_reader *in, const bt_stream_class *sc)
{
	if (in->last_sc && in->last_sc->sc == sc)
		return in->last_sc;
	for (size_t i = 0; i < in->nscs; i++) {
		if (in->scs[i].sc == sc) {
			in->last_sc = &in->scs[i];
			return in->last_sc;
		}
	}
	return NULL;
}

static struct class_cache *class_slot(struct jank_reader *in, struct sc_cache *c, uint64_t id)
{
	if (id < DENSE_CLASS_IDS) {
		if (id >= c->ndense) {
			size_t n = c->ndense ? c->ndense : 64;
			struct class_cache *v;

			while (n <= id)
				n *= 2;
			v = realloc(c->dense, n * sizeof(*v));
			if (!v)
				return NULL;
			memset(in->ec_cache, 0, sizeof(in->ec_cache));
			memset(v + c->ndense, 0, (n - c->ndense) * sizeof(*v));
			c->dense = v;
			c->ndense = n;
		}
		return &c->dense[id];
	}
	for (size_t i = 0; i < c->nsparse; i++)
		if (c->sparse[i].id == id)
			return &c->sparse[i].cache;
	{
		struct sparse_class *v = realloc(c->sparse, (c->nsparse + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(in->ec_cache, 0, sizeof(in->ec_cache));
		c->sparse = v;
		memset(&v[c->nsparse], 0, sizeof(v[c->nsparse]));
		v[c->nsparse].id = id;
		return &v[c->nsparse++].cache;
	}
}

/* "a, b, c": the members of up to three structures, for messages. */
static void member_names(char *buf, size_t len, const bt_field_class *const *fcs, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < n; k++) {
		uint64_t count;

		if (!fcs[k] || bt_field_class_get_type(fcs[k]) != BT_FIELD_CLASS_TYPE_STRUCTURE)
			continue;
		count = bt_field_class_structure_get_member_count(fcs[k]);
		for (uint64_t i = 0; i < count && used < len; i++) {
			const bt_field_class_structure_member *m =
				bt_field_class_structure_borrow_member_by_index_const(fcs[k], i);
			int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
					 bt_field_class_structure_member_get_name(m));

			used += w > 0 ? (size_t)w : 0;
		}
	}
}

/*
 * The class has no field `index` of those the engine asked for: a rule
 * keyed or matched on it cannot apply. Returns -ECANCELED when the reader is
 * strict (in->err says why), else 0 (the notice callback was told).
 */
static int field_missing(struct jank_reader *in, uint32_t class_id, unsigned index,
			 const bt_field_class *payload, const bt_field_class *specific,
			 const bt_field_class *common)
{
	const bt_field_class *fcs[] = { payload, specific, common };
	char have[256], msg[INPUT_ERR_LEN];

	member_names(have, sizeof(have), fcs, 3);
	if (!jank_engine_field_missing(in->engine, class_id, index, have, msg, sizeof(msg)))
		return 0;
	if (in->strict) {
		jank_errf(in->err, sizeof(in->err), "%s", msg);
		in->decode_error = true;
		return -ECANCELED;
	}
	if (in->notice)
		in->notice(msg, in->notice_data);
	return 0;
}

static int resolve_class(struct jank_reader *in, struct sc_cache *c, const bt_event_class *ec,
			 struct class_cache *cc)
{
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	const bt_field_class *specific =
		bt_event_class_borrow_specific_context_field_class_const(ec);
	const bt_field_class *common =
		bt_stream_class_borrow_event_common_context_field_class_const(c->sc);
	const char *name = bt_event_class_get_name(ec);
	const char *const *fields = NULL;
	unsigned nfields = 0;

	cc->class_id = jank_engine_resolve_class(in->engine, c->domain, name ? name : "", &fields,
						 &nfields);
	if (cc->class_id == JANK_CLASS_INVALID)
		return -ENOMEM;
	cc->wanted = jank_engine_class_wanted(in->engine, cc->class_id);
	if (nfields > JANK_EVENT_MAX_FIELDS)
		nfields = JANK_EVENT_MAX_FIELDS;
	cc->nfields = nfields;
	for (unsigned i = 0; i < nfields; i++) {
		struct field_loc *loc = &cc->loc[i];

		memset(loc, 0, sizeof(*loc));
		if (!fields || !fields[i])
			continue;
		if (find_member(payload, fields[i], SCOPE_PAYLOAD, loc) ||
		    find_member(specific, fields[i], SCOPE_SPECIFIC_CTX, loc) ||
		    find_member(common, fields[i], SCOPE_COMMON_CTX, loc)) {
			cc->need_payload |= loc->scope == SCOPE_PAYLOAD;
			cc->need_specific |= loc->scope == SCOPE_SPECIFIC_CTX;
			cc->need_common |= loc->scope == SCOPE_COMMON_CTX;
		} else if (field_missing(in, cc->class_id, i, payload, specific, common) < 0) {
			return -ECANCELED;
		}
	}
	cc->resolved = true;
	in->stats.classes++;
	return 0;
}

/* ---- Per-event decoding (hot path) ---- */

static inline void read_value(const bt_field *s, const struct field_loc *loc, struct jank_value *v)
{
	const bt_field *f;

	if (!s || loc->scope == SCOPE_NONE) {
		v->type = JANK_VALUE_NONE;
		return;
	}
	f = bt_field_structure_borrow_member_field_by_index_const(s, loc->index);
	v->type = loc->type;
	switch ((enum jank_value_type)loc->type) {
	case JANK_VALUE_INT:
		v->i = bt_field_integer_signed_get_value(f);
		break;
	case JANK_VALUE_UINT:
		v->u = bt_field_integer_unsigned_get_value(f);
		break;
	case JANK_VALUE_STR:
		v->s = bt_field_string_get_value(f);
		break;
	case JANK_VALUE_NONE:
		break;
	}
}

static inline int32_t read_int32(const bt_field *s, const struct field_loc *loc)
{
	struct jank_value v;

	read_value(s, loc, &v);
	return (int32_t)jank_value_as_int(&v, -1);
}

static int clock_ns(struct jank_reader *in, const bt_clock_snapshot *cs, int64_t *ns)
{
	if (bt_clock_snapshot_get_ns_from_origin(cs, ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		bt_current_thread_clear_error();
		jank_errf(in->err, sizeof(in->err), "%s: a timestamp overflows 64-bit nanoseconds",
			  in->name);
		return -ERANGE;
	}
	return 0;
}

/* The clock snapshot in ns from origin: the cached offset for 1 GHz clocks. */
static inline int event_ns(struct jank_reader *in, const struct sc_cache *c,
			   const bt_clock_snapshot *cs, int64_t *ns)
{
	if (c->fast_clock) {
		uint64_t v = bt_clock_snapshot_get_value(cs);

		if (v <= INT64_MAX && !__builtin_add_overflow(c->clock_base_ns, (int64_t)v, ns))
			return 0;
	}
	return clock_ns(in, cs, ns);
}

static inline size_t addr_hash(const void *p, size_t size)
{
	uintptr_t a = (uintptr_t)p;

	return (size_t)((a >> 4) ^ (a >> 12)) & (size - 1);
}

/* Remember a packet's CPU (at its beginning, or at its first event). */
static int32_t packet_cpu_set(struct jank_reader *in, const struct sc_cache *c,
			      const bt_packet *packet)
{
	struct pkt_cache_entry *e = &in->pkt_cache[addr_hash(packet, PKT_CACHE_SIZE)];

	e->packet = packet;
	e->cpu = read_int32(bt_packet_borrow_context_field_const(packet), &c->cpu);
	return e->cpu;
}

static inline int32_t packet_cpu(struct jank_reader *in, const struct sc_cache *c,
				 const bt_packet *packet)
{
	const struct pkt_cache_entry *e = &in->pkt_cache[addr_hash(packet, PKT_CACHE_SIZE)];

	return e->packet == packet ? e->cpu : packet_cpu_set(in, c, packet);
}

/* The caches of an event's class: from the address cache, else looked up (and added). */
static int event_class_caches(struct jank_reader *in, const bt_event *ev, const bt_event_class *ec,
			      struct sc_cache **c, struct class_cache **cc)
{
	struct ec_cache_entry *e = &in->ec_cache[addr_hash(ec, EC_CACHE_SIZE)];
	const bt_stream_class *sc;

	if (e->ec == ec) {
		*c = e->sc;
		*cc = e->cc;
		return 0;
	}
	sc = bt_event_class_borrow_stream_class_const(ec);
	*c = sc_cache_find(in, sc);
	if (!*c)
		*c = sc_cache_add(in, sc, bt_event_borrow_stream_const(ev));
	if (!*c)
		return -ENOMEM;
	*cc = class_slot(in, *c, bt_event_class_get_id(ec));
	if (!*cc)
		return -ENOMEM;
	e->ec = ec;
	e->sc = *c;
	e->cc = *cc;
	return 0;
}

/* An event at ts (from message_time: the merge ordered it by that time). */
static int handle_event(struct jank_reader *in, const bt_message *msg, int64_t ts, bool timed)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	const bt_field *payload = NULL, *specific = NULL, *common = NULL;
	struct jank_event jev;
	struct class_cache *cc;
	struct sc_cache *c;
	int r;

	in->stats.events++;
	if (event_class_caches(in, ev, ec, &c, &cc) < 0)
		goto nomem;
	if (!cc->resolved) {
		r = resolve_class(in, c, ec, cc);
		if (r == -ECANCELED)
			return r;
		if (r < 0)
			goto nomem;
	}
	if (!cc->wanted)
		return 0;
	if (!timed) {
		jank_errf(in->err, sizeof(in->err), "%s: the trace's events have no timestamps",
			  in->name);
		return -EINVAL;
	}
	jev.ts = ts;

	jev.cpu = c->cpu.scope != SCOPE_NONE ? packet_cpu(in, c, bt_event_borrow_packet_const(ev))
					     : -1;

	if (cc->need_common || c->tid.scope || c->pid.scope || c->comm.scope)
		common = bt_event_borrow_common_context_field_const(ev);
	jev.tid = read_int32(common, &c->tid);
	jev.pid = read_int32(common, &c->pid);
	jev.comm = NULL;
	if (common && c->comm.scope != SCOPE_NONE)
		jev.comm = bt_field_string_get_value(
			bt_field_structure_borrow_member_field_by_index_const(common,
									      c->comm.index));

	if (cc->need_payload)
		payload = bt_event_borrow_payload_field_const(ev);
	if (cc->need_specific)
		specific = bt_event_borrow_specific_context_field_const(ev);
	jev.class_id = cc->class_id;
	jev.nfields = cc->nfields;
	for (uint32_t i = 0; i < cc->nfields; i++) {
		const struct field_loc *loc = &cc->loc[i];
		const bt_field *s = loc->scope == SCOPE_PAYLOAD	       ? payload
				    : loc->scope == SCOPE_SPECIFIC_CTX ? specific
								       : common;

		read_value(s, loc, &jev.fields[i]);
	}
	in->last_ts = jev.ts;
	in->stats.events_used++;
	jank_engine_process(in->engine, &jev);
	return 0;
nomem:
	jank_errf(in->err, sizeof(in->err), "out of memory");
	return -ENOMEM;
}

static struct stream_rec *stream_find(struct jank_reader *in, const bt_stream *s)
{
	for (size_t i = 0; i < in->nstreams; i++)
		if (in->streams[i].stream == s)
			return &in->streams[i];
	return NULL;
}

static int trace_seen(struct jank_reader *in, const bt_trace *trace)
{
	const bt_trace **v;

	for (size_t i = 0; i < in->ntraces; i++)
		if (in->traces[i] == trace)
			return 0;
	v = realloc(in->traces, (in->ntraces + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	in->traces = v;
	v[in->ntraces++] = trace;
	bt_trace_get_ref(trace);
	in->stats.traces++;
	if (trace_domain(trace) == JANK_DOMAIN_KERNEL) {
		const bt_value *rel = bt_trace_borrow_environment_entry_value_by_name_const(
			trace, "kernel_release");

		jank_engine_set_layout(in->engine, env_long(trace, "tracer_major"),
				       env_long(trace, "tracer_minor"));
		jank_engine_set_kernel(in->engine, rel && bt_value_is_string(rel)
							   ? bt_value_string_get(rel)
							   : NULL);
	}
	return 0;
}

static int handle_stream_beginning(struct jank_reader *in, const bt_message *msg)
{
	const bt_stream *s = bt_message_stream_beginning_borrow_stream_const(msg);
	struct stream_rec *v;

	if (trace_seen(in, bt_stream_borrow_trace_const(s)) < 0)
		goto nomem;
	if (stream_find(in, s))
		return 0;
	v = realloc(in->streams, (in->nstreams + 1) * sizeof(*v));
	if (!v)
		goto nomem;
	in->streams = v;
	v[in->nstreams].stream = s;
	v[in->nstreams].cpu = -1;
	bt_stream_get_ref(s);
	in->nstreams++;
	return 0;
nomem:
	jank_errf(in->err, sizeof(in->err), "out of memory");
	return -ENOMEM;
}

static void handle_stream_end(struct jank_reader *in, const bt_message *msg)
{
	struct stream_rec *rec = stream_find(in, bt_message_stream_end_borrow_stream_const(msg));

	if (!rec)
		return;
	bt_stream_put_ref(rec->stream);
	*rec = in->streams[--in->nstreams];
}

static int handle_packet_beginning(struct jank_reader *in, const bt_message *msg)
{
	const bt_packet *p = bt_message_packet_beginning_borrow_packet_const(msg);
	const bt_stream *s = bt_packet_borrow_stream_const(p);
	struct stream_rec *rec = stream_find(in, s);
	struct sc_cache *c;
	int32_t cpu;

	c = sc_cache_find(in, bt_stream_borrow_class_const(s));
	if (!c)
		c = sc_cache_add(in, bt_stream_borrow_class_const(s), s);
	if (!c) {
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return -ENOMEM;
	}
	/* A recycled packet object: forget the CPU of the packet it was. */
	cpu = packet_cpu_set(in, c, p);
	if (rec)
		rec->cpu = cpu;
	return 0;
}

static int handle_discarded(struct jank_reader *in, const bt_message *msg, bool packets)
{
	const bt_stream *s = packets ? bt_message_discarded_packets_borrow_stream_const(msg)
				     : bt_message_discarded_events_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(s);
	const bt_clock_snapshot *cs = NULL;
	struct stream_rec *rec = stream_find(in, s);
	bt_property_availability avail;
	uint64_t count = 0;
	int64_t ts = in->last_ts == INT64_MIN ? 0 : in->last_ts;
	int r;

	if (packets) {
		avail = bt_message_discarded_packets_get_count(msg, &count);
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(
				msg);
	} else {
		avail = bt_message_discarded_events_get_count(msg, &count);
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_events_borrow_end_default_clock_snapshot_const(
				msg);
	}
	if (avail != BT_PROPERTY_AVAILABILITY_AVAILABLE || count == 0)
		count = 1;
	if (cs) {
		r = clock_ns(in, cs, &ts);
		if (r < 0)
			return r;
	}
	in->stats.discarded += count;
	jank_engine_discarded(in->engine, rec ? rec->cpu : -1, ts, count);
	return 0;
}

static int handle_inactivity(struct jank_reader *in, const bt_message *msg)
{
	int64_t ts;
	int r;

	/* Live only: no data for a while. Let the engine see time pass (overdue actions). */
	r = clock_ns(in, bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg),
		     &ts);
	if (r < 0)
		return r;
	if (ts > in->advanced_ts)
		in->advanced_ts = ts;
	if (in->stats.events_used && ts > in->last_ts)
		jank_engine_tick(in->engine, ts);
	return 0;
}

static int handle_message(struct jank_reader *in, const bt_message *msg, int64_t ts, bool timed)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return handle_event(in, msg, ts, timed);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return handle_stream_beginning(in, msg);
	case BT_MESSAGE_TYPE_STREAM_END:
		handle_stream_end(in, msg);
		return 0;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return handle_packet_beginning(in, msg);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return handle_discarded(in, msg, false);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return handle_discarded(in, msg, true);
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return handle_inactivity(in, msg);
	case BT_MESSAGE_TYPE_PACKET_END:
		return 0;
	}
	return 0;
}

/*
 * The engine's rules were replaced (config reload): its class ids are void.
 * Drop every cached class so that each is resolved again on its next event.
 */
static void forget_classes(struct jank_reader *in)
{
	for (size_t i = 0; i < in->nscs; i++) {
		struct sc_cache *c = &in->scs[i];

		if (c->dense)
			memset(c->dense, 0, c->ndense * sizeof(*c->dense));
		free(c->sparse);
		c->sparse = NULL;
		c->nsparse = 0;
	}
	memset(in->ec_cache, 0, sizeof(in->ec_cache)); /* it points into those arrays */
	in->generation = jank_engine_generation(in->engine);
}

static bool is_trace_file(const struct jank_reader *in, const char *path)
{
	for (size_t i = 0; i < in->ntrace_dirs; i++)
		if (!strncmp(path, in->trace_dirs[i], strlen(in->trace_dirs[i])))
			return true;
	return false;
}

/*
 * Unmap the pages of the read-only mappings of our trace files (see the top
 * of the file). The mappings stay: a page touched again is mapped again from
 * the page cache. Best effort: any failure only leaves RSS higher.
 */
static void release_trace_pages(const struct jank_reader *in)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		unsigned long start, end;
		char perms[8];
		int path = 0;
		size_t n;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end, perms, &path) < 3 ||
		    !path || perms[0] != 'r' || perms[1] != '-')
			continue;
		n = strlen(line + path);
		if (n && line[path + n - 1] == '\n')
			line[path + n - 1] = '\0';
		if (is_trace_file(in, line + path))
			madvise((void *)start, end - start, MADV_DONTNEED);
	}
	free(line);
	fclose(f);
}

/*
 * The time the merge orders a message by (trace-merge.h): an event's own
 * (through the stream class's fast clock when it has one), the beginning of
 * a packet or of a discarded range, an inactivity's. 1 with *ts, 0 for none.
 */
static int message_time(const bt_message *msg, int64_t *ts, void *data)
{
	struct jank_reader *in = data;
	const bt_clock_snapshot *cs = NULL;
	const bt_stream_class *sc;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT: {
		const bt_event *ev = bt_message_event_borrow_event_const(msg);
		struct class_cache *cc;
		struct sc_cache *c;

		if (event_class_caches(in, ev, bt_event_borrow_class_const(ev), &c, &cc) < 0) {
			jank_errf(in->err, sizeof(in->err), "out of memory");
			in->decode_error = true;
			return -ENOMEM;
		}
		if (!c->has_clock)
			return 0;
		return event_ns(in, c, bt_message_event_borrow_default_clock_snapshot_const(msg),
				ts) < 0
			       ? -EINVAL
			       : 1;
	}
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		sc = bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
			bt_message_packet_beginning_borrow_packet_const(msg)));
		if (bt_stream_class_packets_have_beginning_default_clock_snapshot(sc))
			cs = bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_PACKET_END:
		sc = bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
			bt_message_packet_end_borrow_packet_const(msg)));
		if (bt_stream_class_packets_have_end_default_clock_snapshot(sc))
			cs = bt_message_packet_end_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		sc = bt_stream_borrow_class_const(
			bt_message_discarded_events_borrow_stream_const(msg));
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(
				msg);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		sc = bt_stream_borrow_class_const(
			bt_message_discarded_packets_borrow_stream_const(msg));
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
				msg);
		break;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		cs = bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
	case BT_MESSAGE_TYPE_STREAM_END:
		break; /* no time needed: they go as soon as they head their stream */
	}
	if (!cs)
		return 0;
	return clock_ns(in, cs, ts) < 0 ? -EINVAL : 1;
}

static int take_message(const bt_message *msg, int64_t ts, bool timed, void *data)
{
	struct jank_reader *in = data;
	int r = handle_message(in, msg, ts, timed);

	if (r < 0)
		in->decode_error = true;
	return r;
}

static void merge_error(const char *what, void *data)
{
	struct jank_reader *in = data;

	jank_errf(in->err, sizeof(in->err), "%s: %s", in->name, what);
	in->decode_error = true;
}

/* ---- Driving ---- */

static void set_run_error(struct jank_reader *in, bool nomem)
{
	char reason[INPUT_ERR_LEN], component[64];

	in->failed = true;
	if (in->decode_error) {
		/* The sink wrote the message itself; drop babeltrace2's wrapping of it. */
		bt_current_thread_clear_error();
		return;
	}
	take_bt_error(reason, sizeof(reason), component, sizeof(component));
	if (nomem && !reason[0])
		snprintf(reason, sizeof(reason), "out of memory");
	jank_errf(in->err, sizeof(in->err), "%s: cannot read the trace: %s",
		  component_label(in, component), reason);
}

enum jank_reader_status jank_reader_run_once(struct jank_reader *in)
{
	bt_graph_run_once_status st;

	if (in->failed)
		return JANK_READER_STATUS_ERROR;
	if (in->ended)
		return JANK_READER_STATUS_END;
	/* Rules only change between two batches: one compare per batch. */
	if (in->generation != jank_engine_generation(in->engine))
		forget_classes(in);
	/* Offline, a step that does not end is a trace babeltrace2 cannot read. */
	if (in->ntrace_dirs)
		jank_time_limit_begin(in->limit_what);
	st = bt_graph_run_once(in->graph);
	if (in->ntrace_dirs) {
		jank_time_limit_end();
		if (in->stats.events - in->released_at >= RELEASE_EVERY) {
			in->released_at = in->stats.events;
			release_trace_pages(in);
		}
	}
	/*
	 * babeltrace2 2.0 may return success and still leave an error on the
	 * thread (a source that gave up on a corrupt packet); the next call
	 * would abort on it. An error left behind is a failure.
	 */
	if (st != BT_GRAPH_RUN_ONCE_STATUS_ERROR && st != BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR) {
		const bt_error *left = bt_current_thread_take_error();

		if (left) {
			bt_current_thread_move_error(left);
			set_run_error(in, false);
			return JANK_READER_STATUS_ERROR;
		}
	}
	switch (st) {
	case BT_GRAPH_RUN_ONCE_STATUS_OK:
		return JANK_READER_STATUS_OK;
	case BT_GRAPH_RUN_ONCE_STATUS_AGAIN:
		return JANK_READER_STATUS_AGAIN;
	case BT_GRAPH_RUN_ONCE_STATUS_END:
		in->ended = true;
		jank_engine_finish(in->engine);
		return JANK_READER_STATUS_END;
	case BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR:
		set_run_error(in, true);
		return JANK_READER_STATUS_ERROR;
	case BT_GRAPH_RUN_ONCE_STATUS_ERROR:
		set_run_error(in, false);
		return JANK_READER_STATUS_ERROR;
	}
	set_run_error(in, false);
	return JANK_READER_STATUS_ERROR;
}

enum jank_reader_status jank_reader_run_all(struct jank_reader *in)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 1000000 };

	for (;;) {
		enum jank_reader_status st = jank_reader_run_once(in);

		switch (st) {
		case JANK_READER_STATUS_OK:
			break;
		case JANK_READER_STATUS_AGAIN:
			nanosleep(&pause, NULL);
			break;
		case JANK_READER_STATUS_END:
		case JANK_READER_STATUS_ERROR:
			return st;
		}
	}
}

const char *jank_reader_error(const struct jank_reader *in)
{
	return in->err[0] ? in->err : "unknown error";
}

const char *jank_reader_name(const struct jank_reader *in)
{
	return in->name ? in->name : "";
}

void jank_reader_get_stats(const struct jank_reader *in, struct jank_reader_stats *out)
{
	*out = in->stats;
	out->last_ts = in->last_ts;
	out->advanced_ts = in->last_ts > in->advanced_ts ? in->last_ts : in->advanced_ts;
}
