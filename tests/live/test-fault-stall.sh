# SPDX-License-Identifier: MIT
# tests/live/test-fault-stall.sh: a stalled transport raises no false alarm,
# and a real hang still does.
#
# In namespaces of its own (live_isolate): journald, sessiond, relayd, jankd
# watching a live session, and jank-demo making 300 actions, one in ten
# slow. relayd is stopped (SIGSTOP) for 10 s in the middle: the trace stops
# advancing for jankd, only the wall clock goes on. Then the same with the
# consumer daemons stopped instead: relayd answers, with nothing new.
# (worker-timeout is longer than the stall: past it, the blocked worker is
# replaced, and what it could not read is skipped, as test-fault-worker.sh
# shows.) An action open across
# the stall must not be reported overdue (it took 20 ms); the input is said
# to be stalled (status, metrics, once in the journal) and, once relayd
# resumes, every slow action is alerted from its real events, and no other.
# Then, with relayd healthy, an action that never ends is alerted overdue:
# its stream keeps advancing (the live timer's beacons), so the hang is real.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_setup_jankd --journald

plan 15

session=stall-$$
action=stall$$
live_create_session "$session"
live_jankd_conf --journal "$(live_url "$session")" "$action" 50ms <<CONF
[action $action]
match = name == "frame"
[live]
worker-timeout = 30s
[alerts]
rate-limit = 100/10s
[graph]
overdue-grace = 1s
[daemon]
status-interval = 1s
CONF
live_run_jankd

count() {
	live_jank_count "$action" "$@"
}

# stall NAME PID...: jank-demo makes 300 actions, one in ten slow, and
# PID... are stopped for 10 s in the middle. Then: the input was said to be
# stalled, every slow action is alerted (and no other), none overdue.
stall() {
	local name=$1 demo=$LIVE_TMP/demo-$1.out before st stalled= slow may got n

	shift
	before=$(count JANK_KIND=completed)
	"$LIVE_DEMO" --cause sleep --count 300 --slow-every 10 --normal 20ms --slow 80ms \
		--interval 5ms >"$demo" 2>&1 9>&- &
	demo_pid=$!
	live_track "$demo_pid"
	sleep 2
	kill -STOP "$@"
	stall_t=$SECONDS
	while [ $((SECONDS - stall_t)) -lt 10 ]; do
		timeout 3 "$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" --format json \
			>"$LIVE_TMP/status.json" 2>&1
		echo "$name $((SECONDS - stall_t)) s: $("$JQ" -c '.inputs[0] |
			{state, stalled_since, trace_now, silent_ns: .worker.silent_ns}' \
			"$LIVE_TMP/status.json" 2>&1)" >>"$LIVE_TMP/stall.log"
		st=$("$JQ" -r '.inputs[0].stalled_since // empty' "$LIVE_TMP/status.json" 2>/dev/null)
		[ -z "$st" ] || stalled=$st
		sleep 1
	done
	kill -CONT "$@"
	check "$name stopped: status said the input was stalled" [ -n "$stalled" ]
	wait "$demo_pid"
	live_forget "$demo_pid"
	slow=$(awk '$1 == "action" && $5 == "slow" { printf "name=frame,id=%s\n", $2 }' "$demo" | sort)
	# A normal action the loaded machine made slow (the demo measured it
	# past 45 ms, against 20 ms asked and a 50 ms threshold) may be alerted too.
	may=$(awk '$1 == "action" && ($5 == "slow" || $6 >= 45000000) {
		printf "name=frame,id=%s\n", $2 }' "$demo" | sort)
	live_wait_for 30 '[ "$(count JANK_KIND=completed)" -ge $((before + 30)) ]' || true
	sleep 2
	got=$(live_jank_entries "$action" JANK_KIND=completed | "$JQ" -r .JANK_KEY |
		tail -n +$((before + 1)) | sort)
	echo "$slow" >"$LIVE_TMP/slow"
	echo "$may" >"$LIVE_TMP/may"
	echo "$got" >"$LIVE_TMP/got"
	check "$name stopped: every slow action alerted from its real events (got $(grep -c . "$LIVE_TMP/got") of 30)" \
		[ -z "$(comm -23 "$LIVE_TMP/slow" "$LIVE_TMP/got")" ]
	check "$name stopped: no other action alerted ($(comm -23 "$LIVE_TMP/got" "$LIVE_TMP/may" | tr '\n' ' '))" \
		[ -z "$(comm -23 "$LIVE_TMP/got" "$LIVE_TMP/may")" ]
	n=$(count JANK_KIND=overdue)
	check "$name stopped: no false overdue alert across the stall (got $n)" [ "$n" = 0 ]
	live_wait_for 5 '[ -z "$(live_jankd_status '\''.inputs[0].stalled_since // empty'\'')" ]' || true
	check "$name stopped: status no longer stalled" \
		[ -z "$(live_jankd_status '.inputs[0].stalled_since // empty')" ]
}

# relayd stopped: the worker is blocked reading from it.
stall relayd "$LIVE_RELAYD_PID"
check "the stall was said once in the journal, and its end" \
	[ "$(live_jankd_log | grep -c ': stalled: ')" = 1 -a \
	"$(live_jankd_log | grep -c ': resumed after ')" = 1 ]
# The consumer daemons stopped: relayd answers, with nothing new, not even
# the live timer's beacons (a wall clock would call the open action late).
consumers=$(ps -o pid= --ppid "$LIVE_SESSIOND_PID")
[ -n "$consumers" ] || live_bail "no consumer daemon under lttng-sessiond $LIVE_SESSIOND_PID"
stall consumerd $consumers
check "the second stall was said too" [ "$(live_jankd_log | grep -c ': stalled: ')" = 2 ]
check "metrics: jank_input_stalls counts both" \
	[ "$("$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" --format openmetrics |
	sed -n 's/^jank_input_stalls_total{.*} //p')" = 2 ]

# A real hang, relayd healthy: overdue.
"$LIVE_DEMO" --cause sleep --count 2 --slow-every 0 --normal 1ms --interval 1ms \
	--unfinished --hold 4s >"$LIVE_TMP/hang.out" 2>&1 9>&-
live_wait_for 5 '[ "$(count JANK_KIND=overdue)" -ge 1 ]' || true
entries=$(live_jank_entries "$action" JANK_KIND=overdue)
check "a hung action under a healthy relayd is alerted overdue (name=frame,id=1)" \
	[ "$(echo "$entries" | "$JQ" -r .JANK_KEY)" = "name=frame,id=1" ]
check "SIGTERM: exit 0" live_stop_jankd
live_jankd_diag "$LIVE_TMP/stall.log"
