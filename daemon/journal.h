/* SPDX-License-Identifier: MIT */
/*
 * Entries for journald that never block jankd's loop.
 *
 * sd_journal_send() writes on a blocking datagram socket: when journald is
 * stopped (or too slow) and its socket's queue is full, the caller waits,
 * and with it the supervisor's whole loop (control socket, metrics, signals,
 * workers). Here each entry is built as a datagram of journald's native
 * protocol and sent on a non-blocking socket connected to
 * /run/systemd/journal/socket. What journald does not take at once waits in
 * a bounded queue in jankd's memory, in order, and is sent again at the
 * loop's next tick (every 100 ms) and before each new entry. When the queue
 * is full, the oldest entry is dropped and counted.
 *
 * A burst journald catches up with within a second is no news. Entries
 * that wait longer (or one dropped) make an outage: one warning on stderr.
 * It ends when the queue is empty again: one entry (and a line on stderr)
 * says how long it lasted, how many entries were delivered late and how
 * many were dropped. When journald is restarted, the socket is connected again
 * and the queue goes to the new journald; what the old one had not read
 * from its socket is lost with it (the kernel frees it).
 *
 * Until journald has been reached once (none runs, no socket), entries are
 * not queued: the caller writes them on stderr, as before.
 *
 * At exit, jank_journal_drain() gives journald up to a second; what is still
 * queued then goes to stderr (counted).
 *
 * The functions may be called from any thread (one lock).
 */
#ifndef JANK_JOURNAL_H
#define JANK_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JANK_JOURNAL_SOCKET "/run/systemd/journal/socket"
/* The entry that ends an outage (JANK_LATE, JANK_DROPPED, JANK_OUTAGE_NS; jankd.catalog). */
#define JANK_JOURNAL_MESSAGE_ID_BACK "1df63e5a65df72967fdf789074ae3d3c"
#define JANK_JOURNAL_QUEUE_ENTRIES   1024
#define JANK_JOURNAL_QUEUE_BYTES     (4u << 20)
/*
 * A datagram must fit the socket's send buffer (about 208 KiB by default):
 * a value is cut at JANK_JOURNAL_FIELD_MAX bytes, and a field that would
 * take the entry past JANK_JOURNAL_ENTRY_MAX is left out. Both are counted
 * as truncated. (sd_journal_send passes larger entries in a memfd; jank's
 * are a few KiB.)
 */
#define JANK_JOURNAL_FIELD_MAX (32u << 10)
#define JANK_JOURNAL_ENTRY_MAX (128u << 10)

/* ---- An entry: one datagram of the native protocol ---- */

/*
 * Fields are "KEY=value\n"; a value with a newline is "KEY\n", its length
 * as 64-bit little endian, the bytes, "\n". Values are raw bytes up to
 * their NUL.
 */
struct jank_journal_entry {
	char *data;
	size_t len, cap;
	bool truncated; /* a value was cut or a field left out */
	bool failed;	/* out of memory: the entry is incomplete */
};

void jank_journal_entry_init(struct jank_journal_entry *e);
void jank_journal_entry_fini(struct jank_journal_entry *e);
/* KEY: A-Z, 0-9 and '_', not first '_' (journald's rule); a bad key is left out. */
void jank_journal_entry_add(struct jank_journal_entry *e, const char *key, const char *value);
void jank_journal_entry_addf(struct jank_journal_entry *e, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The fields of a datagram, one per call from *pos (start at 0): 1 and the
 * field, 0 at the end, -1 when the datagram is malformed.
 */
int jank_journal_field_next(const char *data, size_t len, size_t *pos, const char **key,
			    size_t *key_len, const char **value, size_t *value_len);

/* ---- The queue: bounded, the oldest dropped ---- */

enum jank_journal_class {
	JANK_JOURNAL_ALERT = 0, /* alerts and their summaries */
	JANK_JOURNAL_OTHER,	/* jankd's log lines, capture reports */
	JANK_JOURNAL_CLASSES,
};

struct jank_journal_item {
	char *data;
	size_t len;
	enum jank_journal_class cls;
};

struct jank_journal_queue {
	struct jank_journal_item *ring;
	size_t max_entries, max_bytes;
	size_t head, n, bytes;
	uint64_t dropped[JANK_JOURNAL_CLASSES];
};

int jank_journal_queue_init(struct jank_journal_queue *q, size_t max_entries, size_t max_bytes);
void jank_journal_queue_fini(struct jank_journal_queue *q);
/*
 * Append `data` (taken: freed when popped or dropped). While the queue is
 * over either bound, its oldest entry is dropped (an entry larger than
 * max_bytes on its own is dropped itself). Returns how many were dropped.
 */
size_t jank_journal_queue_push(struct jank_journal_queue *q, char *data, size_t len,
			       enum jank_journal_class cls);
/* The oldest entry, NULL when empty. */
const struct jank_journal_item *jank_journal_queue_head(const struct jank_journal_queue *q);
/* Free the oldest entry. */
void jank_journal_queue_pop(struct jank_journal_queue *q);

/* ---- Delivery ---- */

/* Per class. */
struct jank_journal_counts {
	uint64_t sent;	    /* journald took it (at once or late) */
	uint64_t queued;    /* it had to wait in the queue */
	uint64_t late;	    /* queued, then sent */
	uint64_t dropped;   /* queued, dropped: the queue was full */
	uint64_t to_stderr; /* written on stderr: journald never reached, or exit */
	uint64_t truncated; /* a value cut or a field left out (see above) */
};

struct jank_journal_stats {
	struct jank_journal_counts counts[JANK_JOURNAL_CLASSES];
	uint64_t pending;	/* entries waiting now */
	uint64_t pending_bytes; /* their size */
	uint64_t outages;	/* times journald stopped accepting entries */
	bool reached;		/* journald was reached once */
	bool backlog;		/* entries wait now */
	int64_t backlog_ns;	/* since when (monotonic) */
	bool outage;		/* ... for OUTAGE_NS or more, or one was dropped */
};

enum jank_journal_result {
	JANK_JOURNAL_SENT = 0,
	JANK_JOURNAL_QUEUED, /* it waits (or was dropped at once: counted) */
	JANK_JOURNAL_STDERR, /* no journald reached yet, or the entry is too big: the caller
				writes it on stderr */
};

/* Hand over one entry (its buffer is taken, `e` is empty after). Never blocks. */
enum jank_journal_result jank_journal_send(enum jank_journal_class cls,
					   struct jank_journal_entry *e);
/* Send what waits, if journald takes it now (the loop's tick). */
void jank_journal_retry(void);
/*
 * At exit: wait up to timeout_ns for journald to take what waits; then
 * write the rest on stderr (each entry's fields, counted), as long as
 * stderr takes it.
 */
void jank_journal_drain(int64_t timeout_ns);
void jank_journal_get_stats(struct jank_journal_stats *s);
/*
 * Tests: forget everything (the queue's entries and the counts), and use
 * the socket `path` (NULL: JANK_JOURNAL_SOCKET) and these bounds (0: the
 * defaults).
 */
void jank_journal_reset(const char *path, size_t max_entries, size_t max_bytes);

#endif
