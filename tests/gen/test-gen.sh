#!/bin/sh
# TAP test of tests/gen/jank-gen: generate a kernel and a user space CTF trace
# from scripts, read them back with babeltrace2 (src.ctf.fs) and check event
# names, fields, cpu_id, exact timestamps, the environment and the discarded
# events report; then check that bad scripts fail with a one-line error
# naming the script line.
. "$top_srcdir/tests/tap.sh"

GEN=$top_builddir/tests/gen/jank-gen
BT=${BABELTRACE2:-babeltrace2}

command -v "$BT" >/dev/null 2>&1 || plan_skip_all "babeltrace2 not found"
if [ ! -x "$GEN" ]; then
	echo "Bail out! $GEN is not built"
	exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# has_line FILE LINE: FILE has exactly this line.
has_line() { grep -qxF -- "$2" "$1"; }

# ------------------------------------------------------------------ kernel
cat >"$tmp/kernel.txt" <<'EOF'
# two CPUs, an old lttng-modules, packets of 2 events
@trace kernel
@env tracer_minor=8
@env hostname="box"
@cpus 2
@packet 2
100 0 sched_switch prev_comm="swapper/0" prev_tid=0 prev_prio=20 prev_state=0 next_comm="cc1" next_tid=42 next_prio=120
150 1 sched_wakeup comm="cc1" tid=43 prio=120 target_cpu=1
200 1 sched_switch prev_comm="swapper/1" prev_tid=0 prev_prio=20 prev_state=0 next_comm="cc1 \"b\\s\"" next_tid=43 next_prio=-5
300 0 sched_switch prev_comm="cc1" prev_tid=42 prev_prio=120 prev_state=1 next_comm="swapper/0" next_tid=0 next_prio=20   # blocked
@discarded 1 5
1000000000 1 irq_handler_entry irq=16 name="eth0" flags=0xffffffffffffffff
EOF

k=$tmp/kernel
"$GEN" "$tmp/kernel.txt" "$k" 2>"$tmp/err"
check "kernel: jank-gen exits 0" test $? -eq 0 -a ! -s "$tmp/err"
check "kernel: one stream file per CPU" \
	test -f "$k/metadata" -a -f "$k/channel0_0" -a -f "$k/channel0_1"

"$BT" --clock-cycles "$k" >"$tmp/out" 2>"$tmp/bterr"
check "kernel: babeltrace2 reads the trace" test $? -eq 0
check "kernel: 5 events" test "$(wc -l <"$tmp/out")" -eq 5
cat >"$tmp/expect" <<'EOF'
[00000000000000000100] (+????????????) box sched_switch: { cpu_id = 0 }, { prev_comm = "swapper/0", prev_tid = 0, prev_prio = 20, prev_state = 0, next_comm = "cc1", next_tid = 42, next_prio = 120 }
[00000000000000000150] (+000000000050) box sched_wakeup: { cpu_id = 1 }, { comm = "cc1", tid = 43, prio = 120, target_cpu = 1 }
[00000000000000000200] (+000000000050) box sched_switch: { cpu_id = 1 }, { prev_comm = "swapper/1", prev_tid = 0, prev_prio = 20, prev_state = 0, next_comm = "cc1 \"b\\s\"", next_tid = 43, next_prio = -5 }
[00000000000000000300] (+000000000100) box sched_switch: { cpu_id = 0 }, { prev_comm = "cc1", prev_tid = 42, prev_prio = 120, prev_state = 1, next_comm = "swapper/0", next_tid = 0, next_prio = 20 }
[00000000001000000000] (+000999999700) box irq_handler_entry: { cpu_id = 1 }, { irq = 16, name = "eth0", flags = 18446744073709551615 }
EOF
n=0
while IFS= read -r line; do
	n=$((n + 1))
	check "kernel: event $n (name, cpu_id, fields, timestamp)" \
		has_line "$tmp/out" "$line"
done <"$tmp/expect"
check "kernel: events in timestamp order" cmp -s "$tmp/out" "$tmp/expect"

"$BT" --clock-seconds "$k" 2>/dev/null | tail -n 1 >"$tmp/out"
check "kernel: ns-from-origin is the script timestamp" \
	grep -q '^\[1\.000000000\] ' "$tmp/out"

check "kernel: discarded events reported" grep -q \
	'discarded 5 events between \[00:00:00\.000000200\] and \[00:00:01\.000000000\].*channel0_1' \
	"$tmp/bterr"

"$BT" -o ctf-metadata "$k" >"$tmp/meta" 2>/dev/null
for entry in 'domain = "kernel";' 'tracer_name = "lttng-modules";' \
	'tracer_major = 2;' 'tracer_minor = 8;' 'tracer_patchlevel = 0;' \
	'hostname = "box";' 'sysname = "Linux";'; do
	check "kernel: env $entry" grep -qF "	$entry" "$tmp/meta"
done
check "kernel: clock is 1 GHz, offset 0" \
	sh -c 'grep -q "freq = 1000000000;" "$1" && grep -q "offset = 0;" "$1" &&
	       grep -q "name = monotonic;" "$1"' sh "$tmp/meta"

# --------------------------------------------------------------------- ust
cat >"$tmp/ust.txt" <<'EOF'
@trace ust
@cpus 2
@context vpid vtid procname:string
1000 0 jank:action_begin vpid=100 vtid=101 procname="demo" name="frame" id=0x3
1500 1 jank:action_begin name="load" id=0x4 vpid=100 vtid=102 procname="demo"
2500 0 jank:action_end vpid=100 vtid=101 procname="demo" id=0x3
EOF

u=$tmp/ust
"$GEN" - "$u" <"$tmp/ust.txt" 2>"$tmp/err"
check "ust: jank-gen reads the script from stdin" test $? -eq 0 -a ! -s "$tmp/err"

"$BT" --clock-cycles "$u" >"$tmp/out" 2>/dev/null
check "ust: babeltrace2 reads the trace" test $? -eq 0
cat >"$tmp/expect" <<'EOF'
[00000000000000001000] (+????????????) jank-fixture jank:action_begin: { cpu_id = 0 }, { vpid = 100, vtid = 101, procname = "demo" }, { name = "frame", id = 3 }
[00000000000000001500] (+000000000500) jank-fixture jank:action_begin: { cpu_id = 1 }, { vpid = 100, vtid = 102, procname = "demo" }, { name = "load", id = 4 }
[00000000000000002500] (+000000001000) jank-fixture jank:action_end: { cpu_id = 0 }, { vpid = 100, vtid = 101, procname = "demo" }, { id = 3 }
EOF
check "ust: events, context, payload, cpu_id and timestamps" \
	cmp -s "$tmp/out" "$tmp/expect"

"$BT" -o ctf-metadata "$u" >"$tmp/meta" 2>/dev/null
check "ust: env domain and tracer" sh -c \
	'grep -qF "domain = \"ust\";" "$1" &&
	 grep -qF "tracer_name = \"lttng-ust\";" "$1" &&
	 grep -qF "tracer_minor = 13;" "$1"' sh "$tmp/meta"

# ------------------------------------ context fields named as payload fields
# lttng-modules' kernel events carry a tid context and, some of them, a tid
# payload field: ctx.tid is the context, a bare tid then the payload.
cat >"$tmp/ctx.txt" <<'EOF'
@trace kernel
@context tid pid procname:string
100 0 sched_wakeup comm="a" tid=43 prio=20 target_cpu=0 ctx.tid=7 ctx.pid=7 procname="x"
200 0 sched_wakeup ctx.tid=8 comm="b" tid=44 prio=20 target_cpu=0 pid=8 ctx.procname="y"
EOF
"$GEN" "$tmp/ctx.txt" "$tmp/ctx" 2>"$tmp/err"
check "ctx.NAME: jank-gen exits 0" test $? -eq 0 -a ! -s "$tmp/err"
"$BT" --clock-cycles "$tmp/ctx" >"$tmp/out" 2>/dev/null
cat >"$tmp/expect" <<'EOF'
[00000000000000000100] (+????????????) jank-fixture sched_wakeup: { cpu_id = 0 }, { tid = 7, pid = 7, procname = "x" }, { comm = "a", tid = 43, prio = 20, target_cpu = 0 }
[00000000000000000200] (+000000000100) jank-fixture sched_wakeup: { cpu_id = 0 }, { tid = 8, pid = 8, procname = "y" }, { comm = "b", tid = 44, prio = 20, target_cpu = 0 }
EOF
check "ctx.NAME is the context field, a bare NAME on the same line the payload" \
	cmp -s "$tmp/out" "$tmp/expect"

# ----------------------------------------- uint[]: lttng-modules' callstacks
# A dynamic array of hexadecimal uint64 after its uint32 length, as the
# callstack_user context of lttng-modules 2.13: TSDL __callstack_user_length
# and _callstack_user[__callstack_user_length].
cat >"$tmp/arr.txt" <<'EOF'
@trace kernel
@context tid callstack_user:uint[]
100 0 syscall_entry_read fd=3 ctx.tid=5 ctx.callstack_user=[0x7f0000001000,0x5600000012,17]
200 0 sched_switch prev_tid=5 tid=5 callstack_user=[]
300 0 sched_switch prev_tid=5 tid=5 callstack_user=[0xffffffffffffffff]
400 0 ev addrs=[1,0x2] tid=5 callstack_user=[]
EOF
"$GEN" "$tmp/arr.txt" "$tmp/arr" 2>"$tmp/err"
check "uint[]: jank-gen exits 0" test $? -eq 0 -a ! -s "$tmp/err"
"$BT" --clock-cycles "$tmp/arr" >"$tmp/out" 2>/dev/null
cat >"$tmp/expect" <<'EOF'
[00000000000000000100] (+????????????) jank-fixture syscall_entry_read: { cpu_id = 0 }, { tid = 5, _callstack_user_length = 3, callstack_user = [ [0] = 0x7F0000001000, [1] = 0x5600000012, [2] = 0x11 ] }, { fd = 3 }
[00000000000000000200] (+000000000100) jank-fixture sched_switch: { cpu_id = 0 }, { tid = 5, _callstack_user_length = 0, callstack_user = [ ] }, { prev_tid = 5 }
[00000000000000000300] (+000000000100) jank-fixture sched_switch: { cpu_id = 0 }, { tid = 5, _callstack_user_length = 1, callstack_user = [ [0] = 0xFFFFFFFFFFFFFFFF ] }, { prev_tid = 5 }
[00000000000000000400] (+000000000100) jank-fixture ev: { cpu_id = 0 }, { tid = 5, _callstack_user_length = 0, callstack_user = [ ] }, { _addrs_length = 2, addrs = [ [0] = 0x1, [1] = 0x2 ] }
EOF
check "uint[]: context and payload arrays, their lengths, empty ones" \
	cmp -s "$tmp/out" "$tmp/expect"
"$BT" -o ctf-metadata "$tmp/arr" >"$tmp/meta" 2>/dev/null
check "uint[]: TSDL as lttng-modules': __callstack_user_length, then the sequence" sh -c \
	'grep -qF "integer { size = 32; align = 8; } __callstack_user_length;" "$1" &&
	 grep -qF "integer { size = 64; align = 8; base = x; } _callstack_user[__callstack_user_length];" "$1"' \
	sh "$tmp/meta"

# ------------------------------------------------------------- bad scripts
# bad NAME LINE SCRIPT: jank-gen fails with one line naming SCRIPT:LINE.
bad() {
	printf '%s' "$3" >"$tmp/bad.txt"
	rm -rf "$tmp/badout"
	"$GEN" "$tmp/bad.txt" "$tmp/badout" >/dev/null 2>"$tmp/err"
	st=$?
	if [ $st -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	   grep -q "^jank-gen: $tmp/bad.txt:$2: " "$tmp/err" &&
	   [ ! -e "$tmp/badout" ]; then
		ok "bad script: $1"
	else
		fail "bad script: $1"
		diag "exit $st, stderr: $(cat "$tmp/err")"
	fi
}

bad "out-of-order timestamp" 4 '@trace kernel
@cpus 2
200 0 a x=1
100 1 a x=2
'
bad "unknown directive" 2 '@trace kernel
@frobnicate 3
100 0 a
'
bad "CPU out of range" 3 '@trace kernel
@cpus 2
100 2 a
'
bad "field type change" 4 '@trace kernel
100 0 a x=1 s="x"
# same fields, s is now an integer
200 0 a x=1 s=2
'
bad "field set change" 3 '@trace kernel
100 0 a x=1
200 0 a y=1
'
bad "missing context field" 3 '@trace ust
@context vpid vtid procname:string
100 0 a vpid=1 procname="p"
'
bad "ctx. of an undeclared context field" 3 '@trace ust
@context vtid
100 0 a vtid=1 ctx.vpid=2
'
bad "a context field given twice as ctx." 3 '@trace kernel
@context tid
100 0 a ctx.tid=1 ctx.tid=2
'
bad "directive after the first event" 3 '@trace kernel
100 0 a
@cpus 4
'
bad "no @trace first" 1 '@cpus 2
'
bad "an environment entry named by a word of TSDL" 2 '@trace kernel
@env trace=1
100 0 a
'
bad "bad value" 2 '@trace ust
100 0 a x=12z
'
bad "an integer for a uint[] context field" 3 '@trace kernel
@context stack:uint[]
100 0 a stack=1
'
bad "a negative array element" 2 '@trace kernel
100 0 a stack=[1,-2]
'
bad "an empty array element" 2 '@trace kernel
100 0 a stack=[1,,2]
'
bad "an unterminated array" 2 '@trace kernel
100 0 a stack=[1,2
'

"$GEN" "$tmp/no-such-script" "$tmp/badout" 2>"$tmp/err"
st=$?
check "missing script file: one-line error" \
	sh -c 'test "$1" -ne 0 && test "$(wc -l <"$2")" -eq 1 &&
	       grep -q "^jank-gen: $3:0: cannot open" "$2"' \
	sh "$st" "$tmp/err" "$tmp/no-such-script"

mkdir "$tmp/full" && touch "$tmp/full/x"
"$GEN" "$tmp/ust.txt" "$tmp/full" 2>"$tmp/err"
check "non-empty output directory is refused" test $? -ne 0 -a -f "$tmp/full/x"

plan "$_tap_n"
exit $_tap_failed
