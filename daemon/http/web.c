/* SPDX-License-Identifier: MIT */
/*
 * jankd's web pages (web.h). Each page is rendered on the loop into memory
 * from the alerter's recent janks (at most JANK_ALERT_HISTORY of them) and
 * the composition history (comp-history.h): a few tens of kilobytes, well
 * under a millisecond. A capture's file is
 * handed to evbuffer_add_file(), which sends it as the socket drains.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include "capture-report.h"
#include "clock.h"
#include "comp-history.h"
#include "composition-svg.h"
#include "html.h"
#include "jankd.h"
#include "state.h"
#include "svg.h"
#include "units.h"
#include "web.h"

/* The files of a capture that are served, and how. */
static const struct {
	const char *name;
	const char *type;
} capture_files[] = {
	{ JANK_CAPTURE_REPORT_TEXT, "text/plain; charset=utf-8" },
	{ JANK_CAPTURE_REPORT_JSON, "application/json" },
	{ JANK_CAPTURE_REPORT_SVG, "image/svg+xml" },
	{ "flame.svg", "image/svg+xml" },
};
#define NCAPTURE_FILES (sizeof(capture_files) / sizeof(capture_files[0]))

static const char style_css[] =
	"body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;color:#212121;margin:1.5em;"
	"font-size:14px}\n"
	"h1{font-size:1.4em;margin:0 0 .6em}h2{font-size:1.1em;margin:1.4em 0 .5em}\n"
	"a{color:#1565c0}nav{margin-bottom:1em}\n"
	"table{border-collapse:collapse;width:100%}\n"
	"th,td{border-bottom:1px solid #e3e3e3;padding:.3em .5em;text-align:left;"
	"vertical-align:top}\n"
	"th{background:#f5f5f5}td.num{text-align:right;white-space:nowrap}\n"
	"td.path{font-size:.9em;color:#424242;max-width:40em}\n"
	"tr.overdue td.dur{color:#d50000}tr.suppressed{color:#757575}\n"
	"form{margin:.5em 0 1em}label{margin-right:1em}\n"
	"dl{display:grid;grid-template-columns:max-content auto;gap:.3em 1em}dt{font-weight:bold}"
	"dd{margin:0}\n"
	"img{max-width:100%;border:1px solid #e3e3e3;margin:.3em 0}\n"
	".muted{color:#5f6368}.figs{display:flex;flex-wrap:wrap;gap:1em}\n";

static void set_headers(struct evhttp_request *req, const char *type)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);

	evhttp_add_header(h, "Content-Type", type);
	evhttp_add_header(h, "Content-Security-Policy", JANK_WEB_CSP);
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
	evhttp_add_header(h, "X-Frame-Options", "DENY");
	evhttp_add_header(h, "Referrer-Policy", "no-referrer");
	evhttp_add_header(h, "Cache-Control", "no-store");
}

static void free_body(const void *data, size_t len, void *extra)
{
	(void)len;
	(void)extra;
	free((void *)data);
}

static void send_error(struct evhttp_request *req, int code, const char *why)
{
	struct evbuffer *body = evbuffer_new();

	set_headers(req, "text/plain; charset=utf-8");
	if (!body) {
		evhttp_send_error(req, code, why);
		return;
	}
	evbuffer_add_printf(body, "%s\n", why);
	evhttp_send_reply(req, code, why, body);
	evbuffer_free(body);
}

/* Send what was written to the memstream (buf, len after fclose); f is closed. */
static void send_stream(struct evhttp_request *req, FILE *f, char **bufp, size_t *len,
			const char *type)
{
	struct evbuffer *body;
	char *buf;
	int closed = fclose(f); /* sets *bufp and *len */

	buf = *bufp;
	if (closed != 0 || !buf) {
		free(buf);
		send_error(req, HTTP_INTERNAL, "out of memory");
		return;
	}
	body = evbuffer_new();
	if (!body || evbuffer_add_reference(body, buf, *len, free_body, NULL) != 0) {
		free(buf);
		if (body)
			evbuffer_free(body);
		send_error(req, HTTP_INTERNAL, "out of memory");
		return;
	}
	set_headers(req, type);
	evhttp_send_reply(req, HTTP_OK, "OK", body);
	evbuffer_free(body);
}

/* The name of the capture directory of x when it is right under [capture] dir; else NULL. */
static const char *capture_name(const struct jankd *d, const struct jank_recent *x)
{
	const char *dir = d->config.capture.dir;
	size_t n = dir ? strlen(dir) : 0;
	const char *name;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (!x->capture[0] || n == 0 || strncmp(x->capture, dir, n) != 0 || x->capture[n] != '/')
		return NULL;
	name = x->capture + n + 1;
	if (!name[0] || strchr(name, '/') || name[0] == '.')
		return NULL;
	return name;
}

/* Whether [capture] dir/name/file is a regular file (no link followed). */
static bool capture_has(const struct jankd *d, const char *name, const char *file)
{
	char path[PATH_MAX];
	struct stat st;
	int n = snprintf(path, sizeof(path), "%s/%s/%s", d->config.capture.dir, name, file);

	return n > 0 && (size_t)n < sizeof(path) && lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The query's value of `key`, or NULL; the caller clears q. */
static const char *query_get(struct evhttp_request *req, struct evkeyvalq *q, const char *key)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *query = uri ? evhttp_uri_get_query(uri) : NULL;
	const char *v;

	if (!query || evhttp_parse_query_str(query, q) != 0)
		return NULL;
	v = evhttp_find_header(q, key);
	return v && v[0] ? v : NULL;
}

static void page_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"referrer\" content=\"no-referrer\">\n<title>",
	      f);
	jank_html_escape(f, title);
	fputs("</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n</head><body>\n"
	      "<nav><a href=\"/\">recent janks</a></nav>\n",
	      f);
}

static void page_end(FILE *f)
{
	fputs("</body></html>\n", f);
}

/* A <select> of the distinct values of field (host or action) among the janks. */
static void filter_select(FILE *f, const struct jankd *d, const char *name, const char *chosen,
			  bool host)
{
	const struct jank_recent *x;

	fprintf(f, "<label>%s <select name=\"%s\"><option value=\"\">(all)</option>", name, name);
	for (size_t i = 0; (x = jank_alerter_history(d->alerter, i)); i++) {
		const char *v = host ? x->host : x->action;
		const struct jank_recent *y;
		bool seen = false;

		if (!v[0])
			continue;
		for (size_t j = 0; j < i && !seen && (y = jank_alerter_history(d->alerter, j)); j++)
			seen = !strcmp(v, host ? y->host : y->action);
		if (seen)
			continue;
		fputs("<option value=\"", f);
		jank_html_escape(f, v);
		fprintf(f, "\"%s>", chosen && !strcmp(chosen, v) ? " selected" : "");
		jank_html_escape(f, v);
		fputs("</option>", f);
	}
	fputs("</select></label>\n", f);
}

static void page_index(struct jankd *d, struct evhttp_request *req)
{
	struct evkeyvalq q = { 0 };
	const char *host, *action;
	const struct jank_recent *x;
	char *buf = NULL;
	size_t len = 0, shown = 0, ncomp = 0;
	FILE *f = open_memstream(&buf, &len);
	char t[48], dur[32], thr[32];

	TAILQ_INIT(&q);
	host = query_get(req, &q, "host");
	action = evhttp_find_header(&q, "action");
	if (action && !action[0])
		action = NULL;
	if (!f) {
		evhttp_clear_headers(&q);
		send_error(req, HTTP_INTERNAL, "out of memory");
		return;
	}
	page_begin(f, "jankd: recent janks");
	fprintf(f,
		"<h1>Recent janks <span class=\"muted\">(the last %d, newest first)</span></h1>\n",
		JANK_ALERT_HISTORY);
	fputs("<form method=\"get\" action=\"/\">\n", f);
	filter_select(f, d, "host", host, true);
	filter_select(f, d, "action", action, false);
	fputs("<button type=\"submit\">filter</button></form>\n", f);

	fputs("<table "
	      "id=\"janks\">\n<thead><tr><th>#</th><th>ended</th><th>host</th><th>action</th>"
	      "<th>key</th><th>duration</th><th>threshold</th><th>top suspect</th>"
	      "<th>critical path</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; (x = jank_alerter_history(d->alerter, i)); i++) {
		if ((host && strcmp(host, x->host)) || (action && strcmp(action, x->action)))
			continue;
		shown++;
		fprintf(f,
			"<tr class=\"jank%s%s\"><td><a href=\"/jank/%" PRIu64 "\">%" PRIu64
			"</a></td>",
			x->kind == JANK_VERDICT_OVERDUE ? " overdue" : "",
			x->suppressed ? " suppressed" : "", x->id, x->id);
		fprintf(f, "<td class=\"num\">%s</td><td>", jank_clock_text(x->end, t, sizeof(t)));
		jank_html_escape(f, x->host);
		fputs("</td><td>", f);
		jank_html_escape(f, x->action);
		fputs("</td><td>", f);
		jank_html_escape(f, x->key);
		fprintf(f, "</td><td class=\"num dur\">%s%s</td><td class=\"num\">%s</td><td>",
			jank_units_duration(x->duration, dur, sizeof(dur)),
			x->kind == JANK_VERDICT_OVERDUE ? " (overdue)" : "",
			x->threshold > 0 ? jank_units_duration(x->threshold, thr, sizeof(thr))
					 : "none yet");
		jank_html_escape(f, x->suspects_line);
		fputs("</td><td class=\"path\">", f);
		jank_html_escape(f, x->story);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (shown == 0)
		fputs("<p id=\"none\">No jank yet.</p>\n", f);

	/*
	 * The composition over time of each rule: those with slow time in the
	 * window or a recent jank, or the one the filter names.
	 */
	fprintf(f,
		"<h2>Composition per rule <span class=\"muted\">(slow critical-path time "
		"per %lld s over the last %lld min, all inputs; left by state, right by "
		"thread waited on)</span></h2>\n",
		JANK_COMP_HISTORY_INTERVAL_NS / 1000000000LL,
		JANK_COMP_HISTORY_INTERVAL_NS / 1000000000LL * JANK_COMP_HISTORY_BARS / 60);
	for (size_t i = 0; i < jank_comp_history_count(d->comp_history); i++) {
		const struct jank_comp_rule *r = jank_comp_history_get(d->comp_history, i);
		const char *name = jank_comp_history_action(r);
		const struct jank_comp_bar *b;
		bool some = action != NULL;

		if (action && strcmp(action, name))
			continue;
		for (size_t j = 0; !some && (b = jank_comp_history_bar(r, j)); j++)
			some = jank_comp_bar_total(b) > 0;
		for (size_t j = 0; !some && (x = jank_alerter_history(d->alerter, j)); j++)
			some = !strcmp(x->action, name);
		if (!some)
			continue;
		ncomp++;
		fputs("<div class=\"figs\">\n<img class=\"composition\" "
		      "src=\"/composition.svg?action=",
		      f);
		jank_html_url_encode(f, name);
		fputs("\" alt=\"the slow critical-path time of ", f);
		jank_html_escape(f, name);
		fputs(" over time, by state\">\n<img class=\"composition-on\" "
		      "src=\"/composition.svg?action=",
		      f);
		jank_html_url_encode(f, name);
		fputs("&amp;by=on\" alt=\"the slow critical-path time of ", f);
		jank_html_escape(f, name);
		fputs(" over time, by thread waited on\">\n</div>\n", f);
	}
	if (ncomp == 0)
		fputs("<p id=\"nocomp\">No slow action lately.</p>\n", f);
	page_end(f);
	evhttp_clear_headers(&q);
	send_stream(req, f, &buf, &len, "text/html; charset=utf-8");
}

static void page_jank(struct jankd *d, struct evhttp_request *req, const struct jank_recent *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char title[160], t[48], dur[32], thr[32];
	const char *name = capture_name(d, x);

	if (!f) {
		send_error(req, HTTP_INTERNAL, "out of memory");
		return;
	}
	snprintf(title, sizeof(title), "jank %" PRIu64 ": %s", x->id, x->action);
	page_begin(f, title);
	fputs("<h1>", f);
	jank_html_escape(f, title);
	fputs("</h1>\n<dl>\n<dt>action</dt><dd id=\"action\">", f);
	jank_html_escape(f, x->action);
	fputs("</dd>\n<dt>key</dt><dd>", f);
	jank_html_escape(f, x->key);
	fprintf(f, "</dd>\n<dt>kind</dt><dd>%s%s</dd>\n",
		x->kind == JANK_VERDICT_OVERDUE ? "overdue" : "completed over its threshold",
		x->suppressed ? " (alert suppressed by the rate limit)" : "");
	fprintf(f, "<dt>duration</dt><dd>%s</dd>\n<dt>threshold</dt><dd>%s</dd>\n",
		jank_units_duration(x->duration, dur, sizeof(dur)),
		x->threshold > 0 ? jank_units_duration(x->threshold, thr, sizeof(thr))
				 : "none yet");
	fprintf(f, "<dt>ended</dt><dd>%s</dd>\n", jank_clock_text(x->end, t, sizeof(t)));
	fprintf(f, "<dt>thread</dt><dd>tid %" PRId32 ", pid %" PRId32 " (", x->tid, x->pid);
	jank_html_escape(f, x->comm);
	fputs(")</dd>\n<dt>host</dt><dd>", f);
	jank_html_escape(f, x->host[0] ? x->host : "(unknown)");
	fputs("</dd>\n<dt>session</dt><dd>", f);
	jank_html_escape(f, x->session[0] ? x->session : "(unknown)");
	fputs("</dd>\n<dt>input</dt><dd>", f);
	jank_html_escape(f, x->input);
	fputs("</dd>\n", f);
	if (x->skipped_ns > 0)
		fprintf(f,
			"<dt>skipped</dt><dd>%s of it by a worker restart: the path may be "
			"incomplete</dd>\n",
			jank_units_duration(x->skipped_ns, dur, sizeof(dur)));
	fputs("</dl>\n<h2>Critical path</h2>\n<p id=\"path\">", f);
	jank_html_escape(f, x->story[0] ? x->story : "(no path)");
	fprintf(f,
		"</p>\n<img id=\"states\" src=\"/jank/%" PRIu64 "/states.svg\" alt=\"the path's "
		"time per state\">\n",
		x->id);
	fputs("<h2>Suspects</h2>\n", f);
	if (x->nsuspects) {
		fputs("<ol id=\"suspects\">\n", f);
		for (size_t i = 0; i < x->nsuspects; i++) {
			fputs("<li>", f);
			jank_html_escape(f, x->suspects[i]);
			fputs("</li>\n", f);
		}
		fputs("</ol>\n", f);
	} else {
		fputs("<p id=\"suspects\">", f);
		jank_html_escape(f, x->suspects_line[0] ? x->suspects_line : "none (no baseline)");
		fputs("</p>\n", f);
	}
	fputs("<h2>Capture</h2>\n", f);
	if (!x->capture[0]) {
		fputs("<p>This jank took no capture.</p>\n", f);
	} else if (!name) {
		fputs("<p>", f);
		jank_html_escape(f, x->capture);
		fputs(" (not under [capture] dir: not served)</p>\n", f);
	} else {
		fputs("<p>", f);
		jank_html_escape(f, x->capture);
		fputs("</p>\n<ul id=\"files\">\n", f);
		for (size_t i = 0; i < NCAPTURE_FILES; i++) {
			if (!capture_has(d, name, capture_files[i].name))
				continue;
			fputs("<li><a href=\"/capture/", f);
			jank_html_url_encode(f, name);
			fprintf(f, "/%s\">%s</a></li>\n", capture_files[i].name,
				capture_files[i].name);
		}
		fputs("</ul>\n", f);
		if (!capture_has(d, name, JANK_CAPTURE_REPORT_TEXT))
			fputs("<p class=\"muted\">No report yet: it is written once the capture is "
			      "analysed.</p>\n",
			      f);
		fputs("<div class=\"figs\">\n", f);
		for (size_t i = 2; i < NCAPTURE_FILES; i++) {
			if (!capture_has(d, name, capture_files[i].name))
				continue;
			fprintf(f, "<img id=\"%.*s\" src=\"/capture/",
				(int)(strlen(capture_files[i].name) - 4), capture_files[i].name);
			jank_html_url_encode(f, name);
			fprintf(f, "/%s\" alt=\"the capture's %s\">\n", capture_files[i].name,
				capture_files[i].name);
		}
		fputs("</div>\n", f);
	}
	page_end(f);
	send_stream(req, f, &buf, &len, "text/html; charset=utf-8");
}

/* The legend of the states that have time in `total`, from y. */
static void svg_legend(FILE *f, const int64_t *total, double x0, double y)
{
	double x = x0;

	for (int s = 0; s < JANK_STATE_COUNT; s++) {
		const char *n = jank_state_name(s);

		if (!total[s])
			continue;
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>\n",
			x, y, jank_svg_state_colour(s), x + 14, y + 9, n);
		x += 24 + jank_svg_text_w(strlen(n), 11);
	}
}

/* One jank's path time per state: one bar, the states left to right. */
static void svg_states(struct evhttp_request *req, const struct jank_recent *x)
{
	char *buf = NULL, d[32];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int64_t sum = 0;
	const double w = 700, left = 10;
	double at = left;

	if (!f) {
		send_error(req, HTTP_INTERNAL, "out of memory");
		return;
	}
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		sum += x->per_state[s] > 0 ? x->per_state[s] : 0;
	jank_svg_begin(f, (int)(w + 2 * left), 80, "the path's time per state");
	if (sum == 0)
		fputs("<text x=\"10\" y=\"30\" font-size=\"12\">no path</text>\n", f);
	for (int s = 0; s < JANK_STATE_COUNT && sum; s++) {
		double bw = w * (double)(x->per_state[s] > 0 ? x->per_state[s] : 0) / (double)sum;

		if (bw <= 0)
			continue;
		fprintf(f,
			"<rect x=\"%.1f\" y=\"10\" width=\"%.1f\" height=\"30\" fill=\"%s\">"
			"<title>%s %s</title></rect>\n",
			at, bw, jank_svg_state_colour(s), jank_state_name(s),
			jank_units_duration(x->per_state[s], d, sizeof(d)));
		at += bw;
	}
	svg_legend(f, x->per_state, left, 55);
	jank_svg_end(f);
	send_stream(req, f, &buf, &len, "image/svg+xml");
}

/* /composition.svg?action=RULE[&by=on]: the picture of composition-svg.h. */
static void svg_composition(struct jankd *d, struct evhttp_request *req, const char *action,
			    bool by_on)
{
	const struct jank_comp_rule *r = jank_comp_history_find(d->comp_history, action);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!r) {
		send_error(req, HTTP_NOTFOUND, "no such rule");
		return;
	}
	f = open_memstream(&buf, &len);
	if (!f) {
		send_error(req, HTTP_INTERNAL, "out of memory");
		return;
	}
	jank_svg_composition(f, r, action, by_on);
	send_stream(req, f, &buf, &len, "image/svg+xml");
}

/* A file of a capture: [capture] dir/NAME/FILE, FILE one of capture_files, no link followed. */
static void send_capture_file(struct jankd *d, struct evhttp_request *req, const char *rest)
{
	const char *slash = strchr(rest, '/');
	const char *dir = d->config.capture.dir, *type = NULL, *file;
	char raw[NAME_MAX * 3 + 1], *name = NULL;
	size_t nlen = 0;
	int dfd = -1, cfd = -1, fd = -1;
	struct stat st;
	struct evbuffer *body;

	if (slash && slash > rest && (size_t)(slash - rest) < sizeof(raw)) {
		memcpy(raw, rest, (size_t)(slash - rest));
		raw[slash - rest] = '\0';
		name = evhttp_uridecode(raw, 0, &nlen);
	}
	file = slash ? slash + 1 : "";
	for (size_t i = 0; i < NCAPTURE_FILES; i++)
		if (!strcmp(file, capture_files[i].name))
			type = capture_files[i].type;
	/* One name of a directory right under [capture] dir: no "..", no '/', no NUL. */
	if (!type || !name || !name[0] || name[0] == '.' || nlen != strlen(name) ||
	    strchr(name, '/') || !dir || !dir[0]) {
		free(name);
		send_error(req, HTTP_NOTFOUND, "no such capture file");
		return;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd >= 0)
		fd = openat(cfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	free(name);
	if (dfd >= 0)
		close(dfd);
	if (cfd >= 0)
		close(cfd);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uintmax_t)st.st_size > JANK_WEB_MAX_FILE) {
		if (fd >= 0)
			close(fd);
		send_error(req, HTTP_NOTFOUND, "no such capture file");
		return;
	}
	body = evbuffer_new();
	if (!body || evbuffer_add_file(body, fd, 0, st.st_size) != 0) {
		if (body)
			evbuffer_free(body);
		else
			close(fd);
		send_error(req, HTTP_INTERNAL, "cannot read the file");
		return;
	}
	set_headers(req, type);
	evhttp_send_reply(req, HTTP_OK, "OK", body);
	evbuffer_free(body);
}

/* "/jank/12" or "/jank/12/states.svg": the jank (NULL when gone or malformed) and the rest. */
static const struct jank_recent *jank_of(struct jankd *d, const char *p, const char **rest)
{
	uint64_t id = 0;

	if (*p < '1' || *p > '9')
		return NULL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (id > UINT64_MAX / 10 - 1)
			return NULL;
		id = id * 10 + (uint64_t)(*p - '0');
	}
	*rest = p;
	return jank_alerter_recent_id(d->alerter, id);
}

void jank_web_handle(struct evhttp_request *req, const char *path, void *data)
{
	struct jankd *d = data;
	const struct jank_recent *x;
	const char *rest = "";

	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		send_error(req, HTTP_BADMETHOD, "GET only");
	} else if (!strcmp(path, "/")) {
		page_index(d, req);
	} else if (!strcmp(path, "/style.css")) {
		struct evbuffer *body = evbuffer_new();

		if (!body || evbuffer_add_reference(body, style_css, sizeof(style_css) - 1, NULL,
						    NULL) != 0) {
			if (body)
				evbuffer_free(body);
			send_error(req, HTTP_INTERNAL, "out of memory");
			return;
		}
		set_headers(req, "text/css; charset=utf-8");
		evhttp_send_reply(req, HTTP_OK, "OK", body);
		evbuffer_free(body);
	} else if (!strncmp(path, "/jank/", 6)) {
		x = jank_of(d, path + 6, &rest);
		if (x && !rest[0])
			page_jank(d, req, x);
		else if (x && !strcmp(rest, "/states.svg"))
			svg_states(req, x);
		else
			send_error(req, HTTP_NOTFOUND,
				   "no such jank (only the recent ones are kept)");
	} else if (!strcmp(path, "/composition.svg")) {
		struct evkeyvalq q;
		const char *action, *by;

		TAILQ_INIT(&q);
		action = query_get(req, &q, "action");
		by = evhttp_find_header(&q, "by");
		if (!action)
			send_error(req, HTTP_NOTFOUND, "which action? (?action=NAME)");
		else if (by && strcmp(by, "state") && strcmp(by, "on"))
			send_error(req, HTTP_BADREQUEST, "by=state or by=on");
		else
			svg_composition(d, req, action, by && !strcmp(by, "on"));
		evhttp_clear_headers(&q);
	} else if (!strncmp(path, "/capture/", 9)) {
		send_capture_file(d, req, path + 9);
	} else {
		send_error(req, HTTP_NOTFOUND, "no such page");
	}
}
