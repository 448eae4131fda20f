# SPDX-License-Identifier: MIT
# tests/live/test-jankd-decoders.sh: the two live decoders side by side, with
# the real parts.
#
# A private lttng-sessiond and lttng-relayd; one live session of jank:*
# events, read at once by two jankd: one with [live] decoder = native (jank's
# own lttng-live client and CTF decoder), one with babeltrace2 (its
# lttng-live source). Both attach before jank-demo starts: the session's
# metadata then grows when the program registers its events. The same
# actions alerted by both, field for field; the same events read; each
# status says its decoder.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_setup_jankd

plan 7

session=jankd-decoders-$$
live_create_session "$session"
live_jankd_conf "$(live_url "$session")" frame 20ms <<CONF
[live]
decoder = native
[graph]
overdue-grace = 500ms
CONF
live_run_jankd --log-target=json
sed -e 's/^decoder = native$/decoder = babeltrace2/' \
	-e "s|^control-socket = .*|control-socket = $LIVE_TMP/control2|" \
	-e "s|^state-dir = .*|state-dir = $LIVE_TMP/state2|" "$LIVE_JANKD_CONF" >"$LIVE_TMP/jankd2.conf"
"$LIVE_JANKD" --config "$LIVE_TMP/jankd2.conf" --log-target=json \
	>"$LIVE_TMP/jankd2.out" 2>"$LIVE_TMP/jankd2.err" 9>&- &
pid2=$!
live_track "$pid2"
status2() {
	LIVE_JANKD_SOCK=$LIVE_TMP/control2 live_jankd_status "$@"
}
live_wait_for 10 'LIVE_JANKD_SOCK=$LIVE_TMP/control2 live_jankd_attached' ||
	live_bail "the second jankd did not attach" "$LIVE_TMP/jankd2.err"

live_demo "$LIVE_TMP/demo.out" --cause sleep --count 40 --slow-every 5 --normal 1ms --slow 40ms \
	--interval 5ms
live_wait_for 15 '[ "$(wc -l <"$LIVE_TMP/jankd.out")" -ge 8 ] &&
	[ "$(wc -l <"$LIVE_TMP/jankd2.out")" -ge 8 ]' || true
sleep 1

check "native: the status says the native decoder (got $(live_jankd_status .inputs[0].decoder))" \
	[ "$(live_jankd_status '"\(.inputs[0].decoder) \(.inputs[0].decoder_note // "")"')" = "native " ]
check "babeltrace2: the status says babeltrace2 (got $(status2 .inputs[0].decoder))" \
	[ "$(status2 .inputs[0].decoder)" = babeltrace2 ]
normalize() {
	live_quote_times "$1" | "$JQ" -S -c 'select(.type == "action") | del(.host, .session)' | sort
}
normalize "$LIVE_TMP/jankd.out" >"$LIVE_TMP/native.json"
normalize "$LIVE_TMP/jankd2.out" >"$LIVE_TMP/bt2.json"
check "native: the eight slow frames alerted (got $(wc -l <"$LIVE_TMP/native.json"))" \
	[ "$(wc -l <"$LIVE_TMP/native.json")" = 8 ]
check "the same alerts from both decoders, field for field" \
	cmp -s "$LIVE_TMP/native.json" "$LIVE_TMP/bt2.json"
cmp -s "$LIVE_TMP/native.json" "$LIVE_TMP/bt2.json" ||
	diff "$LIVE_TMP/native.json" "$LIVE_TMP/bt2.json" | sed 's/^/#   /' | head -20
counts() {
	"$JQ" -r '"\(.inputs[0].events_read) \(.discarded_events)"'
}
got="$(live_jankd_status | counts) / $(status2 | counts)"
check "the same events read, none discarded (got $got)" \
	[ "${got% / *}" = "${got#* / }" -a "${got% / *}" = "80 0" ]
check "native: SIGTERM: exit 0" live_stop_jankd
kill -TERM "$pid2"
wait "$pid2"
rc=$?
live_forget "$pid2"
check "babeltrace2: SIGTERM: exit 0 (got $rc)" [ "$rc" = 0 ]
live_lttng destroy "$session" >/dev/null
