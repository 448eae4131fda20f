# SPDX-License-Identifier: MIT
# tests/live/test-jankd-reload.sh: SIGHUP reloads jankd's config.
#
#   - threshold 100 ms: 60 ms actions are not alerted;
#   - SIGHUP with threshold 30 ms: they are, without a restart (the input
#     must resolve its event classes again); a change to [live] is ignored,
#     and said so; [graph] overdue-grace goes from 0 (off) to 200 ms: an
#     action that never ends is now reported as overdue;
#   - SIGHUP with a broken config: rejected with FILE:LINE and why, and the
#     30 ms rule stays.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_setup_jankd --journald

plan 15

session=jankd-reload-$$
action=reload$$
conf=$LIVE_JANKD_CONF
live_create_session "$session"

# write_conf THRESHOLD [URL [OVERDUE-GRACE]]: the config.
write_conf() {
	live_jankd_conf --journal "${2:-$(live_url "$session")}" "$action" "$1" <<CONF
[action $action]
match = name == "frame"
[graph]
overdue-grace = ${3:-0}
CONF
}
write_conf 100ms
live_run_jankd

alerts() {
	live_jank_count "$action" JANK_KIND=completed
}
# demo N_DONE: 10 actions, 2 of 60 ms; wait until jankd counted N_DONE actions in all.
demo() {
	live_demo "$LIVE_TMP/demo.out" --cause sleep --count 10 --slow-every 5 --normal 1ms \
		--slow 60ms --interval 5ms
	live_wait_for 10 '[ "$(live_jankd_status '\''.actions_completed'\'')" = "'"$1"'" ]'
	sleep 0.5 # the alerts of the last batch
}

demo 10
check "threshold 100 ms: 60 ms actions are not alerted" [ "$(alerts)" = 0 ]

write_conf 30ms net://127.0.0.1:1/host/elsewhere/other 200ms
live_reload_jankd '^reloaded '
live_jankd_log >"$LIVE_TMP/log1.txt"
check "SIGHUP: reloaded" grep -q "^reloaded $conf: 1 rule$" "$LIVE_TMP/log1.txt"
check "the change to [live] is ignored, and said so" \
	grep -q '^reload: changes to \[live\] url need a restart; ignored$' "$LIVE_TMP/log1.txt"
check "the new [graph] limits are taken, and said so" \
	grep -q '^reload: \[graph\] retention 2.00 s, memory-limit 268435456 bytes, action-timeout 60.0 s, overdue-grace 200 ms$' \
	"$LIVE_TMP/log1.txt"
check "still attached to the first session" live_jankd_attached
demo 20
check "threshold 30 ms: the 2 slow actions are alerted" [ "$(alerts)" = 2 ]
check "with JANK_THRESHOLD_NS=30000000" [ "$(live_jank_entries "$action" |
	"$JQ" -r .JANK_THRESHOLD_NS | sort -u)" = 30000000 ]
check "the histogram survived the reload (20 actions for the rule)" \
	[ "$(live_jankd_status '.inputs[0].rules[0].count')" = 20 ]

# An action that never ends: reported once as overdue, now that the grace is 200 ms.
live_demo "$LIVE_TMP/demo.out" --cause sleep --count 1 --unfinished --normal 1ms --hold 1s
overdue() {
	live_jank_count "$action" JANK_KIND=overdue
}
live_wait_for 5 '[ "$(overdue)" -ge 1 ]' || true
sleep 0.5
check "overdue-grace 200 ms: the unfinished action is reported once as overdue" \
	[ "$(overdue)" = 1 ]

# Broken: a bad threshold; the message names its line.
write_conf "30 parsecs"
line=$(grep -n '^threshold = 30 parsecs$' "$conf" | cut -d: -f1)
live_reload_jankd '^reload rejected'
live_jankd_log >"$LIVE_TMP/log2.txt"
check "SIGHUP with a broken config: rejected, with FILE:LINE and why" \
	grep -q "^reload rejected, the previous configuration stays: $conf:$line: bad duration '30 parsecs' for threshold$" \
	"$LIVE_TMP/log2.txt"
check "jankd still runs" live_alive "$LIVE_JANKD_PID"
check "status counts the rejected reload" \
	[ "$(live_jankd_status '"\(.reloads) \(.reload_errors)"')" = "1 1" ]
demo 30
check "the 30 ms rule stays: 2 more alerts" [ "$(alerts)" = 4 ]

check "SIGTERM: exit 0" live_stop_jankd
live_jankd_log >"$LIVE_TMP/log3.txt"
check "final summary: 30 actions, 4 janks" grep -q "^summary: $action: 30 actions, 4 janks" \
	"$LIVE_TMP/log3.txt"
live_jankd_diag
