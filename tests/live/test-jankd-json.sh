# SPDX-License-Identifier: MIT
# tests/live/test-jankd-json.sh: jankd --log-target=json.
#
# Alerts are JSON Lines on stdout, with the fields of `jankctl analyze
# --format json`; messages go to stderr. The live engine must agree with the
# offline one: the same trace, which relayd also stores on disk, analysed by
# jankctl afterwards, gives the very same objects.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

JQ=${JQ:-jq}

live_init
[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
live_require_jankd
live_start_sessiond --no-kernel
live_start_relayd

plan 8

session=jankd-json-$$
sock=$LIVE_TMP/control
conf=$LIVE_TMP/jankd.conf
live_create_session "$session" || live_bail "cannot create the live session"
cat >"$conf" <<CONF
[live]
url = $(live_url "$session")
[alerts]
target = journal        # the command line wins
[daemon]
control-socket = $sock
[action frame]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 20ms
CONF
live_start_jankd --config "$conf" --log-target=json
live_wait_jankd "$sock"

"$LIVE_DEMO" --cause sleep --count 10 --slow-every 5 --normal 1ms --slow 40ms \
	--interval 5ms >"$LIVE_TMP/demo.out" 2>&1 9>&-
live_wait 10 [ "$(wc -l <"$LIVE_TMP/jankd.out")" -ge 2 ] || true
sleep 1
out=$LIVE_TMP/jankd.out
check "two alerts, one JSON object per line on stdout" \
	[ "$(wc -l <"$out")" = 2 -a "$("$JQ" -c . "$out" 2>/dev/null | wc -l)" = 2 ]
check "each is an action over its threshold (type action, over_threshold true)" \
	[ "$("$JQ" -r 'select(.type == "action" and .over_threshold == true and
		.action == "frame" and .threshold_ns == 20000000) | .key' "$out" | sort |
	tr '\n' ' ')" = "name=frame,id=4 name=frame,id=9 " ]
check "messages went to stderr, not stdout" grep -q "attached" "$LIVE_TMP/jankd.err"

live_lttng destroy "$session"
"$LIVE_JANKCTL" analyze --config "$conf" --format json "$LIVE_RELAYD_OUTPUT" \
	>"$LIVE_TMP/analyze.out" 2>"$LIVE_TMP/analyze.err"
check "jankctl analyze reads what relayd stored" [ $? = 0 ]
# Times are quoted (jq 1.6 reads numbers as doubles), keys sorted, one object a line.
normalize() {
	sed -E 's/"(begin|end)":(-?[0-9]+)/"\1":"\2"/g' "$1" |
		"$JQ" -S -c 'select(.type == "action")' | sort
}
normalize "$out" >"$LIVE_TMP/live.json"
normalize "$LIVE_TMP/analyze.out" >"$LIVE_TMP/offline.json"
check "the alerts have exactly the fields of jankctl analyze --format json" \
	[ "$("$JQ" -c 'keys' "$LIVE_TMP/live.json" | sort -u)" = \
	"$("$JQ" -c 'keys' "$LIVE_TMP/offline.json" | sort -u)" ]
check "and the same values: live and offline agree" cmp -s "$LIVE_TMP/live.json" "$LIVE_TMP/offline.json"
if ! cmp -s "$LIVE_TMP/live.json" "$LIVE_TMP/offline.json"; then
	diff "$LIVE_TMP/live.json" "$LIVE_TMP/offline.json" | sed 's/^/#   /' | head -20
	sed 's/^/#   /' "$LIVE_TMP/analyze.err"
fi

kill -TERM "$LIVE_JANKD_PID"
wait "$LIVE_JANKD_PID"
rc=$?
live_forget "$LIVE_JANKD_PID"
check "SIGTERM: exit 0" [ "$rc" = 0 ]
summary_on_stderr() {
	[ "$(wc -l <"$out")" = 2 ] &&
		grep -q '^jankd: summary: frame: 10 actions, 2 janks' "$LIVE_TMP/jankd.err"
}
check "nothing but the alerts on stdout, the summary on stderr" summary_on_stderr
