/* SPDX-License-Identifier: MIT */
/*
 * The strict reader of untrusted JSON (see json-read.h): each json-c call
 * that asserts on a type (the array calls) is made only after the type was
 * checked here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "json-read.h"

void jank_json_read_init(struct jank_jr *r)
{
	memset(r, 0, sizeof(*r));
}

size_t jank_json_read_push(struct jank_jr *r, const char *fmt, ...)
{
	size_t len = strlen(r->at);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->at + len, sizeof(r->at) - len, fmt, ap);
	va_end(ap);
	return len;
}

void jank_json_read_pop(struct jank_jr *r, size_t len)
{
	if (len < sizeof(r->at))
		r->at[len] = '\0';
}

int jank_json_read_fail(struct jank_jr *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return -EINVAL; /* the first error is the one said */
	snprintf(r->field, sizeof(r->field), "%s%s", r->at, key);
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	if (!r->why[0])
		snprintf(r->why, sizeof(r->why), "bad");
	return -EINVAL;
}

const char *jank_json_read_error(const struct jank_jr *r, char *buf, size_t len)
{
	size_t n = strlen(r->field);

	/* "rules[0]." names an object: its dot is not shown. */
	if (n && r->field[n - 1] == '.')
		n--;
	if (n)
		snprintf(buf, len, "%.*s: %s", (int)n, r->field, r->why);
	else
		snprintf(buf, len, "%s", r->why);
	return buf;
}

static const char *type_name(enum json_type t)
{
	switch (t) {
	case json_type_boolean:
		return "true or false";
	case json_type_double:
		return "a number";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	case json_type_null:
		break;
	}
	return "null";
}

int jank_json_read_is(struct jank_jr *r, struct json_object *v, const char *key,
		      enum json_type type)
{
	if (!json_object_is_type(v, type))
		return jank_json_read_fail(r, key, "not %s", type_name(type));
	return 0;
}

int jank_json_read_member(struct jank_jr *r, struct json_object *o, const char *key,
			  enum json_type type, bool required, struct json_object **out)
{
	struct json_object *v = NULL;

	*out = NULL;
	/* json_object_object_get_ex() is safe on any type: false but on objects. */
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return required ? jank_json_read_fail(r, key, "missing") : 1;
	if (jank_json_read_is(r, v, key, type) < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

int jank_json_read_int_value(struct jank_jr *r, struct json_object *v, const char *key, int64_t lo,
			     int64_t hi, int64_t *out)
{
	int64_t x;

	if (jank_json_read_is(r, v, key, json_type_int) < 0)
		return -EINVAL;
	x = json_object_get_int64(v);
	if (x < lo || x > hi)
		return jank_json_read_fail(
			r, key, "%" PRId64 " is out of [%" PRId64 ", %" PRId64 "]", x, lo, hi);
	*out = x;
	return 0;
}

int jank_json_read_int(struct jank_jr *r, struct json_object *o, const char *key, bool required,
		       int64_t lo, int64_t hi, int64_t dflt, int64_t *out)
{
	struct json_object *v = NULL;
	int e;

	*out = dflt;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return required ? jank_json_read_fail(r, key, "missing") : 1;
	e = jank_json_read_int_value(r, v, key, lo, hi, out);
	if (e < 0)
		*out = dflt;
	return e;
}

int jank_json_read_real(struct jank_jr *r, struct json_object *o, const char *key, bool required,
			double lo, double hi, double *out)
{
	struct json_object *v = NULL;
	double y;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return required ? jank_json_read_fail(r, key, "missing") : 1;
	/* A whole number may come as an integer. */
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return jank_json_read_fail(r, key, "not a number");
	y = json_object_get_double(v);
	if (!isfinite(y) || y < lo || y > hi)
		return jank_json_read_fail(r, key, "out of [%g, %g]", lo, hi);
	*out = y;
	return 0;
}

int jank_json_read_bool(struct jank_jr *r, struct json_object *o, const char *key, bool required,
			bool dflt, bool *out)
{
	struct json_object *v;
	int e = jank_json_read_member(r, o, key, json_type_boolean, required, &v);

	*out = e == 0 ? json_object_get_boolean(v) : dflt;
	return e;
}

int jank_json_read_str_value(struct jank_jr *r, struct json_object *v, const char *key, size_t size,
			     const char **out)
{
	const char *s;
	size_t n;

	*out = NULL;
	if (jank_json_read_is(r, v, key, json_type_string) < 0)
		return -EINVAL;
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (strlen(s) != n)
		return jank_json_read_fail(r, key, "holds a NUL character");
	if (n >= size)
		return jank_json_read_fail(r, key, "longer than %zu bytes", size ? size - 1 : 0);
	*out = s;
	return 0;
}

int jank_json_read_str(struct jank_jr *r, struct json_object *o, const char *key, bool required,
		       size_t size, const char **out)
{
	struct json_object *v = NULL;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return required ? jank_json_read_fail(r, key, "missing") : 1;
	return jank_json_read_str_value(r, v, key, size, out);
}

int jank_json_read_array_value(struct jank_jr *r, struct json_object *v, const char *key, size_t n,
			       size_t max)
{
	size_t len;

	if (jank_json_read_is(r, v, key, json_type_array) < 0)
		return -EINVAL;
	len = json_object_array_length(v);
	if (n != SIZE_MAX && len != n)
		return jank_json_read_fail(r, key, "%zu elements, not %zu", len, n);
	if (n == SIZE_MAX && len > max)
		return jank_json_read_fail(r, key, "more than %zu elements", max);
	return 0;
}

int jank_json_read_array(struct jank_jr *r, struct json_object *o, const char *key, bool required,
			 size_t max, struct json_object **out)
{
	int e = jank_json_read_member(r, o, key, json_type_array, required, out);

	if (e == 0 && jank_json_read_array_value(r, *out, key, SIZE_MAX, max) < 0) {
		*out = NULL;
		return -EINVAL;
	}
	return e;
}

int jank_json_read_elem(struct jank_jr *r, struct json_object *a, const char *key, size_t i,
			enum json_type type, struct json_object **out)
{
	char name[96];

	*out = NULL;
	if (jank_json_read_is(r, a, key, json_type_array) < 0)
		return -EINVAL;
	if (i < json_object_array_length(a)) {
		*out = json_object_array_get_idx(a, i);
		/* The element's name "key[i]" is made for an error only (many are read). */
		if (*out && json_object_is_type(*out, type))
			return 0;
	}
	snprintf(name, sizeof(name), "%s[%zu]", key, i);
	if (i >= json_object_array_length(a))
		return jank_json_read_fail(r, name, "missing");
	if (!*out)
		return jank_json_read_fail(r, name, "null");
	return jank_json_read_is(r, *out, name, type);
}

/* ---- Files read back ---- */

#define LOAD_DEPTH 32

/* Objects and values of JSON text t[0..n), counted outside strings (an estimate from above). */
static void count(const char *t, size_t n, size_t *objects, size_t *values)
{
	bool in_str = false;

	*objects = *values = 0;
	for (size_t i = 0; i < n; i++) {
		char c = t[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"')
			in_str = true;
		if (c == '{')
			++*objects;
		/* Each value but the first of a container follows a comma or a colon. */
		if (c == ',' || c == ':' || c == '{' || c == '[')
			++*values;
	}
}

static char *read_all(int fd, size_t n)
{
	char *buf = malloc(n + 1);
	size_t got = 0;

	while (buf && got < n) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r <= 0) {
			free(buf);
			return NULL;
		}
		got += (size_t)r;
	}
	if (buf)
		buf[n] = '\0';
	return buf;
}

static struct json_object *parse_whole(const char *text, size_t n, char *err, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(LOAD_DEPTH);
	struct json_object *o;
	enum json_tokener_error e;

	if (!tok) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, text, (int)n);
	e = json_tokener_get_error(tok);
	if (o && e == json_tokener_success && !json_object_is_type(o, json_type_object)) {
		snprintf(err, len, "not a JSON object");
		json_object_put(o);
		o = NULL;
	} else if (!o || e != json_tokener_success) {
		snprintf(err, len, "malformed: %s",
			 e == json_tokener_success ? "empty" : json_tokener_error_desc(e));
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

struct json_object *jank_json_load_bounded(const char *path, const struct jank_json_bounds *b,
					   bool *missing, char *err, size_t len)
{
	struct json_object *o = NULL;
	size_t objects, values;
	struct stat st;
	char *text;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	*missing = fd < 0 && errno == ENOENT;
	if (fd < 0) {
		snprintf(err, len, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, len, "not a regular file");
		close(fd);
		return NULL;
	}
	if ((uint64_t)st.st_size > b->max_bytes) {
		snprintf(err, len, "larger than %zu KiB (%.1f MiB): not read", b->max_bytes >> 10,
			 (double)st.st_size / (1 << 20));
		close(fd);
		return NULL;
	}
	text = read_all(fd, (size_t)st.st_size);
	close(fd);
	if (!text) {
		snprintf(err, len, "cannot be read whole");
		return NULL;
	}
	count(text, (size_t)st.st_size, &objects, &values);
	if (objects > b->max_objects)
		snprintf(err, len, "more than %zu objects (%zu): not read", b->max_objects,
			 objects);
	else if (values > b->max_values)
		snprintf(err, len, "more than %zu values (%zu): not read", b->max_values, values);
	else
		o = parse_whole(text, (size_t)st.st_size, err, len);
	free(text);
	return o;
}
