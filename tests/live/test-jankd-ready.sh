# SPDX-License-Identifier: MIT
# tests/live/test-jankd-ready.sh: [daemon] ready-timeout.
#
# jankd watches two live sessions, one of which does not exist yet. It must
# not keep systemd waiting: after ready-timeout (2 s here) it says READY=1,
# with a warning that names the missing session; when that session appears,
# it is attached and watched like the other.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_require_notify_recv
live_setup_jankd

plan 9

sa=jankd-ready-a-$$
sb=jankd-ready-b-$$
notify=$LIVE_TMP/notify
msgs=$LIVE_TMP/notify.out
live_create_session "$sa"
live_jankd_conf "$(live_url "$sa"), $(live_url "$sb")" frame 20ms <<CONF
[daemon]
ready-timeout = 2s
CONF
live_start_notify_recv "$notify" "$msgs"

NOTIFY_SOCKET=$notify live_start_jankd --config "$LIVE_JANKD_CONF" --log-target=stderr
sleep 1
check "no READY=1 before ready-timeout while $sb is missing" [ "$(grep -c '^READY=1$' "$msgs")" = 0 ]
live_wait 5 grep -q '^READY=1$' "$msgs" || true
check "READY=1 after ready-timeout (2 s)" grep -q '^READY=1$' "$msgs"
check "a warning names the missing session" \
	grep -q "$(live_url "$sb"): not attached yet (.*); watching for it" "$LIVE_TMP/jankd.err"
check "and says jankd is ready with 1 session not attached" \
	grep -q "ready: watching 2 live sessions (1 not attached yet), 1 rule" "$LIVE_TMP/jankd.err"
check "status: ready; $sa connected, $sb not" [ "$(live_jankd_status \
	'"\(.ready) \([.inputs[] | .state == "connected"] | map(tostring) | join(","))"')" = "true true,false" ]

live_create_session "$sb"
live_wait 15 live_jankd_attached || true
check "$sb appears: it is attached" grep -q "$(live_url "$sb"): attached$" "$LIVE_TMP/jankd.err"
live_demo "$LIVE_TMP/demo.out" --cause sleep --count 10 --slow-every 5 --normal 1ms --slow 40ms \
	--interval 5ms
live_wait_for 10 '[ "$(live_jankd_status '\''[.inputs[].actions_completed] | join(" ")'\'')" = "10 10" ]' ||
	true
check "both sessions are watched: 10 actions each" \
	[ "$(live_jankd_status '[.inputs[].actions_completed] | join(" ")')" = "10 10" ]
check "READY=1 was said once" [ "$(grep -c '^READY=1$' "$msgs")" = 1 ]

check "SIGTERM: exit 0" live_stop_jankd
if [ "$_tap_failed" = 1 ]; then
	sed 's/^/#   /' "$msgs" | tail -20
fi
live_jankd_diag
