/* SPDX-License-Identifier: MIT */
/*
 * User-space lock contention from the lttng-ust pthread wrapper:
 * pthread_mutex_lock_req, _lock_acq, _unlock and _trylock, field `mutex`,
 * with the vpid/vtid contexts. Locks are keyed by (process, mutex address),
 * the process as jank_process_key() has it: two containers' pid 1 are two.
 *
 * A request made while the mutex has a holder is contended; its waiter's
 * request-to-acquisition interval is a `lock_wait` whose waker is the
 * holder's unlock that precedes the acquisition.
 *
 *  - With scheduler events, the kernel already has the futex wait and the
 *    wakeup edge from the releasing thread: the lock only relabels those
 *    waits as `lock_wait` and notes the mutex.
 *  - With user-space events only, the lock events are the only source of
 *    edges: a thread is `lock_wait` from a contended request to the handoff,
 *    then `preempted` until its acquisition event; its state is unknown
 *    otherwise, also while it holds a lock: only events say that a thread
 *    ran, and a holder may be blocked (in pthread_cond_wait, below).
 *
 * The unlock tracepoint fires after the real unlock, so the waiter's
 * acquisition may carry an earlier timestamp than the holder's unlock. Handoffs
 * are matched in order, not by timestamp: an acquisition while the holder has
 * not yet logged its unlock takes the lock from it at the acquisition time,
 * and the holder's late unlock is then consumed without effect.
 *
 * pthread_cond_wait releases the mutex and takes it again inside glibc,
 * where the wrapper does not see it: the waiting thread still holds the
 * mutex for the trace. Another thread that then takes it looks like a
 * handoff whose unlock is late. When the "late" unlock comes only after
 * another thread has taken and released the mutex in between, it was not
 * late: its thread released the mutex unseen, waited (a condition variable),
 * and took the mutex back after that release. Without scheduler events, its
 * time from its previous event to that release is then `blocked`, woken by
 * the releasing thread (the one that signalled, under the mutex).
 *
 * A trylock that fails never makes the thread the holder. Records of idle
 * locks are freed, so memory follows the number of contended mutexes.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "hashmap.h"
#include "layout.h"
#include "locks.h"
#include "textsafe.h"

struct lock {
	int64_t proc; /* jank_process_key(pid_ns, vpid) */
	uint64_t mutex;
	uint32_t holder;	/* thread serial, 0 when free */
	uint32_t late_unlocker; /* a holder whose unlock event is still to come */
	uint32_t unlocker;	/* last releasing thread, when waiters remain */
	uint64_t unlock_idx;	/* its vertex at the release */
	int64_t unlock_ts;
	int64_t late_ts;       /* when the late unlocker's mutex was taken from it */
	uint32_t released_by;  /* the latest release while a late unlock is pending */
	uint64_t released_idx; /* its vertex at the release */
	int64_t released_ts;
	uint32_t waiters;
	struct lock *chain; /* same hash */
};

/* bytes first: jank_locks_bytes() (locks.h) reads it in place. */
struct jank_locks {
	size_t bytes; /* the record, its map and its locks, kept current */
	struct jank_graph *g;
	struct jank_hashmap by_key;
};
_Static_assert(offsetof(struct jank_locks, bytes) == 0, "locks.h reads it in place");

static uint64_t lock_hash(int64_t proc, uint64_t mutex)
{
	return jank_hash64(mutex ^ ((uint64_t)proc << 17) ^ 0x9e3779b97f4a7c15ull);
}

struct jank_locks *jank_locks_new(struct jank_graph *g)
{
	struct jank_locks *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->g = g;
	jank_hashmap_init(&l->by_key);
	l->bytes = sizeof(*l);
	return l;
}

void jank_locks_free(struct jank_locks *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->by_key.cap; i++) {
		struct lock *k = l->by_key.slots[i].value, *n;

		for (; k; k = n) {
			n = k->chain;
			free(k);
		}
	}
	jank_hashmap_fini(&l->by_key);
	free(l);
}

static struct lock *find(struct jank_locks *l, int64_t proc, uint64_t mutex, bool create)
{
	uint64_t h = lock_hash(proc, mutex);
	struct lock *first = jank_hashmap_get(&l->by_key, h), *k;
	size_t map;

	for (k = first; k; k = k->chain)
		if (k->proc == proc && k->mutex == mutex)
			return k;
	if (!create)
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->proc = proc;
	k->mutex = mutex;
	k->chain = first;
	map = jank_hashmap_bytes(&l->by_key);
	if (jank_hashmap_put(&l->by_key, h, k) < 0) {
		free(k);
		return NULL;
	}
	l->bytes += jank_hashmap_bytes(&l->by_key) - map + sizeof(*k);
	return k;
}

/* Free the record of a lock nobody holds or waits for. */
static void release_if_idle(struct jank_locks *l, struct lock *k)
{
	uint64_t h;
	struct lock *first;

	if (k->holder || k->waiters || k->late_unlocker)
		return;
	h = lock_hash(k->proc, k->mutex);
	first = jank_hashmap_get(&l->by_key, h);
	if (first == k && k->chain) {
		size_t map = jank_hashmap_bytes(&l->by_key);

		/* A replacement, which may still grow the map. */
		jank_hashmap_put(&l->by_key, h, k->chain);
		l->bytes += jank_hashmap_bytes(&l->by_key) - map;
	} else if (first == k) {
		jank_hashmap_remove(&l->by_key, h);
	} else {
		for (; first; first = first->chain)
			if (first->chain == k) {
				first->chain = k->chain;
				break;
			}
	}
	free(k);
	l->bytes -= sizeof(*k);
}

static void hold(struct jank_locks *l, struct jank_thread *w, struct lock *k, int64_t ts,
		 bool kernel)
{
	k->holder = w->serial;
	if (w->locks_held < UINT16_MAX)
		w->locks_held++;
	/* It ran at its acquisition; holding a lock does not say it runs on. */
	if (!kernel)
		jank_graph_transition(l->g, w, ts, JANK_STATE_UNKNOWN);
}

static void on_request(struct jank_locks *l, struct jank_thread *w, uint64_t mutex, int64_t proc,
		       int64_t ts, bool kernel)
{
	struct lock *k = find(l, proc, mutex, false);

	w->lock_mutex = mutex;
	w->lock_req = ts;
	w->lock_contended = k && k->holder && k->holder != w->serial;
	if (!w->lock_contended)
		return;
	k->waiters++;
	if (!kernel) {
		uint64_t idx = jank_graph_transition(l->g, w, ts, JANK_STATE_LOCK_WAIT);

		if (idx != UINT64_MAX)
			jank_graph_note_lock(l->g, w, idx, mutex);
	}
}

static void on_acquire(struct jank_locks *l, struct jank_thread *w, uint64_t mutex, int64_t proc,
		       int64_t ts, bool kernel)
{
	bool waited = w->lock_mutex == mutex && w->lock_contended;
	struct lock *k = find(l, proc, mutex, true);
	struct jank_thread *from;

	w->lock_mutex = 0;
	w->lock_contended = false;
	if (!k)
		return;
	if (waited && k->waiters)
		k->waiters--;
	if (waited && kernel) {
		jank_graph_relabel_waits(l->g, w, w->lock_req, mutex);
	} else if (waited && k->holder && k->holder != w->serial) {
		/* The holder's unlock event is late: the handoff happens now. */
		from = jank_graph_find_serial(l->g, k->holder);
		/* A retired holder may be freed by GC: followed with GC or without, never. */
		if (from && !from->retired) {
			jank_graph_link(l->g, from, w, ts, JANK_STATE_UNKNOWN);
			if (from->locks_held)
				from->locks_held--;
		}
		k->late_unlocker = k->holder;
		k->late_ts = ts;
	} else if (waited && k->unlocker && k->unlock_ts >= w->lock_req) {
		from = jank_graph_find_serial(l->g, k->unlocker);
		if (from && !from->retired)
			jank_graph_link_from(l->g, from, k->unlock_idx, w, k->unlock_ts,
					     JANK_STATE_PREEMPTED);
	}
	if (!k->waiters)
		k->unlocker = 0;
	hold(l, w, k, ts, kernel);
}

/*
 * The late unlock of w comes after another thread took and released the
 * mutex: w was in a condition wait since its previous event, and took the
 * mutex back after that release (see above).
 */
static void cond_woken(struct jank_locks *l, struct jank_thread *w, struct lock *k)
{
	struct jank_thread *from = jank_graph_find_serial(l->g, k->released_by);

	/* Its own events after the release: it was woken already, and they tell the rest. */
	if (!from || from->retired || from == w || w->ust_last >= k->released_ts)
		return;
	jank_graph_relabel_since(w, w->ust_last, JANK_STATE_UNKNOWN, JANK_STATE_BLOCKED);
	jank_graph_link_from(l->g, from, k->released_idx, w, k->released_ts, JANK_STATE_UNKNOWN);
}

static void on_unlock(struct jank_locks *l, struct jank_thread *w, uint64_t mutex, int64_t proc,
		      int64_t ts, bool kernel)
{
	struct lock *k = find(l, proc, mutex, false);

	if (!k)
		return; /* locked before the trace began, nobody waited */
	if (k->late_unlocker == w->serial) {
		k->late_unlocker = 0; /* already handed over at the waiter's acquisition */
		if (!kernel && k->released_by && k->released_ts >= k->late_ts)
			cond_woken(l, w, k);
		if (!kernel && w->locks_held == 0)
			jank_graph_transition(l->g, w, ts, JANK_STATE_UNKNOWN);
		release_if_idle(l, k);
		return;
	}
	if (k->holder != w->serial)
		return;
	k->holder = 0;
	if (w->locks_held)
		w->locks_held--;
	if (k->waiters) {
		k->unlocker = w->serial;
		k->unlock_idx = jank_graph_split(l->g, w, ts);
		k->unlock_ts = ts;
	}
	if (k->late_unlocker) {
		k->released_by = w->serial;
		k->released_idx = jank_graph_split(l->g, w, ts);
		k->released_ts = ts;
	}
	if (!kernel && w->locks_held == 0)
		jank_graph_transition(l->g, w, ts, JANK_STATE_UNKNOWN);
	release_if_idle(l, k);
}

void jank_locks_process(struct jank_locks *l, enum jank_event_type type,
			const struct jank_event *ev, bool kernel)
{
	int64_t proc = jank_process_key(ev->pid_ns, ev->pid), status;
	struct jank_thread *w;
	uint64_t mutex;

	if (ev->tid <= 0 || ev->nfields <= JANK_F_MUTEX_STATUS)
		return;
	mutex = (uint64_t)jank_value_as_int(&ev->fields[JANK_F_MUTEX_MUTEX], 0);
	status = jank_value_as_int(&ev->fields[JANK_F_MUTEX_STATUS], 0);
	if (mutex == 0 || status != 0)
		return; /* failed calls (EBUSY trylock, errors) change nothing */
	w = jank_graph_get(l->g, ev->tid, ev->ts);
	if (!w)
		return;
	if (w->pid < 0)
		w->pid = ev->pid;
	if (!w->comm[0] && ev->comm) {
		jank_utf8_copy(w->comm, JANK_COMM_LEN, ev->comm);
	}
	jank_thread_seen(w, ev->ts);
	switch (type) {
	case JANK_EVENT_MUTEX_REQ:
		on_request(l, w, mutex, proc, ev->ts, kernel);
		break;
	case JANK_EVENT_MUTEX_ACQ:
		on_acquire(l, w, mutex, proc, ev->ts, kernel);
		break;
	case JANK_EVENT_MUTEX_TRYLOCK: {
		struct lock *k = find(l, proc, mutex, true);

		if (k)
			hold(l, w, k, ev->ts, kernel);
		break;
	}
	case JANK_EVENT_MUTEX_UNLOCK:
		on_unlock(l, w, mutex, proc, ev->ts, kernel);
		break;
	default:
		break;
	}
	/* Without scheduler events, a vertex at each event of the thread bounds what is inferred.
	 */
	if (!kernel)
		jank_graph_split(l->g, w, ev->ts);
	if (ev->ts > w->ust_last)
		w->ust_last = ev->ts;
}
