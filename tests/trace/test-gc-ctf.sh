#!/bin/sh
# GC invariance on the largest trace make check affords: a 1M-event
# synthetic kernel + user-space trace (tests/bench/jank-synth, written by
# jank-gen), analysed by jankctl end to end with GC on (20 ms retention, so
# that GC frees nearly everything) and with GC off (the hidden --no-gc).
# Every action's report, critical path included, is byte-identical; GC
# freed most of the graph and kept memory far lower; no path was truncated.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

SYNTH=${SYNTH:-$top_builddir/tests/bench/jank-synth}
[ -x "$SYNTH" ] || { echo "Bail out! $SYNTH is not built"; exit 1; }
[ -x "$JANK_GEN" ] || { echo "Bail out! $JANK_GEN is not built"; exit 1; }

plan 6

opts="-n 1000000 -c 8 -t 500 -r 200000 -s 7"
# shellcheck disable=SC2086
"$SYNTH" -d kernel $opts | "$JANK_GEN" - "$tmp/trace/kernel" 2>"$tmp/gen.err" &&
	"$SYNTH" -d ust $opts | "$JANK_GEN" - "$tmp/trace/ust" 2>>"$tmp/gen.err"
check "jank-gen writes the 1M-event trace" test $? -eq 0 -a ! -s "$tmp/gen.err"

cat >"$tmp/gc.conf" <<'X'
[graph]
retention = 20ms
[action frame]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 16ms
[action read]
begin = syscall_entry_read
end = syscall_exit_read
threshold = 5ms
X

"$JANKCTL" analyze --all --format json --stats --config "$tmp/gc.conf" "$tmp/trace" \
	>"$tmp/on.json" 2>"$tmp/on.stats"
on=$?
"$JANKCTL" analyze --no-gc --all --format json --stats --config "$tmp/gc.conf" "$tmp/trace" \
	>"$tmp/off.json" 2>"$tmp/off.stats"
check "analyze with GC on and off: exit 0" test "$on" -eq 0 -a $? -eq 0

stat() { awk -v k="$2" '$1 == "stat" && $2 == k { print $3 }' "$1"; }
n=$(grep -c '"type":"action"' "$tmp/on.json")
check "every report, critical path included, is identical with GC on and off ($n actions)" \
	cmp -s "$tmp/on.json" "$tmp/off.json"
check "many actions reported ($n)" test "${n:-0}" -gt 20000
fv=$(stat "$tmp/on.stats" freed_vertices) fw=$(stat "$tmp/on.stats" freed_threads)
check "GC freed most of the graph ($fv vertices, $fw threads) and no path was truncated" \
	test "${fv:-0}" -gt 300000 -a "${fw:-0}" -gt 1000 -a "$(stat "$tmp/on.stats" paths_truncated)" = 0
pon=$(stat "$tmp/on.stats" memory_peak) poff=$(stat "$tmp/off.stats" memory_peak)
diag "engine memory peak: $pon bytes with GC, $poff without"
check "GC keeps memory at a tenth or less" test "$((pon * 10))" -lt "${poff:-0}"
