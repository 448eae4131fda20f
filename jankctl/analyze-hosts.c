/* SPDX-License-Identifier: MIT */
/*
 * jankctl analyze over the traces of several hosts (their metadata's
 * hostnames differ): an engine per host, because pids and tids of two hosts
 * collide, each keeping its whole graph; then the join (lib/crosshost.h)
 * pairs the [flow]s whose `from` and `to` are on different hosts, estimates
 * each pair of hosts' clock offset from those pairs, and follows each slow
 * action's path to the other host's thread and back. The verdicts are
 * printed at the end, in the order of their end on the first host's clock,
 * each segment naming its host; then each host's summary and the offsets.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "config-file.h"
#include "crosshost.h"
#include "netmatch.h"
#include "exit-status.h"
#include "format.h"
#include "jankctl.h"
#include "json-util.h"
#include "symbols.h"
#include "trace-hosts.h"
#include "trace-reader.h"
#include "units.h"
#include "verdict-json.h"

#define FLOW_EVENTS_MAX (4u << 20) /* flow events the join keeps: 4 Mi, ~600 MiB at most */
#define NET_EVENTS_MAX	(1u << 20) /* TCP segments the kernel matching keeps: ~130 MiB at most */

struct mh_verdict {
	unsigned host;
	int64_t order; /* its end on the first host's clock */
	struct jank_verdict v;
	struct jank_path path;
	struct jank_profile pf;
	struct jank_suspects sus;
	bool has_pf, has_sus;
	char key[JANK_KEY_LEN];
	char comm[JANK_COMM_LEN];
};

struct mh_host {
	struct mh_ctx *ctx;
	unsigned index;
	const char *name;
	struct jank_engine *e;
	struct jank_symbols *sym;
	const char **dirs;
	size_t ndirs;
};

struct mh_ctx {
	struct jank_crosshost *x;
	struct jank_netmatch *nm;
	uint64_t net_pairs; /* the key of the next pair the kernel matching made */
	struct mh_host *hosts;
	size_t nhosts;
	struct mh_verdict *v;
	size_t nv, v_cap;
	int err;
};

static void mh_on_flow(const struct jank_flow_note *n, void *data)
{
	struct mh_host *h = data;
	const struct jank_flow_rule *f = jank_engine_flow(h->e, n->flow);

	jank_crosshost_note(h->ctx->x, h->index, n, f ? f->name : "", f ? f->hosts : NULL);
}

/*
 * A TCP segment of a host's kernel trace into the kernel matching; each
 * send and receive it matches joins the flows' join as a `from` and a `to`
 * of their own key, under the flow "tcp" (the index after the [flow]s).
 */
static void mh_on_net(const struct jank_net_note *n, void *data)
{
	struct mh_host *h = data;
	struct mh_ctx *ctx = h->ctx;
	struct jank_netmatch_pair p[16];
	uint32_t flow = (uint32_t)jank_engine_flow_count(h->e);
	size_t np = jank_netmatch_note(ctx->nm, h->index, n->recv, n->tid, n->ts, n->seg, p, 16);

	for (size_t i = 0; i < np; i++) {
		char key[32];
		struct jank_flow_note from = {
			flow, false, false, p[i].from_tid, p[i].from_ts, key
		};
		struct jank_flow_note to = { flow, true, false, p[i].to_tid, p[i].to_ts, key };

		snprintf(key, sizeof(key), "tcp#%" PRIu64, ++ctx->net_pairs);
		jank_crosshost_note(ctx->x, p[i].from_host, &from, "tcp", NULL);
		jank_crosshost_note(ctx->x, p[i].to_host, &to, "tcp", NULL);
	}
}

/* A verdict of a host, held (a deep copy) until every host's trace was read. */
static void mh_on_verdict(const struct jank_verdict *r, void *data)
{
	struct mh_host *h = data;
	struct mh_ctx *ctx = h->ctx;
	struct mh_verdict *m;

	if (ctx->nv == ctx->v_cap) {
		size_t cap = jank_array_grow(&ctx->v, sizeof(*ctx->v), ctx->v_cap, 16);

		if (!cap) {
			ctx->err = -ENOMEM;
			return;
		}
		ctx->v_cap = cap;
	}
	m = &ctx->v[ctx->nv++];
	memset(m, 0, sizeof(*m));
	jank_path_init(&m->path);
	jank_profile_init(&m->pf);
	if (jank_path_copy(&m->path, r->path) < 0 ||
	    (r->profile && jank_profile_copy(&m->pf, r->profile) < 0))
		ctx->err = -ENOMEM;
	m->host = h->index;
	m->v = *r;
	m->has_pf = r->profile != NULL;
	m->has_sus = r->suspects != NULL;
	if (r->suspects)
		m->sus = *r->suspects;
	snprintf(m->key, sizeof(m->key), "%s", r->key ? r->key : "");
	snprintf(m->comm, sizeof(m->comm), "%s", r->comm ? r->comm : "");
}

/* One host's traces through its engine. 0 or EXIT_* after the message. */
static int mh_run(struct mh_host *h)
{
	struct jank_reader_stats stats;
	struct jank_reader *in;
	char err[ERR_LEN];
	int r = 0;

	in = jank_reader_new_ctf(h->dirs, h->ndirs, h->e, err, sizeof(err));
	if (!in) {
		errorf("%s", err);
		return JANK_EXIT_BAD_INPUT;
	}
	jank_reader_set_notices(in, true, NULL, NULL);
	/* A symbolizer per host: the pids of two hosts collide too. */
	if (h->sym) {
		jank_reader_set_symbols(in, h->sym);
		jank_engine_set_namer(h->e, jank_symbols_frame_namer, h->sym);
		jank_engine_set_locator(h->e, jank_symbols_code_locator, h->sym);
	}
	if (jank_reader_run_all(in) != JANK_READER_STATUS_END) {
		errorf("%s", jank_reader_error(in));
		r = JANK_EXIT_BAD_INPUT;
	} else {
		jank_reader_get_stats(in, &stats);
		if (stats.events_used == 0) {
			errorf("%s (host %s): no events the engine can use (%" PRIu64
			       " events read)",
			       jank_reader_name(in), h->name, stats.events);
			r = JANK_EXIT_BAD_INPUT;
		}
	}
	jank_reader_free(in);
	return r;
}

static int cmp_verdict(const void *a, const void *b)
{
	const struct mh_verdict *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->host < y->host ? -1 : x->host > y->host;
}

/* A held verdict with its path joined across hosts. 0 or -ENOMEM. */
static int mh_print(struct mh_ctx *ctx, struct mh_verdict *m, enum format format)
{
	struct jank_breakdown bd;
	struct jank_path joined;
	int r, crossed;

	jank_path_init(&joined);
	jank_breakdown_init(&bd);
	crossed = jank_crosshost_path(ctx->x, m->host, &m->path, &joined);
	r = crossed < 0 ? crossed : jank_breakdown_compute(&joined, &bd);
	if (r == 0) {
		m->v.path = &joined;
		m->v.breakdown = &bd;
		/* What differs from normal actions was measured on this host's part only. */
		m->v.profile = m->has_pf && !crossed ? &m->pf : NULL;
		m->v.suspects = m->has_sus && !crossed ? &m->sus : NULL;
		m->v.key = m->key;
		m->v.comm = m->comm;
		m->v.incomplete |= joined.incomplete;
		if (format == FORMAT_JSON)
			r = jank_format_json_print(
				stdout, jank_verdict_to_json(&m->v, JANK_VERDICT_JSON_FULL));
		else
			jank_format_verdict_text(stdout, &m->v);
	}
	jank_breakdown_fini(&bd);
	jank_path_fini(&joined);
	return r;
}

static void mh_drop(struct mh_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nv; i++) {
		jank_path_fini(&ctx->v[i].path);
		jank_profile_fini(&ctx->v[i].pf);
	}
	free(ctx->v);
	for (size_t i = 0; i < ctx->nhosts; i++) {
		jank_engine_free(ctx->hosts[i].e);
		jank_symbols_free(ctx->hosts[i].sym);
		free(ctx->hosts[i].dirs);
	}
	free(ctx->hosts);
	jank_crosshost_free(ctx->x);
	jank_netmatch_free(ctx->nm);
}

/* "+37.0 ms": an offset, signed. */
static const char *signed_duration(int64_t ns, char *buf, size_t len)
{
	char d[32];

	jank_units_duration(ns < 0 ? -ns : ns, d, sizeof(d));
	snprintf(buf, len, "%s%s", ns < 0 ? "-" : "+", d);
	return buf;
}

/* One pair of hosts' clocks: b's against a's, at b's last event. */
static void mh_offset(const struct mh_ctx *ctx, unsigned a, unsigned b, enum format format)
{
	struct jank_engine_stats s;
	struct jank_clock_offset o;
	char off[40], lo[40], hi[40];

	jank_engine_get_stats(ctx->hosts[b].e, &s);
	jank_crosshost_offset(ctx->x, a, b, s.now, &o);
	if (format == FORMAT_JSON) {
		struct json_object *j = json_object_new_object();
		int e = 0;

		e |= jank_json_add_str(j, "type", "clock");
		e |= jank_json_add_str(j, "host", ctx->hosts[b].name);
		e |= jank_json_add_str(j, "reference", ctx->hosts[a].name);
		e |= jank_json_add_i64(j, "at", s.now);
		e |= jank_json_add_i64(j, "offset_ns", o.offset);
		if (o.lo != INT64_MIN)
			e |= jank_json_add_i64(j, "lo_ns", o.lo);
		if (o.hi != INT64_MAX)
			e |= jank_json_add_i64(j, "hi_ns", o.hi);
		e |= jank_json_add_i64(j, "messages_to", (int64_t)o.a_to_b);
		e |= jank_json_add_i64(j, "messages_from", (int64_t)o.b_to_a);
		e |= jank_json_add_bool(j, "consistent", o.consistent);
		if (e)
			json_object_put(j);
		else
			jank_format_json_print(stdout, j);
		return;
	}
	printf("clock of %s against %s: %s (between %s and %s; %" PRIu64 " messages to it, %" PRIu64
	       " from it)%s\n",
	       ctx->hosts[b].name, ctx->hosts[a].name, signed_duration(o.offset, off, sizeof(off)),
	       o.lo == INT64_MIN ? "-inf" : signed_duration(o.lo, lo, sizeof(lo)),
	       o.hi == INT64_MAX ? "+inf" : signed_duration(o.hi, hi, sizeof(hi)), o.a_to_b,
	       o.b_to_a, o.consistent ? "" : " (no clock fits every message)");
}

/* Each pair of hosts that exchanged messages: the later host's clock against the earlier's. */
static void mh_offsets(const struct mh_ctx *ctx, enum format format)
{
	for (size_t a = 0; a < ctx->nhosts; a++)
		for (size_t b = a + 1; b < ctx->nhosts; b++) {
			struct jank_clock_offset o;

			jank_crosshost_offset(ctx->x, (unsigned)a, (unsigned)b, 0, &o);
			if (o.a_to_b + o.b_to_a)
				mh_offset(ctx, (unsigned)a, (unsigned)b, format);
		}
}

/* What the kernel matching did, when the traces had TCP segments. */
static void mh_net(const struct mh_ctx *ctx, enum format format)
{
	struct jank_netmatch_stats s;

	jank_netmatch_get_stats(ctx->nm, &s);
	if (!s.sends && !s.recvs)
		return;
	if (format == FORMAT_JSON) {
		struct json_object *j = json_object_new_object();
		int e = 0;

		e |= jank_json_add_str(j, "type", "tcp_matching");
		e |= jank_json_add_i64(j, "sends", (int64_t)s.sends);
		e |= jank_json_add_i64(j, "receives", (int64_t)s.recvs);
		e |= jank_json_add_i64(j, "pairs", (int64_t)s.pairs);
		e |= jank_json_add_i64(j, "pairs_fallback", (int64_t)s.fallback);
		e |= jank_json_add_i64(j, "sends_evicted", (int64_t)s.evicted_sends);
		e |= jank_json_add_i64(j, "receives_evicted", (int64_t)s.evicted_recvs);
		e |= jank_json_add_i64(j, "lookups_cut", (int64_t)s.walks_cut);
		e |= jank_json_add_i64(j, "kept", (int64_t)s.kept);
		e |= jank_json_add_i64(j, "max", (int64_t)s.max_events);
		e |= jank_json_add_i64(j, "bytes", (int64_t)s.bytes);
		if (e)
			json_object_put(j);
		else
			jank_format_json_print(stdout, j);
		return;
	}
	printf("tcp matching: %" PRIu64 " sends, %" PRIu64 " receives that woke a thread, %" PRIu64
	       " matched (%" PRIu64 " by seq, ack and flags: addresses differed); never matched, "
	       "overwritten: %" PRIu64 " sends, %" PRIu64 " receives; %zu of %zu kept\n",
	       s.sends, s.recvs, s.pairs, s.fallback, s.evicted_sends, s.evicted_recvs, s.kept,
	       s.max_events);
}

/* Each host's summary: text under its name; JSON objects with its name. */
static void mh_end(const struct mh_ctx *ctx, enum format format)
{
	if (format == FORMAT_TEXT && ctx->nv == 0)
		printf("no action went over its threshold\n\n");
	for (size_t h = 0; h < ctx->nhosts; h++) {
		const struct jank_engine *e = ctx->hosts[h].e;

		if (format == FORMAT_TEXT) {
			printf("host %s:\n", ctx->hosts[h].name);
			jank_format_summary_text(stdout, e);
			continue;
		}
		for (size_t i = 0; i < jank_engine_rule_count(e); i++) {
			struct json_object *j = jank_format_summary_json(e, i);

			if (j && jank_json_add_str(j, "host", ctx->hosts[h].name) == 0)
				jank_format_json_print(stdout, j);
			else
				json_object_put(j);
		}
	}
	mh_net(ctx, format);
	mh_offsets(ctx, format);
}

/* The hosts' engines, each over its own traces. 0 or EXIT_*. */
static int mh_setup(struct mh_ctx *ctx, const struct jank_config *conf, const struct options *o,
		    const struct jank_trace_host *th, size_t nth, const char *const *names)
{
	struct options ho = *o;

	ho.no_gc = true; /* the other hosts' paths reach back in time: keep the graphs */
	for (size_t h = 0; h < ctx->nhosts; h++) {
		struct mh_host *mh = &ctx->hosts[h];

		mh->ctx = ctx;
		mh->index = (unsigned)h;
		mh->name = names[h];
		if (jank_crosshost_add_host(ctx->x, names[h]) < 0)
			return JANK_EXIT_BAD_INPUT;
		mh->dirs = calloc(nth, sizeof(*mh->dirs));
		mh->e = config_engine(conf, &ho, o->all);
		mh->sym = jank_symbols_new(0);
		if (!mh->dirs || !mh->e)
			return JANK_EXIT_BAD_INPUT;
		for (size_t i = 0; i < nth; i++)
			if (!strcmp(th[i].host, names[h]))
				mh->dirs[mh->ndirs++] = th[i].dir;
		jank_engine_set_verdict_cb(mh->e, mh_on_verdict, mh);
		jank_engine_set_flow_cb(mh->e, mh_on_flow, mh);
		jank_engine_set_net_cb(mh->e, mh_on_net, mh);
	}
	return 0;
}

static int analyze_hosts(const struct jank_config *conf, const struct options *o,
			 const struct jank_trace_host *th, size_t nth, const char *const *names,
			 size_t nnames)
{
	struct mh_ctx ctx = { 0 };
	int r;

	ctx.x = jank_crosshost_new(FLOW_EVENTS_MAX);
	ctx.nm = jank_netmatch_new(NET_EVENTS_MAX);
	ctx.hosts = calloc(nnames, sizeof(*ctx.hosts));
	if (!ctx.x || !ctx.nm || !ctx.hosts) {
		errorf("out of memory");
		r = JANK_EXIT_FAILURE;
		goto end;
	}
	ctx.nhosts = nnames;
	r = mh_setup(&ctx, conf, o, th, nth, names);
	for (size_t h = 0; r == 0 && h < ctx.nhosts; h++)
		r = mh_run(&ctx.hosts[h]);
	if (r)
		goto end;
	for (size_t h = 0; h < ctx.nhosts; h++)
		jank_crosshost_set_graph(ctx.x, (unsigned)h, jank_engine_graph(ctx.hosts[h].e),
					 jank_symbols_frame_namer, ctx.hosts[h].sym);
	if (ctx.err == 0)
		ctx.err = jank_crosshost_pair(ctx.x);
	for (size_t i = 0; i < ctx.nv; i++)
		ctx.v[i].order = jank_crosshost_convert(ctx.x, 0, ctx.v[i].host, ctx.v[i].v.end);
	if (ctx.nv > 1)
		jank_sort(ctx.v, ctx.nv, sizeof(*ctx.v), cmp_verdict);
	for (size_t i = 0; ctx.err == 0 && i < ctx.nv; i++)
		ctx.err = mh_print(&ctx, &ctx.v[i], o->format);
	if (ctx.err) {
		errorf("out of memory");
		r = JANK_EXIT_FAILURE;
		goto end;
	}
	mh_end(&ctx, o->format);
	r = finish_output();
end:
	mh_drop(&ctx);
	return r;
}

int analyze_maybe_hosts(const struct jank_config *conf, const struct options *o, bool *done)
{
	const char *names[JANK_CROSSHOST_MAX_HOSTS];
	struct jank_trace_host *th;
	size_t nth, n;
	char err[ERR_LEN];
	int r = 0;

	*done = false;
	/* A trace the hosts cannot be told of: the one-engine analysis says what is wrong. */
	if (jank_trace_hosts(o->traces, o->ntraces, &th, &nth, err, sizeof(err)) < 0) {
		jank_trace_hosts_free(th, nth);
		return 0;
	}
	n = jank_trace_hosts_distinct(th, nth, names, JANK_CROSSHOST_MAX_HOSTS);
	if (n < 2)
		goto end;
	*done = true;
	for (size_t i = 0; i < nth; i++)
		if (!th[i].host[0]) {
			errorf(th[i].bad ? "%s: its environment's hostname is not a hostname"
					 : "%s: no hostname in its environment (with traces of "
					   "several hosts, each must name its host)",
			       th[i].dir);
			r = JANK_EXIT_BAD_INPUT;
			goto end;
		}
	if (n > JANK_CROSSHOST_MAX_HOSTS) {
		errorf("traces of %zu hosts: at most %d at once", n, JANK_CROSSHOST_MAX_HOSTS);
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	r = analyze_hosts(conf, o, th, nth, names, n);
end:
	jank_trace_hosts_free(th, nth);
	return r;
}
