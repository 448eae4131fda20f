/* SPDX-License-Identifier: MIT */
/* The capture directories of a dir, and their table (see capture-list.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <json-c/json.h>
#include "array.h"
#include "capture-list.h"
#include "capture-json.h"
#include "capture-report.h"
#include "dirtree.h"
#include "errbuf.h"
#include "format.h"
#include "json-read.h"
#include "json-util.h"
#include "textsafe.h"
#include "units.h"

#define NS_PER_S	1000000000LL
#define NAME_TIME_LEN	16	   /* "20240501T120000Z" */
#define REPORT_TEXT_LEN (1u << 16) /* a string of report.json the list shows, at most */

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static int num(const char *s, size_t n)
{
	int v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

int jank_capture_parse_time(const char *s, int64_t *sec)
{
	struct tm tm = { 0 };
	int off = 0, len;
	time_t t;

	if (!all_digits(s, 8) || s[8] != 'T' || !all_digits(s + 9, 6))
		return -EINVAL;
	tm.tm_year = num(s, 4) - 1900;
	tm.tm_mon = num(s + 4, 2) - 1;
	tm.tm_mday = num(s + 6, 2);
	tm.tm_hour = num(s + 9, 2);
	tm.tm_min = num(s + 11, 2);
	tm.tm_sec = num(s + 13, 2);
	if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
	    tm.tm_min > 59 || tm.tm_sec > 60)
		return -EINVAL;
	if (s[15] == 'Z') {
		len = 16;
	} else if ((s[15] == '+' || s[15] == '-') && all_digits(s + 16, 4)) {
		off = num(s + 16, 2) * 3600 + num(s + 18, 2) * 60;
		if (s[15] == '-')
			off = -off;
		len = 20;
	} else {
		return -EINVAL;
	}
	t = timegm(&tm);
	if (t == (time_t)-1)
		return -EINVAL;
	*sec = (int64_t)t - off;
	return len;
}

int jank_capture_parse_name(const char *name, int64_t *time_ns, char *action, size_t action_len,
			    int32_t *tid)
{
	const char *rest, *dash;
	size_t digits;
	int64_t sec;
	long v;

	if (strlen(name) < NAME_TIME_LEN + 4 ||
	    jank_capture_parse_time(name, &sec) != NAME_TIME_LEN || name[NAME_TIME_LEN] != '-')
		return -EINVAL;
	rest = name + NAME_TIME_LEN + 1;
	dash = strrchr(rest, '-');
	if (!dash || dash == rest)
		return -EINVAL;
	/* The tid, then ".2".."9" when two captures got the same name. */
	digits = strspn(dash + 1, "0123456789");
	if (digits == 0 || digits > 10)
		return -EINVAL;
	if (dash[1 + digits] &&
	    (dash[1 + digits] != '.' || !all_digits(dash + 2 + digits, 1) || dash[3 + digits]))
		return -EINVAL;
	v = strtol(dash + 1, NULL, 10);
	if (v > INT32_MAX)
		return -EINVAL;
	if (time_ns)
		*time_ns = sec * NS_PER_S;
	if (action && action_len)
		snprintf(action, action_len, "%.*s", (int)(dash - rest), rest);
	if (tid)
		*tid = (int32_t)v;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct jank_capture_entry *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int jank_capture_list(const char *dir, struct jank_capture_entry **out, bool sizes)
{
	struct jank_capture_entry *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r = 0, fd;
	DIR *d;

	*out = NULL;
	d = opendir(dir);
	if (!d)
		return -errno;
	fd = dirfd(d);
	while ((de = readdir(d))) {
		struct stat st;
		int64_t t;

		if (jank_capture_parse_name(de->d_name, &t, NULL, 0, NULL) < 0)
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 32;
			struct jank_capture_entry *nv = realloc(v, nc * sizeof(*nv));

			if (!nv) {
				r = -ENOMEM;
				goto end;
			}
			v = nv;
			cap = nc;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].time_ns = t;
		v[n].bytes = 0;
		if (sizes)
			jank_dirtree_du_at(fd, de->d_name, &v[n].bytes);
		n++;
	}
	jank_sort(v, n, sizeof(*v), cmp_entry);
end:
	closedir(d);
	if (r < 0) {
		free(v);
		return r;
	}
	*out = v;
	return (int)n;
}

struct listed {
	struct jank_capture_record capture; /* capture.json (capture-json.h) */
	bool has_capture;
	struct json_object *report; /* report.json, or NULL */
	/* What the list shows of report.json: NULL when absent, or not a string of its size. */
	const char *summary, *cause, *error;
	char refused[192]; /* why capture.json was not read, when it is there */
};

/* capture.json of the capture; why it is refused in l->refused ("" when absent). */
static void load_capture(const char *dir, const char *name, struct listed *l)
{
	char path[PATH_MAX], e[160];
	bool missing = false;
	int r;

	l->refused[0] = '\0';
	jank_capture_record_init(&l->capture);
	if (snprintf(path, sizeof(path), "%s/%s/%s", dir, name, JANK_CAPTURE_FILE) >=
	    (int)sizeof(path))
		return;
	r = jank_capture_record_load(path, &l->capture, &missing, e, sizeof(e));
	l->has_capture = r == 0;
	if (r < 0 && !missing)
		snprintf(l->refused, sizeof(l->refused), "%s refused: %s", JANK_CAPTURE_FILE, e);
}

/* A string member of report.json, through json-read.h: NULL when absent or bad. */
static const char *report_str(struct json_object *o, const char *key)
{
	const char *s = NULL;
	struct jank_jr jr;

	jank_json_read_init(&jr);
	return jank_json_read_str(&jr, o, key, false, REPORT_TEXT_LEN, &s) == 0 ? s : NULL;
}

/* report.json of the capture, within its bounds (json-read.h); none when absent or refused. */
static void load_report(const char *dir, const char *name, struct listed *l)
{
	static const struct jank_json_bounds report_bounds = JANK_REPORT_JSON_BOUNDS;
	char path[PATH_MAX], e[160];
	bool missing = false;

	if (snprintf(path, sizeof(path), "%s/%s/%s", dir, name, JANK_CAPTURE_REPORT_JSON) >=
	    (int)sizeof(path))
		return;
	l->report = jank_json_load_bounded(path, &report_bounds, &missing, e, sizeof(e));
	l->summary = report_str(l->report, "summary");
	l->cause = report_str(l->report, "cause");
	l->error = report_str(l->report, "error");
}

static void utc(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	strftime(buf, len, "%Y-%m-%d %H:%M:%SZ", &tm);
}

/* What the list says of one capture. */
struct row {
	char time[32];
	const char *action, *key, *state, *text;
	int64_t duration;
	bool has_duration;
};

static void row_of(const struct jank_capture_entry *en, const struct listed *l, struct row *w)
{
	const struct jank_capture_action *a = l->has_capture ? &l->capture.action : NULL;

	memset(w, 0, sizeof(*w));
	utc(en->time_ns, w->time, sizeof(w->time));
	w->action = a ? a->action : NULL;
	w->key = a ? a->key : NULL;
	w->has_duration = a != NULL;
	w->duration = a ? a->duration : 0;
	w->state = l->has_capture  ? l->capture.state
		   : l->refused[0] ? l->refused
				   : "no capture.json";
	w->text = l->cause ? l->cause : l->error;
	if (!w->text)
		w->text = l->report ? "?" : "(no report yet: jankctl report DIR)";
}

/* The widest a column of the text list grows, in characters. */
#define LIST_ACTION_CHARS 48
#define LIST_KEY_CHARS	  40
#define LIST_TEXT_CHARS	  300

/* A cell of the text list: escaped, cut with "…"; NULL is "?". */
static const char *cell(char *buf, size_t len, const char *s, size_t max_chars)
{
	if (!s)
		s = "?";
	jank_text_escape(buf, len, s, strlen(s), max_chars);
	return buf;
}

/* A string of a report, made valid UTF-8 for the JSON list; NULL: null. */
static struct json_object *untrusted(const char *s)
{
	return s ? jank_json_new_untrusted_string(s) : NULL;
}

int jank_capture_list_print(FILE *f, const char *dir, bool json, char *err, size_t errlen)
{
	struct jank_capture_entry *v;
	struct listed *l;
	int n, wa = 6, wk = 3;

	n = jank_capture_list(dir, &v, true);
	if (n < 0) {
		jank_errf(err, errlen, "%s: %s", dir, strerror(-n));
		return n;
	}
	l = calloc((size_t)n + 1, sizeof(*l));
	if (!l) {
		free(v);
		jank_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct row w;

		load_capture(dir, v[i].name, &l[i]);
		load_report(dir, v[i].name, &l[i]);
		row_of(&v[i], &l[i], &w);
		if (w.action && (int)strlen(w.action) > wa)
			wa = (int)strlen(w.action);
		if (w.key && (int)strlen(w.key) > wk)
			wk = (int)strlen(w.key);
	}
	if (wa > LIST_ACTION_CHARS)
		wa = LIST_ACTION_CHARS;
	if (wk > LIST_KEY_CHARS)
		wk = LIST_KEY_CHARS;
	if (!json && n == 0)
		fprintf(f, "no capture in %s\n", dir);
	else if (!json)
		fprintf(f, "%-20s  %-*s  %-*s  %10s  %10s  %-9s  %s\n", "time (UTC)", wa, "action",
			wk, "key", "duration", "size", "state", "summary");
	for (int i = 0; i < n; i++) {
		char d[32], s[32], path[PATH_MAX];
		char ea[JANK_TEXT_SIZE(LIST_ACTION_CHARS)], ek[JANK_TEXT_SIZE(LIST_KEY_CHARS)];
		char es[JANK_TEXT_SIZE(32)], et[JANK_TEXT_SIZE(LIST_TEXT_CHARS)];
		struct row w;

		row_of(&v[i], &l[i], &w);
		snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
		if (json) {
			struct json_object *o = json_object_new_object();

			if (!o)
				continue;
			json_object_object_add(o, "name",
					       jank_json_new_untrusted_string(v[i].name));
			json_object_object_add(o, "dir", jank_json_new_untrusted_string(path));
			json_object_object_add(o, "time", json_object_new_string(w.time));
			json_object_object_add(o, "time_ns", json_object_new_int64(v[i].time_ns));
			json_object_object_add(o, "state",
					       w.state ? json_object_new_string(w.state) : NULL);
			json_object_object_add(o, "action",
					       w.action ? jank_json_new_untrusted_string(w.action)
							: NULL);
			json_object_object_add(
				o, "key", w.key ? jank_json_new_untrusted_string(w.key) : NULL);
			json_object_object_add(o, "duration_ns",
					       w.has_duration ? json_object_new_int64(w.duration)
							      : NULL);
			json_object_object_add(o, "bytes",
					       json_object_new_int64((int64_t)v[i].bytes));
			json_object_object_add(o, "summary", untrusted(l[i].summary));
			json_object_object_add(o, "error", untrusted(l[i].error));
			jank_format_json_print(f, o);
			continue;
		}
		/* What the files say came from traced programs: escaped, cut (textsafe.h). */
		fprintf(f, "%-20s  %-*s  %-*s  %10s  %10s  %-9s  %s\n", w.time, wa,
			cell(ea, sizeof(ea), w.action, LIST_ACTION_CHARS), wk,
			cell(ek, sizeof(ek), w.key, LIST_KEY_CHARS),
			w.has_duration ? jank_units_duration(w.duration, d, sizeof(d)) : "?",
			jank_units_size(v[i].bytes, s, sizeof(s)),
			cell(es, sizeof(es), w.state, 32),
			cell(et, sizeof(et), w.text, LIST_TEXT_CHARS));
	}
	for (int i = 0; i < n; i++) {
		jank_capture_record_fini(&l[i].capture);
		json_object_put(l[i].report);
	}
	free(l);
	free(v);
	return 0;
}
