/* SPDX-License-Identifier: MIT */
/*
 * LTTng sessions that jankd owns, through lttng-ctl: the live session it
 * attaches to, and the snapshot (flight recorder) session it captures from.
 *
 * Each function talks to the root lttng-sessiond. Return values follow one
 * rule: a negative value is -errno and `err` holds a one-line message for
 * humans; a value >= 0 means success, and when it is > 0 it is a set of
 * JANK_LTTNG_SESSION_* flags and `err` holds a one-line note to log as a warning
 * (e.g. "destroyed a leftover session 'jankd-live' first; kernel tracer
 * unavailable (Kernel tracer not available): user-space events only").
 *
 * Two errors say which daemon is away: -ECONNREFUSED, lttng-sessiond does
 * not answer; -EHOSTUNREACH, lttng-sessiond cannot reach lttng-relayd.
 *
 * A session name is owned by its caller: a session that already exists with
 * that name is taken for a leftover of a crash and destroyed.
 */
#ifndef JANK_LTTNG_SESSION_H
#define JANK_LTTNG_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JANK_LTTNG_SESSION_DEFAULT_RELAYD	 "net://127.0.0.1"
#define JANK_LTTNG_SESSION_DEFAULT_LIVE_PORT	 5344
#define JANK_LTTNG_SESSION_DEFAULT_LIVE_TIMER_US 100000

/* What a successful create did besides creating (the bits of a return value > 0). */
enum jank_lttng_session_flag {
	JANK_LTTNG_SESSION_REPLACED = 1 << 0, /* a session of that name existed: destroyed first */
	JANK_LTTNG_SESSION_NO_KERNEL =
		1 << 1, /* spec->kernel, but no kernel tracer: user space only */
	JANK_LTTNG_SESSION_PARTIAL = 1
				     << 2, /* some kernel events are unavailable: the rest is on */
	JANK_LTTNG_SESSION_ADJUSTED = 1 << 3, /* tracefile-size rounded up to the sub-buffer size */
	JANK_LTTNG_SESSION_UNSETTLED = 1 << 4, /* destroyed while data or a rotation was pending */
	JANK_LTTNG_SESSION_WAITED = 1 << 5, /* rotate: waited for a rotation already in progress */
	JANK_LTTNG_SESSION_COVERED = 1
				     << 6,  /* rotate: another rotation archived it: none started */
	JANK_LTTNG_SESSION_ABSENT = 1 << 7, /* destroy: there was no such session */
};

struct jank_lttng_session_spec {
	const char *name;	   /* e.g. "jankd-live"; required */
	const char *relayd_url;	   /* net[4|6]://HOST[:CTRL-PORT[:DATA-PORT]]; NULL: 127.0.0.1 */
	unsigned relayd_live_port; /* relayd's live port; 0: 5344 */
	int64_t live_timer_us;	   /* live timer; 0: 100 ms */
	uint64_t tracefile_size;   /* bytes per trace file on relayd (0: unlimited) */
	uint64_t tracefile_count;  /* files per stream kept by relayd (0: unlimited) */
	uint64_t subbuf_size;	   /* bytes, power of 2; 0: lttng's default for the domain */
	uint64_t num_subbuf;	   /* power of 2; 0: lttng's default */
	/*
	 * The events of the action rules. A name with a ':' (provider:event,
	 * wildcards allowed) is a user-space event; a name without one is a
	 * kernel event (e.g. syscall_entry_read), enabled only when the kernel
	 * channel exists. lttng_ust_pthread:* is always added.
	 */
	const char *const *ust_events;
	size_t n_ust_events;
	bool kernel; /* try the kernel domain */
	/* Leave out the TCP segments' kernel events ([live] network = no). */
	bool no_network;
	/*
	 * A session of that name that exists is kept, and the call fails
	 * with -EEXIST: never destroyed to be made again (jankd's live keeper,
	 * for which destroying a session that still streams loses events).
	 * Without it, such a session is taken for a leftover and replaced.
	 */
	bool keep_existing;
};

/*
 * Create, set up and start a live session on relayd (ARCHITECTURE, step 1;
 * jankd.conf(5), [live] create):
 * a per-UID user-space channel with the rule events, lttng_ust_pthread:*
 * and the contexts vpid, vtid and procname; with spec->kernel, a kernel
 * channel with the scheduler, interrupt, IPI and statedump events the model
 * reads and net_dev_queue and net_if_receive_skb, whose TCP headers link
 * hosts (jank_layout_kernel_events(), lib/layout.c). Both channels keep at
 * most tracefile_count files of tracefile_size bytes per stream on relayd.
 *
 * On success, `url` gets the lttng-live URL to attach to,
 * net://HOST:LIVE-PORT/host/HOSTNAME/NAME, and *kernel_ok (may be NULL)
 * whether the kernel channel is on. A missing kernel tracer is not an error
 * (JANK_LTTNG_SESSION_NO_KERNEL). On failure nothing is left behind.
 */
int jank_lttng_session_create_live(const struct jank_lttng_session_spec *spec, char *url,
				   size_t urllen, bool *kernel_ok, char *err, size_t errlen);

/*
 * Create and start a snapshot-mode (flight recorder) session: overwrite
 * buffers of spec->num_subbuf x spec->subbuf_size per CPU, and a richer event
 * set than the live one: the rule events, lttng_ust_pthread:* and jank:*;
 * in the kernel, the live set (network events included) plus all system
 * calls and block_rq_*. `output_dir` (absolute; may be NULL)
 * is the default output of `lttng snapshot record`. The relayd and live
 * fields of the spec are ignored.
 */
int jank_lttng_session_create_snapshot(const struct jank_lttng_session_spec *spec,
				       const char *output_dir, bool *kernel_ok, char *err,
				       size_t errlen);

/*
 * Create and start a rotating session ([capture] mode = rotation): a normal
 * session writing to `output_dir` (absolute) with the event set of the
 * snapshot session, in discard mode, rotated every `period_us` (0: never)
 * and whenever `size` bytes were written (0: never). lttng archives each
 * chunk as OUTPUT-DIR/archives/BEGIN-END-INDEX/.
 */
int jank_lttng_session_create_rotating(const struct jank_lttng_session_spec *spec,
				       const char *output_dir, uint64_t period_us, uint64_t size,
				       bool *kernel_ok, char *err, size_t errlen);

/*
 * Rotate session `name` now, and wait (a bounded time) until the chunk is
 * archived; `archive` (may be NULL) gets the archive's path, "" if unknown.
 *
 * A rotation already in progress (the session's own schedule, or someone
 * else's) is a normal state, not an error: it is waited for, a bounded time
 * (10 s, then -EBUSY with a message that says so), before this one starts;
 * the return value is then JANK_LTTNG_SESSION_WAITED, with a note saying how long.
 * While it waits, `covered` (may be NULL) is asked whether a rotation that
 * started after this call already archived what the caller wanted; when it
 * says so, no rotation is started and the return value is
 * JANK_LTTNG_SESSION_WAITED | JANK_LTTNG_SESSION_COVERED.
 */
int jank_lttng_session_rotate(const char *name, bool (*covered)(void *arg), void *arg,
			      char *archive, size_t archivelen, char *err, size_t errlen);

/*
 * Record a snapshot of session `name` into the directory `output_path`
 * (absolute; created by lttng-consumerd if needed), and wait until it is on
 * disk. lttng writes the trace in a subdirectory of its own naming,
 * OUTPUT-PATH/snapshot-N-DATETIME-N/{kernel,ust}/...: read output_path as a
 * whole (babeltrace2 and jankctl find the traces below it).
 */
int jank_lttng_session_snapshot_record(const char *name, const char *output_path, char *err,
				       size_t errlen);

/*
 * Stop and destroy session `name`. Its rotation schedules are removed
 * first; then it waits, a bounded time (10 s), until its data is flushed
 * and any rotation in progress has ended, so that a rotating session's last
 * chunk is complete. A session that does not exist is not an error: returns
 * JANK_LTTNG_SESSION_ABSENT, with a note. Returns JANK_LTTNG_SESSION_UNSETTLED,
 * with a note, when the session was destroyed before that wait ended, or
 * when lttng-sessiond reports a failure of the destruction but the session
 * is gone all the same (a live session whose relayd restarted: its
 * consumer cannot close its last chunk, "Rotation failure on consumer").
 */
int jank_lttng_session_destroy(const char *name, char *err, size_t errlen);

/* Whether session `name` exists: 1, 0, or -errno. */
int jank_lttng_session_exists(const char *name, char *err, size_t errlen);

/*
 * Whether lttng-sessiond's client socket answers a connection now: 1 or 0.
 * Evidence that it is gone when calls fail (daemon/sessiond-probe.h).
 */
int jank_lttng_sessiond_answers(void);

#endif
