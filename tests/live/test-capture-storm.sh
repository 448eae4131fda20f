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

JQ=${JQ:-jq}
JANK_ID=3f5b0c2e8a6d4e1b9c7a5d3e1f2b4c6a
SUPPRESSED_ID=7c1e9a3b5d2f4e6a8b0c2d4e6f8a1b3c
REPORT_ID=5a8d2c4e6f1b3a5c7e9d1f3b5a7c9e1d

live_init
[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
live_require_jankd
live_require_journald
live_start_sessiond --no-kernel
live_start_relayd
live_start_journald

plan 14

session=storm-live-$$
action=storm$$
caps=$LIVE_TMP/captures
sock=$LIVE_TMP/control
conf=$LIVE_TMP/jankd.conf
live_create_session "$session" || live_bail "cannot create the live session"
# write_conf COOLDOWN MAX-PER-HOUR [MODE]
write_conf() {
	cat >"$conf" <<CONF
[live]
url = $(live_url "$session")
[alerts]
target = journal
rate-limit = 10/2s
[capture]
mode = ${3:-snapshot}
dir = $caps
cooldown = $1
max-per-hour = $2
min-free = 0
[daemon]
control-socket = $sock
[action $action]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 2ms
capture = yes
CONF
}
write_conf 30s 20
live_start_jankd --config "$conf"
live_wait_jankd "$sock"

# storm N: N actions, each one slow, in about a second.
storm() {
	local t0 t1

	t0=$(date +%s%N)
	"$LIVE_DEMO" --cause sleep --count 100 --slow-every 1 --slow 5ms --interval 1ms \
		>"$LIVE_TMP/demo$1.out" 2>&1 9>&-
	t1=$(date +%s%N)
	diag "storm $1: 100 slow actions in $(((t1 - t0) / 1000000)) ms"
}
alerts() {
	live_journalctl -o json MESSAGE_ID=$JANK_ID JANK_ACTION="$action"
}
# The janks alerted, plus those the summaries counted.
accounted() {
	local sent suppressed

	sent=$(alerts | wc -l)
	suppressed=$(live_journalctl -o json MESSAGE_ID=$SUPPRESSED_ID JANK_ACTION="$action" |
		"$JQ" -s 'map(.JANK_SUPPRESSED | tonumber) | add // 0')
	echo $((sent + suppressed))
}
followups() {
	live_journalctl -o json MESSAGE_ID=$REPORT_ID JANK_ACTION="$action" | wc -l
}
# settled JANKS REPORTS: that many janks accounted for, and reports announced.
settled() {
	[ "$(accounted)" -ge "$1" ] && [ "$(followups)" -ge "$2" ]
}
jlog() {
	live_journalctl -o cat _PID="$LIVE_JANKD_PID" SYSLOG_IDENTIFIER=jankd
}

storm 1
live_wait 20 settled 100 1 || diag "not all janks accounted for after 20 s"
sleep 1

ls "$caps" >"$LIVE_TMP/ls1"
check "one storm, one capture ($(tr '\n' ' ' <"$LIVE_TMP/ls1"))" [ "$(grep -c . "$LIVE_TMP/ls1")" = 1 ]
n=$(accounted)
check "100 janks: all alerted or counted in a summary ($n)" [ "$n" = 100 ]
check "10 alerts sent (rate limit 10/2s), the rest summarised" [ "$(alerts | wc -l)" = 10 ]
st=$(live_jankd_status "$sock" '.capture | [.started, .joined + .refused.cooldown, .completed, .failed] | @tsv')
check "jankctl status: 1 started, 99 joined or refused for the cooldown (got: $st)" \
	[ "$st" = "$(printf '1\t99\t1\t0')" ]
cap=$caps/$(cat "$LIVE_TMP/ls1")
others=$(alerts | "$JQ" -r 'select(.JANK_CAPTURE != null and .JANK_CAPTURE != $c) | 1' \
	--arg c "$cap" | wc -l)
check "the alerts that name a capture name that one" \
	[ "$others" = 0 -a "$(alerts | "$JQ" -r 'select(.JANK_CAPTURE == $c) | 1' --arg c "$cap" | wc -l)" -ge 1 ]
joined=$(live_jankd_status "$sock" .capture.joined)
check "capture.json lists the $joined janks that joined it" \
	[ "$("$JQ" '(.joined | length) + .joined_more' "$cap/capture.json")" = "$joined" ]
jlog >"$LIVE_TMP/log1.txt"
n=$(grep -c "^capture refused for action '$action': in its cooldown" "$LIVE_TMP/log1.txt")
refused=$(live_jankd_status "$sock" .capture.refused.cooldown)
if [ "$refused" -gt 0 ]; then
	check "the cooldown refusals ($refused) are logged once ($n)" [ "$n" = 1 ]
else
	check "no cooldown refusal, none logged" [ "$n" = 0 ]
fi
"$LIVE_JANKCTL" status --socket "$sock" >"$LIVE_TMP/status.txt" 2>&1
check "jankctl status (text) shows the capture counters" \
	grep -Eq "^captures \(snapshot, session jankd-capture, in $caps\): 1 started, [0-9]+ joined, 1 complete, 0 failed" \
	"$LIVE_TMP/status.txt"

# ---- A second storm: cooldown 0, max-per-hour 2 ----

write_conf 0 2
kill -HUP "$LIVE_JANKD_PID"
reloaded() {
	jlog | grep -q "^reloaded"
}
live_wait 5 reloaded || diag "no 'reloaded' in the log after 5 s"
storm 2
live_wait 20 settled 200 2 || diag "not all janks accounted for after 20 s"
sleep 2
ls "$caps" >"$LIVE_TMP/ls2"
check "max-per-hour 2: one more capture, two in all" [ "$(grep -c . "$LIVE_TMP/ls2")" = 2 ]
st=$(live_jankd_status "$sock" '.capture | [.started, .joined + .refused.cooldown + .refused["max-per-hour"]] | @tsv')
check "jankctl status: 2 started, the 198 other janks joined or refused (got: $st)" \
	[ "$st" = "$(printf '2\t198')" ]
jlog >"$LIVE_TMP/log2.txt"
hourly=$(live_jankd_status "$sock" '.capture.refused["max-per-hour"]')
n=$(grep -c "^capture refused: 2 captures in the last hour (max-per-hour = 2)" "$LIVE_TMP/log2.txt")
check "the hourly refusals ($hourly) are logged once ($n)" [ "$hourly" -gt 0 -a "$n" = 1 ]
n=$(accounted)
check "200 janks: all alerted or counted in a summary ($n)" [ "$n" = 200 ]

# ---- A reload to mode = none: the capture session goes, the alerts stay ----

write_conf 0 0 none
kill -HUP "$LIVE_JANKD_PID"
destroyed() {
	jlog | grep -q "^destroyed the capture session 'jankd-capture'"
}
live_wait 10 destroyed || diag "the capture session was not destroyed after 10 s"
"$LIVE_DEMO" --cause sleep --count 3 --slow-every 1 --slow 5ms --interval 1ms \
	>"$LIVE_TMP/demo3.out" 2>&1 9>&-
live_wait 20 settled 203 2 || diag "not all janks accounted for after 20 s"
gone() {
	destroyed && ! lttng list 9>&- 2>/dev/null | grep -q jankd-capture &&
		[ "$(ls "$caps" | grep -c .)" = 2 ] &&
		[ "$(live_jankd_status "$sock" '.capture | [.mode, .session, .started] | @tsv')" = \
			"$(printf 'none\t\t2')" ]
}
check "mode = none: session destroyed, no new capture, 3 more janks accounted for" gone

kill -TERM "$LIVE_JANKD_PID"
wait "$LIVE_JANKD_PID"
rc=$?
live_forget "$LIVE_JANKD_PID"
check "SIGTERM: exit 0" [ "$rc" = 0 ]
if [ "$_tap_failed" = 1 ]; then
	diag "jankd's log:"
	jlog | sed 's/^/#   /'
	sed 's/^/#   /' "$LIVE_TMP/jankd.err"
fi
