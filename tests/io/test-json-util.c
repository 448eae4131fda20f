/* SPDX-License-Identifier: MIT */
/*
 * io/json-util.c: adding members, reading them back, loading files.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "json-util.h"

static const char *plain(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

static void add(void **state)
{
	struct json_object *o = json_object_new_object();

	(void)state;
	assert_int_equal(jank_json_add_str(o, "s", "a\"b"), 0);
	assert_int_equal(jank_json_add_str(o, "null", NULL), 0);
	assert_int_equal(jank_json_add_i64(o, "min", INT64_MIN), 0);
	assert_int_equal(jank_json_add_i64(o, "zero", 0), 0);
	assert_int_equal(jank_json_add_u64(o, "max", INT64_MAX), 0);
	assert_int_equal(jank_json_add_u64(o, "huge", UINT64_MAX), 0);
	assert_int_equal(jank_json_add_u64(o, "over", (uint64_t)INT64_MAX + 1), 0);
	assert_int_equal(jank_json_add_bool(o, "t", true), 0);
	assert_int_equal(jank_json_add_bool(o, "f", false), 0);
	assert_string_equal(plain(o), "{\"s\":\"a\\\"b\",\"null\":null,"
				      "\"min\":-9223372036854775808,\"zero\":0,"
				      "\"max\":9223372036854775807,\"huge\":9223372036854775807,"
				      "\"over\":9223372036854775807,\"t\":true,\"f\":false}");
	/* A key added again replaces the old value. */
	assert_int_equal(jank_json_add_i64(o, "zero", 1), 0);
	assert_int_equal(json_object_object_length(o), 9);
	assert_int_equal(json_object_get_int64(json_object_object_get(o, "zero")), 1);
	/* A failed json_object_new_*: -ENOMEM and no member. */
	assert_int_equal(jank_json_add(o, "none", NULL), -ENOMEM);
	assert_false(json_object_object_get_ex(o, "none", NULL));
	assert_int_equal(jank_json_add(o, "sub", json_object_new_array()), 0);
	assert_non_null(jank_json_get(o, "sub", json_type_array));
	json_object_put(o);
}

static void get(void **state)
{
	struct json_object *o = json_tokener_parse(
		"{\"s\":\"x\",\"i\":-42,\"d\":1.5,\"n\":null,\"b\":true,\"is\":\"7\",\"big\":"
		"9223372036854775807}");
	int64_t v = 99;

	(void)state;
	assert_non_null(o);
	assert_string_equal(jank_json_get_str(o, "s"), "x");
	assert_null(jank_json_get_str(o, "i"));
	assert_null(jank_json_get_str(o, "missing"));
	assert_null(jank_json_get_str(o, "n"));
	assert_null(jank_json_get_str(NULL, "s"));
	assert_true(jank_json_get_i64(o, "i", &v));
	assert_int_equal(v, -42);
	assert_true(jank_json_get_i64(o, "big", &v));
	assert_int_equal(v, INT64_MAX);
	v = 99;
	assert_false(jank_json_get_i64(o, "d", &v));
	assert_false(jank_json_get_i64(o, "is", &v));
	assert_false(jank_json_get_i64(o, "b", &v));
	assert_false(jank_json_get_i64(o, "missing", &v));
	assert_false(jank_json_get_i64(NULL, "i", &v));
	assert_int_equal(v, 99); /* untouched when false */
	assert_non_null(jank_json_get(o, "b", json_type_boolean));
	assert_null(jank_json_get(o, "b", json_type_int));
	assert_non_null(jank_json_get(o, "d", json_type_double));
	assert_null(jank_json_get(o, "n", json_type_null)); /* null is no member to return */
	assert_null(jank_json_get(NULL, "b", json_type_boolean));
	json_object_put(o);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void load(void **state)
{
	char dir[] = "/tmp/jank-test-json-XXXXXX", path[64];
	struct json_object *o;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f.json", dir);
	assert_null(jank_json_load_object(path)); /* missing */
	write_text(path, "{\"a\": 1, \"b\": [\"x\"]}\n");
	o = jank_json_load_object(path);
	assert_non_null(o);
	assert_string_equal(plain(o), "{\"a\":1,\"b\":[\"x\"]}");
	json_object_put(o);
	write_text(path, "[1, 2]\n");
	assert_null(jank_json_load_object(path)); /* not an object */
	write_text(path, "42");
	assert_null(jank_json_load_object(path));
	write_text(path, "{\"a\": ");
	assert_null(jank_json_load_object(path)); /* cut */
	write_text(path, "");
	assert_null(jank_json_load_object(path));
	assert_null(jank_json_load_object(dir)); /* a directory */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add),
		cmocka_unit_test(get),
		cmocka_unit_test(load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
