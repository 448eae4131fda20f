#!/bin/bash
# make bench: how fast jank analyses traces, and in how much memory.
#
# For each synthetic trace (tests/bench/jank-synth piped into
# tests/gen/jank-gen: a kernel and a user-space trace, see jank-synth.c) and
# for ../shared/traces/many-threads when present, in the same run and
# alternating, best of BENCH_REPEAT:
#
#   babeltrace2 TRACE -c sink.utils.dummy      src.ctf.fs -> muxer -> dummy
#   jankctl analyze --config bench.conf TRACE  src.ctf.fs -> muxer -> jank
#
# Both decode every event of both traces and merge them in time order; the
# dummy sink drops them, jank analyses them. Throughput is events per second
# of CPU time (user + system; both are single-threaded), so that other load
# on the machine does not skew the ratio; wall time is reported too. Peak
# RSS is GNU time's %M. Then: the critical-path microbenchmark
# (bench-critpath), the cost of a scrape of jankd's metrics with 64 inputs
# (bench-metrics), and the share of time spent in garbage collection (perf
# sampling, else callgrind), and the engine's own accounting (jankctl's
# hidden --stats).
#
# Prints a Markdown report and writes it into BENCHMARKS.md, between the
# "bench:begin" and "bench:end" markers (the text around them is kept).
#
# Environment:
#   BENCH_SIZES    events of the length series (default "1000000 5000000 20000000")
#   BENCH_REPEAT   runs of each program per trace (default 3)
#   BENCH_SHAPES   0: skip the 8-CPU/100-thread, 64-CPU/20,000-thread and
#                  syscall-heavy (syscalls.conf) traces
#   BENCH_FUNC_SIZES events of the function-heavy traces (jank-synth
#                  --functions: about 94% lttng_ust_cyg_profile:func_entry and
#                  func_exit; default "6000000 12000000", at least 5M function
#                  events; "": none)
#   BENCH_DIR      scratch directory for the traces (default: mktemp -d)
#   BENCH_OUT      report file (default $top_srcdir/BENCHMARKS.md; "-": none)
#   BENCH_CALLGRIND 0: skip the instruction counts (callgrind, a few minutes)
#   JANKCTL        the jankctl to measure (default $top_builddir/jankctl/jankctl)
#   JANKCTL_BEFORE another jankctl (an older build) measured in the same loop:
#                  the tables get its ratio and RSS too (before/after figures)
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
JANKCTL=${JANKCTL:-$top_builddir/jankctl/jankctl}
BEFORE=${JANKCTL_BEFORE:-}
JANK_GEN=${JANK_GEN:-$top_builddir/tests/gen/jank-gen}
SYNTH=${SYNTH:-$top_builddir/tests/bench/jank-synth}
CRITPATH=${CRITPATH:-$top_builddir/tests/bench/bench-critpath}
METRICS=${METRICS:-$top_builddir/tests/bench/bench-metrics}
BT=${BABELTRACE2:-babeltrace2}
GNU_TIME=${GNU_TIME:-/usr/bin/time}
CONF=$top_srcdir/tests/bench/bench.conf
SIZES=${BENCH_SIZES:-1000000 5000000 20000000}
REPEAT=${BENCH_REPEAT:-3}
SHAPES=${BENCH_SHAPES:-1}
FUNC_SIZES=${BENCH_FUNC_SIZES-6000000 12000000}
OUT=${BENCH_OUT:-$top_srcdir/BENCHMARKS.md}
MANY=$top_srcdir/../shared/traces/many-threads

die() { echo "run-bench: $*" >&2; exit 1; }
for p in "$JANKCTL" "$JANK_GEN" "$SYNTH" "$CRITPATH" "$METRICS"; do
	[ -x "$p" ] || die "$p is not built (run make first)"
done
command -v "$BT" >/dev/null 2>&1 || die "babeltrace2 not found"
"$GNU_TIME" -f %M true >/dev/null 2>&1 ||
	die "$GNU_TIME is not GNU time (install the Debian package 'time')"

if [ -n "${BENCH_DIR:-}" ]; then
	work=$BENCH_DIR
	mkdir -p "$work" || exit 1
else
	work=$(mktemp -d /tmp/jank-bench.XXXXXX) || exit 1
	trap 'rm -rf "$work"' EXIT
fi
trap 'exit 1' HUP INT TERM
report=$work/report.md
: >"$report"

say() { echo "$@" | tee -a "$report"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# measure OUT CMD...: one run; OUT gets "wall cpu rss_kib" (s, s, KiB).
measure() {
	local out=$1 t
	shift
	TIMEFORMAT='%3R %3U %3S'
	t=$({ time "$GNU_TIME" -f %M -o "$work/rss" "$@" >/dev/null 2>"$work/stderr"; } 2>&1) ||
		{ echo "run-bench: failed: $*" >&2; sed 's/^/  /' "$work/stderr" >&2; return 1; }
	set -- $t
	echo "$1 $(awk -v u="$2" -v s="$3" 'BEGIN { print u + s }') $(tail -n 1 "$work/rss")" >"$out"
}

# best FILE COLUMN: the smallest value of a column (best time) or the largest (RSS).
best() { sort -n -k"$2" "$1" | head -n 1 | cut -d' ' -f"$2"; }
most() { sort -n -k"$2" "$1" | tail -n 1 | cut -d' ' -f"$2"; }
stat_of() { awk -v k="$1" '$1 == "stat" && $2 == k { print $3 }' "$work/stats"; }

# compare LABEL TRACE EVENTS [len]: both programs, alternating; appends a table
# row (and, for the length series, a row of the RSS curve).
compare() {
	local label=$1 trace=$2 events=$3 series=${4:-} i n janks bt_cpu bt_wall bt_rss j_cpu j_wall j_rss peak
	: >"$work/bt.runs"
	: >"$work/jank.runs"
	# Short traces: more runs. One untimed run of each first: warm caches.
	n=$REPEAT
	[ "$events" -ge 2000000 ] || n=$((REPEAT * 3))
	: >"$work/before.runs"
	"$BT" "$trace" -c sink.utils.dummy >/dev/null 2>&1
	"$JANKCTL" analyze --config "$CONF" "$trace" >/dev/null 2>&1
	for i in $(seq "$n"); do
		measure "$work/one" "$BT" "$trace" -c sink.utils.dummy || return 1
		cat "$work/one" >>"$work/bt.runs"
		measure "$work/one" "$JANKCTL" analyze --config "$CONF" "$trace" || return 1
		cat "$work/one" >>"$work/jank.runs"
		if [ -n "$BEFORE" ]; then
			measure "$work/one" "$BEFORE" analyze --config "$CONF" "$trace" || return 1
			cat "$work/one" >>"$work/before.runs"
		fi
	done
	{ echo "$label: CPU s (wall s, RSS KiB) of each run:"
	  for f in bt jank before; do
		[ -s "$work/$f.runs" ] && echo "  $f: $(awk '{ printf "%s (%s, %s) ", $2, $1, $3 }' "$work/$f.runs")"
	  done; } >>"$work/runs.log"
	# The engine's own accounting, from one more run (older builds lack --stats).
	"$JANKCTL" analyze --stats --config "$CONF" "$trace" >/dev/null 2>"$work/stats" ||
		: >"$work/stats"
	bt_wall=$(best "$work/bt.runs" 1) bt_cpu=$(best "$work/bt.runs" 2)
	bt_rss=$(most "$work/bt.runs" 3)
	j_wall=$(best "$work/jank.runs" 1) j_cpu=$(best "$work/jank.runs" 2)
	j_rss=$(most "$work/jank.runs" 3)
	peak=$(stat_of memory_peak)
	peak=${peak:+$(awk -v b="$peak" 'BEGIN { printf "%.1f", b / 1048576 }')}
	janks=$(stat_of janks)
	# Each babeltrace2 run and the jank run right after it saw about the same
	# load: the median of these paired ratios, and their range.
	pairs=$(paste -d' ' "$work/bt.runs" "$work/jank.runs" | awk '{ print $2 / $5 }' | sort -n |
		awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.3f (%.3f-%.3f)", m, v[1], v[NR] }')
	awk -v l="$label" -v n="$events" -v bc="$bt_cpu" -v bw="$bt_wall" -v jc="$j_cpu" \
		-v jw="$j_wall" -v br="$bt_rss" -v jr="$j_rss" -v pk="${peak:-n/a}" \
		-v jk="${janks:-n/a}" -v pr="$pairs" 'BEGIN {
		printf "| %s | %s | %.2fM | %.2fM | %.3f | %s | %.3f | %.1f | %.1f | %s |\n", l, jk,
			n / bc / 1e6, n / jc / 1e6, bc / jc, pr, bw / jw, br / 1024, jr / 1024, pk
	}' >>"$work/rows"
	if [ -n "$BEFORE" ]; then
		awk -v l="$label" -v bc="$bt_cpu" -v jc="$j_cpu" -v xc="$(best "$work/before.runs" 2)" \
			-v jr="$j_rss" -v xr="$(most "$work/before.runs" 3)" 'BEGIN {
			printf "| %s | %.3f | %.3f | %.1f | %.1f |\n", l, bc / xc, bc / jc,
				xr / 1024, jr / 1024
		}' >>"$work/before.rows"
	fi
	[ "$series" = len ] &&
		echo "$events $j_rss ${peak:-n/a} $(stat_of vertices) $(stat_of threads)" \
			"$(awk '/events over/ { print $5 }' "$trace.mix" 2>/dev/null)" >>"$work/rss.rows"
	echo "run-bench: $label: babeltrace2 ${bt_cpu}s, jank ${j_cpu}s (CPU), RSS $(mib "$bt_rss") / $(mib "$j_rss") MiB" >&2
}

# synth DIR EVENTS CPUS THREADS RATE [OPTION...]: the two traces of a synthetic
# workload (OPTION: more jank-synth options, such as --functions).
synth() {
	local dir=$1 n=$2 c=$3 t=$4 r=$5 need avail
	shift 5
	need=$(( n / 1024 * 60 ))  # KiB, at about 50 bytes per event
	avail=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
	if [ "$avail" -lt $(( need + 1048576 )) ]; then
		echo "run-bench: skipping $n events: $((need / 1024)) MiB needed in $work" >&2
		return 1
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	set -- -n "$n" -c "$c" -t "$t" -r "$r" "$@"
	"$SYNTH" -d kernel -S "$@" 2>"$dir.mix" | "$JANK_GEN" - "$dir/kernel" &
	"$SYNTH" -d ust "$@" | "$JANK_GEN" - "$dir/ust" || return 1
	wait $! || return 1
	sync # no writeback of the new trace during the measurements
}

# ---------------------------------------------------------------------------
machine() {
	local cpu mem
	cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	echo "- Machine: $(nproc) CPUs ($cpu), $mem RAM, Linux $(uname -r)"
	echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); jank $("$JANKCTL" --version | awk '{ print $3 }')" \
		"($(git -C "$top_srcdir" describe --always --dirty 2>/dev/null || echo "no git"))," \
		"$("$BT" --version 2>/dev/null | head -n 1)"
	echo "- Runs: best of $REPEAT per program and trace ($((REPEAT * 3)) under 2M events)," \
		"the two programs alternating, after one untimed run of each"
}

say "<!-- bench:begin (written by make bench: tests/bench/run-bench.sh) -->"
say "## Results"
say
machine | tee -a "$report"
say

: >"$work/rows"
: >"$work/rss.rows"
: >"$work/before.rows"
: >"$work/runs.log"
# The GC is measured on the second trace of the series (steady state), or the first.
first= gc_trace= syscalls=
for n in $SIZES; do
	d=$work/len-$n
	synth "$d" "$n" 16 2000 400000 || continue
	compare "$((n / 1000000))M events, 16 CPUs, 2,000 threads" "$d" "$n" len
	if [ -z "$first" ]; then
		first=$d
	elif [ -z "$gc_trace" ]; then
		gc_trace=$d
	else
		rm -rf "$d"
	fi
done
gc_trace=${gc_trace:-$first}
if [ "$SHAPES" != 0 ]; then
	d=$work/small
	synth "$d" 1000000 8 100 200000 && compare "1M events, 8 CPUs, 100 threads" "$d" 1000000
	rm -rf "$d"
	d=$work/wide
	synth "$d" 5000000 64 20000 1600000 &&
		compare "5M events, 64 CPUs, 20,000 threads" "$d" 5000000
	rm -rf "$d"
	# Syscall-heavy and scheduler-dense: 2M events in 0.88 s of trace time.
	d=$work/syscalls
	synth "$d" 2000000 8 400 2270000 &&
		CONF=$top_srcdir/tests/bench/syscalls.conf \
			compare "2M events, 8 CPUs, 400 threads, syscall rule (syscalls.conf)" "$d" 2000000 &&
		syscalls=$d # kept for the instruction counts
fi
# Function-heavy: cyg-profile's event per call, deep and shallow stacks, 200
# threads on 8 CPUs, 4M events per second of trace time; two lengths, so
# that the RSS against length shows.
for n in $FUNC_SIZES; do
	d=$work/func-$n
	synth "$d" "$n" 8 200 4000000 --functions || continue
	nf=$(awk '/cyg_profile/ { print $(NF - 1) }' "$d.mix")
	compare "$((n / 1000000))M events, function-heavy ($(awk -v f="${nf:-0}" \
		'BEGIN { printf "%.2fM", f / 1e6 }') func_entry/exit), 8 CPUs, 200 threads" "$d" "$n"
	rm -rf "$d"
done
if [ -f "$MANY/metadata" ]; then
	n=$("$BT" "$MANY" 2>/dev/null | wc -l)
	compare "many-threads (real, $n events)" "$MANY" "$n"
fi

say "### Throughput and memory"
say
say "Events per second of CPU time. Ratio: jank's throughput over babeltrace2's"
say "(decode and merge only) on the same trace; the target is at least 0.9."
say "Ratio (CPU): best run over best run. Paired: the median, and the range, of the"
say "ratios of each babeltrace2 run and the jank run right after it."
say
say "| trace | janks reported | babeltrace2 ev/s | jank ev/s | ratio (CPU) | ratio (CPU, paired) | ratio (wall) | babeltrace2 RSS MiB | jank RSS MiB | engine peak MiB |"
say "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
cat "$work/rows" | tee -a "$report"
say

if [ -n "$BEFORE" ]; then
	say "### Before and after (the two builds measured in the same runs)"
	say
	say "Before: $BEFORE. Ratio: throughput over babeltrace2's, CPU time."
	say
	say "| trace | ratio before | ratio after | RSS MiB before | RSS MiB after |"
	say "|---|---:|---:|---:|---:|"
	cat "$work/before.rows" | tee -a "$report"
	say
fi

say "### Peak RSS against trace length (retention 2 s)"
say
say "| events | trace time | jank RSS MiB | × the 1M trace | engine peak MiB | vertices | threads |"
say "|---:|---:|---:|---:|---:|---:|---:|"
awk '{
	if (!base) base = $2
	printf "| %dM | %.1f s | %.1f | %.2f | %s | %s | %s |\n", $1 / 1e6, $6,
		$2 / 1024, $2 / base, $3, $4, $5
}' "$work/rss.rows" | tee -a "$report"
say

if [ -n "$first" ] && [ -f "$first.mix" ]; then
	say "### Event mix of the synthetic traces (the first one; the others are alike)"
	say
	say '```'
	sed 's/^# *//' "$first.mix" | tee -a "$report"
	say '```'
	say
fi

say "### Critical path per flagged action (tests/bench/bench-critpath)"
say
"$CRITPATH" | tee -a "$report"
say

say "### A scrape of jankd's metrics (tests/bench/bench-metrics)"
say
say "The supervisor's work for one scrape (figures merged, /proc read, page"
say "rendered in OpenMetrics), jank_critical_path_seconds fully populated: K + 1"
say "names x 11 states x 2 classes per rule. CPU time: mean over the scrapes."
say
"$METRICS" | tee -a "$report"
say

# Instructions (callgrind): deterministic, unlike times on a shared machine.
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" >/dev/null \
		2>"$work/cg.err" || return 1
	awk '/Collected :/ { print $NF }' "$work/cg.err"
}
# ir_rows TRACE CONF EVENTS: the table rows of babeltrace2, jank (and before) on TRACE.
ir_rows() {
	local trace=$1 conf=$2 n=$3 bt_ir j_ir x_ir
	bt_ir=$(ir "$BT" "$trace" -c sink.utils.dummy)
	j_ir=$(ir "$JANKCTL" analyze --config "$conf" "$trace")
	awk -v b="$bt_ir" -v j="$j_ir" -v n="$n" 'BEGIN {
		printf "| babeltrace2 (decode, merge) | %.3fG | %.0f | |\n", b / 1e9, b / n
		printf "| jank (decode, merge, analyse) | %.3fG | %.0f | %.3f |\n", j / 1e9, j / n, b / j
	}' | tee -a "$report"
	if [ -n "$BEFORE" ]; then
		x_ir=$(ir "$BEFORE" analyze --config "$conf" "$trace")
		awk -v b="$bt_ir" -v x="$x_ir" -v n="$n" 'BEGIN {
			printf "| jank before | %.3fG | %.0f | %.3f |\n", x / 1e9, x / n, b / x
		}' | tee -a "$report"
	fi
}
if [ "${BENCH_CALLGRIND:-1}" != 0 ] && [ -n "$first" ] && command -v valgrind >/dev/null 2>&1; then
	say "### Instructions (callgrind: deterministic)"
	say
	say "Instructions executed, a figure that the load of a shared machine does not"
	say "move. Ratio: babeltrace2's over jank's."
	say
	say "On the first trace of the length series ($(basename "$first" | sed 's/^len-//') events):"
	say
	say "| program | instructions | per event | ratio |"
	say "|---|---:|---:|---:|"
	ir_rows "$first" "$CONF" "$(basename "$first" | sed 's/^len-//')"
	say
	if [ -n "$syscalls" ]; then
		say "On the syscall-heavy trace (2M events, syscalls.conf):"
		say
		say "| program | instructions | per event | ratio |"
		say "|---|---:|---:|---:|"
		ir_rows "$syscalls" "$top_srcdir/tests/bench/syscalls.conf" 2000000
		say
	fi
fi
[ -n "$syscalls" ] && rm -rf "$syscalls"

# GC: share of the analysis spent in jank_graph_gc_step (and what it calls).
say "### Garbage collection"
say
if [ -z "$gc_trace" ]; then
	say "No trace: skipped."
elif perf record -q -e cpu-clock -o "$work/perf.test" true >/dev/null 2>&1; then
	perf record -q -e cpu-clock -F 999 --call-graph dwarf,8192 -o "$work/perf.data" \
		"$JANKCTL" analyze --config "$CONF" "$gc_trace" >/dev/null 2>&1
	perf report -i "$work/perf.data" --children --stdio --sort sym -g none 2>/dev/null \
		>"$work/perf.txt"
	gc=$(awk '/jank_graph_gc_step/ { print $1; exit }' "$work/perf.txt")
	eng=$(awk '/jank_engine_process$/ { print $1; exit }' "$work/perf.txt")
	say "Method: perf sampling (cpu-clock, 999 Hz, DWARF call graphs) of jankctl on the"
	say "second trace of the length series (steady state); the share of samples with"
	say "jank_graph_gc_step on the stack (GC and what it frees: the incremental steps and"
	say "the budget's sweeps) and with jank_engine_process (the whole engine, GC included)."
	say
	say "| trace | GC share of all time | engine share of all time | GC steps | vertices freed | threads freed |"
	say "|---|---:|---:|---:|---:|---:|"
	"$JANKCTL" analyze --stats --config "$CONF" "$gc_trace" >/dev/null 2>"$work/stats" ||
		: >"$work/stats"
	say "| $(basename "$gc_trace") | ${gc:-0%} | ${eng:-n/a} | $(stat_of gc_steps) | $(stat_of freed_vertices) | $(stat_of freed_threads) |"
elif command -v valgrind >/dev/null 2>&1; then
	valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$JANKCTL" analyze \
		--config "$CONF" "$gc_trace" >/dev/null 2>&1
	total=$(callgrind_annotate "$work/cg.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
	gc=$(callgrind_annotate --inclusive=yes "$work/cg.out" 2>/dev/null |
		awk '/jank_graph_gc_step/ { gsub(",", "", $1); print $1; exit }')
	say "Method: callgrind (instructions, deterministic) of jankctl on the trace:"
	say "inclusive instructions of jank_graph_gc_step over the program's."
	say
	say "GC share: $(awk -v g="${gc:-0}" -v t="$total" 'BEGIN { printf "%.2f%%", 100 * g / t }') of all instructions"
else
	say "Neither perf nor valgrind: skipped."
fi
say
say "<!-- bench:end -->"
sed 's/^/run-bench: /' "$work/runs.log" >&2

# Into BENCHMARKS.md: replace the text between the markers, keep the rest.
if [ "$OUT" != "-" ]; then
	if [ -f "$OUT" ] && grep -q '<!-- bench:begin' "$OUT" && grep -q '<!-- bench:end' "$OUT"; then
		awk -v r="$report" '
			/<!-- bench:begin/ { while ((getline l < r) > 0) print l; skip = 1; next }
			/<!-- bench:end/ { skip = 0; next }
			!skip' "$OUT" >"$work/out.md" && cat "$work/out.md" >"$OUT"
	else
		{ [ -f "$OUT" ] && cat "$OUT" && echo; cat "$report"; } >"$work/out.md" &&
			cat "$work/out.md" >"$OUT"
	fi
	echo "run-bench: wrote $OUT" >&2
fi
