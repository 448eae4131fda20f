/* SPDX-License-Identifier: MIT */
/*
 * json-c helpers shared by the writers (capture.json, report.json, the
 * formats, jankd's status) and the readers of those files.
 *
 * Adding: `v` is a new reference that the object takes; a NULL `v` (a failed
 * json_object_new_*) is -ENOMEM. Returns 0 or -ENOMEM.
 * Getting: `o` may be NULL; a missing member, or one of another type, is
 * NULL (or false, or the default given).
 */
#ifndef JANK_JSON_UTIL_H
#define JANK_JSON_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

int jank_json_add(struct json_object *o, const char *key, struct json_object *v);
/*
 * A string, traced (untrusted) or not: JSON is UTF-8, and json-c escapes
 * control characters but passes invalid UTF-8 on, so each invalid byte
 * becomes U+FFFD (lib/textsafe.h). A NULL string is JSON null.
 */
int jank_json_add_str(struct json_object *o, const char *key, const char *s);
/* A new JSON string of `s`, made valid UTF-8 as jank_json_add_str() does. */
struct json_object *jank_json_new_untrusted_string(const char *s);
int jank_json_add_i64(struct json_object *o, const char *key, int64_t v);
/* Clamped to INT64_MAX: json-c integers are signed. */
int jank_json_add_u64(struct json_object *o, const char *key, uint64_t v);
int jank_json_add_bool(struct json_object *o, const char *key, bool b);

struct json_object *jank_json_get(struct json_object *o, const char *key, enum json_type type);
const char *jank_json_get_str(struct json_object *o, const char *key);
bool jank_json_get_i64(struct json_object *o, const char *key, int64_t *out);

/* The object in file `path`; NULL when it cannot be read or is not an object. */
struct json_object *jank_json_load_object(const char *path);

#endif
