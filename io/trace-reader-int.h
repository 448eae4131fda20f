/* SPDX-License-Identifier: MIT */
/*
 * The trace reader's insides, shared by its files and by nothing else:
 *
 *   trace-find.c    which CTF trace directories a path holds, and which of
 *                   them make one trace (their group)
 *   trace-source.c  the babeltrace2 graph: its sources, the merging sink,
 *                   jank_reader_new_ctf/new_live() and jank_reader_free()
 *   trace-decode.c  event classes resolved once, then each message decoded
 *                   into a jank_event for the engine (the hot path)
 *   trace-error.c   babeltrace2's errors as one line a user can act on
 *   trace-reader.c  driving the graph, releasing read pages, the figures
 *   trace-symbols.c lttng-ust's statedump and dl events into the symbolizer
 *   trace-native.c  the native CTF 1.8 decoder, in place of the graph (ctf-*.c)
 *   trace-live.c    jank's lttng-live client, feeding the native decoder
 *
 * The hot path (message_time and take_message, called by the merge for
 * every message) lives in trace-decode.c whole: its helpers are static there.
 */
#ifndef JANK_TRACE_READER_INT_H
#define JANK_TRACE_READER_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>
#include "event.h"
#include "trace-merge.h"
#include "trace-reader.h"

#define INPUT_ERR_LEN 512
/* Direct-mapped caches by address (powers of two). */
#define EC_CACHE_SIZE  256
#define PKT_CACHE_SIZE 256
/* Array fields read per event (callstack_user and callstack_kernel), and their length. */
#define JANK_READER_ARRAYS    2
#define JANK_READER_ARRAY_MAX 128

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
	uint8_t buf;   /* an array's buffer (in->arrays), or NO_ARRAY_BUF: none left */
	uint32_t index;
	/* A nested payload field: its dotted path (ctf-plan.h's ctf_want), walked per event. */
	const char *path;
};

#define NO_ARRAY_BUF 0xff

/* lttng-ust events that feed the symbolizer (trace-symbols.c). */
enum reader_sym_kind {
	READER_SYM_NONE = 0,
	READER_SYM_START,
	READER_SYM_BIN_INFO,
	READER_SYM_BUILD_ID,
	READER_SYM_DEBUG_LINK,
	READER_SYM_DLOPEN,
	READER_SYM_DLCLOSE,
};

struct class_cache {
	bool resolved;
	bool wanted;
	bool need_payload, need_specific, need_common;
	uint8_t sym_kind; /* enum reader_sym_kind; NONE unless the reader has a symbolizer */
	uint32_t class_id;
	uint32_t nfields;
	struct field_loc loc[JANK_EVENT_MAX_FIELDS];
	/* The fields the class has (scope not NONE), and those it lacks: read, or NONE. */
	uint8_t nlive, nabsent;
	uint8_t live[JANK_EVENT_MAX_FIELDS];
	uint8_t absent[JANK_EVENT_MAX_FIELDS];
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
	struct field_loc pid_ns;	 /* common context, lttng-ust's pid_ns */
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
	/* An event's array fields (call stacks), until the engine has it. */
	uint64_t arrays[JANK_READER_ARRAYS][JANK_READER_ARRAY_MAX];

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
	struct jank_symbols *symbols; /* not owned; NULL: none */
	struct jank_trace_merge_ops merge_ops;
	struct jank_reader_stats stats;
	struct native_reader *native; /* io/trace-native.c reads the traces, not the graph */
	struct live_reader *live;     /* io/trace-live.c reads the live session, not the graph */
	bool refused;		      /* live: the native decoder does not take the session */
	const struct jank_reader_tap *tap; /* the tests' */
	char err[INPUT_ERR_LEN];
};

/* ---- trace-error.c ---- */

/*
 * Take the current thread's babeltrace2 error and keep one line of it: the
 * root cause (the first appended), which says what is wrong with the input;
 * the later causes only say which layer passed it on. `*component` is set to
 * the name of the component that appended the root cause, when known.
 */
void reader_take_bt_error(char *buf, size_t len, char *component, size_t clen);

/* ---- trace-find.c ---- */

/* A trace directory found under a path given by the user. */
struct trace_dir {
	char *dir;
	size_t arg;	/* index of the path it was found under */
	char *group;	/* the trace's UUID as src.ctf.fs reports it, NULL: none */
	bool own_group; /* the group is jank's parse's, not src.ctf.fs's answer */
	size_t comp;	/* source component it goes to */
};

/* Where the directories' groups come from. */
enum reader_groups {
	READER_GROUPS_NONE,  /* nowhere: the caller does not use them */
	READER_GROUPS_QUERY, /* src.ctf.fs's babeltrace.support-info query */
	READER_GROUPS_OWN,   /* jank's parse of the metadata; the query when it refuses it */
};

/*
 * The trace directories under each of the `n` paths, in name order per
 * path, with their groups. Returns 0, or -errno with the one-line message
 * in `err`; *out (free it with reader_trace_dirs_free()) holds what was
 * found either way.
 */
int reader_collect_trace_dirs(const bt_component_class_source *fs_cls, const char *const *paths,
			      size_t n, enum reader_groups how, struct trace_dir **out,
			      size_t *nout, char *err, size_t errlen);
void reader_trace_dirs_free(struct trace_dir *v, size_t n);
/*
 * Replace the groups jank's parse gave by src.ctf.fs's answers: for
 * babeltrace2's graph, which groups the directories as its own parse does.
 */
void reader_query_groups(const bt_component_class_source *fs_cls, struct trace_dir *v, size_t n);
/* Where the groups come from with the process's choice of decoder (trace-native-open.c). */
enum reader_groups reader_groups_for_decoder(void);
/*
 * The string `key` of src.ctf.fs's answer to the query `object`
 * ("babeltrace.support-info" or "metadata-info") about the trace directory
 * `dir` (malloc'd), or NULL: the query failed or has no such string.
 */
char *reader_query_string(const bt_component_class_source *fs_cls, const char *object,
			  const char *dir, const char *key);
/* Give each directory its component: one per group, one per directory without a group. */
size_t reader_assign_components(struct trace_dir *v, size_t n);

/* ---- trace-decode.c ---- */

/* The merge's callbacks (trace-merge.h), with the reader as their data. */
int reader_message_time(const bt_message *msg, int64_t *ts, void *data);
int reader_take_message(const bt_message *msg, int64_t ts, bool timed, void *data);
void reader_merge_error(const char *what, void *data);
/* The engine's rules were replaced: resolve every class again on its next event. */
void reader_forget_classes(struct jank_reader *in);
/* Drop the caches and the references to traces and streams (after the graph). */
void reader_decode_fini(struct jank_reader *in);

/* ---- trace-symbols.c ---- */

/* What an event class means to the symbolizer, by its name. */
enum reader_sym_kind reader_symbols_kind(const char *name);
/* Pass an event of such a class on to in->symbols. */
void reader_symbols_event(struct jank_reader *in, const bt_event *ev, enum reader_sym_kind kind,
			  int64_t vpid);

#endif
