/*
 * jank-gen: write a CTF trace from a small text script of events.
 *
 * The test suite has no kernel tracer, so kernel (and user space) fixtures
 * are made here: the script is read line by line by the message iterator of
 * an in-process babeltrace2 source component class, and the messages it
 * makes are written to disk by the system sink.ctf.fs component.  The trace
 * looks like an LTTng one: an lttng-modules or lttng-ust environment, one
 * stream per CPU with a `cpu_id` packet context field, a 1 GHz "monotonic"
 * default clock whose ns-from-origin is the script timestamp, and optional
 * common event context fields.  The script is streamed and the per-event path
 * does not allocate, so that benchmarks can feed tens of millions of events.
 *
 * Usage: jank-gen SCRIPT OUTDIR   (SCRIPT "-" is stdin; OUTDIR must not exist
 * or be an empty directory).  Exit 0, or 1 with one line on stderr:
 * "jank-gen: SCRIPT:LINE: what is wrong"; no partial trace is left behind.
 *
 * Script (blank lines and `# ...` comments are ignored):
 *
 *   @trace kernel|ust          first; sets the LTTng environment of the domain
 *   @env KEY=VALUE             VALUE: integer or "string"; adds or overrides
 *   @cpus N                    streams channel0_0 .. channel0_<N-1>, default 1
 *   @context NAME[:TYPE] ...   common event context; TYPE int (default), uint,
 *                              string or uint[]; mandatory FIELD=VALUE on every event
 *                              (or ctx.FIELD=VALUE: then a FIELD=VALUE on the
 *                              same line is a payload field, as `tid` is in
 *                              lttng-modules' sched_wakeup with a tid context)
 *   @packet EVENTS             a packet ends after EVENTS events of its stream
 *   @clock-offset NS           the clock's offset from its origin, in ns (signed;
 *                              LTTng's is CLOCK_REALTIME at session start): an
 *                              event's ns from origin is then NS + TS (a host
 *                              whose clock is off by 37 ms: @clock-offset 37000000)
 *   TS CPU NAME [FIELD=VALUE ...]
 *   @discarded CPU COUNT       the CPU's open packet ends; its next packet
 *                              reports COUNT discarded events
 *
 * The directives but @discarded come before the first event.  TS is in ns,
 * non-decreasing.  VALUE "text" (escapes \", \\, \n and \xNN, any byte but
 * NUL) is a string, a decimal is
 * a signed 64-bit integer, 0x... an unsigned 64-bit one, [0x1,2,...] (no
 * blanks; [] is empty) a uint[]: a dynamic array of unsigned 64-bit integers
 * shown in hexadecimal, after its length, an unsigned 32-bit field named
 * _NAME_length, as lttng-modules lays out its callstack_user and
 * callstack_kernel contexts (TSDL `__NAME_length` and `NAME[__NAME_length]`:
 * babeltrace2 shows the array only).  The first event of
 * a NAME fixes its payload fields, their order and types.  Packets begin at
 * their first event; the last packet of each stream ends at the last TS of
 * the script (like a session stop), and a stream with no event gets one
 * empty packet there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#define GEN_MAX_CPUS 4096
#define GEN_ERR_LEN  1024

enum gen_type {
	GEN_SINT,
	GEN_UINT,
	GEN_STR,
	GEN_UARR, /* dynamic array of uint64, after its uint32 length */
};

static const char *const gen_type_names[] = {
	[GEN_SINT] = "int",
	[GEN_UINT] = "uint",
	[GEN_STR] = "string",
	[GEN_UARR] = "uint[]",
};

/* One FIELD=VALUE of a script line; strings point into the line buffer. */
struct gen_value {
	const char *name;
	enum gen_type type;
	bool ctx;   /* written ctx.NAME=VALUE */
	uint32_t n; /* GEN_UARR: the count of elements, listed in s */
	union {
		int64_t i;
		uint64_t u;
		const char *s;
	};
};

struct gen_env {
	char *key;
	bool is_int;
	int64_t i;
	char *s;
};

struct gen_ctx_field {
	char *name;
	enum gen_type type;
};

/* An event class and the payload layout fixed by its first event. */
struct gen_event_class {
	char *name;
	uint32_t hash;
	unsigned long first_line;
	bt_event_class *ec;
	unsigned int nfields;
	char **fnames;
	enum gen_type *ftypes;
};

struct gen_stream {
	bt_stream *stream;
	bt_packet *packet;	/* open packet or NULL */
	uint64_t packet_events; /* events in the open packet */
	uint64_t discarded;	/* for the next packet */
	bool had_packet;
};

struct gen {
	/* script */
	const char *script_name;
	FILE *script;
	char *line;
	size_t line_cap;
	unsigned long lineno;
	bool held; /* `line` is to be read again */
	bool eof;

	/* header */
	bool have_trace;
	bool body;
	struct gen_env *env;
	unsigned int nenv;
	unsigned int ncpus;
	struct gen_ctx_field *ctx;
	unsigned int nctx;
	uint64_t packet_events; /* 0: one packet per stream */
	int64_t clock_offset;	/* ns, @clock-offset */

	/* per line scratch: parsed values, reused */
	struct gen_value *vals;
	unsigned int vals_cap;
	int *ctx_slot; /* index in vals of each context field */

	/* trace IR */
	bt_self_message_iterator *self_iter;
	bt_trace_class *tc;
	bt_clock_class *cc;
	bt_stream_class *sc;
	bt_trace *trace;
	struct gen_stream *streams;
	struct gen_event_class **ec_table;
	uint32_t ec_cap; /* power of two */
	uint32_t ec_count;

	/* message queue, drained by the iterator's next method */
	const bt_message **queue;
	size_t queue_cap;
	size_t queue_head;
	size_t queue_tail;
	bool started;
	bool done;
	bool deferred_error;

	uint64_t last_ts;
	bool have_ts;

	char err[GEN_ERR_LEN];
};

static int gen_error(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record the first error, prefixed with the script name and line. */
static int gen_error(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (g->err[0])
		return -EINVAL;
	n = snprintf(g->err, sizeof(g->err), "%s:%lu: ", g->script_name, g->lineno);
	if (n < 0 || (size_t)n >= sizeof(g->err))
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(g->err + n, sizeof(g->err) - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int gen_oom(struct gen *g)
{
	gen_error(g, "out of memory");
	return -ENOMEM;
}

/* ---------------------------------------------------------------- parsing */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_ident_str(const char *s)
{
	if (!is_ident_start(*s))
		return false;
	for (s++; *s; s++)
		if (!is_ident(*s))
			return false;
	return true;
}

/* Skip blanks; true when the rest of the line is empty or a comment. */
static bool at_end(char **p)
{
	while (is_space(**p))
		(*p)++;
	return **p == '\0' || **p == '#';
}

/* Next blank-separated word, NUL-terminated in place; NULL at line end. */
static char *next_word(char **p)
{
	char *w;

	if (at_end(p))
		return NULL;
	w = *p;
	while (**p && !is_space(**p))
		(*p)++;
	if (**p)
		*(*p)++ = '\0';
	return w;
}

/* Decimal unsigned integer, the whole string; -ERANGE on overflow. */
static int parse_udec(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = *s - '0';
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int parse_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -EINVAL;
		if (v >> 60)
			return -ERANGE;
		v = (v << 4) | d;
	}
	*out = v;
	return 0;
}

/*
 * A script integer: `0x...` is unsigned 64-bit, otherwise a signed 64-bit
 * decimal.
 */
static int parse_int(struct gen *g, const char *s, struct gen_value *v)
{
	bool neg = false;
	uint64_t u;
	int ret;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		ret = parse_hex(s + 2, &u);
		if (ret)
			goto bad;
		v->type = GEN_UINT;
		v->u = u;
		return 0;
	}
	if (*s == '-') {
		neg = true;
		s++;
	}
	ret = parse_udec(s, &u);
	if (ret)
		goto bad;
	if (neg ? u > (uint64_t)INT64_MAX + 1 : u > INT64_MAX) {
		ret = -ERANGE;
		goto bad;
	}
	v->type = GEN_SINT;
	v->i = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
bad:
	if (ret == -ERANGE)
		return gen_error(g, "integer `%s%s` is out of range", neg ? "-" : "", s);
	return gen_error(g, "bad value `%s%s`: expected an integer, 0x... or \"string\"",
			 neg ? "-" : "", s);
}

/* The value of a hexadecimal digit, or -1. */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Parse FIELD=VALUE at *p, in place: the name and a string value are
 * NUL-terminated inside the line (escapes \" and \\ are undone).
 */
static int parse_field(struct gen *g, char **p, struct gen_value *v)
{
	char *s = *p, *dst, *val;

	v->ctx = !strncmp(s, "ctx.", 4);
	if (v->ctx)
		s += 4;
	v->name = s;
	if (!is_ident_start(*s))
		goto bad_field;
	while (is_ident(*s))
		s++;
	if (*s != '=')
		goto bad_field;
	*s++ = '\0';

	if (*s == '[') {
		char *end = strchr(s, ']'), *item;
		struct gen_value elem;
		uint32_t n = 0;

		if (!end)
			return gen_error(g, "unterminated array in field `%s`", v->name);
		if (end[1] && !is_space(end[1]))
			return gen_error(g, "garbage after array of field `%s`", v->name);
		*end = '\0';
		val = ++s;
		for (item = val; *val;) {
			char *comma = strchr(item, ',');

			if (comma)
				*comma = '\0';
			if (parse_int(g, item, &elem))
				return -EINVAL;
			if (elem.type == GEN_SINT && elem.i < 0)
				return gen_error(g, "array of field `%s`: %s is negative", v->name,
						 item);
			if (n == UINT32_MAX)
				return gen_error(g, "array of field `%s` is too long", v->name);
			n++;
			if (!comma)
				break;
			*comma = ',';
			item = comma + 1;
		}
		v->type = GEN_UARR;
		v->s = val;
		v->n = n;
		*p = end[1] ? end + 2 : end + 1;
		return 0;
	}

	if (*s == '"') {
		dst = s;
		val = s++;
		for (;;) {
			if (*s == '\0')
				return gen_error(g, "unterminated string in field `%s`", v->name);
			if (*s == '"')
				break;
			if (*s == '\\') {
				int hi, lo;

				s++;
				if (*s == 'n') {
					*dst++ = '\n';
					s++;
					continue;
				}
				/* \xNN: any byte but NUL, for hostile (untrusted) strings */
				if (*s == 'x' && (hi = hex_digit(s[1])) >= 0 &&
				    (lo = hex_digit(s[2])) >= 0 && (hi || lo)) {
					*dst++ = (char)(hi << 4 | lo);
					s += 3;
					continue;
				}
				if (*s != '"' && *s != '\\')
					return gen_error(g,
							 "bad escape in string of field `%s`: only "
							 "\\\", \\\\, \\n and \\xNN are allowed",
							 v->name);
			}
			*dst++ = *s++;
		}
		s++;
		if (*s && !is_space(*s))
			return gen_error(g, "garbage after string of field `%s`", v->name);
		*dst = '\0';
		if (*s)
			s++;
		v->type = GEN_STR;
		v->s = val;
		*p = s;
		return 0;
	}

	val = s;
	while (*s && !is_space(*s))
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	if (!*val)
		return gen_error(g, "missing value for field `%s`", v->name);
	return parse_int(g, val, v);

bad_field:
	while (*s && !is_space(*s))
		s++;
	*s = '\0';
	return gen_error(g, "expected FIELD=VALUE, got `%s`", v->name);
}

/* Read the next line into g->line; 0 at end of file. */
static int read_line(struct gen *g)
{
	ssize_t n;

	if (g->held) {
		g->held = false;
		return 1;
	}
	if (g->eof)
		return 0;
	errno = 0;
	n = getline(&g->line, &g->line_cap, g->script);
	if (n < 0) {
		if (ferror(g->script)) {
			gen_error(g, "read error: %s", strerror(errno ? errno : EIO));
			return -EIO;
		}
		g->eof = true;
		return 0;
	}
	g->lineno++;
	if (n > 0 && g->line[n - 1] == '\n')
		g->line[n - 1] = '\0';
	return 1;
}

static int grow_vals(struct gen *g, unsigned int n)
{
	struct gen_value *vals;
	unsigned int cap;

	if (n <= g->vals_cap)
		return 0;
	cap = g->vals_cap ? g->vals_cap * 2 : 16;
	while (cap < n)
		cap *= 2;
	vals = realloc(g->vals, cap * sizeof(*vals));
	if (!vals)
		return gen_oom(g);
	g->vals = vals;
	g->vals_cap = cap;
	return 0;
}

/* ------------------------------------------------------------- directives */

static int env_set(struct gen *g, const char *key, bool is_int, int64_t i, const char *s)
{
	struct gen_env *e = NULL, *env;
	unsigned int k;
	char *dup = NULL;

	if (!is_int) {
		dup = strdup(s);
		if (!dup)
			return gen_oom(g);
	}
	for (k = 0; k < g->nenv; k++) {
		if (!strcmp(g->env[k].key, key)) {
			e = &g->env[k];
			break;
		}
	}
	if (!e) {
		env = realloc(g->env, (g->nenv + 1) * sizeof(*env));
		if (!env)
			goto oom;
		g->env = env;
		e = &g->env[g->nenv];
		e->key = strdup(key);
		if (!e->key)
			goto oom;
		e->s = NULL;
		g->nenv++;
	}
	free(e->s);
	e->is_int = is_int;
	e->i = i;
	e->s = dup;
	return 0;
oom:
	free(dup);
	return gen_oom(g);
}

/* Default environments: a string entry has `s`, an integer one has `i`. */
struct gen_env_default {
	const char *key;
	const char *s;
	int64_t i;
};

static const struct gen_env_default kernel_env[] = {
	{ "domain", "kernel", 0 },	  { "tracer_name", "lttng-modules", 0 },
	{ "tracer_major", NULL, 2 },	  { "tracer_minor", NULL, 13 },
	{ "tracer_patchlevel", NULL, 0 }, { "hostname", "jank-fixture", 0 },
	{ "sysname", "Linux", 0 },	  { NULL, NULL, 0 },
};

static const struct gen_env_default ust_env[] = {
	{ "domain", "ust", 0 },
	{ "tracer_name", "lttng-ust", 0 },
	{ "tracer_major", NULL, 2 },
	{ "tracer_minor", NULL, 13 },
	{ "hostname", "jank-fixture", 0 },
	{ NULL, NULL, 0 },
};

static int do_trace(struct gen *g, char *p)
{
	const struct gen_env_default *d;
	char *kind = next_word(&p);
	int ret;

	if (g->have_trace)
		return gen_error(g, "@trace given twice");
	if (!kind || !at_end(&p))
		return gen_error(g, "usage: @trace kernel|ust");
	if (!strcmp(kind, "kernel"))
		d = kernel_env;
	else if (!strcmp(kind, "ust"))
		d = ust_env;
	else
		return gen_error(g, "unknown trace kind `%s`: expected kernel or ust", kind);
	for (; d->key; d++) {
		ret = env_set(g, d->key, !d->s, d->i, d->s);
		if (ret)
			return ret;
	}
	g->have_trace = true;
	return 0;
}

/*
 * Whether name is a word of TSDL's: sink.ctf.fs cannot write an environment
 * entry of that name (and babeltrace2 2.0 then crashes in its graph).
 */
static bool tsdl_keyword(const char *name)
{
	static const char *const words[] = {
		"_Bool",   "_Complex",	     "_Imaginary", "align",   "callsite", "char",
		"clock",   "const",	     "double",	   "enum",    "env",	  "event",
		"float",   "floating_point", "int",	   "integer", "long",	  "short",
		"signed",  "stream",	     "string",	   "struct",  "trace",	  "typealias",
		"typedef", "unsigned",	     "variant",	   "void",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(name, words[i]))
			return true;
	return false;
}

static int do_env(struct gen *g, char *p)
{
	struct gen_value v;
	int ret;

	if (at_end(&p))
		return gen_error(g, "usage: @env KEY=VALUE");
	ret = parse_field(g, &p, &v);
	if (ret)
		return ret;
	if (!at_end(&p))
		return gen_error(g, "usage: @env KEY=VALUE");
	if (tsdl_keyword(v.name))
		return gen_error(g, "@env %s: a word of TSDL cannot name an environment entry",
				 v.name);
	switch (v.type) {
	case GEN_UARR:
		return gen_error(g, "@env %s: an array cannot be an environment entry", v.name);
	case GEN_STR:
		return env_set(g, v.name, false, 0, v.s);
	case GEN_UINT:
		if (v.u > INT64_MAX)
			return gen_error(g, "@env %s: integer out of range", v.name);
		return env_set(g, v.name, true, (int64_t)v.u, NULL);
	case GEN_SINT:
	default:
		return env_set(g, v.name, true, v.i, NULL);
	}
}

static int do_clock_offset(struct gen *g, char *p)
{
	char *w = next_word(&p), *end;
	long long v;

	errno = 0;
	v = w ? strtoll(w, &end, 10) : 0;
	if (!w || !at_end(&p) || errno || *end || end == w)
		return gen_error(g, "usage: @clock-offset NS (a signed integer)");
	g->clock_offset = v;
	return 0;
}

static int do_cpus(struct gen *g, char *p)
{
	char *w = next_word(&p);
	uint64_t n;

	if (!w || !at_end(&p) || parse_udec(w, &n) || n < 1 || n > GEN_MAX_CPUS)
		return gen_error(g, "usage: @cpus N, with 1 <= N <= %d", GEN_MAX_CPUS);
	g->ncpus = n;
	return 0;
}

static int do_context(struct gen *g, char *p)
{
	struct gen_ctx_field *ctx;
	enum gen_type type;
	char *w, *colon;
	unsigned int k;

	if (at_end(&p))
		return gen_error(g, "usage: @context NAME[:int|uint|string|uint[]] ...");
	while ((w = next_word(&p))) {
		type = GEN_SINT;
		colon = strchr(w, ':');
		if (colon) {
			*colon++ = '\0';
			if (!strcmp(colon, "int"))
				type = GEN_SINT;
			else if (!strcmp(colon, "uint"))
				type = GEN_UINT;
			else if (!strcmp(colon, "string"))
				type = GEN_STR;
			else if (!strcmp(colon, "uint[]"))
				type = GEN_UARR;
			else
				return gen_error(g,
						 "@context %s: unknown type `%s`: expected int, "
						 "uint, string or uint[]",
						 w, colon);
		}
		if (!is_ident_str(w))
			return gen_error(g, "@context: bad field name `%s`", w);
		for (k = 0; k < g->nctx; k++)
			if (!strcmp(g->ctx[k].name, w))
				return gen_error(g, "@context: field `%s` declared twice", w);
		ctx = realloc(g->ctx, (g->nctx + 1) * sizeof(*ctx));
		if (!ctx)
			return gen_oom(g);
		g->ctx = ctx;
		ctx[g->nctx].name = strdup(w);
		if (!ctx[g->nctx].name)
			return gen_oom(g);
		ctx[g->nctx].type = type;
		g->nctx++;
	}
	return 0;
}

static int do_packet(struct gen *g, char *p)
{
	char *w = next_word(&p);
	uint64_t n;

	if (!w || !at_end(&p) || parse_udec(w, &n) || n < 1)
		return gen_error(g, "usage: @packet EVENTS, with EVENTS >= 1");
	g->packet_events = n;
	return 0;
}

static int emit_packet_end(struct gen *g, unsigned int cpu, uint64_t ts);

static int do_discarded(struct gen *g, char *p)
{
	char *cpu = next_word(&p), *count = next_word(&p);
	uint64_t c, n;

	if (!cpu || !count || !at_end(&p) || parse_udec(cpu, &c) || parse_udec(count, &n))
		return gen_error(g, "usage: @discarded CPU COUNT");
	if (c >= g->ncpus)
		return gen_error(g, "@discarded: CPU %" PRIu64 " out of range (@cpus %u)", c,
				 g->ncpus);
	if (n > UINT64_MAX - g->streams[c].discarded)
		return gen_error(g, "@discarded: count out of range");
	g->streams[c].discarded += n;
	/*
	 * Like a sub-buffer switch: the open packet ends now and the next
	 * one, which reports the count, begins with the CPU's next event.
	 */
	if (g->streams[c].packet)
		return emit_packet_end(g, c, g->last_ts);
	return 0;
}

/*
 * Read the header directives, up to the first body line (an event or
 * @discarded), which is held for the message iterator.
 */
static int read_header(struct gen *g)
{
	char *p, *w;
	int ret;

	while ((ret = read_line(g)) > 0) {
		p = g->line;
		if (at_end(&p))
			continue;
		if (*p != '@' || !strncmp(p, "@discarded", 10)) {
			g->held = true;
			break;
		}
		w = next_word(&p);
		if (!g->have_trace && strcmp(w, "@trace"))
			return gen_error(g, "the script must start with @trace kernel|ust");
		if (!strcmp(w, "@trace"))
			ret = do_trace(g, p);
		else if (!strcmp(w, "@env"))
			ret = do_env(g, p);
		else if (!strcmp(w, "@cpus"))
			ret = do_cpus(g, p);
		else if (!strcmp(w, "@context"))
			ret = do_context(g, p);
		else if (!strcmp(w, "@packet"))
			ret = do_packet(g, p);
		else if (!strcmp(w, "@clock-offset"))
			ret = do_clock_offset(g, p);
		else
			ret = gen_error(g, "unknown directive `%s`", w);
		if (ret)
			return ret;
	}
	if (ret < 0)
		return ret;
	if (!g->have_trace)
		return gen_error(g, "the script must start with @trace kernel|ust");
	return 0;
}

/* ---------------------------------------------------------------- trace IR */

/* _NAME_length, then NAME: a dynamic array of hexadecimal uint64. */
static int add_array_member(struct gen *g, bt_field_class *st, const char *name)
{
	bt_field_class *len = NULL, *elem = NULL, *arr = NULL;
	char lname[256];
	int ret = -ENOMEM;

	if (snprintf(lname, sizeof(lname), "_%s_length", name) >= (int)sizeof(lname))
		return gen_error(g, "field name `%s` is too long", name);
	len = bt_field_class_integer_unsigned_create(g->tc);
	elem = bt_field_class_integer_unsigned_create(g->tc);
	if (!len || !elem)
		goto end;
	bt_field_class_integer_set_field_value_range(len, 32);
	bt_field_class_integer_set_preferred_display_base(
		elem, BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL);
	if (bt_field_class_structure_append_member(st, lname, len) !=
	    BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK)
		goto end;
	arr = bt_field_class_array_dynamic_create(g->tc, elem, len);
	if (!arr)
		goto end;
	if (bt_field_class_structure_append_member(st, name, arr) !=
	    BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK)
		goto end;
	ret = 0;
end:
	bt_field_class_put_ref(len);
	bt_field_class_put_ref(elem);
	bt_field_class_put_ref(arr);
	if (ret)
		gen_oom(g);
	return ret;
}

static int add_member(struct gen *g, bt_field_class *st, const char *name, enum gen_type type)
{
	bt_field_class *fc;
	int ret = 0;

	if (type == GEN_UARR)
		return add_array_member(g, st, name);
	switch (type) {
	case GEN_SINT:
		fc = bt_field_class_integer_signed_create(g->tc);
		break;
	case GEN_UINT:
		fc = bt_field_class_integer_unsigned_create(g->tc);
		break;
	case GEN_STR:
	case GEN_UARR:
	default:
		fc = bt_field_class_string_create(g->tc);
		break;
	}
	if (!fc)
		return gen_oom(g);
	if (bt_field_class_structure_append_member(st, name, fc) !=
	    BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK)
		ret = gen_oom(g);
	bt_field_class_put_ref(fc);
	return ret;
}

/* Trace class, clock class and the one stream class: at component init. */
static int build_classes(struct gen *g, bt_self_component *self)
{
	bt_field_class *pc = NULL, *cpu = NULL, *ec_ctx = NULL;
	unsigned int k;
	int ret = -ENOMEM;

	g->tc = bt_trace_class_create(self);
	g->cc = bt_clock_class_create(self);
	if (!g->tc || !g->cc)
		goto end;
	if (bt_clock_class_set_name(g->cc, "monotonic") ||
	    bt_clock_class_set_description(g->cc, "Monotonic Clock"))
		goto end;
	bt_clock_class_set_frequency(g->cc, UINT64_C(1000000000));
	{
		int64_t sec = g->clock_offset / 1000000000, ns = g->clock_offset % 1000000000;

		if (ns < 0) {
			sec--;
			ns += 1000000000;
		}
		bt_clock_class_set_offset(g->cc, sec, (uint64_t)ns);
	}
	bt_clock_class_set_origin_is_unix_epoch(g->cc, BT_TRUE);

	g->sc = bt_stream_class_create(g->tc);
	if (!g->sc)
		goto end;
	if (bt_stream_class_set_default_clock_class(g->sc, g->cc))
		goto end;
	/*
	 * sink.ctf.fs wants packet beginning/end clock snapshots; the
	 * discarded events have no time range, so that their message can
	 * come anywhere outside a packet (see emit_packet_begin()).
	 */
	bt_stream_class_set_supports_packets(g->sc, BT_TRUE, BT_TRUE, BT_TRUE);
	bt_stream_class_set_supports_discarded_events(g->sc, BT_TRUE, BT_FALSE);

	pc = bt_field_class_structure_create(g->tc);
	cpu = bt_field_class_integer_unsigned_create(g->tc);
	if (!pc || !cpu)
		goto end;
	bt_field_class_integer_set_field_value_range(cpu, 32);
	if (bt_field_class_structure_append_member(pc, "cpu_id", cpu) ||
	    bt_stream_class_set_packet_context_field_class(g->sc, pc))
		goto end;

	if (g->nctx) {
		ec_ctx = bt_field_class_structure_create(g->tc);
		if (!ec_ctx)
			goto end;
		for (k = 0; k < g->nctx; k++)
			if (add_member(g, ec_ctx, g->ctx[k].name, g->ctx[k].type))
				goto end;
		if (bt_stream_class_set_event_common_context_field_class(g->sc, ec_ctx))
			goto end;
	}
	ret = 0;
end:
	bt_field_class_put_ref(pc);
	bt_field_class_put_ref(cpu);
	bt_field_class_put_ref(ec_ctx);
	if (ret)
		gen_oom(g);
	return ret;
}

static int build_trace(struct gen *g)
{
	char name[32];
	unsigned int k;
	int ret;

	g->trace = bt_trace_create(g->tc);
	if (!g->trace)
		return gen_oom(g);
	for (k = 0; k < g->nenv; k++) {
		struct gen_env *e = &g->env[k];

		if (e->is_int)
			ret = bt_trace_set_environment_entry_integer(g->trace, e->key, e->i);
		else
			ret = bt_trace_set_environment_entry_string(g->trace, e->key, e->s);
		if (ret)
			return gen_oom(g);
	}
	for (k = 0; k < g->ncpus; k++) {
		struct gen_stream *s = &g->streams[k];

		s->stream = bt_stream_create(g->sc, g->trace);
		if (!s->stream)
			return gen_oom(g);
		snprintf(name, sizeof(name), "channel0_%u", k);
		if (bt_stream_set_name(s->stream, name))
			return gen_oom(g);
	}
	return 0;
}

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void free_event_class(struct gen_event_class *e)
{
	unsigned int k;

	if (!e)
		return;
	bt_event_class_put_ref(e->ec);
	if (e->fnames)
		for (k = 0; k < e->nfields; k++)
			free(e->fnames[k]);
	free(e->fnames);
	free(e->ftypes);
	free(e->name);
	free(e);
}

static int ec_table_insert(struct gen *g, struct gen_event_class *e)
{
	uint32_t i;

	if ((g->ec_count + 1) * 2 > g->ec_cap) {
		uint32_t cap = g->ec_cap ? g->ec_cap * 2 : 64, k;
		struct gen_event_class **t = calloc(cap, sizeof(*t));

		if (!t)
			return gen_oom(g);
		for (k = 0; k < g->ec_cap; k++) {
			struct gen_event_class *o = g->ec_table[k];

			if (!o)
				continue;
			for (i = o->hash & (cap - 1); t[i]; i = (i + 1) & (cap - 1))
				;
			t[i] = o;
		}
		free(g->ec_table);
		g->ec_table = t;
		g->ec_cap = cap;
	}
	for (i = e->hash & (g->ec_cap - 1); g->ec_table[i]; i = (i + 1) & (g->ec_cap - 1))
		;
	g->ec_table[i] = e;
	g->ec_count++;
	return 0;
}

static struct gen_event_class *ec_table_find(struct gen *g, const char *name, uint32_t hash)
{
	struct gen_event_class *e;
	uint32_t i;

	if (!g->ec_cap)
		return NULL;
	for (i = hash & (g->ec_cap - 1); (e = g->ec_table[i]); i = (i + 1) & (g->ec_cap - 1))
		if (e->hash == hash && !strcmp(e->name, name))
			return e;
	return NULL;
}

/* A new event class whose payload is the non-context fields of this line. */
static int new_event_class(struct gen *g, const char *name, uint32_t hash, unsigned int nvals,
			   struct gen_event_class **out)
{
	struct gen_event_class *e;
	bt_field_class *payload = NULL;
	unsigned int k, n = 0;
	int ret = -ENOMEM;

	e = calloc(1, sizeof(*e));
	if (!e)
		goto end;
	e->hash = hash;
	e->first_line = g->lineno;
	e->name = strdup(name);
	e->fnames = calloc(nvals + 1, sizeof(*e->fnames));
	e->ftypes = calloc(nvals + 1, sizeof(*e->ftypes));
	e->ec = bt_event_class_create(g->sc);
	if (!e->name || !e->fnames || !e->ftypes || !e->ec)
		goto end;
	if (bt_event_class_set_name(e->ec, name))
		goto end;
	payload = bt_field_class_structure_create(g->tc);
	if (!payload)
		goto end;
	for (k = 0; k < nvals; k++) {
		struct gen_value *v = &g->vals[k];

		if (!v->name) /* a context field */
			continue;
		e->fnames[n] = strdup(v->name);
		if (!e->fnames[n])
			goto end;
		e->ftypes[n] = v->type;
		e->nfields = ++n;
		/*
		 * Field classes cannot be shared: a member's field class
		 * must not already belong to the trace class.
		 */
		if (add_member(g, payload, v->name, v->type))
			goto end;
	}
	if (bt_event_class_set_payload_field_class(e->ec, payload))
		goto end;
	ret = ec_table_insert(g, e);
	if (ret)
		goto end;
	*out = e;
	e = NULL;
end:
	bt_field_class_put_ref(payload);
	free_event_class(e);
	if (ret)
		gen_oom(g);
	return ret;
}

/* ---------------------------------------------------------------- messages */

static int push(struct gen *g, const bt_message *msg)
{
	if (!msg)
		return gen_oom(g);
	/* The queue is sized at init for the largest batch of one step. */
	g->queue[g->queue_tail++] = msg;
	return 0;
}

static int emit_packet_begin(struct gen *g, unsigned int cpu, uint64_t ts)
{
	struct gen_stream *s = &g->streams[cpu];
	bt_field *ctx, *f;
	bt_message *msg;

	/*
	 * sink.ctf.fs adds the count of a discarded events message to the
	 * stream's counter, written in the packet context of the packet
	 * being written or, between packets, of the next one.
	 */
	if (s->discarded) {
		msg = bt_message_discarded_events_create(g->self_iter, s->stream);
		if (!msg)
			return gen_oom(g);
		bt_message_discarded_events_set_count(msg, s->discarded);
		s->discarded = 0;
		if (push(g, msg))
			return -ENOMEM;
	}
	s->packet = bt_packet_create(s->stream);
	if (!s->packet)
		return gen_oom(g);
	ctx = bt_packet_borrow_context_field(s->packet);
	f = bt_field_structure_borrow_member_field_by_index(ctx, 0);
	bt_field_integer_unsigned_set_value(f, cpu);
	s->packet_events = 0;
	s->had_packet = true;
	return push(g, bt_message_packet_beginning_create_with_default_clock_snapshot(
			       g->self_iter, s->packet, ts));
}

static int emit_packet_end(struct gen *g, unsigned int cpu, uint64_t ts)
{
	struct gen_stream *s = &g->streams[cpu];
	int ret;

	ret = push(g, bt_message_packet_end_create_with_default_clock_snapshot(g->self_iter,
									       s->packet, ts));
	bt_packet_put_ref(s->packet);
	s->packet = NULL;
	return ret;
}

/* Set member *m of st (and its length before it, for a uint[]); *m moves on. */
static int set_member(struct gen *g, bt_field *st, unsigned int *m, const struct gen_value *v)
{
	bt_field *f = bt_field_structure_borrow_member_field_by_index(st, (*m)++);

	switch (v->type) {
	case GEN_UARR: {
		const char *item = v->s;
		bt_field *arr;

		bt_field_integer_unsigned_set_value(f, v->n);
		arr = bt_field_structure_borrow_member_field_by_index(st, (*m)++);
		if (bt_field_array_dynamic_set_length(arr, v->n))
			return gen_oom(g);
		/* Checked by parse_field(): every item is an integer >= 0. */
		for (uint32_t k = 0; k < v->n; k++) {
			uint64_t u = item[0] == '0' && (item[1] == 'x' || item[1] == 'X')
					     ? strtoull(item + 2, NULL, 16)
					     : strtoull(item, NULL, 10);

			bt_field_integer_unsigned_set_value(
				bt_field_array_borrow_element_field_by_index(arr, k), u);
			item = strchr(item, ',');
			item = item ? item + 1 : "";
		}
		break;
	}
	case GEN_SINT:
		bt_field_integer_signed_set_value(f, v->i);
		break;
	case GEN_UINT:
		bt_field_integer_unsigned_set_value(f, v->u);
		break;
	case GEN_STR:
		if (bt_field_string_set_value(f, v->s))
			return gen_oom(g);
		break;
	}
	return 0;
}

/* Convert a value to the declared type of context field `k`. */
static int ctx_value(struct gen *g, unsigned int k, struct gen_value *v)
{
	enum gen_type want = g->ctx[k].type;

	if (v->type == want)
		return 0;
	if (want == GEN_SINT && v->type == GEN_UINT && v->u <= INT64_MAX) {
		v->i = (int64_t)v->u;
		v->type = GEN_SINT;
		return 0;
	}
	if (want == GEN_UINT && v->type == GEN_SINT && v->i >= 0) {
		v->u = (uint64_t)v->i;
		v->type = GEN_UINT;
		return 0;
	}
	return gen_error(g, "context field `%s` wants a %s value", g->ctx[k].name,
			 gen_type_names[want]);
}

/* TS CPU NAME [FIELD=VALUE ...] */
static int do_event(struct gen *g, char *p)
{
	char *ts_s = next_word(&p), *cpu_s = next_word(&p), *name;
	struct gen_event_class *e;
	struct gen_stream *s;
	unsigned int nvals = 0, nctx_seen = 0, k, n;
	bt_message *msg;
	bt_field *payload, *ctx;
	uint64_t ts, cpu;
	uint32_t hash;
	int ret;

	name = next_word(&p);
	if (!name)
		return gen_error(g, "expected `TS CPU NAME [FIELD=VALUE ...]`");
	ret = parse_udec(ts_s, &ts);
	if (ret)
		return gen_error(g, "bad timestamp `%s`: expected an unsigned decimal number of ns",
				 ts_s);
	if (parse_udec(cpu_s, &cpu) || cpu >= g->ncpus)
		return gen_error(g, "CPU `%s` out of range: @cpus is %u", cpu_s, g->ncpus);
	if (g->have_ts && ts < g->last_ts)
		return gen_error(g,
				 "timestamp %" PRIu64
				 " goes back in time (previous event at %" PRIu64 ")",
				 ts, g->last_ts);
	if (strchr(name, '=') || strchr(name, '"'))
		return gen_error(g, "bad event name `%s`", name);

	for (k = 0; k < g->nctx; k++)
		g->ctx_slot[k] = -1;
	while (!at_end(&p)) {
		struct gen_value *v;

		ret = grow_vals(g, nvals + 1);
		if (ret)
			return ret;
		v = &g->vals[nvals];
		ret = parse_field(g, &p, v);
		if (ret)
			return ret;
		for (k = 0; k < nvals; k++)
			if (g->vals[k].ctx == v->ctx && !strcmp(g->vals[k].name, v->name))
				return gen_error(g, "field `%s%s` given twice",
						 v->ctx ? "ctx." : "", v->name);
		nvals++;
	}
	/* ctx.NAME is the context field; a bare NAME only when no ctx.NAME is there. */
	for (n = 0; n < nvals; n++) {
		struct gen_value *v = &g->vals[n];

		for (k = 0; k < g->nctx; k++)
			if (!strcmp(g->ctx[k].name, v->name))
				break;
		if (k == g->nctx) {
			if (v->ctx)
				return gen_error(
					g, "`ctx.%s`: no such context field (declared by @context)",
					v->name);
			continue;
		}
		if (g->ctx_slot[k] >= 0 && (!v->ctx || g->vals[g->ctx_slot[k]].ctx))
			continue;
		if (g->ctx_slot[k] < 0)
			nctx_seen++;
		g->ctx_slot[k] = n;
	}
	if (nctx_seen != g->nctx) {
		for (k = 0; g->ctx_slot[k] >= 0; k++)
			;
		return gen_error(g, "missing context field `%s` (declared by @context)",
				 g->ctx[k].name);
	}
	for (k = 0; k < g->nctx; k++) {
		ret = ctx_value(g, k, &g->vals[g->ctx_slot[k]]);
		if (ret)
			return ret;
	}
	/* Context values keep their slot but lose their name. */
	for (k = 0; k < g->nctx; k++)
		g->vals[g->ctx_slot[k]].name = NULL;

	hash = hash_name(name);
	e = ec_table_find(g, name, hash);
	if (!e) {
		ret = new_event_class(g, name, hash, nvals, &e);
		if (ret)
			return ret;
	} else {
		for (k = 0, n = 0; k < nvals; k++) {
			struct gen_value *v = &g->vals[k];

			if (!v->name)
				continue;
			if (n >= e->nfields)
				return gen_error(g,
						 "event `%s`: field `%s` is not in its first event "
						 "(line %lu)",
						 name, v->name, e->first_line);
			if (strcmp(e->fnames[n], v->name))
				return gen_error(g,
						 "event `%s`: field %u is `%s`, was `%s` in its "
						 "first event (line %lu)",
						 name, n + 1, v->name, e->fnames[n], e->first_line);
			if (e->ftypes[n] != v->type)
				return gen_error(g,
						 "event `%s`: field `%s` is %s, was %s in its "
						 "first event (line %lu)",
						 name, v->name, gen_type_names[v->type],
						 gen_type_names[e->ftypes[n]], e->first_line);
			n++;
		}
		if (n != e->nfields)
			return gen_error(g,
					 "event `%s`: field `%s` is missing, it was in its first "
					 "event (line %lu)",
					 name, e->fnames[n], e->first_line);
	}

	s = &g->streams[cpu];
	if (!s->packet) {
		ret = emit_packet_begin(g, cpu, ts);
		if (ret)
			return ret;
	}
	msg = bt_message_event_create_with_packet_and_default_clock_snapshot(g->self_iter, e->ec,
									     s->packet, ts);
	if (!msg)
		return gen_oom(g);
	ret = push(g, msg);
	if (ret)
		return ret;
	if (g->nctx) {
		ctx = bt_event_borrow_common_context_field(bt_message_event_borrow_event(msg));
		for (k = 0, n = 0; k < g->nctx; k++) {
			ret = set_member(g, ctx, &n, &g->vals[g->ctx_slot[k]]);
			if (ret)
				return ret;
		}
	}
	payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	for (k = 0, n = 0; k < nvals; k++) {
		if (!g->vals[k].name)
			continue;
		ret = set_member(g, payload, &n, &g->vals[k]);
		if (ret)
			return ret;
	}
	g->last_ts = ts;
	g->have_ts = true;
	if (g->packet_events && ++s->packet_events == g->packet_events)
		return emit_packet_end(g, cpu, ts);
	return 0;
}

/*
 * End of script: the open packets end at the last timestamp of the trace
 * (as at an LTTng session stop), which keeps the messages in time order.
 * A stream that never had an event gets one empty packet, as LTTng writes,
 * and so does one with discarded events still to report.
 */
static int emit_end(struct gen *g)
{
	uint64_t ts = g->have_ts ? g->last_ts : 0;
	unsigned int k;
	int ret;

	for (k = 0; k < g->ncpus; k++) {
		struct gen_stream *s = &g->streams[k];

		if (s->packet) {
			ret = emit_packet_end(g, k, ts);
			if (ret)
				return ret;
		}
		if (!s->had_packet || s->discarded) {
			ret = emit_packet_begin(g, k, ts);
			if (ret)
				return ret;
			ret = emit_packet_end(g, k, ts);
			if (ret)
				return ret;
		}
		ret = push(g, bt_message_stream_end_create(g->self_iter, s->stream));
		if (ret)
			return ret;
	}
	return 0;
}

/* Queue the next messages: one script line's worth, or the end. */
static int step(struct gen *g)
{
	unsigned int k;
	char *p;
	int ret;

	if (!g->started) {
		g->started = true;
		for (k = 0; k < g->ncpus; k++) {
			ret = push(g, bt_message_stream_beginning_create(g->self_iter,
									 g->streams[k].stream));
			if (ret)
				return ret;
		}
		return 0;
	}
	while ((ret = read_line(g)) > 0) {
		p = g->line;
		if (at_end(&p))
			continue;
		if (*p == '@') {
			char *w = next_word(&p);

			if (!strcmp(w, "@discarded")) {
				ret = do_discarded(g, p);
				if (ret || g->queue_tail)
					return ret;
				continue;
			}
			if (!strcmp(w, "@trace") || !strcmp(w, "@env") || !strcmp(w, "@cpus") ||
			    !strcmp(w, "@context") || !strcmp(w, "@packet"))
				return gen_error(g, "%s must come before the first event", w);
			return gen_error(g, "unknown directive `%s`", w);
		}
		return do_event(g, p);
	}
	if (ret < 0)
		return ret;
	g->done = true;
	return emit_end(g);
}

/* ------------------------------------------------- component and iterator */

static bt_message_iterator_class_next_method_status
gen_iter_next(bt_self_message_iterator *self_iter, bt_message_array_const msgs, uint64_t capacity,
	      uint64_t *count)
{
	struct gen *g = bt_self_message_iterator_get_data(self_iter);
	uint64_t n = 0;
	int ret;

	if (g->deferred_error)
		goto error;
	while (n < capacity) {
		if (g->queue_head < g->queue_tail) {
			msgs[n++] = g->queue[g->queue_head++];
			continue;
		}
		g->queue_head = g->queue_tail = 0;
		if (g->done)
			break;
		ret = step(g);
		if (ret) {
			/* Hand over what is ready; fail on the next call. */
			if (n) {
				g->deferred_error = true;
				break;
			}
			goto error;
		}
	}
	if (!n)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	*count = n;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
error:
	bt_current_thread_error_append_cause_from_message_iterator(
		self_iter, __FILE__, __LINE__, "%s", g->err[0] ? g->err : "jank-gen failed");
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

static bt_message_iterator_class_initialize_method_status
gen_iter_init(bt_self_message_iterator *self_iter, bt_self_message_iterator_configuration *config,
	      bt_self_component_port_output *port)
{
	struct gen *g =
		bt_self_component_get_data(bt_self_message_iterator_borrow_component(self_iter));

	g->self_iter = self_iter;
	bt_self_message_iterator_set_data(self_iter, g);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void gen_iter_finalize(bt_self_message_iterator *self_iter)
{
	struct gen *g = bt_self_message_iterator_get_data(self_iter);

	while (g->queue_head < g->queue_tail)
		bt_message_put_ref(g->queue[g->queue_head++]);
	g->queue_head = g->queue_tail = 0;
	g->self_iter = NULL;
}

static bt_component_class_initialize_method_status
gen_comp_init(bt_self_component_source *self_src, bt_self_component_source_configuration *config,
	      const bt_value *params, void *init_data)
{
	bt_self_component *self = bt_self_component_source_as_self_component(self_src);
	struct gen *g = init_data;

	bt_self_component_set_data(self, g);
	if (bt_self_component_source_add_output_port(self_src, "out", NULL, NULL))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	if (build_classes(g, self) || build_trace(g))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

/* Drop the trace IR objects; also called by gen_free() after a failed init. */
static void gen_release_ir(struct gen *g)
{
	unsigned int k;

	for (k = 0; k < g->ec_cap; k++) {
		free_event_class(g->ec_table[k]);
		g->ec_table[k] = NULL;
	}
	for (k = 0; g->streams && k < g->ncpus; k++) {
		BT_PACKET_PUT_REF_AND_RESET(g->streams[k].packet);
		BT_STREAM_PUT_REF_AND_RESET(g->streams[k].stream);
	}
	BT_TRACE_PUT_REF_AND_RESET(g->trace);
	BT_STREAM_CLASS_PUT_REF_AND_RESET(g->sc);
	BT_CLOCK_CLASS_PUT_REF_AND_RESET(g->cc);
	BT_TRACE_CLASS_PUT_REF_AND_RESET(g->tc);
}

static void gen_comp_finalize(bt_self_component_source *self_src)
{
	gen_release_ir(
		bt_self_component_get_data(bt_self_component_source_as_self_component(self_src)));
}

/* ------------------------------------------------------------------ driver */

/* Print the causes of the current thread's bt2 error on one line. */
static void print_bt_error(const char *what)
{
	const bt_error *err = bt_current_thread_take_error();
	uint64_t k, n;

	fprintf(stderr, "jank-gen: %s", what);
	if (err) {
		n = bt_error_get_cause_count(err);
		/* The root cause is the last one. */
		for (k = n; k > 0; k--) {
			const bt_error_cause *c = bt_error_borrow_cause_by_index(err, k - 1);

			fprintf(stderr, ": %s", bt_error_cause_get_message(c));
		}
		bt_error_release(err);
	}
	fputc('\n', stderr);
}

/* sink.ctf.fs refuses an existing output path; accept an empty directory. */
static int prepare_outdir(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "jank-gen: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (S_ISDIR(st.st_mode) && !rmdir(path))
		return 0;
	fprintf(stderr, "jank-gen: %s: output path exists and is not an empty directory\n", path);
	return -EEXIST;
}

/* After a failure, remove the partial trace: only the files we made. */
static void remove_outdir(struct gen *g, const char *path)
{
	size_t len = strlen(path) + 32;
	unsigned int k;
	char *f;

	f = malloc(len);
	if (!f)
		return;
	snprintf(f, len, "%s/metadata", path);
	unlink(f);
	for (k = 0; k < g->ncpus; k++) {
		snprintf(f, len, "%s/channel0_%u", path, k);
		unlink(f);
	}
	free(f);
	rmdir(path);
}

static int run_graph(struct gen *g, const char *outdir)
{
	bt_message_iterator_class *iter_cls = NULL;
	bt_component_class_source *src_cls = NULL;
	const bt_plugin *plugin = NULL;
	const bt_component_class_sink *sink_cls;
	const bt_component_source *src;
	const bt_component_sink *sink;
	const bt_trace *trace = NULL;
	bt_value *params = NULL;
	bt_graph *graph = NULL;
	bt_graph_run_status run;
	int ret = -1;

	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &plugin) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		print_bt_error("cannot find the babeltrace2 `ctf` plugin");
		goto end;
	}
	sink_cls = bt_plugin_borrow_sink_component_class_by_name_const(plugin, "fs");
	if (!sink_cls) {
		fprintf(stderr, "jank-gen: the babeltrace2 `ctf` plugin has no `fs` sink\n");
		goto end;
	}

	iter_cls = bt_message_iterator_class_create(gen_iter_next);
	if (!iter_cls || bt_message_iterator_class_set_initialize_method(iter_cls, gen_iter_init) ||
	    bt_message_iterator_class_set_finalize_method(iter_cls, gen_iter_finalize))
		goto oom;
	src_cls = bt_component_class_source_create("jank-gen", iter_cls);
	if (!src_cls || bt_component_class_source_set_initialize_method(src_cls, gen_comp_init) ||
	    bt_component_class_source_set_finalize_method(src_cls, gen_comp_finalize))
		goto oom;

	params = bt_value_map_create();
	if (!params || bt_value_map_insert_string_entry(params, "path", outdir) ||
	    bt_value_map_insert_bool_entry(params, "assume-single-trace", BT_TRUE) ||
	    bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE))
		goto oom;

	graph = bt_graph_create(0);
	if (!graph)
		goto oom;
	if (bt_graph_add_source_component_with_initialize_method_data(
		    graph, src_cls, "jank-gen", NULL, g, BT_LOGGING_LEVEL_WARNING, &src)) {
		if (g->err[0])
			fprintf(stderr, "jank-gen: %s\n", g->err);
		else
			print_bt_error("cannot create the source component");
		goto end;
	}
	/*
	 * sink.ctf.fs 2.0 writes the metadata from the IR trace when it is
	 * finalized, after dropping the packets it holds: if those were the
	 * last references (a failure left packets open), it reads a freed
	 * trace.  Keep the trace alive until the graph is gone.
	 */
	trace = g->trace;
	bt_trace_get_ref(trace);
	if (bt_graph_add_sink_component(graph, sink_cls, "sink", params, BT_LOGGING_LEVEL_ERROR,
					&sink)) {
		print_bt_error("cannot create the sink.ctf.fs component");
		goto end;
	}
	if (bt_graph_connect_ports(
		    graph, bt_component_source_borrow_output_port_by_index_const(src, 0),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		print_bt_error("cannot connect the components");
		goto end;
	}

	do {
		run = bt_graph_run(graph);
	} while (run == BT_GRAPH_RUN_STATUS_AGAIN);
	if (run != BT_GRAPH_RUN_STATUS_OK) {
		if (g->err[0]) {
			bt_current_thread_clear_error();
			fprintf(stderr, "jank-gen: %s\n", g->err);
		} else {
			print_bt_error("writing the trace failed");
		}
		goto end;
	}
	ret = 0;
	goto end;
oom:
	print_bt_error("out of memory");
end:
	bt_graph_put_ref(graph);
	bt_trace_put_ref(trace);
	bt_value_put_ref(params);
	bt_component_class_source_put_ref(src_cls);
	bt_message_iterator_class_put_ref(iter_cls);
	bt_plugin_put_ref(plugin);
	return ret;
}

static void gen_free(struct gen *g)
{
	unsigned int k;

	gen_release_ir(g);
	for (k = 0; k < g->nenv; k++) {
		free(g->env[k].key);
		free(g->env[k].s);
	}
	free(g->env);
	for (k = 0; k < g->nctx; k++)
		free(g->ctx[k].name);
	free(g->ctx);
	free(g->ctx_slot);
	free(g->vals);
	free(g->ec_table);
	free(g->streams);
	free(g->queue);
	free(g->line);
	if (g->script && g->script != stdin)
		fclose(g->script);
}

int main(int argc, char **argv)
{
	struct gen g = { .ncpus = 1 };
	int ret = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: jank-gen SCRIPT OUTDIR   (SCRIPT - is stdin)\n");
		return 2;
	}
	if (!strcmp(argv[1], "-")) {
		g.script_name = "<stdin>";
		g.script = stdin;
	} else {
		g.script_name = argv[1];
		g.script = fopen(argv[1], "r");
		if (!g.script) {
			fprintf(stderr, "jank-gen: %s:0: cannot open: %s\n", argv[1],
				strerror(errno));
			goto end;
		}
	}
	if (read_header(&g))
		goto fail;

	g.streams = calloc(g.ncpus, sizeof(*g.streams));
	g.ctx_slot = calloc(g.nctx + 1, sizeof(*g.ctx_slot));
	g.queue_cap = 4 * (size_t)g.ncpus + 8;
	g.queue = calloc(g.queue_cap, sizeof(*g.queue));
	if (!g.streams || !g.ctx_slot || !g.queue) {
		gen_oom(&g);
		goto fail;
	}
	if (prepare_outdir(argv[2]))
		goto end;
	if (run_graph(&g, argv[2])) {
		remove_outdir(&g, argv[2]);
		goto end;
	}
	ret = 0;
	goto end;
fail:
	fprintf(stderr, "jank-gen: %s\n", g.err);
end:
	gen_free(&g);
	return ret;
}
