#!/bin/bash
# make bench-fleet: one jankd watching a fleet of simulated hosts on one
# relayd (as root; tests/live/lib.sh's hosts: a sessiond each, in UTS and
# mount namespaces of their own, streaming to one relayd on loopback).
#
# For each fleet size of FLEET_HOSTS (8, 32, 64 by default), hosts are added
# up to that size, each with a live session (100 ms live timer), and a jankd
# with [live] discover watches them all. Then:
#   idle   FLEET_IDLE seconds with no traced program: jankd's CPU and memory
#          per host (what an idle host costs);
#   load   every host runs probes/jank-load at FLEET_RATE events per second
#          for FLEET_DURATION seconds, with one 50 ms slow frame per second
#          (threshold 30 ms): CPU in all and per host, RSS and PSS per
#          worker, alert latency (jank-load's end of the slow frame to the
#          alert's arrival in journald) p50/p99/max, events emitted, read,
#          discarded by the tracer, and lost.
# At the first size, FLEET_SCALE_HOSTS of the hosts run FLEET_SCALE_RATE
# events per second each, more than one core of jankd reads, with jankd
# (and its workers) on one core, then on two (taskset): how the throughput
# scales with the cores (events read per second while the load runs).
#
# CPU: utime + stime of jankd and of its workers (and of workers that ended,
# through jankd's cutime), over wall time, as a share of one core; the same
# for relayd, for the hosts' lttng daemons (sessiond and consumerd), and for
# the load generators. RSS
# counts the pages a process shares with others (the libraries) once per
# process; PSS shares them out, and is what a host really costs. The
# machine's load average is printed with each run: other work shares these
# cores.
#
# Environment: FLEET_HOSTS, FLEET_RATE (10000), FLEET_DURATION (60),
# FLEET_IDLE (30), FLEET_SCALE_HOSTS (4; 0: no scaling run), FLEET_SCALE_RATE (150000),
# FLEET_TICK (jank-load's --tick: 10ms, so that 64 loads do not spend the
# machine on their own wakeups), FLEET_OUT (append the report there too).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

SIZES=${FLEET_HOSTS:-8 32 64}
RATE=${FLEET_RATE:-10000}
DURATION=${FLEET_DURATION:-60}
IDLE=${FLEET_IDLE:-30}
SCALE_HOSTS=${FLEET_SCALE_HOSTS:-4}
SCALE_RATE=${FLEET_SCALE_RATE:-150000}
TICK=${FLEET_TICK:-10ms}
LOAD=$top_builddir/probes/jank-load
HZ=$(getconf CLK_TCK)

unset JANK_SKIP_LIVE
live_init
[ -x "$LOAD" ] || plan_skip_all "$LOAD is not built (make -C probes)"
live_require_jankd
live_require_journald
live_require_hosts
live_start_relayd
live_start_journald
# relayd's disk: at most 4 files of 16 MiB per stream; room for the
# scaling run's rate in the ring buffers (8 sub-buffers of 1 MiB per CPU).
LIVE_HOST_CHANNEL="--subbuf-size=1M --num-subbuf=8 --tracefile-size=16777216 --tracefile-count=4"

prefix=bench-$$
session=jank
report=$LIVE_TMP/report.md
nhosts=0

host_name() { # I: the I-th host's name
	printf '%s-%03d' "$prefix" "$1"
}

# add_hosts N: start hosts until there are N.
add_hosts() {
	while [ "$nhosts" -lt "$1" ]; do
		nhosts=$((nhosts + 1))
		live_host_start "$(host_name "$nhosts")"
		live_host_session "$(host_name "$nhosts")" "$session"
	done
}

live_jankd_conf --journal "" frame 30ms <<CONF
[live]
discover = net://127.0.0.1:$LIVE_RELAYD_LIVE_PORT
hosts = $prefix-*
sessions = $session
[alerts]
# One alert per slow action: no rate limit in the way of the measurement.
rate-limit = 1000/10s
[daemon]
ready-timeout = 0
[action frame]
match = name == "frame"
$(live_conf_rule load 'match = name == "load"' 'threshold = 1s')
CONF

# start_jankd N [CPUS]: jankd until its N inputs are connected; then on CPUS
# only (taskset: it and its workers; the workers it starts later inherit it).
start_jankd() {
	local i p

	live_start_jankd --config "$LIVE_JANKD_CONF"
	for i in $(seq 600); do
		if [ "$(live_jankd_status '[.inputs[] | select(.state == "connected")] | length' \
			2>/dev/null)" = "$1" ]; then
			[ -z "${2:-}" ] && return 0
			for p in $(jankd_pids); do
				taskset -a -p -c "$2" "$p" >/dev/null
			done
			return 0
		fi
		live_alive "$LIVE_JANKD_PID" || live_bail "jankd exited" "$LIVE_TMP/jankd.err"
		sleep 0.1
	done
	live_bail "jankd did not attach to $1 hosts within 60 s" "$LIVE_TMP/jankd.err"
}

jankd_pids() {
	echo "$LIVE_JANKD_PID"
	ps -o pid= --ppid "$LIVE_JANKD_PID"
}
# cpu: clock ticks of jankd, its workers, and its ended workers.
cpu() {
	local p t=0

	for p in $(jankd_pids); do
		t=$((t + $(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo "$t"
}
# mem: "SUPERVISOR-RSS WORKERS-RSS WORKERS-PSS SUPERVISOR-PSS NWORKERS", in KiB.
mem() {
	local p srss=0 spss=0 wrss=0 wpss=0 n=0 rss pss

	for p in $(jankd_pids); do
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		pss=$(awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup" 2>/dev/null)
		if [ "$p" = "$LIVE_JANKD_PID" ]; then
			srss=${rss:-0} spss=${pss:-0}
		else
			wrss=$((wrss + ${rss:-0})) wpss=$((wpss + ${pss:-0})) n=$((n + 1))
		fi
	done
	echo "$srss $wrss $wpss $spss $n"
}
# ticks PID...: their utime + stime, in clock ticks.
ticks() {
	local p t=0

	for p in "$@"; do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo "$t"
}
# lttng_ticks: the hosts' sessionds and their consumer daemons.
lttng_ticks() {
	local i s

	for i in $(seq "$nhosts"); do
		s=$(live_host_pid "$(host_name "$i")")
		echo "$s $(ps -o pid= --ppid "$s")"
	done | xargs echo | { read -r pids; ticks $pids; }
}
# children_ticks FILE: what this shell's waited-for children had used when
# `times >FILE` ran (its second line), in clock ticks. (`times` itself must
# run in this shell, not in a $(...) subshell.)
children_ticks() {
	awk -v hz="$HZ" 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) {
		split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] }
		printf "%d\n", t * hz }' "$1"
}
now_ms() {
	date +%s%3N
}
loadavg() {
	cut -d' ' -f1-3 /proc/loadavg
}

# idle N: N hosts, nothing traced, for IDLE seconds.
idle() {
	local t0 c0 t1 c1 m

	start_jankd "$1"
	sleep 5 # past the start
	t0=$(now_ms) c0=$(cpu)
	sleep "$IDLE"
	t1=$(now_ms) c1=$(cpu)
	m=$(mem)
	set -- "$1" $m
	awk -v n="$1" -v c="$((c1 - c0))" -v hz="$HZ" -v w="$((t1 - t0))" -v srss="$2" \
		-v wrss="$3" -v wpss="$4" -v spss="$5" -v nw="$6" -v la="$(loadavg)" 'BEGIN {
		cpu = 100 * c / hz * 1000 / w
		printf "| %d | %.2f%% | %.3f%% | %.1f | %.2f | %.2f | %.1f | %s |\n", n, cpu, cpu / n,
			srss / 1024, wrss / nw / 1024, wpss / nw / 1024, (spss + wpss) / 1024, la }' >>"$report.idle"
	live_stop_jankd >/dev/null
}

events_read() {
	live_jankd_status '[.inputs[].events_read] | add'
}

# load N RATE [CPUS]: N hosts (of those watched) at RATE events/s each for
# DURATION s; a row of the load table.
load() {
	local n=$1 rate=$2 cpus=${3:-} i pids="" t0 c0 t1 c1 m emitted=0 read=-1 r still=0 st
	local la r0 r1 y0 y1 l0 l1 g0 g1

	start_jankd "$nhosts" "$cpus"
	sleep 2
	la=$(loadavg)
	times >"$LIVE_TMP/times.0"
	for i in $(seq "$n"); do
		live_host "$(host_name "$i")" "$LOAD" --rate "$rate" --duration "${DURATION}s" \
			--tick "$TICK" --jank-every 1s --slow 50ms >"$LIVE_TMP/load-$i.out" 2>&1 &
		pids="$pids $!"
	done
	t0=$(now_ms) c0=$(cpu) r0=$(events_read) y0=$(ticks "$LIVE_RELAYD_PID") l0=$(lttng_ticks)
	sleep $((DURATION / 2))
	m=$(mem) # under load
	wait $pids
	t1=$(now_ms) c1=$(cpu) r1=$(events_read) y1=$(ticks "$LIVE_RELAYD_PID") l1=$(lttng_ticks)
	times >"$LIVE_TMP/times.1"
	g0=$(children_ticks "$LIVE_TMP/times.0") g1=$(children_ticks "$LIVE_TMP/times.1")
	for i in $(seq "$n"); do
		emitted=$((emitted + $(awk '/^done / { print $2 }' "$LIVE_TMP/load-$i.out")))
	done
	# The last packets come with the live timer: wait until all is read, or
	# nothing moved for 10 s.
	while [ "$still" -lt 10 ]; do
		r=$(events_read)
		[ "$r" -ge "$emitted" ] && { read=$r; break; }
		if [ "$r" = "$read" ]; then still=$((still + 1)); else still=0; fi
		read=$r
		sleep 1
	done
	st=$(live_jankd_status '"\(.discarded_events) \(.fleet.restarts) \(.fleet.duplicates_dropped)"')
	# Latency per slow frame: journald's arrival minus the frame's end, by host and key.
	live_journalctl -o json _PID="$LIVE_JANKD_PID" JANK_ACTION=frame JANK_KIND=completed |
		"$JQ" -r '"\(.JANK_HOST)/\(.JANK_KEY) \(.__REALTIME_TIMESTAMP)"' >"$LIVE_TMP/alerts.txt"
	for i in $(seq "$n"); do
		awk -v h="$(host_name "$i")" '$1 == "slow" { print h "/name=" $3 ",id=" $2, $4 }' \
			"$LIVE_TMP/load-$i.out"
	done >"$LIVE_TMP/slow.txt"
	awk 'NR == FNR { at[$1] = $2; next } ($1 in at) { print (at[$1] * 1000 - $2) / 1e6 }' \
		"$LIVE_TMP/alerts.txt" "$LIVE_TMP/slow.txt" | sort -n >"$LIVE_TMP/lat.txt"
	live_stop_jankd >/dev/null
	# What happened to the workers, as jankd logged it.
	live_journalctl -o cat _PID="$LIVE_JANKD_PID" SYSLOG_IDENTIFIER=jankd |
		grep -E ': worker |lost the live session|live session is gone|let go|did not stop' | sed "s/^/- $n x $rate\/s: /" >>"$report.log"
	awk -v n="$n" -v rate="$rate" -v hz="$HZ" -v w="$((t1 - t0))" -v j="$((c1 - c0))" \
		-v y="$((y1 - y0))" -v l="$((l1 - l0))" -v g="$((g1 - g0))" \
		-v cpus="${cpus:-all}" 'BEGIN {
		f = 100 * 1000 / hz / w
		printf "| %d x %d/s | %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", n, rate, cpus,
			j * f, y * f, l * f, g * f }' >>"$report.cpu"
	set -- $m
	awk -v n="$n" -v rate="$rate" -v cpus="${cpus:-all}" -v c="$((c1 - c0))" -v hz="$HZ" \
		-v w="$((t1 - t0))" -v srss="$1" -v wrss="$2" -v wpss="$3" -v spss="$4" -v nw="$5" \
		-v em="$emitted" -v rd="$read" -v st="$st" -v la="$la" -v thr="$((r1 - r0))" \
		-v slow="$(wc -l <"$LIVE_TMP/slow.txt")" -v alerted="$(wc -l <"$LIVE_TMP/lat.txt")" '
		function pct(p, r) { if (!NR) return "-"; r = int((p * NR + 99) / 100); return v[r < 1 ? 1 : r] }
		{ v[NR] = $1 }
		END {
			split(st, s, " ")
			cpu = 100 * c / hz * 1000 / w
			printf "| %d x %d/s | %s | %.1f%% | %.2f%% | %.0f | %.1f | %.2f | %.2f | %s / %s / %s | %d | %d | %d | %d | %d / %d | %d | %s |\n",
				n, rate, cpus, cpu, cpu / n, thr / (w / 1000), srss / 1024, wrss / nw / 1024,
				wpss / nw / 1024, pct(50), pct(99), pct(100), em, rd, s[1], em - rd,
				alerted, slow, s[2], la }' "$LIVE_TMP/lat.txt" >>"$report.load"
}

: >"$report.idle"
: >"$report.load"
: >"$report.cpu"
: >"$report.log"
first=1
for size in $SIZES; do
	add_hosts "$size"
	idle "$size"
	load "$size" "$RATE"
	if [ "$first" = 1 ] && [ "$SCALE_HOSTS" -gt 0 ]; then
		load "$SCALE_HOSTS" "$SCALE_RATE" 0
		load "$SCALE_HOSTS" "$SCALE_RATE" 0,1
		first=0
	fi
done

{
	echo "# jankd and a fleet: $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$top_srcdir" rev-parse --short HEAD 2>/dev/null)"
	echo
	echo "Idle hosts ($IDLE s, nothing traced):"
	echo
	echo "| hosts | jankd CPU | per host | supervisor RSS (MiB) | worker RSS (MiB) | worker PSS (MiB) | PSS in all (MiB) | load average |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---|"
	cat "$report.idle"
	echo
	echo "Under load ($DURATION s; one 50 ms slow frame per host and second; latency in ms):"
	echo
	echo "| loaded hosts x events/s | CPUs | jankd CPU | per loaded host | events/s read | supervisor RSS (MiB) | worker RSS (MiB) | worker PSS (MiB) | latency p50 / p99 / max | emitted | read | discarded | lost | alerted / slow | restarts | load average |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---|"
	cat "$report.load"
	echo
	echo "Where the CPU went during the load (share of one core):"
	echo
	echo "| loaded hosts x events/s | CPUs | jankd | lttng-relayd | sessiond + consumerd | jank-load |"
	echo "|---|---|---:|---:|---:|---:|"
	cat "$report.cpu"
	if [ -s "$report.log" ]; then
		echo
		echo "What jankd logged of its workers during the loads:"
		echo
		cat "$report.log"
	fi
} | tee ${FLEET_OUT:+-a "$FLEET_OUT"}
exit 0
