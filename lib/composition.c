/* SPDX-License-Identifier: MIT */
/* What a rule's actions wait on, with a bounded number of names (see composition.h). */
#include <stdio.h>
#include <string.h>
#include "composition.h"
#include "textsafe.h"

static const char *const class_names[JANK_CLASS_COUNT] = {
	[JANK_CLASS_NORMAL] = "normal",
	[JANK_CLASS_SLOW] = "slow",
};

const char *jank_composition_class_name(enum jank_composition_class c)
{
	return (unsigned)c < JANK_CLASS_COUNT ? class_names[c] : "?";
}

int jank_composition_class_from_name(const char *s)
{
	for (int i = 0; i < JANK_CLASS_COUNT; i++)
		if (s && !strcmp(s, class_names[i]))
			return i;
	return -1;
}

void jank_composition_init(struct jank_composition *c, unsigned top)
{
	memset(c, 0, sizeof(*c));
	c->top = top > JANK_COMPOSITION_TOP_MAX ? JANK_COMPOSITION_TOP_MAX : top;
	memcpy(c->v[0].on, JANK_COMPOSITION_OTHER, sizeof(JANK_COMPOSITION_OTHER));
	c->n = 1;
}

void jank_composition_name(char *buf, size_t len, const char *process, const char *thread)
{
	char raw[2 * JANK_COMM_LEN + 1], clean[JANK_COMPOSITION_NAME_LEN * 2];
	size_t n = 0;

	process = process ? process : "";
	thread = thread ? thread : "";
	if (!len)
		return;
	if (!*process && !*thread)
		snprintf(raw, sizeof(raw), "?");
	else if (!*process || !strcmp(process, thread))
		snprintf(raw, sizeof(raw), "%.*s", JANK_COMM_LEN, thread);
	else if (!*thread)
		snprintf(raw, sizeof(raw), "%.*s", JANK_COMM_LEN, process);
	else
		snprintf(raw, sizeof(raw), "%.*s/%.*s", JANK_COMM_LEN - 1, process,
			 JANK_COMM_LEN - 1, thread);
	if (!strcmp(raw, JANK_COMPOSITION_OTHER))
		snprintf(raw, sizeof(raw), "%s/%s", JANK_COMPOSITION_OTHER, JANK_COMPOSITION_OTHER);
	/* Control characters are as bad as invalid bytes in a label: both become U+FFFD. */
	for (char *p = raw; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = (char)0xff;
	jank_utf8_sanitize(clean, sizeof(clean), raw, strlen(raw), 0);
	/* The C1 controls (U+0080..U+009F, valid UTF-8) too. */
	for (const char *p = clean; *p && n + 4 <= len; p++) {
		if ((unsigned char)p[0] == 0xc2 && (unsigned char)p[1] >= 0x80 &&
		    (unsigned char)p[1] <= 0x9f) {
			memcpy(buf + n, "\xef\xbf\xbd", 3);
			n += 3;
			p++;
			continue;
		}
		buf[n++] = *p;
	}
	n = jank_utf8_cut(buf, n);
	buf[n] = '\0';
}

static void halve(struct jank_composition *c)
{
	for (size_t i = 1; i < c->n; i++)
		c->score[i] /= 2;
	for (size_t i = 0; i < c->ncands; i++)
		c->cands[i].score /= 2;
}

/* The kept name with the smallest score (0 when none is kept). */
static size_t smallest(const struct jank_composition *c)
{
	size_t m = 0;

	for (size_t i = 1; i < c->n; i++)
		if (!m || c->score[i] < c->score[m])
			m = i;
	return m;
}

/* The candidate of that name, made (replacing the smallest when full) when new. */
static struct jank_composition_cand *cand(struct jank_composition *c, const char *on, uint64_t ns)
{
	struct jank_composition_cand *low = NULL;

	for (size_t i = 0; i < c->ncands; i++) {
		if (!strcmp(c->cands[i].on, on))
			return &c->cands[i];
		if (!low || c->cands[i].score < low->score)
			low = &c->cands[i];
	}
	if (c->ncands < JANK_COMPOSITION_CANDS)
		low = &c->cands[c->ncands++];
	else if (low->score >= (double)ns)
		return NULL;
	memset(low, 0, sizeof(*low));
	memcpy(low->on, on, strnlen(on, sizeof(low->on) - 1));
	return low;
}

/* Kept name m gives its place to candidate k, which becomes a candidate in turn. */
static void promote(struct jank_composition *c, size_t m, struct jank_composition_cand *k)
{
	struct jank_composition_cand out;

	memcpy(out.on, c->v[m].on, sizeof(out.on));
	out.score = c->score[m];
	memset(&c->v[m], 0, sizeof(c->v[m]));
	memcpy(c->v[m].on, k->on, sizeof(k->on));
	c->score[m] = k->score;
	*k = out;
}

void jank_composition_add_time(struct jank_composition *c, enum jank_composition_class cls,
			       const char *on, enum jank_state state, uint64_t ns)
{
	struct jank_composition_cand *k;
	size_t i, m;

	if (!c->top || (unsigned)cls >= JANK_CLASS_COUNT || (unsigned)state >= JANK_STATE_COUNT)
		return;
	for (i = 1; i < c->n; i++)
		if (!strcmp(c->v[i].on, on))
			break;
	if (i == c->n && c->n <= c->top) {
		memset(&c->v[i], 0, sizeof(c->v[i]));
		memcpy(c->v[i].on, on, strnlen(on, sizeof(c->v[i].on) - 1));
		c->score[i] = 0;
		c->n++;
	}
	if (i < c->n) {
		c->v[i].ns[cls][state] += ns;
		c->score[i] += (double)ns;
		return;
	}
	c->v[0].ns[cls][state] += ns;
	k = cand(c, on, ns);
	if (!k)
		return;
	k->score += (double)ns;
	m = smallest(c);
	if (m && k->score > 2 * c->score[m])
		promote(c, m, k);
}

void jank_composition_add(struct jank_composition *c, enum jank_composition_class cls,
			  const struct jank_profile *pf)
{
	char on[JANK_COMPOSITION_NAME_LEN];

	if (!c->top || (unsigned)cls >= JANK_CLASS_COUNT)
		return;
	for (size_t i = 0; i < pf->n; i++) {
		const struct jank_comp *k = &pf->comps[i];

		if (k->key.kind != JANK_COMP_THREAD || k->ns <= 0)
			continue;
		jank_composition_name(on, sizeof(on), k->process, k->thread);
		jank_composition_add_time(c, cls, on, (enum jank_state)k->key.state,
					  (uint64_t)k->ns);
	}
	c->samples[cls]++;
	if ((c->samples[0] + c->samples[1]) % JANK_COMPOSITION_HALVE == 0)
		halve(c);
}
