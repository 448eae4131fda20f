#!/bin/bash
# make bench-decoders: the native CTF decoder against babeltrace2, offline.
#
# For the shapes of make bench (tests/bench/run-bench.sh: jank-synth piped
# into jank-gen, a kernel and a user-space trace each) and
# ../shared/traces/many-threads when present, in the same run, alternating,
# best of BENCH_REPEAT, CPU time (user + system) of:
#
#   babeltrace2 TRACE -c sink.utils.dummy              decode, merge, drop
#   jankctl analyze --decoder babeltrace2 -c CONF TRACE  decode, merge, analyse (as make bench)
#   jankctl analyze --decoder native -c CONF TRACE       the same, natively
#
# and checks that both jankctl runs print the same bytes. Prints a Markdown
# table: events per second of CPU, and each jank run's ratio to the dummy
# sink.
#
# Environment: BENCH_REPEAT (default 3), BENCH_SCALE (events of the
# synthetic shapes, in millions: default 1), BENCH_DIR (scratch directory).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
JANKCTL=${JANKCTL:-$top_builddir/jankctl/jankctl}
JANK_GEN=${JANK_GEN:-$top_builddir/tests/gen/jank-gen}
SYNTH=${SYNTH:-$top_builddir/tests/bench/jank-synth}
BT=${BABELTRACE2:-babeltrace2}
GNU_TIME=${GNU_TIME:-/usr/bin/time}
REPEAT=${BENCH_REPEAT:-3}
SCALE=${BENCH_SCALE:-1}
MANY=$top_srcdir/../shared/traces/many-threads
work=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT

# cpu CMD...: the CPU seconds (user + system) of one run.
cpu() {
	"$GNU_TIME" -f '%U %S' -o "$work/time" "$@" >"$work/out" 2>/dev/null || return 1
	awk '{ printf "%.3f", $1 + $2 }' "$work/time"
}

# best LABEL CMD...: the least CPU time of REPEAT runs.
best() {
	local b= t
	for _ in $(seq "$REPEAT"); do
		t=$(cpu "$@") || return 1
		if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN { exit !(a < b) }'; then
			b=$t
		fi
	done
	echo "$b"
}

synth() {
	local dir=$1 n=$2 c=$3 t=$4 r=$5
	shift 5
	rm -rf "$dir" && mkdir -p "$dir"
	"$SYNTH" -d kernel -S -n "$n" -c "$c" -t "$t" -r "$r" "$@" 2>/dev/null |
		"$JANK_GEN" - "$dir/kernel" &
	"$SYNTH" -d ust -n "$n" -c "$c" -t "$t" -r "$r" "$@" | "$JANK_GEN" - "$dir/ust" || return 1
	wait $!
}

# row LABEL CONF EVENTS TRACE...
row() {
	local label=$1 conf=$2 n=$3 bt jb jn same
	shift 3
	"$BT" "$@" -c sink.utils.dummy >/dev/null 2>&1 # warm the page cache
	bt=$(best "$BT" "$@" -c sink.utils.dummy) || return 1
	jb=$(best "$JANKCTL" analyze --decoder babeltrace2 -c "$conf" "$@") || return 1
	cp "$work/out" "$work/out.bt"
	jn=$(best "$JANKCTL" analyze --decoder native -c "$conf" "$@") || return 1
	cmp -s "$work/out" "$work/out.bt" && same=yes || same=NO
	awk -v l="$label" -v n="$n" -v bt="$bt" -v jb="$jb" -v jn="$jn" -v s="$same" 'BEGIN {
		printf "| %s | %.2fM | %.0f | %.0f (%.2fx) | %.0f (%.2fx) | %.2fx | %s |\n",
			l, n / 1e6, n / bt / 1e3, n / jb / 1e3, bt / jb, n / jn / 1e3, bt / jn,
			jb / jn, s }'
}

echo "| trace | events | babeltrace2 dummy (k ev/s CPU) | jank, babeltrace2 (k ev/s, x dummy) | jank, native (k ev/s, x dummy) | native / babeltrace2 | same output |"
echo "|---|---|---|---|---|---|---|"
m=$((SCALE * 1000000))
synth "$work/len" "$m" 16 2000 400000 &&
	row "16 CPUs, 2,000 threads (bench.conf)" "$top_srcdir/tests/bench/bench.conf" "$m" \
		"$work/len"
rm -rf "$work/len"
synth "$work/small" "$m" 8 100 200000 &&
	row "8 CPUs, 100 threads (bench.conf)" "$top_srcdir/tests/bench/bench.conf" "$m" \
		"$work/small"
rm -rf "$work/small"
synth "$work/sys" "$((m * 2))" 8 400 2270000 &&
	row "syscall-heavy, 8 CPUs, 400 threads (syscalls.conf)" \
		"$top_srcdir/tests/bench/syscalls.conf" "$((m * 2))" "$work/sys"
rm -rf "$work/sys"
synth "$work/func" "$((m * 2))" 8 200 4000000 --functions &&
	row "function-heavy, 8 CPUs, 200 threads (bench.conf)" \
		"$top_srcdir/tests/bench/bench.conf" "$((m * 2))" "$work/func"
rm -rf "$work/func"
if [ -f "$MANY/metadata" ]; then
	row "many-threads, real LTTng kernel trace (syscalls.conf)" \
		"$top_srcdir/tests/bench/syscalls.conf" 240640 "$MANY"
fi
