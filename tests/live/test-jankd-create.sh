# SPDX-License-Identifier: MIT
# tests/live/test-jankd-create.sh: [live] create = yes.
#
# jankd creates the live session itself (through lttng-ctl, on the test's
# relayd), says once that there is no kernel tracer here, attaches, alerts,
# and destroys its session when it stops.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_setup_jankd

plan 8

session=jankd-create-$$
# No url: jankd creates the session it watches.
live_jankd_conf "" frame 20ms <<CONF
[live]
create = yes
session = $session
relayd = net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT
relayd-live-port = $LIVE_RELAYD_LIVE_PORT
timer = 100ms
tracefile-size = 1MiB
tracefile-count = 2
CONF
live_run_jankd --log-target=stderr

# session_active: lttng list says so (it may take a moment after jankd attached).
session_active() {
	lttng list "$session" >"$LIVE_TMP/list1.out" 2>&1 9>&-
	grep -q "^Recording session $session: \[active\]" "$LIVE_TMP/list1.out"
}
live_wait 3 session_active || true
check "jankd created the live session '$session', and started it" session_active
check "with the jank events and the contexts" grep -q 'jank:action_begin' "$LIVE_TMP/list1.out"
check "relayd keeps 2 trace files of 1 MiB per stream at most" \
	grep -Eq 'Trace file count: +2 per stream' "$LIVE_TMP/list1.out"
check "one warning: no kernel tracer, user space only" \
	[ "$(grep -c 'kernel' "$LIVE_TMP/jankd.err")" = 1 ]

live_demo "$LIVE_TMP/demo.out" --cause sleep --count 10 --slow-every 5 --normal 1ms --slow 40ms \
	--interval 5ms
live_wait_for 10 '[ "$(grep -c '\''^JANK frame'\'' "$LIVE_TMP/jankd.err")" -ge 2 ]' || true
sleep 0.5
check "2 janks alerted" [ "$(grep -c '^JANK frame' "$LIVE_TMP/jankd.err")" = 2 ]

check "SIGTERM: exit 0" live_stop_jankd
check "jankd destroyed its session" grep -q "^jankd: destroyed the live session '$session'$" \
	"$LIVE_TMP/jankd.err"
lttng list >"$LIVE_TMP/list.out" 2>&1 9>&-
check "lttng list no longer shows it" [ "$(grep -c "$session" "$LIVE_TMP/list.out")" = 0 ]
live_jankd_diag "$LIVE_TMP/list1.out" "$LIVE_TMP/list.out"
