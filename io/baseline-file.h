/* SPDX-License-Identifier: MIT */
/*
 * An engine's baselines (lib/baseline.h) as JSON, so that jankd keeps them
 * across restarts (daemon/fleet/fleet.c writes them in [daemon] state-dir, one
 * file per input; the input's worker loads them into its new engine):
 *
 *   {"format": "jank-baselines/1", "input": URL,
 *    "rules": [{"name", "definition": 16 hex digits, "n", "duration",
 *               "states": {STATE: mean ns...},
 *               "top": [{"kind", "state", "id": hex, "mean", "process",
 *                        "thread"}...]}...]}
 *
 * A rule's definition is a hash of what decides which actions it sees and
 * which of them are normal: its begin and end events, keys, match and
 * threshold. A saved baseline goes to the rule of the same name and
 * definition; the others start afresh. The file is bounded: at most
 * JANK_BASELINES_MAX_RULES rules of at most JANK_BASELINE_TOP entries.
 */
#ifndef JANK_BASELINE_FILE_H
#define JANK_BASELINE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include "engine.h"

#define JANK_BASELINES_FORMAT	 "jank-baselines/1"
#define JANK_BASELINES_MAX_RULES 256
#define JANK_BASELINES_MAX_BYTES (4u << 20) /* larger files are not read */

/* The hash of a rule's definition (FNV-1a over its begin, end, keys, match, threshold). */
uint64_t jank_rule_definition(const struct jank_rule *r);

/* The engine's baselines, of the rules that learnt any; NULL when out of memory. */
struct json_object *jank_baselines_json(const struct jank_engine *e, const char *input);

/*
 * Load `doc` into the engine: each saved rule whose name and definition are
 * an engine rule's. *loaded: the rules loaded. Returns 0, or -EINVAL with
 * the reason in err (another format, or anything malformed: then nothing is
 * loaded).
 */
int jank_baselines_load(struct jank_engine *e, struct json_object *doc, size_t *loaded, char *err,
			size_t errlen);

#endif
