/* SPDX-License-Identifier: MIT */
/* The verdicts an input alerted (see alerted.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "alerted.h"

void jank_alerted_init(struct jank_alerted *a)
{
	memset(a, 0, sizeof(*a));
}

/*
 * "begin\nkey\nrule": what names an action, whichever worker judged it. The
 * begin and the key (under JANK_KEY_LEN) come first: only a rule name, which
 * has no length limit, may be cut.
 */
static void signature(const struct jank_verdict *v, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRId64 "\n%s\n%s", v->begin, v->key ? v->key : "",
		 v->rule && v->rule->name ? v->rule->name : "?");
}

static bool overdue_seen(struct jank_alerted *a, const char *sig)
{
	for (size_t i = 0; i < a->noverdue && i < JANK_ALERTED_OVERDUE; i++)
		if (!strcmp(a->overdue[i], sig))
			return true;
	memcpy(a->overdue[a->noverdue++ % JANK_ALERTED_OVERDUE], sig, JANK_ALERTED_SIG_LEN);
	return false;
}

static bool completed_seen(struct jank_alerted *a, const struct jank_verdict *v, const char *sig)
{
	if (a->last[0] && a->end - v->end < JANK_ALERTED_REPLAY_NS &&
	    (v->end < a->end || (v->end == a->end && !strcmp(sig, a->last))))
		return true;
	a->end = v->end;
	memcpy(a->last, sig, JANK_ALERTED_SIG_LEN);
	return false;
}

bool jank_alerted_check(struct jank_alerted *a, const struct jank_verdict *v)
{
	char sig[JANK_ALERTED_SIG_LEN] = "";
	bool seen;

	signature(v, sig, sizeof(sig));
	seen = v->kind == JANK_VERDICT_OVERDUE ? overdue_seen(a, sig) : completed_seen(a, v, sig);
	a->duplicates += seen;
	return seen;
}
