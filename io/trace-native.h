/* SPDX-License-Identifier: MIT */
/*
 * The native CTF 1.8 decoder behind a jank_reader (io/trace-native.c): the
 * reader's constructor tries it on the trace directories it found, and
 * jank_reader_run_once() runs it instead of the babeltrace2 graph.
 */
#ifndef JANK_TRACE_NATIVE_H
#define JANK_TRACE_NATIVE_H

#include <stddef.h>
#include "trace-reader.h"

struct native_reader;

/*
 * Read the `n` trace directories `dirs` natively (comp[i]: the source
 * component babeltrace2 would give each). Returns 0 with in->native set,
 * or -errno with the reason in `why` (the caller falls back to
 * babeltrace2, or fails when the native decoder was asked for).
 */
int native_open(struct jank_reader *in, const char *const *dirs, const size_t *comp, size_t n,
		char *why, size_t len);
/*
 * The decoder for the trace directories `dirs` found for `in` (trace-find.c),
 * by the process's choice (jank_reader_set_decoder): 1: native (in->native
 * set), 0: babeltrace2 (auto says why once on stderr), -errno: the native
 * decoder was asked for and cannot read them (`err` says why).
 */
struct trace_dir;
int reader_choose_native(struct jank_reader *in, const struct trace_dir *dirs, size_t n, char *err,
			 size_t errlen);
enum jank_reader_status native_run_once(struct jank_reader *in);
void native_free(struct native_reader *nr);

/* The live session at `url`, read by trace-live.c (in->live set): 0, or -errno with `err`. */
struct live_reader;
int live_open(struct jank_reader *in, const char *url, char *err, size_t errlen);
enum jank_reader_status live_run_once(struct jank_reader *in);
void live_free(struct live_reader *lr);

#endif
