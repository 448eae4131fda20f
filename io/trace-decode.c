/* SPDX-License-Identifier: MIT */
/*
 * The trace reader's decoding: each message the merge hands over, in time
 * order, becomes what the engine reads (a struct jank_event, a discarded
 * range, a tick). Nothing from babeltrace2 crosses into lib/: the engine
 * sees jank_event only.
 *
 * Decode once: the first event of an event class resolves the class with the
 * engine and caches, per wanted field, where it lives (payload, specific
 * context or common context member index) and its value type. Per stream
 * class we cache the common-context indices of vtid/tid, vpid/pid and
 * procname, the packet-context index of cpu_id and the clock's offset. Two
 * small direct-mapped caches, keyed by object address, give an event
 * class's caches and a packet's CPU without asking babeltrace2 again. The
 * per-event path only indexes arrays: no name lookup, no allocation. It is
 * all in this file (reader_message_time, reader_take_message and their
 * static helpers), so that the compiler inlines it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <babeltrace2/babeltrace.h>
#include "errbuf.h"
#include "trace-reader-int.h"

/* Event class ids below this index an array; larger (unusual) ids go to a list. */
#define DENSE_CLASS_IDS (1u << 16)

/* ---- Resolution (once per class) ---- */

static enum jank_value_type value_type_of(const bt_field_class *fc)
{
	bt_field_class_type t = bt_field_class_get_type(fc);

	/* Enumerations are integers of these two kinds. */
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return JANK_VALUE_INT;
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return JANK_VALUE_UINT;
	if (t == BT_FIELD_CLASS_TYPE_STRING)
		return JANK_VALUE_STR;
	/* Call stacks (callstack_user, callstack_kernel): arrays of unsigned integers. */
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY) &&
	    bt_field_class_type_is(
		    bt_field_class_get_type(
			    bt_field_class_array_borrow_element_field_class_const(fc)),
		    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return JANK_VALUE_ARRAY;
	return JANK_VALUE_NONE;
}

static bool find_member(const bt_field_class *fc, const char *name, enum field_scope scope,
			struct field_loc *loc)
{
	uint64_t n;

	if (!fc || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return false;
	n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);

		if (strcmp(bt_field_class_structure_member_get_name(m), name) != 0)
			continue;
		loc->type =
			value_type_of(bt_field_class_structure_member_borrow_field_class_const(m));
		loc->scope = loc->type == JANK_VALUE_NONE ? SCOPE_NONE : scope;
		loc->index = (uint32_t)i;
		return true;
	}
	return false;
}

/*
 * The class of the field a dotted path names below fc, a variant's options
 * passed through unnamed (the first that has it), as the native decoder's
 * plans do (ctf-plan.h).
 */
static const bt_field_class *path_class(const bt_field_class *fc, const char *path, int depth)
{
	size_t n = strcspn(path, ".");
	bt_field_class_type t;
	uint64_t count;

	if (!fc || depth > 64)
		return NULL;
	t = bt_field_class_get_type(fc);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_VARIANT)) {
		count = bt_field_class_variant_get_option_count(fc);
		for (uint64_t i = 0; i < count; i++) {
			const bt_field_class *r = path_class(
				bt_field_class_variant_option_borrow_field_class_const(
					bt_field_class_variant_borrow_option_by_index_const(fc, i)),
				path, depth + 1);

			if (r)
				return r;
		}
		return NULL;
	}
	if (t != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NULL;
	count = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < count; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);
		const char *name = bt_field_class_structure_member_get_name(m);
		const bt_field_class *mc =
			bt_field_class_structure_member_borrow_field_class_const(m);

		if (strlen(name) != n || strncmp(name, path, n))
			continue;
		if (!path[n])
			return bt_field_class_type_is(bt_field_class_get_type(mc),
						      BT_FIELD_CLASS_TYPE_VARIANT)
				       ? NULL
				       : mc;
		return path_class(mc, path + n + 1, depth + 1);
	}
	return NULL;
}

/* A nested payload field (a dotted path): where it is found, its type; read per event. */
static bool find_path(const bt_field_class *payload, const char *path, struct field_loc *loc)
{
	const bt_field_class *fc = strchr(path, '.') ? path_class(payload, path, 0) : NULL;

	if (!fc)
		return false;
	loc->type = value_type_of(fc);
	loc->scope = loc->type == JANK_VALUE_NONE ? SCOPE_NONE : SCOPE_PAYLOAD;
	loc->path = path;
	return true;
}

static void resolve_context_field(const bt_field_class *fc, const char *virt, const char *name,
				  struct field_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	if (virt && find_member(fc, virt, SCOPE_COMMON_CTX, loc) && loc->scope != SCOPE_NONE)
		return;
	find_member(fc, name, SCOPE_COMMON_CTX, loc);
}

static const char *env_string(const bt_trace *trace, const char *name)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(trace, name);

	if (!v || bt_value_get_type(v) != BT_VALUE_TYPE_STRING)
		return NULL;
	return bt_value_string_get(v);
}

static long env_long(const bt_trace *trace, const char *name)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(trace, name);

	if (!v)
		return -1;
	switch (bt_value_get_type(v)) {
	case BT_VALUE_TYPE_SIGNED_INTEGER:
		return (long)bt_value_integer_signed_get(v);
	case BT_VALUE_TYPE_UNSIGNED_INTEGER:
		return (long)bt_value_integer_unsigned_get(v);
	case BT_VALUE_TYPE_STRING:
		return strtol(bt_value_string_get(v), NULL, 10);
	default:
		return -1;
	}
}

/* The trace's domain from its environment; a trace that says nothing is a kernel trace. */
static enum jank_domain trace_domain(const bt_trace *trace)
{
	const char *domain = env_string(trace, "domain");
	const char *tracer = env_string(trace, "tracer_name");

	if (domain)
		return strcmp(domain, "ust") == 0 ? JANK_DOMAIN_UST : JANK_DOMAIN_KERNEL;
	if (tracer && strcmp(tracer, "lttng-ust") == 0)
		return JANK_DOMAIN_UST;
	return JANK_DOMAIN_KERNEL;
}

/*
 * A 1 GHz clock's offset in ns, when it fits: then an event's ns from origin
 * is this plus its clock value, as babeltrace2 computes it.
 */
static bool clock_base_ns(const bt_clock_class *cc, int64_t *base)
{
	int64_t seconds, ns;
	uint64_t cycles;

	if (bt_clock_class_get_frequency(cc) != UINT64_C(1000000000))
		return false;
	bt_clock_class_get_offset(cc, &seconds, &cycles);
	if (cycles >= UINT64_C(1000000000) || __builtin_mul_overflow(seconds, 1000000000, &ns) ||
	    __builtin_add_overflow(ns, (int64_t)cycles, &ns))
		return false;
	*base = ns;
	return true;
}

static struct sc_cache *sc_cache_add(struct jank_reader *in, const bt_stream_class *sc,
				     const bt_stream *stream)
{
	struct sc_cache *v = realloc(in->scs, (in->nscs + 1) * sizeof(*v));
	const bt_field_class *common, *packet;
	struct sc_cache *c;

	if (!v)
		return NULL;
	in->scs = v;
	c = &v[in->nscs++];
	in->last_sc = c; /* the array may have moved: no older pointer into it is kept */
	memset(in->ec_cache, 0, sizeof(in->ec_cache));
	memset(c, 0, sizeof(*c));
	c->sc = sc;
	bt_stream_class_get_ref(sc);
	c->domain = trace_domain(bt_stream_borrow_trace_const(stream));
	c->has_clock = bt_stream_class_borrow_default_clock_class_const(sc) != NULL;
	c->fast_clock =
		c->has_clock && clock_base_ns(bt_stream_class_borrow_default_clock_class_const(sc),
					      &c->clock_base_ns);
	common = bt_stream_class_borrow_event_common_context_field_class_const(sc);
	resolve_context_field(common, "vtid", "tid", &c->tid);
	resolve_context_field(common, "vpid", "pid", &c->pid);
	resolve_context_field(common, NULL, "pid_ns", &c->pid_ns);
	if (c->pid_ns.type == JANK_VALUE_STR)
		c->pid_ns.scope = SCOPE_NONE;
	resolve_context_field(common, NULL, "procname", &c->comm);
	if (c->comm.type != JANK_VALUE_STR)
		c->comm.scope = SCOPE_NONE;
	packet = bt_stream_class_borrow_packet_context_field_class_const(sc);
	memset(&c->cpu, 0, sizeof(c->cpu));
	/* The scope tag only needs to be non-NONE: read_value() gets the packet context. */
	find_member(packet, "cpu_id", SCOPE_PAYLOAD, &c->cpu);
	if (c->cpu.type == JANK_VALUE_STR)
		c->cpu.scope = SCOPE_NONE;
	return c;
}

/* The stream class's cache, or NULL on first sight (then sc_cache_add() it). */
static inline struct sc_cache *sc_cache_find(struct jank_reader *in, const bt_stream_class *sc)
{
	if (in->last_sc && in->last_sc->sc == sc)
		return in->last_sc;
	for (size_t i = 0; i < in->nscs; i++) {
		if (in->scs[i].sc == sc) {
			in->last_sc = &in->scs[i];
			return in->last_sc;
		}
	}
	return NULL;
}

static struct class_cache *class_slot(struct jank_reader *in, struct sc_cache *c, uint64_t id)
{
	if (id < DENSE_CLASS_IDS) {
		if (id >= c->ndense) {
			size_t n = c->ndense ? c->ndense : 64;
			struct class_cache *v;

			while (n <= id)
				n *= 2;
			v = realloc(c->dense, n * sizeof(*v));
			if (!v)
				return NULL;
			memset(in->ec_cache, 0, sizeof(in->ec_cache));
			memset(v + c->ndense, 0, (n - c->ndense) * sizeof(*v));
			c->dense = v;
			c->ndense = n;
		}
		return &c->dense[id];
	}
	for (size_t i = 0; i < c->nsparse; i++)
		if (c->sparse[i].id == id)
			return &c->sparse[i].cache;
	{
		struct sparse_class *v = realloc(c->sparse, (c->nsparse + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(in->ec_cache, 0, sizeof(in->ec_cache));
		c->sparse = v;
		memset(&v[c->nsparse], 0, sizeof(v[c->nsparse]));
		v[c->nsparse].id = id;
		return &v[c->nsparse++].cache;
	}
}

/* "a, b, c": the members of up to three structures, for messages. */
static void member_names(char *buf, size_t len, const bt_field_class *const *fcs, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < n; k++) {
		uint64_t count;

		if (!fcs[k] || bt_field_class_get_type(fcs[k]) != BT_FIELD_CLASS_TYPE_STRUCTURE)
			continue;
		count = bt_field_class_structure_get_member_count(fcs[k]);
		for (uint64_t i = 0; i < count && used < len; i++) {
			const bt_field_class_structure_member *m =
				bt_field_class_structure_borrow_member_by_index_const(fcs[k], i);
			int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
					 bt_field_class_structure_member_get_name(m));

			used += w > 0 ? (size_t)w : 0;
		}
	}
}

/*
 * The class has no field `index` of those the engine asked for: a rule
 * keyed or matched on it cannot apply. Returns -ECANCELED when the reader is
 * strict (in->err says why), else 0 (the notice callback was told).
 */
static int field_missing(struct jank_reader *in, uint32_t class_id, unsigned index,
			 const bt_field_class *payload, const bt_field_class *specific,
			 const bt_field_class *common)
{
	const bt_field_class *fcs[] = { payload, specific, common };
	char have[256], msg[INPUT_ERR_LEN];

	member_names(have, sizeof(have), fcs, 3);
	if (!jank_engine_field_missing(in->engine, class_id, index, have, msg, sizeof(msg)))
		return 0;
	if (in->strict) {
		jank_errf(in->err, sizeof(in->err), "%s", msg);
		in->decode_error = true;
		return -ECANCELED;
	}
	if (in->notice)
		in->notice(msg, in->notice_data);
	return 0;
}

static int resolve_class(struct jank_reader *in, struct sc_cache *c, const bt_event_class *ec,
			 struct class_cache *cc)
{
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	const bt_field_class *specific =
		bt_event_class_borrow_specific_context_field_class_const(ec);
	const bt_field_class *common =
		bt_stream_class_borrow_event_common_context_field_class_const(c->sc);
	const char *name = bt_event_class_get_name(ec);
	const char *const *fields = NULL;
	unsigned nfields = 0;

	cc->class_id = jank_engine_resolve_class(in->engine, c->domain, name ? name : "", &fields,
						 &nfields);
	if (cc->class_id == JANK_CLASS_INVALID)
		return -ENOMEM;
	cc->wanted = jank_engine_class_wanted(in->engine, cc->class_id);
	cc->sym_kind = in->symbols && c->domain == JANK_DOMAIN_UST
			       ? (uint8_t)reader_symbols_kind(name ? name : "")
			       : READER_SYM_NONE;
	if (nfields > JANK_EVENT_MAX_FIELDS)
		nfields = JANK_EVENT_MAX_FIELDS;
	cc->nfields = nfields;
	for (unsigned i = 0; i < nfields; i++) {
		struct field_loc *loc = &cc->loc[i];

		memset(loc, 0, sizeof(*loc));
		if (!fields || !fields[i])
			continue;
		if (find_path(payload, fields[i], loc) ||
		    find_member(payload, fields[i], SCOPE_PAYLOAD, loc) ||
		    find_member(specific, fields[i], SCOPE_SPECIFIC_CTX, loc) ||
		    find_member(common, fields[i], SCOPE_COMMON_CTX, loc)) {
			cc->need_payload |= loc->scope == SCOPE_PAYLOAD;
			cc->need_specific |= loc->scope == SCOPE_SPECIFIC_CTX;
			cc->need_common |= loc->scope == SCOPE_COMMON_CTX;
		} else if (field_missing(in, cc->class_id, i, payload, specific, common) < 0) {
			return -ECANCELED;
		}
	}
	/*
	 * Per event, only the fields the class has are read; the others are
	 * NONE. The first JANK_READER_ARRAYS array fields (in field order) get
	 * a buffer each, the others none.
	 */
	cc->nlive = cc->nabsent = 0;
	for (unsigned i = 0, arrays = 0; i < nfields; i++) {
		struct field_loc *loc = &cc->loc[i];

		loc->buf = arrays < JANK_READER_ARRAYS ? (uint8_t)arrays : NO_ARRAY_BUF;
		arrays += loc->type == JANK_VALUE_ARRAY;
		if (loc->scope == SCOPE_NONE)
			cc->absent[cc->nabsent++] = (uint8_t)i;
		else
			cc->live[cc->nlive++] = (uint8_t)i;
	}
	cc->resolved = true;
	in->stats.classes++;
	return 0;
}

/* ---- Per-event decoding (hot path) ---- */

/* An array of unsigned integers into buf (at most JANK_READER_ARRAY_MAX of them). */
static __attribute__((noinline)) void read_array(const bt_field *f, uint64_t *buf,
						 struct jank_value *v)
{
	uint64_t n = bt_field_array_get_length(f);

	if (n > JANK_READER_ARRAY_MAX)
		n = JANK_READER_ARRAY_MAX;
	for (uint64_t i = 0; i < n; i++)
		buf[i] = bt_field_integer_unsigned_get_value(
			bt_field_array_borrow_element_field_by_index_const(f, i));
	v->a.v = buf;
	v->a.n = (uint32_t)n;
}

/* The selected option of a variant (and of the variant that option may be). */
static const bt_field *selected(const bt_field *f)
{
	for (int i = 0;
	     f && i < 64 &&
	     bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_VARIANT);
	     i++)
		f = bt_field_variant_borrow_selected_option_field_const(f);
	return f;
}

/* A nested field by its path through the event's variants; NONE where this event has none. */
static __attribute__((noinline)) void read_path(const bt_field *s, const struct field_loc *loc,
						struct jank_value *v, uint64_t *buf)
{
	const char *path = loc->path;
	const bt_field *f = s;
	char comp[128];
	bt_field_class_type t;

	v->type = JANK_VALUE_NONE;
	while (f && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(comp))
			return;
		memcpy(comp, path, n);
		comp[n] = '\0';
		path += n + (path[n] == '.');
		f = selected(f);
		if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRUCTURE)
			return;
		f = bt_field_structure_borrow_member_field_by_name_const(f, comp);
	}
	f = selected(f);
	if (!f)
		return;
	t = bt_field_get_class_type(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		v->type = JANK_VALUE_UINT;
		v->u = bt_field_integer_unsigned_get_value(f);
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		v->type = JANK_VALUE_INT;
		v->i = bt_field_integer_signed_get_value(f);
	} else if (buf && value_type_of(bt_field_borrow_class_const(f)) == JANK_VALUE_ARRAY) {
		v->type = JANK_VALUE_ARRAY;
		read_array(f, buf, v);
	}
}

static inline void read_value(const bt_field *s, const struct field_loc *loc, struct jank_value *v,
			      uint64_t *buf)
{
	const bt_field *f;

	if (!s || loc->scope == SCOPE_NONE) {
		v->type = JANK_VALUE_NONE;
		return;
	}
	if (__builtin_expect(loc->path != NULL, 0)) {
		read_path(s, loc, v, buf);
		return;
	}
	f = bt_field_structure_borrow_member_field_by_index_const(s, loc->index);
	v->type = loc->type;
	switch ((enum jank_value_type)loc->type) {
	case JANK_VALUE_INT:
		v->i = bt_field_integer_signed_get_value(f);
		break;
	case JANK_VALUE_UINT:
		v->u = bt_field_integer_unsigned_get_value(f);
		break;
	case JANK_VALUE_STR:
		v->s = bt_field_string_get_value(f);
		break;
	case JANK_VALUE_ARRAY:
		if (buf)
			read_array(f, buf, v);
		else
			v->type = JANK_VALUE_NONE;
		break;
	case JANK_VALUE_NONE:
		break;
	}
}

/* A field the class has (scope not NONE) of the structure s of its scope. */
static inline void read_field(struct jank_reader *in, const bt_field *s,
			      const struct field_loc *loc, struct jank_value *v)
{
	read_value(s, loc, v, loc->buf != NO_ARRAY_BUF ? in->arrays[loc->buf] : NULL);
}

static inline int32_t read_int32(const bt_field *s, const struct field_loc *loc)
{
	struct jank_value v = { .type = JANK_VALUE_NONE };

	read_value(s, loc, &v, NULL);
	return (int32_t)jank_value_as_int(&v, -1);
}

/* A PID namespace's inode (a 32-bit number), 0 when absent or out of range. */
static inline uint32_t read_ns(const bt_field *s, const struct field_loc *loc)
{
	struct jank_value v;
	int64_t n;

	if (!s || loc->scope == SCOPE_NONE)
		return 0;
	read_value(s, loc, &v, NULL);
	n = jank_value_as_int(&v, 0);
	return n > 0 && n <= UINT32_MAX ? (uint32_t)n : 0;
}

static int clock_ns(struct jank_reader *in, const bt_clock_snapshot *cs, int64_t *ns)
{
	if (bt_clock_snapshot_get_ns_from_origin(cs, ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		bt_current_thread_clear_error();
		jank_errf(in->err, sizeof(in->err), "%s: a timestamp overflows 64-bit nanoseconds",
			  in->name);
		return -ERANGE;
	}
	return 0;
}

/* The clock snapshot in ns from origin: the cached offset for 1 GHz clocks. */
static inline int event_ns(struct jank_reader *in, const struct sc_cache *c,
			   const bt_clock_snapshot *cs, int64_t *ns)
{
	if (c->fast_clock) {
		uint64_t v = bt_clock_snapshot_get_value(cs);

		if (v <= INT64_MAX && !__builtin_add_overflow(c->clock_base_ns, (int64_t)v, ns))
			return 0;
	}
	return clock_ns(in, cs, ns);
}

static inline size_t addr_hash(const void *p, size_t size)
{
	uintptr_t a = (uintptr_t)p;

	return (size_t)((a >> 4) ^ (a >> 12)) & (size - 1);
}

/* Remember a packet's CPU (at its beginning, or at its first event). */
static int32_t packet_cpu_set(struct jank_reader *in, const struct sc_cache *c,
			      const bt_packet *packet)
{
	struct pkt_cache_entry *e = &in->pkt_cache[addr_hash(packet, PKT_CACHE_SIZE)];

	e->packet = packet;
	e->cpu = read_int32(bt_packet_borrow_context_field_const(packet), &c->cpu);
	return e->cpu;
}

static inline int32_t packet_cpu(struct jank_reader *in, const struct sc_cache *c,
				 const bt_packet *packet)
{
	const struct pkt_cache_entry *e = &in->pkt_cache[addr_hash(packet, PKT_CACHE_SIZE)];

	return e->packet == packet ? e->cpu : packet_cpu_set(in, c, packet);
}

/* An event class missing from the address cache: looked up (and added), then cached in e. */
static __attribute__((noinline)) int
event_class_lookup(struct jank_reader *in, const bt_event *ev, const bt_event_class *ec,
		   struct ec_cache_entry *e, struct sc_cache **c, struct class_cache **cc)
{
	const bt_stream_class *sc;

	sc = bt_event_class_borrow_stream_class_const(ec);
	*c = sc_cache_find(in, sc);
	if (!*c)
		*c = sc_cache_add(in, sc, bt_event_borrow_stream_const(ev));
	if (!*c)
		return -ENOMEM;
	*cc = class_slot(in, *c, bt_event_class_get_id(ec));
	if (!*cc)
		return -ENOMEM;
	e->ec = ec;
	e->sc = *c;
	e->cc = *cc;
	return 0;
}

/*
 * The caches of an event's class: from the address cache (inline: twice per
 * event, for its time and its decoding), else looked up.
 */
static inline int event_class_caches(struct jank_reader *in, const bt_event *ev,
				     const bt_event_class *ec, struct sc_cache **c,
				     struct class_cache **cc)
{
	struct ec_cache_entry *e = &in->ec_cache[addr_hash(ec, EC_CACHE_SIZE)];

	if (__builtin_expect(e->ec == ec, 1)) {
		*c = e->sc;
		*cc = e->cc;
		return 0;
	}
	return event_class_lookup(in, ev, ec, e, c, cc);
}

/* A statedump or dl event for the symbolizer: rare, so out of the hot path's way. */
static __attribute__((noinline, cold)) void
symbols_event(struct jank_reader *in, const struct sc_cache *c, const bt_event *ev, uint8_t kind)
{
	const bt_field *common = c->pid.scope || c->pid_ns.scope
					 ? bt_event_borrow_common_context_field_const(ev)
					 : NULL;
	int32_t pid = read_int32(common, &c->pid);

	reader_symbols_event(in, ev, (enum reader_sym_kind)kind,
			     jank_process_key(pid >= 0 ? read_ns(common, &c->pid_ns) : 0, pid));
}

/* An event at ts (from reader_message_time: the merge ordered it by that time). */
static int handle_event(struct jank_reader *in, const bt_message *msg, int64_t ts, bool timed)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	const bt_field *scopes[4] = { NULL, NULL, NULL, NULL }; /* by enum field_scope */
	const bt_field *common = NULL;
	struct jank_event jev;
	struct class_cache *cc;
	struct sc_cache *c;
	int r;

	in->stats.events++;
	if (event_class_caches(in, ev, ec, &c, &cc) < 0)
		goto nomem;
	if (!cc->resolved) {
		r = resolve_class(in, c, ec, cc);
		if (r == -ECANCELED)
			return r;
		if (r < 0)
			goto nomem;
	}
	if (__builtin_expect(cc->sym_kind != READER_SYM_NONE, 0))
		symbols_event(in, c, ev, cc->sym_kind);
	if (!cc->wanted)
		return 0;
	if (!timed) {
		jank_errf(in->err, sizeof(in->err), "%s: the trace's events have no timestamps",
			  in->name);
		return -EINVAL;
	}
	jev.ts = ts;

	jev.cpu = c->cpu.scope != SCOPE_NONE ? packet_cpu(in, c, bt_event_borrow_packet_const(ev))
					     : -1;

	if (cc->need_common || c->tid.scope || c->pid.scope || c->comm.scope || c->pid_ns.scope)
		common = bt_event_borrow_common_context_field_const(ev);
	jev.tid = read_int32(common, &c->tid);
	jev.pid = read_int32(common, &c->pid);
	jev.pid_ns = read_ns(common, &c->pid_ns);
	jev.comm = NULL;
	if (common && c->comm.scope != SCOPE_NONE)
		jev.comm = bt_field_string_get_value(
			bt_field_structure_borrow_member_field_by_index_const(common,
									      c->comm.index));

	if (cc->need_payload)
		scopes[SCOPE_PAYLOAD] = bt_event_borrow_payload_field_const(ev);
	if (cc->need_specific)
		scopes[SCOPE_SPECIFIC_CTX] = bt_event_borrow_specific_context_field_const(ev);
	scopes[SCOPE_COMMON_CTX] = common;
	jev.class_id = cc->class_id;
	jev.nfields = cc->nfields;
	for (unsigned k = 0; k < cc->nabsent; k++)
		jev.fields[cc->absent[k]].type = JANK_VALUE_NONE;
	for (unsigned k = 0; k < cc->nlive; k++) {
		const struct field_loc *loc = &cc->loc[cc->live[k]];

		read_field(in, scopes[loc->scope], loc, &jev.fields[cc->live[k]]);
	}
	in->last_ts = jev.ts;
	in->stats.events_used++;
	if (in->tap)
		in->tap->event(&jev, in->tap->data);
	jank_engine_process(in->engine, &jev);
	return 0;
nomem:
	jank_errf(in->err, sizeof(in->err), "out of memory");
	return -ENOMEM;
}

static struct stream_rec *stream_find(struct jank_reader *in, const bt_stream *s)
{
	for (size_t i = 0; i < in->nstreams; i++)
		if (in->streams[i].stream == s)
			return &in->streams[i];
	return NULL;
}

static int trace_seen(struct jank_reader *in, const bt_trace *trace)
{
	const bt_trace **v;

	for (size_t i = 0; i < in->ntraces; i++)
		if (in->traces[i] == trace)
			return 0;
	v = realloc(in->traces, (in->ntraces + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	in->traces = v;
	v[in->ntraces++] = trace;
	bt_trace_get_ref(trace);
	in->stats.traces++;
	if (trace_domain(trace) == JANK_DOMAIN_KERNEL) {
		const bt_value *rel = bt_trace_borrow_environment_entry_value_by_name_const(
			trace, "kernel_release");

		jank_engine_set_layout(in->engine, env_long(trace, "tracer_major"),
				       env_long(trace, "tracer_minor"));
		jank_engine_set_kernel(in->engine, rel && bt_value_is_string(rel)
							   ? bt_value_string_get(rel)
							   : NULL);
	}
	return 0;
}

static int handle_stream_beginning(struct jank_reader *in, const bt_message *msg)
{
	const bt_stream *s = bt_message_stream_beginning_borrow_stream_const(msg);
	struct stream_rec *v;

	if (trace_seen(in, bt_stream_borrow_trace_const(s)) < 0)
		goto nomem;
	if (stream_find(in, s))
		return 0;
	v = realloc(in->streams, (in->nstreams + 1) * sizeof(*v));
	if (!v)
		goto nomem;
	in->streams = v;
	v[in->nstreams].stream = s;
	v[in->nstreams].cpu = -1;
	bt_stream_get_ref(s);
	in->nstreams++;
	return 0;
nomem:
	jank_errf(in->err, sizeof(in->err), "out of memory");
	return -ENOMEM;
}

static void handle_stream_end(struct jank_reader *in, const bt_message *msg)
{
	struct stream_rec *rec = stream_find(in, bt_message_stream_end_borrow_stream_const(msg));

	if (!rec)
		return;
	bt_stream_put_ref(rec->stream);
	*rec = in->streams[--in->nstreams];
}

static int handle_packet_beginning(struct jank_reader *in, const bt_message *msg)
{
	const bt_packet *p = bt_message_packet_beginning_borrow_packet_const(msg);
	const bt_stream *s = bt_packet_borrow_stream_const(p);
	struct stream_rec *rec = stream_find(in, s);
	struct sc_cache *c;
	int32_t cpu;

	c = sc_cache_find(in, bt_stream_borrow_class_const(s));
	if (!c)
		c = sc_cache_add(in, bt_stream_borrow_class_const(s), s);
	if (!c) {
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return -ENOMEM;
	}
	/* A recycled packet object: forget the CPU of the packet it was. */
	cpu = packet_cpu_set(in, c, p);
	if (rec)
		rec->cpu = cpu;
	return 0;
}

/*
 * Events or packets the tracer discarded: the count, and the range it
 * happened in when the stream class has clock snapshots for it (an LTTng
 * trace: from the end of the packet before to the end of the packet that
 * reported the count); without them, the time of the latest event.
 */
static int handle_discarded(struct jank_reader *in, const bt_message *msg, bool packets)
{
	const bt_stream *s = packets ? bt_message_discarded_packets_borrow_stream_const(msg)
				     : bt_message_discarded_events_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(s);
	const bt_clock_snapshot *cb = NULL, *ce = NULL;
	struct stream_rec *rec = stream_find(in, s);
	bt_property_availability avail;
	uint64_t count = 0;
	int64_t ts = in->last_ts == INT64_MIN ? 0 : in->last_ts, begin;
	int r;

	if (packets) {
		avail = bt_message_discarded_packets_get_count(msg, &count);
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc)) {
			cb = bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
				msg);
			ce = bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(
				msg);
		}
	} else {
		avail = bt_message_discarded_events_get_count(msg, &count);
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc)) {
			cb = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(
				msg);
			ce = bt_message_discarded_events_borrow_end_default_clock_snapshot_const(
				msg);
		}
	}
	if (avail != BT_PROPERTY_AVAILABILITY_AVAILABLE || count == 0)
		count = 1;
	if (ce) {
		r = clock_ns(in, ce, &ts);
		if (r < 0)
			return r;
	}
	begin = ts;
	if (cb) {
		r = clock_ns(in, cb, &begin);
		if (r < 0)
			return r;
	}
	in->stats.discarded += count;
	if (in->tap)
		in->tap->discarded(rec ? rec->cpu : -1, begin, ts, count, in->tap->data);
	jank_engine_discarded_range(in->engine, rec ? rec->cpu : -1, begin, ts, count);
	return 0;
}

static int handle_inactivity(struct jank_reader *in, const bt_message *msg)
{
	int64_t ts;
	int r;

	/* Live only: no data for a while. Let the engine see time pass (overdue actions). */
	r = clock_ns(in, bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg),
		     &ts);
	if (r < 0)
		return r;
	if (ts > in->advanced_ts)
		in->advanced_ts = ts;
	if (in->stats.events_used && ts > in->last_ts)
		jank_engine_tick(in->engine, ts);
	return 0;
}

static int handle_message(struct jank_reader *in, const bt_message *msg, int64_t ts, bool timed)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return handle_event(in, msg, ts, timed);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return handle_stream_beginning(in, msg);
	case BT_MESSAGE_TYPE_STREAM_END:
		handle_stream_end(in, msg);
		return 0;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return handle_packet_beginning(in, msg);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return handle_discarded(in, msg, false);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return handle_discarded(in, msg, true);
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return handle_inactivity(in, msg);
	case BT_MESSAGE_TYPE_PACKET_END:
		return 0;
	}
	return 0;
}

/* ---- The merge's callbacks ---- */

/*
 * The time the merge orders a message by (trace-merge.h): an event's own
 * (through the stream class's fast clock when it has one), the beginning of
 * a packet or of a discarded range, an inactivity's. 1 with *ts, 0 for none.
 */
int reader_message_time(const bt_message *msg, int64_t *ts, void *data)
{
	struct jank_reader *in = data;
	const bt_clock_snapshot *cs = NULL;
	const bt_stream_class *sc;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT: {
		const bt_event *ev = bt_message_event_borrow_event_const(msg);
		struct class_cache *cc;
		struct sc_cache *c;

		if (event_class_caches(in, ev, bt_event_borrow_class_const(ev), &c, &cc) < 0) {
			jank_errf(in->err, sizeof(in->err), "out of memory");
			in->decode_error = true;
			return -ENOMEM;
		}
		if (!c->has_clock)
			return 0;
		return event_ns(in, c, bt_message_event_borrow_default_clock_snapshot_const(msg),
				ts) < 0
			       ? -EINVAL
			       : 1;
	}
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		sc = bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
			bt_message_packet_beginning_borrow_packet_const(msg)));
		if (bt_stream_class_packets_have_beginning_default_clock_snapshot(sc))
			cs = bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_PACKET_END:
		sc = bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
			bt_message_packet_end_borrow_packet_const(msg)));
		if (bt_stream_class_packets_have_end_default_clock_snapshot(sc))
			cs = bt_message_packet_end_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		sc = bt_stream_borrow_class_const(
			bt_message_discarded_events_borrow_stream_const(msg));
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(
				msg);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		sc = bt_stream_borrow_class_const(
			bt_message_discarded_packets_borrow_stream_const(msg));
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
				msg);
		break;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		cs = bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
	case BT_MESSAGE_TYPE_STREAM_END:
		break; /* no time needed: they go as soon as they head their stream */
	}
	if (!cs)
		return 0;
	return clock_ns(in, cs, ts) < 0 ? -EINVAL : 1;
}

int reader_take_message(const bt_message *msg, int64_t ts, bool timed, void *data)
{
	struct jank_reader *in = data;
	int r = handle_message(in, msg, ts, timed);

	if (r < 0)
		in->decode_error = true;
	return r;
}

void reader_merge_error(const char *what, void *data)
{
	struct jank_reader *in = data;

	jank_errf(in->err, sizeof(in->err), "%s: %s", in->name, what);
	in->decode_error = true;
}

/* ---- Rules replaced, reader freed ---- */

/*
 * The engine's rules were replaced (config reload): its class ids are void.
 * Drop every cached class so that each is resolved again on its next event.
 */
void reader_forget_classes(struct jank_reader *in)
{
	for (size_t i = 0; i < in->nscs; i++) {
		struct sc_cache *c = &in->scs[i];

		if (c->dense)
			memset(c->dense, 0, c->ndense * sizeof(*c->dense));
		free(c->sparse);
		c->sparse = NULL;
		c->nsparse = 0;
	}
	memset(in->ec_cache, 0, sizeof(in->ec_cache)); /* it points into those arrays */
	in->generation = jank_engine_generation(in->engine);
}

static void sc_cache_fini(struct sc_cache *c)
{
	bt_stream_class_put_ref(c->sc);
	free(c->dense);
	free(c->sparse);
}

void reader_decode_fini(struct jank_reader *in)
{
	for (size_t i = 0; i < in->nscs; i++)
		sc_cache_fini(&in->scs[i]);
	free(in->scs);
	for (size_t i = 0; i < in->ntraces; i++)
		bt_trace_put_ref(in->traces[i]);
	free(in->traces);
	for (size_t i = 0; i < in->nstreams; i++)
		bt_stream_put_ref(in->streams[i].stream);
	free(in->streams);
}
