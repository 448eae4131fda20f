# SPDX-License-Identifier: MIT
# tests/live/test-jankd-state.sh: jankd keeps its baselines across restarts
# ([daemon] state-dir).
#
#   - 30 actions, 28 normal: stopped, jankd leaves the input's baselines in
#     its state directory (jank-baselines/1, the rule's normal actions);
#   - restarted, the first slow action already has its suspects, against the
#     normal actions before the restart (a fresh engine would say "no
#     baseline yet");
#   - a corrupt state file is ignored, with one warning: no baseline then.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"
live_isolate "$@"

live_setup_jankd --journald

plan 7

session=jankd-state-$$
action=state$$
state=$LIVE_TMP/state
live_create_session "$session"
live_jankd_conf --journal "$(live_url "$session")" "$action" 30ms <<CONF
[action $action]
match = name == "frame"
CONF

# demo COUNT SLOW_EVERY DONE: COUNT actions, every SLOW_EVERY-th of 60 ms; wait
# until jankd counted DONE completed actions since it started.
demo() {
	live_demo "$LIVE_TMP/demo.out" --cause sleep --count "$1" --slow-every "$2" --normal 1ms \
		--slow 60ms --interval 5ms
	live_wait_for 10 '[ "$(live_jankd_status '\''.actions_completed'\'')" = "'"$3"'" ]'
	sleep 0.5 # the alerts of the last batch
}
# The suspects of the alerts of jankd's current run: "READY BASELINE" per alert.
suspects() {
	live_jank_entries "$action" _PID="$LIVE_JANKD_PID" JANK_KIND=completed |
		"$JQ" -r '.JANK_SUSPECTS | fromjson | "\(.ready) \(.baseline)"'
}

live_run_jankd
demo 30 15 30
live_stop_jankd
file=$(ls "$state"/baselines-*.json 2>/dev/null)
check "stopped: one state file for the input" [ "$(echo "$file" | wc -w)" = 1 ]
check "jank-baselines/1, the rule with its normal actions" [ "$("$JQ" -r --arg a "$action" \
	'"\(.format) \(.rules[] | select(.name == $a) | .n >= 10)"' "$file" 2>/dev/null)" = \
	"jank-baselines/1 true" ]

live_run_jankd
check "restarted: the baselines restored, and said so" \
	live_wait 5 live_jankd_logged "baselines of 1 rule restored$"
demo 2 1 2
check "restarted: the first slow action has its suspects" [ "$(suspects | head -1)" = "true before" ]
live_stop_jankd

printf '{"format": "jank-baselines/1", "rules": [{"name": ' >"$file"
live_run_jankd
check "a corrupt state file: ignored, with one warning" \
	live_wait_for 5 '[ "$(live_jankd_log | grep -c '\''the saved baselines are ignored'\'')" = 1 ]'
check "... and jankd runs on" live_jankd_attached
demo 2 1 2
check "... without a baseline: none is made up" [ "$(suspects | head -1)" = "false null" ]
live_stop_jankd
live_jankd_diag
