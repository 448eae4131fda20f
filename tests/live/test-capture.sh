# SPDX-License-Identifier: MIT
# tests/live/test-capture.sh: one jank, one capture, end to end.
#
# A private lttng-sessiond, lttng-relayd and systemd-journald; jank-demo
# traced by a live session that jankd watches, and by the snapshot session
# that jankd creates for its captures ([capture] session names it; it does
# not exist yet, so jankd creates it and destroys it at exit). One slow
# action (id 9 of 10) must give:
#   - exactly one capture directory, that babeltrace2 reads, holding the
#     action's begin and end events;
#   - report.json naming the action, with a critical path that tiles its
#     interval exactly; report.txt; critical-path.svg (well-formed XML);
#   - the alert's JANK_CAPTURE naming that directory, then the follow-up
#     entry of the report (its own MESSAGE_ID) with the same directory;
#   - jankctl status and jankctl captures agreeing; one kernel warning.
# Then jankd again with --log-target=json: the alert's "capture", and the
# report's follow-up line (type capture_report). Then [capture] session
# naming a snapshot session made by hand: jankd adopts it, captures from it,
# and leaves it at exit. And a rotation mode with neither a period nor a
# size is refused at start: exit 1, one line.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

BT=${BABELTRACE2:-babeltrace2}

command -v "$BT" >/dev/null 2>&1 || plan_skip_all "babeltrace2 not found"
command -v xmllint >/dev/null 2>&1 || plan_skip_all "xmllint not found (libxml2-utils)"
live_setup_jankd --journald

plan 25

session=capture-live-$$
capsession=capture-snap-$$
action=cap$$
caps=$LIVE_TMP/captures
conf=$LIVE_JANKD_CONF
live_create_session "$session"
# A 30 s cooldown, and jankd's own max-per-hour (20), not live_jankd_conf's 0.
live_jankd_conf --journal --capture snapshot "$caps" "$(live_url "$session")" "$action" 30ms <<CONF
[capture]
session = $capsession
cooldown = 30s
max-per-hour = 20
[action $action]
match = name == "frame"
CONF
live_run_jankd

check "jankd created the capture session (snapshot mode)" \
	sh -c 'lttng list "$1" 9>&- 2>/dev/null | grep -q "^Recording session $1: \[active snapshot\]"' - "$capsession"

# demo OUT: 10 actions, the 10th slow (60 ms).
demo() {
	live_demo "$1" --cause sleep --count 10 --slow-every 10 --normal 1ms --slow 60ms --interval 5ms
}
demo "$LIVE_TMP/demo.out"

# followups: the reports announced for the action.
followups() {
	live_jank_entries "$action" MESSAGE_ID=$LIVE_REPORT_ID
}
live_wait 30 live_jank_at_least 1 "$action" MESSAGE_ID=$LIVE_REPORT_ID ||
	diag "no report announced after 30 s"
sleep 1 # nothing more may come

ls "$caps" >"$LIVE_TMP/ls" 2>/dev/null
n=$(grep -c . "$LIVE_TMP/ls")
check "exactly one capture directory (got $n: $(tr '\n' ' ' <"$LIVE_TMP/ls"))" [ "$n" = 1 ]
cap=$caps/$(head -n 1 "$LIVE_TMP/ls")
check "it is named <UTC time>-$action-<tid>" \
	grep -Eq "^[0-9]{8}T[0-9]{6}Z-$action-[0-9]+\$" "$LIVE_TMP/ls"

"$BT" "$cap" >"$LIVE_TMP/bt.out" 2>"$LIVE_TMP/bt.err" 9>&-
bt_rc=$?
check "babeltrace2 reads the capture (exit $bt_rc, $(wc -l <"$LIVE_TMP/bt.out") events)" \
	[ "$bt_rc" = 0 -a -s "$LIVE_TMP/bt.out" ]
nb=$(grep -c 'jank:action_begin: .* name = "frame", id = 9 }' "$LIVE_TMP/bt.out")
ne=$(grep -c 'jank:action_end: .* name = "frame", id = 9 }' "$LIVE_TMP/bt.out")
check "it holds the flagged action's begin and end (id 9: $nb, $ne)" [ "$nb" = 1 -a "$ne" = 1 ]

# Times as strings: jq 1.6 reads numbers as doubles.
quote_times() {
	sed -E 's/"(begin|end|ts)":(-?[0-9]+)/"\1":"\2"/g' "$1"
}
quote_times "$cap/report.json" >"$LIVE_TMP/report.json"
got=$("$JQ" -r '[.type, .action, .key, .over_threshold, (.error // "none")] | @tsv' \
	"$LIVE_TMP/report.json" 2>&1)
check "report.json names the action (got: $got)" \
	[ "$got" = "$(printf 'action\t%s\tname=frame,id=9\ttrue\tnone' "$action")" ]
tiles() {
	"$JQ" -e '.critical_path as $p | ($p | length) > 0 and $p[0].begin == .begin and
		$p[-1].end == .end and
		all(range(1; $p | length); $p[. - 1].end == $p[.].begin)' \
		"$LIVE_TMP/report.json" >/dev/null
}
check "its critical path tiles [begin, end] exactly" tiles
begin=$("$JQ" -r .begin "$LIVE_TMP/report.json")
end=$("$JQ" -r .end "$LIVE_TMP/report.json")
measured=$(awk '$1 == "action" && $2 == 9 { print $6 }' "$LIVE_TMP/demo.out")
d=$((end - begin))
diff=$((d > measured ? d - measured : measured - d))
check "its interval is the action's: $d ns, jank-demo measured $measured ns" \
	[ "$d" -ge 60000000 -a "$diff" -lt 2000000 ]
check "report.txt tells the story" grep -q "^jank capture report: $cap" "$cap/report.txt"
check "critical-path.svg is well-formed XML" xmllint --noout "$cap/critical-path.svg"
check "capture.json says complete" \
	[ "$("$JQ" -r '.state + " " + .session' "$cap/capture.json")" = "complete $capsession" ]

live_jank_entries "$action" MESSAGE_ID=$LIVE_JANK_ID >"$LIVE_TMP/alerts.json"
got=$("$JQ" -r '"\(.JANK_KEY) \(.JANK_CAPTURE)"' "$LIVE_TMP/alerts.json")
check "one alert, whose JANK_CAPTURE is the capture (got: $got)" \
	[ "$got" = "name=frame,id=9 $cap" ]
followups >"$LIVE_TMP/followups.json"
got=$("$JQ" -r '[.JANK_CAPTURE, .JANK_REPORT, .JANK_KEY] | @tsv' "$LIVE_TMP/followups.json")
check "one follow-up entry: JANK_CAPTURE, JANK_REPORT, JANK_KEY (got: $got)" \
	[ "$got" = "$(printf '%s\t%s/report.txt\tname=frame,id=9' "$cap" "$cap")" ]
summary=$("$JQ" -r .summary "$cap/report.json")
check "the follow-up carries report.json's summary, also in MESSAGE" \
	[ -n "$summary" -a "$("$JQ" -r .JANK_SUMMARY "$LIVE_TMP/followups.json")" = "$summary" -a \
	"$("$JQ" -r '.MESSAGE | contains($s)' --arg s "$summary" "$LIVE_TMP/followups.json")" = true ]

st=$(live_jankd_status '.capture | [.session, .started, .completed, .failed, .reports] | @tsv')
check "jankctl status: 1 capture started, complete, 1 report (got: $st)" \
	[ "$st" = "$(printf '%s\t1\t1\t0\t1' "$capsession")" ]
"$LIVE_JANKCTL" captures --dir "$caps" --format json >"$LIVE_TMP/captures.json" 2>&1
check "jankctl captures lists it, complete" \
	[ "$("$JQ" -r '[.name, .state] | @tsv' "$LIVE_TMP/captures.json")" = "$(printf '%s\tcomplete' "$(basename "$cap")")" ]

live_stop_jankd
rc=$?
live_jankd_log >"$LIVE_TMP/log.txt"
gone() {
	[ "$rc" = 0 ] && ! lttng list 9>&- 2>/dev/null | grep -q "$capsession" &&
		grep -q "^destroyed the capture session '$capsession'" "$LIVE_TMP/log.txt"
}
check "SIGTERM: exit 0, the capture session is destroyed" gone
n=$(grep -c "^capture session '$capsession': .*kernel" "$LIVE_TMP/log.txt")
check "no kernel tracer: one warning ($n)" [ "$n" = 1 ]

# ---- --log-target=json ----

live_run_jankd --log-target=json
demo "$LIVE_TMP/demo2.out"
have_report_line() {
	grep -q '"type":"capture_report"' "$LIVE_TMP/jankd.out"
}
live_wait 30 have_report_line || diag "no capture_report line after 30 s"
out=$LIVE_TMP/jankd.out
cap2=$("$JQ" -r 'select(.type == "action") | .capture' "$out")
check "json: the alert's \"capture\" is a new capture directory ($cap2)" \
	[ -n "$cap2" -a "$cap2" != "$cap" -a "$(dirname "$cap2")" = "$caps" -a -d "$cap2" ]
got=$("$JQ" -r 'select(.type == "capture_report") | [.action, .key, .capture, .report, (.summary | length > 0)] | @tsv' "$out")
check "json: then a capture_report line with the report's path and summary" \
	[ "$got" = "$(printf '%s\tname=frame,id=9\t%s\t%s/report.txt\ttrue' "$action" "$cap2" "$cap2")" ]
live_stop_jankd
rc=$?
check "json: SIGTERM, exit 0; nothing but JSON on stdout" \
	[ "$rc" = 0 -a "$("$JQ" -c . "$out" 2>/dev/null | wc -l)" = "$(wc -l <"$out")" ]

# ---- An existing snapshot session: adopted, left alone ----

adopt=capture-adopt-$$
live_lttng create "$adopt" --snapshot --output="$LIVE_TMP/adopt-out" &&
	live_start_session "$adopt" || live_bail "cannot create the snapshot session to adopt"
sed "s/^session = .*/session = $adopt/" "$conf" >"$LIVE_TMP/adopt.conf"
live_start_jankd --config "$LIVE_TMP/adopt.conf"
live_wait_jankd
demo "$LIVE_TMP/demo3.out"
live_wait 30 live_jank_at_least 2 "$action" MESSAGE_ID=$LIVE_REPORT_ID ||
	diag "no report announced after 30 s"
cap3=$(followups | "$JQ" -r .JANK_CAPTURE | tail -n 1)
adopted() {
	[ -n "$cap3" ] && [ "$cap3" != "$cap" ] && [ "$cap3" != "$cap2" ] &&
		[ "$("$JQ" -r '.session + " " + .state' "$cap3/capture.json")" = "$adopt complete" ] &&
		"$JQ" -e '.error == null' "$cap3/report.json" >/dev/null
}
check "a session named by [capture] session and there: the capture comes from it" adopted
live_stop_jankd
rc=$?
live_jankd_log >"$LIVE_TMP/log3.txt"
check "the log says it adopted it" grep -q "^adopted the existing capture session '$adopt'" \
	"$LIVE_TMP/log3.txt"
left_alone() {
	[ "$rc" = 0 ] && ! grep -q "^destroyed the capture session" "$LIVE_TMP/log3.txt" &&
		lttng list 9>&- 2>/dev/null | grep -q "$adopt"
}
check "SIGTERM: exit 0, and the adopted session is still there" left_alone
live_lttng destroy "$adopt"

# ---- A rotation mode that cannot rotate ----

sed -e 's/^mode = snapshot$/mode = rotation\nrotation-period = 0/' "$conf" >"$LIVE_TMP/rot.conf"
"$LIVE_JANKD" --config "$LIVE_TMP/rot.conf" >"$LIVE_TMP/rot.out" 2>&1 9>&-
rc=$?
rot_refused() {
	[ "$rc" = 1 ] && [ "$(wc -l <"$LIVE_TMP/rot.out")" = 1 ] &&
		grep -q "^jankd: $LIVE_TMP/rot.conf: \[capture\] mode = rotation needs a rotation-period or a rotation-size\$" \
			"$LIVE_TMP/rot.out"
}
check "mode = rotation without a period or a size: exit 1, one line naming the file" rot_refused
live_jankd_diag "$LIVE_TMP/log.txt"
if [ "$_tap_failed" = 1 ]; then
	sed 's/^/#   /' "$LIVE_TMP/bt.err" "$LIVE_TMP/rot.out" | head
fi
