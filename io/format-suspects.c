/* SPDX-License-Identifier: MIT */
/*
 * A verdict's suspects (lib/baseline.c: what the slow action spent more
 * time on than the rule's normal ones), in words and as JSON: one suspect
 * as a phrase ("+39.8 ms block_device waiting on db (normally 200 us,
 * 200x)", "+29.8 ms in apply_discounts (normally 200 us, 149x)"), the top
 * one as the line an alert carries, all of them as the block of a text
 * report, and the JSON object whose items carry the same phrases.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "format-int.h"
#include "format.h"
#include "json-util.h"
#include "textsafe.h"
#include "units.h"

/* ---- Text ---- */

/* "(normally 200 us, 200x)", "(normally none)" */
static const char *normally(const struct jank_suspect *s, char *buf, size_t len)
{
	char d[32];

	if (s->normal < 0.5)
		snprintf(buf, len, "(normally none)");
	else if (s->normal < 1000.0)
		snprintf(buf, len, "(normally %s)",
			 jank_units_duration((int64_t)(s->normal + 0.5), d, sizeof(d)));
	else
		snprintf(buf, len, "(normally %s, %.*fx)",
			 jank_units_duration((int64_t)(s->normal + 0.5), d, sizeof(d)),
			 s->ratio < 10 ? 1 : 0, s->ratio);
	return buf;
}

/* ", CPU taken by tid 812 (hog) and tid 7 (x)": who ran while the path was preempted. */
static void cpu_taken(const struct jank_suspects *ss, char *buf, size_t len)
{
	char th[JANK_FORMAT_THREAD_LEN];
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; ss && i < ss->nran && i < 2 && used < len; i++)
		used += (size_t)snprintf(
			buf + used, len - used, "%s%s", i ? " and " : ", CPU taken by ",
			format_thread(ss->ran[i].tid, ss->ran[i].comm, th, sizeof(th)));
}

/*
 * "+29.8 ms in apply_discounts (normally 200 us, 149x)"; its state when
 * most of its time was not running ("+30.0 ms blocked in load_config"), its
 * thread when not the action's own ("in refresh_rates on app/holder").
 */
static void function_phrase(const struct jank_suspect *s, const char *d, const char *who,
			    const char *n, const char *tail, char *buf, size_t len)
{
	const struct jank_comp *c = &s->comp;
	bool running = c->fn_state == JANK_STATE_RUNNING || c->fn_state == JANK_STATE_UNKNOWN;

	snprintf(buf, len, "+%s %s%sin %s%s%s %s%s", d, running ? "" : jank_state_name(c->fn_state),
		 running ? "" : " ", s->function[0] ? s->function : "an unnamed function",
		 s->own || !c->thread[0] ? "" : " on ", s->own || !c->thread[0] ? "" : who, n,
		 tail);
}

const char *jank_format_suspect(const struct jank_suspect *s, const struct jank_suspects *ss,
				char *buf, size_t len)
{
	char d[32], n[64], who[JANK_FORMAT_NAMES_LEN], tail[2 * JANK_FORMAT_THREAD_LEN + 32] = "";
	const struct jank_comp *c = &s->comp;

	jank_units_duration(s->delta, d, sizeof(d));
	normally(s, n, sizeof(n));
	if (c->key.kind == JANK_COMP_FUNCTION
		    ? c->fn_state == JANK_STATE_PREEMPTED
		    : c->key.kind != JANK_COMP_LOCK && c->key.state == JANK_STATE_PREEMPTED)
		cpu_taken(ss, tail, sizeof(tail));
	jank_format_names(c->process, c->thread, who, sizeof(who));
	if (c->key.kind == JANK_COMP_FUNCTION)
		function_phrase(s, d, who, n, tail, buf, len);
	else if (c->key.kind == JANK_COMP_LOCK)
		snprintf(buf, len, "+%s waiting for lock 0x%" PRIx64 "%s%s %s", d, c->key.id,
			 c->thread[0] ? " held by " : "", c->thread[0] ? who : "", n);
	else if (c->key.kind == JANK_COMP_THREAD && !s->own)
		snprintf(buf, len, "+%s %s waiting on %s %s%s", d, jank_state_name(c->key.state),
			 who, n, tail);
	else
		snprintf(buf, len, "+%s %s %s%s", d, jank_state_name(c->key.state), n, tail);
	if (len && strlen(buf) == len - 1) /* maybe cut: not inside a character */
		buf[jank_utf8_cut(buf, len - 1)] = '\0';
	return buf;
}

const char *jank_format_suspects_line(const struct jank_suspects *ss, char *buf, size_t len)
{
	const char *whole = ss->whole ? " in the whole trace" : "";

	if (!ss->ready)
		snprintf(buf, len, "no baseline yet (%" PRIu64 " of %d normal actions%s)",
			 ss->normal, JANK_BASELINE_MIN, whole);
	else if (ss->n == 0)
		snprintf(buf, len, "nothing above normal (%" PRIu64 " normal actions%s)",
			 ss->normal, whole);
	else
		jank_format_suspect(&ss->items[0], ss, buf, len);
	return buf;
}

/* What was different from the normal actions, largest increase first. */
void format_suspects_text(FILE *f, const struct jank_suspects *ss)
{
	char line[JANK_FORMAT_SUSPECT_LEN], d[32];

	if (!ss->ready || ss->n == 0) {
		fprintf(f, "  what was different: %s\n",
			jank_format_suspects_line(ss, line, sizeof(line)));
		return;
	}
	fprintf(f, "  what was different (against %" PRIu64 " normal actions%s, mean %s):\n",
		ss->normal, ss->whole ? " of the whole trace" : "",
		jank_units_duration((int64_t)(ss->normal_duration + 0.5), d, sizeof(d)));
	for (size_t i = 0; i < ss->n; i++)
		fprintf(f, "    %s\n", jank_format_suspect(&ss->items[i], ss, line, sizeof(line)));
}

/* ---- JSON ---- */

static struct json_object *suspect_json(const struct jank_suspect *s,
					const struct jank_suspects *ss)
{
	struct json_object *o = json_object_new_object();
	const struct jank_comp *c = &s->comp;
	char buf[JANK_FORMAT_SUSPECT_LEN];
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_str(o, "kind", jank_comp_kind_name(c->key.kind));
	if (c->key.kind == JANK_COMP_LOCK)
		r |= jank_json_add_str(o, "lock", format_lock(c->key.id, buf, sizeof(buf)));
	else if (c->key.kind == JANK_COMP_FUNCTION)
		r |= jank_json_add_str(o, "function", s->function);
	if (c->key.kind != JANK_COMP_LOCK)
		r |= jank_json_add_str(o, "state",
				       jank_state_name(c->key.kind == JANK_COMP_FUNCTION
							       ? c->fn_state
							       : c->key.state));
	if (c->key.kind >= JANK_COMP_THREAD) {
		r |= jank_json_add_str(o, "process", c->process);
		r |= jank_json_add_str(o, "thread", c->thread);
		r |= jank_json_add_i64(o, "tid", c->tid);
	}
	if (c->key.kind == JANK_COMP_THREAD || c->key.kind == JANK_COMP_FUNCTION)
		r |= jank_json_add_bool(o, "own", s->own);
	if (c->key.kind == JANK_COMP_FUNCTION) {
		r |= jank_json_add(o, "increase", json_object_new_double(s->increase));
		r |= jank_json_add(o, "slow_presence", json_object_new_double(s->presence_slow));
		r |= jank_json_add(o, "normal_presence",
				   json_object_new_double(s->presence_normal));
		r |= jank_json_add_i64(o, "rank_ns", (int64_t)(s->rank + 0.5));
	}
	r |= jank_json_add_i64(o, "ns", c->ns);
	r |= jank_json_add_i64(o, "normal_ns", (int64_t)(s->normal + 0.5));
	r |= jank_json_add_i64(o, "delta_ns", s->delta);
	r |= jank_json_add(o, "ratio", json_object_new_double(s->ratio));
	r |= jank_json_add_str(o, "text", jank_format_suspect(s, ss, buf, sizeof(buf)));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *ran_json(const struct jank_suspects *ss)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < ss->nran; i++) {
		struct json_object *o = json_object_new_object();
		int r = 0;

		if (!o || json_object_array_add(a, o) != 0) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
		r |= jank_json_add_i64(o, "tid", ss->ran[i].tid);
		r |= jank_json_add_str(o, "comm", ss->ran[i].comm);
		r |= jank_json_add_i64(o, "ns", ss->ran[i].ns);
		if (r) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

struct json_object *jank_format_suspects_json(const struct jank_suspects *ss)
{
	struct json_object *o = json_object_new_object();
	struct json_object *items = json_object_new_array();
	char line[JANK_FORMAT_SUSPECT_LEN];
	int r = 0;

	if (!o || !items) {
		json_object_put(o);
		json_object_put(items);
		return NULL;
	}
	r |= jank_json_add_bool(o, "ready", ss->ready);
	r |= jank_json_add_u64(o, "normal_actions", ss->normal);
	r |= jank_json_add_i64(o, "needed", JANK_BASELINE_MIN);
	/* The normal actions compared with: those "before" the action, or the whole "trace"'s. */
	if (ss->ready || ss->whole)
		r |= jank_json_add_str(o, "baseline", ss->whole ? "trace" : "before");
	r |= jank_json_add_i64(o, "normal_duration_ns", (int64_t)(ss->normal_duration + 0.5));
	r |= jank_json_add_str(o, "summary", jank_format_suspects_line(ss, line, sizeof(line)));
	r |= jank_json_add(o, "items", items);
	for (size_t i = 0; r == 0 && i < ss->n; i++) {
		struct json_object *it = suspect_json(&ss->items[i], ss);

		if (!it || json_object_array_add(items, it) != 0) {
			json_object_put(it);
			r = -ENOMEM;
		}
	}
	r |= jank_json_add(o, "cpu_taken_by", ran_json(ss));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
