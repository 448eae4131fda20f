/* SPDX-License-Identifier: MIT */
/*
 * ctf-diff: what one decoder gives the engine, as text, for the
 * differential test of the native decoder against babeltrace2
 * (tests/io/test-ctf-native.sh runs it once with each and compares).
 *
 * Usage: ctf-diff DECODER [CONFIG|-] TRACE...
 *
 * One line per event the engine gets (time, CPU, thread, process, name of
 * the thread, class, every field with its type), one per discarded range,
 * then the reader's figures. Exit 0, or 1 with the reader's error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config-file.h"
#include "engine.h"
#include "symbols.h"
#include "trace-reader.h"

static void put_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void put_value(const struct jank_value *v)
{
	switch (v->type) {
	case JANK_VALUE_NONE:
		fputs(" -", stdout);
		break;
	case JANK_VALUE_INT:
		printf(" i%" PRId64, v->i);
		break;
	case JANK_VALUE_UINT:
		printf(" u%" PRIu64, v->u);
		break;
	case JANK_VALUE_STR:
		putchar(' ');
		put_str(v->s);
		break;
	case JANK_VALUE_ARRAY:
		printf(" [");
		for (uint32_t i = 0; i < v->a.n; i++)
			printf("%s%" PRIx64, i ? "," : "", v->a.v[i]);
		putchar(']');
		break;
	}
}

static void on_event(const struct jank_event *ev, void *data)
{
	(void)data;
	printf("E %" PRId64 " %d %d %d ", ev->ts, ev->cpu, ev->tid, ev->pid);
	if (ev->pid_ns) /* lttng-ust's pid_ns context */
		printf("ns%" PRIu32 " ", ev->pid_ns);
	if (ev->comm)
		put_str(ev->comm);
	else
		putchar('-');
	printf(" c%u n%u", ev->class_id, ev->nfields);
	for (uint32_t i = 0; i < ev->nfields; i++)
		put_value(&ev->fields[i]);
	putchar('\n');
}

static void on_discarded(int32_t cpu, int64_t begin, int64_t end, uint64_t count, void *data)
{
	(void)data;
	printf("D %d %" PRId64 " %" PRId64 " %" PRIu64 "\n", cpu, begin, end, count);
}

static struct jank_engine *engine_of(const char *config)
{
	struct jank_engine_config ec;
	struct jank_config conf;
	struct jank_engine *e;
	char err[512];

	jank_engine_config_defaults(&ec);
	ec.overdue_grace_ns = 0;
	if (!strcmp(config, "-"))
		return jank_engine_new(&ec);
	memset(&conf, 0, sizeof(conf));
	if (jank_config_load(&conf, config, err, sizeof(err)) < 0) {
		fprintf(stderr, "ctf-diff: %s\n", err);
		return NULL;
	}
	jank_config_apply_engine(&conf, &ec);
	e = jank_engine_new(&ec);
	if (e && jank_config_add_rules(&conf, e, err, sizeof(err)) < 0) {
		fprintf(stderr, "ctf-diff: %s\n", err);
		jank_engine_free(e);
		e = NULL;
	}
	jank_config_fini(&conf);
	return e;
}

int main(int argc, char **argv)
{
	const struct jank_reader_tap tap = { on_event, on_discarded, NULL };
	struct jank_reader_stats st;
	struct jank_symbols *sym;
	struct jank_engine *e;
	struct jank_reader *in;
	enum jank_decoder d;
	char err[1024];
	int r = 0;

	if (argc < 4 || jank_decoder_from_name(argv[1], &d) < 0) {
		fprintf(stderr, "usage: ctf-diff auto|native|babeltrace2 CONFIG|- TRACE...\n");
		return 2;
	}
	jank_reader_set_decoder(d);
	e = engine_of(argv[2]);
	sym = jank_symbols_new(0);
	if (!e || !sym)
		return 1;
	in = jank_reader_new_ctf((const char *const *)argv + 3, (size_t)argc - 3, e, err,
				 sizeof(err));
	if (!in) {
		fprintf(stderr, "ctf-diff: %s\n", err);
		return 1;
	}
	jank_reader_set_tap(in, &tap);
	jank_reader_set_symbols(in, sym);
	if (jank_reader_run_all(in) != JANK_READER_STATUS_END) {
		fprintf(stderr, "ctf-diff: %s\n", jank_reader_error(in));
		r = 1;
	}
	jank_reader_get_stats(in, &st);
	printf("S events %" PRIu64 " used %" PRIu64 " classes %" PRIu64 " discarded %" PRIu64
	       " traces %" PRIu64 " symbol_events %" PRIu64 " last_ts %" PRId64 "\n",
	       st.events, st.events_used, st.classes, st.discarded, st.traces, st.symbol_events,
	       st.last_ts);
	fprintf(stderr, "ctf-diff: decoder %s\n", jank_reader_decoder_name(in));
	jank_reader_free(in);
	jank_engine_free(e);
	jank_symbols_free(sym);
	return r;
}
