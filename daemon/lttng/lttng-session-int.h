/* SPDX-License-Identifier: MIT */
/*
 * Inside the LTTng sessions: what lttng-session.c and lttng-session-setup.c
 * share. Not for use outside daemon/lttng/lttng-session*.c.
 */
#ifndef JANK_LTTNG_SESSION_INT_H
#define JANK_LTTNG_SESSION_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <lttng/lttng.h>
#include "lttng-session.h"
#include "errbuf.h"
#include "layout.h"

#define UST_CHANNEL	   "jank-ust"
#define KERNEL_CHANNEL	   "jank-kernel"
#define DESTROY_TIMEOUT_MS 10000
#define NOTE_LEN	   512

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

enum session_kind {
	KIND_LIVE,
	KIND_SNAPSHOT,
	KIND_ROTATING, /* a capture session too: the richer event set, on local disk */
};

/* The state of one create call. */
struct build {
	const struct jank_lttng_session_spec *spec;
	enum session_kind kind;
	int flags; /* JANK_LTTNG_SESSION_* */
	bool kernel_ok;
	char note[NOTE_LEN];	/* the notes, "; "-separated */
	char missing[NOTE_LEN]; /* kernel events that could not be enabled */
	uint64_t period_us;	/* rotating: the periodic schedule, 0: none */
	uint64_t rotate_size;	/* rotating: the size schedule, 0: none */
};

/* lttng-session.c */
int session_lttng_fail(char *err, size_t errlen, enum lttng_error_code code, const char *what);
bool session_is_kernel_event(const char *name);
const char *session_code_str(enum lttng_error_code code);
int session_code_errno(enum lttng_error_code code);
void session_add_missing(struct build *b, const char *event);
uint64_t session_round_up_pow2(uint64_t v);
void session_add_note(struct build *b, int flag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
enum lttng_error_code session_lttng_code(int ret);

/* lttng-session-setup.c */
int session_setup_ust(struct build *b, const char *session, char *err, size_t errlen);
int session_setup_kernel(struct build *b, const char *session, char *err, size_t errlen);

#endif
