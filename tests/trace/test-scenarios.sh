#!/bin/sh
# The critical-path scenarios of tests/lib/test-critpath.c, end to end:
# event script -> jank-gen -> CTF (lttng-modules environment, cpu_id packet
# context) -> babeltrace2 src.ctf.fs -> jankctl -> JSON, checked exactly.
# Each runs with the lttng-modules 2.13 layout and with the 2.5 layout.
. "$top_srcdir/tests/tap.sh"
gen=$top_builddir/tests/gen/jank-gen
jankctl=$top_builddir/jankctl/jankctl
JQ=${JQ:-jq}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

A=10 B=20 C=30 D=40

# Layout-dependent event names, set by use_layout.
use_layout() {
	minor=$1
	if [ "$minor" -ge 7 ]; then
		softirq_entry=irq_softirq_entry softirq_exit=irq_softirq_exit
		hrtimer_entry=timer_hrtimer_expire_entry hrtimer_exit=timer_hrtimer_expire_exit
	else
		softirq_entry=softirq_entry softirq_exit=softirq_exit
		hrtimer_entry=hrtimer_expire_entry hrtimer_exit=hrtimer_expire_exit
	fi
}
hdr() { printf '@trace kernel\n@env tracer_minor=%s\n@cpus 2\n' "$minor"; }
comm() { [ "$1" = 0 ] && echo "swapper" || echo "t$1"; }
sw() { # ts cpu prev prev_state next
	echo "$1 $2 sched_switch prev_comm=\"$(comm "$3")\" prev_tid=$3 prev_prio=20 prev_state=$4 next_comm=\"$(comm "$5")\" next_tid=$5 next_prio=20"
}
wake() { # ts cpu tid: sched_waking (>= 2.8) then sched_wakeup
	[ "$minor" -ge 8 ] && echo "$1 $2 sched_waking comm=\"t$3\" tid=$3 prio=20 target_cpu=$2"
	echo "$1 $2 sched_wakeup comm=\"t$3\" tid=$3 prio=20 target_cpu=$2"
}
softirq() { # ts cpu vec entry|exit
	if [ "$4" = entry ]; then echo "$1 $2 $softirq_entry vec=$3"; else echo "$1 $2 $softirq_exit vec=$3"; fi
}
hrtimer() { # ts cpu entry|exit
	if [ "$3" = entry ]; then echo "$1 $2 $hrtimer_entry hrtimer=1 now=$1 function=2"; else echo "$1 $2 $hrtimer_exit hrtimer=1"; fi
}
irq() { # ts cpu entry|exit
	if [ "$3" = entry ]; then echo "$1 $2 irq_handler_entry irq=42 name=\"eth0\""; else echo "$1 $2 irq_handler_exit irq=42 ret=1"; fi
}

# critpath NAME TID BEGIN END EXPECTED: the script is in $cur (a file, so that
# this runs in the test's shell and its TAP counter goes on).
cur=$work/current.script
critpath() {
	name=$1 tid=$2 b=$3 e=$4 want=$5
	dir=$work/$(echo "$name" | tr ' ' '-')-$minor
	mv "$cur" "$dir.script"
	if ! "$gen" "$dir.script" "$dir" 2> "$dir.err"; then
		fail "$name ($minor): jank-gen: $(cat "$dir.err")"
		return
	fi
	got=$("$jankctl" critpath --tid "$tid" --begin "$b" --end "$e" --format json "$dir" 2> "$dir.err" |
		"$JQ" -r '[.segments[] | "\(.tid):\(.state):\(.begin):\(.end)"] | join(" ")')
	if [ "$got" = "$want" ]; then
		ok "$name (lttng-modules 2.$minor)"
	else
		fail "$name (lttng-modules 2.$minor)"
		diag "want: $want"
		diag "got:  $got $(cat "$dir.err")"
	fi
}

interrupt_scenario() { # label ctx-function
	{ hdr; sw 0 0 0 0 $A; sw 10 0 $A 1 0; $2 19 entry; wake 20 0 $A; $2 21 exit; sw 25 0 0 0 $A; sw 40 0 $A 1 0; } > "$cur"
		critpath "wakeup from $1" $A 0 30 "$A:running:0:10 $A:$1:10:20 $A:preempted:20:25 $A:running:25:30"
}
ctx_hrtimer() { hrtimer "$1" 0 "$2"; }
ctx_net_rx() { softirq "$1" 0 3 "$2"; }
ctx_block() { softirq "$1" 0 4 "$2"; }
ctx_irq() { irq "$1" 0 "$2"; }

for minor in 13 5; do
	use_layout $minor

	{ hdr; sw 0 0 0 0 $A; sw 10 0 $A 0 $B; sw 30 0 $B 1 $A; sw 60 0 $A 1 0; } > "$cur"
		critpath "preemption only" $A 5 50 "$A:running:5:10 $A:preempted:10:30 $A:running:30:50"

	{ hdr; sw 0 0 0 0 $A; sw 10 0 $A 1 $B; wake 30 0 $A; sw 40 0 $B 0 $A; sw 60 0 $A 1 0; } > "$cur"
		critpath "woken by a thread" $A 0 50 "$A:running:0:10 $B:running:10:30 $A:preempted:30:40 $A:running:40:50"

	{ hdr; sw 0 0 0 0 $A; sw 0 1 0 0 $B; sw 5 1 $B 1 $C; sw 10 0 $A 1 0; wake 20 1 $B
	  sw 25 1 $C 1 $B; wake 30 1 $A; sw 35 0 0 0 $A; sw 50 0 $A 1 0; } > "$cur"
		critpath "recursive chain" $A 0 40 "$A:running:0:10 $C:running:10:20 $B:preempted:20:25 $B:running:25:30 $A:preempted:30:35 $A:running:35:40"

	interrupt_scenario timer ctx_hrtimer
	interrupt_scenario network ctx_net_rx
	interrupt_scenario block_device ctx_block
	interrupt_scenario interrupted ctx_irq

	{ hdr; sw 0 0 0 0 $A; sw 10 0 $A 1 $B; sw 20 0 $B 1 $A; sw 40 0 $A 1 0; } > "$cur"
		critpath "wait without waker" $A 0 30 "$A:running:0:10 $A:blocked:10:20 $A:running:20:30"

	{ hdr; sw 0 0 0 0 $A
	  echo "10 0 sched_process_fork parent_comm=\"t$A\" parent_tid=$A parent_pid=$A child_comm=\"t$D\" child_tid=$D child_pid=$D"
	  echo "12 0 sched_wakeup_new comm=\"t$D\" tid=$D prio=20 target_cpu=1"
	  sw 20 1 0 0 $D; sw 40 1 $D 1 0; } > "$cur"
		critpath "fork wait" $D 10 30 "$A:running:10:12 $D:preempted:12:20 $D:running:20:30"
done

# An action that begins on one thread and ends on another: kernel + ust traces
# read together, analysed through a rule.
minor=13
use_layout 13
{ hdr; sw 0 0 0 0 $A; sw 0 1 0 0 $B; sw 2 1 $B 1 0; wake 10 0 $B; sw 15 1 0 0 $B; sw 40 1 $B 1 0; sw 40 0 $A 1 0; } > "$work/x-kernel.script"
cat > "$work/x-ust.script" <<UST
@trace ust
@cpus 2
@context vpid vtid procname:string
5 0 jank:action_begin name="frame" id=7 vpid=$A vtid=$A procname="t$A"
30 1 jank:action_end name="frame" id=7 vpid=$A vtid=$B procname="t$B"
UST
cat > "$work/x.conf" <<CONF
[action frame]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 10ns
CONF
mkdir -p "$work/x"
"$gen" "$work/x-kernel.script" "$work/x/kernel" && "$gen" "$work/x-ust.script" "$work/x/ust/uid/0/64-bit" ||
	fail "action across threads: fixtures"
out=$("$jankctl" analyze --config "$work/x.conf" --format json "$work/x")
got=$(echo "$out" | "$JQ" -rc 'select(.type == "action") |
	[.action, .key, .begin, .end, .duration_ns, .tid, .over_threshold,
	 ([.critical_path[] | "\(.tid):\(.state):\(.begin):\(.end)"] | join(" "))] | @tsv')
want=$(printf 'frame\tname=frame,id=7\t5\t30\t25\t%s\ttrue\t%s' $B "$A:running:5:10 $B:preempted:10:15 $B:running:15:30")
if [ "$got" = "$want" ]; then ok "action across threads (kernel + ust muxed)"; else
	fail "action across threads (kernel + ust muxed)"; diag "want: $want"; diag "got:  $got"; fi
summary=$(echo "$out" | "$JQ" -rc 'select(.type == "summary") | [.action, .count, .over_threshold] | @tsv')
check "summary line counts the action" [ "$summary" = "$(printf 'frame\t1\t1')" ]
plan "$_tap_n"
