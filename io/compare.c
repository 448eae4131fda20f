/* SPDX-License-Identifier: MIT */
/*
 * Comparison of two groups of actions (see compare.h).
 *
 * A row per component, found through a hash of its key; a row keeps the
 * nonzero values of each group (the zeros are implicit: the group's count
 * minus the values kept), so that an action costs its own components only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "compare.h"
#include "format.h"
#include "hashmap.h"
#include "json-util.h"
#include "units.h"

/* Rows whose two means are under this are left out of the text (ns). */
#define TEXT_MIN_MEAN 1000.0

struct values {
	int64_t *v;
	size_t n;
	size_t cap;
	double sum;
};

struct row {
	struct jank_cmp_row out;
	struct values g[2];
};

struct jank_compare {
	char *names[2];
	struct values dur[2]; /* every action's duration: the counts */
	struct jank_cmp_stats dur_stats[2];
	struct row **rows;
	size_t nrows;
	size_t cap;
	struct jank_hashmap index;
	struct jank_cmp_row *out; /* sorted, after finish */
};

struct jank_compare *jank_compare_new(const char *name_a, const char *name_b)
{
	struct jank_compare *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	jank_hashmap_init(&c->index);
	c->names[0] = strdup(name_a);
	c->names[1] = strdup(name_b);
	if (!c->names[0] || !c->names[1]) {
		jank_compare_free(c);
		return NULL;
	}
	return c;
}

void jank_compare_free(struct jank_compare *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nrows; i++) {
		free(c->rows[i]->g[0].v);
		free(c->rows[i]->g[1].v);
		free(c->rows[i]);
	}
	for (int g = 0; g < 2; g++) {
		free(c->dur[g].v);
		free(c->names[g]);
	}
	free(c->rows);
	free(c->out);
	jank_hashmap_fini(&c->index);
	free(c);
}

static int push(struct values *v, int64_t x)
{
	if (v->n == v->cap) {
		size_t ncap = jank_array_grow(&v->v, sizeof(*v->v), v->cap, 16);

		if (!ncap)
			return -ENOMEM;
		v->cap = ncap;
	}
	v->v[v->n++] = x;
	v->sum += (double)x;
	return 0;
}

static uint64_t key_hash(const struct jank_comp_key *k)
{
	return jank_hash64(k->id ^ ((uint64_t)k->kind << 56) ^ ((uint64_t)k->state << 48));
}

/* The row of a component, made on first sight. */
static struct row *row_of(struct jank_compare *c, const struct jank_comp_key *k)
{
	uint64_t h = key_hash(k);
	struct row *r;

	/* Two keys with one hash: the next hash value, until a free or equal one. */
	while ((r = jank_hashmap_get(&c->index, h)) && !jank_comp_key_equal(&r->out.key, k))
		h++;
	if (r)
		return r;
	if (c->nrows == c->cap) {
		size_t ncap = jank_array_grow(&c->rows, sizeof(*c->rows), c->cap, 64);

		if (!ncap)
			return NULL;
		c->cap = ncap;
	}
	r = calloc(1, sizeof(*r));
	if (!r || jank_hashmap_put(&c->index, h, r) < 0) {
		free(r);
		return NULL;
	}
	r->out.key = *k;
	c->rows[c->nrows++] = r;
	return r;
}

static int add_value(struct jank_compare *c, enum jank_cmp_group g, const struct jank_comp *comp)
{
	struct row *r = row_of(c, &comp->key);

	if (!r)
		return -ENOMEM;
	if (!r->out.thread[0] && comp->thread[0]) {
		memcpy(r->out.process, comp->process, JANK_COMM_LEN);
		memcpy(r->out.thread, comp->thread, JANK_COMM_LEN);
	}
	return push(&r->g[g], comp->ns);
}

int jank_compare_add(struct jank_compare *c, enum jank_cmp_group g, const struct jank_profile *pf)
{
	int r = push(&c->dur[g], pf->duration);

	for (int s = 0; r == 0 && s < JANK_STATE_COUNT; s++) {
		struct jank_comp comp = { 0 };

		if (!pf->per_state[s])
			continue;
		comp.key.kind = jank_state_is_hop(s) ? JANK_COMP_HOP : JANK_COMP_STATE;
		comp.key.state = (uint8_t)s;
		comp.ns = pf->per_state[s];
		r = add_value(c, g, &comp);
	}
	for (size_t i = 0; r == 0 && i < pf->n; i++)
		r = add_value(c, g, &pf->comps[i]);
	return r;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank over `count` values: the kept ones, sorted, above count - n zeros. */
static int64_t percentile(const struct values *v, size_t count, double p)
{
	size_t rank = (size_t)(p / 100.0 * (double)count + 0.999999999), zeros = count - v->n;

	if (rank < 1)
		rank = 1;
	if (count == 0 || rank <= zeros)
		return 0;
	return v->v[rank - zeros - 1];
}

static void stats(struct values *v, size_t count, struct jank_cmp_stats *out)
{
	jank_sort(v->v, v->n, sizeof(*v->v), cmp_i64);
	out->mean = count ? v->sum / (double)count : 0.0;
	out->p50 = percentile(v, count, 50);
	out->p99 = percentile(v, count, 99);
}

static int cmp_row(const void *a, const void *b)
{
	const struct jank_cmp_row *x = a, *y = b;

	if (x->diff != y->diff)
		return x->diff > y->diff ? -1 : 1;
	if (x->key.kind != y->key.kind)
		return x->key.kind > y->key.kind ? -1 : 1;
	if (x->key.state != y->key.state)
		return x->key.state < y->key.state ? -1 : 1;
	return x->key.id < y->key.id ? -1 : x->key.id > y->key.id;
}

int jank_compare_finish(struct jank_compare *c)
{
	free(c->out);
	c->out = calloc(c->nrows ? c->nrows : 1, sizeof(*c->out));
	if (!c->out)
		return -ENOMEM;
	for (int g = 0; g < 2; g++)
		stats(&c->dur[g], c->dur[g].n, &c->dur_stats[g]);
	for (size_t i = 0; i < c->nrows; i++) {
		struct row *r = c->rows[i];

		for (int g = 0; g < 2; g++)
			stats(&r->g[g], c->dur[g].n, &r->out.g[g]);
		r->out.diff = r->out.g[0].mean - r->out.g[1].mean;
		c->out[i] = r->out;
	}
	jank_sort(c->out, c->nrows, sizeof(*c->out), cmp_row);
	return 0;
}

const char *jank_compare_name(const struct jank_compare *c, enum jank_cmp_group g)
{
	return c->names[g];
}

size_t jank_compare_count(const struct jank_compare *c, enum jank_cmp_group g)
{
	return c->dur[g].n;
}

const struct jank_cmp_stats *jank_compare_duration(const struct jank_compare *c,
						   enum jank_cmp_group g)
{
	return &c->dur_stats[g];
}

const struct jank_cmp_row *jank_compare_rows(const struct jank_compare *c, size_t *n)
{
	*n = c->out ? c->nrows : 0;
	return c->out;
}

const char *jank_compare_label(const struct jank_cmp_row *r, char *buf, size_t len)
{
	char who[JANK_FORMAT_NAMES_LEN];

	jank_format_names(r->process, r->thread, who, sizeof(who));
	switch (r->key.kind) {
	case JANK_COMP_THREAD:
		snprintf(buf, len, "thread %s: %s", who, jank_state_name(r->key.state));
		break;
	case JANK_COMP_LOCK:
		snprintf(buf, len, "lock 0x%" PRIx64 "%s%s%s", r->key.id,
			 r->thread[0] ? " (held by " : "", r->thread[0] ? who : "",
			 r->thread[0] ? ")" : "");
		break;
	default:
		snprintf(buf, len, "%s %s", jank_comp_kind_name(r->key.kind),
			 jank_state_name(r->key.state));
	}
	return buf;
}

/* ---- Text ---- */

/* A duration for the table: "0" when there was none, so that the others stand out. */
static const char *dur(double ns, char *buf, size_t len)
{
	int64_t v = (int64_t)(ns + (ns < 0 ? -0.5 : 0.5));

	if (v == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	return jank_units_duration(v, buf, len);
}

/* g: the two groups' statistics. */
static void text_row(FILE *f, const char *label, const struct jank_cmp_stats *g, double diff)
{
	char v[7][32];

	v[6][0] = diff > 0 ? '+' : ' ';
	dur(diff, v[6] + (diff > 0), sizeof(v[6]) - 1);
	fprintf(f, "%-40s %9s %9s %9s  %9s %9s %9s  %10s\n", label,
		dur(g[0].mean, v[0], sizeof(v[0])), dur((double)g[0].p50, v[1], sizeof(v[1])),
		dur((double)g[0].p99, v[2], sizeof(v[2])), dur(g[1].mean, v[3], sizeof(v[3])),
		dur((double)g[1].p50, v[4], sizeof(v[4])),
		dur((double)g[1].p99, v[5], sizeof(v[5])), v[6]);
}

void jank_compare_text(FILE *f, const struct jank_compare *c, const char *title, size_t max_rows)
{
	char label[96], head[2][48];
	size_t n, shown = 0, more = 0;
	const struct jank_cmp_row *rows = jank_compare_rows(c, &n);

	fprintf(f, "%s\n\n", title);
	for (int g = 0; g < 2; g++)
		snprintf(head[g], sizeof(head[g]), "%s (%zu)", c->names[g], c->dur[g].n);
	fprintf(f, "%-40s %-29s  %s\n", "", head[0], head[1]);
	fprintf(f, "%-40s %9s %9s %9s  %9s %9s %9s  %10s\n", "component", "mean", "p50", "p99",
		"mean", "p50", "p99", "difference");
	text_row(f, "duration", c->dur_stats, c->dur_stats[0].mean - c->dur_stats[1].mean);
	for (size_t i = 0; i < n; i++) {
		if (rows[i].g[0].mean < TEXT_MIN_MEAN && rows[i].g[1].mean < TEXT_MIN_MEAN)
			continue;
		if (shown == max_rows) {
			more++;
			continue;
		}
		text_row(f, jank_compare_label(&rows[i], label, sizeof(label)), rows[i].g,
			 rows[i].diff);
		shown++;
	}
	if (more)
		fprintf(f, "… %zu more components (see --format json)\n", more);
}

/* ---- JSON ---- */

static struct json_object *stats_json(const struct jank_cmp_stats *s)
{
	struct json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_i64(o, "mean_ns", (int64_t)(s->mean + 0.5));
	r |= jank_json_add_i64(o, "p50_ns", s->p50);
	r |= jank_json_add_i64(o, "p99_ns", s->p99);
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *row_json(const struct jank_compare *c, const struct jank_cmp_row *row)
{
	struct json_object *o = json_object_new_object();
	char buf[32];
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_str(o, "kind", jank_comp_kind_name(row->key.kind));
	if (row->key.kind == JANK_COMP_LOCK) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, row->key.id);
		r |= jank_json_add_str(o, "lock", buf);
	} else {
		r |= jank_json_add_str(o, "state", jank_state_name(row->key.state));
	}
	if (row->key.kind == JANK_COMP_THREAD || row->key.kind == JANK_COMP_LOCK) {
		r |= jank_json_add_str(o, "process", row->process);
		r |= jank_json_add_str(o, "thread", row->thread);
	}
	r |= jank_json_add(o, c->names[0], stats_json(&row->g[0]));
	r |= jank_json_add(o, c->names[1], stats_json(&row->g[1]));
	r |= jank_json_add_i64(o, "difference_ns",
			       (int64_t)(row->diff + (row->diff < 0 ? -0.5 : 0.5)));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *group_json(const struct jank_compare *c, int g)
{
	struct json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_str(o, "name", c->names[g]);
	r |= jank_json_add_u64(o, "count", c->dur[g].n);
	r |= jank_json_add(o, "duration", stats_json(&c->dur_stats[g]));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int add_array(struct json_object *a, struct json_object *v)
{
	if (!v || json_object_array_add(a, v) != 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

struct json_object *jank_compare_json(const struct jank_compare *c, const char *action)
{
	struct json_object *o = json_object_new_object();
	struct json_object *groups = json_object_new_array();
	struct json_object *comps = json_object_new_array();
	size_t n;
	const struct jank_cmp_row *rows = jank_compare_rows(c, &n);
	int r = 0;

	if (!o || !groups || !comps) {
		json_object_put(groups);
		json_object_put(comps);
		json_object_put(o);
		return NULL;
	}
	r |= jank_json_add_str(o, "type", "compare");
	r |= jank_json_add_str(o, "action", action);
	r |= jank_json_add(o, "groups", groups);
	r |= jank_json_add(o, "components", comps);
	for (int g = 0; r == 0 && g < 2; g++)
		r = add_array(groups, group_json(c, g));
	for (size_t i = 0; r == 0 && i < n; i++)
		r = add_array(comps, row_json(c, &rows[i]));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
