/* SPDX-License-Identifier: MIT */
/*
 * Symbolize addresses from a CTF trace's lttng-ust statedump, for
 * test-symbols.sh: the trace reader feeds io/symbols.c, then each address
 * is looked up in process VPID.
 *
 *   symbolize-trace TRACE VPID ADDR...
 *
 * Prints "events N mappings M binaries B", then one line per address:
 * "ADDR function|offset|unmapped TEXT". Exit 0, or 1 when the trace cannot
 * be read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "engine.h"
#include "symbols.h"
#include "trace-reader.h"

int main(int argc, char **argv)
{
	static const char *const kinds[] = { "function", "offset", "unmapped" };
	struct jank_engine_config ec;
	struct jank_reader_stats rs;
	struct jank_symbols_stats ss;
	struct jank_symbols *s;
	struct jank_engine *e;
	struct jank_reader *in;
	char err[512], buf[512];
	int64_t vpid;

	if (argc < 3) {
		fprintf(stderr, "usage: symbolize-trace TRACE VPID ADDR...\n");
		return 2;
	}
	vpid = strtoll(argv[2], NULL, 0);
	jank_engine_config_defaults(&ec);
	e = jank_engine_new(&ec);
	s = jank_symbols_new(0);
	if (!e || !s)
		return 1;
	in = jank_reader_new_ctf((const char *const *)&argv[1], 1, e, err, sizeof(err));
	if (!in) {
		fprintf(stderr, "symbolize-trace: %s\n", err);
		return 1;
	}
	jank_reader_set_symbols(in, s);
	if (jank_reader_run_all(in) != JANK_READER_STATUS_END) {
		fprintf(stderr, "symbolize-trace: %s\n", jank_reader_error(in));
		return 1;
	}
	jank_reader_get_stats(in, &rs);
	jank_symbols_get_stats(s, &ss);
	printf("events %" PRIu64 " mappings %" PRIu64 " binaries %" PRIu64 "\n", rs.symbol_events,
	       ss.mappings, ss.binaries);
	for (int i = 3; i < argc; i++) {
		uint64_t addr = strtoull(argv[i], NULL, 0);
		enum jank_symbols_result k = jank_symbols_lookup(s, vpid, addr, buf, sizeof(buf));

		printf("%s %s %s\n", argv[i], kinds[k], buf);
	}
	jank_reader_free(in);
	jank_engine_free(e);
	jank_symbols_free(s);
	return 0;
}
