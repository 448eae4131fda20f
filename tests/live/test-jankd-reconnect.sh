# SPDX-License-Identifier: MIT
# tests/live/test-jankd-reconnect.sh: relayd dies and comes back; the
# session is destroyed and comes back.
#
# relayd is killed (SIGKILL, by PID) while jankd is attached, and restarted
# on the same ports. A live session does not survive its relayd: the
# operator destroys it and creates it again, and so does this test. jankd
# logs the loss once, retries with back-off (quietly), logs the reconnection
# once, and the janks after it are alerted; the engine (rules, histograms)
# is the same one. Then the session alone is destroyed and created again:
# the same, without relayd's help (jankd notices the silence).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_setup_jankd --journald

plan 16

session=jankd-reconnect-$$
action=reconnect$$
live_create_session "$session"
live_jankd_conf --journal "$(live_url "$session")" "$action" 30ms </dev/null
live_run_jankd

alerts() {
	live_jank_count "$action"
}
demo() {
	live_demo "$LIVE_TMP/demo.out" --cause sleep --count 10 --slow-every 5 --normal 1ms \
		--slow 60ms --interval 5ms
}

demo
live_wait_for 10 '[ "$(alerts)" -ge 2 ]' || true
check "before: 2 alerts" [ "$(alerts)" = 2 ]

kill -KILL "$LIVE_RELAYD_PID"
live_stop_relayd
live_wait 5 live_jankd_logged 'lost the live session' || true
check "the loss is logged" live_jankd_logged "^$(live_url "$session"): lost the live session: .*; reconnecting$"
check "status: reconnecting" [ "$(live_jankd_status '.inputs[0].state')" = reconnecting ]
# jankd retries (1 s, 2 s, 4 s...) while relayd is away: still one line.
sleep 4
live_restart_relayd || live_bail "cannot restart lttng-relayd"
# The session died with its relayd: destroy it (lttng may complain) and create it again.
lttng destroy "$session" >/dev/null 2>&1 9>&-
live_create_session "$session"
live_wait 40 live_jankd_logged 'reconnected$' || true
check "the reconnection is logged" live_jankd_logged "^$(live_url "$session"): reconnected$"
check "each logged once" [ "$(live_jankd_log | grep -c 'lost the live session')" = 1 -a \
	"$(live_jankd_log | grep -c 'reconnected$')" = 1 ]
# state_is "STATE DISCONNECTS RECONNECTS": what jankctl status says of the input.
state_is() {
	st=$(live_jankd_status '.inputs[0] | "\(.state) \(.disconnects) \(.reconnects)"')
	[ "$st" = "$1" ]
}
live_wait 5 state_is "connected 1 1" || true
check "status: connected, 1 disconnect, 1 reconnect (got: $st)" state_is "connected 1 1"

demo
live_wait_for 10 '[ "$(alerts)" -ge 4 ]' || true
sleep 0.5
check "after: the 2 new janks are alerted" [ "$(alerts)" = 4 ]
# The counters follow the alerts: within 500 ms of the last event read.
live_wait_for 3 '[ "$(live_jankd_status '\''.inputs[0].rules[0] | "\(.count) \(.janks)"'\'')" = "20 4" ]' ||
	true
check "the same engine: 20 actions for the rule, 4 janks" [ "$(live_jankd_status \
	'.inputs[0].rules[0] | "\(.count) \(.janks)"')" = "20 4" ]

# ---- The session alone goes away, and comes back ----

live_lttng destroy "$session"
live_wait 10 live_jankd_logged 'the live session is gone' || true
check "a destroyed session is noticed and logged" \
	live_jankd_logged "^$(live_url "$session"): the live session is gone (destroyed?); waiting for it to come back$"
# problem_is PROBLEM: what jankctl status says is wrong with the input now.
problem_is() {
	got=$(live_jankd_status '.inputs[0].problem // ""')
	[ "$got" = "$1" ]
}
live_wait 5 problem_is "session missing" || true
check "status: session missing, not an old error (got: $got)" problem_is "session missing"
live_create_session "$session"
live_wait_for 10 '[ "$(live_jankd_log | grep -c '\''reconnected$'\'')" = 2 ]' || true
check "its return is logged as a reconnection" [ "$(live_jankd_log | grep -c 'reconnected$')" = 2 ]
demo
live_wait_for 10 '[ "$(alerts)" -ge 6 ]' || true
sleep 0.5
check "the janks in the new session are alerted" [ "$(alerts)" = 6 ]
live_wait 5 state_is "connected 2 2" || true
check "status: connected, 2 disconnects, 2 reconnects (got: $st)" state_is "connected 2 2"

check "SIGTERM: exit 0" live_stop_jankd
check "the final summary counts the disconnects" live_jankd_logged ' 2 disconnects$'
check "no other warning or error" [ "$(live_journalctl -o json _PID="$LIVE_JANKD_PID" \
	SYSLOG_IDENTIFIER=jankd | "$JQ" -r 'select((.PRIORITY | tonumber) <= 4 and
	(.JANK_ACTION == null)) | .MESSAGE' |
	grep -Evc 'lost the live session|the live session is gone')" = 0 ]
live_jankd_diag
