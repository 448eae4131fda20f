/* SPDX-License-Identifier: MIT */
/* The recent history of each rule's composition, a bar per interval (comp-history.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "comp-history.h"

/* One name's last slow ns per state, on one input. */
struct base_entry {
	char on[JANK_COMPOSITION_NAME_LEN];
	uint64_t ns[JANK_STATE_COUNT];
};

/* One input's last values of one rule. */
struct base {
	char *input;
	struct base_entry *v;
	size_t n;
};

struct jank_comp_rule {
	char *action;
	struct jank_comp_bar *bars; /* a ring of JANK_COMP_HISTORY_BARS; NULL: all zero so far */
	size_t head;		    /* where the next bar goes */
	size_t count;
	struct jank_comp_bar cur; /* the round's growth */
	char names[JANK_COMP_HISTORY_NAMES + 1][JANK_COMPOSITION_NAME_LEN];
	struct base *bases;
	size_t nbases;
};

struct jank_comp_history {
	struct jank_comp_rule **rules;
	size_t nrules;
	char **seen; /* the inputs named in this round */
	size_t nseen;
	uint64_t rounds;
};

static const struct jank_comp_bar zero_bar;

/* A copy of s cut to a name's length, NUL-terminated. */
static void copy_name(char *to, const char *s)
{
	size_t n = strnlen(s, JANK_COMPOSITION_NAME_LEN - 1);

	memcpy(to, s, n);
	to[n] = '\0';
}

static bool same_name(const char *a, const char *b)
{
	return !strncmp(a, b, JANK_COMPOSITION_NAME_LEN - 1);
}

static void base_fini(struct base *b)
{
	free(b->input);
	free(b->v);
}

static void rule_free(struct jank_comp_rule *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nbases; i++)
		base_fini(&r->bases[i]);
	free(r->bases);
	free(r->bars);
	free(r->action);
	free(r);
}

static struct jank_comp_rule *rule_new(const char *action)
{
	struct jank_comp_rule *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->action = strdup(action);
	if (!r->action) {
		free(r);
		return NULL;
	}
	copy_name(r->names[0], JANK_COMPOSITION_OTHER);
	return r;
}

struct jank_comp_history *jank_comp_history_new(void)
{
	return calloc(1, sizeof(struct jank_comp_history));
}

static void seen_clear(struct jank_comp_history *h)
{
	for (size_t i = 0; i < h->nseen; i++)
		free(h->seen[i]);
	free(h->seen);
	h->seen = NULL;
	h->nseen = 0;
}

void jank_comp_history_free(struct jank_comp_history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nrules; i++)
		rule_free(h->rules[i]);
	free(h->rules);
	seen_clear(h);
	free(h);
}

static struct jank_comp_rule *find(const struct jank_comp_history *h, const char *action)
{
	for (size_t i = 0; h && i < h->nrules; i++)
		if (!strcmp(h->rules[i]->action, action))
			return h->rules[i];
	return NULL;
}

int jank_comp_history_set_rules(struct jank_comp_history *h, const char *const *names, size_t n)
{
	struct jank_comp_rule **v = calloc(n ? n : 1, sizeof(*v));
	size_t nv = 0;
	int r = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct jank_comp_rule *x = NULL;
		bool dup = false;

		for (size_t j = 0; j < nv && !dup; j++)
			dup = !strcmp(v[j]->action, names[i]);
		if (dup)
			continue;
		/* A rule kept takes its bars along; its old slot is emptied. */
		for (size_t j = 0; j < h->nrules && !x; j++) {
			if (h->rules[j] && !strcmp(h->rules[j]->action, names[i])) {
				x = h->rules[j];
				h->rules[j] = NULL;
			}
		}
		if (!x)
			x = rule_new(names[i]);
		if (!x) {
			r = -ENOMEM;
			continue;
		}
		v[nv++] = x;
	}
	for (size_t j = 0; j < h->nrules; j++)
		rule_free(h->rules[j]);
	free(h->rules);
	h->rules = v;
	h->nrules = nv;
	return r;
}

void jank_comp_history_begin(struct jank_comp_history *h)
{
	seen_clear(h);
	for (size_t i = 0; i < h->nrules; i++)
		memset(&h->rules[i]->cur, 0, sizeof(h->rules[i]->cur));
}

static bool was_seen(const struct jank_comp_history *h, const char *input)
{
	for (size_t i = 0; i < h->nseen; i++)
		if (!strcmp(h->seen[i], input))
			return true;
	return false;
}

int jank_comp_history_input(struct jank_comp_history *h, const char *input)
{
	char **v;

	if (was_seen(h, input))
		return 0;
	v = realloc(h->seen, (h->nseen + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->seen = v;
	v[h->nseen] = strdup(input);
	if (!v[h->nseen])
		return -ENOMEM;
	h->nseen++;
	return 0;
}

/* Whether column i had time in any bar kept, or in the round's. */
static bool column_used(const struct jank_comp_rule *r, size_t i)
{
	if (r->cur.on[i])
		return true;
	for (size_t k = 0; r->bars && k < r->count; k++)
		if (r->bars[k].on[i])
			return true;
	return false;
}

/* The column of name `on`: its own, a free one it takes, or 0 ("other"). */
static size_t column(struct jank_comp_rule *r, const char *on)
{
	size_t free_col = 0;

	if (same_name(on, JANK_COMPOSITION_OTHER))
		return 0;
	for (size_t i = 1; i <= JANK_COMP_HISTORY_NAMES; i++)
		if (r->names[i][0] && same_name(r->names[i], on))
			return i;
	for (size_t i = 1; i <= JANK_COMP_HISTORY_NAMES && !free_col; i++)
		if (!r->names[i][0])
			free_col = i;
	for (size_t i = 1; i <= JANK_COMP_HISTORY_NAMES && !free_col; i++)
		if (!column_used(r, i))
			free_col = i;
	if (free_col)
		copy_name(r->names[free_col], on);
	return free_col;
}

static struct base *base_of(struct jank_comp_rule *r, const char *input)
{
	struct base *v;

	for (size_t i = 0; i < r->nbases; i++)
		if (!strcmp(r->bases[i].input, input))
			return &r->bases[i];
	v = realloc(r->bases, (r->nbases + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->bases = v;
	v = &r->bases[r->nbases];
	memset(v, 0, sizeof(*v));
	v->input = strdup(input);
	if (!v->input)
		return NULL;
	r->nbases++;
	return v;
}

static const struct base_entry *base_find(const struct base *b, const char *on)
{
	for (size_t i = 0; i < b->n; i++)
		if (same_name(b->v[i].on, on))
			return &b->v[i];
	return NULL;
}

int jank_comp_history_add(struct jank_comp_history *h, const char *input, const char *action,
			  const struct jank_composition_entry *v, size_t n)
{
	struct jank_comp_rule *r = find(h, action);
	struct base_entry *nb;
	struct base *b;
	size_t nn = 0;

	if (!r)
		return 0;
	if (n > JANK_COMP_HISTORY_MAX_BASE)
		n = JANK_COMP_HISTORY_MAX_BASE;
	b = base_of(r, input);
	nb = calloc(n ? n : 1, sizeof(*nb));
	if (!b || !nb) {
		free(nb);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const uint64_t *ns = v[i].ns[JANK_CLASS_SLOW];
		const struct base_entry *old = base_find(b, v[i].on);
		uint64_t grew = 0, by[JANK_STATE_COUNT];
		bool dup = false;

		/* A name twice: its first entry counts. */
		for (size_t j = 0; j < nn && !dup; j++)
			dup = same_name(nb[j].on, v[i].on);
		if (dup)
			continue;
		for (int s = 0; s < JANK_STATE_COUNT; s++) {
			by[s] = old && old->ns[s] >= ns[s] ? 0 : ns[s] - (old ? old->ns[s] : 0);
			grew += by[s];
		}
		copy_name(nb[nn].on, v[i].on);
		memcpy(nb[nn].ns, ns, sizeof(nb[nn].ns));
		nn++;
		if (!grew)
			continue;
		for (int s = 0; s < JANK_STATE_COUNT; s++)
			r->cur.state[s] += by[s];
		r->cur.on[column(r, v[i].on)] += grew;
	}
	free(b->v);
	b->v = nb;
	b->n = nn;
	return 0;
}

/* Forget the bases of the inputs not named in the round. */
static void prune_bases(const struct jank_comp_history *h, struct jank_comp_rule *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nbases; i++) {
		if (was_seen(h, r->bases[i].input))
			r->bases[k++] = r->bases[i];
		else
			base_fini(&r->bases[i]);
	}
	r->nbases = k;
}

void jank_comp_history_end(struct jank_comp_history *h)
{
	for (size_t i = 0; i < h->nrules; i++) {
		struct jank_comp_rule *r = h->rules[i];
		bool some = jank_comp_bar_total(&r->cur) > 0;

		prune_bases(h, r);
		if (some && !r->bars) {
			r->bars = calloc(JANK_COMP_HISTORY_BARS, sizeof(*r->bars));
			/* Out of memory: the bars stay zero, the bases go on. */
		}
		if (r->bars)
			r->bars[r->head] = r->cur;
		r->head = (r->head + 1) % JANK_COMP_HISTORY_BARS;
		if (r->count < JANK_COMP_HISTORY_BARS)
			r->count++;
		memset(&r->cur, 0, sizeof(r->cur));
	}
	seen_clear(h);
	h->rounds++;
}

uint64_t jank_comp_history_rounds(const struct jank_comp_history *h)
{
	return h ? h->rounds : 0;
}

size_t jank_comp_history_count(const struct jank_comp_history *h)
{
	return h ? h->nrules : 0;
}

const struct jank_comp_rule *jank_comp_history_get(const struct jank_comp_history *h, size_t i)
{
	return h && i < h->nrules ? h->rules[i] : NULL;
}

const struct jank_comp_rule *jank_comp_history_find(const struct jank_comp_history *h,
						    const char *action)
{
	return find(h, action);
}

const char *jank_comp_history_action(const struct jank_comp_rule *r)
{
	return r->action;
}

size_t jank_comp_history_bars(const struct jank_comp_rule *r)
{
	return r->count;
}

const struct jank_comp_bar *jank_comp_history_bar(const struct jank_comp_rule *r, size_t i)
{
	if (i >= r->count)
		return NULL;
	if (!r->bars)
		return &zero_bar;
	return &r->bars[(r->head + JANK_COMP_HISTORY_BARS - r->count + i) % JANK_COMP_HISTORY_BARS];
}

const char *jank_comp_history_name(const struct jank_comp_rule *r, size_t i)
{
	return i <= JANK_COMP_HISTORY_NAMES ? r->names[i] : "";
}

uint64_t jank_comp_bar_total(const struct jank_comp_bar *b)
{
	uint64_t t = 0;

	for (int s = 0; s < JANK_STATE_COUNT; s++)
		t += b->state[s];
	return t;
}
