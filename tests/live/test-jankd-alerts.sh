# SPDX-License-Identifier: MIT
# tests/live/test-jankd-alerts.sh: jankd end to end, with the real parts.
#
# A private lttng-sessiond, lttng-relayd and systemd-journald; a live session
# of jank:* events; jankd attached to it; jank-demo as the traced program.
#   - 50 actions, 5 over the threshold: exactly those 5 alerts in journald,
#     with the fields of jankd(8), "Alerts", and durations within 2 ms of what
#     jank-demo measured itself, and what was different (JANK_SUSPECTS);
#   - jankctl status: the counts; the control socket refuses other users;
#   - an action that never ends: one overdue alert;
#   - SIGTERM: exit 0 and a final summary.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

TOLERANCE_NS=2000000
THRESHOLD_NS=30000000

command -v runuser >/dev/null 2>&1 || plan_skip_all "runuser not found (util-linux)"
live_setup_jankd --journald

plan 25

session=jankd-alerts-$$
action=alerts$$
# In a directory of its own: the test loosens its modes.
mkdir -p "$LIVE_TMP/run"
LIVE_JANKD_SOCK=$LIVE_TMP/run/control
sock=$LIVE_JANKD_SOCK
live_create_session "$session"
live_jankd_conf --journal "$(live_url "$session")" "$action" 30ms <<CONF
[daemon]
status-interval = 1s
[action $action]
match = name == "frame"
[graph]
overdue-grace = 500ms
CONF
live_run_jankd

# entries [FIELD=VALUE...]: this test's alerts as JSON lines.
entries() {
	live_jank_entries "$action" "$@"
}
count_entries() {
	live_jank_count "$action" "$@"
}

demo=$LIVE_TMP/demo.out
"$LIVE_DEMO" --cause sleep --count 50 --slow-every 10 --normal 1ms --slow 60ms \
	--interval 5ms >"$demo" 2>"$demo.err" 9>&-
demo_rc=$?
check "jank-demo ran 50 actions" [ "$demo_rc" = 0 -a "$(grep -c '^action ' "$demo")" = 50 ]

live_wait_for 10 '[ "$(count_entries JANK_KIND=completed)" -ge 5 ]' || true
sleep 1.5 # more would be wrong: give them time to show up
n=$(count_entries JANK_KIND=completed)
check "exactly 5 alerts in journald (got $n)" [ "$n" = 5 ]

entries JANK_KIND=completed >"$LIVE_TMP/alerts.json"
slow_keys=$(awk '$1 == "action" && $5 == "slow" { printf "name=frame,id=%s\n", $2 }' "$demo" | sort)
got_keys=$("$JQ" -r .JANK_KEY "$LIVE_TMP/alerts.json" | sort)
check "the alerts are the 5 slow actions (name=frame,id=9,19,29,39,49)" \
	[ "$got_keys" = "$slow_keys" -a "$(echo "$slow_keys" | wc -l)" = 5 ]

field_is() { # FIELD VALUE: every alert has FIELD=VALUE
	[ "$("$JQ" -r --arg v "$2" "select(.$1 != \$v) | 1" "$LIVE_TMP/alerts.json" | wc -l)" = 0 ]
}
check "MESSAGE_ID is the jank one" field_is MESSAGE_ID "$LIVE_JANK_ID"
check "PRIORITY=4" field_is PRIORITY 4
check "SYSLOG_IDENTIFIER=jankd" field_is SYSLOG_IDENTIFIER jankd
check "JANK_THRESHOLD_NS=$THRESHOLD_NS" field_is JANK_THRESHOLD_NS "$THRESHOLD_NS"
check "JANK_COMM is the worker thread's (jank-worker)" field_is JANK_COMM jank-worker

pids=$("$JQ" -r .JANK_PID "$LIVE_TMP/alerts.json" | sort -u)
tids=$("$JQ" -r .JANK_TID "$LIVE_TMP/alerts.json" | sort -u)
check "JANK_PID and JANK_TID: one process, its worker thread (pid $pids, tid $tids)" \
	[ "$(echo "$pids" | wc -l)" = 1 -a "$(echo "$tids" | wc -l)" = 1 -a \
	"$pids" -gt 0 -a "$tids" -gt 0 -a "$pids" != "$tids" ]
check "JANK_END_NS - JANK_BEGIN_NS = JANK_DURATION_NS" [ "$("$JQ" -r \
	'select((.JANK_END_NS | tonumber) - (.JANK_BEGIN_NS | tonumber) - (.JANK_DURATION_NS | tonumber) | fabs > 1024) | 1' \
	"$LIVE_TMP/alerts.json" | wc -l)" = 0 ]

bad=
while read -r key dur; do
	id=${key##*=}
	measured=$(awk -v id="$id" '$1 == "action" && $2 == id { print $6 }' "$demo")
	diff=$((dur > measured ? dur - measured : measured - dur))
	diag "$key: jankd $dur ns, jank-demo $measured ns (diff $diff ns)"
	[ "$diff" -lt "$TOLERANCE_NS" ] || bad="$bad $id"
done <<EOF
$("$JQ" -r '"\(.JANK_KEY) \(.JANK_DURATION_NS)"' "$LIVE_TMP/alerts.json")
EOF
check "durations within 2 ms of jank-demo's own measurement${bad:+ (not:$bad)}" [ -z "$bad" ]

check "JANK_CRITICAL_PATH names the thread; JANK_BREAKDOWN is JSON with states" \
	[ "$("$JQ" -r 'select((.JANK_CRITICAL_PATH | test("^tid [0-9]+")) and
		((.JANK_BREAKDOWN | fromjson | .states | length) > 0)) | 1' \
	"$LIVE_TMP/alerts.json" | wc -l)" = 5 ]
check "MESSAGE is one line that says what was slow" \
	[ "$("$JQ" -r --arg a "$action" 'select((.MESSAGE | test("^JANK " + $a + " \\[name=frame,id=[0-9]+\\]: [0-9.]+ ms \\(threshold 30.0 ms\\) on tid [0-9]+"))
		and (.MESSAGE | contains("\n") | not)) | 1' "$LIVE_TMP/alerts.json" | wc -l)" = 5 ]

check "JANK_SUSPECTS is JSON, and MESSAGE ends with its top suspect (or 'no baseline yet')" \
	[ "$("$JQ" -r '(.JANK_SUSPECTS | fromjson) as $s |
		select(($s.summary | test("^(no baseline yet|nothing above normal|\\+)")) and
		(.MESSAGE | endswith((if $s.ready and ($s.items | length) > 0 then "; suspect: "
			else "; " end) + $s.summary))) | 1' "$LIVE_TMP/alerts.json" | wc -l)" = 5 ]

# Alert latency: from the action's end (trace clock: realtime-based) to the entry's
# arrival in journald (__REALTIME_TIMESTAMP, us).
"$JQ" -r '"\(.JANK_KEY) \(.JANK_END_NS) \(.__REALTIME_TIMESTAMP)"' "$LIVE_TMP/alerts.json" |
	while read -r key end rt; do
		diag "alert latency $key: $(((rt * 1000 - end) / 1000000)) ms"
	done

# ---- jankctl status ----

st=$(live_jankd_status '[.events, .actions_completed, .janks,
	(.inputs[0].rules[0] | .action, .count, .janks), .inputs[0].state] | @tsv')
check "jankctl status: 100 events, 50 actions, 5 janks for $action (got: $st)" \
	[ "$st" = "$(printf '100\t50\t5\t%s\t50\t5\tconnected' "$action")" ]
"$LIVE_JANKCTL" status --socket "$sock" >"$LIVE_TMP/status.txt" 2>&1
check "jankctl status (text): the rule's row says 50 actions, 5 janks" \
	grep -Eq "^  $action +50 +5 " "$LIVE_TMP/status.txt"
check "jankctl status (text): the recent janks" \
	grep -q "$action \[name=frame,id=49\]" "$LIVE_TMP/status.txt"

# one_error RC PATTERN: exit status 3 (jankd cannot be reached or refused)
# and one line on stderr matching PATTERN.
one_error() {
	[ "$1" = 3 ] && [ "$(wc -l <"$LIVE_TMP/nobody.out")" = 1 ] &&
		grep -q "$2" "$LIVE_TMP/nobody.out"
}
# nobody's own copy of jankctl: the build tree may be where nobody can
# enter (a clone under root's 0700 home). LIVE_TMP is passed through (0711).
mkdir -m 0755 "$LIVE_TMP/nobody"
cp "$LIVE_JANKCTL" "$LIVE_TMP/nobody/jankctl"
chmod 0755 "$LIVE_TMP/nobody/jankctl"
chmod 0711 "$LIVE_TMP"
runuser -u nobody -- "$LIVE_TMP/nobody/jankctl" status --socket "$sock" >"$LIVE_TMP/nobody.out" 2>&1
rc=$?
check "nobody cannot reach the socket (mode 0600): exit 3, one line" \
	one_error "$rc" "^jankctl: cannot connect to $sock: Permission denied"
# Loosen the modes by hand: jankd itself must still refuse (SO_PEERCRED).
chmod 0755 "$LIVE_TMP" "$LIVE_TMP/run"
chmod 0666 "$sock"
runuser -u nobody -- "$LIVE_TMP/nobody/jankctl" status --socket "$sock" >"$LIVE_TMP/nobody.out" 2>&1
rc=$?
chmod 0700 "$LIVE_TMP"
check "with the socket 0666, jankd refuses uid $(id -u nobody) itself: exit 3, one line" \
	one_error "$rc" "^jankctl: jankd: permission denied"
sed 's/^/#   /' "$LIVE_TMP/nobody.out"

# ---- Overdue ----

"$LIVE_DEMO" --cause sleep --count 2 --slow-every 0 --normal 1ms --interval 1ms \
	--unfinished --hold 2s >"$LIVE_TMP/unfinished.out" 2>&1 9>&-
live_wait_for 5 '[ "$(count_entries JANK_KIND=overdue)" -ge 1 ]' || true
sleep 1
entries JANK_KIND=overdue >"$LIVE_TMP/overdue.json"
check "one overdue alert, for the action that never ended (name=frame,id=1)" \
	[ "$(wc -l <"$LIVE_TMP/overdue.json")" = 1 -a \
	"$("$JQ" -r .JANK_KEY "$LIVE_TMP/overdue.json")" = "name=frame,id=1" ]
check "the overdue alert: open past threshold + grace, MESSAGE says OVERDUE" \
	[ "$("$JQ" -r 'select((.JANK_DURATION_NS | tonumber) >= 530000000 and
		(.MESSAGE | startswith("OVERDUE"))) | 1' "$LIVE_TMP/overdue.json")" = 1 ]
check "still 5 completed alerts" [ "$(count_entries JANK_KIND=completed)" = 5 ]

# ---- Stop ----

check "SIGTERM: jankd exits 0" live_stop_jankd
live_jankd_log >"$LIVE_TMP/log.txt"
summary_ok() {
	grep -q "^summary: $action: 51 actions, 5 janks, p50 .*, p99 .*, max " "$LIVE_TMP/log.txt" &&
		grep -q "^summary: 103 events, 1 overdue (0 unsure, not reported), 0 discarded events, 0 expired" \
			"$LIVE_TMP/log.txt"
}
check "final summary: per rule, then the counters" summary_ok
check "the control socket is gone" [ ! -e "$sock" ]
live_jankd_diag
