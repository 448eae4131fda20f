#!/bin/sh
# jankctl flame and compare --flame on a trace with call stacks (issue 24):
# kernel scheduling from jank-gen, and cyg-profile func_entry/func_exit in
# the user-space trace, named by their addresses (no statedump).
#
# Thread A (ui, tid 101) handles requests in main > handle: it computes 2 ms
# in compute, then in load wakes B (db, tid 102) and waits; B, woken in
# db_main > wait_req, gets a CPU 50 us later, runs D ms in query > scan,
# wakes A and waits again; A gets a CPU 50 us later and runs 1 ms in
# handle. D is 2 ms, but 30 ms for requests 3 and 5: the slow ones (the
# threshold is 10 ms).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

MS=1000000 US=1000
A=101 B=102
MAIN=0x401000 HANDLE=0x401100 COMPUTE=0x401200 LOAD=0x401300
DB_MAIN=0x501000 WAIT_REQ=0x501100 QUERY=0x501200 SCAN=0x501300

cat >"$tmp/flame.conf" <<'EOF'
[action req]
begin = jank:action_begin
end = jank:action_end
key = name, id
match = name == "req"
threshold = 10ms
EOF

sw() { # ts cpu prev_comm prev_tid prev_state next_comm next_tid
	echo "$1 $2 sched_switch prev_comm=\"$3\" prev_tid=$4 prev_prio=20 prev_state=$5 next_comm=\"$6\" next_tid=$7 next_prio=20" >>"$tmp/k.script"
}
wake() { # ts cpu comm tid
	echo "$1 $2 sched_waking comm=\"$3\" tid=$4 prio=20 target_cpu=$2" >>"$tmp/k.script"
	echo "$1 $2 sched_wakeup comm=\"$3\" tid=$4 prio=20 target_cpu=$2" >>"$tmp/k.script"
}
fn() { # ts cpu entry|exit tid addr
	if [ "$4" = $A ]; then pid=100 comm=ui; else pid=200 comm=db; fi
	echo "$1 $2 lttng_ust_cyg_profile:func_$3 addr=$5 call_site=0x400800 vpid=$pid vtid=$4 procname=\"$comm\"" >>"$tmp/u.script"
}
act() { # ts begin|end id
	echo "$1 0 jank:action_$2 name=\"req\" id=$3 vpid=100 vtid=$A procname=\"ui\"" >>"$tmp/u.script"
}

printf '@trace kernel\n@cpus 2\n' >"$tmp/k.script"
printf '@trace ust\n@cpus 2\n@context vpid vtid procname:string\n' >"$tmp/u.script"
sw 0 0 swapper/0 0 0 ui $A
sw 0 1 db $B 1 swapper/1 0
fn $((1 * US)) 0 entry $A $MAIN
fn $((1 * US)) 1 entry $B $DB_MAIN
fn $((2 * US)) 1 entry $B $WAIT_REQ
t=$((1 * MS))
for id in 1 2 3 4 5 6; do
	d=$((2 * MS))
	[ $id = 3 ] || [ $id = 5 ] && d=$((30 * MS))
	fn $((t - 2 * US)) 0 entry $A $HANDLE
	fn $((t - 1 * US)) 0 entry $A $COMPUTE
	act $t begin $id
	t=$((t + 2 * MS))
	fn $t 0 exit $A $COMPUTE
	fn $t 0 entry $A $LOAD
	wake $t 0 db $B
	sw $t 0 ui $A 1 swapper/0 0
	t=$((t + 50 * US))
	sw $t 1 swapper/1 0 0 db $B
	fn $t 1 exit $B $WAIT_REQ
	fn $t 1 entry $B $QUERY
	fn $t 1 entry $B $SCAN
	t=$((t + d))
	fn $t 1 exit $B $SCAN
	fn $t 1 exit $B $QUERY
	fn $t 1 entry $B $WAIT_REQ
	wake $t 1 ui $A
	sw $t 1 db $B 1 swapper/1 0
	t=$((t + 50 * US))
	sw $t 0 swapper/0 0 0 ui $A
	fn $t 0 exit $A $LOAD
	t=$((t + 1 * MS))
	act $t end $id
	fn $((t + 1 * US)) 0 exit $A $HANDLE
	t=$((t + 10 * MS))
done
"$JANK_GEN" "$tmp/k.script" "$tmp/trace/kernel" && "$JANK_GEN" "$tmp/u.script" "$tmp/trace/ust" ||
	{ echo "Bail out! cannot generate the trace"; exit 1; }

# ---- jankctl flame: folded stacks ----
"$JANKCTL" flame --config "$tmp/flame.conf" "$tmp/trace" >"$tmp/slow.folded" 2>"$tmp/err"
st=$?
check "flame: exit 0, nothing on stderr" [ "$st" = 0 ] && [ ! -s "$tmp/err" ]
cat >"$tmp/want" <<EOF2
db;$DB_MAIN;$WAIT_REQ;[preempted] 100000
db;$DB_MAIN;$QUERY;$SCAN 60000000
ui;$MAIN;$HANDLE 2000000
ui;$MAIN;$HANDLE;$COMPUTE 4000000
ui;$MAIN;$HANDLE;$LOAD;[preempted] 100000
EOF2
check "flame: the two slow paths by thread and stack, wait states as leaves (exact)" \
	cmp -s "$tmp/want" "$tmp/slow.folded"
cmp -s "$tmp/want" "$tmp/slow.folded" || { diag "want:"; sed 's/^/#   /' "$tmp/want"; diag "got:"; sed 's/^/#   /' "$tmp/slow.folded"; }
check "flame: the lines add up to the two slow actions' durations (2 x 33.1 ms)" \
	[ "$(awk '{ s += $NF } END { print s }' "$tmp/slow.folded")" = 66200000 ]
"$JANKCTL" flame --all --config "$tmp/flame.conf" "$tmp/trace" >"$tmp/all.folded"
check "flame --all: the six paths, the normal ones' scan too (2 x 30 + 4 x 2 ms)" sh -c '
	grep -qx "db;$2;$3;$4 68000000" "$1" && [ "$(awk "{ s += \$NF } END { print s }" "$1")" = 86600000 ]' \
	- "$tmp/all.folded" $DB_MAIN $QUERY $SCAN
"$JANKCTL" flame -A req -f folded -c "$tmp/flame.conf" "$tmp/trace" >"$tmp/short.folded"
check "flame: short options, --action of the only rule" cmp -s "$tmp/slow.folded" "$tmp/short.folded"

# ---- jankctl flame: the picture ----
"$JANKCTL" flame --config "$tmp/flame.conf" --format svg "$tmp/trace" >"$tmp/slow.svg" 2>"$tmp/err"
check "flame --format svg: well-formed XML on standard output" xmllint --noout "$tmp/slow.svg"
check "flame --format svg: a frame per node, titled with its time and share" sh -c '
	grep -q "<title>all (66.2 ms, 100.00%)</title>" "$1" &&
	grep -q "<title>$2 (60.0 ms, 90.63%)</title>" "$1" &&
	grep -q "<title>db (60.1 ms, 90.79%)</title>" "$1" &&
	[ "$(grep -c "<title>\[preempted\] (100 us, 0.15%)</title>" "$1")" = 2 ] &&
	[ "$(grep -c "</title><rect " "$1")" = 13 ]' - "$tmp/slow.svg" $SCAN
# #f9a825: preempted's colour in every picture of jank (io/svg.c).
check "flame --format svg: the wait states in their state's colour" \
	[ "$(grep -o '<title>\[preempted\] [^<]*</title><rect [^>]*fill="#[0-9a-f]*"' "$tmp/slow.svg" |
	sed 's/.*fill=//' | sort -u)" = '"#f9a825"' ]
"$JANKCTL" flame --config "$tmp/flame.conf" --svg "$tmp/file.svg" "$tmp/trace" >"$tmp/out"
check "flame --svg FILE: the same picture in FILE, the folded stacks on standard output" \
	sh -c 'cmp -s "$1" "$2" && cmp -s "$3" "$4"' - "$tmp/slow.svg" "$tmp/file.svg" "$tmp/slow.folded" "$tmp/out"

# ---- compare --flame: slow against normal ----
"$JANKCTL" compare --config "$tmp/flame.conf" --flame "$tmp/diff.svg" "$tmp/trace" >"$tmp/cmp.txt" 2>"$tmp/err"
check "compare --flame: exit 0, the comparison still on standard output" \
	grep -q '^req: 2 slow actions (over the threshold) against 4 normal ones$' "$tmp/cmp.txt"
check "compare --flame: a well-formed SVG" xmllint --noout "$tmp/diff.svg"
# fill FRAME: the fill of the frame whose title begins with FRAME.
fill() { grep -o "<title>$1 ([^<]*</title><rect [^>]*fill=\"#[0-9a-f]*\"" "$tmp/diff.svg" | sed 's/.*fill="//; s/"$//'; }
check "compare --flame: scan, 30 ms per slow action against 2, deep red" [ "$(fill $SCAN)" = "#ff3636" ]
check "compare --flame: db, where the slow spend more, red" sh -c 'case $1 in "#ff"????) [ "$1" != "#ffffff" ];; *) false;; esac' - "$(fill db)"
check "compare --flame: compute, the same in both, white" [ "$(fill $COMPUTE)" = "#ffffff" ]
check "compare --flame: time per action in the tooltips" \
	grep -q "<title>$SCAN (slow 30.0 ms, normal 2.00 ms per action, +1400.0%)</title>" "$tmp/diff.svg"
check "compare --flame: with --svg too, both pictures" sh -c '
	"$1" compare --config "$2" --svg "$3/bars.svg" --flame "$3/d2.svg" "$3/trace" >/dev/null &&
	xmllint --noout "$3/bars.svg" && cmp -s "$3/diff.svg" "$3/d2.svg"' - "$JANKCTL" "$tmp/flame.conf" "$tmp"
# After against before: the same trace on both sides, every frame white.
"$JANKCTL" compare --config "$tmp/flame.conf" --before "$tmp/trace" --flame "$tmp/same.svg" "$tmp/trace" >/dev/null
check "compare --before --flame: a trace against itself is white all over" sh -c '
	xmllint --noout "$1" && [ "$(grep -o "</title><rect [^>]*fill=\"#[0-9a-f]*\"" "$1" |
	sed "s/.*fill=//" | sort -u)" = "\"#ffffff\"" ]' - "$tmp/same.svg"

# ---- Errors ----
expect_error "flame: --format text is not one of its formats" 2 "^jankctl: flame: bad --format 'text' \(expected folded or svg\)\$" -- \
	"$JANKCTL" flame --config "$tmp/flame.conf" --format text "$tmp/trace"
expect_error "flame: --config is required" 2 "^jankctl: flame: --config FILE is required" -- \
	"$JANKCTL" flame "$tmp/trace"
expect_error "flame: an unknown rule" 1 "^jankctl: flame: $tmp/flame.conf has no \[action nope\]\$" -- \
	"$JANKCTL" flame --config "$tmp/flame.conf" --action nope "$tmp/trace"
expect_error "flame: --before is compare's" 2 "^jankctl: flame: option '--before' does not apply" -- \
	"$JANKCTL" flame --config "$tmp/flame.conf" --before "$tmp/trace" "$tmp/trace"
sed 's/threshold = 10ms/threshold = 1s/' "$tmp/flame.conf" >"$tmp/none.conf"
expect_error "flame: no slow action: exit 0, an empty flame, and it says so" 0 \
	"^jankctl: flame: no slow 'req' action in the traces: the flame graph is empty\$" -- \
	"$JANKCTL" flame --config "$tmp/none.conf" "$tmp/trace"
check "... nothing on standard output" [ ! -s "$tmp/out" ]
"$JANKCTL" flame --config "$tmp/none.conf" --format svg "$tmp/trace" >"$tmp/empty.svg" 2>/dev/null
check "... and the empty picture says 'No time.'" sh -c 'xmllint --noout "$1" && grep -q ">No time.</text>" "$1"' - "$tmp/empty.svg"
expect_error "flame --svg where it cannot be written" 1 "^jankctl: flame: cannot write $tmp/nope/x.svg: " -- \
	"$JANKCTL" flame --config "$tmp/flame.conf" --svg "$tmp/nope/x.svg" "$tmp/trace"
expect_error "compare --flame where it cannot be written" 1 "^jankctl: compare: cannot write $tmp/nope/x.svg: " -- \
	"$JANKCTL" compare --config "$tmp/flame.conf" --flame "$tmp/nope/x.svg" "$tmp/trace"
expect_error "compare --flame into a directory" 1 "^jankctl: compare: cannot write $tmp/: Is a directory\$" -- \
	"$JANKCTL" compare --config "$tmp/flame.conf" --flame "$tmp/" "$tmp/trace"

plan "$_tap_n"
