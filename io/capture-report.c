/* SPDX-License-Identifier: MIT */
/*
 * Capture reports (see capture-report.h).
 *
 * The flagged action is looked for with report_all on, so that every
 * completed action of the rule is seen, and with the threshold recorded at
 * capture time (an adaptive threshold would still be warming up offline).
 * The live engine and the capture session are two lttng sessions: their
 * clock offsets may differ by a few microseconds, hence "the end closest to
 * the recorded one" rather than an exact match.
 *
 * Each report file is written to a temporary name and renamed, so that a
 * reader (jankctl captures, a browser) never sees half a file.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "capture-binaries.h"
#include "capture-json.h"
#include "crosshost.h"
#include "dirtree.h"
#include "errbuf.h"
#include "json-read.h"
#include "json-util.h"
#include "textsafe.h"
#include "trace-reader.h"
#include "format.h"
#include "capture-report.h"
#include "symbols.h"
#include "critpath-svg.h"
#include "flame-path.h"
#include "units.h"
#include "verdict-json.h"

#define ERR_LEN 1024

/* ---- capture.json (capture-json.h) ---- */

struct meta {
	struct jank_capture_record rec; /* rec.rule: with the threshold the live engine applied */
	struct jank_rule act_rule;	/* the flagged action's stub rule (its name) */
	struct jank_verdict act_v;
	const struct jank_verdict *act; /* the flagged action (its verdict's head): &act_v */
};

static void meta_fini(struct meta *m)
{
	jank_capture_record_fini(&m->rec);
	memset(m, 0, sizeof(*m));
}

/* Returns 0, -ENOENT, -EINVAL or -ENOMEM (message in err). */
static int meta_load(struct meta *m, const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX], why[ERR_LEN];
	struct stat st;
	bool missing;
	int r;

	memset(m, 0, sizeof(*m));
	jank_capture_record_init(&m->rec);
	if (stat(dir, &st) != 0) {
		jank_errf(err, errlen, "%s: %s", dir, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		jank_errf(err, errlen, "%s: not a directory (expected a capture directory)", dir);
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, JANK_CAPTURE_FILE);
	r = jank_capture_record_load(path, &m->rec, &missing, why, sizeof(why));
	if (r == -ENOENT && missing) {
		jank_errf(err, errlen, "%s: no %s (not a capture directory)", dir,
			  JANK_CAPTURE_FILE);
		return -ENOENT;
	}
	if (r < 0) {
		jank_errf(err, errlen, "%s: %s", path, why);
		return r == -ENOMEM ? r : -EINVAL;
	}
	if (!m->rec.rule.name || !m->rec.action.action) { /* a verdict without a rule */
		jank_errf(err, errlen, "%s: bad '%s': missing", path,
			  !m->rec.rule.name ? "rule.name" : "action.action");
		return -EINVAL;
	}
	jank_capture_action_verdict(&m->rec.action, &m->act_rule, &m->act_v);
	m->act = &m->act_v;
	if (m->act->tid < 0) { /* the report follows the action's thread */
		jank_errf(err, errlen, "%s: bad 'action.tid': %" PRId32 ", not a thread", path,
			  m->act->tid);
		return -EINVAL;
	}
	/* Offline, the threshold is the one the live engine applied. */
	m->rec.rule.threshold.kind = JANK_THRESHOLD_FIXED;
	m->rec.rule.threshold.ns = m->act->threshold;
	return 0;
}

/* ---- Finding the action ---- */

struct found {
	const struct meta *m;
	bool ok;
	int64_t diff;
	struct jank_verdict rep; /* path, breakdown and strings point below */
	struct jank_path path;
	struct jank_breakdown bd;
	struct jank_profile pf;	  /* for suspects against the whole capture */
	struct jank_suspects sus; /* the engine's own are overwritten by the next jank */
	bool has_sus;
	char key[JANK_KEY_LEN];
	char comm[JANK_COMM_LEN];
	struct jank_symbols *sym;     /* what named the path's frames, NULL */
	struct json_object *binaries; /* binaries.json of the path, as `sym` saw them then */
	int err;
};

/*
 * Whether the engine's key is capture.json's: JSON holds it as valid UTF-8
 * (json-util.h), so a key with invalid bytes is compared as JSON has it.
 */
static bool same_key(const char *key, const char *json_key)
{
	char k[JANK_KEY_LEN * 3 + 4];

	return !strcmp(key, json_key) || !strcmp(jank_utf8(k, sizeof(k), key), json_key);
}

static void on_report(const struct jank_verdict *r, void *data)
{
	struct found *fd = data;
	int64_t diff;

	if (r->kind != JANK_VERDICT_COMPLETED || !r->key || !same_key(r->key, fd->m->act->key) ||
	    !r->path)
		return;
	diff = r->end > fd->m->act->end ? r->end - fd->m->act->end : fd->m->act->end - r->end;
	if (fd->ok && diff >= fd->diff)
		return;
	if (jank_path_copy(&fd->path, r->path) < 0 || jank_profile_copy(&fd->pf, r->profile) < 0) {
		fd->err = -ENOMEM;
		return;
	}
	/* Now: the symbolizer's mappings are those that named the frames. */
	json_object_put(fd->binaries);
	fd->binaries = jank_capture_binaries_json(&fd->path, fd->sym);
	if (!fd->binaries) {
		fd->err = -ENOMEM;
		return;
	}
	fd->has_sus = r->suspects != NULL;
	if (r->suspects)
		fd->sus = *r->suspects;
	fd->ok = true;
	fd->diff = diff;
	fd->rep = *r;
	jank_utf8_copy(fd->key, sizeof(fd->key), r->key);
	jank_utf8_copy(fd->comm, sizeof(fd->comm), r->comm ? r->comm : "");
}

/* ---- Writing ---- */

struct out {
	const char *dir;
	const char *out_dir; /* where the report files go: dir, another, or NULL: stdout */
	const struct meta *m;
	const struct jank_verdict *rep; /* NULL when there is no path */
	const struct jank_graph *g;
	struct json_object *binaries; /* binaries.json, with a path */
	const char *error;	      /* why there is no path */
	const char *note;	      /* about a partial path */
	const char *live_hosts;	      /* the path's other hosts, as jankd joined them live */
	const char *match;	      /* "end_event" or "recorded_interval" */
	const char
		*baseline; /* suspects against the normal actions "before" it, or the "capture"'s */
	struct jank_reader_stats in;
	char summary[JANK_CAPTURE_REPORT_SUMMARY_LEN];
	char cause[420];
};

/*
 * What capture.json and the trace say came from traced programs (names,
 * keys, comm) is escaped and cut in the text (lib/textsafe.h).
 */
static void thread_name(int32_t tid, const char *comm, char *buf, size_t len)
{
	char ec[JANK_TEXT_SIZE(32)];

	if (comm && comm[0])
		snprintf(buf, len, "tid %" PRId32 " (%s)", tid, jank_text(ec, sizeof(ec), comm));
	else
		snprintf(buf, len, "tid %" PRId32, tid);
}

/* "88.9% block_device on tid 4377 (db)", and the whole line before it. */
static void summarize(struct out *o)
{
	const struct jank_verdict *r = o->rep;
	const struct meta *m = o->m;
	char d[32], t[32], th[JANK_FORMAT_THREAD_LEN + JANK_TEXT_SIZE(32) + 8], head[1200];
	char en[JANK_TEXT_BUF], ek[JANK_TEXT_BUF];

	snprintf(head, sizeof(head), "%s%s%s%s %s", jank_text(en, sizeof(en), m->rec.rule.name),
		 m->act->key[0] ? " [" : "", jank_text(ek, sizeof(ek), m->act->key),
		 m->act->key[0] ? "]" : "",
		 jank_units_duration(r ? r->duration : m->act->duration, d, sizeof(d)));
	if (m->act->threshold > 0) {
		size_t n = strlen(head);

		snprintf(head + n, sizeof(head) - n, " (threshold %s)",
			 jank_units_duration(m->act->threshold, t, sizeof(t)));
	}
	if (!r) {
		const char *why = o->error;
		size_t n = strlen(o->dir);

		/* The error names the capture for stderr; the summary is about it already. */
		if (!strncmp(why, o->dir, n) && !strncmp(why + n, ": ", 2))
			why += n + 2;
		snprintf(o->cause, sizeof(o->cause), "no analysis: %s", why);
	} else if (!r->breakdown || r->breakdown->n == 0) {
		snprintf(o->cause, sizeof(o->cause), "empty critical path");
	} else {
		const struct jank_breakdown_item *it = &r->breakdown->items[0];
		int64_t total = r->path->end - r->path->begin;

		const struct jank_label *h =
			it->host ? jank_path_label_of(r->path, it->host) : NULL;

		thread_name(it->tid, it->comm, th, sizeof(th));
		/* A path across hosts: tids of two hosts collide, the host is said. */
		if (h) {
			char eh[JANK_TEXT_SIZE(32)];
			size_t n = strlen(th);

			snprintf(th + n, sizeof(th) - n, " on %s",
				 jank_text(eh, sizeof(eh), h->name));
		}
		snprintf(o->cause, sizeof(o->cause), "%.1f%% %s on %s%s", /* th fits */
			 total > 0 ? 100.0 * (double)it->ns / (double)total : 0.0,
			 jank_state_name(it->state), th, o->note ? " (partial path)" : "");
	}
	if (snprintf(o->summary, sizeof(o->summary), "%s: %s", head, o->cause) >=
	    (int)sizeof(o->summary))
		o->summary[jank_utf8_cut(o->summary, sizeof(o->summary) - 1)] = '\0';
}

/* No path: the action as capture.json records it, and why. */
static struct json_object *error_json(const struct out *o)
{
	struct jank_verdict v = *o->m->act;
	struct json_object *j;

	v.rule = &o->m->rec.rule;
	j = jank_verdict_to_json(&v, JANK_VERDICT_JSON_HEAD);
	if (j && jank_json_add_str(j, "error", o->error) < 0) {
		json_object_put(j);
		return NULL;
	}
	return j;
}

static int report_json(FILE *f, void *data)
{
	struct out *o = data;
	struct json_object *j =
		o->rep ? jank_verdict_to_json(o->rep, JANK_VERDICT_JSON_FULL) : error_json(o);
	struct json_object *an = json_object_new_object();
	int e = 0;

	if (!j || !an) {
		json_object_put(j);
		json_object_put(an);
		return -ENOMEM;
	}
	e |= jank_json_add(j, "capture", json_object_get(o->m->rec.json));
	e |= jank_json_add(j, "analysis", an);
	if (o->match)
		e |= jank_json_add(an, "match", jank_json_new_untrusted_string(o->match));
	if (o->rep && o->match && !strcmp(o->match, "end_event"))
		e |= jank_json_add(an, "end_offset_ns",
				   json_object_new_int64(o->rep->end - o->m->act->end));
	if (o->note)
		e |= jank_json_add(an, "note", jank_json_new_untrusted_string(o->note));
	if (o->live_hosts)
		e |= jank_json_add_str(an, "live_path", JANK_CAPTURE_LIVE_PATH_FILE);
	if (o->baseline)
		e |= jank_json_add(an, "baseline", json_object_new_string(o->baseline));
	if (o->rep) {
		struct json_object *pics = json_object_new_object();

		e |= jank_json_add(an, "pictures", pics);
		if (pics) {
			e |= jank_json_add_str(pics, "critical_path", JANK_CAPTURE_REPORT_SVG);
			e |= jank_json_add_str(pics, "flame", JANK_CAPTURE_REPORT_FLAME);
		}
		e |= jank_json_add_str(an, "binaries", JANK_CAPTURE_REPORT_BINARIES);
	}
	e |= jank_json_add(an, "events", json_object_new_int64((int64_t)o->in.events));
	e |= jank_json_add(an, "traces", json_object_new_int64((int64_t)o->in.traces));
	e |= jank_json_add(an, "jankctl_version", json_object_new_string(JANK_VERSION));
	e |= jank_json_add(j, "summary", jank_json_new_untrusted_string(o->summary));
	e |= jank_json_add(j, "cause", jank_json_new_untrusted_string(o->cause));
	if (e) {
		json_object_put(j);
		return -ENOMEM;
	}
	return jank_format_json_print(f, j);
}

/* "1714564800.123456789": a time for babeltrace2 --begin/--end. */
static const char *bt_time(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRId64 ".%09" PRId64, ns / 1000000000, ns % 1000000000);
	return buf;
}

/* What the state of the largest part of the path means, and where to look for more. */
static void state_hint(enum jank_state st, const char **what, const char **grep)
{
	*grep = NULL;
	switch (st) {
	case JANK_STATE_BLOCK_DEVICE:
		*what = "it waited for the disk. Its block requests during the action:";
		*grep = "block_rq_";
		break;
	case JANK_STATE_NETWORK:
		*what = "it waited for the network. The network events during the action:";
		*grep = "net_|netif_";
		break;
	case JANK_STATE_TIMER:
		*what = "it slept, or waited for a timeout (a timer woke it). The system calls:";
		*grep = "syscall_";
		break;
	case JANK_STATE_PREEMPTED:
		*what = "it could run, but other threads had the CPU. Who ran instead:";
		*grep = "sched_switch";
		break;
	case JANK_STATE_RUNNING:
		*what = "it was running: the time is its own work (profile it, e.g. with perf).";
		break;
	case JANK_STATE_LOCK_WAIT:
		*what = "it waited for a user-space mutex (see \"waiting for locks\" above).";
		break;
	case JANK_STATE_BLOCKED:
		*what = "it waited, and nothing in the trace says for what. Its system calls:";
		*grep = "syscall_";
		break;
	case JANK_STATE_INTERRUPTED:
	case JANK_STATE_IPI:
		*what = "an interrupt woke it. The interrupts during the action:";
		*grep = "irq_|ipi";
		break;
	case JANK_STATE_UNKNOWN:
	case JANK_STATE_USER_INPUT:
	case JANK_STATE_COUNT:
	default:
		*what = "the trace says little about this part (events lost, or the thread not "
			"seen yet).";
		break;
	}
}

static void next_steps(FILE *f, const struct out *o)
{
	const struct jank_verdict *r = o->rep;
	const struct jank_breakdown_item *top = NULL;
	char th[JANK_FORMAT_THREAD_LEN], d[32], b1[32], b2[32];
	const char *what, *grep;

	bt_time(r->begin, b1, sizeof(b1));
	bt_time(r->end, b2, sizeof(b2));
	fprintf(f, "What to look at next\n");
	if (r->breakdown && r->breakdown->n)
		top = &r->breakdown->items[0];
	if (top) {
		thread_name(top->tid, top->comm, th, sizeof(th));
		state_hint(top->state, &what, &grep);
		fprintf(f, "  * Most of the time (%s) went to %s in %s:\n    %s\n",
			jank_units_duration(top->ns, d, sizeof(d)), th, jank_state_name(top->state),
			what);
		if (grep)
			fprintf(f, "      babeltrace2 --begin=%s --end=%s %s | grep -E '%s'\n", b1,
				b2, o->dir, grep);
		if (top->tid != r->tid)
			fprintf(f,
				"  * What %s waited for, over the action, and its states and "
				"wakeups:\n"
				"      jankctl critpath --tid %" PRId32 " --begin %" PRId64
				" --end %" PRId64 " %s\n"
				"      jankctl graph --tid %" PRId32 " --format text %s\n",
				th, top->tid, r->begin, r->end, o->dir, top->tid, o->dir);
	}
	fprintf(f,
		"  * Every event of the action's interval (captures record syscalls, block and "
		"net):\n      babeltrace2 --begin=%s --end=%s %s\n",
		b1, b2, o->dir);
	fprintf(f, "  * The pictures (open them in a browser): %s/%s, and by call stack %s/%s\n",
		o->dir, JANK_CAPTURE_REPORT_SVG, o->dir, JANK_CAPTURE_REPORT_FLAME);
}

static int report_text(FILE *f, void *data)
{
	struct out *o = data;
	const struct meta *m = o->m;
	const char *when = m->rec.time, *mode = m->rec.mode, *session = m->rec.session;
	const char *host = m->rec.hostname, *version = m->rec.jankd_version;
	char d[32], th[JANK_FORMAT_THREAD_LEN], e1[JANK_TEXT_BUF], e2[JANK_TEXT_BUF];
	size_t joined = m->rec.njoined + (size_t)m->rec.joined_more;

	fprintf(f, "jank capture report: %s\n", jank_text(e1, sizeof(e1), o->dir));
	fprintf(f, "  taken     %s", when ? jank_text(e1, sizeof(e1), when) : "(unknown time)");
	if (host && host[0])
		fprintf(f, " on %s", jank_text(e1, sizeof(e1), host));
	if (mode)
		fprintf(f, ", %s", jank_text(e1, sizeof(e1), mode));
	if (session)
		fprintf(f, " of session %s", jank_text(e1, sizeof(e1), session));
	if (version)
		fprintf(f, " (jankd %s)", jank_text(e1, sizeof(e1), version));
	thread_name(m->act->tid, m->act->comm, th, sizeof(th));
	fprintf(f, "\n  flagged   %s%s%s%s: %s on %s\n",
		jank_text(e1, sizeof(e1), m->rec.rule.name), m->act->key[0] ? " [" : "",
		jank_text(e2, sizeof(e2), m->act->key), m->act->key[0] ? "]" : "",
		jank_units_duration(m->act->duration, d, sizeof(d)), th);
	if (joined > 0)
		fprintf(f, "  joined    %zu more janks happened during the capture (see %s)\n",
			joined, JANK_CAPTURE_FILE);
	fprintf(f, "  trace     %" PRIu64 " events in %" PRIu64 " trace%s\n", o->in.events,
		o->in.traces, o->in.traces == 1 ? "" : "s");
	fprintf(f, "  summary   %s\n", o->summary);
	if (o->rep && o->rep->suspects) {
		char line[JANK_FORMAT_SUSPECT_LEN];

		fprintf(f, "  suspect   %s%s\n",
			jank_format_suspects_line(o->rep->suspects, line, sizeof(line)),
			o->baseline && !strcmp(o->baseline, "capture")
				? " (against the normal actions of the whole capture)"
				: "");
	}
	fputc('\n', f);
	if (!o->rep) {
		char ee[JANK_TEXT_SIZE(1000)];

		jank_text_escape(ee, sizeof(ee), o->error, strlen(o->error), 1000);
		fprintf(f, "No critical path: %s.\n", ee);
		return 0;
	}
	if (o->note)
		fprintf(f, "Note: %s.\n\n", o->note);
	if (o->live_hosts) {
		char eh[JANK_TEXT_BUF];

		fprintf(f, "The path's part on %s is as jankd joined it live (%s).\n\n",
			jank_text(eh, sizeof(eh), o->live_hosts), JANK_CAPTURE_LIVE_PATH_FILE);
	}
	jank_format_verdict_text(f, o->rep);
	next_steps(f, o);
	return 0;
}

struct svg_out {
	const struct out *o;
	char subtitle[512];
};

static int report_svg(FILE *f, void *data)
{
	struct svg_out *s = data;

	return jank_svg_critpath(f, s->o->rep, s->o->g, s->subtitle);
}

/* flame.svg: the path by thread and call stack. */
static int report_flame(FILE *f, void *data)
{
	struct svg_out *s = data;
	struct jank_flame *fl = jank_flame_new();
	int r;

	if (!fl)
		return -ENOMEM;
	r = jank_flame_add_path(fl, s->o->rep->path);
	if (r == 0)
		r = jank_flame_write_svg(fl, f, s->subtitle);
	jank_flame_free(fl);
	return r;
}

/* binaries.json, made when the path was (capture-binaries.h). */
static int report_binaries(FILE *f, void *data)
{
	const struct out *o = data;

	if (fprintf(f, "%s\n",
		    json_object_to_json_string_ext(o->binaries,
						   JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		return -EIO;
	return 0;
}

/* A stale picture would contradict the report. */
static void remove_stale(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (jank_dirtree_join(path, sizeof(path), dir, name) == 0)
		unlink(path);
}

static int write_reports(struct out *o, char *err, size_t errlen)
{
	struct svg_out so = { .o = o };
	const char *name;
	int r;

	summarize(o);
	if (!o->out_dir) /* report.txt on standard output, nothing written */
		return report_text(stdout, o) < 0 || fflush(stdout) != 0 ? -EIO : 0;
	r = jank_dirtree_write_file(o->out_dir, JANK_CAPTURE_REPORT_JSON, report_json, o);
	if (r == 0)
		r = jank_dirtree_write_file(o->out_dir, JANK_CAPTURE_REPORT_TEXT, report_text, o);
	if (r == 0 && o->rep) {
		char th[JANK_FORMAT_THREAD_LEN];

		name = o->m->rec.name	      ? o->m->rec.name
		       : strrchr(o->dir, '/') ? strrchr(o->dir, '/') + 1
					      : o->dir;
		thread_name(o->rep->tid, o->rep->comm, th, sizeof(th));
		snprintf(so.subtitle, sizeof(so.subtitle), "capture %s · critical path of %s%s",
			 name, th, o->note ? " · partial: the capture lacks the action's end" : "");
		r = jank_dirtree_write_file(o->out_dir, JANK_CAPTURE_REPORT_SVG, report_svg, &so);
		snprintf(so.subtitle, sizeof(so.subtitle), "%s%s%s%s · capture %s%s",
			 o->m->rec.rule.name, o->m->act->key[0] ? " [" : "", o->m->act->key,
			 o->m->act->key[0] ? "]" : "", name, o->note ? " · partial path" : "");
		if (r == 0)
			r = jank_dirtree_write_file(o->out_dir, JANK_CAPTURE_REPORT_FLAME,
						    report_flame, &so);
		if (r == 0 && o->binaries)
			r = jank_dirtree_write_file(o->out_dir, JANK_CAPTURE_REPORT_BINARIES,
						    report_binaries, o);
	} else if (r == 0) {
		remove_stale(o->out_dir, JANK_CAPTURE_REPORT_SVG);
		remove_stale(o->out_dir, JANK_CAPTURE_REPORT_FLAME);
		remove_stale(o->out_dir, JANK_CAPTURE_REPORT_BINARIES);
	}
	if (r < 0)
		jank_errf(err, errlen, "%s: cannot write the report: %s", o->out_dir, strerror(-r));
	return r;
}

/* ---- The analysis ---- */

/* One analysis of a capture: the offline engine replaying its trace. */
struct analysis {
	const char *dir;
	struct meta m;
	struct found fd;
	struct out o;
	struct jank_engine *e;
	struct jank_reader *in;
	struct jank_symbols *sym; /* function names, from the capture's statedump */
	struct jank_verdict rep;
	bool partial;
	char why[ERR_LEN];
	char note[512];
	char hosts[256]; /* the other hosts of the live path */
};

/* No path: `o.error` says why (in the report files too). Returns 1. */
static int no_path(struct analysis *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int no_path(struct analysis *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->why, sizeof(a->why), fmt, ap);
	va_end(ap);
	a->o.error = a->why;
	return 1;
}

/* Replay the capture's trace through an engine with the flagged action's rule. */
static int replay(struct analysis *a, char *err, size_t errlen)
{
	struct jank_engine_config ec;

	jank_engine_config_defaults(&ec);
	ec.gc = false;
	ec.report_all = true;
	ec.overdue_grace_ns = 0;
	a->e = jank_engine_new(&ec);
	if (!a->e || jank_engine_add_rule(a->e, &a->m.rec.rule) < 0) {
		jank_errf(err, errlen, "%s: out of memory", a->dir);
		return -ENOMEM;
	}
	/* The flows too: the path crosses to the threads that did the action's work. A flow
	 * the rule leaves no room for is left out (its events serve too many roles). */
	for (size_t i = 0; i < a->m.rec.nflows; i++) {
		int r = jank_engine_add_flow(a->e, &a->m.rec.flows[i]);

		if (r == -ENOMEM) {
			jank_errf(err, errlen, "%s: out of memory", a->dir);
			return r;
		}
	}
	jank_engine_set_verdict_cb(a->e, on_report, &a->fd);
	a->in = jank_reader_new_ctf(&a->dir, 1, a->e, a->why, sizeof(a->why));
	if (!a->in) {
		a->o.error = a->why;
		return 1;
	}
	/* Functions are named as jankd's worker names them: lttng-ust's statedump in the trace. */
	a->sym = jank_symbols_new(0);
	a->fd.sym = a->sym;
	if (a->sym) {
		jank_reader_set_symbols(a->in, a->sym);
		/*
		 * No locator: a capture's trace is short, and binaries.json gives
		 * each frame's process and run-time address, which stacks by code
		 * location would not keep.
		 */
		jank_engine_set_namer(a->e, jank_symbols_frame_namer, a->sym);
	}
	if (jank_reader_run_all(a->in) != JANK_READER_STATUS_END)
		return no_path(a, "%s", jank_reader_error(a->in));
	jank_reader_get_stats(a->in, &a->o.in);
	if (a->fd.err) {
		jank_errf(err, errlen, "%s: out of memory", a->dir);
		return a->fd.err;
	}
	if (a->o.in.events_used == 0)
		return no_path(a, "%s: no events the engine can use (%" PRIu64 " read)", a->dir,
			       a->o.in.events);
	return 0;
}

/*
 * No end event in the capture (an overdue action, or a flight recorder that
 * overwrote it): the path over the recorded interval, clipped to the trace.
 */
static int path_over_interval(struct analysis *a)
{
	const struct jank_thread *w = jank_graph_find_any(jank_engine_graph(a->e), a->m.act->tid);
	int64_t b = a->m.act->begin, en = a->m.act->end;
	char d[32], d2[32];
	int r;

	if (w && b < w->first_seen)
		b = w->first_seen;
	if (en > a->o.in.last_ts)
		en = a->o.in.last_ts;
	if (!w || b >= en) {
		char nm[JANK_TEXT_BUF], ek[JANK_TEXT_BUF];

		return no_path(a,
			       "%s: the capture holds no '%s' action with key '%s' and no event of "
			       "tid %" PRId32 " during it",
			       a->dir, jank_text(nm, sizeof(nm), a->m.rec.rule.name),
			       jank_text(ek, sizeof(ek), a->m.act->key), a->m.act->tid);
	}
	r = jank_critpath_compute_thread(jank_engine_graph(a->e), w, b, en, &a->fd.path);
	if (r < 0)
		return no_path(a, "%s: cannot compute the path of tid %" PRId32 ": %s", a->dir,
			       a->m.act->tid, strerror(-r));
	jank_path_name_frames(&a->fd.path, a->sym ? jank_symbols_frame_namer : NULL, a->sym);
	json_object_put(a->fd.binaries);
	a->fd.binaries = jank_capture_binaries_json(&a->fd.path, a->sym);
	if (!a->fd.binaries)
		return no_path(a, "%s: out of memory", a->dir);
	memset(&a->rep, 0, sizeof(a->rep));
	a->rep.kind = a->m.act->kind;
	a->rep.key = a->m.act->key;
	a->rep.tid = a->m.act->tid;
	a->rep.pid = a->m.act->pid >= 0 ? a->m.act->pid : w->pid;
	a->rep.comm = a->m.act->comm ? a->m.act->comm : w->comm;
	a->rep.threshold = a->m.act->threshold;
	a->rep.begin = b;
	a->rep.end = en;
	a->rep.duration = en - b;
	a->rep.over_threshold = a->m.act->threshold > 0 && a->m.act->duration > a->m.act->threshold;
	snprintf(a->note, sizeof(a->note),
		 "the capture does not hold the action's end: the path covers %s of the "
		 "%s the action lasted, up to the capture's last event",
		 jank_units_duration(en - b, d, sizeof(d)),
		 jank_units_duration(a->m.act->duration, d2, sizeof(d2)));
	a->o.note = a->note;
	a->o.match = "recorded_interval";
	a->partial = true;
	return 0;
}

/*
 * What was different: the engine compared the action with the normal ones
 * before it. When they were too few (a short capture), or the capture lacks
 * the action's end, compare it with all the normal actions of the capture.
 */
static int suspects(struct analysis *a)
{
	const struct jank_baseline *b = jank_engine_rule_baseline(a->e, 0);

	if (a->fd.has_sus && a->fd.sus.ready) {
		a->o.baseline = "before";
		return 0;
	}
	if (!a->fd.has_sus && jank_profile_build(&a->fd.pf, &a->fd.path, &a->fd.bd,
						 jank_engine_graph(a->e), a->m.act->tid) < 0)
		return -ENOMEM;
	jank_baseline_suspects(b, &a->fd.pf, &a->fd.sus);
	jank_suspects_name(&a->fd.sus, &a->fd.path);
	a->fd.has_sus = true;
	a->o.baseline = "capture";
	return 0;
}

/* The other hosts' names of path p (not `host`), "beta, gamma", into buf. */
static void other_hosts(const struct jank_path *p, const char *host, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n && n < len; i++) {
		const struct jank_label *l = jank_path_label_of(p, p->segs[i].host);

		if (!l || !strcmp(l->name, host) || strstr(buf, l->name))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", l->name);
	}
}

/*
 * The capture holds one host's trace. When jankd's live path crossed hosts
 * (live-path.json), its parts on the other hosts go into the path found
 * here (crosshost.h). 0, or -ENOMEM; a file missing or refused changes
 * nothing (the path is this host's).
 */
static int live_path(struct analysis *a)
{
	static const struct jank_json_bounds bounds = JANK_REPORT_JSON_BOUNDS;
	struct jank_verdict_decoded d;
	struct jank_verdict_json_error je;
	const struct jank_label *host;
	struct jank_path joined;
	char path[PATH_MAX], why[256];
	struct json_object *o;
	bool missing;
	int r;

	if (jank_dirtree_join(path, sizeof(path), a->dir, JANK_CAPTURE_LIVE_PATH_FILE) < 0)
		return 0;
	o = jank_json_load_bounded(path, &bounds, &missing, why, sizeof(why));
	if (!o)
		return 0;
	memset(&d, 0, sizeof(d));
	r = jank_verdict_from_json(o, &d, &je);
	json_object_put(o);
	/* The action's host: where its path ends. */
	host = r == 0 && d.path.n ? jank_path_label_of(&d.path, d.path.segs[d.path.n - 1].host)
				  : NULL;
	if (r == -ENOMEM || !host) {
		jank_verdict_decoded_fini(&d);
		return r == -ENOMEM ? r : 0;
	}
	jank_path_init(&joined);
	r = jank_crosshost_overlay(&a->fd.path, host->name, &d.path, &joined);
	if (r == 1) {
		struct jank_path t = a->fd.path;

		a->fd.path = joined;
		joined = t;
		other_hosts(&a->fd.path, host->name, a->hosts, sizeof(a->hosts));
		a->o.live_hosts = a->hosts;
		r = jank_breakdown_compute(&a->fd.path, &a->fd.bd);
	}
	jank_path_fini(&joined);
	jank_verdict_decoded_fini(&d);
	return r < 0 ? -ENOMEM : 0;
}

/* The flagged action's verdict: 0 (a->o.rep set), 1 (no path: a->o.error), or -errno. */
static int analyse(struct analysis *a, char *err, size_t errlen)
{
	int r = replay(a, err, errlen);

	if (r != 0)
		return r;
	if (a->fd.ok) {
		a->rep = a->fd.rep;
		a->rep.key = a->fd.key;
		a->rep.comm = a->fd.comm;
		a->o.match = "end_event";
	} else {
		r = path_over_interval(a);
		if (r != 0)
			return r;
	}
	if (jank_breakdown_compute(&a->fd.path, &a->fd.bd) < 0 || suspects(a) < 0 ||
	    live_path(a) < 0) {
		jank_errf(err, errlen, "%s: out of memory", a->dir);
		return -ENOMEM;
	}
	a->rep.rule = &a->m.rec.rule;
	a->rep.rule_index = 0;
	a->rep.path = &a->fd.path;
	a->rep.breakdown = &a->fd.bd;
	a->rep.profile = &a->fd.pf;
	a->rep.suspects = a->fd.has_sus ? &a->fd.sus : NULL;
	a->o.rep = &a->rep;
	a->o.g = jank_engine_graph(a->e);
	a->o.binaries = a->fd.binaries;
	return 0;
}

int jank_capture_report_write(const char *dir, struct jank_capture_report_result *res, char *err,
			      size_t errlen)
{
	return jank_capture_report_write_to(dir, dir, res, err, errlen);
}

int jank_capture_report_write_to(const char *dir, const char *out_dir,
				 struct jank_capture_report_result *res, char *err, size_t errlen)
{
	struct analysis a = { .dir = dir };
	int r;

	memset(res, 0, sizeof(*res));
	a.o.dir = dir;
	a.o.out_dir = out_dir;
	a.o.m = &a.m;
	a.fd.m = &a.m;
	jank_path_init(&a.fd.path);
	jank_breakdown_init(&a.fd.bd);
	jank_profile_init(&a.fd.pf);
	r = meta_load(&a.m, dir, err, errlen);
	if (r == 0)
		r = analyse(&a, err, errlen);
	if (r >= 0) {
		/* With a path, or saying in the report files why there is none. */
		int w = write_reports(&a.o, err, errlen);

		snprintf(res->summary, sizeof(res->summary), "%s", a.o.summary);
		res->partial = a.partial;
		if (w < 0) {
			r = w;
		} else if (r == 1) {
			jank_errf(err, errlen, "%s", a.o.error);
			r = -ENODATA;
		}
	}
	jank_reader_free(a.in);
	jank_engine_free(a.e);
	jank_symbols_free(a.sym);
	jank_path_fini(&a.fd.path);
	jank_breakdown_fini(&a.fd.bd);
	jank_profile_fini(&a.fd.pf);
	json_object_put(a.fd.binaries);
	meta_fini(&a.m);
	return r;
}
