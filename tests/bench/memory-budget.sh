#!/bin/bash
# make bench-memory: does [graph] memory-limit hold? Peak RSS of jankctl and
# the engine's own peak, against memory-limit = 8 MiB, 64 MiB and 1 GiB, on
# two abusive traces written for it (jank-gen scripts made here):
#
#   open      1,000,000 jank:action_begin of distinct keys over 10 s, never
#             ended: open actions only the budget can drop;
#   threads   100,000 threads over 2 s, each forked, run 10 us, exited and
#             freed, on 4 CPUs: a graph of threads only GC can free.
#
# Retention is 60 s, so that time never frees anything: only the budget can.
# RSS adds what the engine does not count (babeltrace2, the program, about
# 20 MiB): the figure to read is the engine's peak against the limit.
#
# Environment: BENCH_DIR (scratch, default mktemp), JANKCTL, JANK_GEN.
# (Times are printed with %.0f: mawk's %d stops at 2^31.)
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
JANKCTL=${JANKCTL:-$top_builddir/jankctl/jankctl}
JANK_GEN=${JANK_GEN:-$top_builddir/tests/gen/jank-gen}
GNU_TIME=${GNU_TIME:-/usr/bin/time}

for p in "$JANKCTL" "$JANK_GEN"; do
	[ -x "$p" ] || { echo "memory-budget: $p is not built" >&2; exit 1; }
done
"$GNU_TIME" -f %M true >/dev/null 2>&1 ||
	{ echo "memory-budget: $GNU_TIME is not GNU time (Debian package 'time')" >&2; exit 1; }
if [ -n "${BENCH_DIR:-}" ]; then
	work=$BENCH_DIR
	mkdir -p "$work" || exit 1
else
	work=$(mktemp -d /tmp/jank-membench.XXXXXX) || exit 1
	trap 'rm -rf "$work"' EXIT
fi

# 1M begins, one every 10 us, from 8 threads of one process.
awk 'BEGIN {
	print "@trace ust"
	print "@cpus 4"
	print "@context vpid:int vtid:int procname:string"
	for (i = 0; i < 1000000; i++)
		printf "%.0f %d jank:action_begin vpid=100 vtid=%d procname=\"app\" name=\"frame\" id=%d\n",
			1000000000 + i * 10000, i % 4, 101 + i % 8, i
}' | "$JANK_GEN" - "$work/open/ust" || exit 1

# 100k threads: a spawner forks one every 20 us on CPU 0; each runs on CPU
# 1..3, exits and is freed.
awk 'BEGIN {
	print "@trace kernel"
	print "@env tracer_major=2"
	print "@env tracer_minor=13"
	print "@env kernel_release=\"6.1.0\""
	print "@cpus 4"
	print "0 0 sched_switch prev_comm=\"swapper\" prev_tid=0 prev_prio=20 prev_state=0 next_comm=\"spawner\" next_tid=10 next_prio=20"
	for (i = 0; i < 100000; i++) {
		t = 1000000000 + i * 20000; tid = 1000 + i; cpu = 1 + i % 3
		printf "%.0f 0 sched_process_fork parent_comm=\"spawner\" parent_tid=10 parent_pid=10 child_comm=\"w\" child_tid=%d child_pid=%d\n", t, tid, tid
		printf "%.0f 0 sched_wakeup_new comm=\"w\" tid=%d prio=20 target_cpu=%d\n", t + 1000, tid, cpu
		printf "%.0f %d sched_switch prev_comm=\"swapper\" prev_tid=0 prev_prio=20 prev_state=0 next_comm=\"w\" next_tid=%d next_prio=20\n", t + 2000, cpu, tid
		printf "%.0f %d sched_process_exit comm=\"w\" tid=%d prio=20\n", t + 12000, cpu, tid
		printf "%.0f %d sched_switch prev_comm=\"w\" prev_tid=%d prev_prio=20 prev_state=16 next_comm=\"swapper\" next_tid=0 next_prio=20\n", t + 12500, cpu, tid
		printf "%.0f 0 sched_process_free comm=\"w\" tid=%d prio=20\n", t + 15000, tid
	}
}' | sort -n -s -k1,1 | "$JANK_GEN" - "$work/threads/kernel" 2>"$work/gen.err" ||
	{ cat "$work/gen.err" >&2; exit 1; }

printf '| trace | memory-limit | engine peak | peak RSS | evicted | budget forced |\n'
printf '|---|---|---|---|---|---|\n'
for trace in open threads; do
	for limit in 8MiB 64MiB 1GiB; do
		cat >"$work/conf" <<CONF
[graph]
retention = 60s
memory-limit = $limit
action-timeout = 600s
[action frame]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 16ms
CONF
		"$GNU_TIME" -f %M -o "$work/rss" "$JANKCTL" analyze --stats --config "$work/conf" \
			"$work/$trace" >/dev/null 2>"$work/stats"
		peak=$(awk '$1 == "stat" && $2 == "memory_peak" { print $3 }' "$work/stats")
		evicted=$(awk '$1 == "stat" && $2 == "actions_evicted" { print $3 }' "$work/stats")
		forced=$(awk '$1 == "stat" && $2 == "budget_forced" { print $3 }' "$work/stats")
		awk -v t="$trace" -v l="$limit" -v p="${peak:-0}" -v r="$(cat "$work/rss")" \
			-v e="${evicted:-?}" -v f="${forced:-?}" \
			'BEGIN { printf "| %s | %s | %.1f MiB | %.1f MiB | %s | %s |\n", t, l,
				p / 1048576, r / 1024, e, f }'
	done
done
