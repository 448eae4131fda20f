/* SPDX-License-Identifier: MIT */
/*
 * What a new LTTng session gets before it starts (see lttng-session.c): a
 * user-space channel with the spec's events and contexts, and, best effort,
 * a kernel channel (a capture session's the richer event set).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lttng-session-int.h"

/* What a capture adds, for the offline report: I/O detail (the network's is in the live set). */
static const char *const kernel_capture_events[] = {
	"block_rq_*",
};

static void channel_sizes(struct build *b, struct lttng_channel *chan)
{
	const struct jank_lttng_session_spec *spec = b->spec;

	if (spec->subbuf_size) {
		chan->attr.subbuf_size = session_round_up_pow2(spec->subbuf_size);
		if (chan->attr.subbuf_size != spec->subbuf_size &&
		    !(b->flags & JANK_LTTNG_SESSION_ADJUSTED))
			session_add_note(b, JANK_LTTNG_SESSION_ADJUSTED,
					 "sub-buffer size rounded up to a power of 2 (%llu bytes)",
					 (unsigned long long)chan->attr.subbuf_size);
	}
	if (spec->num_subbuf)
		chan->attr.num_subbuf = session_round_up_pow2(spec->num_subbuf);
	if (b->kind == KIND_SNAPSHOT) {
		chan->attr.overwrite = 1;
		chan->attr.output = LTTNG_EVENT_MMAP;
		return;
	}
	if (b->kind == KIND_ROTATING) {
		chan->attr.overwrite = 0;
		chan->attr.output = LTTNG_EVENT_MMAP;
		return;
	}
	chan->attr.tracefile_size = spec->tracefile_size;
	chan->attr.tracefile_count = spec->tracefile_size ? spec->tracefile_count : 0;
	if (spec->tracefile_size && spec->tracefile_size < chan->attr.subbuf_size) {
		chan->attr.tracefile_size = chan->attr.subbuf_size;
		if (!(b->flags & JANK_LTTNG_SESSION_ADJUSTED))
			session_add_note(
				b, JANK_LTTNG_SESSION_ADJUSTED,
				"tracefile-size rounded up to the sub-buffer size (%llu bytes)",
				(unsigned long long)chan->attr.subbuf_size);
	}
}

static int enable_channel(struct build *b, struct lttng_handle *h, struct lttng_domain *dom,
			  const char *channel)
{
	struct lttng_channel *chan = lttng_channel_create(dom);
	int ret;

	if (!chan)
		return -LTTNG_ERR_NOMEM;
	snprintf(chan->name, sizeof(chan->name), "%s", channel);
	chan->enabled = 1;
	channel_sizes(b, chan);
	ret = lttng_enable_channel(h, chan);
	lttng_channel_destroy(chan);
	return ret;
}

/* Enable one event (a tracepoint, or with `syscall` a system call) in `channel`. */
static int enable_event(struct lttng_handle *h, const char *channel, const char *name, bool syscall)
{
	struct lttng_event *ev = lttng_event_create();
	int ret;

	if (!ev)
		return -LTTNG_ERR_NOMEM;
	ev->type = syscall ? LTTNG_EVENT_SYSCALL : LTTNG_EVENT_TRACEPOINT;
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	ev->loglevel = -1;
	ret = lttng_enable_event(h, ev, channel);
	lttng_event_destroy(ev);
	switch (session_lttng_code(ret)) {
	case LTTNG_ERR_UST_EVENT_ENABLED:
	case LTTNG_ERR_UST_EVENT_EXIST:
	case LTTNG_ERR_KERN_EVENT_EXIST:
		return 0; /* named twice (rules may share events) */
	default:
		return ret;
	}
}

static int add_context(struct lttng_handle *h, const char *channel,
		       enum lttng_event_context_type type)
{
	struct lttng_event_context ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.ctx = type;
	return lttng_add_context(h, &ctx, NULL, channel);
}

/*
 * A domain command without a payload, so that lttng-sessiond's verdict on
 * the domain (kernel tracer there? relayd reachable?) arrives intact: it
 * checks those before it reads a command's payload, and then closes the
 * socket under lttng-ctl's feet, which turns the reply into "Fatal error".
 * Listing the channels of the session sets the domain up as a side effect.
 */
static int probe_domain(struct lttng_handle *h)
{
	struct lttng_channel *channels = NULL;
	int ret = lttng_list_channels(h, &channels);

	free(channels);
	return ret < 0 ? ret : 0;
}

/*
 * A handle on the domain `type` of `session` (per-UID buffers in user space,
 * global ones in the kernel), with its channel enabled. *h is NULL when out
 * of memory; else the caller destroys it, whatever the return value (0, or
 * a negative lttng code from the domain or the channel).
 */
static int open_domain(struct build *b, const char *session, enum lttng_domain_type type,
		       const char *channel, struct lttng_handle **h)
{
	struct lttng_domain dom;
	int ret;

	memset(&dom, 0, sizeof(dom));
	dom.type = type;
	dom.buf_type = type == LTTNG_DOMAIN_KERNEL ? LTTNG_BUFFER_GLOBAL : LTTNG_BUFFER_PER_UID;
	*h = lttng_create_handle(session, &dom);
	if (!*h)
		return -LTTNG_ERR_NOMEM;
	ret = probe_domain(*h);
	if (ret >= 0)
		ret = enable_channel(b, *h, &dom, channel);
	return ret;
}

int session_setup_ust(struct build *b, const char *session, char *err, size_t errlen)
{
	static const enum lttng_event_context_type contexts[] = { LTTNG_EVENT_CONTEXT_VPID,
								  LTTNG_EVENT_CONTEXT_VTID,
								  LTTNG_EVENT_CONTEXT_PROCNAME };
	static const char *const context_names[] = { "vpid", "vtid", "procname" };
	const struct jank_lttng_session_spec *spec = b->spec;
	/* Always on: the lock events of the graph; in a capture, every jank event. */
	const char *const extra[] = { "lttng_ust_pthread:*",
				      b->kind != KIND_LIVE ? "jank:*" : NULL };
	struct lttng_handle *h;
	char what[LTTNG_SYMBOL_NAME_LEN + 64];
	enum lttng_error_code code;
	int ret;

	ret = open_domain(b, session, LTTNG_DOMAIN_UST, UST_CHANNEL, &h);
	if (!h)
		return session_lttng_fail(err, errlen, LTTNG_ERR_NOMEM, session);
	if (ret < 0) {
		snprintf(what, sizeof(what), "user-space channel of session '%s'", session);
		goto fail;
	}
	for (size_t i = 0; i < spec->n_ust_events + N_ELEMENTS(extra); i++) {
		const char *name = i < spec->n_ust_events ? spec->ust_events[i]
							  : extra[i - spec->n_ust_events];

		if (!name || session_is_kernel_event(name))
			continue;
		ret = enable_event(h, UST_CHANNEL, name, false);
		if (ret < 0) {
			snprintf(what, sizeof(what), "user-space event %s", name);
			goto fail;
		}
	}
	for (size_t i = 0; i < N_ELEMENTS(contexts); i++) {
		ret = add_context(h, UST_CHANNEL, contexts[i]);
		if (ret < 0) {
			snprintf(what, sizeof(what), "user-space context %s", context_names[i]);
			goto fail;
		}
	}
	/*
	 * The PID namespace of each event's process, when lttng-ust can say it
	 * (2.12 and later): the symbolizer keys processes by it and their vpid,
	 * so that two containers' pid 1 are two processes. Without it, by vpid.
	 */
	if (add_context(h, UST_CHANNEL, LTTNG_EVENT_CONTEXT_PID_NS) < 0)
		session_add_note(b, 0,
				 "no pid_ns context (lttng-ust before 2.12): processes are told "
				 "apart by their vpid only");
	lttng_destroy_handle(h);
	return 0;
fail:
	lttng_destroy_handle(h);
	code = session_lttng_code(ret);
	if (code == LTTNG_ERR_RELAYD_CONNECT_FAIL || code == LTTNG_ERR_RELAYD_VERSION_FAIL) {
		jank_errf(err, errlen,
			  "session '%s': cannot reach lttng-relayd at %s: is it running? (%s)",
			  session,
			  spec->relayd_url ? spec->relayd_url : JANK_LTTNG_SESSION_DEFAULT_RELAYD,
			  session_code_str(code));
		return session_code_errno(code);
	}
	return session_lttng_fail(err, errlen, code, what);
}

/* Errors that say lttng-sessiond itself is gone: not a kernel matter. */
static bool fatal_for_session(enum lttng_error_code code)
{
	switch (code) {
	case LTTNG_ERR_NO_SESSIOND:
	case LTTNG_ERR_SESS_NOT_FOUND:
	case LTTNG_ERR_SESSION_NOT_EXIST:
	case LTTNG_ERR_NOMEM:
		return true;
	default:
		return false;
	}
}

/*
 * Enable one kernel event: a tracepoint, or, for `syscall` or a rule's
 * syscall_entry_NAME / syscall_exit_NAME, the system call NAME. An event
 * the kernel lacks is noted in b->missing. Returns 0, or a negative lttng
 * code when lttng-sessiond itself failed.
 */
static int enable_kernel_event(struct build *b, struct lttng_handle *h, const char *name,
			       bool syscall)
{
	static const char *const prefixes[] = { "syscall_entry_", "syscall_exit_",
						"compat_syscall_entry_", "compat_syscall_exit_" };
	const char *tp = name;
	int ret;

	for (size_t i = 0; i < N_ELEMENTS(prefixes) && !syscall; i++) {
		size_t n = strlen(prefixes[i]);

		if (!strncmp(name, prefixes[i], n) && name[n]) {
			tp = name + n;
			syscall = true;
		}
	}
	ret = enable_event(h, KERNEL_CHANNEL, tp, syscall);
	if (ret < 0) {
		if (fatal_for_session(session_lttng_code(ret)))
			return ret;
		session_add_missing(b, syscall && !strcmp(tp, "*") ? "syscalls" : name);
		return 0;
	}
	b->kernel_ok = true;
	return 0;
}

/*
 * The kernel channel, best effort. Returns 0, with b->kernel_ok telling
 * whether it is on (with at least one event), or -errno when lttng-sessiond
 * itself failed.
 */
int session_setup_kernel(struct build *b, const char *session, char *err, size_t errlen)
{
	static const enum lttng_event_context_type contexts[] = { LTTNG_EVENT_CONTEXT_TID,
								  LTTNG_EVENT_CONTEXT_PID,
								  LTTNG_EVENT_CONTEXT_PROCNAME };
	const struct jank_lttng_session_spec *spec = b->spec;
	/* procname on every sched_switch is too much for the live session. */
	size_t ncontexts = b->kind != KIND_LIVE ? 3 : 2, n;
	const char *live[JANK_LAYOUT_MAX_KERNEL_EVENTS];
	struct lttng_handle *h;
	enum lttng_error_code code;
	int ret;

	ret = open_domain(b, session, LTTNG_DOMAIN_KERNEL, KERNEL_CHANNEL, &h);
	if (!h)
		return session_lttng_fail(err, errlen, LTTNG_ERR_NOMEM, session);
	if (ret < 0) {
		code = session_lttng_code(ret);
		lttng_destroy_handle(h);
		if (fatal_for_session(code))
			return session_lttng_fail(err, errlen, code, session);
		session_add_note(b, JANK_LTTNG_SESSION_NO_KERNEL,
				 "kernel tracer unavailable (%s): user-space events only",
				 session_code_str(code));
		return 0;
	}

	/* What the model reads (lib/layout.c's table), IPIs and TCP segments included. */
	n = jank_layout_kernel_events(JANK_LAYOUT_2_8, !spec->no_network, live, N_ELEMENTS(live));
	for (size_t i = 0; i < n && ret >= 0; i++)
		ret = enable_kernel_event(b, h, live[i], false);
	if (b->kind != KIND_LIVE) {
		if (ret >= 0)
			ret = enable_kernel_event(b, h, "*", true);
		for (size_t i = 0; i < N_ELEMENTS(kernel_capture_events) && ret >= 0; i++)
			ret = enable_kernel_event(b, h, kernel_capture_events[i], false);
	}
	for (size_t i = 0; i < spec->n_ust_events && ret >= 0; i++)
		if (session_is_kernel_event(spec->ust_events[i]))
			ret = enable_kernel_event(b, h, spec->ust_events[i], false);
	for (size_t i = 0; i < ncontexts && ret >= 0; i++) {
		ret = add_context(h, KERNEL_CHANNEL, contexts[i]);
		if (ret < 0 && !fatal_for_session(session_lttng_code(ret)))
			ret = 0; /* a context this kernel lacks: the events still help */
	}
	lttng_destroy_handle(h);
	if (ret < 0)
		return session_lttng_fail(err, errlen, session_lttng_code(ret), session);
	if (b->missing[0])
		session_add_note(b, JANK_LTTNG_SESSION_PARTIAL, "kernel events unavailable: %s",
				 b->missing);
	if (!b->kernel_ok)
		session_add_note(b, JANK_LTTNG_SESSION_NO_KERNEL,
				 "no kernel event could be enabled: user-space events only");
	return 0;
}
