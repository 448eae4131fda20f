# SPDX-License-Identifier: MIT
# tests/live/test-fault-relayd.sh: relayd dies and comes back; jankd
# re-creates the live session it owns ([live] create = yes).
#
# In namespaces of its own (live_isolate): a journald, sessiond and relayd of
# the test's, jankd with create = yes, jank-demo making slow actions (80 ms
# over a 50 ms threshold). relayd is killed (SIGKILL, by PID) and restarted
# 5 s later on the same ports. lttng-sessiond still lists the session, as
# active, but its consumer streams nowhere: jankd must see that relayd no
# longer lists it, destroy it and create it again. While relayd is down, the
# status says "relayd unreachable" (since when); afterwards the input is
# attached again, and the slow actions made after the restart are alerted,
# once each, and no other.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_setup_jankd --journald

plan 14

session=fault-relayd
action=frelayd
live_jankd_conf --journal "" "$action" 50ms <<CONF
[live]
create = yes
session = $session
relayd = net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT
relayd-live-port = $LIVE_RELAYD_LIVE_PORT
timer = 100ms
CONF
live_run_jankd

# demo NAME: 10 actions named NAME, ids 0..9; ids 4 and 9 are slow (80 ms).
demo() {
	live_demo "$LIVE_TMP/demo-$1.out" --name "$1" --cause sleep --count 10 --slow-every 5 \
		--normal 1ms --slow 80ms --interval 5ms
}
# alerts [NAME]: jankd's alerts of the rule (of the actions named NAME).
alerts() {
	live_jank_entries "$action" MESSAGE_ID=$LIVE_JANK_ID |
		"$JQ" -r --arg p "${1:-}" 'select(.JANK_KEY | startswith("name=" + $p)) | .JANK_KEY' | wc -l
}
problem_is() {
	got=$(live_jankd_status '.inputs[0].problem // ""')
	[ "$got" = "$1" ]
}

demo before
live_wait_for 10 '[ "$(alerts)" -ge 2 ]' || true
check "before the fault: the 2 slow actions are alerted" [ "$(alerts before)" = 2 ]

kill -KILL "$LIVE_RELAYD_PID"
live_stop_relayd 2>/dev/null
killed=$(date +%s)
live_wait 5 problem_is "relayd unreachable" || true
check "relayd down: status says \"relayd unreachable\" (got: $got)" problem_is "relayd unreachable"
since=$(live_jankd_status '.inputs[0].problem_since')
check "... since a time after the kill ($since)" [ "$((since / 1000000000))" -ge "$((killed - 1))" ]
"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" >"$LIVE_TMP/status.txt" 2>&1
check "the text status says it too" grep -q ": reconnecting: relayd unreachable since " \
	"$LIVE_TMP/status.txt"

wait_s=$((killed + 5 - $(date +%s)))
[ "$wait_s" -le 0 ] || sleep "$wait_s"
live_restart_relayd || live_bail "cannot restart lttng-relayd"
restarted=$(date +%s)
live_wait 40 live_jankd_attached || true
check "attached again after the restart (in $(($(date +%s) - restarted)) s)" live_jankd_attached
check "relayd's loss of the session is logged" \
	live_jankd_logged "^relayd no longer lists the live session '$session', which lttng-sessiond still has"
check "the session is created again, once" \
	[ "$(live_jankd_log | grep -c "^created the live session '$session' again")" = 1 ]
check "status: no problem now, the session created again once" \
	[ "$(live_jankd_status '.inputs[0] | "\(.problem // "none") \(.session_recreated)"')" = "none 1" ]
lttng list "$session" >"$LIVE_TMP/list.out" 2>&1 9>&-
check "lttng-sessiond has it, active" grep -q "^Recording session $session: \[active\]" \
	"$LIVE_TMP/list.out"

demo after
live_wait_for 15 '[ "$(alerts after)" -ge 2 ]' || true
sleep 0.5
check "after the restart: the 2 slow actions are alerted" [ "$(alerts after)" = 2 ]
check "no duplicate and no false alert: 4 in all" [ "$(alerts)" = 4 ]

check "SIGTERM: exit 0" live_stop_jankd
check "jankd destroyed its session" live_jankd_logged "^destroyed the live session '$session'$"
lttng list >"$LIVE_TMP/list2.out" 2>&1 9>&-
check "lttng list no longer shows it" [ "$(grep -c "$session" "$LIVE_TMP/list2.out")" = 0 ]
live_jankd_diag "$LIVE_TMP/status.txt" "$LIVE_TMP/list.out"
