#!/bin/sh
# The quick start's demo, checked: its trace goes through jank-gen and
# jankctl, and exactly the two slow frames come out, with the causes the
# demo's story gives them.
. "$top_srcdir/tests/tap.sh"
JQ=${JQ:-jq}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plan 6
"$top_srcdir/tests/data/demo/demo-trace.sh" "$work"
"$top_builddir/tests/gen/jank-gen" "$work/kernel.script" "$work/trace/kernel" &&
	"$top_builddir/tests/gen/jank-gen" "$work/ust.script" "$work/trace/ust"
check "demo trace generated" [ -f "$work/trace/kernel/metadata" ]
conf=$top_srcdir/tests/data/demo/demo.conf
json=$("$top_builddir/jankctl/jankctl" analyze --config "$conf" --format json "$work/trace")
check "two janks: frames 3 and 6" [ "$(echo "$json" | "$JQ" -rc 'select(.type=="action") | .key' |
	tr '\n' ' ')" = "name=frame,id=3 name=frame,id=6 " ]
check "frame 3 waited for db, which waited 40 ms for the disk" [ "$(echo "$json" |
	"$JQ" -r 'select(.key=="name=frame,id=3") | .critical_path[] |
	select(.state=="block_device") | "\(.comm) \(.end - .begin)"')" = "db 40010000" ]
check "frame 6 was preempted 20 ms" [ "$(echo "$json" |
	"$JQ" -r 'select(.key=="name=frame,id=6") | .breakdown.states.preempted')" = 20000000 ]
check "summary: 8 frames, 2 janks" [ "$(echo "$json" |
	"$JQ" -r 'select(.type=="summary") | "\(.count) \(.over_threshold)"')" = "8 2" ]
text=$("$top_builddir/jankctl/jankctl" analyze --config "$conf" "$work/trace")
check "text output tells the story" sh -c 'echo "$1" | grep -q "waiting for tid 4377 (db)"' - "$text"
