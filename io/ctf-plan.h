/* SPDX-License-Identifier: MIT */
/*
 * Decode plans for the native CTF 1.8 decoder: one scope of a trace (a
 * packet header, a packet context, an event header, a context or an event
 * payload) compiled from its TSDL type (ctf-meta.h) into a small tree of
 * steps that reads only what is asked of it (the fields the engine uses,
 * the sizes, times, ids and counters a packet decoder needs, the lengths
 * and tags other fields depend on) and skips the rest by size and
 * alignment. A field whose whole subtree is of fixed size and asked
 * nothing of is skipped in one step.
 *
 * Running a plan over a packet is bounds-checked everywhere: the packet is
 * untrusted input (sizes past the end, lengths past the content, variant
 * tags that select nothing, strings without an end all fail the packet).
 */
#ifndef JANK_CTF_PLAN_H
#define JANK_CTF_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ctf-meta.h"
#include "event.h"

/* Where a value read goes: the engine's fields first, then the contexts and the symbolizer's. */
enum ctf_slot {
	CTF_SLOT_TID = JANK_EVENT_MAX_FIELDS,
	CTF_SLOT_PID,
	CTF_SLOT_COMM,
	CTF_SLOT_PID_NS,
	CTF_SLOT_CPU,
	CTF_SLOT_SYM_BADDR,
	CTF_SLOT_SYM_MEMSZ,
	CTF_SLOT_SYM_PATH,
	CTF_SLOT_SYM_IS_PIC,
	CTF_SLOT_SYM_BUILD_ID,
	CTF_SLOT_SYM_FILENAME,
	CTF_NSLOTS,
};

#define CTF_SLOT_NONE 0xff

/* What a packet or an event header says about itself (integers found by name). */
enum ctf_role {
	CTF_ROLE_NONE = 0,
	CTF_ROLE_MAGIC,
	CTF_ROLE_STREAM_ID,
	CTF_ROLE_STREAM_INSTANCE_ID,
	CTF_ROLE_EVENT_ID,
	CTF_ROLE_TS_BEGIN,
	CTF_ROLE_TS_END,
	CTF_ROLE_CONTENT_SIZE,
	CTF_ROLE_PACKET_SIZE,
	CTF_ROLE_DISCARDED,
	CTF_ROLE_SEQ_NUM,
	CTF_NROLES,
};

/* Which scope a plan reads: it says which names have roles. */
enum ctf_scope_kind {
	CTF_SCOPE_PACKET_HEADER = 0,
	CTF_SCOPE_PACKET_CONTEXT,
	CTF_SCOPE_EVENT_HEADER,
	CTF_SCOPE_OTHER, /* contexts and payloads: slots only */
};

/*
 * The fields asked of a scope: by slot, the (babeltrace2) name of a
 * top-level member, or the dotted path of a nested one in which a variant's
 * options go unnamed ("network_header.transport_header.seq": whichever
 * option holds it; slots whose field the event lacks stay NONE).
 */
struct ctf_want {
	const char *names[CTF_NSLOTS];
	uint8_t buf[CTF_NSLOTS]; /* an array's buffer (0 or 1), CTF_SLOT_NONE: none */
};

#define CTF_ARRAY_BUFS 2
#define CTF_ARRAY_MAX  128
#define CTF_PLAN_REGS  64

/* Reading one packet (or one event in it). */
struct ctf_cursor {
	const uint8_t *buf; /* the packet */
	uint64_t at, end;   /* bits: where we are, the content's end */
	uint64_t clock;	    /* the default clock's value */
	uint64_t roles[CTF_NROLES];
	uint32_t roles_set; /* bit per role */
	struct jank_value *out;
	uint64_t (*arrays)[CTF_ARRAY_MAX];
	char *scratch; /* text arrays, NUL-terminated: at least content bytes + CTF_NSLOTS */
	size_t scratch_used, scratch_cap;
	uint64_t steps;	 /* budget of steps left, against hostile nesting */
	const char *why; /* after a failure */
	uint64_t regs[CTF_PLAN_REGS];
};

struct ctf_plan;

/*
 * The babeltrace2 value type of a field of type t (enum jank_value_type):
 * integers and enumerations INT or UINT, strings and arrays or sequences of
 * 8-bit characters STR, arrays or sequences of unsigned integers ARRAY, else
 * NONE.
 */
int ctf_value_type(const struct ctf_type *t);

/* The top-level member of the struct `scope` shown as `name` (a dotted path: ctf_want), or NULL. */
const struct ctf_type *ctf_scope_member(const struct ctf_type *scope, const char *name);

/*
 * Compile a scope (a struct type, NULL: empty). Returns 0 with *out, or
 * -errno with one line in `err` (what the plan compiler does not take).
 */
int ctf_plan_compile(const struct ctf_meta *m, const struct ctf_type *scope,
		     enum ctf_scope_kind kind, const struct ctf_want *want, struct ctf_plan **out,
		     char *err, size_t errlen);
void ctf_plan_free(struct ctf_plan *p);

/* Read the scope at c->at: 0, or -EINVAL with c->why. */
int ctf_plan_run(const struct ctf_plan *p, struct ctf_cursor *c);
#define CTF_PLAN_SEQ_MAX 8
/* Run n plans (NULL: none) one after the other, as ctf_plan_run() each. */
int ctf_plan_run_seq(const struct ctf_plan *const *plans, unsigned n, struct ctf_cursor *c);
/*
 * The same, faster, for plans up to a NULL that all have a program (none is
 * NULL before it, none fails ctf_plan_has_prog()), at least one.
 */
int ctf_plan_run_seq0(const struct ctf_plan *const *plans, struct ctf_cursor *c);
/* Does the plan run as a program (else, rarely, by its tree)? */
bool ctf_plan_has_prog(const struct ctf_plan *p);
/* Does the plan read nothing and skip nothing (an empty scope)? Then it need not run. */
bool ctf_plan_is_empty(const struct ctf_plan *p);
/*
 * Does the plan only skip a fixed size (its program one block that reads
 * nothing: an event whose fields the engine does not ask for)? Then true,
 * with the block's alignment and size in bits, for ctf_plan_skip().
 */
bool ctf_plan_skip_only(const struct ctf_plan *p, uint32_t *align, uint64_t *bits);

/*
 * What such a plan's run does, inline: align, check that `bits` fit in the
 * content, go past them. 0, or -1 with nothing done when they do not fit
 * (run the plan then, for its failure).
 */
static inline int ctf_plan_skip(struct ctf_cursor *c, uint32_t align, uint64_t bits)
{
	uint64_t a = (c->at + align - 1) & ~((uint64_t)align - 1);

	if (a > c->end || c->end - a < bits)
		return -1;
	c->at = a + bits;
	return 0;
}
/*
 * The same by the reference interpreter (the plan's tree, node by node),
 * for tests and fuzz targets to compare with what ctf_plan_run() gives.
 */
int ctf_plan_run_tree(const struct ctf_plan *p, struct ctf_cursor *c);

/*
 * The slots (bit per slot) that every successful run of the plan (NULL: none)
 * sets; the others may keep what they held before it ran.
 */
uint32_t ctf_plan_sure_slots(const struct ctf_plan *p);
/* The slots a run of the plan (NULL: none) may set. */
uint32_t ctf_plan_slots(const struct ctf_plan *p);

/* Does any integer of the plan map to a clock (the event header's timestamp)? */
bool ctf_plan_has_clock(const struct ctf_plan *p);
/* The clock the plan's integers map to, -1: none. */
int ctf_plan_clock(const struct ctf_plan *p);

#endif
