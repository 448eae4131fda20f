/* SPDX-License-Identifier: MIT */
/* json-c helpers (see json-util.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "json-util.h"
#include "textsafe.h"

int jank_json_add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

struct json_object *jank_json_new_untrusted_string(const char *s)
{
	size_t n = strlen(s), len = n * 3 + 4;
	struct json_object *v;
	char *buf;

	if (jank_utf8_valid(s, n))
		return json_object_new_string(s);
	buf = malloc(len); /* an invalid byte is 3 bytes of U+FFFD */
	if (!buf)
		return NULL;
	jank_utf8_sanitize(buf, len, s, n, 0);
	v = json_object_new_string(buf);
	free(buf);
	return v;
}

int jank_json_add_str(struct json_object *o, const char *key, const char *s)
{
	if (!s)
		return json_object_object_add(o, key, NULL) == 0 ? 0 : -ENOMEM;
	return jank_json_add(o, key, jank_json_new_untrusted_string(s));
}

int jank_json_add_i64(struct json_object *o, const char *key, int64_t v)
{
	return jank_json_add(o, key, json_object_new_int64(v));
}

int jank_json_add_u64(struct json_object *o, const char *key, uint64_t v)
{
	return jank_json_add_i64(o, key, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

int jank_json_add_bool(struct json_object *o, const char *key, bool b)
{
	return jank_json_add(o, key, json_object_new_boolean(b));
}

struct json_object *jank_json_get(struct json_object *o, const char *key, enum json_type type)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

const char *jank_json_get_str(struct json_object *o, const char *key)
{
	struct json_object *v = jank_json_get(o, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

bool jank_json_get_i64(struct json_object *o, const char *key, int64_t *out)
{
	struct json_object *v = jank_json_get(o, key, json_type_int);

	if (!v)
		return false;
	*out = json_object_get_int64(v);
	return true;
}

struct json_object *jank_json_load_object(const char *path)
{
	struct json_object *o;

	if (access(path, R_OK) != 0)
		return NULL;
	o = json_object_from_file(path);
	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}
