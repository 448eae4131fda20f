/* SPDX-License-Identifier: MIT */
/*
 * Inside the native decoder: its state and what its files (trace-native.c,
 * trace-native-open.c) and the live client (trace-live.c) share. Not for
 * use outside them.
 */
#ifndef JANK_TRACE_NATIVE_INT_H
#define JANK_TRACE_NATIVE_INT_H

#include <stddef.h>
#include "ctf-meta.h"
#include "ctf-plan.h"
#include "errbuf.h"
#include "symbols.h"
#include "trace-native.h"
#include "trace-reader-int.h"

#define CTF_MAGIC     0xc1fc1fc1u
#define MAX_CLASS_ID  (1u << 16)
#define RELEASE_BYTES (8u << 20)
#define NO_SNAPSHOT   UINT64_MAX

struct nclass {
	bool declared, compiled, wanted;
	uint8_t sym_kind;
	const struct ctf_event_decl *decl;
	struct ctf_plan *common, *spec, *payload;
	/* Those of the three that run, up to a NULL (for ctf_plan_run_seq0()), or all three. */
	const struct ctf_plan *body[4];
	bool body_seq0; /* body is for ctf_plan_run_seq0(), and not empty */
	bool body_skip; /* one plan that only skips (ctf_plan_skip_only()); body_seq0 false */
	uint32_t skip_align;
	uint64_t skip_bits;
	uint32_t class_id, nfields;
	uint32_t clear; /* slots to clear before each event: those its plans may leave unset */
	uint32_t sets;	/* the slots its plans may set */
};

struct nsc {
	const struct ctf_stream_decl *decl;
	struct ctf_plan *pctx, *ehdr;
	struct nclass *classes; /* by id */
	size_t nclasses;
	size_t ndeclared;
	uint64_t only_id; /* when ndeclared == 1 */
	char tid[16], pid[16];
	bool has_comm;
	bool has_pid_ns; /* lttng-ust's pid_ns context, an integer */
};

struct ntrace {
	struct ctf_meta *meta;
	char *dir;
	enum jank_domain domain;
	int64_t clock_base;
	struct ctf_plan *phdr;
	struct nsc *scs;
	size_t nscs;
};

enum item_kind {
	ITEM_NONE = 0,
	ITEM_EVENT,
	ITEM_DISCARDED,
	ITEM_END
};

struct discarded {
	int64_t begin, end;
	uint64_t count;
	int32_t cpu;
};

struct nstream {
	struct ntrace *tr;
	char *path;
	size_t index; /* port order */
	const uint8_t *map;
	size_t size, released;
	uint64_t pkt;	  /* byte offset of the current packet */
	uint64_t pkt_len; /* its size in bytes; 0: no packet open */
	struct nsc *sc;
	struct ctf_cursor cur;
	int32_t cpu; /* of the current packet */
	int32_t prev_cpu;
	uint64_t prev_disc, prev_seq, prev_end;
	struct discarded disc[2];
	unsigned ndisc, disc_head;
	int64_t last_ts; /* of its own messages, for the order check */
	/* The head item */
	uint8_t kind;
	bool body_pending; /* an event whose class was not compiled when its header was read */
	int64_t ts;
	struct nclass *cls;
	uint32_t clean; /* slots known to be JANK_VALUE_NONE (0: none known) */
	/*
	 * The values decoded, in place in the event deliver() hands to the
	 * engine: the slots of its fields are the event's (vals[i] is
	 * ev.fields[i]), the contexts' and the symbolizer's follow.
	 */
	union {
		struct jank_event ev;
		struct {
			unsigned char ev_head[offsetof(struct jank_event, fields)];
			struct jank_value vals[CTF_NSLOTS];
		};
	};
	uint64_t arrays[CTF_ARRAY_BUFS][CTF_ARRAY_MAX];
	char *scratch;
	size_t scratch_cap;
};

struct native_reader {
	struct ntrace *traces;
	size_t ntraces;
	struct nstream *streams;
	size_t nstreams;
	struct nstream **heap;
	size_t nheap;
	uint64_t generation;
};

/* trace-native.c */
static inline bool native_has_role(const struct ctf_cursor *c, enum ctf_role r)
{
	return c->roles_set & (1u << r);
}

void native_class_free(struct nclass *nc);
int native_heap_fill(struct jank_reader *in, struct native_reader *nr);

/*
 * For the live decoder (trace-live.c): a stream's bytes are a window (map,
 * size), one packet fetched from relayd; stream_next says ITEM_END when
 * the window is read.
 */
/* trace-native-open.c */
int native_trace_load(struct ntrace *tr, const char *text, size_t n, char *why, size_t len);
void native_trace_fini(struct ntrace *tr);
int native_open_sc(struct ntrace *tr, struct nsc *sc, const struct ctf_stream_decl *d, char *why,
		   size_t len);
int native_probe_class(const struct ctf_meta *m, const struct nsc *sc,
		       const struct ctf_event_decl *e, char *why, size_t len);
void native_trace_announce(struct jank_reader *in, const struct ntrace *tr);
/* trace-native.c: the stream's next item (an event, a discarded range, ITEM_END): 0 or -errno */
int native_stream_next(struct jank_reader *in, struct nstream *s);
/*
 * Hand the stream's head item to the engine, then bring the stream to its
 * next item (native_stream_next()): the run loops' one call per item. 0 or
 * -errno (in->err says why).
 */
int native_deliver_next(struct jank_reader *in, struct nstream *s);

#endif
