/* SPDX-License-Identifier: MIT */
/*
 * The native decoder's opening and closing (trace-native.c): each trace
 * directory's metadata parsed and its stream classes compiled, its stream
 * files listed, mapped and numbered as babeltrace2 numbers them; and the
 * choice between the native decoder and babeltrace2.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace-native-int.h"

/* ---- Opening ---- */

static enum jank_domain meta_domain(const struct ctf_meta *m)
{
	const struct ctf_env *d = ctf_meta_env(m, "domain");
	const struct ctf_env *t = ctf_meta_env(m, "tracer_name");

	if (d && d->s)
		return strcmp(d->s, "ust") == 0 ? JANK_DOMAIN_UST : JANK_DOMAIN_KERNEL;
	if (t && t->s && strcmp(t->s, "lttng-ust") == 0)
		return JANK_DOMAIN_UST;
	return JANK_DOMAIN_KERNEL;
}

static long meta_long(const struct ctf_meta *m, const char *key)
{
	const struct ctf_env *e = ctf_meta_env(m, key);

	if (!e)
		return -1;
	return e->is_int ? (long)e->i : strtol(e->s, NULL, 10);
}

/* The context's thread and process fields: vtid before tid when it is readable. */
static void context_name(const struct ctf_type *common, const char *virt, const char *name,
			 char *out, size_t len)
{
	const struct ctf_type *t = virt ? ctf_scope_member(common, virt) : NULL;

	out[0] = '\0';
	if (t && ctf_value_type(t) != JANK_VALUE_NONE)
		snprintf(out, len, "%s", virt);
	else if (ctf_scope_member(common, name))
		snprintf(out, len, "%s", name);
}

/* Every event class of the stream class compiles (asking nothing): the trace is ours. */
static int probe_class(const struct ctf_meta *m, const struct nsc *sc,
		       const struct ctf_event_decl *e, char *why, size_t len)
{
	const struct ctf_type *scopes[] = { sc->decl->event_context, e->context, e->fields };

	for (size_t i = 0; i < 3; i++) {
		struct ctf_plan *p;
		int r = ctf_plan_compile(m, scopes[i], CTF_SCOPE_OTHER, NULL, &p, why, len);

		if (r < 0)
			return r;
		ctf_plan_free(p);
	}
	return 0;
}

static int open_sc(struct ntrace *tr, struct nsc *sc, const struct ctf_stream_decl *d, char *why,
		   size_t len)
{
	const struct ctf_meta *m = tr->meta;
	struct ctf_want want;
	int r;

	memset(&want, 0, sizeof(want));
	memset(want.buf, CTF_SLOT_NONE, sizeof(want.buf));
	want.names[CTF_SLOT_CPU] = "cpu_id";
	if (d->packet_context && ctf_scope_member(d->packet_context, "cpu_id") &&
	    ctf_value_type(ctf_scope_member(d->packet_context, "cpu_id")) == JANK_VALUE_STR)
		want.names[CTF_SLOT_CPU] = NULL;
	sc->decl = d;
	r = ctf_plan_compile(m, d->packet_context, CTF_SCOPE_PACKET_CONTEXT, &want, &sc->pctx, why,
			     len);
	if (r < 0)
		return r;
	r = ctf_plan_compile(m, d->event_header, CTF_SCOPE_EVENT_HEADER, NULL, &sc->ehdr, why, len);
	if (r < 0)
		return r;
	context_name(d->event_context, "vtid", "tid", sc->tid, sizeof(sc->tid));
	context_name(d->event_context, "vpid", "pid", sc->pid, sizeof(sc->pid));
	{
		const struct ctf_type *comm = ctf_scope_member(d->event_context, "procname");

		const struct ctf_type *ns = ctf_scope_member(d->event_context, "pid_ns");

		sc->has_comm = comm && ctf_value_type(comm) == JANK_VALUE_STR;
		sc->has_pid_ns = ns && (ctf_value_type(ns) == JANK_VALUE_INT ||
					ctf_value_type(ns) == JANK_VALUE_UINT);
	}
	for (size_t i = 0; i < m->nevents; i++) {
		const struct ctf_event_decl *e = &m->events[i];

		if (e->stream_id != d->id)
			continue;
		if (e->id >= MAX_CLASS_ID) {
			jank_errf(why, len, "event id %llu: too large", (unsigned long long)e->id);
			return -ENOTSUP;
		}
		if (e->id >= sc->nclasses) {
			size_t n = e->id + 1;
			struct nclass *v = realloc(sc->classes, n * sizeof(*v));

			if (!v)
				return -ENOMEM;
			memset(v + sc->nclasses, 0, (n - sc->nclasses) * sizeof(*v));
			sc->classes = v;
			sc->nclasses = n;
		}
		if (sc->classes[e->id].declared) {
			jank_errf(why, len, "two event classes of id %llu",
				  (unsigned long long)e->id);
			return -EINVAL;
		}
		sc->classes[e->id].declared = true;
		sc->classes[e->id].decl = e;
		sc->ndeclared++;
		sc->only_id = e->id;
		r = probe_class(m, sc, e, why, len);
		if (r < 0)
			return r;
	}
	return 0;
}

static int clock_base(struct ntrace *tr, char *why, size_t len)
{
	const struct ctf_clock *c;
	int64_t ns;

	if (tr->meta->nclocks != 1) {
		jank_errf(why, len, "%zu clocks (one is read natively)", tr->meta->nclocks);
		return -ENOTSUP;
	}
	c = &tr->meta->clocks[0];
	if (c->freq != UINT64_C(1000000000) ||
	    __builtin_mul_overflow(c->offset_s, 1000000000, &ns) ||
	    __builtin_add_overflow(ns, c->offset, &ns)) {
		jank_errf(why, len, "a clock other than 1 GHz, or an offset past 64-bit ns");
		return -ENOTSUP;
	}
	tr->clock_base = ns;
	return 0;
}

static int open_trace(struct ntrace *tr, const char *dir, char *why, size_t len)
{
	char path[PATH_MAX], *text = NULL;
	size_t n;
	int r;

	tr->dir = strdup(dir);
	if (!tr->dir || snprintf(path, sizeof(path), "%s/metadata", dir) >= (int)sizeof(path))
		return -ENOMEM;
	r = ctf_meta_read_file(path, &text, &n, why, len);
	if (r < 0)
		return r;
	r = native_trace_load(tr, text, n, why, len);
	free(text);
	return r;
}

int native_trace_load(struct ntrace *tr, const char *text, size_t n, char *why, size_t len)
{
	int r;

	tr->meta = ctf_meta_parse(text, n, why, len);
	if (!tr->meta)
		return -EINVAL;
	tr->domain = meta_domain(tr->meta);
	r = clock_base(tr, why, len);
	if (r < 0)
		return r;
	r = ctf_plan_compile(tr->meta, tr->meta->packet_header, CTF_SCOPE_PACKET_HEADER, NULL,
			     &tr->phdr, why, len);
	if (r < 0)
		return r;
	tr->scs = calloc(tr->meta->nstreams ? tr->meta->nstreams : 1, sizeof(*tr->scs));
	if (!tr->scs)
		return -ENOMEM;
	for (size_t i = 0; i < tr->meta->nstreams; i++) {
		r = open_sc(tr, &tr->scs[tr->nscs++], &tr->meta->streams[i], why, len);
		if (r < 0)
			return r;
	}
	return 0;
}

static int cmp_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stream files of a trace directory, sorted by path (babeltrace2's port order). */
static int list_streams(const char *dir, char ***out, size_t *nout)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;
		char **nv;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (nv)
			v = nv;
		if (!nv || !(v[n] = strdup(path))) {
			while (n > 0)
				free(v[--n]);
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_paths);
	*out = v;
	*nout = n;
	return 0;
}

static int map_stream(struct nstream *s, char *why, size_t len)
{
	int fd = open(s->path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		jank_errf(why, len, "%s: %s", s->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	s->size = (size_t)st.st_size;
	s->map = mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		jank_errf(why, len, "%s: cannot map it", s->path);
		return -EIO;
	}
	return 0;
}

/* ---- Opening and closing ---- */

/* What the merge of trace-decode.c does at a trace's first stream: the kernel's layout. */
static void trace_announce(struct jank_reader *in, const struct ntrace *tr)
{
	const struct ctf_env *rel = ctf_meta_env(tr->meta, "kernel_release");

	in->stats.traces++;
	if (tr->domain != JANK_DOMAIN_KERNEL)
		return;
	jank_engine_set_layout(in->engine, meta_long(tr->meta, "tracer_major"),
			       meta_long(tr->meta, "tracer_minor"));
	jank_engine_set_kernel(in->engine, rel && rel->s ? rel->s : NULL);
}

/* A stream file's first packet header: which stream (class, instance) it is. */
static int stream_identity(struct nstream *s, uint64_t *sc, uint64_t *inst, char *why, size_t len)
{
	struct ctf_cursor c = { .buf = s->map, .end = (uint64_t)s->size * 8, .steps = 1u << 20 };
	struct jank_value vals[CTF_NSLOTS];

	c.out = vals;
	c.arrays = s->arrays;
	if (ctf_plan_run(s->tr->phdr, &c) < 0) {
		jank_errf(why, len, "%s: %s", s->path, c.why);
		return -EINVAL;
	}
	*sc = native_has_role(&c, CTF_ROLE_STREAM_ID) ? c.roles[CTF_ROLE_STREAM_ID] : 0;
	*inst = native_has_role(&c, CTF_ROLE_STREAM_INSTANCE_ID)
			? c.roles[CTF_ROLE_STREAM_INSTANCE_ID]
			: NO_SNAPSHOT;
	return 0;
}

static int add_streams(struct native_reader *nr, struct ntrace *tr, char *why, size_t len)
{
	char **paths = NULL;
	size_t n = 0, first = nr->nstreams;
	int r = list_streams(tr->dir, &paths, &n);

	if (r < 0) {
		jank_errf(why, len, "%s: %s", tr->dir, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		struct nstream *v = realloc(nr->streams, (nr->nstreams + 1) * sizeof(*v));
		struct nstream *s;

		if (!v) {
			r = -ENOMEM;
			break;
		}
		nr->streams = v;
		s = &v[nr->nstreams++];
		memset(s, 0, sizeof(*s));
		s->tr = tr;
		s->path = paths[i];
		paths[i] = NULL;
		s->cpu = s->prev_cpu = -1;
		s->prev_disc = s->prev_seq = s->prev_end = NO_SNAPSHOT;
		s->last_ts = INT64_MIN;
		r = map_stream(s, why, len);
		if (r < 0)
			break;
	}
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	/* Files that continue one another (the same stream instance) are babeltrace2's. */
	for (size_t i = first; r == 0 && i < nr->nstreams; i++) {
		uint64_t sci, ii;

		r = stream_identity(&nr->streams[i], &sci, &ii, why, len);
		for (size_t j = first; r == 0 && ii != NO_SNAPSHOT && j < i; j++) {
			uint64_t scj, ij;

			r = stream_identity(&nr->streams[j], &scj, &ij, why, len);
			if (r == 0 && scj == sci && ij == ii) {
				jank_errf(why, len, "%s continues %s (several files of one stream)",
					  nr->streams[i].path, nr->streams[j].path);
				r = -ENOTSUP;
			}
		}
	}
	return r;
}

static void native_free_all(struct native_reader *nr)
{
	if (!nr)
		return;
	for (size_t i = 0; i < nr->nstreams; i++) {
		if (nr->streams[i].map)
			munmap((void *)nr->streams[i].map, nr->streams[i].size);
		free(nr->streams[i].path);
		free(nr->streams[i].scratch);
	}
	free(nr->streams);
	free(nr->heap);
	for (size_t t = 0; t < nr->ntraces; t++)
		native_trace_fini(&nr->traces[t]);
	free(nr->traces);
	free(nr);
}

void native_free(struct native_reader *nr)
{
	native_free_all(nr);
}

int native_open(struct jank_reader *in, const char *const *dirs, const size_t *comp, size_t n,
		char *why, size_t len)
{
	struct native_reader *nr = calloc(1, sizeof(*nr));
	int r = 0;

	if (!nr)
		return -ENOMEM;
	nr->traces = calloc(n ? n : 1, sizeof(*nr->traces));
	if (!nr->traces)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++) {
		for (size_t j = 0; j < i; j++) {
			if (comp[j] == comp[i]) {
				jank_errf(why, len, "%s and %s are one trace (chunks)", dirs[j],
					  dirs[i]);
				r = -ENOTSUP;
			}
		}
		if (r == 0)
			r = open_trace(&nr->traces[nr->ntraces++], dirs[i], why, len);
		if (r == 0)
			r = add_streams(nr, &nr->traces[nr->ntraces - 1], why, len);
	}
	for (size_t i = 0; i < nr->nstreams; i++)
		nr->streams[i].index = i;
	if (r == 0 && !(nr->heap = calloc(nr->nstreams ? nr->nstreams : 1, sizeof(*nr->heap))))
		r = -ENOMEM;
	if (r < 0) {
		if (r == -ENOMEM)
			jank_errf(why, len, "out of memory");
		native_free_all(nr);
		return r;
	}
	nr->generation = jank_engine_generation(in->engine);
	in->native = nr;
	for (size_t t = 0; t < nr->ntraces; t++)
		trace_announce(in, &nr->traces[t]);
	r = native_heap_fill(in, nr);
	if (r < 0) {
		in->failed = true;
		return 0; /* opened; the first run says what is wrong */
	}
	return 0;
}

/* ---- The choice of decoder ---- */

static enum jank_decoder default_decoder = JANK_DECODER_AUTO;

void jank_reader_set_decoder(enum jank_decoder d)
{
	default_decoder = d;
}

int jank_decoder_from_name(const char *name, enum jank_decoder *d)
{
	if (!strcmp(name, "auto"))
		*d = JANK_DECODER_AUTO;
	else if (!strcmp(name, "native"))
		*d = JANK_DECODER_NATIVE;
	else if (!strcmp(name, "babeltrace2"))
		*d = JANK_DECODER_BABELTRACE2;
	else
		return -EINVAL;
	return 0;
}

enum reader_groups reader_groups_for_decoder(void)
{
	return default_decoder == JANK_DECODER_BABELTRACE2 ? READER_GROUPS_QUERY
							   : READER_GROUPS_OWN;
}

void jank_reader_set_tap(struct jank_reader *in, const struct jank_reader_tap *tap)
{
	in->tap = tap;
}

const char *jank_reader_decoder_name(const struct jank_reader *in)
{
	return in->native || in->live ? "native" : "babeltrace2";
}

int reader_choose_native(struct jank_reader *in, const struct trace_dir *dirs, size_t n, char *err,
			 size_t errlen)
{
	const char **paths;
	size_t *comp;
	char why[INPUT_ERR_LEN];
	int r;

	if (default_decoder == JANK_DECODER_BABELTRACE2)
		return 0;
	paths = calloc(n ? n : 1, sizeof(*paths));
	comp = calloc(n ? n : 1, sizeof(*comp));
	if (!paths || !comp) {
		free(paths);
		free(comp);
		jank_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		paths[i] = dirs[i].dir;
		comp[i] = dirs[i].comp;
	}
	why[0] = '\0';
	r = n ? native_open(in, paths, comp, n, why, sizeof(why)) : -ENOENT;
	free(paths);
	free(comp);
	if (r == 0)
		return 1;
	if (default_decoder == JANK_DECODER_NATIVE) {
		jank_errf(err, errlen, "%s: the native decoder cannot read it: %s", in->name,
			  why[0] ? why : "no trace");
		return r;
	}
	fprintf(stderr, "jank: %s: read through babeltrace2: %s\n", in->name,
		why[0] ? why : "no trace");
	return 0;
}

/* ---- For the live decoder (trace-live.c) ---- */

void native_trace_fini(struct ntrace *tr)
{
	for (size_t k = 0; k < tr->nscs; k++) {
		for (size_t i = 0; i < tr->scs[k].nclasses; i++)
			native_class_free(&tr->scs[k].classes[i]);
		free(tr->scs[k].classes);
		ctf_plan_free(tr->scs[k].pctx);
		ctf_plan_free(tr->scs[k].ehdr);
	}
	free(tr->scs);
	ctf_plan_free(tr->phdr);
	ctf_meta_free(tr->meta);
	free(tr->dir);
	memset(tr, 0, sizeof(*tr));
}

int native_probe_class(const struct ctf_meta *m, const struct nsc *sc,
		       const struct ctf_event_decl *e, char *why, size_t len)
{
	return probe_class(m, sc, e, why, len);
}

int native_open_sc(struct ntrace *tr, struct nsc *sc, const struct ctf_stream_decl *d, char *why,
		   size_t len)
{
	return open_sc(tr, sc, d, why, len);
}

void native_trace_announce(struct jank_reader *in, const struct ntrace *tr)
{
	trace_announce(in, tr);
}
