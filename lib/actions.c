/* SPDX-License-Identifier: MIT */
/*
 * Action rules, thresholds, and the table of open actions.
 *
 * Open actions are found by (rule, key) through a hash of the key text, and
 * each rule also keeps its open actions in a list in begin order. Events come
 * in time order, so appending keeps the list sorted: the oldest open action,
 * the expired ones and the overdue ones are all at the front. Freed slots go
 * to a free list, so the steady state does not allocate.
 *
 * A rule's latest begun action (its list's tail) enters the hash map only
 * when another action of its rule begins: back-to-back actions end before,
 * so most are never hashed (the key of a begin is only looked for among
 * its rule's open actions: none, no hash).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "actions.h"
#include "array.h"
#include "hashmap.h"
#include "units.h"
#include "textsafe.h"

const char *const jank_threshold_kind_names[] = {
	[JANK_THRESHOLD_FIXED] = "fixed",
	[JANK_THRESHOLD_ADAPTIVE] = "adaptive",
	NULL,
};

JANK_STRTABLE_DEFINE(jank_threshold_kind, enum jank_threshold_kind, "?")

void jank_rule_init(struct jank_rule *r)
{
	memset(r, 0, sizeof(*r));
}

void jank_rule_fini(struct jank_rule *r)
{
	free(r->name);
	free(r->begin_event);
	free(r->end_event);
	for (unsigned i = 0; i < r->nkeys; i++)
		free(r->keys[i]);
	free(r->match_field);
	if (r->match_value.type == JANK_VALUE_STR)
		free((char *)r->match_value.s);
	jank_rule_init(r);
}

static int dup_str(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

/* What pairs events, an action's or a flow's: its key fields and its match. Nonzero: no memory. */
static int copy_pairing(char **dkeys, char *const *skeys, unsigned nkeys, char **dfield,
			const char *sfield, struct jank_value *dvalue,
			const struct jank_value *svalue)
{
	int r = dup_str(dfield, sfield);

	for (unsigned i = 0; i < nkeys; i++)
		r |= dup_str(&dkeys[i], skeys[i]);
	*dvalue = *svalue;
	if (svalue->type == JANK_VALUE_STR) {
		char *s = NULL;

		r |= dup_str(&s, svalue->s);
		dvalue->s = s;
	}
	return r;
}

int jank_rule_copy(struct jank_rule *dst, const struct jank_rule *src)
{
	int r = 0;

	jank_rule_init(dst);
	dst->threshold = src->threshold;
	dst->capture = src->capture;
	dst->nkeys = src->nkeys;
	r |= dup_str(&dst->name, src->name);
	r |= dup_str(&dst->begin_event, src->begin_event);
	r |= dup_str(&dst->end_event, src->end_event);
	r |= copy_pairing(dst->keys, src->keys, src->nkeys, &dst->match_field, src->match_field,
			  &dst->match_value, &src->match_value);
	if (r) {
		jank_rule_fini(dst);
		return -ENOMEM;
	}
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static bool is_identifier(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != ':')
			return false;
	return true;
}

/* "name, id" → keys[], *nkeys; the old keys are freed on success. */
static int set_keys(char **rkeys, unsigned *rnkeys, const char *list)
{
	char *copy = strdup(list), *save = NULL, *tok;
	char *keys[JANK_RULE_MAX_KEYS];
	unsigned n = 0;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	/* strtok_r would skip empty elements; "a,,b" must be an error. */
	for (tok = copy;; tok = save + 1) {
		char *k;

		save = strchr(tok, ',');
		if (save)
			*save = '\0';
		k = trim(tok);
		if (!is_identifier(k) || n == JANK_RULE_MAX_KEYS) {
			ret = -EINVAL;
			break;
		}
		keys[n] = strdup(k);
		if (!keys[n]) {
			ret = -ENOMEM;
			break;
		}
		n++;
		if (!save)
			break;
	}
	if (ret < 0) {
		while (n)
			free(keys[--n]);
	} else {
		for (unsigned i = 0; i < *rnkeys; i++)
			free(rkeys[i]);
		memcpy(rkeys, keys, n * sizeof(keys[0]));
		*rnkeys = n;
	}
	free(copy);
	return ret;
}

int jank_rule_set_keys(struct jank_rule *r, const char *list)
{
	return set_keys(r->keys, &r->nkeys, list);
}

/* `field == value` → *rfield, *rvalue (the old ones are freed on success). */
static int set_match(char **rfield, struct jank_value *rvalue, const char *expr)
{
	char *copy = strdup(expr), *op, *field, *val, *end;
	struct jank_value v = { .type = JANK_VALUE_NONE };
	int ret = -EINVAL;

	if (!copy)
		return -ENOMEM;
	op = strstr(copy, "==");
	if (!op)
		goto end;
	*op = '\0';
	field = trim(copy);
	val = trim(op + 2);
	if (!is_identifier(field) || !*val)
		goto end;
	if (val[0] == '"') {
		size_t n = strlen(val);

		if (n < 2 || val[n - 1] != '"')
			goto end;
		val[n - 1] = '\0';
		if (strchr(val + 1, '"'))
			goto end;
		v.type = JANK_VALUE_STR;
		v.s = strdup(val + 1);
		if (!v.s) {
			ret = -ENOMEM;
			goto end;
		}
	} else {
		errno = 0;
		v.i = strtoll(val, &end, 0);
		if (errno || *end)
			goto end;
		v.type = JANK_VALUE_INT;
	}
	free(*rfield);
	if (rvalue->type == JANK_VALUE_STR)
		free((char *)rvalue->s);
	*rfield = strdup(field);
	*rvalue = v;
	ret = *rfield ? 0 : -ENOMEM;
end:
	free(copy);
	return ret;
}

int jank_rule_set_match(struct jank_rule *r, const char *expr)
{
	return set_match(&r->match_field, &r->match_value, expr);
}

void jank_flow_rule_init(struct jank_flow_rule *r)
{
	memset(r, 0, sizeof(*r));
}

void jank_flow_rule_fini(struct jank_flow_rule *r)
{
	free(r->name);
	free(r->from_event);
	free(r->to_event);
	for (unsigned i = 0; i < r->nkeys; i++)
		free(r->keys[i]);
	for (unsigned i = 0; i < r->nto_keys; i++)
		free(r->to_keys[i]);
	free(r->match_field);
	if (r->match_value.type == JANK_VALUE_STR)
		free((char *)r->match_value.s);
	free(r->hosts);
	jank_flow_rule_init(r);
}

int jank_flow_rule_copy(struct jank_flow_rule *dst, const struct jank_flow_rule *src)
{
	int r = 0;

	jank_flow_rule_init(dst);
	dst->nkeys = src->nkeys > JANK_RULE_MAX_KEYS ? JANK_RULE_MAX_KEYS : src->nkeys;
	r |= dup_str(&dst->name, src->name);
	r |= dup_str(&dst->from_event, src->from_event);
	r |= dup_str(&dst->to_event, src->to_event);
	r |= copy_pairing(dst->keys, src->keys, dst->nkeys, &dst->match_field, src->match_field,
			  &dst->match_value, &src->match_value);
	dst->nto_keys = src->nto_keys > JANK_RULE_MAX_KEYS ? JANK_RULE_MAX_KEYS : src->nto_keys;
	for (unsigned i = 0; i < dst->nto_keys; i++)
		r |= dup_str(&dst->to_keys[i], src->to_keys[i]);
	r |= dup_str(&dst->hosts, src->hosts);
	if (r) {
		jank_flow_rule_fini(dst);
		return -ENOMEM;
	}
	return 0;
}

int jank_flow_rule_set_keys(struct jank_flow_rule *r, const char *list)
{
	return set_keys(r->keys, &r->nkeys, list);
}

int jank_flow_rule_set_to_keys(struct jank_flow_rule *r, const char *list)
{
	return set_keys(r->to_keys, &r->nto_keys, list);
}

char *const *jank_flow_rule_keys(const struct jank_flow_rule *r, int to)
{
	return to && r->nto_keys ? r->to_keys : r->keys;
}

bool jank_flow_rule_ok(const struct jank_flow_rule *r)
{
	return r->nto_keys == 0 || r->nto_keys == r->nkeys;
}

int jank_flow_rule_set_match(struct jank_flow_rule *r, const char *expr)
{
	return set_match(&r->match_field, &r->match_value, expr);
}

/* A rule's fields that one of its ends reads: its keys, then its match. */
static void add_fields(const char **seen, int *count, int max, char *const *keys, unsigned nkeys,
		       const char *match, bool *over)
{
	for (unsigned k = 0; k <= nkeys; k++) {
		const char *f = k < nkeys ? keys[k] : match;
		int j;

		if (!f || !strcmp(f, "tid"))
			continue;
		for (j = 0; j < *count && strcmp(seen[j], f); j++)
			;
		if (j < *count)
			continue;
		if (*count == max) {
			*over = true;
			return;
		}
		seen[(*count)++] = f;
	}
}

/*
 * The distinct key and match fields that rules[0..n) read on `event`; -1
 * past `max`. end_keys[i], when given and not NULL, are rule i's fields on
 * its end event (a flow's to-key).
 */
static int event_fields(const struct jank_rule *rules, char *const *const *end_keys, size_t n,
			const char *event, int max)
{
	const char *seen[JANK_MAX_FIELDS_PER_EVENT + 1];
	int count = 0;
	bool over = false;

	for (size_t i = 0; i < n && !over; i++) {
		const struct jank_rule *r = &rules[i];
		char *const *ek = end_keys && end_keys[i] ? end_keys[i] : r->keys;

		if (!strcmp(r->begin_event, event))
			add_fields(seen, &count, max, r->keys, r->nkeys, r->match_field, &over);
		if (!strcmp(r->end_event, event) && !over)
			add_fields(seen, &count, max, ek, r->nkeys, r->match_field, &over);
	}
	return over ? -1 : count;
}

static int rules_check(const struct jank_rule *rules, char *const *const *end_keys, size_t n,
		       size_t *bad, const char **event)
{
	for (size_t i = 0; i < n; i++) {
		for (int end = 0; end < 2; end++) {
			const char *ev = end ? rules[i].end_event : rules[i].begin_event;
			size_t users = 0;

			for (size_t j = 0; j <= i; j++)
				users += !strcmp(rules[j].begin_event, ev) +
					 !strcmp(rules[j].end_event, ev);
			if (users > JANK_MAX_RULES_PER_EVENT ||
			    event_fields(rules, end_keys, i + 1, ev, JANK_MAX_FIELDS_PER_EVENT) <
				    0) {
				*bad = i;
				*event = ev;
				return -E2BIG;
			}
		}
	}
	return 0;
}

int jank_rules_check(const struct jank_rule *rules, size_t n, size_t *bad, const char **event)
{
	return rules_check(rules, NULL, n, bad, event);
}

int jank_rules_flows_check(const struct jank_rule *rules, size_t nrules,
			   const struct jank_flow_rule *flows, size_t nflows, size_t *bad,
			   const char **event)
{
	struct jank_rule *v = malloc((nrules + nflows + 1) * sizeof(*v));
	char *const **end_keys = calloc(nrules + nflows + 1, sizeof(*end_keys));
	int r = -ENOMEM;

	if (!v || !end_keys)
		goto out;
	if (nrules)
		memcpy(v, rules, nrules * sizeof(*v)); /* shallow: only read */
	for (size_t i = 0; i < nflows; i++) {
		struct jank_rule *f = &v[nrules + i];

		jank_rule_init(f);
		f->name = flows[i].name;
		f->begin_event = flows[i].from_event;
		f->end_event = flows[i].to_event;
		f->nkeys = flows[i].nkeys;
		memcpy(f->keys, flows[i].keys, sizeof(f->keys));
		f->match_field = flows[i].match_field;
		end_keys[nrules + i] = jank_flow_rule_keys(&flows[i], 1);
	}
	r = rules_check(v, end_keys, nrules + nflows, bad, event);
out:
	free(end_keys);
	free(v);
	return r;
}

/*
 * A decimal number, digits with at most one point ("99", "99.9", "1.5"):
 * not strtod's whole language (nan, inf, exponents, hexadecimal). Returns
 * the end of the number, or NULL.
 */
static const char *plain_decimal(const char *s, double *out)
{
	size_t digits = strspn(s, "0123456789"), n = digits;
	char buf[32], *end;

	if (s[n] == '.')
		n += 1 + strspn(s + n + 1, "0123456789");
	if (!digits || n >= sizeof(buf) || s[n - 1] == '.')
		return NULL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtod(buf, &end);
	return *end ? NULL : s + n;
}

int jank_threshold_parse(const char *s, struct jank_threshold *t)
{
	memset(t, 0, sizeof(*t));
	while (isspace((unsigned char)*s))
		s++;
	if (*s == 'p' || *s == 'P') {
		const char *end;
		double pct, factor = 1.0;

		end = plain_decimal(s + 1, &pct);
		if (!end || !(pct > 0 && pct < 100))
			return -EINVAL;
		while (isspace((unsigned char)*end))
			end++;
		if (*end == '*') {
			end = plain_decimal(end + 1, &factor);
			if (!end || !(factor > 0 && factor <= JANK_THRESHOLD_MAX_FACTOR))
				return -EINVAL;
		}
		while (isspace((unsigned char)*end))
			end++;
		if (*end)
			return -EINVAL;
		t->kind = JANK_THRESHOLD_ADAPTIVE;
		t->percentile = pct;
		t->factor = factor;
		t->warmup = 100;
		return 0;
	}
	t->kind = JANK_THRESHOLD_FIXED;
	return jank_units_parse_duration(s, &t->ns) < 0 || t->ns <= 0 ? -EINVAL : 0;
}

/* A duration in ns from a double that may exceed int64_t (a large factor). */
static int64_t clamp_ns(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 9.2e18)
		return INT64_MAX;
	return (int64_t)v;
}

int64_t jank_threshold_current(const struct jank_threshold *t, const struct jank_histogram *h)
{
	switch (t->kind) {
	case JANK_THRESHOLD_FIXED:
		return t->ns;
	case JANK_THRESHOLD_ADAPTIVE:
		if (h->count < t->warmup || h->count == 0)
			return t->ns;
		return clamp_ns((double)jank_histogram_percentile(h, t->percentile) * t->factor);
	}
	return 0;
}

/* --- open actions ------------------------------------------------------ */

#define FREE_LIST_MAX 1024

struct rule_list {
	struct jank_action *head;
	struct jank_action *tail;
};

/* bytes first: jank_action_table_bytes() (actions.h) reads it in place. */
struct jank_action_table {
	size_t bytes;		     /* the record, its lists, map and actions, kept current */
	struct jank_hashmap by_hash; /* hash → first action of the chain */
	struct rule_list *rules;
	uint32_t nrules;
	struct jank_action *free_list;
	size_t nfree;
	size_t count;
	jank_action_close_fn close_hook;
	void *close_data;
};
_Static_assert(offsetof(struct jank_action_table, bytes) == 0, "actions.h reads it in place");

_Static_assert(JANK_KEY_LEN > 64, "jank_action_open_n() zeroes the key in two parts");
/* jank_action_open_n() sets each member of a reused slot: a new member needs its store there. */
_Static_assert(sizeof(struct jank_action) == 72 + JANK_KEY_LEN + 16,
	       "struct jank_action changed: see jank_action_open_n()");

/* After what may grow the map (from `before` bytes): its growth in the table's count. */
static void map_grown(struct jank_action_table *t, size_t before)
{
	t->bytes += jank_hashmap_bytes(&t->by_hash) - before;
}

/*
 * The key's bytes eight at a time (a byte at a time was a tenth of the
 * engine's cost on action-heavy traces). Only the table's chains depend on
 * it: the lists that reports and expiry walk are in begin order.
 */
static uint64_t key_hash(uint32_t rule, const char *key, size_t n)
{
	uint64_t h = (0x9e3779b97f4a7c15ull * (rule + 1ull)) ^ n, w;

	for (; n >= 8; key += 8, n -= 8) {
		memcpy(&w, key, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (w = 0; n; n--)
		w = w << 8 | (unsigned char)key[n - 1];
	return jank_hash64(h ^ w);
}

/* A key as the table keeps it: at most JANK_KEY_LEN - 1 bytes, cut on a character boundary. */
static size_t key_len(const char *key)
{
	size_t n = strnlen(key, JANK_KEY_LEN - 1);

	return key[n] ? jank_utf8_cut(key, n) : n;
}

struct jank_action_table *jank_action_table_new(uint32_t nrules)
{
	struct jank_action_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->rules = calloc(nrules ? nrules : 1, sizeof(*t->rules));
	if (!t->rules) {
		free(t);
		return NULL;
	}
	t->nrules = nrules;
	jank_hashmap_init(&t->by_hash);
	t->bytes = sizeof(*t) + nrules * sizeof(*t->rules);
	return t;
}

void jank_action_table_free(struct jank_action_table *t)
{
	if (!t)
		return;
	for (uint32_t r = 0; r < t->nrules; r++) {
		struct jank_action *a = t->rules[r].head, *n;

		for (; a; a = n) {
			n = a->next;
			if (t->close_hook)
				t->close_hook(a, t->close_data);
			free(a);
		}
	}
	while (t->free_list) {
		struct jank_action *n = t->free_list->next;

		free(t->free_list);
		t->free_list = n;
	}
	jank_hashmap_fini(&t->by_hash);
	free(t->rules);
	free(t);
}

/* Whether the action's key is key[0..n) (a cut key: key_len()). */
static bool key_is(const struct jank_action *a, const char *key, size_t n)
{
	return memcmp(a->key, key, n) == 0 && !a->key[n];
}

/*
 * key[0..n) is a cut key (key_len()). The first action of its chain is
 * *first (NULL: none). Only the actions in the map.
 */
static struct jank_action *find_hashed(struct jank_action_table *t, uint32_t rule, const char *key,
				       size_t n, uint64_t h, struct jank_action **first)
{
	struct jank_hashmap_slot *s = jank_hashmap_slot(&t->by_hash, h);

	*first = s ? s->value : NULL;
	for (struct jank_action *a = *first; a; a = a->chain)
		if (a->rule == rule && key_is(a, key, n))
			return a;
	return NULL;
}

/*
 * Put the rule's latest begun action in the map, if it is not: before
 * another action of its rule begins. The map has room already (the action
 * reserved it when it began): this does not allocate.
 */
static int hash_tail(struct jank_action_table *t, struct rule_list *l)
{
	struct jank_action *a = l->tail;
	struct jank_hashmap_slot *s;
	size_t map = jank_hashmap_bytes(&t->by_hash);

	if (!a || !a->unhashed)
		return 0;
	a->hash = key_hash(a->rule, a->key, strnlen(a->key, JANK_KEY_LEN - 1));
	s = jank_hashmap_slot(&t->by_hash, a->hash);
	if (s) {
		a->chain = s->value; /* another key with its hash */
		s->value = a;
	} else if (jank_hashmap_put(&t->by_hash, a->hash, a) < 0) {
		return -ENOMEM;
	}
	map_grown(t, map);
	a->unhashed = false;
	return 0;
}

struct jank_action *jank_action_find_n(struct jank_action_table *t, uint32_t rule, const char *key,
				       size_t n)
{
	struct jank_action *first, *tail;

	if (rule >= t->nrules)
		return NULL;
	tail = t->rules[rule].tail;
	if (tail && tail->unhashed && key_is(tail, key, n))
		return tail;
	return find_hashed(t, rule, key, n, key_hash(rule, key, n), &first);
}

struct jank_action *jank_action_find(struct jank_action_table *t, uint32_t rule, const char *key)
{
	return jank_action_find_n(t, rule, key, key_len(key));
}

static void list_unlink(struct jank_action_table *t, struct jank_action *a)
{
	struct rule_list *l = &t->rules[a->rule];

	if (a->prev)
		a->prev->next = a->next;
	else
		l->head = a->next;
	if (a->next)
		a->next->prev = a->prev;
	else
		l->tail = a->prev;
	a->prev = a->next = NULL;
}

static void chain_unlink(struct jank_action_table *t, struct jank_action *a)
{
	struct jank_hashmap_slot *s = jank_hashmap_slot(&t->by_hash, a->hash);
	struct jank_action *first = s ? s->value : NULL;

	if (first == a) {
		size_t map = jank_hashmap_bytes(&t->by_hash);

		if (a->chain) /* a hash shared by two keys: rare; put() as ever (it may grow) */
			jank_hashmap_put(&t->by_hash, a->hash, a->chain);
		else
			jank_hashmap_remove_slot(&t->by_hash, s);
		map_grown(t, map);
		return;
	}
	for (; first; first = first->chain)
		if (first->chain == a) {
			first->chain = a->chain;
			return;
		}
}

void jank_action_table_set_close_hook(struct jank_action_table *t, jank_action_close_fn fn,
				      void *data)
{
	t->close_hook = fn;
	t->close_data = data;
}

void jank_action_close(struct jank_action_table *t, struct jank_action *a)
{
	if (t->close_hook)
		t->close_hook(a, t->close_data);
	if (!a->unhashed)
		chain_unlink(t, a);
	list_unlink(t, a);
	t->count--;
	/* Keep a few slots for reuse; give the rest back so that memory follows load. */
	if (t->nfree >= FREE_LIST_MAX) {
		free(a);
		t->bytes -= sizeof(*a);
		return;
	}
	a->next = t->free_list;
	t->free_list = a;
	t->nfree++;
}

struct jank_action *jank_action_open_n(struct jank_action_table *t, uint32_t rule, const char *key,
				       size_t n, int64_t begin, bool *replaced)
{
	struct jank_action *first, *a = NULL;
	struct rule_list *l;
	size_t map;

	if (rule >= t->nrules)
		return NULL;
	l = &t->rules[rule];
	/* Only an open action of its rule can have the key: none, no hash. */
	if (l->tail) {
		if (hash_tail(t, l) < 0)
			return NULL;
		a = find_hashed(t, rule, key, n, key_hash(rule, key, n), &first);
	}
	*replaced = a != NULL;
	if (a)
		jank_action_close(t, a);
	if (t->free_list) {
		a = t->free_list;
		t->free_list = a->next;
		t->nfree--;
	} else {
		a = malloc(sizeof(*a));
		if (!a)
			return NULL;
		t->bytes += sizeof(*a);
	}
	/*
	 * The map's room for every open action, as if each were in it
	 * (jank_hashmap_reserve()'s test first, inline: it grows rarely).
	 */
	if ((t->count + 1) * 4 > t->by_hash.cap * 3) {
		map = jank_hashmap_bytes(&t->by_hash);
		if (jank_hashmap_reserve(&t->by_hash, t->count) < 0) {
			a->next = t->free_list;
			t->free_list = a;
			t->nfree++;
			return NULL;
		}
		map_grown(t, map);
	}
	/*
	 * Member by member, the key zeroed past its text (the engine keeps
	 * its values there): fixed-size stores, where one memset() of the
	 * whole slot was a string instruction at every begin.
	 */
	a->rule = rule;
	memset(a->key_end, 0, sizeof(a->key_end));
	a->hash = 0;
	a->begin = begin;
	a->tid = -1;
	a->pid = -1;
	a->serial = 0;
	a->overdue_reported = false;
	a->key_n = 0;
	a->unhashed = true;
	a->vertex = 0; /* the union's largest member: span NULL too */
	memset(a->comm, 0, sizeof(a->comm));
	/* Two parts: GCC makes a single one of this size a `rep stos` too. */
	memset(a->key, 0, 64);
	memset(a->key + 64, 0, sizeof(a->key) - 64);
	jank_copy_short(a->key, key, n);
	a->chain = NULL;
	a->next = NULL;
	a->prev = l->tail;
	if (l->tail)
		l->tail->next = a;
	else
		l->head = a;
	l->tail = a;
	t->count++;
	return a;
}

struct jank_action *jank_action_open(struct jank_action_table *t, uint32_t rule, const char *key,
				     int64_t begin, bool *replaced)
{
	return jank_action_open_n(t, rule, key, key_len(key), begin, replaced);
}

size_t jank_action_count(const struct jank_action_table *t)
{
	return t->count;
}

struct jank_action *jank_action_oldest(const struct jank_action_table *t)
{
	struct jank_action *best = NULL;

	for (uint32_t r = 0; r < t->nrules; r++) {
		struct jank_action *a = t->rules[r].head;

		if (a && (!best || a->begin < best->begin))
			best = a;
	}
	return best;
}

struct jank_action *jank_action_first(const struct jank_action_table *t, uint32_t rule)
{
	return rule < t->nrules ? t->rules[rule].head : NULL;
}

struct jank_action *jank_action_last(const struct jank_action_table *t, uint32_t rule)
{
	return rule < t->nrules ? t->rules[rule].tail : NULL;
}
