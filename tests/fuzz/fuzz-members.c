/* SPDX-License-Identifier: MIT */
/*
 * fuzz-members: the supervisor's decoding of a worker's frames, structure
 * aware. fuzz-frames feeds arbitrary bytes, which rarely get past the JSON
 * parser into the members; here every input starts from a valid frame of
 * each kind a worker sends (a status with rules, histograms and a
 * composition, made by input-figures.c as the worker makes it; a verdict
 * with its path, suspects and spans (corpus/verdict/flow-span.json); a list of
 * sessions, a log line) and mutates its members: of the wrong type, out
 * of range (integers at and past their limits, huge doubles), missing,
 * repeated (an element copied many times over, a member put where another
 * was), huge (strings of up to 256 KiB, arrays of thousands), strings with
 * control characters, NULs and invalid UTF-8, and subtrees of one kind of
 * frame grafted into another. The result goes through the frame (put, then
 * taken back as the supervisor's socket reads it) and into the decoder of
 * its type (daemon/worker-proto.c, through io/json-read.c and
 * io/verdict-json.c), built against the real json-c: an assertion of
 * json-c's (an array call on a number) is a crash here.
 *
 * The input: byte 0 picks the frame (0 status, 1 verdict, 2 sessions,
 * 3 log: JANK_FUZZ_TEMPLATES=1 prints them, to write seeds that reach a
 * given member); then operations, each a path (per
 * level, a byte: stop here when even, else the child (byte >> 1) modulo
 * the count) and a mutation (a byte, then what it takes).
 *
 * Checked: a decoder returns 0, -EINVAL with a one-line error, or -ENOMEM;
 * what it accepted is within its ranges (the figures as fuzz-frames checks
 * them; every session's names non-empty, without '/' or control
 * characters; a verdict's path within its action, in time order).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <event2/buffer.h>
#include "config-file.h"
#include "fuzz-check.h"
#include "input-figures.h"
#include "textsafe.h"
#include "worker-proto.h"

#define ERR_LEN	   512
#define MAX_DEPTH  12
#define MAX_OPS	   8
#define HUGE_STR   (256u << 10)
#define MAX_COPIES 5000

enum {
	T_STATUS,
	T_VERDICT,
	T_SESSIONS,
	T_LOG,
	T_COUNT
};
static struct json_object *templates[T_COUNT];
static struct jank_rule rules[2];

struct in {
	const uint8_t *d;
	size_t n, at;
};

static unsigned byte(struct in *in)
{
	return in->at < in->n ? in->d[in->at++] : 0;
}

/* ---- The templates: the seeds of fuzz-frames and fuzz-verdict ---- */

static char *slurp(const char *name, size_t skip, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf = malloc(1 << 20);
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", JANK_FUZZ_CORPUS, name);
	f = fopen(path, "rb");
	if (!f || !buf) {
		fprintf(stderr, "fuzz-members: cannot read %s\n", path);
		abort();
	}
	n = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	FUZZ_ASSERT(n > skip);
	memmove(buf, buf + skip, n - skip);
	buf[n - skip] = '\0';
	*len = n - skip;
	return buf;
}

/* The first frame of a frames seed: its chunk byte and length skipped. */
static struct json_object *frame_seed(const char *name)
{
	size_t len;
	char *text = slurp(name, 5, &len);
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = json_tokener_parse_ex(tok, text, (int)len);

	FUZZ_ASSERT(o && json_object_is_type(o, json_type_object));
	json_tokener_free(tok);
	free(text);
	return o;
}

/* A status as a worker sends it: every figure, two rules, a histogram, a composition. */
static struct json_object *status_template(void)
{
	struct jank_composition_entry comp[2] = { { .on = "db/io" }, { .on = "other" } };
	struct jank_input_figures f;
	struct json_object *msg = jank_worker_proto_new("status");

	jank_input_figures_init(&f);
	f.reported = f.counted = true;
	snprintf(f.url, sizeof(f.url), "net://r/host/h/s");
	snprintf(f.state, sizeof(f.state), "connected");
	f.attached = true;
	f.engine.events = 1000;
	f.events_per_sec = 12.5;
	f.trace_now = 1700000000000000000LL;
	f.engine.first = 10;
	f.last_event_ns = 20;
	FUZZ_ASSERT(jank_input_figures_set_rules(&f, 2) == 0);
	snprintf(f.rules[0].action, sizeof(f.rules[0].action), "frame");
	snprintf(f.rules[1].action, sizeof(f.rules[1].action), "query");
	jank_histogram_add(&f.rules[0].hist, 1000);
	jank_histogram_add(&f.rules[0].hist, 5000000);
	f.rules[0].count = 2;
	jank_histogram_add(&f.rules[1].hist, 70000);
	f.rules[1].count = 1;
	comp[0].ns[JANK_CLASS_SLOW][JANK_STATE_BLOCK_DEVICE] = 7000000;
	comp[1].ns[JANK_CLASS_NORMAL][JANK_STATE_RUNNING] = 1;
	f.rules[0].composition_top = 2;
	FUZZ_ASSERT(jank_input_figures_set_composition(&f.rules[0], comp, 2) == 0);
	json_object_object_add(msg, "input", jank_input_figures_json(&f));
	jank_input_figures_fini(&f);
	return msg;
}

static void load_templates(void)
{
	size_t len;
	char *v = slurp("verdict/flow-span.json", 0, &len);
	struct json_object *verdict = json_tokener_parse(v);

	FUZZ_ASSERT(verdict);
	free(v);
	rules[0].name = "frame";
	rules[1].name = "query";
	templates[T_STATUS] = status_template();
	templates[T_SESSIONS] = frame_seed("frames/sessions");
	templates[T_LOG] = frame_seed("frames/log");
	templates[T_VERDICT] = jank_worker_proto_new("verdict");
	json_object_object_add(templates[T_VERDICT], "first_event_ns", json_object_new_int64(5));
	json_object_object_add(templates[T_VERDICT], "verdict", verdict);
	/* A second session and rule, so that arrays have siblings. */
	json_object_array_add(json_object_object_get(templates[T_SESSIONS], "sessions"),
			      json_tokener_parse("[\"web-1\", \"frames\"]"));
	/* Each template is read whole: else the mutations would not reach past the first error. */
	{
		struct jank_input_figures fig;
		struct jank_verdict_decoded pv;
		struct jank_worker_proto_sessions ss;
		char err[ERR_LEN] = "", line[64];
		int prio;

		jank_input_figures_init(&fig);
		if (jank_worker_proto_figures_decode(
			    json_object_object_get(templates[T_STATUS], "input"), &fig, err,
			    sizeof(err)) != 0 ||
		    jank_worker_proto_verdict_decode(verdict, rules, 2, &pv, err, sizeof(err)) !=
			    0 ||
		    jank_worker_proto_sessions_decode(templates[T_SESSIONS], &ss, err,
						      sizeof(err)) != 0 ||
		    jank_worker_proto_log_decode(templates[T_LOG], &prio, line, sizeof(line)) !=
			    0) {
			fprintf(stderr, "fuzz-members: a template is not read whole: %s\n", err);
			abort();
		}
		jank_input_figures_fini(&fig);
		jank_verdict_decoded_fini(&pv);
		jank_worker_proto_sessions_fini(&ss);
	}
	/* To write seeds that reach a member: the templates as walked. */
	if (getenv("JANK_FUZZ_TEMPLATES"))
		for (int t = 0; t < T_COUNT; t++)
			fprintf(stderr, "%s\n",
				json_object_to_json_string_ext(templates[t],
							       JSON_C_TO_STRING_PLAIN));
}

/* ---- Walking to a node ---- */

struct spot {
	struct json_object *parent; /* NULL: the root */
	char key[256];		    /* in an object */
	size_t idx;		    /* in an array */
	struct json_object *node;
};

static size_t children(struct json_object *o)
{
	if (json_object_is_type(o, json_type_object))
		return (size_t)json_object_object_length(o);
	if (json_object_is_type(o, json_type_array))
		return json_object_array_length(o);
	return 0;
}

static void walk(struct in *in, struct json_object *root, struct spot *s)
{
	memset(s, 0, sizeof(*s));
	s->node = root;
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		unsigned b = byte(in);
		size_t n = children(s->node), k;

		if (!(b & 1) || !n)
			return;
		k = (b >> 1) % n;
		s->parent = s->node;
		if (json_object_is_type(s->node, json_type_array)) {
			s->idx = k;
			s->node = json_object_array_get_idx(s->node, k);
		} else {
			json_object_object_foreach(s->parent, key, v)
			{
				if (k-- == 0) {
					snprintf(s->key, sizeof(s->key), "%s", key);
					s->node = v;
					break;
				}
			}
		}
		if (!s->node)
			return;
	}
}

/* Put `v` (taken) where the spot is. */
static void put(struct spot *s, struct json_object *v)
{
	if (!s->parent) {
		json_object_put(v);
		return;
	}
	if (json_object_is_type(s->parent, json_type_array))
		json_object_array_put_idx(s->parent, s->idx, v);
	else
		json_object_object_add(s->parent, s->key, v);
}

static void del(struct spot *s)
{
	if (!s->parent)
		return;
	if (json_object_is_type(s->parent, json_type_array))
		json_object_array_del_idx(s->parent, s->idx, 1);
	else
		json_object_object_del(s->parent, s->key);
}

/* ---- Mutations ---- */

static const int64_t edges[] = { 0,	    -1,		  1,
				 5,	    975,	  976,
				 65535,	    INT32_MAX,	  INT32_MIN,
				 INT64_MAX, INT64_MIN,	  INT64_MAX - 1,
				 1LL << 53, -(1LL << 53), 86400000000000LL };
static const double reals[] = { -0.5, 0.5, 1e12, 1e12 + 1, 1e300, -1e300, 5e-324 };

static struct json_object *some_string(struct in *in)
{
	size_t n = byte(in) % 24;
	char buf[24];

	for (size_t i = 0; i < n; i++)
		buf[i] = (char)byte(in); /* NULs, controls, '/', invalid UTF-8 */
	return json_object_new_string_len(buf, (int)n);
}

static struct json_object *huge_string(struct in *in)
{
	size_t n = (size_t)(byte(in) + 1) * (HUGE_STR / 256);
	char *buf = malloc(n);
	struct json_object *o;

	FUZZ_ASSERT(buf);
	memset(buf, "xé/\n"[byte(in) % 4], n);
	o = json_object_new_string_len(buf, (int)n);
	free(buf);
	return o;
}

static struct json_object *some_array(struct in *in)
{
	static const char *const shapes[] = {
		"[]",	  "[5]",  "[[5]]",   "[[1,2,3]]", "[[0,1]]",
		"[null]", "[{}]", "[\"a\"]", "[[\"h\"]]", "[[\"h\",\"s\",\"t\"]]",
		"[[]]"
	};

	return json_tokener_parse(shapes[byte(in) % (sizeof(shapes) / sizeof(shapes[0]))]);
}

static struct json_object *some_object(struct in *in)
{
	static const char *const shapes[] = { "{}", "{\"a\":1}", "{\"on\":5}", "{\"running\":-1}",
					      "{\"buckets\":[5]}" };

	return json_tokener_parse(shapes[byte(in) % (sizeof(shapes) / sizeof(shapes[0]))]);
}

/* A node of another template, copied. */
static struct json_object *graft(struct in *in)
{
	struct spot s;
	struct json_object *copy = NULL;

	walk(in, templates[byte(in) % T_COUNT], &s);
	if (json_object_deep_copy(s.node, &copy, NULL) != 0)
		return NULL;
	return copy;
}

/* An element repeated: copies of the node after it (an array), or put in a sibling's place. */
static void repeat(struct in *in, struct spot *s)
{
	size_t copies = (size_t)byte(in) * 20 % MAX_COPIES + 1, len = 0;

	if (!s->parent || !s->node)
		return;
	/* At most 5 MiB more each time: past 4 MiB, the frame is refused anyway. */
	json_object_to_json_string_length(s->node, JSON_C_TO_STRING_PLAIN, &len);
	if (copies > (5u << 20) / (len + 1))
		copies = (5u << 20) / (len + 1);
	if (json_object_is_type(s->parent, json_type_array)) {
		for (size_t i = 0; i < copies; i++)
			json_object_array_add(s->parent, json_object_get(s->node));
		return;
	}
	{
		struct spot to = *s;
		size_t n = children(s->parent), k = byte(in) % (n ? n : 1);

		json_object_object_foreach(s->parent, key, v)
		{
			(void)v;
			if (k-- == 0) {
				snprintf(to.key, sizeof(to.key), "%s", key);
				break;
			}
		}
		put(&to, json_object_get(s->node));
	}
}

static void mutate(struct in *in, struct json_object *root)
{
	struct spot s;
	unsigned op;

	walk(in, root, &s);
	op = byte(in) % 13;
	switch (op) {
	case 0:
		del(&s);
		break;
	case 1:
		put(&s, json_object_new_int64((int8_t)byte(in)));
		break;
	case 2:
		put(&s,
		    json_object_new_int64(edges[byte(in) % (sizeof(edges) / sizeof(edges[0]))]));
		break;
	case 3:
		put(&s,
		    json_object_new_double(reals[byte(in) % (sizeof(reals) / sizeof(reals[0]))]));
		break;
	case 4:
		put(&s, some_string(in));
		break;
	case 5:
		put(&s, huge_string(in));
		break;
	case 6:
		put(&s, json_object_new_boolean(byte(in) & 1));
		break;
	case 7:
		put(&s, NULL); /* null */
		break;
	case 8:
		put(&s, some_array(in));
		break;
	case 9:
		put(&s, some_object(in));
		break;
	case 10:
		repeat(in, &s);
		break;
	case 11:
		put(&s, graft(in));
		break;
	case 12:
		/* A member of a name the decoders do not know. */
		if (json_object_is_type(s.node, json_type_object))
			json_object_object_add(s.node, "unknown", json_object_new_int(1));
		break;
	}
}

/* ---- What the supervisor does with it ---- */

static void check_err(int r, const char *err)
{
	FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r < 0) {
		FUZZ_ASSERT(err[0] && memchr(err, '\0', ERR_LEN));
		for (const char *c = err; *c; c++)
			FUZZ_ASSERT(*c != '\n');
	}
}

static void check_histogram(const struct jank_histogram *h)
{
	uint64_t n = 0;

	for (int i = 0; i < JANK_HIST_BUCKETS; i++) {
		FUZZ_ASSERT(n + h->buckets[i] >= n);
		n += h->buckets[i];
	}
	FUZZ_ASSERT(n == h->count);
	FUZZ_ASSERT(!h->count || h->min <= h->max);
}

static void status(struct json_object *msg)
{
	struct json_object *o = NULL;
	struct jank_input_figures f;
	char err[ERR_LEN] = "";
	int r;

	if (!json_object_object_get_ex(msg, "input", &o))
		return; /* a heartbeat */
	jank_input_figures_init(&f);
	r = jank_worker_proto_figures_decode(o, &f, err, sizeof(err));
	check_err(r, err);
	if (r < 0) {
		FUZZ_ASSERT(f.nrules == 0 && !f.reported);
	} else {
		FUZZ_ASSERT(f.reported && f.nrules <= JANK_FIGURES_MAX_RULES);
		FUZZ_ASSERT(memchr(f.url, '\0', sizeof(f.url)) &&
			    memchr(f.state, '\0', sizeof(f.state)));
		for (size_t i = 0; i < f.nrules; i++) {
			FUZZ_ASSERT(f.rules[i].count == f.rules[i].hist.count);
			FUZZ_ASSERT(f.rules[i].ncomp <= f.rules[i].composition_top + 1);
			FUZZ_ASSERT(f.rules[i].composition_top <= JANK_COMPOSITION_TOP_MAX);
			for (size_t k = 0; k < f.rules[i].ncomp; k++)
				FUZZ_ASSERT(f.rules[i].comp[k].on[0]);
			check_histogram(&f.rules[i].hist);
		}
	}
	jank_input_figures_fini(&f);
}

static void verdict(struct json_object *msg)
{
	struct json_object *o = NULL;
	struct jank_verdict_decoded pv;
	char err[ERR_LEN] = "";
	int r;

	if (!json_object_object_get_ex(msg, "verdict", &o) ||
	    !json_object_is_type(o, json_type_object))
		return; /* fleet.c refuses it before decoding */
	r = jank_worker_proto_verdict_decode(o, rules, 2, &pv, err, sizeof(err));
	check_err(r, err);
	if (r == 0) {
		const struct jank_path *p = pv.v.path;
		int64_t at = pv.v.begin;

		FUZZ_ASSERT(pv.v.rule && pv.v.begin <= pv.v.end);
		for (size_t i = 0; p && i < p->n; i++) {
			FUZZ_ASSERT(p->segs[i].begin >= at && p->segs[i].begin <= p->segs[i].end);
			FUZZ_ASSERT(p->segs[i].end <= pv.v.end);
			at = p->segs[i].end;
		}
	}
	jank_verdict_decoded_fini(&pv);
}

static void sessions(struct json_object *msg)
{
	struct jank_worker_proto_sessions ss;
	char err[ERR_LEN] = "";
	int r = jank_worker_proto_sessions_decode(msg, &ss, err, sizeof(err));

	check_err(r, err);
	if (r == 0 && ss.ok)
		FUZZ_ASSERT(ss.n <= JANK_PROTO_MAX_SESSIONS);
	if (r == 0 && !ss.ok)
		FUZZ_ASSERT(ss.n == 0 && memchr(ss.error, '\0', sizeof(ss.error)));
	for (size_t i = 0; r == 0 && i < ss.n; i++) {
		const char *h = ss.v[i].host, *s = ss.v[i].session;

		FUZZ_ASSERT(h[0] && s[0] && !strchr(h, '/') && !strchr(s, '/'));
		FUZZ_ASSERT(strlen(h) < JANK_PROTO_HOST_LEN && strlen(s) < JANK_CONFIG_SESSION_LEN);
		FUZZ_ASSERT(jank_text_is_safe(h, strlen(h)) && jank_text_is_safe(s, strlen(s)));
	}
	jank_worker_proto_sessions_fini(&ss);
}

static void log_line(struct json_object *msg)
{
	char line[JANK_PROTO_LOG_LEN];
	int prio, r = jank_worker_proto_log_decode(msg, &prio, line, sizeof(line));

	FUZZ_ASSERT(r == 0 || r == -EINVAL);
	FUZZ_ASSERT(prio >= LOG_ERR && prio <= LOG_DEBUG);
	for (const char *c = line; *c; c++)
		FUZZ_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7f);
}

/* Framed and taken back as the supervisor's socket reads it; then decoded by its type. */
static void supervise(struct json_object *msg)
{
	struct evbuffer *b = evbuffer_new();
	struct json_object *got = NULL;
	const char *type;
	int r;

	FUZZ_ASSERT(b);
	r = jank_worker_proto_put(b, msg);
	if (r < 0) {
		FUZZ_ASSERT(r == -EMSGSIZE || r == -ENOMEM);
		evbuffer_free(b);
		return;
	}
	r = jank_worker_proto_take(b, &got);
	evbuffer_free(b);
	/* json-c may write what it does not read back (a huge double): refused, not decoded. */
	if (r != 1) {
		FUZZ_ASSERT(r == -EPROTO && !got);
		return;
	}
	type = jank_worker_proto_type(got);
	if (!strcmp(type, "status"))
		status(got);
	else if (!strcmp(type, "verdict"))
		verdict(got);
	else if (!strcmp(type, "sessions"))
		sessions(got);
	else if (!strcmp(type, "log"))
		log_line(got);
	json_object_put(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { .d = data, .n = size };
	struct json_object *msg = NULL;
	unsigned t;

	if (!templates[0])
		load_templates();
	t = byte(&in);
	FUZZ_ASSERT(json_object_deep_copy(templates[t % T_COUNT], &msg, NULL) == 0);
	for (int i = 0; i < MAX_OPS && in.at < in.n; i++)
		mutate(&in, msg);
	supervise(msg);
	json_object_put(msg);
	return 0;
}
