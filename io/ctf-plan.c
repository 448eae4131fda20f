/* SPDX-License-Identifier: MIT */
/*
 * The plan compiler and its interpreter (ctf-plan.h).
 *
 * A plan is an array of nodes, one per field of the scope's type tree; a
 * struct's or variant's children are a run of indices. Compiling walks the
 * type once: it gives each top-level member the engine asked for a slot,
 * each integer named like a packet's size, time or counter a role, resolves
 * every sequence length and variant tag to the node that holds it (which
 * then saves its value in a register), and finally marks every subtree of
 * fixed size that nothing is asked of as one skip. The interpreter then
 * only aligns and advances over those, and reads the rest.
 *
 * Sequences' lengths and variants' tags resolve within the scope being
 * compiled (lexically, from the innermost struct outwards, or by an
 * absolute path to that scope); a reference to another scope is refused.
 *
 * The tree is then flattened into a linear program, which is what runs:
 * every event reads an event header, a context and a payload, and most of
 * each is a run of fixed-size fields (LTTng's compact header, vpid, vtid,
 * procname, a payload of integers). Such a run becomes one block: aligned
 * and bounds-checked once, its fields then read at offsets known when
 * compiling, byte-aligned little-endian integers by a plain load. A
 * variant is a jump to the code of its option; a string is scanned in
 * place, eight bytes at a time; what is neither (sequences, arrays of
 * fields read one by one) calls the tree interpreter for its node. What an
 * integer step does is chosen when compiling (a value for one slot, a role,
 * a 64-bit clock take one branch; registers and compressed clocks the
 * general way), and an event's contexts and payload run as one program
 * (ctf_plan_run_seq0()). LTTng's event headers (an id and a 64-bit time;
 * the compact and large headers, a tag and a variant of a short time or an
 * extended id and time) are recognized in their program and read by one
 * function each that does what the program does (struct hdr).
 *
 * The tree interpreter stays the reference: the fuzz target of the plan
 * compiler runs both and compares (ctf_plan_run_tree()).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf-plan.h"
#include "errbuf.h"

#define NO_FIXED  UINT64_MAX
#define MAX_NODES (1u << 20)
#define MAX_DEPTH 64

enum op {
	OP_INT = 0,
	OP_FLOAT,
	OP_STRING,
	OP_TEXT,  /* array or sequence of 8-bit characters, read as a string */
	OP_UINTS, /* array or sequence of unsigned integers, read into a buffer */
	OP_ARRAY,
	OP_SEQ,
	OP_STRUCT,
	OP_VARIANT,
};

struct vrange {
	uint64_t lo, hi;
	uint32_t kid; /* index of the option among the variant's children */
};

struct pnode {
	uint8_t op;
	uint8_t be, sign, clock;
	uint8_t role, buf, is_seq; /* is_seq: OP_TEXT, OP_UINTS: length in lreg */
	uint32_t slots;		   /* bit per slot the value goes to */
	int8_t reg;		   /* save the value in this register, -1 */
	int8_t lreg;		   /* OP_SEQ (and is_seq), OP_VARIANT: length or tag */
	bool skip;		   /* fixed size, nothing to do inside */
	uint32_t align, size;	   /* bits */
	uint64_t fixed;		   /* bits, NO_FIXED */
	uint64_t length;	   /* arrays */
	uint32_t elem;		   /* arrays, sequences */
	uint32_t kids, nkids;	   /* struct members, variant options */
	uint32_t ranges, nranges;  /* variant */
	const struct ctf_type *type;
};

/* A step of the linear program. */
enum lop_code {
	L_END = 0,
	L_BLOCK, /* align to a, check that b bits fit; they are the block, at goes past them */
	L_K8,	 /* the node's integer, byte-aligned little-endian, at bit a of the block */
	L_K16,
	L_K32,
	L_K64,
	L_KBITS,   /* the node's integer at bit a of the block, any size, order or alignment */
	L_KTEXT,   /* the node's fixed array of characters at bit a of the block */
	L_STRING,  /* the node's string, at the cursor */
	L_VARIANT, /* the node's option: jump to vpc[a + option] */
	L_JMP,	   /* to b */
	L_NODE,	   /* the node, by the tree interpreter */
	L_S8,	   /* L_K8 .. L_K64 whose value goes to one slot and nowhere else (A_SLOT) */
	L_S16,
	L_S32,
	L_S64,
};

/* An integer's node, copied into its step so that reading it touches the step alone. */
struct lint {
	uint8_t size, role, clock, sign, be;
	int8_t reg;
	uint32_t slots;
};

/*
 * What an integer step (or a string's) does, chosen when compiling so that
 * the common ones take one branch: a value for one slot (sign-extended by
 * shifting it up and back by sh), a role alone, a 64-bit clock alone; the
 * rest (registers, several slots, a compressed clock) take int_done().
 */
enum lact {
	A_ANY = 0,
	A_SLOT,
	A_ROLE,
	A_CLOCK64,
};

struct lop {
	uint8_t op;
	uint8_t act;   /* enum lact */
	uint8_t sh;    /* A_SLOT: 64 - size for a signed integer, else 0 */
	uint8_t slot;  /* A_SLOT */
	uint8_t vtype; /* A_SLOT: the value's type */
	struct lint i; /* L_K*: the node's */
	uint32_t node;
	uint32_t a;
	uint64_t b;
};

/*
 * An event header of one of LTTng's forms, recognized in its program
 * (hdr_form()) and read by one function (run_plain(), run_tagged()) that
 * does what the program does: H_PLAIN, one block of an id and a 64-bit time (what
 * babeltrace2's sink.ctf.fs writes); H_TAGGED, the compact and large
 * headers: a tag that is the id (5 or 16 bits) and a variant on it, of a
 * short time, or, for the tag's last value, a block of a 32-bit id and a
 * 64-bit time. A block's offsets are bits from its start.
 */
enum hdr_kind {
	H_NONE = 0,
	H_PLAIN,
	H_TAGGED,
};

struct hblock {
	uint32_t align;
	uint64_t bits;
};

struct hdr {
	uint8_t kind;
	int8_t reg;		   /* H_TAGGED: the tag's register */
	uint8_t id_bytes;	   /* H_PLAIN: the id's size */
	uint64_t ext;		   /* H_TAGGED: the tag's value for the extended form */
	struct hblock b0;	   /* H_PLAIN: the block; H_TAGGED: the tag's */
	struct hblock bc, be;	   /* H_TAGGED: the short form's block, the extended one's */
	struct lint tag, ts;	   /* H_TAGGED: the tag, the short time (at ts_off of bc) */
	uint32_t ts_off;	   /* H_TAGGED: bc's; H_PLAIN: the time's in b0 */
	uint32_t id_off;	   /* H_PLAIN: in b0 */
	uint32_t eid_off, ets_off; /* H_TAGGED: be's 32-bit id and 64-bit time */
	/*
	 * H_TAGGED from a byte (b0 aligned to 8 bits, the forms' blocks to at
	 * most 8, each form within 16 bytes): the bits of the short time from
	 * the tag's byte, the bytes of the extended id and time, and each
	 * form's size from it. When 16 bytes of content are left, one check
	 * covers either form (run_tagged_fast()). 0: none.
	 */
	uint8_t fast;
	uint8_t fts_bit, feid_byte, fets_byte;
	uint8_t fshort_bits, fext_bits;
};

struct ctf_plan {
	struct lop *prog; /* NULL: run the tree */
	uint32_t nprog, capprog;
	uint32_t *vpc;
	uint32_t nvpc, capvpc;
	struct pnode *nodes;
	uint32_t nnodes, capnodes;
	uint32_t *kids;
	uint32_t nkids, capkids;
	struct vrange *ranges;
	uint32_t nranges, capranges;
	uint32_t root;
	int clock;
	int nregs;
	struct hdr hdr;
};

/* ---- Types ---- */

static bool is_char(const struct ctf_type *t)
{
	return t->kind == CTF_INT && t->text && t->size == 8 && t->align == 8;
}

int ctf_value_type(const struct ctf_type *t)
{
	switch (t->kind) {
	case CTF_INT:
	case CTF_ENUM:
		return t->is_signed ? JANK_VALUE_INT : JANK_VALUE_UINT;
	case CTF_STRING:
		return JANK_VALUE_STR;
	case CTF_ARRAY:
	case CTF_SEQ:
		if (is_char(t->elem))
			return JANK_VALUE_STR;
		if ((t->elem->kind == CTF_INT || t->elem->kind == CTF_ENUM) && !t->elem->is_signed)
			return JANK_VALUE_ARRAY;
		return JANK_VALUE_NONE;
	case CTF_FLOAT:
	case CTF_STRUCT:
	case CTF_VARIANT:
		break;
	}
	return JANK_VALUE_NONE;
}

/*
 * The type a dotted path names below t ("a.b.c", babeltrace2's names), a
 * variant's options passed through unnamed: the first option that has it.
 */
static const struct ctf_type *path_member(const struct ctf_type *t, const char *path, int depth)
{
	size_t n = strcspn(path, ".");

	if (!t || depth > MAX_DEPTH)
		return NULL;
	if (t->kind == CTF_VARIANT) {
		for (size_t i = 0; i < t->nmembers; i++) {
			const struct ctf_type *r = path_member(t->members[i].type, path, depth + 1);

			if (r)
				return r;
		}
		return NULL;
	}
	if (t->kind != CTF_STRUCT)
		return NULL;
	for (size_t i = 0; i < t->nmembers; i++) {
		const char *m = ctf_field_name(t->members[i].name);

		if (strlen(m) != n || strncmp(m, path, n))
			continue;
		if (!path[n])
			return t->members[i].type->kind == CTF_VARIANT ? NULL : t->members[i].type;
		return path_member(t->members[i].type, path + n + 1, depth + 1);
	}
	return NULL;
}

const struct ctf_type *ctf_scope_member(const struct ctf_type *scope, const char *name)
{
	if (!scope || scope->kind != CTF_STRUCT)
		return NULL;
	if (strchr(name, '.'))
		return path_member(scope, name, 0);
	for (size_t i = 0; i < scope->nmembers; i++)
		if (!strcmp(ctf_field_name(scope->members[i].name), name))
			return scope->members[i].type;
	return NULL;
}

/* ---- Compiling ---- */

struct frame {
	const struct ctf_type *st;
	uint32_t node;
	size_t done; /* members compiled so far */
};

struct comp {
	const struct ctf_meta *m;
	struct ctf_plan *p;
	enum ctf_scope_kind kind;
	const struct ctf_want *want;
	struct frame frames[MAX_DEPTH];
	unsigned nframes;
	/* The dotted path of the field being compiled (variants' options unnamed). */
	char path[256];
	size_t plen;
	bool path_long; /* it did not fit: no dotted name matches */
	char *err;
	size_t errlen;
};

static int refuse(struct comp *c, const char *what, const char *name)
{
	jank_errf(c->err, c->errlen, "%s%s%s", what, name ? ": " : "", name ? name : "");
	return -ENOTSUP;
}

static int grow(void **v, uint32_t *cap, uint32_t n, size_t size)
{
	if (n < *cap)
		return 0;
	if (n >= MAX_NODES)
		return -E2BIG;
	{
		uint32_t ncap = *cap ? *cap * 2 : 64;
		void *nv = realloc(*v, (size_t)ncap * size);

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	return 0;
}

static int new_node(struct comp *c, const struct ctf_type *t, uint32_t *idx)
{
	struct ctf_plan *p = c->p;
	struct pnode *n;

	if (grow((void **)&p->nodes, &p->capnodes, p->nnodes, sizeof(*p->nodes)) < 0)
		return refuse(c, "a scope too large to compile", NULL);
	*idx = p->nnodes++;
	n = &p->nodes[*idx];
	memset(n, 0, sizeof(*n));
	n->type = t;
	n->align = t->align;
	n->reg = n->lreg = -1;
	n->buf = CTF_SLOT_NONE;
	n->role = CTF_ROLE_NONE;
	n->fixed = NO_FIXED;
	n->be = (t->bo == CTF_BO_NATIVE ? c->m->bo : t->bo) == CTF_BO_BE;
	return 0;
}

/* The role of an integer named `name` (babeltrace2's name) at `top` level of the scope. */
static uint8_t role_of(const struct comp *c, const char *name, bool top)
{
	static const struct {
		enum ctf_scope_kind kind;
		const char *name;
		enum ctf_role role;
	} roles[] = {
		{ CTF_SCOPE_PACKET_HEADER, "magic", CTF_ROLE_MAGIC },
		{ CTF_SCOPE_PACKET_HEADER, "stream_id", CTF_ROLE_STREAM_ID },
		{ CTF_SCOPE_PACKET_HEADER, "stream_instance_id", CTF_ROLE_STREAM_INSTANCE_ID },
		{ CTF_SCOPE_PACKET_CONTEXT, "timestamp_begin", CTF_ROLE_TS_BEGIN },
		{ CTF_SCOPE_PACKET_CONTEXT, "timestamp_end", CTF_ROLE_TS_END },
		{ CTF_SCOPE_PACKET_CONTEXT, "content_size", CTF_ROLE_CONTENT_SIZE },
		{ CTF_SCOPE_PACKET_CONTEXT, "packet_size", CTF_ROLE_PACKET_SIZE },
		{ CTF_SCOPE_PACKET_CONTEXT, "events_discarded", CTF_ROLE_DISCARDED },
		{ CTF_SCOPE_PACKET_CONTEXT, "packet_seq_num", CTF_ROLE_SEQ_NUM },
	};

	if (!name)
		return CTF_ROLE_NONE;
	if (c->kind == CTF_SCOPE_EVENT_HEADER && !strcmp(name, "id"))
		return CTF_ROLE_EVENT_ID; /* at any depth: the compact header's and its extension's
					   */
	for (size_t i = 0; top && i < sizeof(roles) / sizeof(roles[0]); i++)
		if (roles[i].kind == c->kind && !strcmp(roles[i].name, name))
			return (uint8_t)roles[i].role;
	return CTF_ROLE_NONE;
}

/*
 * The slots a field goes to (one field may feed several), and its array
 * buffer: a top-level member by its name, a nested one by its dotted path.
 */
static uint32_t slots_of(const struct comp *c, const char *name, bool top, uint8_t *buf)
{
	uint32_t mask = 0;

	if (!name || !c->want)
		return 0;
	for (unsigned i = 0; i < CTF_NSLOTS; i++) {
		const char *w = c->want->names[i];

		if (!w)
			continue;
		if (strchr(w, '.') ? c->path_long || strcmp(w, c->path) : !top || strcmp(w, name))
			continue;
		if (!mask || *buf == CTF_SLOT_NONE)
			*buf = c->want->buf[i];
		mask |= 1u << i;
	}
	return mask;
}

static int compile(struct comp *c, const struct ctf_type *t, const char *name, bool top,
		   uint32_t *idx);

/* The node a path (as written: "a.b" or "event.fields.a") names, among the fields before it. */
static int resolve_path(struct comp *c, const char *path, uint32_t *node)
{
	static const char *const abs[] = { "trace.packet.header.", "stream.packet.context.",
					   "stream.event.header.", "stream.event.context.",
					   "event.context.",	   "event.fields." };
	const struct ctf_plan *p = c->p;
	unsigned from = c->nframes;
	char comp[256];

	for (size_t i = 0; i < sizeof(abs) / sizeof(abs[0]); i++) {
		if (!strncmp(path, abs[i], strlen(abs[i]))) {
			/* Only the scope being compiled: its root frame. */
			path += strlen(abs[i]);
			from = 1;
			break;
		}
	}
	for (bool first = true; *path; first = false) {
		size_t n = strcspn(path, ".");
		const struct pnode *pn;
		bool found = false;

		if (n >= sizeof(comp))
			return refuse(c, "a field path too long", NULL);
		memcpy(comp, path, n);
		comp[n] = '\0';
		path += n + (path[n] == '.');
		if (first) {
			for (unsigned f = from; f-- > 0 && !found;) {
				const struct frame *fr = &c->frames[f];

				for (size_t k = fr->done; k-- > 0 && !found;) {
					if (strcmp(fr->st->members[k].name, comp))
						continue;
					*node = p->kids[p->nodes[fr->node].kids + k];
					found = true;
				}
			}
		} else {
			pn = &p->nodes[*node];
			for (size_t k = 0; pn->op == OP_STRUCT && k < pn->nkids && !found; k++) {
				if (strcmp(pn->type->members[k].name, comp))
					continue;
				*node = p->kids[pn->kids + k];
				found = true;
			}
		}
		if (!found)
			return refuse(c, "a length or tag that is not a field before it", comp);
	}
	return 0;
}

/* Make the node at `node` save its value in a register; *reg is that register. */
static int save_in_register(struct comp *c, uint32_t node, bool want_enum, int8_t *reg)
{
	struct pnode *n = &c->p->nodes[node];

	if (n->op != OP_INT || (want_enum && n->type->kind != CTF_ENUM) ||
	    (!want_enum && n->type->is_signed))
		return refuse(c,
			      want_enum ? "a variant tag that is not an enumeration"
					: "a sequence length that is not an integer",
			      NULL);
	if (n->reg < 0) {
		if (c->p->nregs >= CTF_PLAN_REGS)
			return refuse(c, "too many lengths and tags in one scope", NULL);
		n->reg = (int8_t)c->p->nregs++;
	}
	*reg = n->reg;
	return 0;
}

static int compile_struct(struct comp *c, const struct ctf_type *t, bool top, uint32_t idx)
{
	struct ctf_plan *p = c->p;
	struct frame *fr;
	uint32_t first;

	if (c->nframes >= MAX_DEPTH)
		return refuse(c, "structures nested too deep", NULL);
	first = p->nkids;
	for (size_t i = 0; i < t->nmembers; i++) {
		if (grow((void **)&p->kids, &p->capkids, p->nkids, sizeof(*p->kids)) < 0)
			return refuse(c, "a scope too large to compile", NULL);
		p->kids[p->nkids++] = 0;
	}
	p->nodes[idx].op = OP_STRUCT;
	p->nodes[idx].kids = first;
	p->nodes[idx].nkids = (uint32_t)t->nmembers;
	fr = &c->frames[c->nframes++];
	*fr = (struct frame){ .st = t, .node = idx, .done = 0 };
	for (size_t i = 0; i < t->nmembers; i++) {
		uint32_t kid;
		int r = compile(c, t->members[i].type, t->members[i].name, top, &kid);

		if (r < 0)
			return r;
		p->kids[first + i] = kid;
		c->frames[c->nframes - 1].done = i + 1;
	}
	c->nframes--;
	return 0;
}

/* The label `label` selects which option of the variant type t (matched with or without '_'). */
static int option_of(const struct ctf_type *t, const char *label)
{
	for (size_t i = 0; i < t->nmembers; i++)
		if (!strcmp(t->members[i].name, label))
			return (int)i;
	for (size_t i = 0; i < t->nmembers; i++)
		if (!strcmp(ctf_field_name(t->members[i].name), ctf_field_name(label)))
			return (int)i;
	return -1;
}

static int compile_variant(struct comp *c, const struct ctf_type *t, uint32_t idx)
{
	struct ctf_plan *p = c->p;
	const struct ctf_type *tag;
	uint32_t tagnode, first;
	int8_t reg;
	int r;

	if (!t->ref)
		return refuse(c, "a variant without a tag", NULL);
	r = resolve_path(c, t->ref, &tagnode);
	if (r < 0 || (r = save_in_register(c, tagnode, true, &reg)) < 0)
		return r;
	tag = p->nodes[tagnode].type;
	p->nodes[idx].op = OP_VARIANT;
	p->nodes[idx].lreg = reg;
	p->nodes[idx].align = 1;
	p->nodes[idx].sign = tag->is_signed;
	p->nodes[idx].ranges = p->nranges;
	for (size_t i = 0; i < tag->nmaps; i++) {
		int k = option_of(t, tag->maps[i].label);

		if (k < 0)
			continue;
		if (grow((void **)&p->ranges, &p->capranges, p->nranges, sizeof(*p->ranges)) < 0)
			return refuse(c, "a variant too large to compile", NULL);
		p->ranges[p->nranges++] =
			(struct vrange){ tag->maps[i].lo, tag->maps[i].hi, (uint32_t)k };
	}
	p->nodes[idx].nranges = p->nranges - p->nodes[idx].ranges;
	first = p->nkids;
	for (size_t i = 0; i < t->nmembers; i++) {
		if (grow((void **)&p->kids, &p->capkids, p->nkids, sizeof(*p->kids)) < 0)
			return refuse(c, "a scope too large to compile", NULL);
		p->kids[p->nkids++] = 0;
	}
	p->nodes[idx].kids = first;
	p->nodes[idx].nkids = (uint32_t)t->nmembers;
	for (size_t i = 0; i < t->nmembers; i++) {
		uint32_t kid;

		/* An option is not named in a path: it is the variant's value. */
		r = compile(c, t->members[i].type, NULL, false, &kid);
		if (r < 0)
			return r;
		p->kids[first + i] = kid;
	}
	return 0;
}

/* Arrays and sequences: of characters or unsigned integers when read, else element by element. */
static int compile_array(struct comp *c, const struct ctf_type *t, uint32_t idx)
{
	struct ctf_plan *p = c->p;
	uint32_t elem, lennode;
	int8_t reg = -1;
	int r;

	if (t->kind == CTF_SEQ) {
		r = resolve_path(c, t->ref, &lennode);
		if (r < 0 || (r = save_in_register(c, lennode, false, &reg)) < 0)
			return r;
	}
	r = compile(c, t->elem, NULL, false, &elem);
	if (r < 0)
		return r;
	p->nodes[idx].elem = elem;
	p->nodes[idx].lreg = reg;
	p->nodes[idx].length = t->length;
	p->nodes[idx].is_seq = t->kind == CTF_SEQ;
	p->nodes[idx].op = t->kind == CTF_SEQ ? OP_SEQ : OP_ARRAY;
	if (!p->nodes[idx].slots)
		return 0;
	switch (ctf_value_type(t)) {
	case JANK_VALUE_STR:
		p->nodes[idx].op = OP_TEXT;
		break;
	case JANK_VALUE_ARRAY:
		p->nodes[idx].op = OP_UINTS;
		break;
	default:
		p->nodes[idx].slots = 0;
		break;
	}
	return 0;
}

static int compile_node(struct comp *c, const struct ctf_type *t, const char *name, bool top,
			uint32_t *idx)
{
	const char *shown = name ? ctf_field_name(name) : NULL;
	struct pnode *n;
	int r = new_node(c, t, idx);

	if (r < 0)
		return r;
	n = &c->p->nodes[*idx];
	n->slots = slots_of(c, shown, top && c->nframes == 1, &n->buf);
	switch (t->kind) {
	case CTF_INT:
	case CTF_ENUM:
		n->op = OP_INT;
		n->size = t->size;
		n->sign = t->is_signed;
		n->role = role_of(c, shown, c->nframes == 1);
		if (t->clock >= 0) {
			if (c->p->clock >= 0 && c->p->clock != t->clock)
				return refuse(c, "integers mapped to two clocks", NULL);
			c->p->clock = t->clock;
			/* babeltrace2 does not move the clock to a packet's end time. */
			n->clock = n->role != CTF_ROLE_TS_END;
		}
		return 0;
	case CTF_FLOAT:
		n->op = OP_FLOAT;
		n->size = t->size;
		n->slots = 0;
		return 0;
	case CTF_STRING:
		n->op = OP_STRING;
		n->align = 8;
		return 0;
	case CTF_STRUCT:
		n->slots = 0;
		return compile_struct(c, t, top, *idx);
	case CTF_VARIANT:
		n->slots = 0;
		return compile_variant(c, t, *idx);
	case CTF_ARRAY:
	case CTF_SEQ:
		return compile_array(c, t, *idx);
	}
	return refuse(c, "an unknown field type", name);
}

/* One field, its name appended to the path while it (and what is in it) compiles. */
static int compile(struct comp *c, const struct ctf_type *t, const char *name, bool top,
		   uint32_t *idx)
{
	size_t plen = c->plen;
	bool path_long = c->path_long;
	int r;

	if (name) {
		const char *shown = ctf_field_name(name);
		int w = snprintf(c->path + plen, sizeof(c->path) - plen, "%s%s", plen ? "." : "",
				 shown);

		if (w < 0 || (size_t)w >= sizeof(c->path) - plen)
			c->path_long = true;
		else
			c->plen = plen + (size_t)w;
	}
	r = compile_node(c, t, name, top, idx);
	c->plen = plen;
	c->path[plen] = '\0';
	c->path_long = path_long;
	return r;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Bottom-up: each node's fixed size, and whether it can be skipped in one step. */
static void finalize(struct ctf_plan *p, uint32_t idx)
{
	struct pnode *n = &p->nodes[idx];
	bool quiet = !n->slots && n->role == CTF_ROLE_NONE && n->reg < 0 && !n->clock;
	uint64_t off = 0;

	switch ((enum op)n->op) {
	case OP_INT:
	case OP_FLOAT:
		n->fixed = n->size;
		break;
	case OP_STRING:
		quiet = false; /* of no fixed size */
		break;
	case OP_SEQ:
	case OP_TEXT:
	case OP_UINTS: {
		const struct pnode *e;

		finalize(p, n->elem);
		e = &p->nodes[n->elem];
		quiet = false;
		/* A fixed array read (procname[17]): of a fixed size, for the program's blocks. */
		if (!n->is_seq && n->op != OP_SEQ && e->fixed != NO_FIXED)
			n->fixed = n->length ? (n->length - 1) * round_up(e->fixed, e->align) +
						       e->fixed
					     : 0;
		break;
	}
	case OP_ARRAY: {
		const struct pnode *e;

		finalize(p, n->elem);
		e = &p->nodes[n->elem];
		quiet = quiet && e->skip;
		if (e->fixed != NO_FIXED && n->length)
			n->fixed = (n->length - 1) * round_up(e->fixed, e->align) + e->fixed;
		else if (e->fixed != NO_FIXED)
			n->fixed = 0;
		break;
	}
	case OP_STRUCT:
		for (uint32_t k = 0; k < n->nkids; k++) {
			const struct pnode *e;

			finalize(p, p->kids[n->kids + k]);
			e = &p->nodes[p->kids[n->kids + k]];
			quiet = quiet && e->skip;
			if (off != NO_FIXED && e->fixed != NO_FIXED)
				off = round_up(off, e->align) + e->fixed;
			else
				off = NO_FIXED;
		}
		n->fixed = off;
		break;
	case OP_VARIANT:
		for (uint32_t k = 0; k < n->nkids; k++)
			finalize(p, p->kids[n->kids + k]);
		quiet = false;
		break;
	}
	n->skip = quiet && n->fixed != NO_FIXED;
}

/* ---- Flattening into a linear program ---- */

struct emit {
	struct ctf_plan *p;
	bool open;	/* a block is open: fixed fields go at known offsets in it */
	uint32_t block; /* its L_BLOCK step */
	uint32_t a0;	/* its alignment */
	uint64_t off;	/* bits of it so far */
	bool failed;
};

/* The step's action (enum lact) for what its node does; its slot, shift and type for A_SLOT. */
static uint8_t step_act(const struct pnode *n, uint8_t op, struct lop *l)
{
	bool one_slot = n->slots && !(n->slots & (n->slots - 1));
	bool is_int = op >= L_K8 && op <= L_KBITS;

	if (op == L_STRING || op == L_KTEXT) {
		if (!one_slot)
			return A_ANY;
		l->slot = (uint8_t)__builtin_ctz(n->slots);
		l->vtype = JANK_VALUE_STR;
		return A_SLOT;
	}
	if (!is_int || n->size < 1 || n->size > 64 || n->reg >= 0)
		return A_ANY;
	if (n->clock)
		return n->size == 64 && n->role == CTF_ROLE_NONE && !n->slots ? A_CLOCK64 : A_ANY;
	if (n->role == CTF_ROLE_NONE && one_slot) {
		l->slot = (uint8_t)__builtin_ctz(n->slots);
		l->vtype = n->sign ? JANK_VALUE_INT : JANK_VALUE_UINT;
		l->sh = n->sign ? (uint8_t)(64 - n->size) : 0;
		return A_SLOT;
	}
	if (n->role != CTF_ROLE_NONE && !n->slots)
		return A_ROLE;
	return A_ANY;
}

static uint32_t emit_op(struct emit *e, uint8_t op, uint32_t node, uint32_t a, uint64_t b)
{
	struct ctf_plan *p = e->p;

	if (grow((void **)&p->prog, &p->capprog, p->nprog, sizeof(*p->prog)) < 0) {
		e->failed = true;
		return 0;
	}
	{
		const struct pnode *n = &p->nodes[node];

		p->prog[p->nprog] = (struct lop){
			.op = op,
			.i = { (uint8_t)n->size, n->role, n->clock, n->sign, n->be, n->reg,
			       n->slots },
			.node = node,
			.a = a,
			.b = b,
		};
		p->prog[p->nprog].act = step_act(n, op, &p->prog[p->nprog]);
		if (p->prog[p->nprog].act == A_SLOT && op >= L_K8 && op <= L_K64)
			p->prog[p->nprog].op = (uint8_t)(op - L_K8 + L_S8);
	}
	return p->nprog++;
}

/* Can the node be read at a known offset of a block aligned to a0? */
static bool fits_block(const struct ctf_plan *p, const struct pnode *n, uint32_t a0)
{
	const struct pnode *e;

	if (n->fixed == NO_FIXED || n->align > a0 || n->fixed > UINT32_MAX)
		return false;
	if (n->skip)
		return true;
	switch ((enum op)n->op) {
	case OP_INT:
		return n->size >= 1 && n->size <= 64;
	case OP_FLOAT:
		return true;
	case OP_STRUCT:
		for (uint32_t k = 0; k < n->nkids; k++)
			if (!fits_block(p, &p->nodes[p->kids[n->kids + k]], a0))
				return false;
		return true;
	case OP_TEXT:
		e = &p->nodes[n->elem];
		return !n->is_seq && e->fixed == 8 && e->align == 8;
	default:
		return false;
	}
}

static void close_block(struct emit *e)
{
	if (!e->open)
		return;
	if (!e->failed)
		e->p->prog[e->block].b = e->off;
	e->open = false;
}

static void open_block(struct emit *e, uint32_t align)
{
	close_block(e);
	e->block = emit_op(e, L_BLOCK, 0, align, 0);
	e->open = true;
	e->a0 = align;
	e->off = 0;
}

/* A node that fits the open block, at its next offset. */
static void emit_fixed(struct emit *e, uint32_t idx)
{
	const struct pnode *n = &e->p->nodes[idx];
	uint64_t off = round_up(e->off, n->align);

	if (n->skip || n->op == OP_FLOAT) {
		/* nothing to read */
	} else if (n->op == OP_INT) {
		uint8_t op = L_KBITS;

		if (e->a0 >= 8 && !(off & 7) && !n->be)
			op = n->size == 8    ? L_K8
			     : n->size == 16 ? L_K16
			     : n->size == 32 ? L_K32
			     : n->size == 64 ? L_K64
					     : L_KBITS;
		emit_op(e, op, idx, (uint32_t)off, 0);
	} else if (n->op == OP_STRUCT) {
		e->off = off;
		for (uint32_t k = 0; k < n->nkids; k++)
			emit_fixed(e, e->p->kids[n->kids + k]);
	} else { /* OP_TEXT of a fixed length */
		emit_op(e, L_KTEXT, idx, (uint32_t)off, n->length);
	}
	e->off = off + n->fixed;
}

static void emit_node(struct emit *e, uint32_t idx)
{
	struct ctf_plan *p = e->p;
	const struct pnode *n = &p->nodes[idx];

	if (e->failed)
		return;
	if (e->open && fits_block(p, n, e->a0)) {
		emit_fixed(e, idx);
		return;
	}
	close_block(e);
	if (fits_block(p, n, n->align)) {
		open_block(e, n->align);
		emit_fixed(e, idx);
		return;
	}
	switch ((enum op)n->op) {
	case OP_STRUCT:
		/*
		 * Aligned to the struct's alignment: its fields' offsets are known
		 * from there on. A string first aligns to a byte itself, and fails
		 * where the empty block would.
		 */
		if (!(n->nkids && n->align <= 8 && p->nodes[p->kids[n->kids]].op == OP_STRING))
			open_block(e, n->align);
		for (uint32_t k = 0; k < n->nkids && !e->failed; k++)
			emit_node(e, p->kids[n->kids + k]);
		close_block(e);
		return;
	case OP_STRING:
		emit_op(e, L_STRING, idx, 0, 0);
		return;
	case OP_VARIANT: {
		uint32_t first = p->nvpc;
		uint64_t chain = UINT64_MAX; /* the options' jumps to the end, linked through b */

		for (uint32_t k = 0; k < n->nkids; k++) {
			if (grow((void **)&p->vpc, &p->capvpc, p->nvpc, sizeof(*p->vpc)) < 0) {
				e->failed = true;
				return;
			}
			p->vpc[p->nvpc++] = 0;
		}
		emit_op(e, L_VARIANT, idx, first, 0);
		for (uint32_t k = 0; k < n->nkids && !e->failed; k++) {
			p->vpc[first + k] = p->nprog;
			emit_node(e, p->kids[n->kids + k]);
			close_block(e);
			chain = emit_op(e, L_JMP, 0, 0, chain);
		}
		while (!e->failed && chain != UINT64_MAX) {
			uint64_t next = p->prog[chain].b;

			p->prog[chain].b = p->nprog;
			chain = next;
		}
		return;
	}
	default:
		emit_op(e, L_NODE, idx, 0, 0);
		return;
	}
}

/* The plan's linear program; without it (out of memory, a variant too wide), the tree runs. */
static void flatten(struct ctf_plan *p)
{
	struct emit e = { .p = p };

	emit_node(&e, p->root);
	close_block(&e);
	/* An empty scope's block (no bits, no alignment) does nothing. */
	if (!e.failed && p->nprog == 1 && p->prog[0].op == L_BLOCK && p->prog[0].a == 1 &&
	    p->prog[0].b == 0)
		p->nprog = 0;
	emit_op(&e, L_END, 0, 0, 0);
	/* A jump to the end of the program is its end. */
	for (uint32_t i = 0; !e.failed && i < p->nprog; i++)
		if (p->prog[i].op == L_JMP && p->prog[p->prog[i].b].op == L_END)
			p->prog[i].op = L_END;
	if (e.failed) {
		free(p->prog);
		free(p->vpc);
		p->prog = NULL;
		p->vpc = NULL;
		p->nprog = p->capprog = p->nvpc = p->capvpc = 0;
	}
}

/* Is the step an integer read in a block, little-endian, of 1 to 64 bits? */
static bool hdr_int(const struct lop *l)
{
	return ((l->op >= L_K8 && l->op <= L_KBITS) || (l->op >= L_S8 && l->op <= L_S64)) &&
	       !l->i.be && l->i.size >= 1 && l->i.size <= 64;
}

/* A block at step i aligned to at least min_align bits. */
static bool hdr_block(const struct ctf_plan *p, uint32_t i, uint32_t min_align, struct hblock *b)
{
	if (i >= p->nprog || p->prog[i].op != L_BLOCK || p->prog[i].a < min_align)
		return false;
	b->align = p->prog[i].a;
	b->bits = p->prog[i].b;
	return true;
}

/* The extended form at step i: a block of a 32-bit id and a 64-bit time, in either order. */
static bool hdr_extended(const struct ctf_plan *p, uint32_t i, struct hdr *h)
{
	const struct lop *l = &p->prog[i];

	if (!hdr_block(p, i, 8, &h->be) || i + 3 >= p->nprog || l[3].op != L_END)
		return false;
	for (int k = 1; k <= 2; k++) {
		if (l[k].op == L_K32 && l[k].act == A_ROLE && l[k].i.role == CTF_ROLE_EVENT_ID)
			h->eid_off = l[k].a;
		else if (l[k].op == L_K64 && l[k].act == A_CLOCK64)
			h->ets_off = l[k].a;
		else
			return false;
	}
	return l[1].op != l[2].op;
}

/* The short form at step i: a block of a compressed time alone. */
static bool hdr_short(const struct ctf_plan *p, uint32_t i, struct hdr *h)
{
	const struct lop *l = &p->prog[i];

	if (!hdr_block(p, i, 1, &h->bc) || i + 2 >= p->nprog || l[2].op != L_END)
		return false;
	if (!hdr_int(&l[1]) || !l[1].i.clock || l[1].i.size >= 64 || l[1].i.role != CTF_ROLE_NONE ||
	    l[1].i.reg >= 0 || l[1].i.slots)
		return false;
	h->ts = l[1].i;
	h->ts_off = l[1].a;
	return true;
}

/* Can the tagged header be read by offsets from its first byte (struct hdr's fast)? */
static void hdr_fast(struct hdr *h)
{
	uint64_t cs = round_up(h->b0.bits, h->bc.align), es = round_up(h->b0.bits, 8);

	h->fast = 0;
	if (h->b0.align != 8 || h->bc.align > 8 || (h->bc.align & (h->bc.align - 1)) ||
	    h->be.align != 8 || h->tag.be || h->ts.be)
		return;
	if (cs + h->ts_off + h->ts.size > 64 || cs + h->bc.bits > 128 || es + h->be.bits > 128 ||
	    (es + h->eid_off) % 8 || (es + h->ets_off) % 8)
		return;
	h->fts_bit = (uint8_t)(cs + h->ts_off);
	h->fshort_bits = (uint8_t)(cs + h->bc.bits);
	h->feid_byte = (uint8_t)((es + h->eid_off) / 8);
	h->fets_byte = (uint8_t)((es + h->ets_off) / 8);
	h->fext_bits = (uint8_t)(es + h->be.bits);
	h->fast = 1;
}

/* H_TAGGED: steps 0-2 are the tag's block, the tag, the variant; its options the two forms. */
static bool hdr_tagged(const struct ctf_plan *p, struct hdr *h)
{
	const struct lop *l = p->prog;
	const struct pnode *v;
	uint64_t top;
	uint32_t kc = 0;

	if (p->nprog < 3 || !hdr_block(p, 0, 8, &h->b0) || !hdr_int(&l[1]) || l[1].a != 0 ||
	    l[2].op != L_VARIANT)
		return false;
	h->tag = l[1].i;
	if (h->tag.size > 16 || h->tag.role != CTF_ROLE_EVENT_ID || h->tag.reg < 0 ||
	    h->tag.slots || h->tag.clock || h->tag.sign || h->b0.bits < h->tag.size)
		return false;
	v = &p->nodes[l[2].node];
	if (v->lreg != h->tag.reg || v->nkids != 2 || v->nranges != 2 || v->sign)
		return false;
	/* The extended form for the tag's last value alone, the short one for all below it. */
	top = (UINT64_C(1) << h->tag.size) - 1;
	for (uint32_t k = 0; k < 2; k++) {
		const struct vrange *r = &p->ranges[v->ranges + k];

		if (r->lo == top && r->hi == top)
			continue;
		if (r->lo != 0 || r->hi != top - 1)
			return false;
		kc = r->kid;
	}
	if (p->ranges[v->ranges].kid == p->ranges[v->ranges + 1].kid ||
	    p->ranges[v->ranges].kid > 1 || p->ranges[v->ranges + 1].kid > 1)
		return false;
	h->ext = top;
	h->reg = h->tag.reg;
	if (!hdr_short(p, p->vpc[l[2].a + kc], h) || !hdr_extended(p, p->vpc[l[2].a + 1 - kc], h))
		return false;
	hdr_fast(h);
	return true;
}

/* H_PLAIN: a block of the id and a 64-bit time, in either order. */
static bool hdr_plain(const struct ctf_plan *p, struct hdr *h)
{
	const struct lop *l = p->prog;

	if (p->nprog != 4 || !hdr_block(p, 0, 8, &h->b0) || l[3].op != L_END)
		return false;
	for (int k = 1; k <= 2; k++) {
		if (l[k].op >= L_K8 && l[k].op <= L_K64 && l[k].act == A_ROLE &&
		    l[k].i.role == CTF_ROLE_EVENT_ID) {
			h->id_off = l[k].a;
			h->id_bytes = (uint8_t)(l[k].i.size / 8);
		} else if (l[k].op == L_K64 && l[k].act == A_CLOCK64) {
			h->ts_off = l[k].a;
		} else {
			return false;
		}
	}
	return l[1].act != l[2].act;
}

/* Is the program one of LTTng's event headers (struct hdr)? */
static void hdr_form(struct ctf_plan *p)
{
	struct hdr h;

	memset(&h, 0, sizeof(h));
	if (!p->prog)
		return;
	if (hdr_plain(p, &h))
		h.kind = H_PLAIN;
	else if (hdr_tagged(p, &h))
		h.kind = H_TAGGED;
	p->hdr = h;
}

int ctf_plan_compile(const struct ctf_meta *m, const struct ctf_type *scope,
		     enum ctf_scope_kind kind, const struct ctf_want *want, struct ctf_plan **out,
		     char *err, size_t errlen)
{
	static const struct ctf_type empty = { .kind = CTF_STRUCT, .align = 1, .clock = -1 };
	struct comp c = { .m = m, .kind = kind, .want = want, .err = err, .errlen = errlen };
	int r;

	*out = NULL;
	if (scope && scope->kind != CTF_STRUCT)
		return refuse(&c, "a scope that is not a structure", NULL);
	c.p = calloc(1, sizeof(*c.p));
	if (!c.p)
		return -ENOMEM;
	c.p->clock = -1;
	r = compile(&c, scope ? scope : &empty, NULL, true, &c.p->root);
	if (r < 0) {
		ctf_plan_free(c.p);
		return r;
	}
	finalize(c.p, c.p->root);
	flatten(c.p);
	if (kind == CTF_SCOPE_EVENT_HEADER)
		hdr_form(c.p);
	*out = c.p;
	return 0;
}

void ctf_plan_free(struct ctf_plan *p)
{
	if (!p)
		return;
	free(p->prog);
	free(p->vpc);
	free(p->nodes);
	free(p->kids);
	free(p->ranges);
	free(p);
}

bool ctf_plan_has_clock(const struct ctf_plan *p)
{
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i].clock)
			return true;
	return false;
}

uint32_t ctf_plan_sure_slots(const struct ctf_plan *p)
{
	uint32_t m = 0;

	/* The program's steps up to its first branch run at every run that ends well. */
	for (uint32_t i = 0; p && p->prog && i < p->nprog; i++) {
		switch (p->prog[i].op) {
		case L_K8:
		case L_K16:
		case L_K32:
		case L_K64:
		case L_KBITS:
		case L_S8:
		case L_S16:
		case L_S32:
		case L_S64:
		case L_KTEXT:
		case L_STRING:
			m |= p->prog[i].i.slots;
			break;
		case L_BLOCK:
		case L_NODE:
			break;
		default:
			return m;
		}
	}
	return m;
}

uint32_t ctf_plan_slots(const struct ctf_plan *p)
{
	uint32_t m = 0;

	for (uint32_t i = 0; p && i < p->nnodes; i++)
		m |= p->nodes[i].slots;
	return m;
}

int ctf_plan_clock(const struct ctf_plan *p)
{
	return p->clock;
}

/* ---- Running ---- */

static int bad(struct ctf_cursor *c, const char *why)
{
	c->why = why;
	return -EINVAL;
}

/* Align, and check that `bits` more fit in the content. */
static inline int reserve(struct ctf_cursor *c, uint32_t align, uint64_t bits, uint64_t *at)
{
	uint64_t a = round_up(c->at, align);

	if (a > c->end || c->end - a < bits)
		return bad(c, "a field past the end of the packet's content");
	*at = a;
	return 0;
}

static uint64_t bits_le(const uint8_t *b, uint64_t at, unsigned size)
{
	uint64_t v = 0;

	for (unsigned got = 0; got < size;) {
		unsigned off = (unsigned)(at & 7), take = 8 - off;

		if (take > size - got)
			take = size - got;
		v |= (uint64_t)((b[at >> 3] >> off) & ((1u << take) - 1)) << got;
		got += take;
		at += take;
	}
	return v;
}

static uint64_t bits_be(const uint8_t *b, uint64_t at, unsigned size)
{
	uint64_t v = 0;

	for (unsigned got = 0; got < size;) {
		unsigned off = (unsigned)(at & 7), take = 8 - off;

		if (take > size - got)
			take = size - got;
		v = (v << take) | ((b[at >> 3] >> (8 - off - take)) & ((1u << take) - 1));
		got += take;
		at += take;
	}
	return v;
}

static inline uint64_t load(const uint8_t *b, uint64_t at, unsigned size, bool be)
{
	if (!(at & 7) && !be) {
		const uint8_t *q = b + (at >> 3);

		switch (size) {
		case 8:
			return q[0];
		case 16: {
			uint16_t v;

			memcpy(&v, q, 2);
			return le16toh(v);
		}
		case 32: {
			uint32_t v;

			memcpy(&v, q, 4);
			return le32toh(v);
		}
		case 64: {
			uint64_t v;

			memcpy(&v, q, 8);
			return le64toh(v);
		}
		}
	}
	return be ? bits_be(b, at, size) : bits_le(b, at, size);
}

static inline void put(struct ctf_cursor *c, uint32_t slots, const struct jank_value *v)
{
	for (; slots; slots &= slots - 1)
		c->out[__builtin_ctz(slots)] = *v;
}

/*
 * An integer or a string, field by field: a value built on the stack and
 * copied whole would be read back before its stores are done (a stall at
 * every event).
 */
static inline void put_word(struct ctf_cursor *c, uint32_t slots, enum jank_value_type type,
			    uint64_t u)
{
	for (; slots; slots &= slots - 1) {
		struct jank_value *o = &c->out[__builtin_ctz(slots)];

		o->type = type;
		o->u = u;
	}
}

static inline void put_str(struct ctf_cursor *c, uint32_t slots, const char *s)
{
	for (; slots; slots &= slots - 1) {
		struct jank_value *o = &c->out[__builtin_ctz(slots)];

		o->type = JANK_VALUE_STR;
		o->s = s;
	}
}

static void set_clock(struct ctf_cursor *c, uint64_t v, unsigned size)
{
	uint64_t mask;

	if (size == 64) {
		c->clock = v;
		return;
	}
	/* A compressed timestamp: its low bits went backwards, so it wrapped once. */
	mask = (UINT64_C(1) << size) - 1;
	if (v < (c->clock & mask))
		c->clock += mask + 1;
	c->clock = (c->clock & ~mask) | v;
}

static inline void int_done(const struct lint *n, struct ctf_cursor *c, uint64_t v);

static int run_int(const struct pnode *n, struct ctf_cursor *c)
{
	uint64_t at, v;

	if (reserve(c, n->align, n->size, &at) < 0)
		return -EINVAL;
	v = load(c->buf, at, n->size, n->be);
	c->at = at + n->size;
	{
		struct lint li = { (uint8_t)n->size, n->role, n->clock, n->sign, n->be,
				   n->reg,	     n->slots };

		int_done(&li, c, v);
	}
	return 0;
}

/* What an integer read does: the clock, a register, a role, the slots. */
static inline void int_done(const struct lint *n, struct ctf_cursor *c, uint64_t v)
{
	if (n->clock)
		set_clock(c, v, n->size);
	if (n->reg >= 0)
		c->regs[n->reg] = v;
	if (n->role != CTF_ROLE_NONE) {
		c->roles[n->role] = v;
		c->roles_set |= 1u << n->role;
	}
	if (n->slots) {
		if (n->sign && n->size < 64 && (v >> (n->size - 1)) & 1)
			v |= ~UINT64_C(0) << n->size;
		put_word(c, n->slots, n->sign ? JANK_VALUE_INT : JANK_VALUE_UINT, v);
	}
}

/*
 * The length of the string at s, of at most `left` bytes, SIZE_MAX: no NUL
 * among them. Eight bytes at a time, inline, for the short strings events
 * carry (names, process names); a long one's rest by memchr().
 */
static inline size_t str_len(const uint8_t *s, size_t left)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
	size_t i = 0;
	const uint8_t *nul;

	for (; left - i >= 8; i += 8) {
		uint64_t w, z;

		if (i >= 64) {
			nul = memchr(s + i, 0, left - i);
			return nul ? (size_t)(nul - s) : SIZE_MAX;
		}
		memcpy(&w, s + i, 8);
		w = le64toh(w);
		/* The lowest byte set in z is the first zero byte (bytes above may be false). */
		z = (w - ones) & ~w & highs;
		if (z)
			return i + (size_t)(__builtin_ctzll(z) >> 3);
	}
	for (; i < left; i++)
		if (!s[i])
			return i;
	return SIZE_MAX;
}

/* The length of the string at s if its NUL is in its first 8 bytes (readable), else SIZE_MAX. */
static inline size_t first_word_len(const uint8_t *s)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
	uint64_t w, z;

	memcpy(&w, s, 8);
	w = le64toh(w);
	z = (w - ones) & ~w & highs;
	return z ? (size_t)(__builtin_ctzll(z) >> 3) : SIZE_MAX;
}

static int run_string(const struct pnode *n, struct ctf_cursor *c)
{
	uint64_t at;
	const uint8_t *s;
	size_t len;

	if (reserve(c, 8, 8, &at) < 0)
		return -EINVAL;
	s = c->buf + (at >> 3);
	len = str_len(s, (size_t)((c->end - at) >> 3));
	if (len == SIZE_MAX)
		return bad(c, "a string without its end in the packet");
	c->at = at + 8 * ((uint64_t)len + 1);
	if (n->slots)
		put_str(c, n->slots, (const char *)s);
	return 0;
}

/* The number of elements of an array or sequence, checked against what is left. */
static int elem_count(const struct pnode *n, const struct pnode *e, struct ctf_cursor *c,
		      uint64_t *len)
{
	*len = n->is_seq ? c->regs[n->lreg] : n->length;
	if (e->fixed != NO_FIXED && e->fixed &&
	    *len > (c->end - (c->at < c->end ? c->at : c->end)) / e->fixed + 1)
		return bad(c, "a sequence longer than the packet");
	return 0;
}

/* Skip `len` elements of fixed size. */
static int skip_elems(const struct pnode *e, uint64_t len, struct ctf_cursor *c)
{
	uint64_t at, bits;

	if (!len)
		return 0;
	bits = (len - 1) * round_up(e->fixed, e->align) + e->fixed;
	if (reserve(c, e->align, bits, &at) < 0)
		return -EINVAL;
	c->at = at + bits;
	return 0;
}

static int run_node(const struct ctf_plan *p, uint32_t idx, struct ctf_cursor *c);

/*
 * `len` characters at s read as a string (up to the first NUL): in place when
 * the NUL is among them (the packet outlives the event, as the scratch
 * buffer does), else copied into the scratch buffer with one.
 */
static int text_put(uint32_t slots, struct ctf_cursor *c, const uint8_t *s, size_t len)
{
	size_t n = str_len(s, len), used = n == SIZE_MAX ? len : n;
	char *d;

	if (n != SIZE_MAX) {
		put_str(c, slots, (const char *)s);
		return 0;
	}
	if (c->scratch_cap - c->scratch_used < used + 1)
		return bad(c, "text arrays larger than the packet");
	d = c->scratch + c->scratch_used;
	memcpy(d, s, used);
	d[used] = '\0';
	c->scratch_used += used + 1;
	put_str(c, slots, d);
	return 0;
}

/* Characters read as a string (up to the first NUL), copied into the scratch buffer. */
static int run_text(const struct ctf_plan *p, const struct pnode *n, struct ctf_cursor *c)
{
	const struct pnode *e = &p->nodes[n->elem];
	uint64_t len, at;

	if (elem_count(n, e, c, &len) < 0 || reserve(c, 8, len * 8, &at) < 0)
		return -EINVAL;
	c->at = at + len * 8;
	return text_put(n->slots, c, c->buf + (at >> 3), (size_t)len);
}

/* Unsigned integers into the slot's buffer (the first CTF_ARRAY_MAX of them). */
static int run_uints(const struct ctf_plan *p, const struct pnode *n, struct ctf_cursor *c)
{
	const struct pnode *e = &p->nodes[n->elem];
	uint64_t *buf = n->buf < CTF_ARRAY_BUFS ? c->arrays[n->buf] : NULL;
	uint64_t len, kept = 0;

	if (elem_count(n, e, c, &len) < 0)
		return -EINVAL;
	for (; buf && kept < len && kept < CTF_ARRAY_MAX; kept++) {
		uint64_t at;

		if (reserve(c, e->align, e->size, &at) < 0)
			return -EINVAL;
		buf[kept] = load(c->buf, at, e->size, e->be);
		c->at = at + e->size;
	}
	if (skip_elems(e, len - kept, c) < 0)
		return -EINVAL;
	{
		struct jank_value out = { .type = buf ? JANK_VALUE_ARRAY : JANK_VALUE_NONE };

		out.a.v = buf;
		out.a.n = (uint32_t)kept;
		put(c, n->slots, &out);
	}
	return 0;
}

static int run_elems(const struct ctf_plan *p, const struct pnode *n, struct ctf_cursor *c)
{
	const struct pnode *e = &p->nodes[n->elem];
	uint64_t len;

	if (elem_count(n, e, c, &len) < 0)
		return -EINVAL;
	if (e->skip)
		return skip_elems(e, len, c);
	if (len > c->steps)
		return bad(c, "too many elements");
	for (uint64_t i = 0; i < len; i++)
		if (run_node(p, n->elem, c) < 0)
			return -EINVAL;
	return 0;
}

static int64_t variant_option(const struct ctf_plan *p, const struct pnode *n,
			      const struct ctf_cursor *c);

static int run_variant(const struct ctf_plan *p, const struct pnode *n, struct ctf_cursor *c)
{
	int64_t k = variant_option(p, n, c);

	if (k < 0)
		return bad(c, "a variant's tag selects none of its options");
	return run_node(p, p->kids[n->kids + k], c);
}

static int run_node(const struct ctf_plan *p, uint32_t idx, struct ctf_cursor *c)
{
	const struct pnode *n = &p->nodes[idx];
	uint64_t at;

	if (!c->steps--)
		return bad(c, "too many fields");
	if (n->skip) {
		if (reserve(c, n->align, n->fixed, &at) < 0)
			return -EINVAL;
		c->at = at + n->fixed;
		return 0;
	}
	switch ((enum op)n->op) {
	case OP_INT:
		return run_int(n, c);
	case OP_FLOAT:
		if (reserve(c, n->align, n->size, &at) < 0)
			return -EINVAL;
		c->at = at + n->size;
		return 0;
	case OP_STRING:
		return run_string(n, c);
	case OP_TEXT:
		return run_text(p, n, c);
	case OP_UINTS:
		return run_uints(p, n, c);
	case OP_ARRAY:
	case OP_SEQ:
		return run_elems(p, n, c);
	case OP_STRUCT:
		if (reserve(c, n->align, 0, &at) < 0)
			return -EINVAL;
		c->at = at;
		for (uint32_t k = 0; k < n->nkids; k++)
			if (run_node(p, p->kids[n->kids + k], c) < 0)
				return -EINVAL;
		return 0;
	case OP_VARIANT:
		return run_variant(p, n, c);
	}
	return bad(c, "an unknown step");
}

static inline uint64_t load_le_bytes(const uint8_t *q, unsigned bytes)
{
	uint64_t v = 0;

	memcpy(&v, q, bytes);
	return le64toh(v);
}

/* The variant's option for the tag in its register: the index of its code in vpc, or -1. */
static int64_t variant_option(const struct ctf_plan *p, const struct pnode *n,
			      const struct ctf_cursor *c)
{
	uint64_t tag = c->regs[n->lreg];

	for (uint32_t k = 0; k < n->nranges; k++) {
		const struct vrange *r = &p->ranges[n->ranges + k];
		bool in = n->sign ? (int64_t)tag >= (int64_t)r->lo && (int64_t)tag <= (int64_t)r->hi
				  : tag >= r->lo && tag <= r->hi;

		if (in)
			return r->kid;
	}
	return -1;
}

/*
 * An integer of any size and bit offset: little-endian ones by one 64-bit
 * load when its bits are within it and the 8 bytes are within the content.
 */
__attribute__((always_inline)) static inline uint64_t load_bits(const struct ctf_cursor *c,
								uint64_t at, const struct lint *i)
{
	unsigned shift = (unsigned)(at & 7);

	if (!i->be && shift + i->size <= 64 && (at >> 3) + 8 <= c->end >> 3) {
		uint64_t v = load_le_bytes(c->buf + (at >> 3), 8) >> shift;

		return i->size == 64 ? v : v & ((UINT64_C(1) << i->size) - 1);
	}
	return load(c->buf, at, i->size, i->be);
}

/* An integer's value for its one slot (A_SLOT), sign-extended. */
__attribute__((always_inline)) static inline void slot_step(const struct lop *pc,
							    struct ctf_cursor *c, uint64_t v)
{
	struct jank_value *o = &c->out[pc->slot];

	o->type = pc->vtype;
	o->u = (uint64_t)((int64_t)(v << pc->sh) >> pc->sh);
}

/* The same for 64 bits: no sign to extend (sh is 0). */
__attribute__((always_inline)) static inline void slot_step64(const struct lop *pc,
							      struct ctf_cursor *c, uint64_t v)
{
	struct jank_value *o = &c->out[pc->slot];

	o->type = pc->vtype;
	o->u = v;
}

/* An integer step's value: where its action (enum lact) says. */
__attribute__((always_inline)) static inline void int_step(const struct lop *pc,
							   struct ctf_cursor *c, uint64_t v)
{
	switch (pc->act) {
	case A_SLOT: {
		struct jank_value *o = &c->out[pc->slot];

		o->type = pc->vtype;
		o->u = (uint64_t)((int64_t)(v << pc->sh) >> pc->sh);
		return;
	}
	case A_ROLE:
		c->roles[pc->i.role] = v;
		c->roles_set |= 1u << pc->i.role;
		return;
	case A_CLOCK64:
		c->clock = v;
		return;
	default:
		int_done(&pc->i, c, v);
		return;
	}
}

/* A string step: run_string()'s, its scan inline; any failure is run_string()'s. */
__attribute__((always_inline)) static inline int
prog_string(const struct ctf_plan *p, const struct lop *pc, struct ctf_cursor *c)
{
	uint64_t at = round_up(c->at, 8);
	const uint8_t *s;
	size_t len;

	if (at >= c->end || c->end - at < 64)
		return run_string(&p->nodes[pc->node], c);
	s = c->buf + (at >> 3);
	/* Most strings of events end in their first eight bytes: those without str_len()'s loop. */
	len = first_word_len(s);
	if (len == SIZE_MAX)
		len = str_len(s, (size_t)((c->end - at) >> 3));
	if (len == SIZE_MAX)
		return run_string(&p->nodes[pc->node], c);
	c->at = at + 8 * ((uint64_t)len + 1);
	if (pc->act == A_SLOT) {
		struct jank_value *o = &c->out[pc->slot];

		o->type = JANK_VALUE_STR;
		o->s = (const char *)s;
	} else if (pc->i.slots) {
		put_str(c, pc->i.slots, (const char *)s);
	}
	return 0;
}

/*
 * Threaded dispatch: each step jumps to the next one's code from its own
 * end, so that the branch predictor learns each step's successor (one
 * shared switch mispredicts at nearly every step).
 */
#define NEXT()                                                                                     \
	do {                                                                                       \
		pc++;                                                                              \
		goto *labels[pc->op];                                                              \
	} while (0)
#define GOTO(to)                                                                                   \
	do {                                                                                       \
		pc = (to);                                                                         \
		goto *labels[pc->op];                                                              \
	} while (0)
#define AT_BYTE() (c->buf + ((base + pc->a) >> 3))

/*
 * Run the programs of plans[0], plans[1], ... up to a NULL, as one program:
 * one call for an event's contexts and payload. Registers are each plan's
 * own (a plan writes one before it reads it).
 */
__attribute__((noinline)) static int run_prog(const struct ctf_plan *const *plans,
					      struct ctf_cursor *c)
{
	static const void *const labels[] = {
		[L_END] = &&l_end,	   [L_BLOCK] = &&l_block, [L_K8] = &&l_k8,
		[L_K16] = &&l_k16,	   [L_K32] = &&l_k32,	  [L_K64] = &&l_k64,
		[L_KBITS] = &&l_kbits,	   [L_KTEXT] = &&l_ktext, [L_STRING] = &&l_string,
		[L_VARIANT] = &&l_variant, [L_JMP] = &&l_jmp,	  [L_NODE] = &&l_node,
		[L_S8] = &&l_s8,	   [L_S16] = &&l_s16,	  [L_S32] = &&l_s32,
		[L_S64] = &&l_s64,
	};
	const struct ctf_plan *p = *plans;
	const struct lop *pc;
	uint64_t base = 0;
	int64_t k;

	GOTO(p->prog);
l_end:
	p = *++plans;
	if (!p)
		return 0;
	GOTO(p->prog);
l_block:
	if (reserve(c, pc->a, pc->b, &base) < 0)
		return -EINVAL;
	c->at = base + pc->b;
	NEXT();
l_k8:
	int_step(pc, c, *AT_BYTE());
	NEXT();
l_k16:
	int_step(pc, c, load_le_bytes(AT_BYTE(), 2));
	NEXT();
l_k32:
	int_step(pc, c, load_le_bytes(AT_BYTE(), 4));
	NEXT();
l_k64:
	int_step(pc, c, load_le_bytes(AT_BYTE(), 8));
	NEXT();
l_kbits:
	int_step(pc, c, load_bits(c, base + pc->a, &pc->i));
	NEXT();
l_s8:
	slot_step(pc, c, *AT_BYTE());
	NEXT();
l_s16:
	slot_step(pc, c, load_le_bytes(AT_BYTE(), 2));
	NEXT();
l_s32:
	slot_step(pc, c, load_le_bytes(AT_BYTE(), 4));
	NEXT();
l_s64:
	slot_step64(pc, c, load_le_bytes(AT_BYTE(), 8));
	NEXT();
l_ktext:
	/* In place when its NUL is in it (text_put()'s first case), for one slot inline. */
	if (pc->act == A_SLOT && str_len(AT_BYTE(), (size_t)pc->b) != SIZE_MAX) {
		struct jank_value *o = &c->out[pc->slot];

		o->type = JANK_VALUE_STR;
		o->s = (const char *)AT_BYTE();
	} else if (text_put(pc->i.slots, c, AT_BYTE(), (size_t)pc->b) < 0) {
		return -EINVAL;
	}
	NEXT();
l_string:
	if (prog_string(p, pc, c) < 0)
		return -EINVAL;
	NEXT();
l_variant:
	k = variant_option(p, &p->nodes[pc->node], c);
	if (k < 0)
		return bad(c, "a variant's tag selects none of its options");
	GOTO(&p->prog[p->vpc[pc->a + k]]);
l_jmp:
	GOTO(&p->prog[pc->b]);
l_node:
	if (run_node(p, pc->node, c) < 0)
		return -EINVAL;
	NEXT();
}

#undef NEXT
#undef GOTO
#undef AT_BYTE

/* One plan, by its program or its tree. */
__attribute__((noinline)) static int run_one(const struct ctf_plan *p, struct ctf_cursor *c)
{
	const struct ctf_plan *run[2] = { p, NULL };

	if (!p->prog)
		return run_node(p, p->root, c);
	return run_prog(run, c);
}

/* Round at up to the block's alignment: 0 when the block fits the content, else -1. */
static inline int hdr_reserve(const struct ctf_cursor *c, const struct hblock *b, uint64_t *at)
{
	uint64_t a = round_up(*at, b->align);

	if (a > c->end || c->end - a < b->bits)
		return -1;
	*at = a;
	return 0;
}

/* H_PLAIN, as its program reads it; what does not fit runs the program for its error. */
static inline int run_plain(const struct ctf_plan *p, struct ctf_cursor *c)
{
	const struct hdr *h = &p->hdr;
	uint64_t at = c->at;
	const uint8_t *q, *qi;

	if (hdr_reserve(c, &h->b0, &at) < 0)
		return run_one(p, c);
	q = c->buf + (at >> 3);
	qi = q + (h->id_off >> 3);
	c->roles[CTF_ROLE_EVENT_ID] = h->id_bytes == 8	 ? load_le_bytes(qi, 8)
				      : h->id_bytes == 4 ? load_le_bytes(qi, 4)
				      : h->id_bytes == 2 ? load_le_bytes(qi, 2)
							 : qi[0];
	c->roles_set |= 1u << CTF_ROLE_EVENT_ID;
	c->clock = load_le_bytes(q + (h->ts_off >> 3), 8);
	c->at = at + h->b0.bits;
	return 0;
}

/*
 * H_TAGGED, as its program reads it. What does not fit runs the program
 * (from the start: nothing was moved) for its error.
 */
__attribute__((noinline)) static int run_tagged(const struct ctf_plan *p, struct ctf_cursor *c)
{
	const struct hdr *h = &p->hdr;
	uint64_t at = c->at, tag, id;
	const uint8_t *q;

	if (hdr_reserve(c, &h->b0, &at) < 0)
		return run_one(p, c);
	tag = load_bits(c, at, &h->tag);
	at += h->b0.bits;
	if (tag != h->ext) {
		if (hdr_reserve(c, &h->bc, &at) < 0)
			return run_one(p, c);
		set_clock(c, load_bits(c, at + h->ts_off, &h->ts), h->ts.size);
		c->at = at + h->bc.bits;
		id = tag;
	} else {
		if (hdr_reserve(c, &h->be, &at) < 0)
			return run_one(p, c);
		q = c->buf + (at >> 3);
		id = load_le_bytes(q + (h->eid_off >> 3), 4);
		c->clock = load_le_bytes(q + (h->ets_off >> 3), 8);
		c->at = at + h->be.bits;
	}
	c->regs[h->reg] = tag;
	c->roles[CTF_ROLE_EVENT_ID] = id;
	c->roles_set |= 1u << CTF_ROLE_EVENT_ID;
	return 0;
}

/*
 * H_TAGGED with its fast offsets, when 16 bytes of content are left from
 * the tag's byte: what run_tagged() does, the bounds checked once. 0, or
 * -1 (nothing done) when it does not apply.
 */
static inline int run_tagged_fast(const struct ctf_plan *p, struct ctf_cursor *c)
{
	const struct hdr *h = &p->hdr;
	uint64_t at = round_up(c->at, 8), w, tag, id;
	const uint8_t *q;

	if (at > c->end || c->end - at < 128)
		return -1;
	q = c->buf + (at >> 3);
	w = load_le_bytes(q, 8);
	tag = w & ((UINT64_C(1) << h->tag.size) - 1);
	if (tag != h->ext) {
		set_clock(c, (w >> h->fts_bit) & ((UINT64_C(1) << h->ts.size) - 1), h->ts.size);
		c->at = at + h->fshort_bits;
		id = tag;
	} else {
		id = load_le_bytes(q + h->feid_byte, 4);
		c->clock = load_le_bytes(q + h->fets_byte, 8);
		c->at = at + h->fext_bits;
	}
	c->regs[h->reg] = tag;
	c->roles[CTF_ROLE_EVENT_ID] = id;
	c->roles_set |= 1u << CTF_ROLE_EVENT_ID;
	return 0;
}

int ctf_plan_run(const struct ctf_plan *p, struct ctf_cursor *c)
{
	if (p->hdr.kind == H_PLAIN)
		return run_plain(p, c);
	if (p->hdr.kind == H_TAGGED)
		return p->hdr.fast && run_tagged_fast(p, c) == 0 ? 0 : run_tagged(p, c);
	return run_one(p, c);
}

int ctf_plan_run_seq(const struct ctf_plan *const *plans, unsigned n, struct ctf_cursor *c)
{
	const struct ctf_plan *run[CTF_PLAN_SEQ_MAX + 1];
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!plans[i])
			continue;
		if (plans[i]->prog && k < CTF_PLAN_SEQ_MAX) {
			run[k++] = plans[i];
			continue;
		}
		/* One without a program: the ones before it, then it. */
		run[k] = NULL;
		if ((k && run_prog(run, c) < 0) || ctf_plan_run(plans[i], c) < 0)
			return -EINVAL;
		k = 0;
	}
	run[k] = NULL;
	return k ? run_prog(run, c) : 0;
}

int ctf_plan_run_seq0(const struct ctf_plan *const *plans, struct ctf_cursor *c)
{
	return run_prog(plans, c);
}

bool ctf_plan_has_prog(const struct ctf_plan *p)
{
	return p->prog;
}

bool ctf_plan_is_empty(const struct ctf_plan *p)
{
	return p->prog && p->prog[0].op == L_END;
}

bool ctf_plan_skip_only(const struct ctf_plan *p, uint32_t *align, uint64_t *bits)
{
	if (!p->prog || p->nprog != 2 || p->prog[0].op != L_BLOCK || p->prog[1].op != L_END)
		return false;
	*align = p->prog[0].a;
	*bits = p->prog[0].b;
	return true;
}

int ctf_plan_run_tree(const struct ctf_plan *p, struct ctf_cursor *c)
{
	return run_node(p, p->root, c);
}
