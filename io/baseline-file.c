/* SPDX-License-Identifier: MIT */
/* An engine's baselines as JSON, and back (see baseline-file.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "baseline-file.h"
#include "json-util.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME  0x100000001b3ull

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * FNV_PRIME;
	return h;
}

/* A string and its end (so that "ab","c" and "a","bc" differ); NULL is not "". */
static uint64_t fnv_str(uint64_t h, const char *s)
{
	if (!s)
		return fnv(h, "\001", 1);
	return fnv(h, s, strlen(s) + 1);
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return fnv(h, b, sizeof(b));
}

static uint64_t fnv_double(uint64_t h, double d)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.17g", d);
	return fnv_str(h, buf);
}

uint64_t jank_rule_definition(const struct jank_rule *r)
{
	uint64_t h = FNV_OFFSET;

	h = fnv_str(h, r->begin_event);
	h = fnv_str(h, r->end_event);
	h = fnv_u64(h, r->nkeys);
	for (unsigned i = 0; i < r->nkeys && i < JANK_RULE_MAX_KEYS; i++)
		h = fnv_str(h, r->keys[i]);
	h = fnv_str(h, r->match_field);
	if (r->match_field) {
		h = fnv_u64(h, (uint64_t)r->match_value.type);
		if (r->match_value.type == JANK_VALUE_STR)
			h = fnv_str(h, r->match_value.s);
		else
			h = fnv_u64(h, r->match_value.u);
	}
	h = fnv_u64(h, (uint64_t)r->threshold.kind);
	h = fnv_u64(h, (uint64_t)r->threshold.ns);
	h = fnv_double(h, r->threshold.percentile);
	h = fnv_double(h, r->threshold.factor);
	h = fnv_u64(h, r->threshold.warmup);
	return h;
}

/* ---- Writing ---- */

static int add_double(struct json_object *o, const char *key, double v)
{
	return jank_json_add(o, key, json_object_new_double(v));
}

static int add_hex(struct json_object *o, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%016" PRIx64, v);
	return jank_json_add_str(o, key, buf);
}

static struct json_object *entry_json(const struct jank_baseline_entry *t)
{
	struct json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_str(o, "kind", jank_comp_kind_name(t->key.kind));
	r |= jank_json_add_str(o, "state", jank_state_name(t->key.state));
	r |= add_hex(o, "id", t->key.id);
	r |= add_double(o, "mean", t->mean);
	r |= jank_json_add_str(o, "process", t->process);
	r |= jank_json_add_str(o, "thread", t->thread);
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *rule_json(const struct jank_rule *rule, const struct jank_baseline *b)
{
	struct json_object *o = json_object_new_object();
	struct json_object *states = json_object_new_object();
	struct json_object *top = json_object_new_array();
	int r = 0;

	if (!o || !states || !top) {
		json_object_put(o);
		json_object_put(states);
		json_object_put(top);
		return NULL;
	}
	r |= jank_json_add_str(o, "name", rule->name);
	r |= add_hex(o, "definition", jank_rule_definition(rule));
	r |= jank_json_add_u64(o, "n", b->n);
	r |= add_double(o, "duration", b->duration);
	r |= jank_json_add(o, "states", states);
	for (int s = 0; r == 0 && s < JANK_STATE_COUNT; s++)
		r |= add_double(states, jank_state_name((enum jank_state)s), b->per_state[s]);
	r |= jank_json_add(o, "top", top);
	for (size_t i = 0; r == 0 && i < b->ntop; i++) {
		struct json_object *t = entry_json(&b->top[i]);

		if (!t || json_object_array_add(top, t) != 0) {
			json_object_put(t);
			r = -ENOMEM;
		}
	}
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *jank_baselines_json(const struct jank_engine *e, const char *input)
{
	struct json_object *o = json_object_new_object();
	struct json_object *rules = json_object_new_array();
	size_t n = 0;
	int r = 0;

	if (!o || !rules) {
		json_object_put(o);
		json_object_put(rules);
		return NULL;
	}
	r |= jank_json_add_str(o, "format", JANK_BASELINES_FORMAT);
	r |= jank_json_add_str(o, "input", input ? input : "");
	r |= jank_json_add(o, "rules", rules);
	for (size_t i = 0; r == 0 && i < jank_engine_rule_count(e); i++) {
		const struct jank_baseline *b = jank_engine_rule_baseline(e, i);
		struct json_object *ro;

		if (b->n == 0 || n == JANK_BASELINES_MAX_RULES)
			continue;
		ro = rule_json(jank_engine_rule(e, i), b);
		if (!ro || json_object_array_add(rules, ro) != 0) {
			json_object_put(ro);
			r = -ENOMEM;
		}
		n++;
	}
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* ---- Reading ---- */

static bool get_double(struct json_object *o, const char *key, double *out)
{
	struct json_object *v = json_object_object_get(o, key);

	if (!v ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return false;
	*out = json_object_get_double(v);
	return isfinite(*out) && *out >= 0 && *out < 1e18;
}

static bool get_hex(struct json_object *o, const char *key, uint64_t *out)
{
	const char *s = jank_json_get_str(o, key);
	char *end;

	if (!s || strlen(s) != 16)
		return false;
	errno = 0;
	*out = strtoull(s, &end, 16);
	return errno == 0 && *end == '\0';
}

static bool get_name(struct json_object *o, const char *key, char *buf)
{
	const char *s = jank_json_get_str(o, key);

	if (!s || strlen(s) >= JANK_COMM_LEN)
		return false;
	memcpy(buf, s, strlen(s) + 1);
	return true;
}

static int kind_of(const char *name)
{
	for (int k = 0; name && k < JANK_COMP_KIND_COUNT; k++)
		if (!strcmp(name, jank_comp_kind_name((enum jank_comp_kind)k)))
			return k;
	return -1;
}

static int entry_read(struct json_object *o, struct jank_baseline_entry *t)
{
	int kind = kind_of(jank_json_get_str(o, "kind"));
	int state = jank_json_get_str(o, "state")
			    ? jank_state_from_name(jank_json_get_str(o, "state"))
			    : -1;

	memset(t, 0, sizeof(*t));
	if (kind < 0 || state < 0 || !get_hex(o, "id", &t->key.id) ||
	    !get_double(o, "mean", &t->mean) || !get_name(o, "process", t->process) ||
	    !get_name(o, "thread", t->thread))
		return -EINVAL;
	t->key.kind = (uint8_t)kind;
	t->key.state = (uint8_t)state;
	return 0;
}

/* A saved rule into b; -EINVAL when anything is off. */
static int rule_read(struct json_object *o, struct jank_baseline *b)
{
	struct json_object *states = jank_json_get(o, "states", json_type_object);
	struct json_object *top = jank_json_get(o, "top", json_type_array);
	int64_t n;

	jank_baseline_init(b);
	if (!jank_json_get_i64(o, "n", &n) || n < 0 || !get_double(o, "duration", &b->duration) ||
	    !states || !top || json_object_array_length(top) > JANK_BASELINE_TOP)
		return -EINVAL;
	b->n = (uint64_t)n;
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		if (!get_double(states, jank_state_name((enum jank_state)s), &b->per_state[s]))
			return -EINVAL;
	b->ntop = json_object_array_length(top);
	for (size_t i = 0; i < b->ntop; i++)
		if (entry_read(json_object_array_get_idx(top, i), &b->top[i]) < 0)
			return -EINVAL;
	return 0;
}

int jank_baselines_load(struct jank_engine *e, struct json_object *doc, size_t *loaded, char *err,
			size_t errlen)
{
	const char *format = doc ? jank_json_get_str(doc, "format") : NULL;
	struct json_object *rules = doc ? jank_json_get(doc, "rules", json_type_array) : NULL;
	size_t n = rules ? json_object_array_length(rules) : 0;
	struct jank_baseline *bl;
	size_t *to;
	int r = 0;

	*loaded = 0;
	if (!format || strcmp(format, JANK_BASELINES_FORMAT) != 0) {
		snprintf(err, errlen, "not of format %s (%s)", JANK_BASELINES_FORMAT,
			 format ? format : "none");
		return -EINVAL;
	}
	if (!rules || n > JANK_BASELINES_MAX_RULES) {
		snprintf(err, errlen, "no rules, or more than %d", JANK_BASELINES_MAX_RULES);
		return -EINVAL;
	}
	/* Everything read and checked first: a malformed file loads nothing. */
	bl = calloc(n ? n : 1, sizeof(*bl));
	to = calloc(n ? n : 1, sizeof(*to));
	if (!bl || !to) {
		free(bl);
		free(to);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct json_object *o = json_object_array_get_idx(rules, i);
		const char *name = jank_json_get_str(o, "name");
		uint64_t def;

		to[i] = SIZE_MAX;
		if (!name || !get_hex(o, "definition", &def) || rule_read(o, &bl[i]) < 0) {
			snprintf(err, errlen, "rule %zu is malformed", i + 1);
			r = -EINVAL;
			break;
		}
		for (size_t k = 0; k < jank_engine_rule_count(e); k++) {
			const struct jank_rule *rule = jank_engine_rule(e, k);

			if (!strcmp(rule->name, name) && jank_rule_definition(rule) == def) {
				to[i] = k;
				break;
			}
		}
	}
	for (size_t i = 0; r == 0 && i < n; i++)
		if (to[i] != SIZE_MAX && jank_engine_set_rule_baseline(e, to[i], &bl[i]) == 0)
			(*loaded)++;
	free(bl);
	free(to);
	return r;
}
