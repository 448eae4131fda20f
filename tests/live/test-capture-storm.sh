# SPDX-License-Identifier: MIT
# tests/live/test-capture-storm.sh: a storm of janks takes one capture.
#
# jank-demo makes 100 slow actions in about a second. With a cooldown of
# 30 s and max-per-hour 20, exactly one capture is taken: the janks that
# come while it is recorded join it, the later ones are refused for the
# cooldown; the refusal is logged once and counted in jankctl status. Every
# jank is still alerted, or counted in a rate-limit summary: none is lost.
# Then a reload (cooldown 0, max-per-hour 2) and a second storm: one more
# capture, and the hourly limit refuses the rest, logged once.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_setup_jankd --journald

plan 14

session=storm-live-$$
action=storm$$
caps=$LIVE_TMP/captures
live_create_session "$session"
# write_conf COOLDOWN MAX-PER-HOUR [MODE]
write_conf() {
	live_jankd_conf --journal --capture "${3:-snapshot}" "$caps" "$(live_url "$session")" "$action" 2ms <<CONF
[alerts]
rate-limit = 10/2s
[capture]
cooldown = $1
max-per-hour = $2
CONF
}
write_conf 30s 20
live_run_jankd

# storm N: N actions, each one slow, in about a second.
storm() {
	local t0 t1

	t0=$(date +%s%N)
	live_demo "$LIVE_TMP/demo$1.out" --cause sleep --count 100 --slow-every 1 --slow 5ms --interval 1ms
	t1=$(date +%s%N)
	diag "storm $1: 100 slow actions in $(((t1 - t0) / 1000000)) ms"
}
alerts() {
	live_jank_entries "$action" MESSAGE_ID=$LIVE_JANK_ID
}
# The janks alerted, plus those the summaries counted.
accounted() {
	local sent suppressed

	sent=$(alerts | wc -l)
	suppressed=$(live_jank_entries "$action" MESSAGE_ID=$LIVE_SUPPRESSED_ID |
		"$JQ" -s 'map(.JANK_SUPPRESSED | tonumber) | add // 0')
	echo $((sent + suppressed))
}
# settled JANKS REPORTS: that many janks accounted for, and reports announced.
settled() {
	[ "$(accounted)" -ge "$1" ] && live_jank_at_least "$2" "$action" MESSAGE_ID=$LIVE_REPORT_ID
}

storm 1
live_wait 20 settled 100 1 || diag "not all janks accounted for after 20 s"
sleep 1

ls "$caps" >"$LIVE_TMP/ls1"
check "one storm, one capture ($(tr '\n' ' ' <"$LIVE_TMP/ls1"))" [ "$(grep -c . "$LIVE_TMP/ls1")" = 1 ]
n=$(accounted)
check "100 janks: all alerted or counted in a summary ($n)" [ "$n" = 100 ]
check "10 alerts sent (rate limit 10/2s), the rest summarised" [ "$(alerts | wc -l)" = 10 ]
st=$(live_jankd_status '.capture | [.started, .joined + .refused.cooldown, .completed, .failed] | @tsv')
check "jankctl status: 1 started, 99 joined or refused for the cooldown (got: $st)" \
	[ "$st" = "$(printf '1\t99\t1\t0')" ]
cap=$caps/$(cat "$LIVE_TMP/ls1")
others=$(alerts | "$JQ" -r 'select(.JANK_CAPTURE != null and .JANK_CAPTURE != $c) | 1' \
	--arg c "$cap" | wc -l)
check "the alerts that name a capture name that one" \
	[ "$others" = 0 -a "$(alerts | "$JQ" -r 'select(.JANK_CAPTURE == $c) | 1' --arg c "$cap" | wc -l)" -ge 1 ]
joined=$(live_jankd_status .capture.joined)
check "capture.json lists the $joined janks that joined it" \
	[ "$("$JQ" '(.joined | length) + .joined_more' "$cap/capture.json")" = "$joined" ]
live_jankd_log >"$LIVE_TMP/log1.txt"
n=$(grep -c "^capture refused for action '$action': in its cooldown" "$LIVE_TMP/log1.txt")
refused=$(live_jankd_status .capture.refused.cooldown)
if [ "$refused" -gt 0 ]; then
	check "the cooldown refusals ($refused) are logged once ($n)" [ "$n" = 1 ]
else
	check "no cooldown refusal, none logged" [ "$n" = 0 ]
fi
"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" >"$LIVE_TMP/status.txt" 2>&1
check "jankctl status (text) shows the capture counters" \
	grep -Eq "^captures \(snapshot, session jankd-capture, in $caps\): 1 started, [0-9]+ joined, 1 complete, 0 failed" \
	"$LIVE_TMP/status.txt"

# ---- A second storm: cooldown 0, max-per-hour 2 ----

write_conf 0 2
live_reload_jankd
storm 2
live_wait 20 settled 200 2 || diag "not all janks accounted for after 20 s"
sleep 2
ls "$caps" >"$LIVE_TMP/ls2"
check "max-per-hour 2: one more capture, two in all" [ "$(grep -c . "$LIVE_TMP/ls2")" = 2 ]
st=$(live_jankd_status '.capture | [.started, .joined + .refused.cooldown + .refused["max-per-hour"]] | @tsv')
check "jankctl status: 2 started, the 198 other janks joined or refused (got: $st)" \
	[ "$st" = "$(printf '2\t198')" ]
live_jankd_log >"$LIVE_TMP/log2.txt"
hourly=$(live_jankd_status '.capture.refused["max-per-hour"]')
n=$(grep -c "^capture refused: 2 captures in the last hour (max-per-hour = 2)" "$LIVE_TMP/log2.txt")
check "the hourly refusals ($hourly) are logged once ($n)" [ "$hourly" -gt 0 -a "$n" = 1 ]
n=$(accounted)
check "200 janks: all alerted or counted in a summary ($n)" [ "$n" = 200 ]

# ---- A reload to mode = none: the capture session goes, the alerts stay ----

write_conf 0 0 none
kill -HUP "$LIVE_JANKD_PID"
destroyed() {
	live_jankd_logged "^destroyed the capture session 'jankd-capture'"
}
live_wait 10 destroyed || diag "the capture session was not destroyed after 10 s"
live_demo "$LIVE_TMP/demo3.out" --cause sleep --count 3 --slow-every 1 --slow 5ms --interval 1ms
live_wait 20 settled 203 2 || diag "not all janks accounted for after 20 s"
gone() {
	destroyed && ! lttng list 9>&- 2>/dev/null | grep -q jankd-capture &&
		[ "$(ls "$caps" | grep -c .)" = 2 ] &&
		[ "$(live_jankd_status '.capture | [.mode, .session, .started] | @tsv')" = \
			"$(printf 'none\t\t2')" ]
}
check "mode = none: session destroyed, no new capture, 3 more janks accounted for" gone

check "SIGTERM: exit 0" live_stop_jankd
live_jankd_diag
