# tests/bench: `make bench` (not part of make check). run-bench.sh generates
# synthetic traces with bench/jank-synth and gen/jank-gen, times jankctl
# against babeltrace2 on them, and writes BENCHMARKS.md. The programs are
# built with the others so that they always compile.
noinst_PROGRAMS += bench/jank-synth bench/bench-critpath bench/bench-metrics bench/bench-stacks
bench_jank_synth_SOURCES = bench/jank-synth.c
bench_bench_critpath_SOURCES = bench/bench-critpath.c
bench_bench_critpath_LDADD = $(top_builddir)/lib/libjank.la -lm
# Weeks of short-lived instrumented processes, compressed: the table of call stacks over time.
bench_bench_stacks_SOURCES = bench/bench-stacks.c
bench_bench_stacks_LDADD = $(top_builddir)/lib/libjank.la -lm
# The cost of a scrape of jankd's metrics: 64 inputs, composition fully populated.
bench_bench_metrics_SOURCES = bench/bench-metrics.c
bench_bench_metrics_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(LIBEVENT_CFLAGS) -pthread
bench_bench_metrics_LDADD = $(top_builddir)/daemon/libjankd.la $(top_builddir)/io/libjank-io.la \
	$(top_builddir)/lib/libjank.la $(JSONC_LIBS) $(LIBEVENT_LIBS) -lm
bench_bench_metrics_LDFLAGS = -pthread

EXTRA_DIST += bench/run-bench.sh bench/bench.conf bench/syscalls.conf bench/live-load.sh bench/live-cpu.sh \
	bench/memory-budget.sh bench/fleet-load.sh bench/decoder-bench.sh bench/load-trace.sh bench/load.conf

# BENCH_SIZES, BENCH_REPEAT, BENCH_DIR, BENCH_OUT: see run-bench.sh.
bench: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	BABELTRACE2='$(BABELTRACE2_BIN)' bash $(srcdir)/bench/run-bench.sh
.PHONY: bench

# BENCH_REPEAT, BENCH_SCALE, BENCH_DIR: see decoder-bench.sh.
bench-decoders: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	BABELTRACE2='$(BABELTRACE2_BIN)' bash $(srcdir)/bench/decoder-bench.sh
.PHONY: bench-decoders

# The live readers' CPU per event, paired: jankd (native, babeltrace2) and
# babeltrace2's CLI; LIVE_CPU_RATES, LIVE_CPU_DURATION, LIVE_CPU_OUT: see
# live-cpu.sh (root; about 3 minutes).
bench-live: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	bash $(srcdir)/bench/live-cpu.sh
.PHONY: bench-live
# jankd under a steady load: alert latency, CPU and RSS over time;
# LOAD_RATE, LOAD_DURATION, LOAD_SAMPLE: see live-load.sh (root; 10 minutes).
bench-live-load: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	bash $(srcdir)/bench/live-load.sh
.PHONY: bench-live-load

# One jankd and a fleet of simulated hosts on one relayd: 8, 32 and 64 hosts
# idle and at 10,000 events/s each, and 1 against 2 cores; FLEET_HOSTS,
# FLEET_RATE, FLEET_DURATION, FLEET_IDLE, FLEET_SCALE_RATE, FLEET_OUT: see
# fleet-load.sh (root; about 15 minutes).
bench-fleet: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	bash $(srcdir)/bench/fleet-load.sh
.PHONY: bench-fleet

# Whether [graph] memory-limit holds on 1M open actions and 100k threads:
# see memory-budget.sh (a minute).
bench-memory: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	bash $(srcdir)/bench/memory-budget.sh
.PHONY: bench-memory

# The table of call stacks and RSS over 200,000 short-lived instrumented
# processes (BENCH_PROCESSES), through the engine: tests/bench/bench-stacks.c
# (a minute).
bench-stacks: all
	./bench/bench-stacks $${BENCH_PROCESSES:-200000}
.PHONY: bench-stacks
