/* SPDX-License-Identifier: MIT */
/*
 * One event through the engine: the model, the function stacks, then each
 * role of its class (an action's begin or end, a flow's from or to) under
 * the key its fields make; a memory check every 4 events.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "engine-int.h"

/* Tell the flow listener of a flow event, if there is one. */
static void note_flow(struct jank_engine *e, const struct class_role *role, int32_t tid,
		      const struct jank_event *ev, const char *key, bool paired)
{
	struct jank_flow_note n = { role->rule, role->end, paired, tid, ev->ts, key };

	if (e->flow_note)
		e->flow_note(&n, e->flow_note_data);
}

int32_t engine_emitting_tid(const struct jank_engine *e, const struct jank_event *ev)
{
	return ev->tid >= 0 ? ev->tid : jank_model_current_tid(&e->model, ev->cpu);
}

/* strcmp() == 0 for the short names matches compare (no call: this runs for every role). */
static inline bool str_eq(const char *a, const char *b)
{
	for (; *a == *b; a++, b++)
		if (!*a)
			return true;
	return false;
}

static bool match_ok(const struct class_role *role, const struct jank_value *match,
		     const struct jank_event *ev)
{
	const struct jank_value *v;

	if (role->match_pos < 0 || (unsigned)role->match_pos >= ev->nfields)
		return true;
	v = &ev->fields[role->match_pos];
	switch (v->type) {
	case JANK_VALUE_NONE:
		return true; /* the class has no such field: the match does not apply */
	case JANK_VALUE_STR:
		return match->type == JANK_VALUE_STR && str_eq(v->s, match->s);
	case JANK_VALUE_INT:
	case JANK_VALUE_UINT:
		return match->type == JANK_VALUE_INT && jank_value_as_int(v, 0) == match->i;
	case JANK_VALUE_ARRAY:
		return false;
	}
	return false;
}

/*
 * Append s to the key buf[0..*len), cutting it as snprintf() into
 * JANK_KEY_LEN would, but not inside a character; false once it is full.
 * A byte at a time (keys are short), the length in a local: stores to buf
 * may alias *len.
 */
static bool key_put(char *buf, size_t *len, const char *s)
{
	size_t n = *len;

	for (; *s; s++) {
		if (n >= JANK_KEY_LEN - 1) {
			*len = jank_utf8_cut(buf, n);
			return false;
		}
		buf[n++] = *s;
	}
	*len = n;
	return true;
}

static bool key_put_u64(char *buf, size_t *len, uint64_t v, bool neg)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char digits[24];
	char *p = digits + sizeof(digits);

	*--p = '\0';
	for (; v >= 100; v /= 100) {
		p -= 2;
		memcpy(p, &pairs[v % 100 * 2], 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, &pairs[v * 2], 2);
	} else {
		*--p = (char)('0' + v);
	}
	if (neg)
		*--p = '-';
	return key_put(buf, len, p);
}

/*
 * The text of an action's key: "name=frame,id=3", or "tid=42" by default;
 * its length. Built by hand: this runs for every begin and end event.
 */
static size_t format_key(const struct jank_engine *e, const struct class_role *role,
			 char *const *keys, unsigned nkeys, const struct jank_event *ev, char *buf)
{
	size_t len = 0;

	for (unsigned k = 0; k < JANK_RULE_MAX_KEYS && role->key_pos[k] != POS_NONE; k++) {
		const char *name = nkeys ? keys[k] : "tid";
		int pos = role->key_pos[k];
		const struct jank_value *v =
			pos >= 0 && (unsigned)pos < ev->nfields ? &ev->fields[pos] : NULL;
		bool ok = (!k || key_put(buf, &len, ",")) && key_put(buf, &len, name) &&
			  key_put(buf, &len, "=");

		if (ok && pos == POS_TID) {
			int64_t tid = engine_emitting_tid(e, ev);

			ok = key_put_u64(buf, &len, tid < 0 ? 0 - (uint64_t)tid : (uint64_t)tid,
					 tid < 0);
		} else if (ok && v && v->type == JANK_VALUE_STR) {
			ok = key_put(buf, &len, v->s);
		} else if (ok && v && v->type == JANK_VALUE_UINT) {
			ok = key_put_u64(buf, &len, v->u, false);
		} else if (ok && v && v->type == JANK_VALUE_INT) {
			ok = key_put_u64(buf, &len, v->i < 0 ? 0 - (uint64_t)v->i : (uint64_t)v->i,
					 v->i < 0);
		} else if (ok) {
			ok = key_put(buf, &len, "?");
		}
		if (!ok)
			break; /* truncated keys still pair consistently */
	}
	buf[len] = '\0';
	return len;
}

/*
 * Whether *sp begins with the decimal text of the integer (neg ? -mag :
 * mag), as key_put_u64() writes it; *sp past it. Read, not written: no
 * leading zero, no overflow.
 */
static bool text_eq_u64(const char **sp, uint64_t mag, bool neg)
{
	const char *s = *sp, *d;
	uint64_t v = 0;

	if (neg && *s++ != '-')
		return false;
	for (d = s; *s >= '0' && *s <= '9'; s++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v))
			return false;
	if (s == d || (*d == '0' && s - d > 1))
		return false;
	*sp = s;
	return v == mag;
}

/* Whether the text key begins with the NUL-terminated t; *sp past it. */
static bool text_eq_str(const char **sp, const char *t)
{
	const char *s = *sp;

	for (; *t; t++)
		if (*s++ != *t)
			return false; /* stops at the key's NUL: t has none */
	*sp = s;
	return true;
}

/*
 * Whether the whole text of the event's key, as format_key() would make it
 * before any cut, is `key`, read without making it. When it is, format_key()
 * makes exactly `key` (it is not longer than a key), the key an open action
 * has: an end finds the action it ends so, without the text being made and
 * hashed. When it is not, the caller makes the text.
 */
static bool key_text_eq(const struct jank_engine *e, const struct class_role *role,
			char *const *keys, unsigned nkeys, const struct jank_event *ev,
			const char *key)
{
	const char *s = key;

	for (unsigned k = 0; k < JANK_RULE_MAX_KEYS && role->key_pos[k] != POS_NONE; k++) {
		int pos = role->key_pos[k];
		const struct jank_value *v =
			pos >= 0 && (unsigned)pos < ev->nfields ? &ev->fields[pos] : NULL;
		bool ok;

		if ((k && *s++ != ',') || !text_eq_str(&s, nkeys ? keys[k] : "tid") || *s++ != '=')
			return false;
		if (pos == POS_TID) {
			int64_t tid = engine_emitting_tid(e, ev);

			ok = text_eq_u64(&s, tid < 0 ? 0 - (uint64_t)tid : (uint64_t)tid, tid < 0);
		} else if (v && v->type == JANK_VALUE_STR) {
			ok = text_eq_str(&s, v->s);
		} else if (v && v->type == JANK_VALUE_UINT) {
			ok = text_eq_u64(&s, v->u, false);
		} else if (v && v->type == JANK_VALUE_INT) {
			ok = text_eq_u64(&s, v->i < 0 ? 0 - (uint64_t)v->i : (uint64_t)v->i,
					 v->i < 0);
		} else {
			ok = text_eq_str(&s, "?");
		}
		if (!ok)
			return false;
	}
	return *s == '\0';
}

/*
 * The open action an end event ends, or NULL: first the rule's latest
 * begun (back-to-back actions end the one just begun), compared with the
 * event's key in place; else by the key's text.
 */
static struct jank_action *find_action(struct jank_engine *e, const struct class_role *role,
				       const struct rule_state *rs, const struct jank_event *ev)
{
	struct jank_action *a = jank_action_last(e->actions, role->rule);
	char key[JANK_KEY_LEN];
	size_t klen;

	if (a && key_text_eq(e, role, rs->rule.keys, rs->rule.nkeys, ev, a->key))
		return a;
	klen = format_key(e, role, rs->rule.keys, rs->rule.nkeys, ev, key);
	return jank_action_find_n(e->actions, role->rule, key, klen);
}

static void on_action_event(struct jank_engine *e, const struct class_role *role,
			    const struct jank_event *ev)
{
	struct rule_state *rs = &e->rules[role->rule];
	struct jank_action *a;
	int32_t tid;

	if (!match_ok(role, &rs->rule.match_value, ev))
		return;
	tid = engine_emitting_tid(e, ev);
	if (!role->end) {
		struct jank_thread *w = tid > 0 ? jank_graph_get(e->graph, tid, ev->ts) : NULL;
		char key[JANK_KEY_LEN];
		size_t klen = format_key(e, role, rs->rule.keys, rs->rule.nkeys, ev, key);
		bool replaced;

		a = jank_action_open_n(e->actions, role->rule, key, klen, ev->ts, &replaced);
		if (!a)
			return;
		if (replaced)
			e->stats.actions_replaced++;
		a->tid = tid;
		a->serial = engine_fill_thread_info(e, tid, ev, &a->pid, a->comm);
		/* Until it ends, the action labels its thread's path segments. */
		if (w)
			a->span = jank_graph_span_open(e->graph, w, ev->ts, rs->rule.name, key);
		return;
	}
	a = find_action(e, role, rs, ev);
	if (!a) {
		e->stats.actions_unmatched++;
		return;
	}
	int64_t duration = ev->ts - a->begin;
	int64_t threshold = jank_threshold_current(&rs->rule.threshold, &rs->hist);
	bool over = threshold > 0 && duration > threshold;
	int32_t pid = a->pid;
	char comm[JANK_COMM_LEN];
	bool learn;

	memcpy(comm, a->comm, JANK_COMM_LEN);
	jank_histogram_add(&rs->hist, duration);
	e->stats.actions_completed++;
	if (over) {
		rs->stats.janks++;
		rs->stats.last_jank_ns = duration;
		strncpy(rs->stats.last_jank_key, a->key, sizeof(rs->stats.last_jank_key));
		e->stats.janks++;
	}
	/* At most one normal action per rule and JANK_BASELINE_GAP_NS is learnt. */
	learn = e->cfg.baseline && !over && ev->ts >= rs->learn_at;
	if (over || e->cfg.report_all || learn) {
		bool incomplete = engine_analyse(e, tid, tid == a->tid ? a->serial : JANK_NO_THREAD,
						 a->begin, ev->ts);

		engine_fill_thread_info(e, tid, ev, &pid, comm);
		/* A slow action's functions count in P(f | slow) before its suspects are named. */
		if (over && e->cfg.baseline && !incomplete && !e->path.truncated)
			jank_baseline_learn_slow(&rs->baseline, &e->profile);
		/* What the slow ones wait on, and the learnt normal ones: the composition. */
		if (over && (e->cfg.baseline || e->cfg.report_all))
			jank_composition_add(&rs->comp, JANK_CLASS_SLOW, &e->profile);
		if (over || e->cfg.report_all)
			engine_report(e, JANK_VERDICT_COMPLETED, role->rule, a, tid, pid, comm,
				      ev->ts, threshold, over, incomplete);
		/* A normal action teaches its rule's baseline, unless its path is partial. */
		if (learn && !incomplete && !e->path.truncated) {
			jank_baseline_learn(&rs->baseline, &e->profile);
			jank_composition_add(&rs->comp, JANK_CLASS_NORMAL, &e->profile);
			/* Saturated: a hostile trace's last timestamps may be near INT64_MAX. */
			rs->learn_at = ev->ts > INT64_MAX - JANK_BASELINE_GAP_NS
					       ? INT64_MAX
					       : ev->ts + JANK_BASELINE_GAP_NS;
		}
	}
	jank_action_close(e->actions, a);
}

/*
 * A flow's `from` leaves a vertex on its thread and waits, by key, for its
 * `to`; a `to` pairs with the latest `from` of its key, and the thread of
 * the `to` gets an edge from that vertex. A `to` with no `from` makes none.
 */
static void on_flow_event(struct jank_engine *e, const struct class_role *role,
			  const struct jank_event *ev)
{
	const struct flow_state *fs = &e->flows[role->rule];
	struct jank_thread *w, *src;
	char key[JANK_KEY_LEN];
	struct jank_action *a;
	size_t klen;
	int32_t tid;

	if (!match_ok(role, &fs->rule.match_value, ev))
		return;
	tid = engine_emitting_tid(e, ev);
	w = tid > 0 ? jank_graph_get(e->graph, tid, ev->ts) : NULL;
	if (!w)
		return;
	klen = format_key(e, role, fs->rule.keys, fs->rule.nkeys, ev, key);
	if (!role->end) {
		uint64_t idx = jank_graph_split(e->graph, w, ev->ts);
		bool replaced;

		if (idx == UINT64_MAX)
			return;
		a = jank_action_open_n(e->pending, role->rule, key, klen, ev->ts, &replaced);
		if (!a)
			return;
		e->stats.flows_replaced += replaced;
		a->tid = tid;
		a->serial = w->serial;
		a->vertex = idx;
		note_flow(e, role, tid, ev, key, false);
		return;
	}
	a = jank_action_find_n(e->pending, role->rule, key, klen);
	note_flow(e, role, tid, ev, key, a != NULL);
	if (!a) {
		e->stats.flows_unmatched++;
		return;
	}
	src = jank_graph_find_serial(e->graph, a->serial);
	if (src)
		jank_graph_flow(e->graph, src, a->vertex, w, ev->ts, fs->id);
	e->stats.flows_paired++;
	jank_action_close(e->pending, a);
}

/* ev, its thread numbered as its PID namespace's (a copy in *local). */
static const struct jank_event *
engine_container_event(struct jank_engine *e, const struct jank_event *ev, struct jank_event *local)
{
	size_t head = offsetof(struct jank_event, fields);
	uint32_t n = ev->nfields < JANK_EVENT_MAX_FIELDS ? ev->nfields : JANK_EVENT_MAX_FIELDS;

	memcpy(local, ev, head + n * sizeof(ev->fields[0]));
	local->tid = jank_pidns_tid(&e->pidns, ev->pid_ns, ev->tid, ev->ts);
	return local;
}

void jank_engine_process(struct jank_engine *e, const struct jank_event *ev)
{
	const struct class_info *ci;
	struct jank_event local;

	if (ev->class_id >= e->nclasses)
		return;
	ci = &e->classes[ev->class_id];
	/* A thread of a container: its vtid is not the host's tid (pidns.h). */
	if (ci->domain == JANK_DOMAIN_UST && !jank_pidns_is_host(ev->pid_ns))
		ev = engine_container_event(e, ev, &local);
	/*
	 * Before this event frees anything: the peak never goes down. An event
	 * that cannot free (!ci->may_free) only grows memory, so the peak noted
	 * before a later event, in engine_maintain() or by jank_engine_get_stats() is
	 * at least what it would note here: the same peak, without summing the
	 * tables' sizes at every event.
	 */
	if (ci->may_free)
		engine_note_peak(e);
	if (e->stats.events++ == 0)
		e->first_ts = ev->ts;
	if (ev->ts > e->stats.now)
		e->stats.now = ev->ts;
	if (ci->type == JANK_EVENT_FUNC_ENTRY || ci->type == JANK_EVENT_FUNC_EXIT)
		engine_on_function(e, ci->type == JANK_EVENT_FUNC_ENTRY, ev);
	else if (ci->type != JANK_EVENT_USER)
		jank_model_process(&e->model, ci->type, ev);
	if (e->net_note)
		engine_on_net(e, ci->type, ev);
	if (ci->domain == JANK_DOMAIN_KERNEL)
		engine_kernel_stacks(e, ci, ev);
	for (unsigned i = 0; i < ci->nroles; i++) {
		if (ci->roles[i].unusable)
			continue;
		if (ci->roles[i].flow)
			on_flow_event(e, &ci->roles[i], ev);
		else
			on_action_event(e, &ci->roles[i], ev);
	}
	if (ci->nroles && ci->domain == JANK_DOMAIN_UST && ev->tid > 0)
		engine_note_ust_event(e, ev);
	/* Memory is checked every 4 events (O(1)): a budget crossed is acted on at once. */
	if (++e->since_gc >= GC_EVERY ||
	    (e->cfg.gc && !(e->since_gc & 3) && engine_memory_bytes(e) > e->check_at))
		engine_maintain(e);
}
