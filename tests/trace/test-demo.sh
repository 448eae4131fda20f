#!/bin/sh
# The quick start's demo, checked: its trace goes through jank-gen and
# jankctl, and exactly the two slow frames come out, with the causes the
# demo's story gives them, and what was different from the normal frames.
. "$top_srcdir/tests/tap.sh"
JQ=${JQ:-jq}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plan 11
"$top_srcdir/tests/data/demo/demo-trace.sh" "$work"
"$top_builddir/tests/gen/jank-gen" "$work/kernel.script" "$work/trace/kernel" &&
	"$top_builddir/tests/gen/jank-gen" "$work/ust.script" "$work/trace/ust"
check "demo trace generated" [ -f "$work/trace/kernel/metadata" ]
conf=$top_srcdir/tests/data/demo/demo.conf
json=$("$top_builddir/jankctl/jankctl" analyze --config "$conf" --format json "$work/trace")
check "two janks: frames 15 and 18" [ "$(echo "$json" | "$JQ" -rc 'select(.type=="action") | .key' |
	tr '\n' ' ')" = "name=frame,id=15 name=frame,id=18 " ]
check "frame 15 waited for db, which waited 40 ms for the disk" [ "$(echo "$json" |
	"$JQ" -r 'select(.key=="name=frame,id=15") | .critical_path[] |
	select(.state=="block_device") | "\(.comm) \(.end - .begin)"')" = "db 40010000" ]
check "frame 18 was preempted 20 ms" [ "$(echo "$json" |
	"$JQ" -r 'select(.key=="name=frame,id=18") | .breakdown.states.preempted')" = 20000000 ]
check "summary: 20 frames, 2 janks" [ "$(echo "$json" |
	"$JQ" -r 'select(.type=="summary") | "\(.count) \(.over_threshold)"')" = "20 2" ]
text=$("$top_builddir/jankctl/jankctl" analyze --config "$conf" "$work/trace")
check "text output tells the story" sh -c 'echo "$1" | grep -q "waiting for tid 4377 (db)"' - "$text"

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
# Cold start: with a baseline of 10 normal frames needed, frames up to the tenth have none.
sed 's/threshold = 16ms/threshold = 4.1ms/' "$conf" >"$work/low.conf"
early=$("$top_builddir/jankctl/jankctl" analyze --config "$work/low.conf" --format json "$work/trace" |
	"$JQ" -rc 'select(.type=="action") | .suspects | select(.ready | not) | .summary' | head -1)
check "cold start: 'no baseline yet', not a guess ($early)" \
	sh -c 'echo "$1" | grep -Eq "^no baseline yet \([0-9] of 10 normal actions\)$"' - "$early"
check "the other fields of analyze are unchanged: suspects come in addition" [ "$(echo "$json" |
	"$JQ" -rc 'select(.type=="action") | keys' | sort -u)" = \
	'["action","begin","breakdown","comm","critical_path","duration_ns","end","key","kind","over_threshold","pid","suspects","threshold_ns","tid","type"]' ]
