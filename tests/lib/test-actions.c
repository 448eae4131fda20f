/* SPDX-License-Identifier: MIT */
/* Action rules: parsing, keys, matches, thresholds, histograms, expiry and overdue. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hashmap.h"
#include "scenario.h"

static void keys_parse(void **state)
{
	struct jank_rule r;

	jank_rule_init(&r);
	assert_int_equal(jank_rule_set_keys(&r, " name ,id"), 0);
	assert_int_equal(r.nkeys, 2);
	assert_string_equal(r.keys[0], "name");
	assert_string_equal(r.keys[1], "id");
	assert_int_equal(jank_rule_set_keys(&r, "vtid"), 0);
	assert_int_equal(r.nkeys, 1);
	assert_int_equal(jank_rule_set_keys(&r, "a,,b"), -EINVAL);
	assert_int_equal(jank_rule_set_keys(&r, ""), -EINVAL);
	assert_int_equal(jank_rule_set_keys(&r, "a,b,c,d,e"), -EINVAL);
	assert_int_equal(jank_rule_set_keys(&r, "bad key"), -EINVAL);
	assert_int_equal(r.nkeys, 1); /* unchanged by failures */
	jank_rule_fini(&r);
}

static void match_parse(void **state)
{
	struct jank_rule r;

	jank_rule_init(&r);
	assert_int_equal(jank_rule_set_match(&r, "name == \"frame\""), 0);
	assert_string_equal(r.match_field, "name");
	assert_int_equal(r.match_value.type, JANK_VALUE_STR);
	assert_string_equal(r.match_value.s, "frame");
	assert_int_equal(jank_rule_set_match(&r, "id==0x10"), 0);
	assert_int_equal(r.match_value.type, JANK_VALUE_INT);
	assert_int_equal(r.match_value.i, 16);
	assert_int_equal(jank_rule_set_match(&r, "name = \"x\""), -EINVAL);
	assert_int_equal(jank_rule_set_match(&r, "name == \"x"), -EINVAL);
	assert_int_equal(jank_rule_set_match(&r, "== 3"), -EINVAL);
	assert_int_equal(jank_rule_set_match(&r, "id == 3x"), -EINVAL);
	jank_rule_fini(&r);
}

static void threshold_parse(void **state)
{
	struct jank_threshold t;

	assert_int_equal(jank_threshold_parse("16ms", &t), 0);
	assert_int_equal(t.kind, JANK_THRESHOLD_FIXED);
	assert_int_equal(t.ns, 16000000);
	assert_int_equal(jank_threshold_parse("500us", &t), 0);
	assert_int_equal(t.ns, 500000);
	assert_int_equal(jank_threshold_parse("p99*1.5", &t), 0);
	assert_int_equal(t.kind, JANK_THRESHOLD_ADAPTIVE);
	assert_true(t.percentile == 99 && t.factor == 1.5);
	assert_int_equal(jank_threshold_parse("p90", &t), 0);
	assert_true(t.factor == 1.0);
	assert_int_equal(jank_threshold_parse("fast", &t), -EINVAL);
	assert_int_equal(jank_threshold_parse("0ms", &t), -EINVAL);
	assert_int_equal(jank_threshold_parse("p100", &t), -EINVAL);
	assert_int_equal(jank_threshold_parse("p99*", &t), -EINVAL);
	assert_int_equal(jank_threshold_parse("p99*-2", &t), -EINVAL);
	assert_int_equal(jank_threshold_parse("-5ms", &t), -EINVAL);
}

struct counts {
	int completed, overdue, over;
	char last_key[JANK_KEY_LEN];
	int64_t last_threshold;
	uint64_t last_discarded;
};

static void count(const struct jank_verdict *r, void *data)
{
	struct counts *c = data;

	if (r->kind == JANK_VERDICT_OVERDUE)
		c->overdue++;
	else
		c->completed++;
	c->over += r->over_threshold;
	c->last_threshold = r->threshold;
	c->last_discarded = r->discarded_events;
	snprintf(c->last_key, sizeof(c->last_key), "%s", r->key);
}

static void add_rule(struct scn *s, const char *keys, const char *match, const char *threshold)
{
	struct jank_rule r;

	jank_rule_init(&r);
	r.name = "frame";
	r.begin_event = "jank:action_begin";
	r.end_event = "jank:action_end";
	if (keys)
		assert_int_equal(jank_rule_set_keys(&r, keys), 0);
	if (match)
		assert_int_equal(jank_rule_set_match(&r, match), 0);
	assert_int_equal(jank_threshold_parse(threshold, &r.threshold), 0);
	assert_true(jank_engine_add_rule(s->e, &r) >= 0);
	r.name = r.begin_event = r.end_event = NULL;
	jank_rule_fini(&r);
}

static void begin(struct scn *s, int64_t ts, int tid, const char *name, int id)
{
	scn_ust(s, ts, 0, tid, "jank:action_begin", S("name", name), I("id", id));
}

static void end(struct scn *s, int64_t ts, int tid, const char *name, int id)
{
	scn_ust(s, ts, 0, tid, "jank:action_end", S("name", name), I("id", id));
}

/* Default key: the thread. Only over-threshold actions are reported. */
static void default_key_and_threshold(void **state)
{
	struct scn s;
	struct counts c = { 0 };

	scn_init(&s, &scn_layout_current, NULL);
	add_rule(&s, NULL, NULL, "10ns");
	jank_engine_set_verdict_cb(s.e, count, &c);
	begin(&s, 0, 1, "frame", 1);
	begin(&s, 1, 2, "frame", 2);
	end(&s, 5, 1, "frame", 9);  /* same thread, other id: still pairs (key = tid) */
	end(&s, 30, 2, "frame", 2); /* 29 ns: a jank */
	end(&s, 40, 3, "frame", 3); /* no begin */
	assert_int_equal(c.completed, 1);
	assert_string_equal(c.last_key, "tid=2");
	struct jank_engine_stats st;

	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.actions_completed, 2);
	assert_int_equal(st.janks, 1);
	assert_int_equal(st.actions_unmatched, 1);
	assert_int_equal(jank_histogram_percentile(jank_engine_rule_histogram(s.e, 0), 100), 29);
	/* Per rule: the jank, the latest one's key and duration (exemplars), the histogram's sum.
	 */
	assert_int_equal(jank_engine_rule_stats(s.e, 0)->janks, 1);
	assert_int_equal(jank_engine_rule_stats(s.e, 0)->last_jank_ns, 29);
	assert_string_equal(jank_engine_rule_stats(s.e, 0)->last_jank_key, "tid=2");
	assert_int_equal(jank_engine_rule_histogram(s.e, 0)->sum, 5 + 29);
	assert_null(jank_engine_rule_stats(s.e, 1));
	scn_fini(&s);
}

/* Key fields pair begin and end across threads; the match filters events. */
static void keys_and_match(void **state)
{
	struct scn s;
	struct counts c = { 0 };
	struct jank_engine_config cfg;

	jank_engine_config_defaults(&cfg);
	cfg.report_all = true;
	scn_init(&s, &scn_layout_current, &cfg);
	add_rule(&s, "name, id", "name == \"frame\"", "1s");
	jank_engine_set_verdict_cb(s.e, count, &c);
	begin(&s, 0, 1, "frame", 1);
	begin(&s, 0, 1, "other", 1);
	begin(&s, 1, 1, "frame", 2);
	end(&s, 5, 2, "frame", 2);
	end(&s, 6, 3, "frame", 1);
	end(&s, 7, 3, "other", 1);
	assert_int_equal(c.completed, 2);
	assert_int_equal(c.over, 0);
	assert_string_equal(c.last_key, "name=frame,id=1");
	scn_fini(&s);
}

/*
 * Keys past JANK_KEY_LEN - 1 bytes are cut, not inside a character, and pair
 * by what is left: two names that differ only past the cut are one action.
 * Negative numbers keep their sign.
 */
static void long_keys(void **state)
{
	char name[160], other[160], want[JANK_KEY_LEN];
	struct scn s;
	struct counts c = { 0 };
	struct jank_engine_config cfg;
	size_t n;

	/* "name=" then 'a's, then two-byte characters across the cut at byte 95. */
	memset(name, 'a', 88);
	for (n = 88; n < 150; n += 2)
		memcpy(name + n, "\xc3\xa9", 2);
	name[n] = '\0';
	memcpy(other, name, sizeof(other));
	other[140] = 'x'; /* past the cut */
	jank_engine_config_defaults(&cfg);
	cfg.report_all = true;
	scn_init(&s, &scn_layout_current, &cfg);
	add_rule(&s, "name, id", NULL, "1s");
	jank_engine_set_verdict_cb(s.e, count, &c);
	begin(&s, 0, 1, name, 1);
	end(&s, 5, 2, other, 7);
	assert_int_equal(c.completed, 1);
	/* 5 + 88 = 93 bytes, one whole character (95), the next would end past 95. */
	snprintf(want, sizeof(want), "name=%.*s", 90, name);
	assert_string_equal(c.last_key, want);
	assert_int_equal(strlen(c.last_key), 95);
	begin(&s, 10, 1, "f", -42);
	end(&s, 12, 1, "f", 42); /* another key */
	end(&s, 13, 1, "f", -42);
	assert_int_equal(c.completed, 2);
	assert_string_equal(c.last_key, "name=f,id=-42");
	scn_fini(&s);
}

/*
 * An end compares its key with the latest begun action's text in place:
 * it pairs exactly when the texts are the same ("id=12" from the integer
 * 12 or the string "12"), and not for "012", "-7" against "7", a prefix.
 */
static void key_in_place(void **state)
{
	struct scn s;
	struct counts c = { 0 };
	struct jank_engine_stats st;
	struct jank_engine_config cfg;

	jank_engine_config_defaults(&cfg);
	cfg.report_all = true;
	scn_init(&s, &scn_layout_current, &cfg);
	add_rule(&s, "name, id", NULL, "1s");
	jank_engine_set_verdict_cb(s.e, count, &c);
	begin(&s, 0, 1, "f", 12);
	scn_ust(&s, 1, 0, 1, "jank:action_end", S("name", "f"), S("id", "12"));
	assert_int_equal(c.completed, 1);
	assert_string_equal(c.last_key, "name=f,id=12");
	scn_ust(&s, 2, 0, 1, "jank:action_begin", S("name", "f"), S("id", "012"));
	end(&s, 3, 1, "f", 12);
	assert_int_equal(c.completed, 1); /* "id=12" is not "id=012" */
	scn_ust(&s, 4, 0, 1, "jank:action_end", S("name", "f"), S("id", "01"));
	scn_ust(&s, 5, 0, 1, "jank:action_end", S("name", "f"), S("id", "012"));
	assert_int_equal(c.completed, 2);
	assert_string_equal(c.last_key, "name=f,id=012");
	begin(&s, 6, 1, "f", -7);
	end(&s, 7, 1, "f", 7);
	assert_int_equal(c.completed, 2);
	end(&s, 8, 1, "ff", -7);
	end(&s, 9, 1, "", -7);
	end(&s, 10, 1, "f", -70);
	end(&s, 11, 1, "f", -7);
	assert_int_equal(c.completed, 3);
	assert_string_equal(c.last_key, "name=f,id=-7");
	scn_ust(&s, 11, 0, 1, "jank:action_begin", S("name", "f"), S("id", "12x"));
	end(&s, 11, 1, "f", 12); /* "id=12" is a prefix of "id=12x" */
	assert_int_equal(c.completed, 3);
	scn_ust(&s, 11, 0, 1, "jank:action_end", S("name", "f"), S("id", "12x"));
	assert_int_equal(c.completed, 4);
	begin(&s, 12, 1, "f", 0);
	begin(&s, 13, 1, "f", 1);
	end(&s, 14, 1, "f", 0); /* not the latest begun: by text */
	end(&s, 15, 1, "f", 1);
	assert_int_equal(c.completed, 6);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.actions_unmatched, 7);
	scn_fini(&s);
}

/*
 * The engine keeps where each value of a key ends in its text, and an end
 * compares its values there (the latest begun action first), else by the
 * whole text: both must pair exactly as the text does. Values that are a
 * prefix of the other, or longer; the extremes of integers; a value that
 * holds ",id=" (the same text split otherwise); the default key, the
 * thread, with another key.
 */
static void key_values_in_place(void **state)
{
	struct scn s;
	struct counts c = { 0 };
	struct jank_engine_config cfg;
	struct jank_engine_stats st;

	jank_engine_config_defaults(&cfg);
	cfg.report_all = true;
	scn_init(&s, &scn_layout_current, &cfg);
	add_rule(&s, "name, id", NULL, "1s");
	jank_engine_set_verdict_cb(s.e, count, &c);
	begin(&s, 0, 1, "fo", 1);
	end(&s, 1, 1, "foo", 1);
	end(&s, 2, 1, "f", 1);
	end(&s, 3, 1, "fo", 10);
	end(&s, 4, 1, "fo", 0);
	scn_ust(&s, 5, 0, 1, "jank:action_end", S("name", "fo"), S("id", "1,"));
	assert_int_equal(c.completed, 0);
	end(&s, 6, 1, "fo", 1);
	assert_int_equal(c.completed, 1);
	assert_string_equal(c.last_key, "name=fo,id=1");
	scn_ust(&s, 7, 0, 1, "jank:action_begin", S("name", "n"), I("id", INT64_MIN));
	scn_ust(&s, 8, 0, 1, "jank:action_end", S("name", "n"), I("id", INT64_MAX));
	scn_ust(&s, 9, 0, 1, "jank:action_end", S("name", "n"), S("id", "-9223372036854775807"));
	assert_int_equal(c.completed, 1);
	scn_ust(&s, 10, 0, 1, "jank:action_end", S("name", "n"), S("id", "-9223372036854775808"));
	assert_int_equal(c.completed, 2);
	assert_string_equal(c.last_key, "name=n,id=-9223372036854775808");
	/* "name=a,id=b,id=c" both ways: one action. */
	scn_ust(&s, 11, 0, 1, "jank:action_begin", S("name", "a,id=b"), S("id", "c"));
	scn_ust(&s, 12, 0, 1, "jank:action_end", S("name", "a"), S("id", "b,id=c"));
	assert_int_equal(c.completed, 3);
	assert_string_equal(c.last_key, "name=a,id=b,id=c");
	/* Overlapping: the latest begun is not the one ended, then is. */
	begin(&s, 13, 1, "x", 5);
	begin(&s, 14, 1, "x", 6);
	end(&s, 15, 1, "x", 5);
	end(&s, 16, 1, "x", 6);
	assert_int_equal(c.completed, 5);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.actions_unmatched, 7);
	assert_int_equal(st.actions_open, 0);
	scn_fini(&s);

	memset(&c, 0, sizeof(c));
	scn_init(&s, &scn_layout_current, &cfg);
	add_rule(&s, "tid, id", NULL, "1s");
	jank_engine_set_verdict_cb(s.e, count, &c);
	begin(&s, 0, 12, "f", 3);
	end(&s, 1, 1, "f", 3);
	end(&s, 2, 120, "f", 3);
	end(&s, 3, 12, "f", 33);
	assert_int_equal(c.completed, 0);
	end(&s, 4, 12, "g", 3); /* name is not a key */
	assert_int_equal(c.completed, 1);
	assert_string_equal(c.last_key, "tid=12,id=3");
	scn_fini(&s);

	/* A name too long for the prefixes kept: the text a byte at a time, the same pairing. */
	memset(&c, 0, sizeof(c));
	scn_init(&s, &scn_layout_current, &cfg);
	add_rule(&s, "request_identifier, id", NULL, "1s");
	jank_engine_set_verdict_cb(s.e, count, &c);
	scn_ust(&s, 0, 0, 1, "jank:action_begin", S("request_identifier", "r"), I("id", 7));
	scn_ust(&s, 1, 0, 1, "jank:action_end", S("request_identifier", "r"), I("id", 70));
	scn_ust(&s, 2, 0, 1, "jank:action_end", S("request_identifier", "rr"), I("id", 7));
	assert_int_equal(c.completed, 0);
	scn_ust(&s, 3, 0, 1, "jank:action_end", S("request_identifier", "r"), S("id", "7"));
	assert_int_equal(c.completed, 1);
	assert_string_equal(c.last_key, "request_identifier=r,id=7");
	scn_fini(&s);
}

/* Each verdict as "rule key begin..end;", appended to a buffer. */
static void log_verdict(const struct jank_verdict *r, void *data)
{
	char *buf = data;
	size_t n = strlen(buf);

	snprintf(buf + n, 4096 - n, "%s %s %lld..%lld;", r->rule->name, r->key, (long long)r->begin,
		 (long long)r->end);
}

static void add_named_rule(struct scn *s, const char *name, const char *keys, const char *match)
{
	struct jank_rule r;

	jank_rule_init(&r);
	r.name = (char *)name;
	r.begin_event = "jank:action_begin";
	r.end_event = "jank:action_end";
	assert_int_equal(jank_rule_set_keys(&r, keys), 0);
	if (match)
		assert_int_equal(jank_rule_set_match(&r, match), 0);
	assert_int_equal(jank_threshold_parse("1s", &r.threshold), 0);
	assert_true(jank_engine_add_rule(s->e, &r) >= 0);
	r.name = r.begin_event = r.end_event = NULL;
	jank_rule_fini(&r);
}

/*
 * A key value that is the match's field: the engine writes the match's
 * string from the role's prefix, and an end whose value and action's value
 * are both the match's does not compare them. Several roles on the class
 * (rules frame and load, matched on name, and any, unmatched), keys and
 * pairing as the text makes them: a begin without the field ("name=?")
 * does not pair with an end of name "load", a long match string (not
 * kept in the prefix) pairs as a short one, a match on the other key.
 */
static void key_folded_match(void **state)
{
	static char log[4096];
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct scn s;

	(void)state;
	jank_engine_config_defaults(&cfg);
	cfg.report_all = true;
	scn_init(&s, &scn_layout_current, &cfg);
	add_named_rule(&s, "frame", "name, id", "name == \"frame\"");
	add_named_rule(&s, "load", "name, id", "name == \"load\"");
	add_named_rule(&s, "long", "name, id", "name == \"a_long_action_name\"");
	add_named_rule(&s, "byid", "id, name", "name == \"load\"");
	log[0] = '\0';
	jank_engine_set_verdict_cb(s.e, log_verdict, log);
	begin(&s, 10, 1, "load", 1);
	end(&s, 11, 1, "frame", 1); /* another rule's: no begin */
	end(&s, 12, 1, "load", 2);
	end(&s, 13, 1, "load", 1);
	assert_string_equal(log, "load name=load,id=1 10..13;byid id=1,name=load 10..13;");
	log[0] = '\0';
	begin(&s, 20, 1, "frame", 7);
	begin(&s, 21, 1, "load", 7);
	begin(&s, 22, 1, "load", 8);
	end(&s, 23, 1, "load", 7); /* not the latest begun of its rule */
	end(&s, 24, 1, "frame", 7);
	end(&s, 25, 1, "load", 8);
	assert_string_equal(log, "load name=load,id=7 21..23;byid id=7,name=load 21..23;"
				 "frame name=frame,id=7 20..24;"
				 "load name=load,id=8 22..25;byid id=8,name=load 22..25;");
	log[0] = '\0';
	/* No name: the match does not apply, the value is "?". */
	scn_ust(&s, 30, 0, 1, "jank:action_begin", I("id", 3));
	end(&s, 31, 1, "load", 3);
	end(&s, 32, 1, "frame", 3);
	assert_string_equal(log, "");
	scn_ust(&s, 33, 0, 1, "jank:action_end", I("id", 3));
	assert_string_equal(log, "frame name=?,id=3 30..33;load name=?,id=3 30..33;"
				 "long name=?,id=3 30..33;byid id=3,name=? 30..33;");
	log[0] = '\0';
	/* A name the prefixes cannot hold with it; and an end of name "load" after a "?" begin. */
	begin(&s, 40, 1, "a_long_action_name", 4);
	end(&s, 41, 1, "a_long_action_name", 4);
	scn_ust(&s, 42, 0, 1, "jank:action_begin", I("id", 5));
	end(&s, 43, 1, "load", 5);
	assert_string_equal(log, "long name=a_long_action_name,id=4 40..41;");
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.actions_open, 4); /* the last begin, in each rule */
	scn_fini(&s);
}

/* The text of the key "name, id" as the engine cuts it (ASCII: at JANK_KEY_LEN - 1 bytes). */
static void cut_key(char *buf, size_t size, const char *name, int id)
{
	snprintf(buf, size, "name=%s,id=%d", name, id);
	buf[JANK_KEY_LEN - 1] = '\0';
}

/*
 * Keys of every length around the cut at JANK_KEY_LEN - 1 bytes: made in
 * place or a byte at a time, an end pairs exactly when its cut text is the
 * begin's (past the cut, another id or last letter is the same key), and
 * the key told is that text.
 */
static void key_lengths(void **state)
{
	struct scn s;
	struct counts c = { 0 };
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	char name[128], other[128], want[256], got[256];
	unsigned completed = 0;

	jank_engine_config_defaults(&cfg);
	cfg.report_all = true;
	scn_init(&s, &scn_layout_current, &cfg);
	add_rule(&s, "name, id", NULL, "1s");
	jank_engine_set_verdict_cb(s.e, count, &c);
	for (size_t n = 1; n < 110; n++) {
		int64_t ts = (int64_t)n * 10;
		int id = (int)(n * 7919);
		bool open = true;

		memset(name, 'a' + (char)(n % 26), n);
		name[n] = '\0';
		memcpy(other, name, n + 1);
		other[n - 1] = '#';
		cut_key(want, sizeof(want), name, id);
		begin(&s, ts, 1, name, id);
		end(&s, ts + 1, 1, name, id + 1);
		cut_key(got, sizeof(got), name, id + 1);
		if (!strcmp(got, want))
			completed++, open = false;
		end(&s, ts + 2, 1, other, id);
		cut_key(got, sizeof(got), other, id);
		if (open && !strcmp(got, want))
			completed++, open = false;
		end(&s, ts + 3, 1, name, id);
		completed += open;
		assert_int_equal(c.completed, completed);
		assert_string_equal(c.last_key, want);
	}
	assert_true(completed == 109);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.actions_open, 0);
	assert_int_equal(st.actions_unmatched, 109 * 3 - completed);
	scn_fini(&s);
}

/*
 * The table of open actions by itself: a rule's latest begun enters the
 * hash map only when another of its rule begins, and every lookup finds
 * the same action as if all were in it: the latest begun and older ones,
 * a repeated key (replaced, the older one first), a key of another rule,
 * keys that are prefixes of each other. The map's size follows the count
 * of open actions as if each were in it.
 */
static void table_lookups(void **state)
{
	struct jank_action_table *t = jank_action_table_new(2);
	struct jank_action *a, *b, *c, *d;
	bool replaced;

	assert_non_null(t);
	assert_null(jank_action_find(t, 0, "k=1"));
	assert_null(jank_action_find(t, 5, "k=1"));
	assert_null(jank_action_open(t, 2, "k=1", 0, &replaced));
	a = jank_action_open(t, 0, "k=1", 1, &replaced);
	assert_non_null(a);
	assert_false(replaced);
	assert_ptr_equal(jank_action_find(t, 0, "k=1"), a);
	assert_null(jank_action_find(t, 0, "k=1x"));
	assert_null(jank_action_find(t, 0, "k="));
	assert_null(jank_action_find(t, 1, "k=1"));
	b = jank_action_open(t, 0, "k=12", 2, &replaced);
	assert_false(replaced);
	c = jank_action_open(t, 1, "k=1", 3, &replaced);
	assert_false(replaced);
	assert_ptr_equal(jank_action_find(t, 0, "k=1"), a);
	assert_ptr_equal(jank_action_find(t, 0, "k=12"), b);
	assert_ptr_equal(jank_action_find(t, 1, "k=1"), c);
	assert_null(jank_action_find(t, 1, "k=12"));
	/* A repeated key: the older one (not the latest begun) is replaced. */
	d = jank_action_open(t, 0, "k=1", 4, &replaced);
	assert_true(replaced);
	assert_int_equal(jank_action_count(t), 3);
	assert_ptr_equal(jank_action_find(t, 0, "k=1"), d);
	assert_int_equal(d->begin, 4);
	assert_ptr_equal(jank_action_first(t, 0), b);
	assert_ptr_equal(jank_action_last(t, 0), d);
	/* Repeated again, now the latest begun. */
	a = jank_action_open(t, 0, "k=1", 5, &replaced);
	assert_true(replaced);
	assert_ptr_equal(jank_action_find(t, 0, "k=1"), a);
	assert_int_equal(a->begin, 5);
	jank_action_close(t, jank_action_find(t, 0, "k=12"));
	assert_null(jank_action_find(t, 0, "k=12"));
	assert_ptr_equal(jank_action_find(t, 0, "k=1"), a);
	jank_action_close(t, a);
	assert_null(jank_action_find(t, 0, "k=1"));
	assert_ptr_equal(jank_action_find(t, 1, "k=1"), c);
	jank_action_close(t, c);
	assert_int_equal(jank_action_count(t), 0);
	/* Back to back: never more than one open, and the map has room for it. */
	for (int i = 0; i < 100; i++) {
		char key[16];

		snprintf(key, sizeof(key), "k=%d", i);
		a = jank_action_open(t, 0, key, i, &replaced);
		assert_non_null(a);
		assert_ptr_equal(jank_action_find(t, 0, key), a);
		jank_action_close(t, a);
	}
	/* Many open: all found, the oldest first. */
	for (int i = 0; i < 100; i++) {
		char key[16];

		snprintf(key, sizeof(key), "k=%d", i);
		assert_non_null(jank_action_open(t, i % 2, key, i, &replaced));
		assert_false(replaced);
	}
	for (int i = 0; i < 100; i++) {
		char key[16];

		snprintf(key, sizeof(key), "k=%d", i);
		a = jank_action_find(t, i % 2, key);
		assert_non_null(a);
		assert_int_equal(a->begin, i);
		assert_null(jank_action_find(t, !(i % 2), key));
	}
	jank_action_table_free(t);

	/*
	 * 97 open actions of two rules: a map of all would have 256 slots (it
	 * doubles past 3/4 of 128: 96), one without the two latest 128.
	 */
	t = jank_action_table_new(2);
	assert_non_null(t);
	size_t empty = jank_action_table_bytes(t);

	for (int i = 0; i < 97; i++) {
		char key[16];

		snprintf(key, sizeof(key), "k=%d", i);
		assert_non_null(jank_action_open(t, i % 2, key, i, &replaced));
	}
	assert_int_equal(jank_action_table_bytes(t) - empty,
			 256 * sizeof(struct jank_hashmap_slot) + 97 * sizeof(struct jank_action));
	jank_action_table_free(t);
}

/* A repeated begin replaces the open action and is counted. */
static void repeated_begin(void **state)
{
	struct scn s;
	struct jank_engine_stats st;

	scn_init(&s, &scn_layout_current, NULL);
	add_rule(&s, "name,id", NULL, "1s");
	begin(&s, 0, 1, "frame", 1);
	begin(&s, 5, 1, "frame", 1);
	end(&s, 6, 1, "frame", 1);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.actions_replaced, 1);
	assert_int_equal(st.actions_completed, 1);
	assert_int_equal(jank_engine_rule_histogram(s.e, 0)->max, 1);
	scn_fini(&s);
}

/* Actions that never end expire after the timeout, and are counted. */
static void expiry(void **state)
{
	struct scn s;
	struct jank_engine_config cfg;
	struct jank_engine_stats st;

	jank_engine_config_defaults(&cfg);
	cfg.action_timeout_ns = 100;
	scn_init(&s, &scn_layout_current, &cfg);
	add_rule(&s, "name,id", NULL, "1s");
	for (int i = 0; i < 50; i++)
		begin(&s, i, 1, "frame", i);
	jank_engine_tick(s.e, 120);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.actions_expired, 20); /* begun at 0..19 */
	assert_int_equal(st.actions_open, 30);
	assert_int_equal(jank_engine_rule_stats(s.e, 0)->expired, 20);
	scn_fini(&s);
}

/* An open action past threshold + grace is reported once, with a partial path. */
static void overdue(void **state)
{
	struct scn s;
	struct jank_engine_config cfg;
	struct counts c = { 0 };

	jank_engine_config_defaults(&cfg);
	cfg.overdue_grace_ns = 50;
	scn_init(&s, &scn_layout_current, &cfg);
	add_rule(&s, "name,id", NULL, "100ns");
	jank_engine_set_verdict_cb(s.e, count, &c);
	scn_switch(&s, 0, 0, 0, 0, 1);
	begin(&s, 10, 1, "frame", 1);
	begin(&s, 100, 1, "frame", 2);
	jank_engine_tick(s.e, 150);
	assert_int_equal(c.overdue, 0);
	jank_engine_tick(s.e, 170);
	assert_int_equal(c.overdue, 1);
	jank_engine_tick(s.e, 200);
	assert_int_equal(c.overdue, 1);
	jank_engine_tick(s.e, 260);
	assert_int_equal(c.overdue, 2);
	assert_int_equal(jank_engine_rule_stats(s.e, 0)->overdue, 2);
	end(&s, 300, 1, "frame", 1);
	assert_int_equal(c.completed, 1);
	scn_fini(&s);
}

/*
 * Events lost while an action is open (discarded, or a disconnection): its end
 * may be among them, so it is not reported as overdue but counted as unsure.
 * An action that began after the loss is reported as usual.
 */
static void overdue_after_loss(void **state)
{
	struct scn s;
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct counts c = { 0 };

	jank_engine_config_defaults(&cfg);
	cfg.overdue_grace_ns = 50;
	scn_init(&s, &scn_layout_current, &cfg);
	add_rule(&s, "name,id", NULL, "100ns");
	jank_engine_set_verdict_cb(s.e, count, &c);
	scn_switch(&s, 0, 0, 0, 0, 1);
	begin(&s, 10, 1, "frame", 1);
	jank_engine_discarded(s.e, 0, 40, 7);
	begin(&s, 60, 1, "frame", 2);
	jank_engine_tick(s.e, 200);
	assert_int_equal(c.overdue, 0);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.overdue_unsure, 1);
	assert_int_equal(st.discarded_events, 7);
	jank_engine_tick(s.e, 300);
	assert_int_equal(c.overdue, 1);
	assert_string_equal(c.last_key, "name=frame,id=2");
	jank_engine_tick(s.e, 400);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.overdue_unsure, 1);
	assert_int_equal(st.overdue, 1);
	/* Its end did come: a completed report, as usual. */
	end(&s, 500, 1, "frame", 1);
	assert_int_equal(c.completed, 1);
	scn_fini(&s);
}

/*
 * Each verdict counts the events discarded in ranges overlapping its
 * interval: none for an action before, after or between the ranges, the
 * sum of all those it overlaps, bounds included.
 */
static void discarded_in_interval(void **state)
{
	struct scn s;
	struct counts c = { 0 };

	scn_init(&s, &scn_layout_current, NULL);
	add_rule(&s, "name,id", NULL, "1ns");
	jank_engine_set_verdict_cb(s.e, count, &c);
	scn_switch(&s, 0, 0, 0, 0, 1);
	begin(&s, 10, 1, "frame", 1);
	end(&s, 40, 1, "frame", 1);
	assert_int_equal(c.completed, 1);
	assert_int_equal(c.last_discarded, 0);
	jank_engine_discarded_range(s.e, 0, 45, 60, 7);
	begin(&s, 50, 1, "frame", 2);
	jank_engine_discarded_range(s.e, 1, 80, 70, 5); /* reversed: 70 to 80 */
	end(&s, 90, 1, "frame", 2);
	assert_string_equal(c.last_key, "name=frame,id=2");
	assert_int_equal(c.last_discarded, 12);
	/* After both ranges, and between two: nothing. */
	begin(&s, 100, 1, "frame", 3);
	end(&s, 110, 1, "frame", 3);
	assert_int_equal(c.last_discarded, 0);
	jank_engine_discarded(s.e, 0, 120, 3); /* one instant */
	jank_engine_discarded_range(s.e, 0, 200, 210, 4);
	begin(&s, 130, 1, "frame", 4);
	end(&s, 199, 1, "frame", 4);
	assert_int_equal(c.last_discarded, 0);
	/* A range that ends where the action begins, and one that begins where it ends. */
	begin(&s, 210, 1, "frame", 5);
	jank_engine_discarded_range(s.e, 0, 220, 300, 6);
	end(&s, 220, 1, "frame", 5);
	assert_int_equal(c.last_discarded, 10);
	/* Nothing discarded (a disconnection): no range. */
	jank_engine_discarded_range(s.e, 0, 400, 400, 0);
	begin(&s, 350, 1, "frame", 6);
	end(&s, 450, 1, "frame", 6);
	assert_int_equal(c.last_discarded, 0);
	assert_int_equal(c.completed, 6);
	scn_fini(&s);
}

/* Adaptive threshold: nothing during warm-up, then p50*2 of what was learned. */
static void adaptive_threshold(void **state)
{
	struct scn s;
	struct counts c = { 0 };
	struct jank_rule r;

	scn_init(&s, &scn_layout_current, NULL);
	jank_rule_init(&r);
	r.name = "frame";
	r.begin_event = "jank:action_begin";
	r.end_event = "jank:action_end";
	assert_int_equal(jank_threshold_parse("p50*2", &r.threshold), 0);
	r.threshold.warmup = 10;
	assert_true(jank_engine_add_rule(s.e, &r) >= 0);
	jank_engine_set_verdict_cb(s.e, count, &c);
	int64_t t = 0;

	for (int i = 0; i < 10; i++, t += 1000) {
		begin(&s, t, 1, "frame", i);
		end(&s, t + (i == 3 ? 900 : 100), 1, "frame", i);
	}
	assert_int_equal(c.completed, 0); /* warm-up */
	begin(&s, t, 1, "frame", 10);
	end(&s, t + 150, 1, "frame", 10);
	assert_int_equal(c.completed, 0);
	begin(&s, t + 1000, 1, "frame", 11);
	end(&s, t + 1300, 1, "frame", 11);
	assert_int_equal(c.completed, 1);
	assert_true(c.last_threshold >= 200 && c.last_threshold <= 214);
	scn_fini(&s);
}

/* Rules are frozen once events flow. */
static void rules_frozen(void **state)
{
	struct scn s;

	struct jank_rule r;

	scn_init(&s, &scn_layout_current, NULL);
	jank_rule_init(&r);
	r.begin_event = "a";
	r.end_event = "b";
	assert_int_equal(jank_engine_add_rule(s.e, &r), -EINVAL); /* no name */
	r.name = "x";
	assert_int_equal(jank_engine_add_rule(s.e, &r), 0);
	scn_switch(&s, 0, 0, 0, 0, 1);
	assert_int_equal(jank_engine_add_rule(s.e, &r), -EBUSY);
	scn_fini(&s);
}

/* Reload: unchanged rules keep open actions and histograms; classes resolve again. */
static void replace_rules(void **state)
{
	struct scn s;
	struct counts c = { 0 };
	struct jank_rule r[2];
	struct jank_engine_stats st;
	uint64_t gen;

	scn_init(&s, &scn_layout_current, NULL);
	add_rule(&s, "name,id", NULL, "100ns");
	jank_engine_set_verdict_cb(s.e, count, &c);
	begin(&s, 0, 1, "frame", 1);
	end(&s, 50, 1, "frame", 1);
	begin(&s, 60, 1, "frame", 2);
	gen = jank_engine_generation(s.e);

	/* Same rule with a lower threshold, plus a new one. */
	for (int i = 0; i < 2; i++) {
		jank_rule_init(&r[i]);
		r[i].name = strdup(i ? "tick" : "frame");
		r[i].begin_event = strdup(i ? "app:tick_begin" : "jank:action_begin");
		r[i].end_event = strdup(i ? "app:tick_end" : "jank:action_end");
		assert_int_equal(jank_threshold_parse("10ns", &r[i].threshold), 0);
	}
	assert_int_equal(jank_rule_set_keys(&r[0], "name,id"), 0);
	assert_int_equal(jank_engine_replace_rules(s.e, r, 2), 0);
	assert_int_not_equal(jank_engine_generation(s.e), gen);
	assert_int_equal(jank_engine_rule_count(s.e), 2);
	assert_int_equal(jank_engine_rule_histogram(s.e, 0)->count, 1);
	/* The class cache was dropped: the helper must resolve again. */
	s.nclasses = 0;
	end(&s, 90, 1, "frame", 2); /* opened before the reload, 30 ns: a jank now */
	assert_int_equal(c.completed, 1);
	scn_ust(&s, 100, 0, 1, "app:tick_begin", I("x", 0));
	scn_ust(&s, 200, 0, 1, "app:tick_end", I("x", 0));
	assert_int_equal(c.completed, 2);

	/* A changed key drops the open actions of that rule, counted. */
	begin(&s, 300, 1, "frame", 3);
	for (unsigned k = 0; k < r[0].nkeys; k++)
		free(r[0].keys[k]);
	r[0].nkeys = 0;
	assert_int_equal(jank_engine_replace_rules(s.e, r, 1), 0);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.actions_dropped, 1);
	assert_int_equal(st.actions_open, 0);
	/* Bad rules are refused and the old ones stay. */
	free(r[1].name);
	r[1].name = NULL;
	assert_int_equal(jank_engine_replace_rules(s.e, r, 2), -EINVAL);
	assert_int_equal(jank_engine_rule_count(s.e), 1);
	jank_rule_fini(&r[0]);
	jank_rule_fini(&r[1]);
	scn_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys_parse),
		cmocka_unit_test(match_parse),
		cmocka_unit_test(threshold_parse),
		cmocka_unit_test(default_key_and_threshold),
		cmocka_unit_test(keys_and_match),
		cmocka_unit_test(long_keys),
		cmocka_unit_test(key_in_place),
		cmocka_unit_test(key_values_in_place),
		cmocka_unit_test(key_folded_match),
		cmocka_unit_test(key_lengths),
		cmocka_unit_test(table_lookups),
		cmocka_unit_test(repeated_begin),
		cmocka_unit_test(expiry),
		cmocka_unit_test(overdue),
		cmocka_unit_test(overdue_after_loss),
		cmocka_unit_test(discarded_in_interval),
		cmocka_unit_test(adaptive_threshold),
		cmocka_unit_test(rules_frozen),
		cmocka_unit_test(replace_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
