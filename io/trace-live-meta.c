/* SPDX-License-Identifier: MIT */
/*
 * The metadata streams of jank's lttng-live client (trace-live-int.h):
 * GET_METADATA until relayd has no more, the TSDL text unpacked and parsed
 * whole each time it grows, the event and stream classes it adds declared
 * and compiled (the earlier ones keep their plans and the metadata they
 * point into); what does not parse within META_GRACE_NS of relayd having
 * no more, or what the plan compiler refuses, sends the session to
 * babeltrace2 (jank_reader_refused()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "errbuf.h"
#include "trace-live-int.h"
#include "trace-native-int.h"
#include "trace-native.h"

/* ---- Metadata ---- */

static int refuse(struct jank_reader *in, struct ltrace *lt, const char *why)
{
	in->refused = true;
	jank_errf(in->err, sizeof(in->err), "%s: %s", lt->name, why);
	return -ENOTSUP;
}

/* The bytes of whole metadata packets (a packet may come in two replies). */
static size_t meta_whole(const uint8_t *b, size_t n)
{
	size_t at = 0;
	bool le = n >= 4 && b[0] == 0x57 && b[1] == 0x1d && b[2] == 0xd1 && b[3] == 0x75;
	bool be = n >= 4 && b[0] == 0x75 && b[1] == 0x1d && b[2] == 0xd1 && b[3] == 0x57;

	if (!le && !be)
		return n; /* plain text */
	while (n - at >= 37) {
		const uint8_t *q = b + at + 28;
		uint32_t psize = le ? (uint32_t)q[3] << 24 | (uint32_t)q[2] << 16 |
						 (uint32_t)q[1] << 8 | q[0]
				    : (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
						 (uint32_t)q[2] << 8 | q[3];

		if (psize / 8 < 37 || psize / 8 > n - at)
			break; /* incomplete (or bad: ctf_meta_unpack says so) */
		at += psize / 8;
	}
	return at ? at : n;
}

/* Point the streams of lt at their stream class and class again (arrays moved). */
struct anchor {
	size_t sc;
	ptrdiff_t cls; /* -1: none */
};

static int grow_classes(struct nsc *sc, uint64_t id)
{
	size_t n = id + 1;
	struct nclass *v;

	if (id < sc->nclasses)
		return 0;
	v = realloc(sc->classes, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(v + sc->nclasses, 0, (n - sc->nclasses) * sizeof(*v));
	sc->classes = v;
	sc->nclasses = n;
	return 0;
}

/* What the new metadata m adds to lt's: new stream classes and event classes. */
static int meta_grow(struct jank_reader *in, struct live_reader *lr, struct ltrace *lt,
		     struct ctf_meta *m)
{
	struct ntrace *tr = &lt->tr;
	struct anchor *an = calloc(lr->nstreams + 1, sizeof(*an));
	struct ctf_meta **old = realloc(lt->old, (lt->nold + 1) * sizeof(*old));
	char why[INPUT_ERR_LEN];
	int r = 0;

	if (old)
		lt->old = old;
	if (!an || !old) {
		free(an);
		ctf_meta_free(m);
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return -ENOMEM;
	}
	if (m->nclocks != 1 || m->clocks[0].freq != tr->meta->clocks[0].freq) {
		ctf_meta_free(m);
		free(an);
		return refuse(in, lt, "the new metadata changes the clocks");
	}
	for (size_t i = 0; i < lr->nstreams; i++) {
		struct lstream *ls = lr->streams[i];

		an[i].sc = ls->ns.sc ? (size_t)(ls->ns.sc - tr->scs) : SIZE_MAX;
		an[i].cls = ls->ns.sc && ls->ns.cls ? ls->ns.cls - ls->ns.sc->classes : -1;
	}
	lt->old[lt->nold++] = tr->meta;
	tr->meta = m;
	for (size_t k = 0; r == 0 && k < m->nstreams; k++) {
		const struct ctf_stream_decl *d = &m->streams[k];
		size_t j;
		struct nsc *v;

		for (j = 0; j < tr->nscs && tr->scs[j].decl->id != d->id; j++)
			;
		if (j < tr->nscs)
			continue;
		v = realloc(tr->scs, (tr->nscs + 1) * sizeof(*v));
		if (!v) {
			r = -ENOMEM;
			break;
		}
		tr->scs = v;
		memset(&tr->scs[tr->nscs], 0, sizeof(*v));
		r = native_open_sc(tr, &tr->scs[tr->nscs++], d, why, sizeof(why));
	}
	for (size_t i = 0; r == 0 && i < m->nevents; i++) {
		const struct ctf_event_decl *e = &m->events[i];
		struct nsc *sc = NULL;

		for (size_t j = 0; j < tr->nscs; j++)
			if (tr->scs[j].decl->id == e->stream_id)
				sc = &tr->scs[j];
		if (!sc || (e->id < sc->nclasses && sc->classes[e->id].declared))
			continue;
		if (e->id >= (1u << 16)) {
			snprintf(why, sizeof(why), "event id %llu: too large",
				 (unsigned long long)e->id);
			r = -ENOTSUP;
			break;
		}
		r = grow_classes(sc, e->id);
		if (r < 0)
			break;
		sc->classes[e->id].declared = true;
		sc->classes[e->id].decl = e;
		sc->ndeclared++;
		sc->only_id = e->id;
		r = native_probe_class(m, sc, e, why, sizeof(why));
	}
	for (size_t i = 0; i < lr->nstreams; i++) {
		struct lstream *ls = lr->streams[i];

		if (ls->lt != lt || an[i].sc == SIZE_MAX)
			continue;
		ls->ns.sc = &tr->scs[an[i].sc];
		ls->ns.cls = an[i].cls >= 0 ? &ls->ns.sc->classes[an[i].cls] : NULL;
	}
	free(an);
	if (r == -ENOMEM) {
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return r;
	}
	return r < 0 ? refuse(in, lt, why) : 0;
}

/* Parse lt's metadata again (it grew): 0, or -errno (refused: in->refused). */
static int meta_load(struct jank_reader *in, struct live_reader *lr, struct ltrace *lt)
{
	char why[INPUT_ERR_LEN], *text = NULL;
	size_t whole = meta_whole(lt->raw, lt->nraw), n;
	struct ctf_meta *m = NULL;
	int r;

	if (whole <= lt->parsed)
		return 0;
	r = ctf_meta_unpack(lt->raw, whole, &text, &n, why, sizeof(why));
	if (r == -ENOMEM) {
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return r;
	}
	if (r < 0)
		return refuse(in, lt, why);
	if (!lt->loaded) {
		r = native_trace_load(&lt->tr, text, n, why, sizeof(why));
		if (r < 0)
			native_trace_fini(&lt->tr);
	} else {
		m = ctf_meta_parse(text, n, why, sizeof(why));
		r = m ? 0 : -EINVAL;
	}
	free(text);
	if (r == -ENOMEM) {
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return r;
	}
	if (r < 0) {
		/* Perhaps cut in the middle of a declaration: wait for the rest, a while. */
		if (!lt->bad_since)
			lt->bad_since = mono_ns();
		else if (mono_ns() - lt->bad_since > META_GRACE_NS)
			return refuse(in, lt, why);
		return 0;
	}
	lt->bad_since = 0;
	lt->parsed = whole;
	if (!lt->loaded) {
		lt->loaded = true;
		native_trace_announce(in, &lt->tr);
		return 0;
	}
	return meta_grow(in, lr, lt, m);
}

/* GET_METADATA until relayd has no more, then parse what came. */
int live_meta_fetch(struct jank_reader *in, struct live_reader *lr, struct ltrace *lt)
{
	uint8_t p[8], rep[12];
	int r;

	if (!lt->has_meta_stream)
		return 0;
	lt->need_meta = false;
	for (int i = 0; i < META_ROUNDS; i++) {
		uint64_t len;
		uint32_t status;

		put64(p, lt->meta_stream);
		if ((r = live_request(in, lr, CMD_GET_METADATA, p, 8)) < 0 ||
		    (r = live_recv_all(in, lr, rep, 12)) < 0)
			return r;
		len = get64(rep);
		status = get32(rep + 8);
		if (status == METADATA_NO_NEW || status == METADATA_HUP)
			break;
		if (status == METADATA_ERR) {
			jank_errf(in->err, sizeof(in->err),
				  "%s: cannot read the trace: relayd: cannot read the metadata",
				  lt->name);
			return -EPROTO;
		}
		if (status != METADATA_OK)
			return live_malformed(in, "metadata of status %llu", status);
		if (len == 0 || len > CTF_META_MAX_BYTES - lt->nraw)
			return live_malformed(in, "metadata of %llu bytes", len);
		if (lt->nraw + len > lt->cap) {
			size_t cap = (lt->nraw + len) * 2;
			uint8_t *v = realloc(lt->raw, cap);

			if (!v) {
				jank_errf(in->err, sizeof(in->err), "out of memory");
				return -ENOMEM;
			}
			lt->raw = v;
			lt->cap = cap;
		}
		if ((r = live_recv_bulk(in, lr, lt->raw + lt->nraw, len)) < 0)
			return r;
		lt->nraw += len;
	}
	return meta_load(in, lr, lt);
}
