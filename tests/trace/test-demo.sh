#!/bin/sh
# The quick start's demo, checked: its trace goes through jank-gen and
# jankctl, and exactly the three slow frames come out, with the causes the
# demo's story gives them, and what was different from the normal frames.
# Frame 20 waits for the app's pool, busy in work_cpu: the trace's statedump
# maps jank-demo, whose functions of those names nm finds, so the path names
# them (without nm, demo-trace.sh gives made-up addresses: hex).
. "$top_srcdir/tests/tap.sh"
JQ=${JQ:-jq}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plan 17
"$top_srcdir/tests/data/demo/demo-trace.sh" "$work" "$top_builddir/probes/jank-demo"
"$top_builddir/tests/gen/jank-gen" "$work/kernel.script" "$work/trace/kernel" &&
	"$top_builddir/tests/gen/jank-gen" "$work/ust.script" "$work/trace/ust"
check "demo trace generated" [ -f "$work/trace/kernel/metadata" ]
conf=$top_srcdir/tests/data/demo/demo.conf
json=$("$top_builddir/jankctl/jankctl" analyze --config "$conf" --format json "$work/trace")
check "three janks: frames 15, 18 and 20" [ "$(echo "$json" | "$JQ" -rc 'select(.type=="action") | .key' |
	tr '\n' ' ')" = "name=frame,id=15 name=frame,id=18 name=frame,id=20 " ]
check "frame 15 waited for db, which waited 40 ms for the disk" [ "$(echo "$json" |
	"$JQ" -r 'select(.key=="name=frame,id=15") | .critical_path[] |
	select(.state=="block_device") | "\(.comm) \(.end - .begin)"')" = "db 40010000" ]
check "frame 18 was preempted 20 ms" [ "$(echo "$json" |
	"$JQ" -r 'select(.key=="name=frame,id=18") | .breakdown.states.preempted')" = 20000000 ]
check "summary: 22 frames, 3 janks" [ "$(echo "$json" |
	"$JQ" -r 'select(.type=="summary") | "\(.count) \(.over_threshold)"')" = "22 3" ]
# Frame 20: posted its task to the pool (flow pool) and waited; the pool was
# still busy with frame 19's task, in work_cpu.
check "frame 20 went via flow pool to the pool's thread, which ran 22.3 ms before picking its task up" \
	[ "$(echo "$json" | "$JQ" -rc 'select(.key=="name=frame,id=20") | [.critical_path[] |
	select(.flow=="pool") | .comm] | unique')" = '["pool"]' -a "$(echo "$json" | "$JQ" -r '
	select(.key=="name=frame,id=20") | [.critical_path[] | select(.flow=="pool") | .end - .begin] | add')" = 22290000 ]
names=yes
command -v nm >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 || names=
if [ -n "$names" ]; then
	check "frame 20's path names the pool's functions: pool_main > work_cpu (jank-demo's symbols)" \
		[ "$(echo "$json" | "$JQ" -rc 'select(.key=="name=frame,id=20") | .critical_path[] |
		select(.tid == 4390 and .end - .begin > 20000000) | .stack')" = '["pool_main","work_cpu"]' ]
	check "frame 20's breakdown by function: work_cpu first, 24.3 ms" [ "$(echo "$json" | "$JQ" -rc '
		select(.key=="name=frame,id=20") | .breakdown.functions[0] | [.name, .ns]')" = '["work_cpu",24260000]' ]
else
	skip "frame 20's path names the pool's functions (no nm/readelf: hex addresses)"
	skip "frame 20's breakdown by function (no nm/readelf)"
fi
# The pool's running time gives way to the function it was spent in, which no normal frame ran.
check "frame 20's top suspect: the pool's function, +24.3 ms, on no normal path" [ "$(echo "$json" | "$JQ" -rc '
	select(.key=="name=frame,id=20") | .suspects.items[0] |
	[.kind, .thread, .state, .delta_ns, .normal_presence, (.function | test("^(work_cpu|0x[0-9a-f]+)$"))]')" = \
	'["function","pool","running",24260000,0,true]' ]
[ -z "$names" ] || check "text: '+24.3 ms in work_cpu on pool (normally none)'" sh -c \
	'echo "$1" | grep -q "^    +24.3 ms in work_cpu on pool (normally none)$"' - \
	"$("$top_builddir/jankctl/jankctl" analyze --config "$conf" "$work/trace")"
[ -n "$names" ] || skip "text: '+24.3 ms in work_cpu on pool' (no nm/readelf: hex addresses)"
text=$("$top_builddir/jankctl/jankctl" analyze --config "$conf" "$work/trace")
check "text output tells the story" sh -c 'echo "$1" | grep -q "waiting for tid 4377 (db)" &&
	echo "$1" | grep -q "→ via flow pool to tid 4390 (pool): running 24.3 ms in "' - "$text"
[ -z "$names" ] || check "text: the pool's time in work_cpu, called from pool_main" sh -c \
	'echo "$1" | grep -q "→ via flow pool to tid 4390 (pool): running 24.3 ms in work_cpu ← pool_main$"' - "$text"
[ -n "$names" ] || skip "text: the pool's time in work_cpu (no nm/readelf: hex addresses)"

# What was different: against the normal frames before them (15 and 17).
top() { echo "$json" | "$JQ" -rc "select(.key==\"name=frame,id=$1\") | .suspects |
	[.ready, .normal_actions, .items[0].kind, .items[0].state, .items[0].thread,
	 .items[0].delta_ns, (.cpu_taken_by[0].tid // null)]"; }
check "frame 15's top suspect: db's disk wait, +40 ms over 15 normal frames" \
	[ "$(top 15)" = '[true,15,"thread","block_device","db",40010000,null]' ]
check "frame 18's top suspect: its own preemption, +20 ms, CPU taken by backup (5100)" \
	[ "$(top 18)" = '[true,17,"thread","preempted","worker",20000000,5100]' ]
check "text: what was different, in words" sh -c 'echo "$1" | grep -q "^    +40.0 ms block_device waiting on db (normally none)$" &&
	echo "$1" | grep -q "^    +20.0 ms preempted (normally none), CPU taken by tid 5100 (backup)$"' - "$text"
# Too few normal frames: with 10 needed and 8 in the whole trace, the slow ones have no
# baseline, even compared with the whole trace (jankctl compares the early ones at the end).
sed 's/threshold = 16ms/threshold = 4.1ms/' "$conf" >"$work/low.conf"
early=$("$top_builddir/jankctl/jankctl" analyze --config "$work/low.conf" --format json "$work/trace" |
	"$JQ" -rc 'select(.type=="action") | .suspects | select(.ready | not) | "\(.baseline) \(.summary)"' | sort -u)
check "too few normal frames: 'no baseline yet', not a guess ($early)" \
	[ "$early" = "trace no baseline yet (8 of 10 normal actions in the whole trace)" ]
check "the other fields of analyze are unchanged: suspects come in addition" [ "$(echo "$json" |
	"$JQ" -rc 'select(.type=="action") | keys' | sort -u)" = \
	'["action","begin","breakdown","comm","critical_path","duration_ns","end","key","over_threshold","pid","suspects","threshold_ns","tid","type"]' ]
