/* SPDX-License-Identifier: MIT */
/*
 * capture.json, both ways: the record of one capture (struct
 * jank_capture_record), its encoder and its decoder side by side in
 * capture-json.c. jankd's capture policy (capture-policy.c) fills the
 * record and writes it at each change; the report (capture-report.c) and
 * the list (capture-list.c, `jankctl captures`) read it back through the
 * decoder. A new member of capture.json is a field here and a line in each
 * of the encoder and the decoder.
 *
 *   {"format":"jank-capture/1","name","mode","state":"recording"|"complete"
 *    |"failed","time","time_ns","hostname","session","jankd_version",
 *    "rule":{"name","begin","end","key":[...],"match":{"field","value"}|null,
 *            "threshold":{"kind":"fixed","ns"}|{"kind":"adaptive",
 *            "percentile","factor","warmup"}},
 *    "flows":[{"name","from","to","key":[...],"match","to_key":[...]?}],
 *    "action":{a verdict's head (verdict-json.h),"live_critical_path"?},
 *    "joined":[verdict heads],"joined_more",
 *    "chunks":[{"name","index","begin","end"}]?,"error"?}
 *
 * The decoder reads what it does not trust (a capture directory anyone may
 * have written) through json-read.h, within the file's bounds
 * (JANK_CAPTURE_JSON_BOUNDS): each member's type and range is checked
 * before it is used; "rule" and "action" are required, the rest optional
 * (a capture of an older jankd lacks "flows"). Decoding what the encoder
 * wrote gives back what it was given, so that encoding again writes the
 * same bytes (tests/io/test-capture-json.c, tests/fuzz/fuzz-capture.c).
 */
#ifndef JANK_CAPTURE_JSON_H
#define JANK_CAPTURE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>
#include "engine.h"
#include "verdict-json.h"

#define JANK_CAPTURE_FILE "capture.json"
/*
 * Beside it, when the flagged action's path crossed hosts as jankd joined
 * it live: that verdict's JSON in full (verdict-json.h), each segment
 * naming its host. The capture holds one host's trace: its report splices
 * the other hosts' parts of this path into the path it computes.
 */
#define JANK_CAPTURE_LIVE_PATH_FILE "live-path.json"
#define JANK_CAPTURE_FORMAT	    "jank-capture/1" /* capture.json's "format" */
#define JANK_CAPTURE_JOINED_MAX	    64		     /* joined janks listed in capture.json */
#define JANK_CAPTURE_CHUNKS_MAX	    4096	     /* chunks a capture.json may list */
#define JANK_CAPTURE_FLOWS_MAX	    4096	     /* flows a capture.json may list */
#define JANK_CAPTURE_TEXT_LEN	    4096	     /* a string member, with its NUL */
/*
 * What a capture.json and a report.json read back may hold, at most
 * (json-read.h): far more than jank writes (capture.json: 64 joined janks
 * and the chunks of a rotation, a few hundred values; report.json: the
 * path and suspects of one action), far less than would cost the reader
 * much memory. Past them the file is refused, said as such.
 */
#define JANK_CAPTURE_JSON_BOUNDS                                                                   \
	{                                                                                          \
		.max_bytes = 1u << 20, .max_objects = 4096, .max_values = 65536                    \
	}
#define JANK_REPORT_JSON_BOUNDS                                                                    \
	{                                                                                          \
		.max_bytes = 16u << 20, .max_objects = 65536, .max_values = 1u << 20               \
	}

/* A verdict's head as capture.json records it: the flagged action, or a joined one. */
struct jank_capture_action {
	enum jank_verdict_kind kind;
	char *action; /* the rule's name; NULL: the verdict had no rule (never read back) */
	char key[JANK_VERDICT_TEXT_LEN(JANK_KEY_LEN)];
	char comm[JANK_VERDICT_TEXT_LEN(JANK_COMM_LEN)];
	bool has_comm; /* comm: null when false */
	int64_t begin, end, duration, threshold;
	int32_t tid, pid;
	bool over_threshold;
	char *live_critical_path; /* the flagged one's path in words as jankd saw it, or NULL */
};

/* A rotation chunk kept in the capture (capture-chunks.h). */
struct jank_capture_chunk_ref {
	char *name;
	uint64_t index;
	int64_t begin, end;
};

/*
 * One capture. Strings are owned (NULL: JSON null); "chunks" and "error"
 * are written only when there are some.
 */
struct jank_capture_record {
	char *format, *name, *mode, *state, *time, *hostname, *session, *jankd_version;
	int64_t time_ns;
	struct jank_rule rule; /* rule.name NULL: {} (a verdict without a rule) */
	struct jank_flow_rule *flows;
	size_t nflows;
	struct jank_capture_action action;
	struct jank_capture_action *joined; /* at most JANK_CAPTURE_JOINED_MAX */
	size_t njoined;
	uint64_t joined_more; /* joined janks past those listed */
	struct jank_capture_chunk_ref *chunks;
	size_t nchunks;
	char *error; /* why a failed capture failed */
	/* Decoded: the document read, which report.json carries whole (NULL otherwise). */
	struct json_object *json;
};

void jank_capture_record_init(struct jank_capture_record *c);
void jank_capture_record_fini(struct jank_capture_record *c);

/* *dst = a copy of s (NULL: NULL). Returns 0 or -ENOMEM. */
int jank_capture_set_str(char **dst, const char *s);
/* The head of verdict `v` into `a` (`story`, may be NULL: its live_critical_path). 0 or -ENOMEM. */
int jank_capture_action_set(struct jank_capture_action *a, const struct jank_verdict *v,
			    const char *story);
void jank_capture_action_fini(struct jank_capture_action *a);
/* `a` as a verdict's head, pointing into `a` (and `rule`, given only a name). */
void jank_capture_action_verdict(const struct jank_capture_action *a, struct jank_rule *rule,
				 struct jank_verdict *v);
/* Add a joined jank (past JANK_CAPTURE_JOINED_MAX, it is counted in joined_more). */
int jank_capture_record_join(struct jank_capture_record *c, const struct jank_verdict *v);
int jank_capture_record_add_chunk(struct jank_capture_record *c, const char *name, uint64_t index,
				  int64_t begin, int64_t end);

/* The JSON of `c`: a new object (put it), NULL on allocation failure. */
struct json_object *jank_capture_record_to_json(const struct jank_capture_record *c);
/* capture.json as jankd writes it (pretty, a newline at the end). Returns 0, -ENOMEM, -EIO. */
int jank_capture_record_print(FILE *f, const struct jank_capture_record *c);

/*
 * Read capture.json's object `o` into `c` (which keeps a reference to `o`
 * as c->json). Returns 0, -EINVAL (`err` says which member and why:
 * "missing or bad 'rule.key'", "bad 'action.end': 2 is before its begin,
 * 5", "bad 'joined[3]': not an object") or -ENOMEM. Fini `c` either way.
 */
int jank_capture_record_from_json(struct json_object *o, struct jank_capture_record *c, char *err,
				  size_t errlen);
/*
 * The capture.json at `path`, within JANK_CAPTURE_JSON_BOUNDS, decoded.
 * Returns 0; -ENOENT (*missing: no such file); -EINVAL, the file refused or
 * not a capture's (`err` says why, one line, without the path); -ENOMEM.
 * Fini `c` either way.
 */
int jank_capture_record_load(const char *path, struct jank_capture_record *c, bool *missing,
			     char *err, size_t errlen);

#endif
