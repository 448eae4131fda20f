#!/bin/bash
# make bench-live: the CPU each live reader spends per event, paired on the
# same load in one run (as root, with the real lttng daemons).
#
# A private lttng-sessiond and lttng-relayd (tests/live/lib.sh). For each
# rate of LIVE_CPU_RATES (events per second; default 100000 200000), and
# for each reader in turn, a fresh user-space live session (jank:*,
# contexts vpid/vtid/procname, 100 ms live timer), the reader attached to
# it, then probes/jank-load emitting the rate for LIVE_CPU_DURATION seconds
# (default 20; back-to-back short `load` actions, one 50 ms `frame` a
# second). The readers:
#   jankd native       [live] decoder = native (jank's lttng-live client)
#   jankd babeltrace2  [live] decoder = babeltrace2 (babeltrace2's lttng-live source)
#   babeltrace2        babeltrace2 -i lttng-live URL -o dummy (its own CLI, the floor
#                      of what babeltrace2 costs)
#   jankd baseline     with LIVE_CPU_BASELINE=PATH: another jankd binary (a copy of
#                      an earlier build), decoder = native, so that a change is
#                      measured against what it replaces in the same run
# LIVE_CPU_READERS picks among native, babeltrace2, bt2 and baseline (default:
# all that apply, in that order). LIVE_CPU_PERF=DIR also records the native
# worker with perf (perf record -g, LIVE_CPU_PERF_SECONDS, default 8) into
# DIR/perf-RATE.data; its figures then carry perf's overhead.
# LIVE_CPU_SYSCALLS=1 counts the system calls of each reader's process (jankd:
# its worker) from the load's start until it has read it all (perf stat on
# raw_syscalls:sys_enter, a counter: little overhead) and prints them per
# event under the rate's rows. LIVE_CPU_TRACE=DIR has `perf trace -s` summarize
# the native worker's calls for LIVE_CPU_PERF_SECONDS into DIR/trace-RATE.txt
# (which calls, how long; its overhead is large: not with LIVE_CPU_PERF).
# LIVE_CPU_HOOK=COMMAND runs `COMMAND WORKER_PID` in the background as the
# native run's load starts (say, a script that straces the worker a while).
# Each jankd worker's minor page faults per event (/proc/PID/stat, over the
# same span) are printed under the rate's rows too.
# CPU: utime + stime of each process (jankd's supervisor and its worker
# apart) from /proc/PID/schedstat (ns), from just before the load starts
# until the reader has read it all (jankd: its events_read reaches what
# jank-load emitted; both: then a second in which the reader used less than
# 5 ms of CPU, for the events in flight), divided by the events jank-load
# emitted. A reader is never fully idle (timers, relayd polled every 100 ms):
# what it spends with no event coming is measured apart for
# LIVE_CPU_IDLE_SECONDS (default 5) after the load, and printed in ms of CPU
# per second under the rate's rows. Also: the events jankd read and the tracer
# discarded, and the slow frames jankd alerted, with the alert latency: from
# the slow frame's end (CLOCK_REALTIME in jank-load) to the alert's line on
# jankd's stdout (stamped as it comes by a reader of the file), p50 / max.
#
# Prints a Markdown table; LIVE_CPU_OUT appends it to that file too.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

RATES=${LIVE_CPU_RATES:-100000 200000}
DURATION=${LIVE_CPU_DURATION:-20}
LOAD=$top_builddir/probes/jank-load
BASELINE=${LIVE_CPU_BASELINE:-}
READERS=${LIVE_CPU_READERS:-native babeltrace2 bt2${BASELINE:+ baseline}}
PERF_DIR=${LIVE_CPU_PERF:-}
PERF_SECONDS=${LIVE_CPU_PERF_SECONDS:-8}
SYSCALLS=${LIVE_CPU_SYSCALLS:-}
TRACE_DIR=${LIVE_CPU_TRACE:-}
HOOK=${LIVE_CPU_HOOK:-}
IDLE_NS=5000000 # a reader that used less CPU than this in a second is done
IDLE_SECONDS=${LIVE_CPU_IDLE_SECONDS:-5}

unset JANK_SKIP_LIVE
live_init
[ -x "$LOAD" ] || plan_skip_all "$LOAD is not built (make -C probes)"
command -v babeltrace2 >/dev/null 2>&1 || plan_skip_all "babeltrace2 not found"
live_require_jankd
live_start_daemons

# cpu_ns PID: the CPU time of every thread of PID so far (ns), 0 when gone.
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}

# minflt PID: the minor page faults of PID so far (0 when gone).
minflt() {
	awk '{ sub(/^.*\) /, ""); print $8 + 0 }' /proc/"$1"/stat 2>/dev/null || echo 0
}

# worker_of PID: jankd's worker process (its child running --worker).
worker_of() {
	local c

	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		if tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q -- '--worker'; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

# settle PID...: wait until a second in which the PIDs used less than IDLE_NS of
# CPU (60 s at most): they have read what was in flight.
settle() {
	local before now i

	before=$(cpu_sum "$@")
	for i in $(seq 60); do
		sleep 1
		now=$(cpu_sum "$@")
		[ $((now - before)) -lt "$IDLE_NS" ] && return 0
		before=$now
	done
}

# cpu_sum PID...: the CPU time of these processes so far (ns).
cpu_sum() {
	for p in "$@"; do cpu_ns "$p"; done | awk '{ s += $1 } END { printf "%d\n", s }'
}

# idle LABEL PID...: what these processes spend with no event coming, in ms of
# CPU per second over IDLE_SECONDS (their timers, relayd polled); into
# LIVE_TMP/idle.LABEL.
idle() {
	local label=$1 c0 c1

	shift
	c0=$(cpu_sum "$@")
	sleep "$IDLE_SECONDS"
	c1=$(cpu_sum "$@")
	awk -v c="$((c1 - c0))" -v s="$IDLE_SECONDS" 'BEGIN { printf "%.2f\n", c / 1e6 / s }' \
		>"$LIVE_TMP/idle.$label"
}

# count_start PID: count the system calls of PID (LIVE_CPU_SYSCALLS) until count_stop.
count_start() {
	count_pid=
	[ -n "$SYSCALLS" ] || return 0
	perf stat -x, -e raw_syscalls:sys_enter -o "$LIVE_TMP/syscalls.csv" -p "$1" \
		>/dev/null 2>&1 9>&- &
	count_pid=$!
	sleep 0.2
}

# count_stop LABEL: stop the count; LIVE_TMP/sys.LABEL has the number of calls.
count_stop() {
	[ -n "$count_pid" ] || return 0
	kill -INT "$count_pid" 2>/dev/null
	wait "$count_pid" 2>/dev/null
	awk -F, '/raw_syscalls:sys_enter/ { print $1 + 0 }' "$LIVE_TMP/syscalls.csv" \
		>"$LIVE_TMP/sys.$1"
	count_pid=
}

# load SESSION: run jank-load at $rate; sets emitted.
load() {
	"$LOAD" --rate "$rate" --duration "${DURATION}s" --jank-every 1s --slow 50ms \
		>"$LIVE_TMP/load.out" 2>"$LIVE_TMP/load.err" 9>&- ||
		live_bail "jank-load failed" "$LIVE_TMP/load.err"
	read -r _ emitted _ <<<"$(grep '^done ' "$LIVE_TMP/load.out")"
	slow=$(grep -c '^slow ' "$LIVE_TMP/load.out")
}

# run_jankd DECODER [LABEL BINARY]: one run of jankd on a fresh session; prints a row.
run_jankd() {
	local decoder=$1 label=${2:-$1} session=jank-cpu-${2:-$1}-$rate-$$ worker s0 w0 s1 w1
	local st received perf_pid= hook_pid= LIVE_JANKD=${3:-$LIVE_JANKD} f0 f1

	live_create_session "$session"
	live_jankd_conf "$(live_url "$session")" frame 30ms <<CONF
[live]
decoder = $decoder
[alerts]
rate-limit = 100/10s
[action frame]
match = name == "frame"
$(live_conf_rule load 'match = name == "load"' 'threshold = 1s')
CONF
	live_start_jankd --config "$LIVE_JANKD_CONF" --log-target=json
	live_wait_jankd
	# Each line jankd prints (its alerts), stamped when it comes.
	tail --pid="$LIVE_JANKD_PID" -n +1 -f "$LIVE_TMP/jankd.out" 2>/dev/null 9>&- |
		perl -MTime::HiRes=time -ne '$| = 1; printf "%.0f %s", time() * 1e9, $_' \
			>"$LIVE_TMP/stamped.out" 9>&- &
	worker=$(worker_of "$LIVE_JANKD_PID") || live_bail "no worker of jankd" "$LIVE_TMP/jankd.err"
	s0=$(cpu_ns "$LIVE_JANKD_PID") w0=$(cpu_ns "$worker") f0=$(minflt "$worker")
	if [ -n "$PERF_DIR" ] && [ "$label" = native ]; then
		perf record -g -o "$PERF_DIR/perf-$rate.data" -p "$worker" -- sleep "$PERF_SECONDS" \
			>/dev/null 2>"$PERF_DIR/perf-$rate.err" 9>&- &
		perf_pid=$!
	elif [ -n "$TRACE_DIR" ] && [ "$label" = native ]; then
		perf trace -s -p "$worker" -o "$TRACE_DIR/trace-$rate.txt" -- sleep "$PERF_SECONDS" \
			>/dev/null 2>&1 9>&- &
		perf_pid=$!
	fi
	count_start "$worker"
	if [ -n "$HOOK" ] && [ "$label" = native ]; then
		$HOOK "$worker" 9>&- &
		hook_pid=$!
	fi
	load
	[ -z "$hook_pid" ] || wait "$hook_pid"
	[ -z "$perf_pid" ] || wait "$perf_pid"
	live_wait_for 60 '[ "$(live_jankd_status .inputs[0].events_read)" -ge "$emitted" ]' || true
	settle "$LIVE_JANKD_PID" "$worker"
	s1=$(cpu_ns "$LIVE_JANKD_PID") w1=$(cpu_ns "$worker") f1=$(minflt "$worker")
	count_stop "$label"
	echo "$((f1 - f0))" >"$LIVE_TMP/flt.$label"
	idle "$label" "$LIVE_JANKD_PID" "$worker"
	st=$(live_jankd_status '"\(.inputs[0].events_read) \(.discarded_events) \(.inputs[0].decoder)"')
	read -r received discarded used <<<"$st"
	alerted=$(grep -c '"action":"frame"' "$LIVE_TMP/jankd.out")
	latency=$(latency)
	live_stop_jankd >/dev/null || true
	live_lttng destroy "$session" >/dev/null
	awk -v r="$rate" -v d="$used${2:+ ($label)}" -v e="$emitted" -v got="$received" -v disc="$discarded" \
		-v s="$((s1 - s0))" -v w="$((w1 - w0))" -v slow="$slow" -v al="$alerted" \
		-v lat="$latency" 'BEGIN {
		printf "| %d | jankd, %s | %d | %d | %d | %.3f | %.3f | %.3f | %d / %d | %s |\n",
			r, d, e, got, disc, w / 1000 / e, s / 1000 / e, (w + s) / 1000 / e, al, slow, lat }'
	echo "$(((w1 - w0 + s1 - s0) / 1000)) $emitted" >"$LIVE_TMP/last.$label"
}

# latency: the alert latency of the slow frames, p50 / max in ms ("-": none alerted).
latency() {
	grep -F '"action":"frame"' "$LIVE_TMP/stamped.out" 2>/dev/null |
		while read -r at line; do
			echo "$at $(echo "$line" | "${JQ:-jq}" -r 'select(.type == "action") | .key')"
		done >"$LIVE_TMP/alerted.txt"
	awk 'NR == FNR { at[$2] = $1; next }
		$1 == "slow" { key = "name=" $3 ",id=" $2; if (key in at) print (at[key] - $4) / 1e6 }' \
		"$LIVE_TMP/alerted.txt" "$LIVE_TMP/load.out" | sort -n |
		awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
			printf "%.0f / %.0f\n", v[int((NR + 1) / 2)], v[NR] }'
}

# run_babeltrace2: babeltrace2's CLI, lttng-live to the dummy sink; prints a row.
run_babeltrace2() {
	local session=jank-cpu-bt2-$rate-$$ pid c0 c1

	live_create_session "$session"
	babeltrace2 -i lttng-live "$(live_url "$session")" \
		--params 'session-not-found-action="continue"' -o dummy \
		>"$LIVE_TMP/bt2.out" 2>"$LIVE_TMP/bt2.err" 9>&- &
	pid=$!
	live_track "$pid"
	sleep 2
	live_alive "$pid" || live_bail "babeltrace2 exited" "$LIVE_TMP/bt2.err"
	c0=$(cpu_ns "$pid")
	count_start "$pid"
	load
	settle "$pid"
	c1=$(cpu_ns "$pid")
	count_stop bt2
	idle bt2 "$pid"
	live_stop_pid "$pid"
	live_lttng destroy "$session" >/dev/null
	awk -v r="$rate" -v e="$emitted" -v c="$((c1 - c0))" 'BEGIN {
		printf "| %d | babeltrace2 -i lttng-live -o dummy | %d | - | - | %.3f | - | %.3f | - | - |\n",
			r, e, c / 1000 / e, c / 1000 / e }'
	echo "$(((c1 - c0) / 1000)) $emitted" >"$LIVE_TMP/last.bt2"
}

# ratios: the babeltrace2 CLI's CPU per event over each jankd reader's of this rate.
ratios() {
	local b line= f

	[ -f "$LIVE_TMP/last.bt2" ] || return 0
	b=$(awk '{ print $1 / $2 }' "$LIVE_TMP/last.bt2")
	for f in native babeltrace2 baseline; do
		[ -f "$LIVE_TMP/last.$f" ] || continue
		line="$line${line:+, }$(awk -v b="$b" -v f="$f" '{ printf "%s %.2fx", f, b / ($1 / $2) }' \
			"$LIVE_TMP/last.$f")"
	done
	echo "| $rate | babeltrace2 CLI / jankd: $line | | | | | | | | |"
}

# per_reader KIND TITLE AWK: a line of this rate's figure KIND of each reader
# (LIVE_TMP/KIND.READER, as n), printed by the awk program AWK on the
# reader's LIVE_TMP/last.READER (CPU and events emitted: $1, $2).
per_reader() {
	local line= f

	for f in native babeltrace2 baseline bt2; do
		[ -f "$LIVE_TMP/$1.$f" ] && [ -f "$LIVE_TMP/last.$f" ] || continue
		line="$line${line:+, }$f $(awk -v n="$(cat "$LIVE_TMP/$1.$f")" "$3" "$LIVE_TMP/last.$f")"
	done
	[ -z "$line" ] || echo "| $rate | $2: $line | | | | | | | | |"
}

# Each reader's system calls per event (LIVE_CPU_SYSCALLS), a jankd worker's
# minor page faults, and each reader's CPU with no event coming, after this
# rate's load.
syscalls() { per_reader sys "system calls per event" '{ printf "%.4f", n / $2 }'; }
faults() { per_reader flt "worker minor faults (per event)" '{ printf "%d (%.4f)", n, n / $2 }'; }
idles() { per_reader idle "idle after the load, ms of CPU per second" '{ printf "%s", n }'; }

report() {
	echo "# Live readers' CPU per event: $DURATION s per run, rates $RATES"
	echo
	echo "| events/s | reader | emitted | read | discarded | worker µs/event | supervisor µs/event | total µs/event | frames alerted / slow | alert latency p50 / max (ms) |"
	echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for rate in $RATES; do
		rm -f "$LIVE_TMP"/last.* "$LIVE_TMP"/sys.* "$LIVE_TMP"/flt.* "$LIVE_TMP"/idle.*
		for r in $READERS; do
			case $r in
			native | babeltrace2) run_jankd "$r" ;;
			bt2) run_babeltrace2 ;;
			baseline) run_jankd native baseline "$BASELINE" ;;
			esac
		done
		ratios
		syscalls
		faults
		idles
	done
}

if [ -n "${LIVE_CPU_OUT:-}" ]; then
	report | tee -a "$LIVE_CPU_OUT"
else
	report
fi
exit 0
