/* SPDX-License-Identifier: MIT */
/*
 * The native offline decoder: CTF 1.8 directories read without babeltrace2.
 *
 * Each trace directory's metadata is parsed (ctf-metadata.c) and its
 * scopes compiled (ctf-plan.c): the packet header once, each stream class's
 * packet context and event header, and each event class, on its first
 * event, into plans that read the fields the engine asked for. Each stream
 * file is mapped and read packet by packet; the streams are merged in time
 * order with a heap keyed by (time, stream), the order babeltrace2's
 * src.ctf.fs and jank's merge (trace-merge.c) give: streams numbered by
 * component, then by file path. What reaches the engine is what
 * trace-decode.c gives it for the same trace: the same jank_event, the
 * same discarded ranges (babeltrace2's rules: a counter that grows since
 * the stream's previous packet, or a first packet that already counts
 * some; packet sequence numbers that skip), the same symbolizer calls.
 *
 * native_open() refuses what it does not take (the reason in one line),
 * so that the reader falls back to babeltrace2: several directories of one
 * trace (rotation chunks), stream files that continue one another, clocks
 * other than 1 GHz, event classes the plan compiler does not accept.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace-native-int.h"

/* ---- Packets ---- */

static int stream_fail(struct jank_reader *in, struct nstream *s, const char *what)
{
	jank_errf(in->err, sizeof(in->err),
		  "%s: cannot read the trace: packet at byte %llu, at its bit %llu: %s", s->path,
		  (unsigned long long)s->pkt, (unsigned long long)s->cur.at, what);
	return -EINVAL;
}

static int to_ns(struct jank_reader *in, const struct nstream *s, uint64_t v, int64_t *ns)
{
	if (v > INT64_MAX || __builtin_add_overflow(s->tr->clock_base, (int64_t)v, ns)) {
		jank_errf(in->err, sizeof(in->err), "%s: a timestamp overflows 64-bit nanoseconds",
			  in->name);
		return -ERANGE;
	}
	return 0;
}

/* A message of the stream at ts: its own times never go back (the merge's check, per stream). */
static int order_check(struct jank_reader *in, struct nstream *s, int64_t ts)
{
	if (ts < s->last_ts) {
		jank_errf(in->err, sizeof(in->err),
			  "%s: timestamps go backwards (%lld ns after %lld ns): were these traces "
			  "recorded with the same clock?",
			  in->name, (long long)ts, (long long)s->last_ts);
		return -ERANGE;
	}
	s->last_ts = ts;
	return 0;
}

_Static_assert(offsetof(struct nstream, vals) == offsetof(struct nstream, ev.fields),
	       "a stream's values are its event's fields");

static struct nsc *packet_sc(struct nstream *s)
{
	const struct ctf_cursor *c = &s->cur;
	uint64_t id = native_has_role(c, CTF_ROLE_STREAM_ID) ? c->roles[CTF_ROLE_STREAM_ID] : 0;

	if (!native_has_role(c, CTF_ROLE_STREAM_ID) && s->tr->nscs != 1)
		return NULL;
	for (size_t i = 0; i < s->tr->nscs; i++)
		if (s->tr->scs[i].decl->id == id || !native_has_role(c, CTF_ROLE_STREAM_ID))
			return &s->tr->scs[i];
	return NULL;
}

/* The packet's sizes, checked against the file. */
static int packet_sizes(struct jank_reader *in, struct nstream *s)
{
	struct ctf_cursor *c = &s->cur;
	uint64_t left = (uint64_t)(s->size - s->pkt) * 8;
	uint64_t psize =
		native_has_role(c, CTF_ROLE_PACKET_SIZE) ? c->roles[CTF_ROLE_PACKET_SIZE] : left;
	uint64_t csize =
		native_has_role(c, CTF_ROLE_CONTENT_SIZE) ? c->roles[CTF_ROLE_CONTENT_SIZE] : psize;

	if (psize % 8 || psize == 0 || psize > left || csize > psize || csize < c->at)
		return stream_fail(in, s, "its sizes are past the end of the file or inconsistent");
	s->pkt_len = psize / 8;
	c->end = csize;
	if (s->scratch_cap < csize / 8 + CTF_NSLOTS + 1) {
		char *v = realloc(s->scratch, csize / 8 + CTF_NSLOTS + 1);

		if (!v)
			return -ENOMEM;
		s->scratch = v;
		s->scratch_cap = csize / 8 + CTF_NSLOTS + 1;
	}
	c->scratch = s->scratch;
	c->scratch_cap = s->scratch_cap;
	return 0;
}

static void queue_discarded(struct nstream *s, int64_t begin, int64_t end, uint64_t count)
{
	s->disc[s->ndisc++] = (struct discarded){ begin, end, count, s->prev_cpu };
}

/* babeltrace2's discarded events and packets, from this packet's counters and the previous. */
static int packet_discarded(struct jank_reader *in, struct nstream *s)
{
	const struct ctf_cursor *c = &s->cur;
	bool tb = native_has_role(c, CTF_ROLE_TS_BEGIN), te = native_has_role(c, CTF_ROLE_TS_END);
	int64_t begin = 0, end = 0, prev_end = 0;

	if ((tb && to_ns(in, s, c->roles[CTF_ROLE_TS_BEGIN], &begin) < 0) ||
	    (te && to_ns(in, s, c->roles[CTF_ROLE_TS_END], &end) < 0) ||
	    (s->prev_end != NO_SNAPSHOT && to_ns(in, s, s->prev_end, &prev_end) < 0))
		return -ERANGE;
	s->ndisc = s->disc_head = 0;
	if (native_has_role(c, CTF_ROLE_DISCARDED)) {
		uint64_t now = c->roles[CTF_ROLE_DISCARDED];

		/*
		 * A counter below the previous packet's is not 2^64 events
		 * lost: writers that share a buffer may end its packets out of
		 * order, each with the count of its moment. The highest seen
		 * stays the base, so that nothing is counted twice.
		 */
		if (s->prev_disc == NO_SNAPSHOT && now != 0)
			queue_discarded(s, begin, end, 0);
		else if (s->prev_disc != NO_SNAPSHOT && now > s->prev_disc)
			queue_discarded(s, prev_end, end, now - s->prev_disc);
		if (s->prev_disc == NO_SNAPSHOT || now > s->prev_disc)
			s->prev_disc = now;
	}
	if (native_has_role(c, CTF_ROLE_SEQ_NUM)) {
		uint64_t now = c->roles[CTF_ROLE_SEQ_NUM];

		if (s->prev_seq != NO_SNAPSHOT && now > s->prev_seq && now - s->prev_seq > 1)
			queue_discarded(s, prev_end, begin, now - s->prev_seq - 1);
		if (s->prev_seq == NO_SNAPSHOT || now > s->prev_seq)
			s->prev_seq = now;
	}
	for (unsigned i = 0; i < s->ndisc; i++)
		if (order_check(in, s, s->disc[i].begin) < 0)
			return -ERANGE;
	if (tb && order_check(in, s, begin) < 0)
		return -ERANGE;
	s->prev_end = te ? c->roles[CTF_ROLE_TS_END] : NO_SNAPSHOT;
	return 0;
}

/* Give back the pages of the file already read (clean page cache, not our memory). */
static void release_pages(struct nstream *s)
{
	size_t upto = (size_t)s->pkt & ~(size_t)(sysconf(_SC_PAGESIZE) - 1);

	if (upto - s->released >= RELEASE_BYTES) {
		madvise((void *)(s->map + s->released), upto - s->released, MADV_DONTNEED);
		s->released = upto;
	}
}

/* Open the packet at s->pkt: header, context, sizes, discarded counts. 0, 1: end of file. */
static int packet_open(struct jank_reader *in, struct nstream *s)
{
	struct ctf_cursor *c = &s->cur;

	if (s->pkt >= s->size)
		return 1;
	release_pages(s);
	c->buf = s->map + s->pkt;
	c->at = 0;
	c->end = (uint64_t)(s->size - s->pkt) * 8;
	c->roles_set = 0;
	c->out = s->vals;
	c->arrays = s->arrays;
	c->steps = c->end + 4096;
	s->vals[CTF_SLOT_CPU].type = JANK_VALUE_NONE;
	if (ctf_plan_run(s->tr->phdr, c) < 0)
		return stream_fail(in, s, c->why);
	if (native_has_role(c, CTF_ROLE_MAGIC) && c->roles[CTF_ROLE_MAGIC] != CTF_MAGIC)
		return stream_fail(in, s, "bad magic number");
	s->sc = packet_sc(s);
	if (!s->sc)
		return stream_fail(in, s, "unknown stream class");
	if (ctf_plan_run(s->sc->pctx, c) < 0)
		return stream_fail(in, s, c->why);
	if (packet_sizes(in, s) < 0)
		return -EINVAL;
	s->prev_cpu = s->cpu;
	s->cpu = (int32_t)jank_value_as_int(&s->vals[CTF_SLOT_CPU], -1);
	return packet_discarded(in, s) < 0 ? -ERANGE : 0;
}

/* ---- Event classes ---- */

static void member_list(char *buf, size_t len, const struct ctf_type *const *scopes, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; scopes[k] && i < scopes[k]->nmembers && used < len; i++) {
			int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
					 ctf_field_name(scopes[k]->members[i].name));

			used += w > 0 ? (size_t)w : 0;
		}
	}
}

/* As trace-decode.c's field_missing(): tell, or stop when strict. */
static int native_field_missing(struct jank_reader *in, uint32_t class_id, unsigned index,
				const struct ctf_type *const scopes[3])
{
	char have[256], msg[INPUT_ERR_LEN];

	member_list(have, sizeof(have), scopes, 3);
	if (!jank_engine_field_missing(in->engine, class_id, index, have, msg, sizeof(msg)))
		return 0;
	if (in->strict) {
		jank_errf(in->err, sizeof(in->err), "%s", msg);
		return -ECANCELED;
	}
	if (in->notice)
		in->notice(msg, in->notice_data);
	return 0;
}

static const char *const sym_fields[] = {
	"baddr", "memsz", "path", "is_pic", "build_id", "filename"
};

static int compile_class(struct jank_reader *in, struct nsc *sc, struct nclass *nc,
			 const struct ntrace *tr)
{
	const struct ctf_event_decl *e = nc->decl;
	const struct ctf_type *scopes[3] = { e->fields, e->context, sc->decl->event_context };
	struct ctf_want want[3];
	const char *const *fields = NULL;
	unsigned nfields = 0, arrays = 0;
	char why[256];

	memset(want, 0, sizeof(want));
	for (int k = 0; k < 3; k++)
		memset(want[k].buf, CTF_SLOT_NONE, sizeof(want[k].buf));
	nc->class_id =
		jank_engine_resolve_class(in->engine, tr->domain, e->name, &fields, &nfields);
	if (nc->class_id == JANK_CLASS_INVALID)
		return -ENOMEM;
	nc->wanted = jank_engine_class_wanted(in->engine, nc->class_id);
	nc->sym_kind = in->symbols && tr->domain == JANK_DOMAIN_UST
			       ? (uint8_t)reader_symbols_kind(e->name)
			       : READER_SYM_NONE;
	nfields = nfields > JANK_EVENT_MAX_FIELDS ? JANK_EVENT_MAX_FIELDS : nfields;
	nc->nfields = nfields;
	for (unsigned i = 0; i < nfields; i++) {
		int k, vt = JANK_VALUE_NONE;

		for (k = 0; fields && fields[i] && k < 3; k++)
			if (ctf_scope_member(scopes[k], fields[i]))
				break;
		if (!fields || !fields[i])
			continue;
		if (k == 3) {
			if (native_field_missing(in, nc->class_id, i, scopes) < 0)
				return -ECANCELED;
			continue;
		}
		vt = ctf_value_type(ctf_scope_member(scopes[k], fields[i]));
		if (vt == JANK_VALUE_NONE)
			continue;
		want[k].names[i] = fields[i];
		want[k].buf[i] = vt == JANK_VALUE_ARRAY && arrays < CTF_ARRAY_BUFS ? (uint8_t)arrays
										   : CTF_SLOT_NONE;
		arrays += vt == JANK_VALUE_ARRAY;
	}
	want[2].names[CTF_SLOT_TID] = sc->tid[0] ? sc->tid : NULL;
	want[2].names[CTF_SLOT_PID] = sc->pid[0] ? sc->pid : NULL;
	want[2].names[CTF_SLOT_COMM] = sc->has_comm ? "procname" : NULL;
	want[2].names[CTF_SLOT_PID_NS] = sc->has_pid_ns ? "pid_ns" : NULL;
	for (unsigned i = 0; nc->sym_kind != READER_SYM_NONE && i < 6; i++) {
		want[0].names[CTF_SLOT_SYM_BADDR + i] = sym_fields[i];
		want[0].buf[CTF_SLOT_SYM_BADDR + i] = 1;
	}
	if (ctf_plan_compile(tr->meta, sc->decl->event_context, CTF_SCOPE_OTHER, &want[2],
			     &nc->common, why, sizeof(why)) < 0 ||
	    ctf_plan_compile(tr->meta, e->context, CTF_SCOPE_OTHER, &want[1], &nc->spec, why,
			     sizeof(why)) < 0 ||
	    ctf_plan_compile(tr->meta, e->fields, CTF_SCOPE_OTHER, &want[0], &nc->payload, why,
			     sizeof(why)) < 0) {
		jank_errf(in->err, sizeof(in->err), "%s: event %s: %s", tr->dir, e->name, why);
		return -EINVAL;
	}
	/* The slots read (fields, contexts, the symbolizer's) that no plan surely sets. */
	nc->clear = (1u << nfields) - 1;
	nc->clear |= 1u << CTF_SLOT_TID | 1u << CTF_SLOT_PID | 1u << CTF_SLOT_COMM |
		     1u << CTF_SLOT_PID_NS;
	if (nc->sym_kind != READER_SYM_NONE)
		nc->clear |= ((1u << CTF_NSLOTS) - 1) & ~((1u << CTF_SLOT_SYM_BADDR) - 1);
	nc->clear &= ~(ctf_plan_sure_slots(nc->common) | ctf_plan_sure_slots(nc->spec) |
		       ctf_plan_sure_slots(nc->payload));
	nc->sets =
		ctf_plan_slots(nc->common) | ctf_plan_slots(nc->spec) | ctf_plan_slots(nc->payload);
	/* An empty scope (no context, no field) need not run at each event. */
	if (ctf_plan_is_empty(nc->common))
		ctf_plan_free(nc->common), nc->common = NULL;
	if (ctf_plan_is_empty(nc->spec))
		ctf_plan_free(nc->spec), nc->spec = NULL;
	if (ctf_plan_is_empty(nc->payload))
		ctf_plan_free(nc->payload), nc->payload = NULL;
	{
		const struct ctf_plan *all[3] = { nc->common, nc->spec, nc->payload };
		unsigned k = 0;

		nc->body_seq0 = true;
		for (unsigned i = 0; i < 3; i++) {
			if (all[i])
				nc->body[k++] = all[i];
			nc->body_seq0 = nc->body_seq0 && (!all[i] || ctf_plan_has_prog(all[i]));
		}
		nc->body[k] = NULL;
		nc->body_seq0 = nc->body_seq0 && k;
		/* A body that only skips a fixed size is skipped inline (body_seq0 false). */
		nc->body_skip = k == 1 && nc->body_seq0 &&
				ctf_plan_skip_only(nc->body[0], &nc->skip_align, &nc->skip_bits);
		nc->body_seq0 = nc->body_seq0 && !nc->body_skip;
		if (!nc->body_seq0)
			memcpy(nc->body, all, sizeof(all));
	}
	nc->compiled = true;
	in->stats.classes++;
	return 0;
}

void native_class_free(struct nclass *nc)
{
	ctf_plan_free(nc->common);
	ctf_plan_free(nc->spec);
	ctf_plan_free(nc->payload);
	nc->common = nc->spec = nc->payload = NULL;
	memset(nc->body, 0, sizeof(nc->body));
	nc->body_seq0 = false;
	nc->body_skip = false;
	nc->compiled = false;
}

/* ---- Events ---- */

static inline struct nclass *event_class(struct nstream *s)
{
	const struct ctf_cursor *c = &s->cur;
	uint64_t id = native_has_role(c, CTF_ROLE_EVENT_ID) ? c->roles[CTF_ROLE_EVENT_ID]
							    : s->sc->only_id;

	if (!native_has_role(c, CTF_ROLE_EVENT_ID) && s->sc->ndeclared != 1)
		return NULL;
	if (id >= s->sc->nclasses || !s->sc->classes[id].declared)
		return NULL;
	return &s->sc->classes[id];
}

/*
 * The next event's header: its class and time. Its body waits when its class
 * is not compiled yet: the class is resolved with the engine when the event
 * is delivered, in merged order, as trace-decode.c resolves it (the engine
 * numbers classes in that order).
 */
__attribute__((always_inline)) static inline int event_head(struct jank_reader *in,
							    struct nstream *s)
{
	struct ctf_cursor *c = &s->cur;

	c->roles_set &= ~(1u << CTF_ROLE_EVENT_ID);
	c->steps = c->end - c->at + 4096;
	if (ctf_plan_run(s->sc->ehdr, c) < 0)
		return stream_fail(in, s, c->why);
	s->cls = event_class(s);
	if (!s->cls)
		return stream_fail(in, s, "an event of an unknown class");
	s->body_pending = true;
	if (to_ns(in, s, c->clock, &s->ts) < 0 || order_check(in, s, s->ts) < 0)
		return -ERANGE;
	return 0;
}

/*
 * A body not for ctf_plan_run_seq0(): one that only skips a fixed size
 * (skipped here; its plan runs when it does not fit, for its failure), or
 * plans of which one has no program, or none.
 */
__attribute__((noinline)) static int body_other(const struct nclass *nc, struct ctf_cursor *c)
{
	if (nc->body_skip && ctf_plan_skip(c, nc->skip_align, nc->skip_bits) == 0)
		return 0;
	return ctf_plan_run_seq(nc->body, 3, c);
}

/* The event's contexts and payload, into the stream's values. */
__attribute__((always_inline)) static inline int event_body(struct jank_reader *in,
							    struct nstream *s)
{
	struct ctf_cursor *c = &s->cur;
	struct nclass *nc = s->cls;
	int r;

	if (!nc->compiled) {
		r = compile_class(in, s->sc, nc, s->tr);
		if (r < 0)
			return r;
	}
	/* A slot no event since its last clearing may have set needs none. */
	for (uint32_t m = nc->clear & ~s->clean; m; m &= m - 1)
		s->vals[__builtin_ctz(m)].type = JANK_VALUE_NONE;
	s->clean = (s->clean | nc->clear) & ~nc->sets;
	c->scratch_used = 0;
	if (nc->body_seq0 ? ctf_plan_run_seq0(nc->body, c) < 0 : body_other(nc, c) < 0)
		return stream_fail(in, s, c->why);
	in->stats.events++;
	s->body_pending = false;
	return 0;
}

/* The same, for an event whose class was compiled when it was delivered. */
__attribute__((noinline)) static int event_body_pending(struct jank_reader *in, struct nstream *s)
{
	return event_body(in, s);
}

/*
 * Bring the stream to its next item (an event the engine or symbolizer takes, or a discarded
 * range). Inline in the run loops' one call per event (native_deliver_next()).
 */
__attribute__((always_inline)) static inline int stream_next(struct jank_reader *in,
							     struct nstream *s)
{
	for (;;) {
		int r;

		if (s->disc_head < s->ndisc) {
			s->kind = ITEM_DISCARDED;
			s->ts = s->disc[s->disc_head].begin;
			return 0;
		}
		if (s->pkt_len && s->cur.at >= s->cur.end) {
			int64_t end;

			if (native_has_role(&s->cur, CTF_ROLE_TS_END) &&
			    (to_ns(in, s, s->cur.roles[CTF_ROLE_TS_END], &end) < 0 ||
			     order_check(in, s, end) < 0))
				return -ERANGE;
			s->pkt += s->pkt_len;
			s->pkt_len = 0;
		}
		if (!s->pkt_len) {
			r = packet_open(in, s);
			if (r == 1) {
				s->kind = ITEM_END;
				return 0;
			}
			if (r < 0)
				return r;
			continue;
		}
		r = event_head(in, s);
		if (r < 0)
			return r;
		s->kind = ITEM_EVENT;
		if (!s->cls->compiled)
			return 0; /* resolved when delivered */
		r = event_body(in, s);
		if (r < 0)
			return r;
		if (s->cls->wanted || s->cls->sym_kind != READER_SYM_NONE)
			return 0;
	}
}

static int32_t slot_int32(const struct nstream *s, unsigned slot)
{
	return (int32_t)jank_value_as_int(&s->vals[slot], -1);
}

/* A PID namespace's inode (32 bits), 0 when absent or out of range (as trace-decode.c's). */
static uint32_t slot_ns(const struct nstream *s)
{
	int64_t n = jank_value_as_int(&s->vals[CTF_SLOT_PID_NS], 0);

	return n > 0 && n <= UINT32_MAX ? (uint32_t)n : 0;
}

/* trace-symbols.c's reader_symbols_event(), from decoded values. */
static void symbols_values(struct jank_reader *in, const struct nstream *s, uint8_t kind)
{
	const struct jank_value *v = s->vals;
	int32_t pid = slot_int32(s, CTF_SLOT_PID);
	int64_t vpid = jank_process_key(pid >= 0 ? slot_ns(s) : 0, pid);
	uint64_t baddr, memsz, is_pic = 1;
	uint8_t id[JANK_SYMBOLS_MAX_BUILD_ID];
	const struct jank_value *b;

	in->stats.symbol_events++;
	if (kind == READER_SYM_START) {
		jank_symbols_forget_process(in->symbols, vpid);
		return;
	}
	if (v[CTF_SLOT_SYM_BADDR].type != JANK_VALUE_INT &&
	    v[CTF_SLOT_SYM_BADDR].type != JANK_VALUE_UINT)
		return;
	baddr = v[CTF_SLOT_SYM_BADDR].u;
	switch (kind) {
	case READER_SYM_BIN_INFO:
	case READER_SYM_DLOPEN:
		if (v[CTF_SLOT_SYM_PATH].type != JANK_VALUE_STR ||
		    (v[CTF_SLOT_SYM_MEMSZ].type != JANK_VALUE_INT &&
		     v[CTF_SLOT_SYM_MEMSZ].type != JANK_VALUE_UINT))
			return;
		memsz = v[CTF_SLOT_SYM_MEMSZ].u;
		if (kind == READER_SYM_BIN_INFO) {
			if (v[CTF_SLOT_SYM_IS_PIC].type != JANK_VALUE_INT &&
			    v[CTF_SLOT_SYM_IS_PIC].type != JANK_VALUE_UINT)
				return;
			is_pic = v[CTF_SLOT_SYM_IS_PIC].u;
		}
		jank_symbols_add_mapping(in->symbols, vpid, baddr, memsz, v[CTF_SLOT_SYM_PATH].s,
					 NULL, 0, NULL, is_pic != 0);
		break;
	case READER_SYM_BUILD_ID:
		b = &v[CTF_SLOT_SYM_BUILD_ID];
		if (b->type != JANK_VALUE_ARRAY || b->a.n > sizeof(id))
			return;
		for (uint32_t i = 0; i < b->a.n; i++)
			id[i] = (uint8_t)b->a.v[i];
		jank_symbols_set_build_id(in->symbols, vpid, baddr, id, b->a.n);
		break;
	case READER_SYM_DEBUG_LINK:
		if (v[CTF_SLOT_SYM_FILENAME].type == JANK_VALUE_STR)
			jank_symbols_set_debug_link(in->symbols, vpid, baddr,
						    v[CTF_SLOT_SYM_FILENAME].s);
		break;
	case READER_SYM_DLCLOSE:
		jank_symbols_remove_mapping(in->symbols, vpid, baddr);
		break;
	default:
		break;
	}
}

/* Hand the stream's head to the engine (in merged order). */
__attribute__((always_inline)) static inline int deliver(struct jank_reader *in, struct nstream *s)
{
	struct jank_event *jev = &s->ev;
	int r;

	if (s->kind == ITEM_DISCARDED) {
		const struct discarded *d = &s->disc[s->disc_head++];
		uint64_t count = d->count ? d->count : 1;

		in->stats.discarded += count;
		if (in->tap)
			in->tap->discarded(d->cpu, d->begin, d->end, count, in->tap->data);
		jank_engine_discarded_range(in->engine, d->cpu, d->begin, d->end, count);
		return 0;
	}
	if (s->body_pending && (r = event_body_pending(in, s)) < 0)
		return r;
	if (s->cls->sym_kind != READER_SYM_NONE)
		symbols_values(in, s, s->cls->sym_kind);
	if (!s->cls->wanted)
		return 0;
	/* Its fields are in place (vals). */
	jev->ts = s->ts;
	jev->cpu = s->cpu;
	jev->tid = slot_int32(s, CTF_SLOT_TID);
	jev->pid = slot_int32(s, CTF_SLOT_PID);
	jev->pid_ns = slot_ns(s);
	jev->comm = s->vals[CTF_SLOT_COMM].type == JANK_VALUE_STR ? s->vals[CTF_SLOT_COMM].s : NULL;
	jev->class_id = s->cls->class_id;
	jev->nfields = s->cls->nfields;
	in->last_ts = jev->ts;
	in->stats.events_used++;
	if (in->tap)
		in->tap->event(jev, in->tap->data);
	jank_engine_process(in->engine, jev);
	return 0;
}

int native_deliver_next(struct jank_reader *in, struct nstream *s)
{
	int r = deliver(in, s);

	return r < 0 ? r : stream_next(in, s);
}

/* ---- The merge: a heap of streams by (time of their head, stream number) ---- */

static bool earlier(const struct nstream *a, const struct nstream *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->index < b->index);
}

/* The keys are a strict order (stream numbers differ): the heap's head is their least. */
static void sift_down(struct native_reader *nr, size_t i)
{
	struct nstream **h = nr->heap, *x = h[i];
	size_t n = nr->nheap;

	for (;;) {
		size_t m = 2 * i + 1;

		if (m >= n)
			break;
		if (m + 1 < n && earlier(h[m + 1], h[m]))
			m++;
		if (!earlier(h[m], x))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

static void sift_up(struct native_reader *nr, size_t i)
{
	while (i > 0 && earlier(nr->heap[i], nr->heap[(i - 1) / 2])) {
		struct nstream *t = nr->heap[i];

		nr->heap[i] = nr->heap[(i - 1) / 2];
		nr->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

int native_heap_fill(struct jank_reader *in, struct native_reader *nr)
{
	for (size_t i = 0; i < nr->nstreams; i++) {
		struct nstream *s = &nr->streams[i];
		int r = native_stream_next(in, s);

		if (r < 0)
			return r;
		if (s->kind == ITEM_END)
			continue;
		nr->heap[nr->nheap++] = s;
		sift_up(nr, nr->nheap - 1);
	}
	return 0;
}

/* The engine's rules were replaced: every class is compiled again on its next event. */
static void forget_classes(struct native_reader *nr)
{
	for (size_t t = 0; t < nr->ntraces; t++)
		for (size_t k = 0; k < nr->traces[t].nscs; k++)
			for (size_t i = 0; i < nr->traces[t].scs[k].nclasses; i++)
				native_class_free(&nr->traces[t].scs[k].classes[i]);
}

enum jank_reader_status native_run_once(struct jank_reader *in)
{
	struct native_reader *nr = in->native;

	if (nr->generation != jank_engine_generation(in->engine)) {
		forget_classes(nr);
		nr->generation = jank_engine_generation(in->engine);
	}
	for (int n = 0; n < 4096 && nr->nheap; n++) {
		struct nstream *s = nr->heap[0];

		if (native_deliver_next(in, s) < 0) {
			in->failed = true;
			return JANK_READER_STATUS_ERROR;
		}
		if (s->kind == ITEM_END)
			nr->heap[0] = nr->heap[--nr->nheap];
		sift_down(nr, 0);
	}
	if (nr->nheap)
		return JANK_READER_STATUS_OK;
	in->ended = true;
	jank_engine_finish(in->engine);
	return JANK_READER_STATUS_END;
}

/* ---- For the live decoder (trace-live.c) ---- */

__attribute__((noinline)) int native_stream_next(struct jank_reader *in, struct nstream *s)
{
	return stream_next(in, s);
}
