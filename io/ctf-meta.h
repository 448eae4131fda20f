/* SPDX-License-Identifier: MIT */
/*
 * A CTF 1.8 trace's metadata (TSDL) as LTTng writes it (lttng-ust and
 * lttng-modules 2.9-2.13, and babeltrace2's sink.ctf.fs, which jank-gen
 * uses), parsed into a tree of field types, for the native decoder
 * (io/ctf-plan.c, io/trace-native.c). babeltrace2 stays the reference: what
 * this parser does not know it refuses with one line, and the caller reads
 * the trace through babeltrace2 instead.
 *
 * Everything parsed lives in the metadata's arena and goes with
 * ctf_meta_free(). Names are as written in the TSDL (with their leading
 * underscore; babeltrace2 shows them without one: ctf_field_name()).
 */
#ifndef JANK_CTF_META_H
#define JANK_CTF_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ctf_kind {
	CTF_INT = 0,
	CTF_FLOAT,
	CTF_ENUM,
	CTF_STRING,
	CTF_STRUCT,
	CTF_VARIANT,
	CTF_ARRAY,
	CTF_SEQ,
};

enum ctf_byte_order {
	CTF_BO_NATIVE = 0, /* the trace's */
	CTF_BO_LE,
	CTF_BO_BE,
};

struct ctf_type;

/* An enumeration's label and its range (as signed values when the container is signed). */
struct ctf_mapping {
	const char *label;
	uint64_t lo, hi;
};

struct ctf_member {
	const char *name;
	struct ctf_type *type;
};

struct ctf_type {
	enum ctf_kind kind;
	unsigned align; /* bits, a power of two */
	/* CTF_INT, CTF_FLOAT (exp_dig + mant_dig) */
	unsigned size; /* bits */
	bool is_signed;
	bool text;  /* CTF_INT: a character (encoding UTF8 or ASCII) */
	uint8_t bo; /* enum ctf_byte_order */
	int clock;  /* CTF_INT: index of the clock it maps to, -1: none */
	const char *clock_name;
	/* CTF_ENUM */
	struct ctf_mapping *maps;
	size_t nmaps;
	/* CTF_STRUCT, CTF_VARIANT */
	struct ctf_member *members;
	size_t nmembers;
	/* CTF_VARIANT: its tag; CTF_SEQ: its length (a path, as written) */
	const char *ref;
	/* CTF_ENUM: the container; CTF_ARRAY, CTF_SEQ: the element */
	struct ctf_type *elem;
	uint64_t length; /* CTF_ARRAY */
};

struct ctf_clock {
	const char *name;
	uint64_t freq;
	int64_t offset_s;
	int64_t offset; /* cycles */
};

struct ctf_env {
	const char *key;
	bool is_int;
	int64_t i;
	const char *s;
};

struct ctf_stream_decl {
	uint64_t id;
	struct ctf_type *event_header, *event_context, *packet_context;
};

struct ctf_event_decl {
	uint64_t id;
	uint64_t stream_id;
	const char *name;
	struct ctf_type *context, *fields;
};

struct ctf_arena;

struct ctf_meta {
	struct ctf_arena *arena;
	unsigned major, minor;
	bool has_uuid;
	uint8_t uuid[16];
	uint8_t bo; /* the trace's byte order: CTF_BO_LE or CTF_BO_BE */
	struct ctf_type *packet_header;
	struct ctf_env *env;
	size_t nenv;
	struct ctf_clock *clocks;
	size_t nclocks;
	struct ctf_stream_decl *streams;
	size_t nstreams;
	struct ctf_event_decl *events;
	size_t nevents;
};

/* The most metadata text accepted (LTTng's for a kernel with every event is ~2 MiB). */
#define CTF_META_MAX_BYTES (64u << 20)

/*
 * Parse TSDL text (`len` bytes, not NUL-terminated). Returns the metadata,
 * or NULL with one line in `err`: what it does not know or what is wrong,
 * and where (line number).
 */
struct ctf_meta *ctf_meta_parse(const char *text, size_t len, char *err, size_t errlen);

/*
 * The TSDL text of a trace's `metadata` file: packetized (magic 0x75d11d57,
 * either byte order) or plain text (beginning with the comment "CTF 1.8"). Returns 0 with *text
 * (malloc'd, free it) and *len, or -errno with `err` set: CTF 2 (JSON) and
 * compressed or encrypted packets are refused.
 */
int ctf_meta_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen);
/* The same, from the bytes of a metadata stream already in memory. */
int ctf_meta_unpack(const uint8_t *buf, size_t n, char **text, size_t *len, char *err,
		    size_t errlen);

void ctf_meta_free(struct ctf_meta *m);

/* An environment entry, or NULL. */
const struct ctf_env *ctf_meta_env(const struct ctf_meta *m, const char *key);

/* A field's name as babeltrace2 shows it: without one leading '_'. */
static inline const char *ctf_field_name(const char *name)
{
	return name[0] == '_' ? name + 1 : name;
}

#endif
