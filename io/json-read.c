/* SPDX-License-Identifier: MIT */
/*
 * The strict reader of untrusted JSON (see json-read.h): each json-c call
 * that asserts on a type (the array calls) is made only after the type was
 * checked here.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "json-read.h"

void jank_jr_init(struct jank_jr *r)
{
	memset(r, 0, sizeof(*r));
}

size_t jank_jr_push(struct jank_jr *r, const char *fmt, ...)
{
	size_t len = strlen(r->at);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->at + len, sizeof(r->at) - len, fmt, ap);
	va_end(ap);
	return len;
}

void jank_jr_pop(struct jank_jr *r, size_t len)
{
	if (len < sizeof(r->at))
		r->at[len] = '\0';
}

int jank_jr_fail(struct jank_jr *r, const char *key, const char *fmt, ...)
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

const char *jank_jr_error(const struct jank_jr *r, char *buf, size_t len)
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

int jank_jr_is(struct jank_jr *r, struct json_object *v, const char *key, enum json_type type)
{
	if (!json_object_is_type(v, type))
		return jank_jr_fail(r, key, "not %s", type_name(type));
	return 0;
}

int jank_jr_member(struct jank_jr *r, struct json_object *o, const char *key, enum json_type type,
		   bool required, struct json_object **out)
{
	struct json_object *v = NULL;

	*out = NULL;
	/* json_object_object_get_ex() is safe on any type: false but on objects. */
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return required ? jank_jr_fail(r, key, "missing") : 1;
	if (jank_jr_is(r, v, key, type) < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

int jank_jr_int_value(struct jank_jr *r, struct json_object *v, const char *key, int64_t lo,
		      int64_t hi, int64_t *out)
{
	int64_t x;

	if (jank_jr_is(r, v, key, json_type_int) < 0)
		return -EINVAL;
	x = json_object_get_int64(v);
	if (x < lo || x > hi)
		return jank_jr_fail(r, key, "%" PRId64 " is out of [%" PRId64 ", %" PRId64 "]", x,
				    lo, hi);
	*out = x;
	return 0;
}

int jank_jr_int(struct jank_jr *r, struct json_object *o, const char *key, bool required,
		int64_t lo, int64_t hi, int64_t dflt, int64_t *out)
{
	struct json_object *v = NULL;
	int e;

	*out = dflt;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return required ? jank_jr_fail(r, key, "missing") : 1;
	e = jank_jr_int_value(r, v, key, lo, hi, out);
	if (e < 0)
		*out = dflt;
	return e;
}

int jank_jr_real(struct jank_jr *r, struct json_object *o, const char *key, bool required,
		 double lo, double hi, double *out)
{
	struct json_object *v = NULL;
	double y;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return required ? jank_jr_fail(r, key, "missing") : 1;
	/* A whole number may come as an integer. */
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return jank_jr_fail(r, key, "not a number");
	y = json_object_get_double(v);
	if (!isfinite(y) || y < lo || y > hi)
		return jank_jr_fail(r, key, "out of [%g, %g]", lo, hi);
	*out = y;
	return 0;
}

int jank_jr_bool(struct jank_jr *r, struct json_object *o, const char *key, bool required,
		 bool dflt, bool *out)
{
	struct json_object *v;
	int e = jank_jr_member(r, o, key, json_type_boolean, required, &v);

	*out = e == 0 ? json_object_get_boolean(v) : dflt;
	return e;
}

int jank_jr_str_value(struct jank_jr *r, struct json_object *v, const char *key, size_t size,
		      const char **out)
{
	const char *s;
	size_t n;

	*out = NULL;
	if (jank_jr_is(r, v, key, json_type_string) < 0)
		return -EINVAL;
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (strlen(s) != n)
		return jank_jr_fail(r, key, "holds a NUL character");
	if (n >= size)
		return jank_jr_fail(r, key, "longer than %zu bytes", size ? size - 1 : 0);
	*out = s;
	return 0;
}

int jank_jr_str(struct jank_jr *r, struct json_object *o, const char *key, bool required,
		size_t size, const char **out)
{
	struct json_object *v = NULL;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return required ? jank_jr_fail(r, key, "missing") : 1;
	return jank_jr_str_value(r, v, key, size, out);
}

int jank_jr_array_value(struct jank_jr *r, struct json_object *v, const char *key, size_t n,
			size_t max)
{
	size_t len;

	if (jank_jr_is(r, v, key, json_type_array) < 0)
		return -EINVAL;
	len = json_object_array_length(v);
	if (n != SIZE_MAX && len != n)
		return jank_jr_fail(r, key, "%zu elements, not %zu", len, n);
	if (n == SIZE_MAX && len > max)
		return jank_jr_fail(r, key, "more than %zu elements", max);
	return 0;
}

int jank_jr_array(struct jank_jr *r, struct json_object *o, const char *key, bool required,
		  size_t max, struct json_object **out)
{
	int e = jank_jr_member(r, o, key, json_type_array, required, out);

	if (e == 0 && jank_jr_array_value(r, *out, key, SIZE_MAX, max) < 0) {
		*out = NULL;
		return -EINVAL;
	}
	return e;
}

int jank_jr_elem(struct jank_jr *r, struct json_object *a, const char *key, size_t i,
		 enum json_type type, struct json_object **out)
{
	char name[96];

	*out = NULL;
	snprintf(name, sizeof(name), "%s[%zu]", key, i);
	if (jank_jr_is(r, a, key, json_type_array) < 0)
		return -EINVAL;
	if (i >= json_object_array_length(a))
		return jank_jr_fail(r, name, "missing");
	*out = json_object_array_get_idx(a, i);
	if (!*out)
		return jank_jr_fail(r, name, "null");
	return jank_jr_is(r, *out, name, type);
}
