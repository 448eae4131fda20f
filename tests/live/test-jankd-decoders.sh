# SPDX-License-Identifier: MIT
# tests/live/test-jankd-decoders.sh: the two live decoders, with the real
# parts.
#
# A private lttng-sessiond and lttng-relayd. For each decoder, [live]
# decoder = native (jank's own lttng-live client and CTF decoder), then
# babeltrace2 (its lttng-live source): a live session of jank:* events, jankd
# attached before jank-demo starts (the session's metadata grows when the
# program registers its events), the same workload. relayd 2.13 takes one
# viewer per session, so the two runs are one after the other: each run's
# alerts are compared field for field with jankctl analyze of what relayd
# stored of that session (suspects aside, as in test-jankd-json.sh), and the
# two runs alert the same actions.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_setup_jankd

plan 11

normalize() {
	live_quote_times "$1" | "$JQ" -S -c 'select(.type == "action") | del(.host, .session)' | sort
}
nosus() {
	"$JQ" -S -c 'del(.suspects)' "$1" | sort
}

for decoder in native babeltrace2; do
	session=jankd-decoders-$decoder-$$
	live_create_session "$session"
	live_jankd_conf "$(live_url "$session")" frame 20ms <<CONF
[live]
decoder = $decoder
CONF
	live_run_jankd --log-target=json
	live_demo "$LIVE_TMP/demo.out" --cause sleep --count 40 --slow-every 5 --normal 1ms \
		--slow 40ms --interval 5ms
	live_wait_for 15 '[ "$(wc -l <"$LIVE_TMP/jankd.out")" -ge 8 ]' || true
	sleep 1
	got=$(live_jankd_status '"\(.inputs[0].decoder) \(.inputs[0].events_read) \(.discarded_events)"')
	check "$decoder: the status says the decoder, none discarded (got $got)" \
		[ "${got%% *} ${got##* }" = "$decoder 0" ]
	echo "$got" | cut -d' ' -f2 >"$LIVE_TMP/$decoder.events"
	check "$decoder: SIGTERM: exit 0" live_stop_jankd
	live_lttng destroy "$session" >/dev/null
	normalize "$LIVE_TMP/jankd.out" >"$LIVE_TMP/$decoder.json"
	"$JQ" -r .key "$LIVE_TMP/$decoder.json" | sort >"$LIVE_TMP/$decoder.keys"
	check "$decoder: the eight slow frames alerted (got $(tr '\n' ' ' <"$LIVE_TMP/$decoder.keys"))" \
		[ "$(wc -l <"$LIVE_TMP/$decoder.keys")" = 8 ]
	"$LIVE_JANKCTL" analyze --config "$LIVE_JANKD_CONF" --format json \
		"$LIVE_RELAYD_OUTPUT"/*/"$session"-* >"$LIVE_TMP/analyze.out" 2>"$LIVE_TMP/analyze.err"
	normalize "$LIVE_TMP/analyze.out" >"$LIVE_TMP/$decoder.offline.json"
	check "$decoder: the alerts are jankctl analyze's on what relayd stored (suspects aside)" \
		[ "$(nosus "$LIVE_TMP/$decoder.json")" = "$(nosus "$LIVE_TMP/$decoder.offline.json")" ]
	if [ "$(nosus "$LIVE_TMP/$decoder.json")" != "$(nosus "$LIVE_TMP/$decoder.offline.json")" ]; then
		diff <(nosus "$LIVE_TMP/$decoder.json") <(nosus "$LIVE_TMP/$decoder.offline.json") |
			sed 's/^/#   /' | head -20
		sed 's/^/#   /' "$LIVE_TMP/analyze.err"
		sed 's/^/#   /' "$LIVE_TMP/jankd.err"
	fi
	mv "$LIVE_TMP/jankd.out" "$LIVE_TMP/jankd-$decoder.out"
	mv "$LIVE_TMP/jankd.err" "$LIVE_TMP/jankd-$decoder.err"
done
check "both decoders alerted the same actions" cmp -s "$LIVE_TMP/native.keys" "$LIVE_TMP/babeltrace2.keys"
check "both read as many events ($(cat "$LIVE_TMP/native.events") and $(cat "$LIVE_TMP/babeltrace2.events"))" \
	[ "$(cat "$LIVE_TMP/native.events")" = "$(cat "$LIVE_TMP/babeltrace2.events")" -a \
	"$(cat "$LIVE_TMP/native.events")" -ge 80 ]
check "the native run's log says no fallback" \
	[ "$(grep -c 'read through babeltrace2' "$LIVE_TMP/jankd-native.err")" = 0 ]
