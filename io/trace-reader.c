/* SPDX-License-Identifier: MIT */
/*
 * The babeltrace2 input layer: source(s) → jank's merging sink
 * (io/trace-merge.c), which takes the messages of every port in time order
 * and hands each to the decoder. This file drives that graph for the
 * reader's owner, one step at a time (jankd's event loop) or to the end
 * (jankctl), and says what failed; trace-reader-int.h lists the files that
 * build the graph (trace-source.c, trace-find.c) and decode its messages
 * (trace-decode.c).
 *
 * src.ctf.fs maps each stream file in windows of 8 MiB and keeps what it
 * has read mapped until it moves to the next window: up to 8 MiB of RSS per
 * stream, clean page cache that is no memory of the analysis. An offline
 * input gives those pages back every RELEASE_EVERY events (MADV_DONTNEED on
 * the read-only mappings of its trace files; a page read again is mapped
 * again from the page cache), so that RSS does not grow with the number of
 * CPUs of the trace.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <babeltrace2/babeltrace.h>
#include "errbuf.h"
#include "time-limit.h"
#include "trace-native.h"
#include "trace-reader-int.h"

/* Offline: give back the mapped trace pages already read, this often (events). */
#define RELEASE_EVERY 262144

/* ---- Releasing the pages read ---- */

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

/* ---- Driving ---- */

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

static void set_run_error(struct jank_reader *in, bool nomem)
{
	char reason[INPUT_ERR_LEN], component[64];

	in->failed = true;
	if (in->decode_error) {
		/* The sink wrote the message itself; drop babeltrace2's wrapping of it. */
		bt_current_thread_clear_error();
		return;
	}
	reader_take_bt_error(reason, sizeof(reason), component, sizeof(component));
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
	if (in->native)
		return native_run_once(in);
	if (in->live)
		return live_run_once(in);
	/* Rules only change between two batches: one compare per batch. */
	if (in->generation != jank_engine_generation(in->engine))
		reader_forget_classes(in);
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

void jank_reader_set_symbols(struct jank_reader *in, struct jank_symbols *symbols)
{
	in->symbols = symbols;
	reader_forget_classes(in); /* classes resolved before now did not ask */
}

void jank_reader_get_stats(const struct jank_reader *in, struct jank_reader_stats *out)
{
	*out = in->stats;
	out->last_ts = in->last_ts;
	out->advanced_ts = in->last_ts > in->advanced_ts ? in->last_ts : in->advanced_ts;
}

bool jank_reader_refused(const struct jank_reader *in)
{
	return in->refused;
}
