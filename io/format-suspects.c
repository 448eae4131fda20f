/* SPDX-License-Identifier: MIT */
/*
 * A verdict's suspects (lib/baseline.c: what the slow action spent more
 * time on than the rule's normal ones) in words: one suspect as a phrase
 * ("+39.8 ms block_device waiting on db (normally 200 us, 200x)", "+29.8 ms
 * in apply_discounts (normally 200 us, 149x)"), the top one as the line an
 * alert carries, all of them as the block of a text report. Their JSON
 * (io/verdict-json.c) carries the same phrases.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "format-int.h"
#include "format.h"
#include "textsafe.h"
#include "units.h"

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

#define SUSPECT_FUNCTION_CHARS JANK_FORMAT_SUSPECT_FUNCTION_CHARS

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
	char fn[JANK_TEXT_SIZE(SUSPECT_FUNCTION_CHARS)], utf8[JANK_TEXT_SIZE(JANK_FRAME_NAME_LEN)];

	/*
	 * The name comes from the traced binary (a symbol, or a path+offset):
	 * its invalid bytes become U+FFFD, as in the JSON the phrase is part of
	 * (so that a decoded verdict says the same), then its control
	 * characters are escaped.
	 */
	jank_utf8_sanitize(utf8, sizeof(utf8), s->function, strlen(s->function), 0);
	jank_text_escape(fn, sizeof(fn), utf8, strlen(utf8), SUSPECT_FUNCTION_CHARS);
	snprintf(buf, len, "+%s %s%sin %s%s%s %s%s", d, running ? "" : jank_state_name(c->fn_state),
		 running ? "" : " ", fn[0] ? fn : "an unnamed function",
		 s->own || !c->thread[0] ? "" : " on ", s->own || !c->thread[0] ? "" : who, n,
		 tail);
}

const char *jank_format_frame_text(const char *name, bool in_suspect, char *buf, size_t len)
{
	char utf8[JANK_TEXT_SIZE(JANK_FRAME_NAME_LEN)];

	/* As the story's stacks (format-path.c, names a decoded verdict sanitized) and phrases. */
	jank_utf8_sanitize(utf8, sizeof(utf8), name, strlen(name), 0);
	jank_text_escape(buf, len, utf8, strlen(utf8),
			 in_suspect ? SUSPECT_FUNCTION_CHARS : JANK_FORMAT_STACK_NAME_CHARS);
	return buf;
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
