/* SPDX-License-Identifier: MIT */
/*
 * Entries for journald, never blocking (see journal.h): the native
 * protocol's datagrams on a non-blocking socket, and a bounded queue for
 * what journald does not take at once.
 *
 * Why not a thread calling sd_journal_sendv: it would still block, only
 * elsewhere, and stopping jankd would have to interrupt it. A non-blocking
 * send either goes or says EAGAIN at once, and the queue is plain data.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "journal.h"
#include "units.h"

#define RETRY_NS  50000000LL   /* at exit, journald is tried again this often */
#define OUTAGE_NS 1000000000LL /* entries waited this long: journald is not just behind */
#define STDERR_MS 200	       /* at exit, how long stderr may take to accept an entry */
#define KEY_MAX	  64	       /* journald's limit on a field name */
#define LINE_LEN  512

/* ---- Entries ---- */

void jank_journal_entry_init(struct jank_journal_entry *e)
{
	memset(e, 0, sizeof(*e));
}

void jank_journal_entry_fini(struct jank_journal_entry *e)
{
	free(e->data);
	jank_journal_entry_init(e);
}

static bool reserve(struct jank_journal_entry *e, size_t more)
{
	size_t cap = e->cap ? e->cap : 1024;
	char *p;

	if (e->failed)
		return false;
	if (e->len + more <= e->cap)
		return true;
	while (cap < e->len + more)
		cap *= 2;
	p = realloc(e->data, cap);
	if (!p) {
		e->failed = true;
		return false;
	}
	e->data = p;
	e->cap = cap;
	return true;
}

/* journald's rule: upper-case letters, digits and '_', not first '_' (trusted fields). */
static bool key_ok(const char *key)
{
	size_t n = strlen(key);

	if (n == 0 || n > KEY_MAX || key[0] == '_')
		return false;
	for (const char *p = key; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

static void put(struct jank_journal_entry *e, const void *p, size_t n)
{
	memcpy(e->data + e->len, p, n);
	e->len += n;
}

void jank_journal_entry_add(struct jank_journal_entry *e, const char *key, const char *value)
{
	size_t klen = strlen(key), vlen = value ? strlen(value) : 0, need;
	unsigned char size[8];
	bool binary;

	if (!key_ok(key)) {
		e->truncated = true;
		return;
	}
	if (vlen > JANK_JOURNAL_FIELD_MAX) {
		vlen = JANK_JOURNAL_FIELD_MAX;
		e->truncated = true;
	}
	binary = vlen && memchr(value, '\n', vlen);
	need = klen + 1 + (binary ? sizeof(size) : 0) + vlen + 1;
	if (e->len + need > JANK_JOURNAL_ENTRY_MAX) {
		e->truncated = true;
		return;
	}
	if (!reserve(e, need))
		return;
	put(e, key, klen);
	if (binary) {
		for (size_t i = 0; i < sizeof(size); i++)
			size[i] = (unsigned char)((uint64_t)vlen >> (8 * i));
		put(e, "\n", 1);
		put(e, size, sizeof(size));
	} else {
		put(e, "=", 1);
	}
	if (vlen)
		put(e, value, vlen);
	put(e, "\n", 1);
}

void jank_journal_entry_addf(struct jank_journal_entry *e, const char *key, const char *fmt, ...)
{
	char small[256], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		e->truncated = true;
		return;
	}
	if ((size_t)n >= sizeof(small)) {
		big = malloc((size_t)n + 1);
		if (!big) {
			e->failed = true;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	jank_journal_entry_add(e, key, big ? big : small);
	free(big);
}

int jank_journal_field_next(const char *data, size_t len, size_t *pos, const char **key,
			    size_t *key_len, const char **value, size_t *value_len)
{
	size_t p = *pos, i = p, start;
	const char *nl;
	uint64_t n = 0;

	if (p >= len)
		return 0;
	while (i < len && data[i] != '=' && data[i] != '\n')
		i++;
	if (i == len || i == p)
		return -1;
	*key = data + p;
	*key_len = i - p;
	if (data[i] == '=') {
		nl = memchr(data + i + 1, '\n', len - i - 1);
		if (!nl)
			return -1;
		*value = data + i + 1;
		*value_len = (size_t)(nl - *value);
		*pos = (size_t)(nl - data) + 1;
		return 1;
	}
	if (len - i - 1 < 8)
		return -1;
	for (int b = 0; b < 8; b++)
		n |= (uint64_t)(unsigned char)data[i + 1 + (size_t)b] << (8 * b);
	start = i + 9;
	if (n >= len - start || data[start + n] != '\n')
		return -1;
	*value = data + start;
	*value_len = (size_t)n;
	*pos = start + (size_t)n + 1;
	return 1;
}

/* ---- The queue ---- */

int jank_journal_queue_init(struct jank_journal_queue *q, size_t max_entries, size_t max_bytes)
{
	memset(q, 0, sizeof(*q));
	q->ring = calloc(max_entries ? max_entries : 1, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	q->max_entries = max_entries;
	q->max_bytes = max_bytes;
	return 0;
}

void jank_journal_queue_fini(struct jank_journal_queue *q)
{
	while (q->n)
		jank_journal_queue_pop(q);
	free(q->ring);
	q->ring = NULL;
	q->max_entries = 0;
}

const struct jank_journal_item *jank_journal_queue_head(const struct jank_journal_queue *q)
{
	return q->n ? &q->ring[q->head] : NULL;
}

void jank_journal_queue_pop(struct jank_journal_queue *q)
{
	struct jank_journal_item *it;

	if (!q->n)
		return;
	it = &q->ring[q->head];
	q->bytes -= it->len;
	free(it->data);
	memset(it, 0, sizeof(*it));
	q->head = (q->head + 1) % q->max_entries;
	q->n--;
}

size_t jank_journal_queue_push(struct jank_journal_queue *q, char *data, size_t len,
			       enum jank_journal_class cls)
{
	size_t dropped = 0;

	if (!q->ring || q->max_entries == 0 || len > q->max_bytes) {
		free(data);
		q->dropped[cls]++;
		return 1;
	}
	while (q->n && (q->n >= q->max_entries || q->bytes + len > q->max_bytes)) {
		q->dropped[q->ring[q->head].cls]++;
		jank_journal_queue_pop(q);
		dropped++;
	}
	q->ring[(q->head + q->n) % q->max_entries] =
		(struct jank_journal_item){ .data = data, .len = len, .cls = cls };
	q->n++;
	q->bytes += len;
	return dropped;
}

/* ---- Delivery (one state per process, under one lock) ---- */

static struct {
	pthread_mutex_t lock;
	bool ready; /* the queue is set up */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;	 /* connected to journald, -1: not now */
	int err; /* why the last send failed (-errno) */
	bool reached;
	bool backlog; /* entries wait */
	bool outage;  /* ... and it was announced: an outage */
	int64_t backlog_start;
	uint64_t outages;
	uint64_t late_before, dropped_before; /* the totals when the backlog began */
	struct jank_journal_queue q;
	struct jank_journal_counts counts[JANK_JOURNAL_CLASSES];
} J = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static void setup_locked(const char *path, size_t max_entries, size_t max_bytes)
{
	snprintf(J.path, sizeof(J.path), "%s", path ? path : JANK_JOURNAL_SOCKET);
	/* Without memory for the ring, every entry that would wait is dropped (counted). */
	jank_journal_queue_init(&J.q, max_entries ? max_entries : JANK_JOURNAL_QUEUE_ENTRIES,
				max_bytes ? max_bytes : JANK_JOURNAL_QUEUE_BYTES);
	J.ready = true;
}

static void ready_locked(void)
{
	if (!J.ready)
		setup_locked(NULL, 0, 0);
}

static uint64_t total_late(void)
{
	uint64_t n = 0;

	for (int c = 0; c < JANK_JOURNAL_CLASSES; c++)
		n += J.counts[c].late;
	return n;
}

static uint64_t total_dropped(void)
{
	uint64_t n = 0;

	for (int c = 0; c < JANK_JOURNAL_CLASSES; c++)
		n += J.q.dropped[c];
	return n;
}

/* A line on stderr if it takes one within `ms`: under systemd, stderr is journald too. */
static bool say(int ms, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool say(int ms, const char *fmt, ...)
{
	struct pollfd p = { .fd = STDERR_FILENO, .events = POLLOUT };
	va_list ap;

	if (poll(&p, 1, ms) != 1 || !(p.revents & POLLOUT))
		return false;
	va_start(ap, fmt);
	fputs("jankd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	fflush(stderr);
	return true;
}

/* An entry journald did not get, on stderr: its MESSAGE, then its other fields. */
static bool entry_to_stderr(const char *data, size_t len)
{
	struct pollfd p = { .fd = STDERR_FILENO, .events = POLLOUT };
	const char *k, *v;
	size_t pos = 0, kn, vn;

	if (poll(&p, 1, STDERR_MS) != 1 || !(p.revents & POLLOUT))
		return false;
	fputs("jankd: not delivered to journald:", stderr);
	while (jank_journal_field_next(data, len, &pos, &k, &kn, &v, &vn) == 1)
		if (kn == 7 && !memcmp(k, "MESSAGE", 7))
			fprintf(stderr, " %.*s", (int)vn, v);
	fputc('\n', stderr);
	pos = 0;
	while (jank_journal_field_next(data, len, &pos, &k, &kn, &v, &vn) == 1)
		if (!(kn == 7 && !memcmp(k, "MESSAGE", 7)))
			fprintf(stderr, "  %.*s=%.*s\n", (int)kn, k, (int)vn, v);
	fflush(stderr);
	return true;
}

static int journal_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int size = (int)JANK_JOURNAL_ENTRY_MAX * 2, e;

	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, J.path, strlen(J.path));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	/* The largest entry must fit; root may go past wmem_max. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	return fd;
}

/*
 * One datagram: 0 sent; -EAGAIN (or -ENOBUFS): journald does not take it
 * now, the socket stays; -EMSGSIZE: this entry can never go; else the
 * socket is closed (journald is gone: connect again next time).
 */
static int journal_send(const char *data, size_t len)
{
	int e;

	if (J.fd < 0) {
		J.fd = journal_connect();
		if (J.fd < 0) {
			e = J.fd;
			J.fd = -1;
			return J.err = e;
		}
		J.reached = true;
	}
	if (send(J.fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
		return 0;
	e = errno == EWOULDBLOCK ? EAGAIN : errno;
	if (e != EAGAIN && e != ENOBUFS && e != EMSGSIZE) {
		close(J.fd);
		J.fd = -1;
	}
	return J.err = -e;
}

/* The first entry waits: journald may only be a little behind (a burst). */
static void backlog_begin(void)
{
	J.backlog = true;
	J.backlog_start = jank_clock_monotonic_ns();
	J.late_before = total_late();
	J.dropped_before = total_dropped();
}

/*
 * An outage: entries have waited OUTAGE_NS, or one was dropped. Said once
 * per outage, on stderr (which may well be journald too: only if it takes
 * the line at once).
 */
static void outage_check(void)
{
	char b[32];

	if (!J.backlog || J.outage)
		return;
	if (jank_clock_monotonic_ns() - J.backlog_start < OUTAGE_NS &&
	    total_dropped() == J.dropped_before)
		return;
	J.outage = true;
	J.outages++;
	say(0,
	    "journald is not accepting entries (%s); queueing up to %zu entries (%s) in "
	    "memory, the oldest dropped beyond",
	    strerror(-J.err), J.q.max_entries, jank_units_size(J.q.max_bytes, b, sizeof(b)));
}

static enum jank_journal_result deliver_locked(enum jank_journal_class cls, char *data, size_t len);

/* The queue is empty again: after an outage, say how it went, in the journal and on stderr. */
static void backlog_end(void)
{
	struct jank_journal_entry e;
	uint64_t late = total_late() - J.late_before, dropped = total_dropped() - J.dropped_before;
	int64_t ns = jank_clock_monotonic_ns() - J.backlog_start;
	char line[LINE_LEN], d[32];
	bool outage = J.outage;

	J.backlog = J.outage = false;
	if (!outage)
		return; /* a burst journald caught up with: nothing to say */
	snprintf(line, sizeof(line),
		 "journald is accepting entries again after %s: %" PRIu64
		 " entr%s delivered late, %" PRIu64 " dropped%s",
		 jank_units_duration(ns, d, sizeof(d)), late, late == 1 ? "y" : "ies", dropped,
		 dropped ? " (the oldest: the queue was full)" : "");
	say(0, "%s", line);
	jank_journal_entry_init(&e);
	jank_journal_entry_add(&e, "MESSAGE", line);
	jank_journal_entry_add(&e, "MESSAGE_ID", JANK_JOURNAL_MESSAGE_ID_BACK);
	jank_journal_entry_addf(&e, "PRIORITY", "%d", dropped ? LOG_WARNING : LOG_NOTICE);
	jank_journal_entry_add(&e, "SYSLOG_IDENTIFIER", "jankd");
	jank_journal_entry_addf(&e, "JANK_LATE", "%" PRIu64, late);
	jank_journal_entry_addf(&e, "JANK_DROPPED", "%" PRIu64, dropped);
	jank_journal_entry_addf(&e, "JANK_OUTAGE_NS", "%" PRId64, ns);
	if (!e.failed)
		deliver_locked(JANK_JOURNAL_OTHER, e.data, e.len);
	else
		free(e.data);
}

/* Send what waits, oldest first, until journald stops taking it. */
static void flush_locked(void)
{
	const struct jank_journal_item *it;
	int r;

	while ((it = jank_journal_queue_head(&J.q))) {
		r = journal_send(it->data, it->len);
		if (r == -EMSGSIZE) {
			if (entry_to_stderr(it->data, it->len))
				J.counts[it->cls].to_stderr++;
			else
				J.q.dropped[it->cls]++;
		} else if (r < 0) {
			outage_check();
			return;
		} else {
			J.counts[it->cls].sent++;
			J.counts[it->cls].late++;
		}
		jank_journal_queue_pop(&J.q);
	}
	if (J.backlog)
		backlog_end();
}

static enum jank_journal_result deliver_locked(enum jank_journal_class cls, char *data, size_t len)
{
	int r = 0;

	flush_locked();
	if (!J.q.n) {
		r = journal_send(data, len);
		if (r == 0) {
			J.counts[cls].sent++;
			free(data);
			return JANK_JOURNAL_SENT;
		}
		if (!J.reached || r == -EMSGSIZE) {
			J.counts[cls].to_stderr++;
			free(data);
			return JANK_JOURNAL_STDERR;
		}
	}
	/* Behind the others, or journald is away: wait. */
	J.counts[cls].queued++;
	if (!J.backlog)
		backlog_begin();
	jank_journal_queue_push(&J.q, data, len, cls);
	outage_check();
	return JANK_JOURNAL_QUEUED;
}

enum jank_journal_result jank_journal_send(enum jank_journal_class cls,
					   struct jank_journal_entry *e)
{
	enum jank_journal_result r;

	pthread_mutex_lock(&J.lock);
	ready_locked();
	if (e->truncated)
		J.counts[cls].truncated++;
	if (e->failed || !e->data) {
		/* Out of memory while building it: nothing to send, but counted. */
		J.counts[cls].queued++;
		J.q.dropped[cls]++;
		jank_journal_entry_fini(e);
		pthread_mutex_unlock(&J.lock);
		return JANK_JOURNAL_QUEUED;
	}
	r = deliver_locked(cls, e->data, e->len);
	jank_journal_entry_init(e);
	pthread_mutex_unlock(&J.lock);
	return r;
}

void jank_journal_retry(void)
{
	pthread_mutex_lock(&J.lock);
	if (J.ready && J.backlog)
		flush_locked();
	pthread_mutex_unlock(&J.lock);
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	nanosleep(&ts, NULL);
}

void jank_journal_drain(int64_t timeout_ns)
{
	int64_t deadline = jank_clock_monotonic_ns() + timeout_ns, left;
	const struct jank_journal_item *it;

	pthread_mutex_lock(&J.lock);
	ready_locked();
	while (J.q.n) {
		flush_locked();
		left = deadline - jank_clock_monotonic_ns();
		if (!J.q.n || left <= 0)
			break;
		if (left > RETRY_NS)
			left = RETRY_NS;
		if (J.fd >= 0) {
			/* Writable: journald read some of its socket's queue. */
			struct pollfd p = { .fd = J.fd, .events = POLLOUT };

			poll(&p, 1, (int)((left + 999999) / 1000000));
		} else {
			sleep_ns(left);
		}
	}
	if (J.q.n)
		say(STDERR_MS, "journald did not take %zu entries before exit: they follow here",
		    J.q.n);
	while ((it = jank_journal_queue_head(&J.q))) {
		if (entry_to_stderr(it->data, it->len))
			J.counts[it->cls].to_stderr++;
		else
			J.q.dropped[it->cls]++;
		jank_journal_queue_pop(&J.q);
	}
	if (J.fd >= 0)
		close(J.fd);
	J.fd = -1;
	pthread_mutex_unlock(&J.lock);
}

void jank_journal_get_stats(struct jank_journal_stats *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&J.lock);
	for (int c = 0; c < JANK_JOURNAL_CLASSES; c++) {
		s->counts[c] = J.counts[c];
		s->counts[c].dropped = J.q.dropped[c];
	}
	s->pending = J.q.n;
	s->pending_bytes = J.q.bytes;
	s->outages = J.outages;
	s->reached = J.reached;
	s->backlog = J.backlog;
	s->outage = J.outage;
	if (J.backlog)
		s->backlog_ns = jank_clock_monotonic_ns() - J.backlog_start;
	pthread_mutex_unlock(&J.lock);
}

void jank_journal_reset(const char *path, size_t max_entries, size_t max_bytes)
{
	pthread_mutex_lock(&J.lock);
	if (J.fd >= 0)
		close(J.fd);
	if (J.ready)
		jank_journal_queue_fini(&J.q);
	J.fd = -1;
	J.err = 0;
	J.reached = J.backlog = J.outage = false;
	J.outages = J.late_before = J.dropped_before = 0;
	J.backlog_start = 0;
	memset(J.counts, 0, sizeof(J.counts));
	setup_locked(path, max_entries, max_bytes);
	pthread_mutex_unlock(&J.lock);
}
