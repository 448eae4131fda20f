# SPDX-License-Identifier: MIT
# tests/live/test-jankd-discarded-actions.sh: an action during which the
# tracer discarded events says so (issue 21 §4).
#
# In namespaces of its own (live_isolate): a journald, sessiond and relayd of
# the test's. A channel with tiny buffers in discard mode (2 sub-buffers of
# 4 KiB, lttng's minimum). jank-demo runs two slow actions (1.5 s, 3 s
# apart); during the first, another jank-demo makes a burst of 20,000 short
# busy actions, and lttng-ust discards some of its events. The first slow
# action's alert says how many were discarded in its interval
# (JANK_DISCARDED_EVENTS > 0, no more than the tracer discarded in all) and
# that its path may be incomplete; the second's says 0, and nothing more.
# jankctl analyze of what relayd stored says the same of each.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_setup_jankd --journald

plan 7

session=discarded-actions
action=slowact
live_lttng create "$session" --live=1000000 \
	--set-url="net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT" &&
	live_lttng enable-channel --userspace --session="$session" --subbuf-size=4096 \
		--num-subbuf=2 --discard tiny &&
	live_lttng enable-event --userspace --session="$session" --channel=tiny 'jank:*' &&
	live_lttng add-context --userspace --session="$session" --channel=tiny \
		-t vpid -t vtid -t procname &&
	live_lttng start "$session" || live_bail "cannot create the live session"
live_jankd_conf --journal "$(live_url "$session")" "$action" 500ms <<CONF
[action $action]
match = name == "$action"
CONF
live_run_jankd

# The slow actions (ids 0 and 1), and the burst during the first.
"$LIVE_DEMO" --name "$action" --cause sleep --count 2 --slow-every 1 --slow 1500ms \
	--interval 3s >"$LIVE_TMP/slow.out" 2>&1 9>&- &
slow=$!
live_track "$slow"
sleep 0.4
live_demo "$LIVE_TMP/burst.out" --name burst --cause cpu --count 20000 --slow-every 0 \
	--normal 1us --interval 0ns
wait "$slow"
live_forget "$slow"
check "the slow actions and the burst ran" \
	[ "$(grep -c '^action ' "$LIVE_TMP/slow.out")" = 2 -a \
	"$(grep -c '^action ' "$LIVE_TMP/burst.out")" = 20000 ]

live_wait 15 live_jank_at_least 2 "$action" || true
lttng stop "$session" >/dev/null 2>&1 9>&-
tracer=$(lttng list "$session" 9>&- 2>/dev/null |
	awk '/Discarded events:/ { n += $3 } END { print n + 0 }')
live_jank_entries "$action" JANK_KIND=completed >"$LIVE_TMP/alerts.json"
field() { # KEY FIELD: the alert's FIELD, of the action of KEY
	"$JQ" -r --arg k "$1" "select(.JANK_KEY == \$k) | .$2" "$LIVE_TMP/alerts.json"
}
first=$(field "name=$action,id=0" JANK_DISCARDED_EVENTS)
second=$(field "name=$action,id=1" JANK_DISCARDED_EVENTS)
diag "the tracer discarded $tracer events; the alerts say $first and $second"
check "each slow action has one alert, with JANK_DISCARDED_EVENTS" \
	[ "$(echo "$first" | wc -l)" = 1 -a "$(echo "$second" | wc -l)" = 1 -a \
	-n "$first" -a -n "$second" ]
if [ "$tracer" -gt 0 ]; then
	check "the first: JANK_DISCARDED_EVENTS > 0, at most what the tracer discarded ($tracer)" \
		[ "$first" -gt 0 -a "$first" -le "$tracer" ]
	check "its MESSAGE says the path may be incomplete" \
		sh -c 'echo "$1" | grep -q "; $2 events\{0,1\} discarded by the tracer during it: the path may be incomplete$"' \
		- "$(field "name=$action,id=0" MESSAGE)" "$first"
else
	skip "the first: JANK_DISCARDED_EVENTS > 0" "the tracer dropped nothing this time"
	skip "its MESSAGE says the path may be incomplete" "the tracer dropped nothing this time"
fi
check "the second, after the burst: JANK_DISCARDED_EVENTS=0, nothing said" \
	[ "$second" = 0 -a -z "$(field "name=$action,id=1" MESSAGE | grep discarded)" ]

# What relayd stored, analyzed offline: the same counts, and the same words.
live_analyze_relayd
"$JQ" -r 'select(.type == "action") | "\(.key) \(.discarded_events)"' \
	"$LIVE_TMP/analyze.out" >"$LIVE_TMP/analyze.counts"
check "jankctl analyze: the same discarded_events ($(tr '\n' ' ' <"$LIVE_TMP/analyze.counts"))" \
	[ "$(cat "$LIVE_TMP/analyze.counts")" = "$(printf 'name=%s,id=0 %s\nname=%s,id=1 %s' \
	"$action" "$first" "$action" "$second")" ]
"$LIVE_JANKCTL" analyze --config "$LIVE_JANKD_CONF" "$LIVE_RELAYD_OUTPUT" \
	>"$LIVE_TMP/analyze.txt" 2>&1
if [ "$tracer" -gt 0 ]; then
	check "jankctl analyze (text): the first action's path may be incomplete" \
		[ "$(grep -c 'discarded by the tracer during it: the path may be incomplete$' \
		"$LIVE_TMP/analyze.txt")" = 1 ]
else
	skip "jankctl analyze (text): the first action's path may be incomplete" \
		"the tracer dropped nothing this time"
fi
live_jankd_diag "$LIVE_TMP/alerts.json" "$LIVE_TMP/analyze.txt"
