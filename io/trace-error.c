/* SPDX-License-Identifier: MIT */
/*
 * The trace reader's errors, from babeltrace2's to one line a user can act
 * on: the root cause of the thread's error, on one line, without object
 * addresses, with what it means first for the messages a user meets
 * (clocks that cannot be merged, a corrupt packet, unreadable metadata).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <babeltrace2/babeltrace.h>
#include "trace-reader-int.h"

/*
 * babeltrace2 messages end with "key=value" lists that include object
 * addresses ("msg-it-addr=0x55..."): noise for a user, drop those items.
 */
static void drop_addresses(char *s)
{
	char *p = s;

	while ((p = strstr(p, "-addr=0x"))) {
		char *start = p, *end = p + 8;

		while (start > s && start[-1] != ' ' && start[-1] != ',' && start[-1] != ':')
			start--;
		while (isxdigit((unsigned char)*end))
			end++;
		if (*end == ',')
			end++;
		while (*end == ' ')
			end++;
		memmove(start, end, strlen(end) + 1);
		p = start;
	}
	/* A list left empty, or ending with ", ". */
	for (size_t n = strlen(s); n && (s[n - 1] == ' ' || s[n - 1] == ','); n--)
		s[n - 1] = '\0';
}

/* Fold a multi-line message into one line, without trailing blanks or dots. */
static void one_line(char *s)
{
	char *w = s;
	bool space = false;
	size_t n;

	for (char *r = s; *r; r++) {
		if (*r == '\n' || *r == '\r' || *r == '\t' || *r == ' ') {
			space = w != s;
			continue;
		}
		if (space)
			*w++ = ' ';
		space = false;
		*w++ = *r;
	}
	*w = '\0';
	drop_addresses(s);
	n = strlen(s);
	while (n && (s[n - 1] == '.' || s[n - 1] == ':'))
		s[--n] = '\0';
}

/* src.ctf.fs names an output port "[UUID | ]/path/of/the/stream": its file, or NULL. */
static const char *stream_file(const char *port)
{
	const char *bar = port ? strstr(port, "| /") : NULL;

	if (bar)
		return bar + 2;
	return port && port[0] == '/' ? port : NULL;
}

/*
 * babeltrace2's messages speak of its internals. For the ones a user meets,
 * say what happened and what to do first; keep the original as detail.
 */
static void explain(char *buf, size_t len, const char *msg)
{
	static const struct {
		const char *says; /* a part of babeltrace2's message */
		const char *means;
	} known[] = {
		{ "timestamp is less than muxer's",
		  "timestamps go backwards between two of the traces: were they recorded with "
		  "the same clock? (read them separately)" },
		{ "Clock classes are not compatible",
		  "the traces' clocks cannot be merged: were they recorded on the same host with "
		  "the same clock? (read them separately)" },
		{ "Expecting a clock class",
		  "some traces have a clock and others none: they cannot be merged in time order" },
		{ "Cannot handle state",
		  "a packet cannot be decoded: the trace is corrupt or truncated" },
		{ "Failed to create metadata decoder",
		  "the trace's metadata cannot be read: is it complete?" },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strstr(msg, known[i].says)) {
			snprintf(buf, len, "%s (babeltrace2: %s)", known[i].means, msg);
			return;
		}
	}
	snprintf(buf, len, "%s", msg);
}

/* One line of the thread's error (trace-reader-int.h). */
void reader_take_bt_error(char *buf, size_t len, char *component, size_t clen)
{
	const bt_error *error = bt_current_thread_take_error();
	const bt_error_cause *cause = NULL;
	const char *msg = NULL;
	uint64_t n;

	if (component && clen)
		component[0] = '\0';
	if (!error) {
		snprintf(buf, len, "unknown babeltrace2 error");
		return;
	}
	n = bt_error_get_cause_count(error);
	for (uint64_t i = 0; i < n; i++) {
		cause = bt_error_borrow_cause_by_index(error, i);
		msg = bt_error_cause_get_message(cause);
		if (msg && msg[0])
			break;
	}
	explain(buf, len, msg && msg[0] ? msg : "unknown babeltrace2 error");
	one_line(buf);
	if (cause && component && clen) {
		const char *name = NULL;

		switch (bt_error_cause_get_actor_type(cause)) {
		case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT:
			name = bt_error_cause_component_actor_get_component_name(cause);
			break;
		case BT_ERROR_CAUSE_ACTOR_TYPE_MESSAGE_ITERATOR:
			/* src.ctf.fs names each output port after its stream's file. */
			name = stream_file(
				bt_error_cause_message_iterator_actor_get_component_output_port_name(
					cause));
			if (!name)
				name = bt_error_cause_message_iterator_actor_get_component_name(
					cause);
			break;
		case BT_ERROR_CAUSE_ACTOR_TYPE_UNKNOWN:
		case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT_CLASS:
			break;
		}
		if (name)
			snprintf(component, clen, "%s", name);
	}
	bt_error_release(error);
}
