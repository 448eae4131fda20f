/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets check on everything the engine hands out. A broken
 * invariant aborts with a one-line reason: libFuzzer saves the input.
 */
#ifndef JANK_FUZZ_CHECK_H
#define JANK_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include "engine.h"

#define FUZZ_ASSERT(cond) ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))

_Noreturn void fuzz_fail(const char *file, int line, const char *what);
/*
 * True when JANK_FUZZ_KNOWN (a comma-separated list) names this known bug:
 * its check is then skipped, so that fuzzing can go past it until it is fixed.
 */
bool fuzz_known(const char *bug);

/*
 * The segments tile [begin, end]: in time order, each non-empty, each
 * beginning where the previous one ends, the first at begin, the last at
 * end. An incomplete path (out of memory) covers [segs[0].begin, end] only.
 */
void fuzz_check_path(const struct jank_path *p);
/* The breakdown of a complete path sums to its length, largest items first. */
void fuzz_check_breakdown(const struct jank_path *p, const struct jank_breakdown *b);
/* A verdict of engine e: its fields agree, its path tiles [begin, end]. */
void fuzz_check_verdict(const struct jank_engine *e, const struct jank_verdict *r);
/*
 * What `jankctl critpath` asks of a graph: the path of up to `max` threads
 * over their whole life, and over [begin, end]; each must tile. Returns how
 * many threads were asked about.
 */
size_t fuzz_check_queries(const struct jank_graph *g, size_t max, int64_t begin, int64_t end);

#endif
