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
