/* SPDX-License-Identifier: MIT */
/*
 * capture.json both ways (see capture-json.h). Each part has its encoder
 * and its decoder next to each other: a rule's or a flow's key and match,
 * the rule, the flows, an action, a chunk, the record.
 *
 * The decoder goes through json-read.h: a member's type, then its range,
 * before it is used; the first error is kept with where it was found
 * ("rule.key[2]", "joined[3].end"). The actions are verdict heads, read by
 * the verdict codec (verdict-json.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture-json.h"
#include "errbuf.h"
#include "json-read.h"
#include "json-util.h"
#include "textsafe.h"

/* ---- The record ---- */

void jank_capture_record_init(struct jank_capture_record *c)
{
	memset(c, 0, sizeof(*c));
	jank_rule_init(&c->rule);
}

void jank_capture_action_fini(struct jank_capture_action *a)
{
	free(a->action);
	free(a->live_critical_path);
	memset(a, 0, sizeof(*a));
}

void jank_capture_record_fini(struct jank_capture_record *c)
{
	char **strs[] = { &c->format,	&c->name,    &c->mode,		&c->state, &c->time,
			  &c->hostname, &c->session, &c->jankd_version, &c->error };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		free(*strs[i]);
	jank_rule_fini(&c->rule);
	for (size_t i = 0; i < c->nflows; i++)
		jank_flow_rule_fini(&c->flows[i]);
	free(c->flows);
	jank_capture_action_fini(&c->action);
	for (size_t i = 0; i < c->njoined; i++)
		jank_capture_action_fini(&c->joined[i]);
	free(c->joined);
	for (size_t i = 0; i < c->nchunks; i++)
		free(c->chunks[i].name);
	free(c->chunks);
	json_object_put(c->json);
	jank_capture_record_init(c);
}

int jank_capture_set_str(char **dst, const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		return -ENOMEM;
	free(*dst);
	*dst = d;
	return 0;
}

/* ---- Decoding: the checks ---- */

struct dec {
	struct jank_jr jr;
	bool nomem;
};

/* A string member into *dst (owned): 0 (absent and not required: *dst kept), -EINVAL, -ENOMEM. */
static int get_str(struct dec *d, struct json_object *o, const char *key, bool required, char **dst)
{
	const char *s;
	int r = jank_json_read_str(&d->jr, o, key, required, JANK_CAPTURE_TEXT_LEN, &s);

	if (r < 0)
		return r;
	if (r == 0 && jank_capture_set_str(dst, s) < 0) {
		d->nomem = true;
		return -ENOMEM;
	}
	return 0;
}

/* A string array member of at most JANK_RULE_MAX_KEYS names into keys[], *n. */
static int get_names(struct dec *d, struct json_object *o, const char *key, char **keys,
		     unsigned *n)
{
	struct json_object *a, *v;
	int r = jank_json_read_array(&d->jr, o, key, false, JANK_RULE_MAX_KEYS, &a);

	if (r != 0)
		return r < 0 ? r : 0;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		const char *s;
		char k[48];

		snprintf(k, sizeof(k), "%s[%zu]", key, i);
		v = json_object_array_get_idx(a, i);
		if (jank_json_read_str_value(&d->jr, v, k, JANK_CAPTURE_TEXT_LEN, &s) < 0)
			return -EINVAL;
		if (!(keys[i] = strdup(s))) {
			d->nomem = true;
			return -ENOMEM;
		}
		(*n)++;
	}
	return 0;
}

/* ---- A rule's or a flow's key and match ---- */

static int names_to_json(struct json_object *o, const char *key, char *const *names, unsigned n)
{
	struct json_object *a = json_object_new_array();
	int e = jank_json_add(o, key, a);

	for (unsigned i = 0; a && i < n; i++)
		e |= json_object_array_add(a, json_object_new_string(names[i])) ? -ENOMEM : 0;
	return e;
}

/* "key": [...] and "match": {field, value} or null. Returns 0 or -ENOMEM. */
static int keys_match_to_json(struct json_object *o, char *const *keys, unsigned nkeys,
			      const char *match_field, const struct jank_value *v)
{
	struct json_object *m;
	int e = names_to_json(o, "key", keys, nkeys);

	if (!match_field)
		return e | (json_object_object_add(o, "match", NULL) ? -ENOMEM : 0);
	m = json_object_new_object();
	e |= jank_json_add(o, "match", m);
	if (m) {
		e |= jank_json_add_str(m, "field", match_field);
		if (v->type == JANK_VALUE_STR)
			e |= jank_json_add_str(m, "value", v->s);
		else if (v->type == JANK_VALUE_UINT)
			e |= jank_json_add_i64(m, "value", (int64_t)v->u);
		else
			e |= jank_json_add_i64(m, "value", v->i);
	}
	return e;
}

static int keys_match_from_json(struct dec *d, struct json_object *o, char **keys, unsigned *nkeys,
				char **match_field, struct jank_value *value)
{
	struct json_object *m, *v = NULL;
	size_t at;
	int r;

	if ((r = get_names(d, o, "key", keys, nkeys)) < 0)
		return r;
	if ((r = jank_json_read_member(&d->jr, o, "match", json_type_object, false, &m)) != 0)
		return r < 0 ? r : 0;
	at = jank_json_read_push(&d->jr, "match.");
	r = get_str(d, m, "field", true, match_field);
	json_object_object_get_ex(m, "value", &v);
	if (r == 0 && v && json_object_is_type(v, json_type_string)) {
		char *str = NULL;

		r = get_str(d, m, "value", true, &str);
		value->type = JANK_VALUE_STR; /* owned: the rule's fini frees it */
		value->s = str;
	} else if (r == 0 && v && json_object_is_type(v, json_type_int)) {
		value->type = JANK_VALUE_INT;
		r = jank_json_read_int(&d->jr, m, "value", true, INT64_MIN, INT64_MAX, 0,
				       &value->i);
	} else if (r == 0) {
		r = jank_json_read_fail(&d->jr, "value",
					v ? "not a string or an integer" : "missing");
	}
	jank_json_read_pop(&d->jr, at);
	return r;
}

/* ---- The rule ---- */

static struct json_object *threshold_to_json(const struct jank_threshold *th)
{
	struct json_object *t = json_object_new_object();
	int e = 0;

	if (!t)
		return NULL;
	e |= jank_json_add_str(t, "kind", jank_threshold_kind_name(th->kind));
	if (th->kind == JANK_THRESHOLD_ADAPTIVE) {
		e |= jank_json_add(t, "percentile", json_object_new_double(th->percentile));
		e |= jank_json_add(t, "factor", json_object_new_double(th->factor));
		e |= jank_json_add_i64(t, "warmup", (int64_t)th->warmup);
	} else {
		e |= jank_json_add_i64(t, "ns", th->ns);
	}
	if (e) {
		json_object_put(t);
		return NULL;
	}
	return t;
}

static int threshold_from_json(struct dec *d, struct json_object *t, struct jank_threshold *th)
{
	const char *kind;
	int64_t w;
	int r, k;

	if ((r = jank_json_read_str(&d->jr, t, "kind", true, 16, &kind)) < 0)
		return r;
	if ((k = jank_threshold_kind_from_name(kind)) < 0)
		return jank_json_read_fail(&d->jr, "kind", "not fixed or adaptive");
	th->kind = (enum jank_threshold_kind)k;
	if (th->kind == JANK_THRESHOLD_FIXED)
		return jank_json_read_int(&d->jr, t, "ns", false, 0, JANK_VERDICT_TIME_MAX, 0,
					  &th->ns) < 0
			       ? -EINVAL
			       : 0;
	if (jank_json_read_real(&d->jr, t, "percentile", true, 0, 100, &th->percentile) < 0 ||
	    jank_json_read_real(&d->jr, t, "factor", true, 0, JANK_THRESHOLD_MAX_FACTOR,
				&th->factor) < 0 ||
	    jank_json_read_int(&d->jr, t, "warmup", false, 0, INT64_MAX, 0, &w) < 0)
		return -EINVAL;
	th->warmup = (uint64_t)w;
	return 0;
}

static struct json_object *rule_to_json(const struct jank_rule *ru)
{
	struct json_object *o = json_object_new_object();
	int e = 0;

	if (!o || !ru->name)
		return o; /* {}: a verdict without a rule */
	e |= jank_json_add_str(o, "name", ru->name);
	e |= jank_json_add_str(o, "begin", ru->begin_event);
	e |= jank_json_add_str(o, "end", ru->end_event);
	e |= keys_match_to_json(o, ru->keys, ru->nkeys, ru->match_field, &ru->match_value);
	e |= jank_json_add(o, "threshold", threshold_to_json(&ru->threshold));
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int rule_from_json(struct dec *d, struct json_object *root, struct jank_rule *ru)
{
	struct json_object *o, *t;
	size_t at;
	int r;

	if ((r = jank_json_read_member(&d->jr, root, "rule", json_type_object, true, &o)) < 0)
		return r;
	if (json_object_object_length(o) == 0)
		return 0; /* {}: the verdict had no rule */
	at = jank_json_read_push(&d->jr, "rule.");
	if ((r = get_str(d, o, "name", true, &ru->name)) < 0 ||
	    (r = get_str(d, o, "begin", true, &ru->begin_event)) < 0 ||
	    (r = get_str(d, o, "end", true, &ru->end_event)) < 0 ||
	    (r = keys_match_from_json(d, o, ru->keys, &ru->nkeys, &ru->match_field,
				      &ru->match_value)) < 0 ||
	    (r = jank_json_read_member(&d->jr, o, "threshold", json_type_object, false, &t)) < 0)
		return r;
	if (t) {
		size_t at2 = jank_json_read_push(&d->jr, "threshold.");

		r = threshold_from_json(d, t, &ru->threshold);
		jank_json_read_pop(&d->jr, at2);
	}
	jank_json_read_pop(&d->jr, at);
	return r;
}

/* ---- The flows ---- */

static struct json_object *flows_to_json(const struct jank_flow_rule *flows, size_t n)
{
	struct json_object *a = json_object_new_array();
	int e = 0;

	for (size_t i = 0; a && i < n; i++) {
		const struct jank_flow_rule *f = &flows[i];
		struct json_object *o = json_object_new_object();

		if (!o || json_object_array_add(a, o) != 0) {
			json_object_put(o);
			e = -ENOMEM;
			break;
		}
		e |= jank_json_add_str(o, "name", f->name);
		e |= jank_json_add_str(o, "from", f->from_event);
		e |= jank_json_add_str(o, "to", f->to_event);
		e |= keys_match_to_json(o, f->keys, f->nkeys, f->match_field, &f->match_value);
		if (f->nto_keys)
			e |= names_to_json(o, "to_key", f->to_keys, f->nto_keys);
	}
	if (e) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

static int flow_from_json(struct dec *d, struct json_object *o, struct jank_flow_rule *f)
{
	int r;

	if ((r = get_str(d, o, "name", true, &f->name)) < 0 ||
	    (r = get_str(d, o, "from", true, &f->from_event)) < 0 ||
	    (r = get_str(d, o, "to", true, &f->to_event)) < 0 ||
	    (r = keys_match_from_json(d, o, f->keys, &f->nkeys, &f->match_field, &f->match_value)) <
		    0 ||
	    (r = get_names(d, o, "to_key", f->to_keys, &f->nto_keys)) < 0)
		return r;
	if (!f->nkeys)
		return jank_json_read_fail(&d->jr, "key", "empty (a flow pairs by key)");
	if (!jank_flow_rule_ok(f))
		return jank_json_read_fail(&d->jr, "to_key", "not as many fields as key");
	return 0;
}

/* The flows, none in a capture of an older jankd. */
static int flows_from_json(struct dec *d, struct json_object *root, struct jank_capture_record *c)
{
	struct json_object *a, *o;
	size_t n;
	int r = jank_json_read_array(&d->jr, root, "flows", false, JANK_CAPTURE_FLOWS_MAX, &a);

	if (r != 0 || !(n = json_object_array_length(a)))
		return r < 0 ? r : 0;
	if (!(c->flows = calloc(n, sizeof(*c->flows)))) {
		d->nomem = true;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t at;

		jank_flow_rule_init(&c->flows[i]);
		c->nflows++;
		if (jank_json_read_elem(&d->jr, a, "flows", i, json_type_object, &o) < 0)
			return -EINVAL;
		at = jank_json_read_push(&d->jr, "flows[%zu].", i);
		r = flow_from_json(d, o, &c->flows[i]);
		jank_json_read_pop(&d->jr, at);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- An action: a verdict's head ---- */

int jank_capture_action_set(struct jank_capture_action *a, const struct jank_verdict *v,
			    const char *story)
{
	memset(a, 0, sizeof(*a));
	a->kind = v->kind;
	if (jank_capture_set_str(&a->action, v->rule ? v->rule->name : NULL) < 0 ||
	    jank_capture_set_str(&a->live_critical_path, story) < 0) {
		jank_capture_action_fini(a);
		return -ENOMEM;
	}
	snprintf(a->key, sizeof(a->key), "%s", v->key ? v->key : "");
	a->has_comm = v->comm != NULL;
	snprintf(a->comm, sizeof(a->comm), "%s", v->comm ? v->comm : "");
	a->begin = v->begin;
	a->end = v->end;
	a->duration = v->duration;
	a->threshold = v->threshold;
	a->tid = v->tid;
	a->pid = v->pid;
	a->over_threshold = v->over_threshold;
	return 0;
}

void jank_capture_action_verdict(const struct jank_capture_action *a, struct jank_rule *rule,
				 struct jank_verdict *v)
{
	memset(v, 0, sizeof(*v));
	jank_rule_init(rule);
	rule->name = a->action;
	v->kind = a->kind;
	v->rule = a->action ? rule : NULL;
	v->rule_index = UINT32_MAX;
	v->key = a->key;
	v->begin = a->begin;
	v->end = a->end;
	v->duration = a->duration;
	v->threshold = a->threshold;
	v->over_threshold = a->over_threshold;
	v->tid = a->tid;
	v->pid = a->pid;
	v->comm = a->has_comm ? a->comm : NULL;
}

static struct json_object *action_to_json(const struct jank_capture_action *a)
{
	struct jank_rule stub;
	struct jank_verdict v;
	struct json_object *o;

	jank_capture_action_verdict(a, &stub, &v);
	o = jank_verdict_to_json(&v, JANK_VERDICT_JSON_HEAD);
	if (o && a->live_critical_path &&
	    jank_json_add_str(o, "live_critical_path", a->live_critical_path) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* `o`, named `name` ("action", "joined[3]"), into `a` through the verdict codec. */
static int action_head_from_json(struct dec *d, struct json_object *o, const char *name,
				 struct jank_capture_action *a)
{
	struct jank_verdict_decoded *vd = malloc(sizeof(*vd));
	struct jank_verdict_json_error bad;
	const struct jank_verdict *v;
	char where[192];
	int r;

	if (!vd) {
		d->nomem = true;
		return -ENOMEM;
	}
	r = jank_verdict_from_json(o, vd, &bad);
	if (r == -ENOMEM)
		d->nomem = true;
	else if (r < 0) {
		snprintf(where, sizeof(where), "%s%s%s", name, bad.field[0] ? "." : "", bad.field);
		jank_json_read_fail(&d->jr, where, "%s", bad.why);
	}
	if (r == 0) {
		v = &vd->v;
		r = jank_capture_action_set(a, v, NULL);
		if (r == 0)
			r = get_str(d, o, "live_critical_path", false, &a->live_critical_path);
		else
			d->nomem = true;
	}
	jank_verdict_decoded_fini(vd);
	free(vd);
	return r;
}

/*
 * The head of a verdict without a rule ("action": null, as the encoder
 * writes it) is read as one named "?", then unnamed: a copy of `o` with that
 * name. NULL when out of memory.
 */
static struct json_object *unnamed_copy(struct json_object *o)
{
	struct json_object *c = json_object_new_object();

	json_object_object_foreach(o, key, v)
	{
		bool name = !strcmp(key, "action");
		struct json_object *nv = name ? json_object_new_string("?") : json_object_get(v);

		if (!c || (!nv && (name || v)) || json_object_object_add(c, key, nv) != 0) {
			json_object_put(nv);
			json_object_put(c);
			return NULL;
		}
	}
	return c;
}

/* An action, named or not. */
static int action_from_json(struct dec *d, struct json_object *o, const char *name,
			    struct jank_capture_action *a)
{
	struct json_object *v = NULL, *copy = NULL;
	int r;

	if (json_object_object_get_ex(o, "action", &v) && !v) {
		if (!(copy = unnamed_copy(o))) {
			d->nomem = true;
			return -ENOMEM;
		}
		o = copy;
	}
	r = action_head_from_json(d, o, name, a);
	json_object_put(copy);
	if (r == 0 && copy) {
		free(a->action);
		a->action = NULL;
	}
	return r;
}

static struct json_object *actions_to_json(const struct jank_capture_action *a, size_t n)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; arr && i < n; i++) {
		struct json_object *o = action_to_json(&a[i]);

		if (!o || json_object_array_add(arr, o) != 0) {
			json_object_put(o);
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

static int joined_from_json(struct dec *d, struct json_object *root, struct jank_capture_record *c)
{
	struct json_object *a, *o;
	int64_t more;
	size_t n;
	int r = jank_json_read_array(&d->jr, root, "joined", false, JANK_CAPTURE_JOINED_MAX, &a);

	if (r < 0 ||
	    jank_json_read_int(&d->jr, root, "joined_more", false, 0, INT64_MAX, 0, &more) < 0)
		return -EINVAL;
	c->joined_more = (uint64_t)more;
	if (r == 1 || !(n = json_object_array_length(a)))
		return 0;
	/* Room for all JANK_CAPTURE_JOINED_MAX, as jank_capture_record_join() expects. */
	if (!(c->joined = calloc(JANK_CAPTURE_JOINED_MAX, sizeof(*c->joined)))) {
		d->nomem = true;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "joined[%zu]", i);
		if (jank_json_read_elem(&d->jr, a, "joined", i, json_type_object, &o) < 0 ||
		    (r = action_from_json(d, o, name, &c->joined[i])) < 0)
			return r < 0 ? r : -EINVAL;
		c->njoined++;
	}
	return 0;
}

int jank_capture_record_join(struct jank_capture_record *c, const struct jank_verdict *v)
{
	if (c->njoined >= JANK_CAPTURE_JOINED_MAX) {
		c->joined_more++;
		return 0;
	}
	if (!c->joined && !(c->joined = calloc(JANK_CAPTURE_JOINED_MAX, sizeof(*c->joined))))
		return -ENOMEM;
	if (jank_capture_action_set(&c->joined[c->njoined], v, NULL) < 0)
		return -ENOMEM;
	c->njoined++;
	return 0;
}

/* ---- A chunk ---- */

int jank_capture_record_add_chunk(struct jank_capture_record *c, const char *name, uint64_t index,
				  int64_t begin, int64_t end)
{
	struct jank_capture_chunk_ref *v, *ch;

	if (c->nchunks >= JANK_CAPTURE_CHUNKS_MAX)
		return -E2BIG;
	v = realloc(c->chunks, (c->nchunks + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->chunks = v;
	ch = &v[c->nchunks];
	memset(ch, 0, sizeof(*ch));
	if (jank_capture_set_str(&ch->name, name) < 0)
		return -ENOMEM;
	ch->index = index;
	ch->begin = begin;
	ch->end = end;
	c->nchunks++;
	return 0;
}

static struct json_object *chunks_to_json(const struct jank_capture_record *c)
{
	struct json_object *a = json_object_new_array();
	int e = 0;

	for (size_t i = 0; a && i < c->nchunks; i++) {
		const struct jank_capture_chunk_ref *ch = &c->chunks[i];
		struct json_object *o = json_object_new_object();

		if (!o || json_object_array_add(a, o) != 0) {
			json_object_put(o);
			e = -ENOMEM;
			break;
		}
		e |= jank_json_add_str(o, "name", ch->name);
		e |= jank_json_add_u64(o, "index", ch->index);
		e |= jank_json_add_i64(o, "begin", ch->begin);
		e |= jank_json_add_i64(o, "end", ch->end);
	}
	if (e) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

static int chunks_from_json(struct dec *d, struct json_object *root, struct jank_capture_record *c)
{
	struct json_object *a, *o;
	int r = jank_json_read_array(&d->jr, root, "chunks", false, JANK_CAPTURE_CHUNKS_MAX, &a);
	size_t n = r == 0 ? json_object_array_length(a) : 0;

	if (r < 0 || !n)
		return r < 0 ? r : 0;
	if (!(c->chunks = calloc(n, sizeof(*c->chunks)))) {
		d->nomem = true;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct jank_capture_chunk_ref *ch = &c->chunks[i];
		int64_t index;
		size_t at;

		if (jank_json_read_elem(&d->jr, a, "chunks", i, json_type_object, &o) < 0)
			return -EINVAL;
		c->nchunks++;
		at = jank_json_read_push(&d->jr, "chunks[%zu].", i);
		r = get_str(d, o, "name", true, &ch->name);
		if (r == 0)
			r = jank_json_read_int(&d->jr, o, "index", true, 0, INT64_MAX, 0, &index);
		if (r == 0)
			r = jank_json_read_int(&d->jr, o, "begin", true, INT64_MIN, INT64_MAX, 0,
					       &ch->begin);
		if (r == 0)
			r = jank_json_read_int(&d->jr, o, "end", true, INT64_MIN, INT64_MAX, 0,
					       &ch->end);
		jank_json_read_pop(&d->jr, at);
		if (r < 0)
			return r;
		ch->index = (uint64_t)index;
	}
	return 0;
}

/* ---- The record ---- */

struct json_object *jank_capture_record_to_json(const struct jank_capture_record *c)
{
	struct json_object *o = json_object_new_object();
	int e = 0;

	if (!o)
		return NULL;
	e |= jank_json_add_str(o, "format", c->format);
	e |= jank_json_add_str(o, "name", c->name);
	e |= jank_json_add_str(o, "mode", c->mode);
	e |= jank_json_add_str(o, "state", c->state);
	e |= jank_json_add_str(o, "time", c->time);
	e |= jank_json_add_i64(o, "time_ns", c->time_ns);
	e |= jank_json_add_str(o, "hostname", c->hostname);
	e |= jank_json_add_str(o, "session", c->session);
	e |= jank_json_add_str(o, "jankd_version", c->jankd_version);
	e |= jank_json_add(o, "rule", rule_to_json(&c->rule));
	e |= jank_json_add(o, "flows", flows_to_json(c->flows, c->nflows));
	e |= jank_json_add(o, "action", action_to_json(&c->action));
	e |= jank_json_add(o, "joined", actions_to_json(c->joined, c->njoined));
	e |= jank_json_add_u64(o, "joined_more", c->joined_more);
	if (c->nchunks)
		e |= jank_json_add(o, "chunks", chunks_to_json(c));
	if (c->error)
		e |= jank_json_add_str(o, "error", c->error);
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int jank_capture_record_print(FILE *f, const struct jank_capture_record *c)
{
	struct json_object *o = jank_capture_record_to_json(c);
	const char *s = o ? json_object_to_json_string_ext(
				    o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)
			  : NULL;
	int r = !s ? -ENOMEM : fputs(s, f) < 0 || fputc('\n', f) < 0 ? -EIO : 0;

	json_object_put(o);
	return r;
}

/* The strings of the record that say where and when: each optional. */
static int head_from_json(struct dec *d, struct json_object *o, struct jank_capture_record *c)
{
	const char *fmt;
	char q[JANK_TEXT_BUF];
	int r;

	if ((r = jank_json_read_str(&d->jr, o, "format", false, JANK_CAPTURE_TEXT_LEN, &fmt)) < 0)
		return r;
	if (fmt && strncmp(fmt, "jank-capture/", 13) != 0)
		return jank_json_read_fail(&d->jr, "", "unknown format '%s' (expected %s)",
					   jank_text(q, sizeof(q), fmt), JANK_CAPTURE_FORMAT);
	if ((r = get_str(d, o, "format", false, &c->format)) < 0 ||
	    (r = get_str(d, o, "name", false, &c->name)) < 0 ||
	    (r = get_str(d, o, "mode", false, &c->mode)) < 0 ||
	    (r = get_str(d, o, "state", false, &c->state)) < 0 ||
	    (r = get_str(d, o, "time", false, &c->time)) < 0 ||
	    (r = jank_json_read_int(&d->jr, o, "time_ns", false, INT64_MIN, INT64_MAX, 0,
				    &c->time_ns)) < 0 ||
	    (r = get_str(d, o, "hostname", false, &c->hostname)) < 0 ||
	    (r = get_str(d, o, "session", false, &c->session)) < 0 ||
	    (r = get_str(d, o, "jankd_version", false, &c->jankd_version)) < 0)
		return r;
	return get_str(d, o, "error", false, &c->error);
}

static int record_from_json(struct dec *d, struct json_object *o, struct jank_capture_record *c)
{
	struct json_object *ao;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return jank_json_read_fail(&d->jr, "", "not a JSON object");
	if ((r = head_from_json(d, o, c)) < 0 || (r = rule_from_json(d, o, &c->rule)) < 0 ||
	    (r = flows_from_json(d, o, c)) < 0 ||
	    (r = jank_json_read_member(&d->jr, o, "action", json_type_object, true, &ao)) < 0 ||
	    (r = action_from_json(d, ao, "action", &c->action)) < 0 ||
	    (r = joined_from_json(d, o, c)) < 0)
		return r;
	return chunks_from_json(d, o, c);
}

int jank_capture_record_from_json(struct json_object *o, struct jank_capture_record *c, char *err,
				  size_t errlen)
{
	struct dec d = { 0 };
	int r;

	jank_capture_record_init(c);
	jank_json_read_init(&d.jr);
	c->json = json_object_get(o);
	r = record_from_json(&d, o, c);
	if (r == 0)
		return 0;
	if (d.nomem) {
		jank_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!d.jr.field[0]) /* the whole document: "not a JSON object", "unknown format" */
		jank_errf(err, errlen, "%s", d.jr.why);
	else
		jank_errf(err, errlen, "bad '%s': %s", d.jr.field, d.jr.why);
	return -EINVAL;
}

int jank_capture_record_load(const char *path, struct jank_capture_record *c, bool *missing,
			     char *err, size_t errlen)
{
	static const struct jank_json_bounds bounds = JANK_CAPTURE_JSON_BOUNDS;
	struct json_object *o;
	char why[512];
	int r;

	jank_capture_record_init(c);
	o = jank_json_load_bounded(path, &bounds, missing, why, sizeof(why));
	if (!o && *missing) {
		jank_errf(err, errlen, "no such file");
		return -ENOENT;
	}
	if (!o) {
		why[strcspn(why, "\n")] = '\0';
		jank_errf(err, errlen, "%s", why);
		return -EINVAL;
	}
	r = jank_capture_record_from_json(o, c, err, errlen);
	json_object_put(o);
	return r;
}
