# SPDX-License-Identifier: MIT
# tests/live/test-jankd-notify.sh: jankd and sd_notify, as systemd would see it.
#
# The test binds the NOTIFY_SOCKET (tests/live/notify-recv) and sets
# WATCHDOG_USEC: READY=1 comes once jankd is attached to the live session,
# STATUS= every status-interval with live figures, WATCHDOG=1 every half
# WATCHDOG_USEC; a reload says RELOADING=1 then READY=1, a stop STOPPING=1.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_require_notify_recv
live_setup_jankd

plan 11

session=jankd-notify-$$
notify=$LIVE_TMP/notify
msgs=$LIVE_TMP/notify.out
live_jankd_conf "$(live_url "$session")" frame 20ms <<CONF
[daemon]
status-interval = 500ms
CONF
live_start_notify_recv "$notify" "$msgs"

# The session does not exist yet: jankd waits for it, and must not say READY.
NOTIFY_SOCKET=$notify WATCHDOG_USEC=1000000 live_start_jankd --config "$LIVE_JANKD_CONF" \
	--log-target=stderr
sleep 1.5
check "no READY=1 while the session does not exist" [ "$(grep -c '^READY=1$' "$msgs")" = 0 ]
check "WATCHDOG=1 even before READY (half of WATCHDOG_USEC: 500 ms)" \
	[ "$(grep -c '^WATCHDOG=1$' "$msgs")" -ge 2 ]

live_create_session "$session"
live_wait 10 grep -q '^READY=1$' "$msgs"
check "READY=1 once the session exists and jankd is attached" grep -q '^READY=1$' "$msgs"
# followed_by LINE PATTERN: a message line LINE, and the next line matches PATTERN.
followed_by() {
	grep -A1 -x "$1" "$msgs" | grep -Eq "$2"
}
check "READY=1 comes with a STATUS=" followed_by READY=1 '^STATUS=inputs 1/1 connected'

live_demo "$LIVE_TMP/demo.out" --cause sleep --count 10 --slow-every 5 --normal 1ms --slow 40ms \
	--interval 5ms
sleep 1.5
check "STATUS= with the live figures: events/s, actions, janks, graph memory" \
	grep -Eq '^STATUS=inputs 1/1 connected, [0-9]+ events/s, 20 events, 10 actions, 2 janks, 0 alerts suppressed, 0 events discarded, graph [0-9.]+ [KMG]?i?B$' \
	"$msgs"
check "every message comes from jankd (SCM_CREDENTIALS pid $LIVE_JANKD_PID)" \
	[ "$(grep '^-- ' "$msgs" | grep -vc " pid=$LIVE_JANKD_PID$")" = 0 ]

# WATCHDOG=1 at half the period: over 3 s, about 6.
before=$(grep -c '^WATCHDOG=1$' "$msgs")
sleep 3
after=$(grep -c '^WATCHDOG=1$' "$msgs")
check "WATCHDOG=1 every 500 ms (got $((after - before)) in 3 s)" \
	[ $((after - before)) -ge 5 -a $((after - before)) -le 7 ]

kill -HUP "$LIVE_JANKD_PID"
live_wait 5 grep -q '^RELOADING=1$' "$msgs"
check "SIGHUP: RELOADING=1 with MONOTONIC_USEC" followed_by RELOADING=1 '^MONOTONIC_USEC=[0-9]+$'
live_wait_for 5 '[ "$(grep -c '\''^READY=1$'\'' "$msgs")" -ge 2 ]'
check "then READY=1 again" [ "$(grep -c '^READY=1$' "$msgs")" = 2 ]

check "SIGTERM: exit 0" live_stop_jankd
# notify-recv writes what it receives on its own time: give it a moment.
live_wait 2 grep -q '^STOPPING=1$' "$msgs" || true
check "STOPPING=1 on the way out" grep -q '^STOPPING=1$' "$msgs"
if [ "$_tap_failed" = 1 ]; then
	sed 's/^/#   /' "$msgs" | tail -30
fi
live_jankd_diag
