/* SPDX-License-Identifier: MIT */
/*
 * The strict reader of JSON that jank does not trust: what a worker sends
 * jankd's supervisor (daemon/worker-proto.c, every kind of frame), and a
 * capture.json or report.json read back. Every member goes through it: its
 * type is checked before it is used (json-c asserts, and aborts the whole
 * process, on an array call made on anything but an array), then its range
 * (integers in [lo, hi], strings that fit their buffer and hold no NUL,
 * arrays no longer than their maximum). The first error is kept with where
 * it was found ("rules[0].histogram.buckets[0]") and why, one short line
 * that quotes nothing of the input but numbers.
 *
 * Calls return 0 when the member is there and good, 1 when an optional one
 * is absent (null counts as absent), or -EINVAL (the error kept).
 */
#ifndef JANK_JSON_READ_H
#define JANK_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct jank_jr {
	char at[96];	 /* the object being read: "", "rules[3].", "sessions[0]" */
	char field[128]; /* where the first error is: at, then the member's key */
	char why[160];
};

void jank_json_read_init(struct jank_jr *r);
/* Append "fmt" to the place being read; returns the length to give jank_json_read_pop(). */
size_t jank_json_read_push(struct jank_jr *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void jank_json_read_pop(struct jank_jr *r, size_t len);
/* Keep the error at `key` of the current place (why: printf); returns -EINVAL. */
int jank_json_read_fail(struct jank_jr *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "field: why", or "why" where the field is the whole document. */
const char *jank_json_read_error(const struct jank_jr *r, char *buf, size_t len);

/* `v` (the value named `key`) is of type `type`: 0, or -EINVAL ("what" names the type). */
int jank_json_read_is(struct jank_jr *r, struct json_object *v, const char *key,
		      enum json_type type);
/* The member `key` of object `o`, of type `type`: 0 (*out), 1 (absent: *out NULL; an error when
 * `required`), -EINVAL. */
int jank_json_read_member(struct jank_jr *r, struct json_object *o, const char *key,
			  enum json_type type, bool required, struct json_object **out);
/* An integer member in [lo, hi]: 0, 1 (absent: *out = dflt), -EINVAL. */
int jank_json_read_int(struct jank_jr *r, struct json_object *o, const char *key, bool required,
		       int64_t lo, int64_t hi, int64_t dflt, int64_t *out);
/* An integer value `v` (named `key`) in [lo, hi]. */
int jank_json_read_int_value(struct jank_jr *r, struct json_object *v, const char *key, int64_t lo,
			     int64_t hi, int64_t *out);
/* A finite number (an integer too) in [lo, hi]. */
int jank_json_read_real(struct jank_jr *r, struct json_object *o, const char *key, bool required,
			double lo, double hi, double *out);
int jank_json_read_bool(struct jank_jr *r, struct json_object *o, const char *key, bool required,
			bool dflt, bool *out);
/*
 * A string value `v` (named `key`) shorter than `size` bytes, without NUL:
 * 0 and *out (json-c's, valid while `v` is), or -EINVAL.
 */
int jank_json_read_str_value(struct jank_jr *r, struct json_object *v, const char *key, size_t size,
			     const char **out);
/* A string member, as jank_json_read_str_value(): 0, 1 (absent: *out NULL), -EINVAL. */
int jank_json_read_str(struct jank_jr *r, struct json_object *o, const char *key, bool required,
		       size_t size, const char **out);
/* An array member of at most `max` elements: 0, 1 (absent), -EINVAL. */
int jank_json_read_array(struct jank_jr *r, struct json_object *o, const char *key, bool required,
			 size_t max, struct json_object **out);
/* An array value `v` (named `key`) of exactly `n` elements (SIZE_MAX: up to `max`). */
int jank_json_read_array_value(struct jank_jr *r, struct json_object *v, const char *key, size_t n,
			       size_t max);
/* Element `i` of array `a` (checked: an array, i in range), of type `type`, named key[i]. */
int jank_json_read_elem(struct jank_jr *r, struct json_object *a, const char *key, size_t i,
			enum json_type type, struct json_object **out);

/*
 * A JSON file read back (capture.json, report.json): at most max_bytes, at
 * most max_objects objects and max_values values of any kind, nested at
 * most 32 deep; counted on the text before json-c is asked to build
 * anything, since json-c's objects cost hundreds of bytes each (a 5 MB
 * capture.json of 300,000 objects cost 274 MB). Never through a FIFO or a
 * device: a regular file only.
 */
struct jank_json_bounds {
	size_t max_bytes, max_objects, max_values;
};

/*
 * The object in `path`: NULL when it cannot be read, is past a bound or is
 * not one JSON object; then err says why ("larger than 1 MiB (5.0 MiB)",
 * "more than 4096 objects", "malformed: ..."), and *missing is true when
 * there is no such file.
 */
struct json_object *jank_json_load_bounded(const char *path, const struct jank_json_bounds *b,
					   bool *missing, char *err, size_t len);

#endif
