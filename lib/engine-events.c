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

/* strcmp() == 0 for the short names matches compare (no call: this runs for every role). */
static inline bool str_eq(const char *a, const char *b)
{
	for (; *a == *b; a++, b++)
		if (!*a)
			return true;
	return false;
}

/*
 * Whether the event passes the role's match. Inline, the type tested first:
 * it runs for every role of every event of a rule's class, and most of
 * them fail at the first byte of a string.
 */
static inline __attribute__((always_inline)) bool match_ok(const struct class_role *role,
							   const struct jank_event *ev)
{
	const struct jank_value *v, *match = &role->match;

	if (role->match_pos < 0 || (unsigned)role->match_pos >= ev->nfields)
		return true;
	v = &ev->fields[role->match_pos];
	if (v->type == JANK_VALUE_STR)
		return match->type == JANK_VALUE_STR && v->s[0] == match->s[0] &&
		       (!v->s[0] || str_eq(v->s + 1, match->s + 1)); /* the first byte once */
	switch (v->type) {
	case JANK_VALUE_NONE:
		return true; /* the class has no such field: the match does not apply */
	case JANK_VALUE_STR:
		break;
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
 * its length. A byte at a time, cut where it is full: format_key() when
 * the key may not fit.
 */
static size_t format_key_cut(const struct jank_engine *e, const struct class_role *role,
			     char *const *keys, unsigned nkeys, const struct jank_event *ev,
			     char *buf)
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

/* The magnitude and sign of an integer key value. */
static inline uint64_t key_mag(int64_t i, bool *neg)
{
	*neg = i < 0;
	return i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
}

/*
 * The decimal text of (neg ? -mag : mag) at buf, as key_put_u64() writes it;
 * its length. buf has room for KEY_NUM_ROOM bytes (it writes that many).
 * Four digits a division.
 */
#define KEY_NUM_ROOM 24
static inline size_t key_num(char *buf, uint64_t mag, bool neg)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char digits[2 * KEY_NUM_ROOM];
	char *end = digits + KEY_NUM_ROOM, *p = end;
	uint32_t m;

	for (; mag >= 10000; mag /= 10000) {
		uint32_t r = (uint32_t)(mag % 10000);

		p -= 4;
		memcpy(p, &pairs[r / 100 * 2], 2);
		memcpy(p + 2, &pairs[r % 100 * 2], 2);
	}
	m = (uint32_t)mag;
	if (m >= 100) {
		p -= 2;
		memcpy(p, &pairs[m % 100 * 2], 2);
		m /= 100;
	}
	if (m >= 10) {
		p -= 2;
		memcpy(p, &pairs[m * 2], 2);
	} else {
		*--p = (char)('0' + m);
	}
	if (neg)
		*--p = '-';
	memcpy(buf, p, KEY_NUM_ROOM); /* a fixed size: no call; past the number is scratch */
	return (size_t)(end - p);
}

/* In key_parts' nums (and an action's kept copy): value k is its rule's match string. */
#define KEY_FOLDED 0x10u
_Static_assert(JANK_RULE_MAX_KEYS <= 4, "nums holds the numbers' bits, then the folded ones");

/*
 * What format_key() made besides the text: where each value ends in it,
 * and which values are numbers, with their magnitudes (a negative one's
 * text begins with '-').
 */
struct key_parts {
	uint8_t n;    /* values; 0: the text was made a byte at a time (maybe cut) */
	uint8_t nums; /* bit k: value k is a number; bit KEY_FOLDED << k: the match's string */
	uint8_t end[JANK_RULE_MAX_KEYS];
	uint64_t mag[JANK_RULE_MAX_KEYS];
};

/*
 * The text of an action's key (format_key_cut()'s): the role's prefixes
 * ("name=", ",id=") copied whole, numbers written in place. Whenever the
 * key might not fit in JANK_KEY_LEN - 1 bytes, or a name is long, the text
 * is made again a byte at a time by format_key_cut(), which cuts it: the
 * text is the same either way. This runs for every begin (and the end of
 * an action that is not the latest begun).
 */
static size_t format_key(const struct jank_engine *e, const struct class_role *role,
			 const char (*pre)[KEY_PRE_LEN], char *const *keys, unsigned nkeys,
			 const struct jank_event *ev, char *buf, struct key_parts *kp)
{
	size_t len = 0;
	unsigned k;

	kp->nums = 0;
	for (k = 0; k < JANK_RULE_MAX_KEYS && role->key_pos[k] != POS_NONE; k++) {
		int pos = role->key_pos[k];
		const struct jank_value *v =
			pos >= 0 && (unsigned)pos < ev->nfields ? &ev->fields[pos] : NULL;
		bool neg = false;

		if (!role->pre_len[k] || len + KEY_PRE_LEN + KEY_NUM_ROOM > JANK_KEY_LEN)
			goto cut;
		memcpy(buf + len, pre[k], KEY_PRE_LEN);
		len += role->pre_len[k];
		if (pos == POS_TID) {
			kp->mag[k] = key_mag(engine_emitting_tid(e, ev), &neg);
		} else if (v && v->type == JANK_VALUE_STR) {
			if (role->fold_len[k]) {
				/* The match's string (the event passed it), in pre[k] already. */
				len += role->fold_len[k] - role->pre_len[k];
				kp->nums |= (uint8_t)(KEY_FOLDED << k);
				kp->end[k] = (uint8_t)len;
				continue;
			}
			for (const char *s = v->s; *s; s++) {
				if (len >= JANK_KEY_LEN - 1)
					goto cut;
				buf[len++] = *s;
			}
			kp->end[k] = (uint8_t)len;
			continue;
		} else if (v && v->type == JANK_VALUE_UINT) {
			kp->mag[k] = v->u;
		} else if (v && v->type == JANK_VALUE_INT) {
			kp->mag[k] = key_mag(v->i, &neg);
		} else {
			buf[len++] = '?';
			kp->end[k] = (uint8_t)len;
			continue;
		}
		len += key_num(buf + len, kp->mag[k], neg);
		kp->nums |= (uint8_t)(1u << k);
		kp->end[k] = (uint8_t)len;
	}
	buf[len] = '\0';
	kp->n = (uint8_t)k;
	return len;
cut:
	kp->n = 0;
	return format_key_cut(e, role, keys, nkeys, ev, buf);
}

/*
 * Where an action's key keeps the magnitudes of its numbers: after its
 * text's NUL (key[len + 1] the bit mask of which values are numbers),
 * aligned; past JANK_KEY_LEN when they do not fit.
 */
static inline size_t key_mags_at(size_t len)
{
	return (len + 2 + 7) & ~(size_t)7;
}

/*
 * Keep with the action just opened with format_key()'s text what it made
 * besides: where the values end (a->key_end), the numbers' magnitudes
 * after the text. An end then compares its values with them in place.
 */
static void key_keep(struct jank_action *a, size_t len, const struct key_parts *kp)
{
	size_t at = key_mags_at(len);

	if (!kp->n || at + kp->n * sizeof(uint64_t) > JANK_KEY_LEN) {
		a->key_n = 0;
		return;
	}
	a->key_n = kp->n;
	memcpy(a->key_end, kp->end, sizeof(a->key_end));
	a->key[len + 1] = (char)kp->nums;
	/* Fixed-size copies: a copy of n * 8 bytes was a string instruction. */
	switch (kp->n) {
	case 4:
		memcpy(a->key + at + 3 * sizeof(uint64_t), &kp->mag[3], sizeof(uint64_t));
		/* fallthrough */
	case 3:
		memcpy(a->key + at + 2 * sizeof(uint64_t), &kp->mag[2], sizeof(uint64_t));
		/* fallthrough */
	case 2:
		memcpy(a->key + at + sizeof(uint64_t), &kp->mag[1], sizeof(uint64_t));
		/* fallthrough */
	default:
		memcpy(a->key + at, &kp->mag[0], sizeof(uint64_t));
	}
}
_Static_assert(JANK_RULE_MAX_KEYS == 4, "key_keep() copies at most four values");

/*
 * Whether the event's key is the text of the action `a` (opened with
 * key_keep(), by the same rule: the same names), its values compared in
 * place: a number with the number kept, a string with the text. True means
 * the texts are the same; false only that the caller must compare the
 * texts (12 and "12" make the same text; a value may hold ",id=": the
 * split of a text into values is not unique).
 */
static bool key_eq_in_place(const struct jank_engine *e, const struct class_role *role,
			    const struct jank_event *ev, const struct jank_action *a)
{
	size_t len = a->key_end[a->key_n - 1], mags = key_mags_at(len);
	uint8_t nums = (uint8_t)a->key[len + 1];
	unsigned k;

	for (k = 0; k < JANK_RULE_MAX_KEYS && role->key_pos[k] != POS_NONE; k++) {
		int pos = role->key_pos[k];
		const struct jank_value *v =
			pos >= 0 && (unsigned)pos < ev->nfields ? &ev->fields[pos] : NULL;
		size_t at, n;
		const char *t;
		uint64_t mag, kept;
		bool neg = false;

		if (k >= a->key_n || !role->pre_len[k])
			return false;
		at = (k ? a->key_end[k - 1] : 0) + role->pre_len[k];
		if (a->key_end[k] < at)
			return false;
		t = a->key + at;
		n = a->key_end[k] - at;
		if (pos == POS_TID) {
			mag = key_mag(engine_emitting_tid(e, ev), &neg);
		} else if (v && v->type == JANK_VALUE_STR) {
			const char *s = v->s;
			size_t i;

			/* Both its rule's match string: the same text. */
			if (role->fold_len[k] && (nums & (KEY_FOLDED << k)))
				continue;
			for (i = 0; i < n && s[i] == t[i]; i++)
				;
			if (i < n || s[i])
				return false;
			continue;
		} else if (v && v->type == JANK_VALUE_UINT) {
			mag = v->u;
		} else if (v && v->type == JANK_VALUE_INT) {
			mag = key_mag(v->i, &neg);
		} else {
			if (n != 1 || *t != '?')
				return false;
			continue;
		}
		/* The same sign and magnitude: the same text. */
		if (!(nums & (1u << k)))
			return false;
		memcpy(&kept, a->key + mags + k * sizeof(uint64_t), sizeof(kept));
		if (kept != mag || neg != (*t == '-'))
			return false;
	}
	return k == a->key_n;
}

/*
 * The open action an end event ends, or NULL: first the rule's latest
 * begun (back-to-back actions end the one just begun), compared with the
 * event's values in place, else with its key text; else found by that
 * text. The latest begun is the one the table would give for that text
 * when their texts are the same (keys of a rule are unique in the table):
 * the same result, without a hash.
 */
static struct jank_action *find_action(struct jank_engine *e, const struct class_role *role,
				       const char (*pre)[KEY_PRE_LEN], const struct rule_state *rs,
				       const struct jank_event *ev)
{
	struct jank_action *a = jank_action_last(e->actions, role->rule);
	char key[JANK_KEY_LEN];
	struct key_parts kp;
	size_t klen;

	if (a && a->key_n && key_eq_in_place(e, role, ev, a))
		return a;
	klen = format_key(e, role, pre, rs->rule.keys, rs->rule.nkeys, ev, key, &kp);
	if (a && memcmp(a->key, key, klen + 1) == 0)
		return a;
	return jank_action_find_n(e->actions, role->rule, key, klen);
}

static inline __attribute__((always_inline)) void on_action_event(struct jank_engine *e,
								  const struct class_role *role,
								  const char (*pre)[KEY_PRE_LEN],
								  const struct jank_event *ev)
{
	struct rule_state *rs = &e->rules[role->rule];
	struct jank_action *a;
	int32_t tid;

	tid = engine_emitting_tid(e, ev);
	if (!role->end) {
		struct jank_thread *w = tid > 0 ? jank_graph_get(e->graph, tid, ev->ts) : NULL;
		char key[JANK_KEY_LEN];
		struct key_parts kp;
		size_t klen = format_key(e, role, pre, rs->rule.keys, rs->rule.nkeys, ev, key, &kp);
		bool replaced;

		a = jank_action_open_n(e->actions, role->rule, key, klen, ev->ts, &replaced);
		if (!a)
			return;
		key_keep(a, klen, &kp);
		if (replaced)
			e->stats.actions_replaced++;
		a->tid = tid;
		/* w is the record engine_fill_thread_info() would look up. */
		a->serial = engine_fill_thread_info_w(w, ev, &a->pid, a->comm);
		/* Until it ends, the action labels its thread's path segments. */
		if (w)
			a->span = jank_graph_span_open_n(e->graph, w, ev->ts, rs->rule.name,
							 rs->name_len, key, klen);
		return;
	}
	a = find_action(e, role, pre, rs, ev);
	if (!a) {
		e->stats.actions_unmatched++;
		return;
	}
	int64_t duration = ev->ts - a->begin;
	/* A fixed threshold without a call (jank_threshold_current() gives its ns). */
	int64_t threshold = rs->rule.threshold.kind == JANK_THRESHOLD_FIXED
				    ? rs->rule.threshold.ns
				    : jank_threshold_current(&rs->rule.threshold, &rs->hist);
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
			  const char (*pre)[KEY_PRE_LEN], const struct jank_event *ev)
{
	const struct flow_state *fs = &e->flows[role->rule];
	struct jank_thread *w, *src;
	char key[JANK_KEY_LEN];
	struct key_parts kp;
	struct jank_action *a;
	size_t klen;
	int32_t tid;

	tid = engine_emitting_tid(e, ev);
	w = tid > 0 ? jank_graph_get(e->graph, tid, ev->ts) : NULL;
	if (!w)
		return;
	klen = format_key(e, role, pre, fs->rule.keys, fs->rule.nkeys, ev, key, &kp);
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

/*
 * Each role of the event's class, then a user-space event's vertex. Apart
 * (not inline): the keys' buffers and the roles' code do not weigh on the
 * events of classes without roles (most kernel events).
 */
static __attribute__((noinline)) void
engine_roles(struct jank_engine *e, const struct class_info *ci, const struct jank_event *ev)
{
	const struct class_role *role = ci->roles, *end = role + ci->nroles;
	const char(*pre)[JANK_RULE_MAX_KEYS][KEY_PRE_LEN] = ci->key_pre;

	/* By pointers, the end read once: the class does not change while its event runs. */
	for (; role < end; role++, pre++) {
		if (role->unusable || !match_ok(role, ev))
			continue;
		if (role->flow)
			on_flow_event(e, role, *pre, ev);
		else
			on_action_event(e, role, *pre, ev);
	}
	if (ci->domain == JANK_DOMAIN_UST && ev->tid > 0)
		engine_note_ust_event(e, ev);
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
	if (ci->nroles)
		engine_roles(e, ci, ev);
	/* Memory is checked every 4 events (O(1)): a budget crossed is acted on at once. */
	if (++e->since_gc >= GC_EVERY ||
	    (e->cfg.gc && !(e->since_gc & 3) && engine_memory_bytes(e) > e->check_at))
		engine_maintain(e);
}
