#!/bin/bash
# make bench-live: jankd under a steady load, with the real parts (as root).
#
# A private lttng-sessiond, lttng-relayd and systemd-journald (tests/live/lib.sh);
# a user-space live session (jank:*, contexts vpid/vtid/procname, 100 ms live
# timer); jankd attached to it, alerting to journald; probes/jank-load emitting
# LOAD_RATE events per second for LOAD_DURATION seconds, with one 50 ms action
# (over the 30 ms threshold) every second among them.
#
# Measures, and prints as Markdown:
#   - the alert latency: from the slow action's end (CLOCK_REALTIME in
#     jank-load, just after jank_action_end) to the entry's arrival in
#     journald (__REALTIME_TIMESTAMP); percentiles over all the slow actions;
#   - jankd's CPU use over the run (utime + stime from /proc, over wall time);
#   - jankd's RSS every LOAD_SAMPLE seconds, and at the end;
#   - what was emitted, received, discarded and alerted (every slow action
#     alerted once, nothing else alerted).
#
# Environment: LOAD_RATE (default 100000), LOAD_DURATION (seconds, default
# 600), LOAD_SAMPLE (seconds, default 60), LOAD_OUT (append the report to this
# file; default: stdout only).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

RATE=${LOAD_RATE:-100000}
DURATION=${LOAD_DURATION:-600}
SAMPLE=${LOAD_SAMPLE:-60}
LOAD=$top_builddir/probes/jank-load
HZ=$(getconf CLK_TCK)

# The benchmark is not a test: a missing part is a plain skip, and so is the
# "JANK_SKIP_LIVE" of make check.
unset JANK_SKIP_LIVE
live_init
[ -x "$LOAD" ] || plan_skip_all "$LOAD is not built (make -C probes)"
live_require_jankd
live_require_journald
live_start_daemons --journald

session=jank-load-$$
live_create_session "$session"
# Rule frame flags the slow actions; rule load watches the others (none lasts 1 s).
live_jankd_conf --journal "$(live_url "$session")" frame 30ms <<CONF
[alerts]
# One alert per slow action: no rate limit in the way of the measurement.
rate-limit = 100/10s
[action frame]
match = name == "frame"
$(live_conf_rule load 'match = name == "load"' 'threshold = 1s')
CONF
live_run_jankd

cpu_ticks() { # PID: utime + stime, in clock ticks
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}
rss_kib() { # PID
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}
now_ms() {
	date +%s%3N
}

echo "# jankd under load: $RATE events/s for $DURATION s (sample every $SAMPLE s)"
echo
echo "| t (s) | events received | events/s (jankd) | jankd CPU | RSS (MiB) | engine memory (KiB) |"
echo "|---:|---:|---:|---:|---:|---:|"
out=$LIVE_TMP/load.out
"$LOAD" --rate "$RATE" --duration "${DURATION}s" --jank-every 1s --slow 50ms \
	>"$out" 2>"$LIVE_TMP/load.err" 9>&- &
load_pid=$!
live_track "$load_pid"
t0=$(now_ms)
c0=$(cpu_ticks "$LIVE_JANKD_PID")
tp=$t0 cp=$c0 rss_max=0 rss_first=
while live_alive "$load_pid"; do
	i=0
	while [ "$i" -lt "$SAMPLE" ] && live_alive "$load_pid"; do
		sleep 1
		i=$((i + 1))
	done
	live_alive "$LIVE_JANKD_PID" || live_bail "jankd exited under load" "$LIVE_TMP/jankd.err"
	t=$(now_ms) c=$(cpu_ticks "$LIVE_JANKD_PID") rss=$(rss_kib "$LIVE_JANKD_PID")
	[ "$rss" -gt "$rss_max" ] && rss_max=$rss
	[ -n "$rss_first" ] || rss_first=$rss
	st=$(live_jankd_status '"\(.inputs[0].events_read) \(.events_per_sec) \(.memory_bytes)"')
	set -- $st
	awk -v t="$(((t - t0) / 1000))" -v ev="$1" -v eps="$2" -v mem="$3" -v rss="$rss" \
		-v cpu="$(((c - cp) * 1000 / HZ))" -v wall="$((t - tp))" 'BEGIN {
		printf "| %d | %d | %.0f | %.1f%% | %.1f | %.0f |\n",
			t, ev, eps, 100 * cpu / wall, rss / 1024, mem / 1024 }'
	tp=$t cp=$c
done
wait "$load_pid"
load_rc=$?
live_forget "$load_pid"
t1=$(now_ms) c1=$(cpu_ticks "$LIVE_JANKD_PID") rss_end=$(rss_kib "$LIVE_JANKD_PID")
[ "$load_rc" = 0 ] || live_bail "jank-load failed" "$LIVE_TMP/load.err"
read -r _ emitted late <<<"$(grep '^done ' "$out")"

# The last packets reach jankd with the live timer: wait until it has read
# all that was emitted, or until its count has not moved for 10 s.
received=-1 still=0
while [ "$still" -lt 10 ]; do
	r=$(live_jankd_status .inputs[0].events_read)
	[ "$r" -ge "$emitted" ] && { received=$r; break; }
	if [ "$r" = "$received" ]; then still=$((still + 1)); else still=0; fi
	received=$r
	sleep 1
done
st=$(live_jankd_status \
	'"\(.discarded_events) \(.inputs[0].rules[0].count) \(.inputs[0].rules[0].janks) \(.inputs[0].rules[1].count) \(.inputs[0].rules[1].janks)"')
read -r discarded frames frame_janks loads load_janks <<<"$st"
slow=$(grep -c '^slow ' "$out")

# Latency per slow action: journald's arrival time minus the action's end.
live_journalctl -o json JANK_ACTION=frame JANK_KIND=completed |
	"$JQ" -r '"\(.JANK_KEY) \(.__REALTIME_TIMESTAMP)"' >"$LIVE_TMP/alerts.txt"
awk 'NR == FNR { at[$1] = $2; next }
	$1 == "slow" { key = "name=" $3 ",id=" $2
		if (key in at) print (at[key] * 1000 - $4) / 1e6; else missing++ }
	END { if (missing) print "missing", missing > "/dev/stderr" }' \
	"$LIVE_TMP/alerts.txt" "$out" 2>"$LIVE_TMP/missing.txt" | sort -n >"$LIVE_TMP/lat.txt"
alerted=$(wc -l <"$LIVE_TMP/lat.txt")
pct() { # P: the P-th percentile of lat.txt (nearest rank)
	awk -v p="$1" '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
		r = int((p * NR + 99) / 100); if (r < 1) r = 1; printf "%.0f", v[r] }' "$LIVE_TMP/lat.txt"
}

echo
echo "| figure | value |"
echo "|---|---:|"
echo "| events emitted by jank-load (pace slipped on $late of $((DURATION * 1000)) ticks) | $emitted |"
echo "| events received by jankd | $received |"
echo "| events discarded (lttng ring buffer full) | $discarded |"
echo "| actions analysed: load / frame | $loads / $frames |"
echo "| slow actions / alerted / alerts for the load | $slow / $alerted / $load_janks |"
echo "| alert latency p50 / p90 / p99 / max (ms) | $(pct 50) / $(pct 90) / $(pct 99) / $(pct 100) |"
awk -v c="$((c1 - c0))" -v hz="$HZ" -v w="$((t1 - t0))" 'BEGIN {
	printf "| jankd CPU, whole run (share of one core) | %.1f%% |\n", 100 * c / hz * 1000 / w }'
awk -v a="$rss_first" -v m="$rss_max" -v e="$rss_end" -v s="$SAMPLE" 'BEGIN {
	printf "| jankd RSS after %d s / at the end / peak (MiB) | %.1f / %.1f / %.1f |\n", s, a / 1024, e / 1024, m / 1024 }'
[ -s "$LIVE_TMP/missing.txt" ] && echo "# slow actions with no alert: $(cat "$LIVE_TMP/missing.txt")"
live_stop_jankd
exit 0
