#!/bin/sh
# The native CTF 1.8 decoder (io/trace-native.c) against babeltrace2, the
# reference: over every trace the tests have (jank-gen fixtures of every
# shape jank-gen writes: kernel and user space, contexts of every type,
# call stacks, small packets, discarded events, hostile strings; the demo
# trace with its statedump; tests/data/ctf-lttng, LTTng's own layouts
# (compact and large event headers, the extended forms, text arrays,
# sequences, lttng-modules' nested network-header variants, user-space
# contexts; jank-netgen's traces of lttng-modules' full IP and TCP headers); tests/fuzz/ctf-lttng.h is its metadata, the fuzz corpus of
# fuzz-ctf-packet its streams); ../shared/traces/many-threads, a real LTTng
# kernel trace, when present; the kernel suite's recordings when
# JANK_KERNEL_TRACES names a directory of them), both decoders give the
# engine the same events, event by event (times, CPUs, threads, every field
# the engine reads), the same discarded ranges and the same figures
# (trace/ctf-diff), and `jankctl analyze --all --format json` (and `graph`)
# prints the same bytes. A trace the native decoder does not take goes
# through babeltrace2, said once; asked for alone, it is an error that says
# why.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

DIFF=$top_builddir/tests/trace/ctf-diff

# ---- The fixtures ----
mkdir -p "$tmp/s"
cat >"$tmp/s/kernel.txt" <<'EOF'
@trace kernel
@env tracer_minor=8
@cpus 2
@packet 2
100 0 sched_switch prev_comm="swapper/0" prev_tid=0 prev_prio=20 prev_state=0 next_comm="cc1" next_tid=42 next_prio=120
150 1 sched_wakeup comm="cc1" tid=43 prio=120 target_cpu=1
200 1 sched_switch prev_comm="swapper/1" prev_tid=0 prev_prio=20 prev_state=0 next_comm="cc1 \"b\\s\"" next_tid=43 next_prio=-5
300 0 sched_switch prev_comm="cc1" prev_tid=42 prev_prio=120 prev_state=1 next_comm="swapper/0" next_tid=0 next_prio=20
@discarded 1 5
400 1 syscall_entry_read fd=3 buf=0x7fff0000 count=4096
420 0 sched_wakeup comm="cc1" tid=42 prio=120 target_cpu=0
@discarded 0 2
500 1 syscall_exit_read ret=4096
500 0 sched_switch prev_comm="swapper/0" prev_tid=0 prev_prio=20 prev_state=0 next_comm="cc1" next_tid=42 next_prio=120
1000000000 1 irq_handler_entry irq=16 name="eth0" flags=0xffffffffffffffff
EOF
cat >"$tmp/s/arrays.txt" <<'EOF'
@trace kernel
@context tid callstack_user:uint[]
100 0 syscall_entry_read fd=3 ctx.tid=5 ctx.callstack_user=[0x7f0000001000,0x5600000012,17]
200 0 sched_switch prev_tid=5 tid=5 callstack_user=[]
300 0 sched_switch prev_tid=5 tid=5 callstack_user=[0xffffffffffffffff]
400 0 ev addrs=[1,0x2] tid=5 callstack_user=[]
EOF
cat >"$tmp/s/ust.txt" <<'EOF'
@trace ust
@cpus 3
@context vpid vtid procname:string
@packet 3
10 0 jank:action_begin name="frame" id=1 vpid=7 vtid=7 procname="app"
20 1 jank:action_begin name="fr\xffame\n\x1b[31m" id=2 vpid=7 vtid=8 procname="a\"pp"
20 2 jank:action_begin name="frame" id=3 vpid=7 vtid=9 procname="app"
25 2 jank:flow_from name="q" key=3 vpid=7 vtid=9 procname="app"
30 0 jank:action_end name="frame" id=1 vpid=7 vtid=7 procname="app"
30 1 jank:flow_to name="q" key=3 vpid=7 vtid=8 procname="app"
@discarded 2 9
40 1 jank:action_end name="fr\xffame\n\x1b[31m" id=2 vpid=7 vtid=8 procname="a\"pp"
50000000 2 jank:action_end name="frame" id=3 vpid=7 vtid=9 procname="app"
EOF
for s in kernel arrays ust; do
	"$JANK_GEN" "$tmp/s/$s.txt" "$tmp/t/$s" 2>"$tmp/err" || {
		echo "Bail out! jank-gen $s: $(cat "$tmp/err")"
		exit 1
	}
done
# lttng-modules' own layout of the network headers (jank-netgen): IPv4 and
# IPv6, TCP and UDP, x86's packed fields and the natural alignment.
cat >"$tmp/s/net.txt" <<'EOF'
@host alpha
@cpus 2
1000 0 switch swapper/0 0 0 client 100
2000 0 send 10.0.0.1 40000 10.0.0.2 8080 4000000000 5000 0x18 100
2100 0 send fd00:0:0:0:0:0:0:1 40000 fd00:0:0:0:0:0:0:2 8080 7 9 0x110 0
2200 1 softirq_entry 3
2300 1 recv 10.0.0.2 8080 10.0.0.1 40000 5000 1100 0x18 50
2400 1 waking client 100
2500 1 softirq_exit 3
2600 1 send_udp 10.0.0.1 53 10.0.0.9 53
2700 1 send_arp
EOF
for a in packed natural; do
	{ echo "@align $a"; cat "$tmp/s/net.txt"; } >"$tmp/s/net-$a.txt"
	"$top_builddir/tests/gen/jank-netgen" "$tmp/s/net-$a.txt" "$tmp/t/net-$a" 2>"$tmp/err" || {
		echo "Bail out! jank-netgen $a: $(cat "$tmp/err")"
		exit 1
	}
done
mkdir -p "$tmp/demo"
"$top_srcdir/tests/data/demo/demo-trace.sh" "$tmp/demo" "$top_builddir/probes/jank-demo"
"$JANK_GEN" "$tmp/demo/kernel.script" "$tmp/t/demo/kernel" &&
	"$JANK_GEN" "$tmp/demo/ust.script" "$tmp/t/demo/ust" || {
	echo "Bail out! jank-gen: the demo trace"
	exit 1
}
cat >"$tmp/ust.conf" <<'EOF'
[action frame]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 5ms

[flow q]
from = jank:flow_from
to = jank:flow_to
key = key
EOF

# "NAME CONFIG TRACE...": what is compared, with which rules.
cases="kernel $top_srcdir/tests/bench/syscalls.conf $tmp/t/kernel
arrays - $tmp/t/arrays
ust $tmp/ust.conf $tmp/t/ust
demo $top_srcdir/tests/data/demo/demo.conf $tmp/t/demo
demo-kernel-and-ust $top_srcdir/tests/data/demo/demo.conf $tmp/t/demo/kernel $tmp/t/demo/ust
lttng-like $top_srcdir/tests/data/ctf-lttng.conf $top_srcdir/tests/data/ctf-lttng
net-packed - $tmp/t/net-packed
net-natural - $tmp/t/net-natural"
mt=$SHARED_TRACES/many-threads
if [ -f "$mt/metadata" ]; then
	cases="$cases
many-threads $top_srcdir/tests/bench/syscalls.conf $mt
many-threads-no-rules - $mt"
fi
if [ -n "${JANK_KERNEL_TRACES:-}" ] && [ -d "$JANK_KERNEL_TRACES" ]; then
	for d in "$JANK_KERNEL_TRACES"/*/; do
		[ -d "$d" ] && cases="$cases
kernel-suite-$(basename "$d") - $d"
	done
fi
n=$(printf '%s\n' "$cases" | wc -l)
plan $((n * 4 + 9))

# ---- Event by event, and through jankctl ----
while read -r name conf traces; do
	# shellcheck disable=SC2086 # the traces are words
	"$DIFF" native "$conf" $traces >"$tmp/native" 2>"$tmp/native.err"
	st=$?
	check "$name: the native decoder reads it (exit $st, $(tail -1 "$tmp/native.err"))" \
		test $st -eq 0 -a "$(tail -1 "$tmp/native.err")" = "ctf-diff: decoder native"
	# shellcheck disable=SC2086
	"$DIFF" babeltrace2 "$conf" $traces >"$tmp/bt" 2>"$tmp/bt.err"
	events=$(grep -c '^E' "$tmp/bt")
	check "$name: the same $events events, discarded ranges and figures as babeltrace2" \
		cmp -s "$tmp/native" "$tmp/bt"
	cmp -s "$tmp/native" "$tmp/bt" || diff "$tmp/bt" "$tmp/native" | head -5 | sed 's/^/# /'
	check "$name: babeltrace2 gave events ($events)" test "$events" -gt 0
	copt=
	[ "$conf" = - ] || copt="--config $conf"
	if [ -z "$copt" ]; then
		# shellcheck disable=SC2086
		"$JANKCTL" graph --format json --decoder native $traces >"$tmp/j.native" 2>&1
		# shellcheck disable=SC2086
		"$JANKCTL" graph --format json --decoder babeltrace2 $traces >"$tmp/j.bt" 2>&1
		what="graph --format json"
	else
		# shellcheck disable=SC2086
		"$JANKCTL" analyze --all --format json $copt --decoder native $traces \
			>"$tmp/j.native" 2>&1
		# shellcheck disable=SC2086
		"$JANKCTL" analyze --all --format json $copt --decoder babeltrace2 $traces \
			>"$tmp/j.bt" 2>&1
		what="analyze --all --format json"
	fi
	check "$name: jankctl $what: the same $(wc -c <"$tmp/j.bt") bytes with either decoder" \
		cmp -s "$tmp/j.native" "$tmp/j.bt"
done <<EOF
$cases
EOF

# ---- The differences it must see ----
"$DIFF" native - "$tmp/t/kernel" >"$tmp/k.native" 2>/dev/null
check "kernel: the discarded ranges are there (2 of them)" \
	test "$(grep -c '^D' "$tmp/k.native")" = 2
check "kernel: a discarded range names its CPU and count" \
	grep -q '^D 1 .* 5$' "$tmp/k.native"

# The TCP fields through both variants, big-endian bit fields included (flags 0x110: 9 bits).
"$DIFF" native - "$tmp/t/net-natural" >"$tmp/n.native" 2>/dev/null
check "network headers: IPv4 addresses, lengths, ports, seq, ack_seq, data_offset, flags" \
	grep -q '^E 2000 0 .* \[a,0,0,1\] \[a,0,0,2\] u140 u5 - u40000 u8080 u4000000000 u5000 u5 u24 ' \
	"$tmp/n.native"
check "network headers: IPv6 addresses (16-bit words), payload_len, the 9-bit flags" \
	grep -q '^E 2100 0 .* \[fd00,0,0,0,0,0,0,1\] \[fd00,0,0,0,0,0,0,2\] - - u20 u40000 u8080 u7 u9 u5 u272 ' \
	"$tmp/n.native"
check "network headers: UDP has ports and no TCP fields; no IP header, no field" \
	sh -c "grep -q '^E 2600 1 .* u36 u5 - u53 u53 - - - - -\$' '$tmp/n.native' &&
		grep -q '^E 2700 1 -1 -1 - c1 n12 - - - - - - - - - - - -\$' '$tmp/n.native'"

# ---- Fallback ----
cp -r "$tmp/t/kernel" "$tmp/t/slowclock"
sed -i 's/freq = 1000000000;/freq = 500000000;/' "$tmp/t/slowclock/metadata"
"$JANKCTL" analyze --config "$top_srcdir/tests/bench/syscalls.conf" "$tmp/t/slowclock" \
	>"$tmp/out" 2>"$tmp/err"
st=$?
check "a 500 MHz clock: auto reads it through babeltrace2 (exit $st)" test $st -eq 0
check "a 500 MHz clock: auto says so, once" \
	test "$(grep -c 'read through babeltrace2: a clock other than 1 GHz' "$tmp/err")" = 1
expect_error "a 500 MHz clock: --decoder native is an error that says why" 1 \
	'the native decoder cannot read it: a clock other than 1 GHz' -- \
	"$JANKCTL" analyze --config "$top_srcdir/tests/bench/syscalls.conf" --decoder native \
	"$tmp/t/slowclock"
expect_error "--decoder: a bad name" 2 "bad --decoder 'fast'" -- \
	"$JANKCTL" analyze --config "$top_srcdir/tests/bench/syscalls.conf" --decoder fast \
	"$tmp/t/kernel"
