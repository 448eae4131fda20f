# SPDX-License-Identifier: MIT
# tests/live/test-jankd-json.sh: jankd --log-target=json.
#
# Alerts are JSON Lines on stdout, with the fields of `jankctl analyze
# --format json`; messages go to stderr. The live engine must agree with the
# offline one: the same trace, which relayd also stores on disk, analysed by
# jankctl afterwards, gives the very same objects.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_setup_jankd

plan 10

session=jankd-json-$$
live_create_session "$session"
# target = journal in the config: the command line wins.
live_jankd_conf --journal "$(live_url "$session")" frame 20ms </dev/null
live_run_jankd --log-target=json

live_demo "$LIVE_TMP/demo.out" --cause sleep --count 10 --slow-every 5 --normal 1ms --slow 40ms \
	--interval 5ms
live_wait_for 10 '[ "$(wc -l <"$LIVE_TMP/jankd.out")" -ge 2 ]' || true
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
check "jankctl analyze reads what relayd stored" live_analyze_relayd
check "each alert names its host and session" [ "$("$JQ" -r --arg h "$(hostname)" --arg s "$session" \
	'select(.host == $h and .session == $s) | 1' "$out" | wc -l)" = 2 ]
# Times are quoted, keys sorted, one object a line; jankd's own fields (host,
# session: where the action was seen) aside.
normalize() {
	live_quote_times "$1" | "$JQ" -S -c 'select(.type == "action") | del(.host, .session)' | sort
}
normalize "$out" >"$LIVE_TMP/live.json"
normalize "$LIVE_TMP/analyze.out" >"$LIVE_TMP/offline.json"
check "the alerts have exactly the fields of jankctl analyze --format json" \
	[ "$("$JQ" -c 'keys' "$LIVE_TMP/live.json" | sort -u)" = \
	"$("$JQ" -c 'keys' "$LIVE_TMP/offline.json" | sort -u)" ]
# Suspects aside: offline, a slow action that came before its rule's 10th
# normal one is compared with the whole trace ("baseline": "trace"), which
# jankd, live, cannot do; those compared with the actions before them
# ("before") must agree too.
nosus() {
	"$JQ" -S -c 'del(.suspects)' "$1" | sort
}
before_suspects() {
	"$JQ" -S -c 'select(.suspects.baseline == "before") | [.key, .suspects]' "$1" | sort
}
check "and the same values: live and offline agree (suspects aside)" \
	[ "$(nosus "$LIVE_TMP/live.json")" = "$(nosus "$LIVE_TMP/offline.json")" ]
check "the suspects that offline compared with the actions before them agree too" \
	[ "$(before_suspects "$LIVE_TMP/offline.json" | while read -r l; do
		before_suspects "$LIVE_TMP/live.json" | grep -qxF "$l" || echo "$l"; done)" = "" ]
if ! cmp -s "$LIVE_TMP/live.json" "$LIVE_TMP/offline.json"; then
	diff "$LIVE_TMP/live.json" "$LIVE_TMP/offline.json" | sed 's/^/#   /' | head -20
	sed 's/^/#   /' "$LIVE_TMP/analyze.err"
fi

check "SIGTERM: exit 0" live_stop_jankd
summary_on_stderr() {
	[ "$(wc -l <"$out")" = 2 ] &&
		grep -q '^jankd: summary: frame: 10 actions, 2 janks' "$LIVE_TMP/jankd.err"
}
check "nothing but the alerts on stdout, the summary on stderr" summary_on_stderr
