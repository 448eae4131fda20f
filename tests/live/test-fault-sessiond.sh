# SPDX-License-Identifier: MIT
# tests/live/test-fault-sessiond.sh: lttng-sessiond (and its consumer
# daemons) die and come back; jankd creates its sessions again.
#
# In namespaces of its own (live_isolate): a journald, sessiond and relayd of
# the test's, jank-demo making slow actions (80 ms over a 50 ms threshold),
# and two jankd:
#   A  owns its live session ([live] create = yes) and captures into a
#      snapshot session of its own;
#   B  watches a live session the test made (url), as a host's.
# lttng-sessiond and its children (the consumer daemons) are killed
# (SIGKILL, by PID), and sessiond is started again 5 s later: every session
# is gone. While it is away, A says "sessiond unreachable". Then A creates
# its live session and its capture session again, the test creates B's
# session again (as its host would), and both are attached again: the slow
# actions made after the restart are alerted, once each, by both, and A
# captures them.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_setup_jankd --journald

plan 17

session=fault-sessiond
capsession=fault-capture
watched=fault-watched
action=fsessiond
caps=$LIVE_TMP/captures

# B first: its config and socket, then A's (LIVE_JANKD_*).
conf_a=$LIVE_JANKD_CONF sock_a=$LIVE_JANKD_SOCK
LIVE_JANKD_CONF=$LIVE_TMP/b.conf LIVE_JANKD_SOCK=$LIVE_TMP/b.control
live_create_session "$watched"
live_jankd_conf --journal "$(live_url "$watched")" "$action" 50ms </dev/null
b_sock=$LIVE_JANKD_SOCK
if [ -n "$LIVE_JOURNAL_NS" ]; then
	nsenter --mount="$LIVE_JOURNAL_NS" -- "$LIVE_JANKD" --config "$LIVE_JANKD_CONF" \
		>"$LIVE_TMP/b.out" 2>"$LIVE_TMP/b.err" 9>&- &
else
	"$LIVE_JANKD" --config "$LIVE_JANKD_CONF" >"$LIVE_TMP/b.out" 2>"$LIVE_TMP/b.err" 9>&- &
fi
b_pid=$!
live_track "$b_pid"
live_wait 10 live_jankd_attached || live_bail "jankd B did not attach within 10s" "$LIVE_TMP/b.err"

LIVE_JANKD_CONF=$conf_a LIVE_JANKD_SOCK=$sock_a
live_jankd_conf --journal --capture snapshot "$caps" "" "$action" 50ms <<CONF
[live]
create = yes
session = $session
relayd = net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT
relayd-live-port = $LIVE_RELAYD_LIVE_PORT
timer = 100ms
[capture]
session = $capsession
CONF
live_run_jankd

# demo NAME: 10 actions named NAME, ids 0..9; ids 4 and 9 are slow (80 ms).
demo() {
	live_demo "$LIVE_TMP/demo-$1.out" --name "$1" --cause sleep --count 10 --slow-every 5 \
		--normal 1ms --slow 80ms --interval 5ms
}
# alerts PID [NAME]: the alerts of jankd PID (of the actions named NAME).
alerts() {
	live_jank_entries "$action" MESSAGE_ID=$LIVE_JANK_ID _PID="$1" |
		"$JQ" -r --arg p "${2:-}" 'select(.JANK_KEY | startswith("name=" + $p)) | .JANK_KEY' | wc -l
}
# b_attached: jankd B's input is connected.
b_attached() {
	[ "$("$LIVE_JANKCTL" status --socket "$b_sock" --format json 2>/dev/null |
		"$JQ" -r '.inputs[0].state')" = connected ]
}
problem_is() {
	got=$(live_jankd_status '.inputs[0].problem // ""')
	[ "$got" = "$1" ]
}

demo before
live_wait_for 10 '[ "$(alerts "$LIVE_JANKD_PID")" -ge 2 -a "$(alerts "$b_pid")" -ge 2 ]' || true
check "before the fault: A and B alert the 2 slow actions" \
	[ "$(alerts "$LIVE_JANKD_PID" before) $(alerts "$b_pid" before)" = "2 2" ]

kids=$(ps -o pid= --ppid "$LIVE_SESSIOND_PID")
kill -KILL "$LIVE_SESSIOND_PID" $kids
killed=$(date +%s)
for p in "$LIVE_SESSIOND_PID" $kids; do
	wait "$p" 2>/dev/null
	live_forget "$p"
done
LIVE_SESSIOND_PID=
live_wait 5 problem_is "sessiond unreachable" || true
check "sessiond down: A's status says \"sessiond unreachable\" (got: $got)" \
	problem_is "sessiond unreachable"
check "... since a time after the kill" \
	[ "$(($(live_jankd_status '.inputs[0].problem_since') / 1000000000))" -ge "$((killed - 1))" ]
"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" >"$LIVE_TMP/status.txt" 2>&1
check "the text status says it too" grep -q ": sessiond unreachable since " "$LIVE_TMP/status.txt"

wait_s=$((killed + 5 - $(date +%s)))
[ "$wait_s" -le 0 ] || sleep "$wait_s"
rm -f "$LIVE_RUNDIR/lttng-sessiond.pid" # its sessiond was killed
live_start_sessiond --no-kernel
restarted=$(date +%s)
# B's host makes its session again.
live_create_session "$watched"
live_wait 40 live_jankd_attached || true
check "A is attached again after the restart (in $(($(date +%s) - restarted)) s)" \
	live_jankd_attached
live_wait 20 b_attached || true
check "B is attached again to the session its host made again" b_attached
check "A logged that its session was gone from lttng-sessiond" \
	live_jankd_logged "^the live session '$session' is gone from lttng-sessiond"
check "A created it again, once" \
	[ "$(live_jankd_log | grep -c "^created the live session '$session' again")" = 1 ]
live_wait 30 live_jankd_logged "^created the capture session '$capsession' again" || true
check "A created its capture session again" \
	live_jankd_logged "^created the capture session '$capsession' again"
lttng list >"$LIVE_TMP/list.out" 2>&1 9>&-
check "lttng-sessiond has A's two sessions" \
	[ "$(grep -Ec "^  [0-9]+\) ($session|$capsession) " "$LIVE_TMP/list.out")" = 2 ]

demo after
live_wait_for 15 '[ "$(alerts "$LIVE_JANKD_PID" after)" -ge 2 -a "$(alerts "$b_pid" after)" -ge 2 ]' ||
	true
sleep 0.5
check "after the restart: A alerts the 2 slow actions" [ "$(alerts "$LIVE_JANKD_PID" after)" = 2 ]
check "after the restart: B alerts them too" [ "$(alerts "$b_pid" after)" = 2 ]
check "no duplicate and no false alert: 4 each in all" \
	[ "$(alerts "$LIVE_JANKD_PID") $(alerts "$b_pid")" = "4 4" ]
# reports_after: A's capture reports of the actions after the restart.
reports_after() {
	live_jank_entries "$action" MESSAGE_ID=$LIVE_REPORT_ID _PID="$LIVE_JANKD_PID" |
		"$JQ" -r 'select(.JANK_KEY | startswith("name=after,")) | .JANK_CAPTURE' | grep -c .
}
live_wait_for 30 '[ "$(reports_after)" -ge 1 ]' || true
check "A captured a slow action after the restart (its report is announced)" \
	[ "$(reports_after)" -ge 1 ]

check "A: SIGTERM, exit 0" live_stop_jankd
check "A destroyed its live session" live_jankd_logged "^destroyed the live session '$session'$"
kill -TERM "$b_pid"
wait "$b_pid"
check "B: SIGTERM, exit 0" [ $? = 0 ]
live_forget "$b_pid"
live_jankd_diag "$LIVE_TMP/status.txt" "$LIVE_TMP/list.out" "$LIVE_TMP/b.err"
