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

JQ=${JQ:-jq}

live_init
[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
live_require_jankd
live_require_journald
live_start_sessiond --no-kernel
live_start_relayd
live_start_journald

plan 15

session=jankd-reload-$$
action=reload$$
sock=$LIVE_TMP/control
conf=$LIVE_TMP/jankd.conf
live_create_session "$session" || live_bail "cannot create the live session"

# write_conf THRESHOLD [URL [OVERDUE-GRACE]]: the config, with THRESHOLD on line 12.
write_conf() {
	cat >"$conf" <<CONF
[live]
url = ${2:-$(live_url "$session")}
[alerts]
target = journal
[daemon]
control-socket = $sock
[action $action]
begin = jank:action_begin
end = jank:action_end
key = name, id
match = name == "frame"
threshold = $1
[graph]
overdue-grace = ${3:-0}
CONF
}
write_conf 100ms
live_start_jankd --config "$conf"
live_wait_jankd "$sock"

alerts() {
	live_journalctl -o json JANK_ACTION="$action" JANK_KIND=completed | wc -l
}
log() {
	live_journalctl -o cat _PID="$LIVE_JANKD_PID" SYSLOG_IDENTIFIER=jankd
}
logged() {
	log | grep -q "$1"
}
# demo N_DONE: 10 actions, 2 of 60 ms; wait until jankd counted N_DONE actions in all.
demo() {
	"$LIVE_DEMO" --cause sleep --count 10 --slow-every 5 --normal 1ms --slow 60ms \
		--interval 5ms >"$LIVE_TMP/demo.out" 2>&1 9>&-
	live_wait 10 [ "$(live_jankd_status "$sock" '.actions_completed')" = "$1" ]
	sleep 0.5 # the alerts of the last batch
}

demo 10
check "threshold 100 ms: 60 ms actions are not alerted" [ "$(alerts)" = 0 ]

write_conf 30ms net://127.0.0.1:1/host/elsewhere/other 200ms
kill -HUP "$LIVE_JANKD_PID"
live_wait 5 logged '^reloaded ' || true
log >"$LIVE_TMP/log1.txt"
check "SIGHUP: reloaded" grep -q "^reloaded $conf: 1 rule$" "$LIVE_TMP/log1.txt"
check "the change to [live] is ignored, and said so" \
	grep -q '^reload: changes to \[live\] need a restart; ignored$' "$LIVE_TMP/log1.txt"
check "the new [graph] limits are taken, and said so" \
	grep -q '^reload: \[graph\] retention 2.00 s, memory-limit 268435456 bytes, action-timeout 60.0 s, overdue-grace 200 ms$' \
	"$LIVE_TMP/log1.txt"
check "still attached to the first session" live_jankd_attached "$sock"
demo 20
check "threshold 30 ms: the 2 slow actions are alerted" [ "$(alerts)" = 2 ]
check "with JANK_THRESHOLD_NS=30000000" [ "$(live_journalctl -o json JANK_ACTION="$action" |
	"$JQ" -r .JANK_THRESHOLD_NS | sort -u)" = 30000000 ]
check "the histogram survived the reload (20 actions for the rule)" \
	[ "$(live_jankd_status "$sock" '.inputs[0].rules[0].count')" = 20 ]

# An action that never ends: reported once as overdue, now that the grace is 200 ms.
"$LIVE_DEMO" --cause sleep --count 1 --unfinished --normal 1ms --hold 1s \
	>"$LIVE_TMP/demo.out" 2>&1 9>&-
overdue() {
	live_journalctl -o json JANK_ACTION="$action" JANK_KIND=overdue | wc -l
}
live_wait 5 [ "$(overdue)" -ge 1 ] || true
sleep 0.5
check "overdue-grace 200 ms: the unfinished action is reported once as overdue" \
	[ "$(overdue)" = 1 ]

# Broken: a bad threshold on line 12.
write_conf "30 parsecs"
kill -HUP "$LIVE_JANKD_PID"
live_wait 5 logged '^reload rejected' || true
log >"$LIVE_TMP/log2.txt"
check "SIGHUP with a broken config: rejected, with FILE:LINE and why" \
	grep -q "^reload rejected, the previous configuration stays: $conf:12: bad duration '30 parsecs' for threshold$" \
	"$LIVE_TMP/log2.txt"
check "jankd still runs" live_alive "$LIVE_JANKD_PID"
check "status counts the rejected reload" \
	[ "$(live_jankd_status "$sock" '"\(.reloads) \(.reload_errors)"')" = "1 1" ]
demo 30
check "the 30 ms rule stays: 2 more alerts" [ "$(alerts)" = 4 ]

kill -TERM "$LIVE_JANKD_PID"
wait "$LIVE_JANKD_PID"
rc=$?
live_forget "$LIVE_JANKD_PID"
check "SIGTERM: exit 0" [ "$rc" = 0 ]
log >"$LIVE_TMP/log3.txt"
check "final summary: 30 actions, 4 janks" grep -q "^summary: $action: 30 actions, 4 janks" \
	"$LIVE_TMP/log3.txt"
if [ "$_tap_failed" = 1 ]; then
	sed 's/^/#   /' "$LIVE_TMP/log3.txt" "$LIVE_TMP/jankd.err"
fi
