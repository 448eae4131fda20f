/* SPDX-License-Identifier: MIT */
/*
 * A critical path's breakdown as JSON (the path's own JSON, its segments and
 * jankctl critpath's object, is verdict-json.c's, which calls this file and
 * is not called by it), and the path as text: the story of the path ("tid 4312
 * (worker) running 2.10 ms → waiting for tid 77 (db): running 18.2 ms →
 * ..."), consecutive segments of one thread in one state told as one step,
 * then where the time went, per state, per thread, per lock and per
 * function. A verdict's text (format-verdict.c) tells its path the same
 * way.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "format-int.h"
#include "format.h"
#include "json-util.h"
#include "textsafe.h"
#include "units.h"

#define STORY_STEPS_TEXT       20
#define BREAKDOWN_THREADS_TEXT 8

/* ---- Functions: a stack, the breakdown's, by name ---- */

#define STACK_NAME_CHARS JANK_FORMAT_STACK_NAME_CHARS

const char *format_stack(const struct jank_path *p, uint32_t stack, unsigned max, char *buf,
			 size_t len)
{
	uint32_t n;
	const uint32_t *f = jank_path_stack_of(p, stack, &n);
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (uint32_t k = 0; f && k < n && used < len; k++) {
		const struct jank_frame *fr = jank_path_frame_of(p, f[n - 1 - k]);
		char name[JANK_TEXT_SIZE(STACK_NAME_CHARS)];

		if (k == max) {
			used += (size_t)snprintf(buf + used, len - used, " ← …");
			break;
		}
		/* Function names come from the traced binaries: escaped, cut (textsafe.h). */
		jank_text_escape(name, sizeof(name), fr ? fr->name : "?",
				 strlen(fr ? fr->name : "?"), STACK_NAME_CHARS);
		used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? " ← " : "", name);
	}
	if (used >= len && len) /* cut: not inside a character */
		buf[jank_utf8_cut(buf, len - 1)] = '\0';
	return buf;
}

/* The name of a host label of p ("?" when unknown). */
static const char *format_host(const struct jank_path *p, uint32_t host)
{
	const struct jank_label *l = p ? jank_path_label_of(p, host) : NULL;

	return l ? l->name : "?";
}

const char *format_function(const struct jank_breakdown *b, size_t i)
{
	const struct jank_frame *fr = b && b->path && i < b->nfunctions
					      ? jank_path_frame_of(b->path, b->functions[i].frame)
					      : NULL;

	return fr ? fr->name : "";
}

const char *jank_format_top_function(const struct jank_breakdown *b, int64_t *ns)
{
	if (!b || !b->nfunctions || !format_function(b, 0)[0])
		return NULL;
	if (ns)
		*ns = b->functions[0].ns;
	return format_function(b, 0);
}

/* ---- JSON ---- */

struct json_object *jank_format_breakdown_json(const struct jank_breakdown *b)
{
	struct json_object *o = json_object_new_object();
	struct json_object *states = json_object_new_object();
	struct json_object *threads = json_object_new_array();
	int r = 0;

	if (!o || !states || !threads)
		goto nomem;
	for (int s = 0; b && s < JANK_STATE_COUNT; s++)
		if (b->per_state[s])
			r |= jank_json_add_i64(states, jank_state_name(s), b->per_state[s]);
	for (size_t i = 0; b && i < b->n; i++) {
		const struct jank_breakdown_item *it = &b->items[i];
		struct json_object *t = json_object_new_object();

		if (!t || json_object_array_add(threads, t) != 0) {
			json_object_put(t);
			goto nomem;
		}
		if (it->host)
			r |= jank_json_add_str(t, "host", format_host(b->path, it->host));
		r |= jank_json_add_i64(t, "tid", it->tid);
		r |= jank_json_add_str(t, "comm", it->comm);
		r |= jank_json_add_str(t, "state", jank_state_name(it->state));
		r |= jank_json_add_i64(t, "ns", it->ns);
	}
	r |= jank_json_add(o, "states", states);
	states = NULL;
	r |= jank_json_add(o, "threads", threads);
	threads = NULL;
	if (b && b->nlocks) {
		struct json_object *locks = json_object_new_array();
		char buf[24];

		r |= jank_json_add(o, "locks", locks);
		for (size_t i = 0; locks && i < b->nlocks; i++) {
			struct json_object *l = json_object_new_object();

			if (!l || json_object_array_add(locks, l) != 0) {
				json_object_put(l);
				goto nomem_o;
			}
			r |= jank_json_add_str(l, "lock",
					       format_lock(b->locks[i].lock, buf, sizeof(buf)));
			r |= jank_json_add_i64(l, "ns", b->locks[i].ns);
		}
	}
	if (b && b->nfunctions) {
		struct json_object *fns = json_object_new_array();

		r |= jank_json_add(o, "functions", fns);
		for (size_t i = 0; fns && i < b->nfunctions; i++) {
			struct json_object *fo = json_object_new_object();

			if (!fo || json_object_array_add(fns, fo) != 0) {
				json_object_put(fo);
				goto nomem_o;
			}
			r |= jank_json_add_str(fo, "name", format_function(b, i));
			r |= jank_json_add_i64(fo, "ns", b->functions[i].ns);
		}
	}
	if (r)
		goto nomem;
	return o;
nomem:
	json_object_put(states);
	json_object_put(threads);
nomem_o:
	json_object_put(o);
	return NULL;
}

/* ---- Text ---- */

/* A step of the story: consecutive segments on the same thread in the same state. */
struct step {
	uint32_t host; /* a label of the path, 0: the one host */
	int32_t tid;
	uint8_t state;
	int64_t ns;
	uint64_t lock;
	const char *comm;
	const char *flow; /* the flow that brought the path to the thread, NULL */
	uint32_t stack;	  /* the stack of the step's longest segment, 0 when none */
};

static size_t next_step(const struct jank_path *p, size_t i, struct step *s)
{
	const struct jank_label *flow = jank_path_label_of(p, p->segs[i].flow);

	s->flow = flow ? flow->name : NULL;
	s->tid = p->segs[i].tid;
	s->host = p->segs[i].host;
	s->state = p->segs[i].state;
	s->comm = p->segs[i].comm;
	s->lock = p->segs[i].lock;
	s->ns = 0;
	s->stack = 0;
	for (int64_t longest = 0;
	     i < p->n && p->segs[i].tid == s->tid && p->segs[i].host == s->host &&
	     p->segs[i].state == s->state && p->segs[i].lock == s->lock;
	     i++) {
		int64_t d = p->segs[i].end - p->segs[i].begin;

		s->ns += d;
		if (p->segs[i].stack && d > longest) {
			longest = d;
			s->stack = p->segs[i].stack;
		}
	}
	return i;
}

/* The threads the story has mentioned so far, to say "waiting for" or "back on". */
struct story {
	int64_t seen[32]; /* (host label << 32) | tid */
	size_t nseen;
	int64_t prev_tid; /* the same, -1: none */
	size_t steps;
};

/* A thread of the story: its tid and its host's label, which tids of two hosts share. */
static int64_t story_thread(const struct step *s)
{
	return (int64_t)((uint64_t)s->host << 32 | (uint32_t)s->tid);
}

static bool story_seen(struct story *st, int64_t tid)
{
	for (size_t i = 0; i < st->nseen; i++)
		if (st->seen[i] == tid)
			return true;
	if (st->nseen < sizeof(st->seen) / sizeof(st->seen[0]))
		st->seen[st->nseen++] = tid;
	return false;
}

/*
 * One step as a phrase: "waiting for tid 77 (db): running 18.2 ms", and
 * where its longest part was: "running 29.8 ms in apply_discounts ←
 * compute_price ← run_task".
 */
static void step_phrase(const struct jank_path *p, struct story *st, const struct step *s,
			char *buf, size_t len)
{
	char d[320], th[JANK_FORMAT_THREAD_LEN + 8 + JANK_TEXT_SIZE(JANK_LABEL_NAME_LEN)], fn[240],
		flow[JANK_TEXT_SIZE(JANK_LABEL_NAME_LEN)];
	int64_t thread = story_thread(s);

	jank_units_duration(s->ns, d, 32);
	if (s->stack) {
		size_t n = strlen(d);

		snprintf(d + n, sizeof(d) - n, " in %s",
			 format_stack(p, s->stack, 3, fn, sizeof(fn)));
	}
	format_thread(s->tid, s->comm, th, sizeof(th));
	if (s->host) {
		char host[JANK_TEXT_SIZE(JANK_LABEL_NAME_LEN)];
		size_t n = strlen(th);

		snprintf(th + n, sizeof(th) - n, " on %s",
			 jank_text(host, sizeof(host), format_host(p, s->host)));
	}
	if (s->tid < 0 && s->host && s->state == JANK_STATE_UNKNOWN) {
		/* A host whose side of the path did not come in time (lib/crosshost.h's splice). */
		char host[JANK_TEXT_SIZE(JANK_LABEL_NAME_LEN)];

		snprintf(buf, len, "waiting on %s (not yet seen) %s",
			 jank_text(host, sizeof(host), format_host(p, s->host)), d);
	} else if (st->steps == 0)
		snprintf(buf, len, "%s %s %s", th, jank_state_name(s->state), d);
	else if (s->flow && thread != st->prev_tid)
		snprintf(buf, len, "via flow %s to %s: %s %s",
			 jank_text(flow, sizeof(flow), s->flow), th, jank_state_name(s->state), d);
	else if (thread == st->prev_tid)
		snprintf(buf, len, "%s %s", jank_state_name(s->state), d);
	else if (story_seen(st, thread))
		snprintf(buf, len, "back on %s: %s %s", th, jank_state_name(s->state), d);
	else if (s->lock)
		snprintf(buf, len, "waiting for lock 0x%" PRIx64 " held by %s: %s %s", s->lock, th,
			 jank_state_name(s->state), d);
	else
		snprintf(buf, len, "waiting for %s: %s %s", th, jank_state_name(s->state), d);
	if (st->steps == 0 || s->flow)
		story_seen(st, thread);
	st->prev_tid = thread;
	st->steps++;
}

/* A phrase: two escaped names (a thread, a flow), a stack and words. */
#define PHRASE_LEN 1024

static size_t count_steps(const struct jank_path *p)
{
	struct step s;
	size_t n = 0;

	for (size_t i = 0; i < p->n; i = next_step(p, i, &s))
		n++;
	return n;
}

size_t jank_format_path_story(char *buf, size_t len, const struct jank_path *p, size_t max_steps)
{
	struct story st = { .prev_tid = -1 };
	size_t total = p ? count_steps(p) : 0, used = 0;
	char phrase[PHRASE_LEN];
	struct step s;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; p && i < p->n && st.steps < max_steps;) {
		i = next_step(p, i, &s);
		step_phrase(p, &st, &s, phrase, sizeof(phrase));
		used += snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
				 "%s%s", st.steps > 1 ? " → " : "", phrase);
	}
	if (total > st.steps)
		used += snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
				 " → … (%zu more steps)", total - st.steps);
	if (used >= len && len) /* cut: not inside a character */
		buf[jank_utf8_cut(buf, len - 1)] = '\0';
	return used;
}

void format_story_text(FILE *f, const struct jank_path *p, const char *indent)
{
	struct story st = { .prev_tid = -1 };
	size_t total = count_steps(p);
	char phrase[PHRASE_LEN];
	struct step s;

	if (p->n == 0) {
		fprintf(f, "%s(empty path)\n", indent);
		return;
	}
	for (size_t i = 0; i < p->n && st.steps < STORY_STEPS_TEXT;) {
		i = next_step(p, i, &s);
		step_phrase(p, &st, &s, phrase, sizeof(phrase));
		fprintf(f, "%s%s %s\n", indent, st.steps == 1 ? " " : "→", phrase);
	}
	if (total > st.steps)
		fprintf(f, "%s→ … %zu more steps (see --format json)\n", indent, total - st.steps);
	if (p->truncated)
		fprintf(f,
			"%s  (the path reached graph memory already freed: that part is "
			"'unknown')\n",
			indent);
	if (p->incomplete)
		fprintf(f,
			"%s  (incomplete: out of memory while computing it; only its end is "
			"here)\n",
			indent);
}

/* "84.2%", and "<0.1%" for a share too small to print but not nothing. */
static const char *pct(int64_t part, int64_t whole, char *buf, size_t len)
{
	double p = whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;

	if (part > 0 && p < 0.05)
		snprintf(buf, len, "<0.1%%");
	else
		snprintf(buf, len, "%.1f%%", p);
	return buf;
}

/* The most characters of a function's name in the breakdown. */
#define FUNCTION_CHARS 80

void format_breakdown_text(FILE *f, const struct jank_breakdown *b, int64_t total)
{
	char d[32], th[JANK_FORMAT_THREAD_LEN + 8 + JANK_TEXT_SIZE(JANK_LABEL_NAME_LEN)], p[16],
		fn[JANK_TEXT_SIZE(FUNCTION_CHARS)];
	int order[JANK_STATE_COUNT], n = 0;

	if (!b)
		return;
	/* States by time spent, largest first. */
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		if (b->per_state[s] > 0)
			order[n++] = s;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && b->per_state[order[j]] > b->per_state[order[j - 1]]; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	fprintf(f, "  where the time went:\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "    %-14s %12s %7s\n", jank_state_name(order[i]),
			jank_units_duration(b->per_state[order[i]], d, sizeof(d)),
			pct(b->per_state[order[i]], total, p, sizeof(p)));
	if (b->n == 0)
		return;
	fprintf(f, "  by thread:\n");
	for (size_t i = 0; i < b->n && i < BREAKDOWN_THREADS_TEXT; i++) {
		const struct jank_breakdown_item *it = &b->items[i];

		format_thread(it->tid, it->comm, th, sizeof(th));
		if (it->host) {
			char host[JANK_TEXT_SIZE(JANK_LABEL_NAME_LEN)];
			size_t hn = strlen(th);

			snprintf(th + hn, sizeof(th) - hn, " on %s",
				 jank_text(host, sizeof(host), format_host(b->path, it->host)));
		}
		fprintf(f, "    %-28s %-14s %12s %7s\n", th, jank_state_name(it->state),
			jank_units_duration(it->ns, d, sizeof(d)),
			pct(it->ns, total, p, sizeof(p)));
	}
	if (b->n > BREAKDOWN_THREADS_TEXT)
		fprintf(f, "    … %zu more\n", b->n - BREAKDOWN_THREADS_TEXT);
	if (b->nlocks) {
		fprintf(f, "  waiting for locks:\n");
		for (size_t i = 0; i < b->nlocks; i++)
			fprintf(f, "    mutex 0x%-19" PRIx64 " %12s %7s\n", b->locks[i].lock,
				jank_units_duration(b->locks[i].ns, d, sizeof(d)),
				pct(b->locks[i].ns, total, p, sizeof(p)));
	}
	if (b->nfunctions == 0)
		return;
	fprintf(f, "  by function:\n");
	for (size_t i = 0; i < b->nfunctions && i < BREAKDOWN_THREADS_TEXT; i++) {
		const char *name = format_function(b, i);

		jank_text_escape(fn, sizeof(fn), name, strlen(name), FUNCTION_CHARS);
		fprintf(f, "    %-43s %12s %7s\n", fn,
			jank_units_duration(b->functions[i].ns, d, sizeof(d)),
			pct(b->functions[i].ns, total, p, sizeof(p)));
	}
	if (b->nfunctions > BREAKDOWN_THREADS_TEXT)
		fprintf(f, "    … %zu more\n", b->nfunctions - BREAKDOWN_THREADS_TEXT);
}

void jank_format_critpath_text(FILE *f, const struct jank_path *p, const struct jank_breakdown *b)
{
	char d[32], w1[48], w2[48], c[JANK_TEXT_SIZE(JANK_COMM_LEN)];
	const char *comm = p->n ? NULL : "";

	/* The thread's own name: from its first segment on itself. */
	for (size_t i = 0; !comm && i < p->n; i++)
		if (p->segs[i].tid == p->tid)
			comm = p->segs[i].comm;
	fprintf(f, "critical path of tid %" PRId32 "%s%s%s over %s\n", p->tid,
		comm && comm[0] ? " (" : "", comm && comm[0] ? jank_text(c, sizeof(c), comm) : "",
		comm && comm[0] ? ")" : "", jank_units_duration(p->end - p->begin, d, sizeof(d)));
	fprintf(f, "  from %s to %s\n", format_wall(p->begin, w1, sizeof(w1)),
		format_wall(p->end, w2, sizeof(w2)));
	format_story_text(f, p, "    ");
	format_breakdown_text(f, b, p->end - p->begin);
}
