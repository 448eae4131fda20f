# SPDX-License-Identifier: MIT
# tests/live/test-fault-worker.sh: a worker killed, and a worker stopped,
# while slow actions run: jankd says what the restart skipped.
#
# The input's worker (a child of jankd, its PID in `jankctl status`) is
# killed (SIGKILL) while jank-demo runs actions, then, with another demo,
# stopped (SIGSTOP) until the supervisor replaces it for its silence
# (worker-timeout = 2s). Each replacement reads from relayd's newest
# packets: the events in between are skipped, and jankd says so once per
# restart in its log, counts it (skipped_seconds in status, a metric), and
# no alert is false (every one is a slow action) or sent twice.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_setup_jankd --journald

plan 12

session=fault-worker-$$
action=fault$$
url=$(live_url "$session")
live_create_session "$session"
live_jankd_conf --journal "$url" "$action" 30ms <<CONF
[live]
worker-timeout = 2s
[alerts]
rate-limit = 1000/1s
CONF
live_run_jankd

worker_pid() {
	live_jankd_status '.inputs[0].worker.pid'
}
# demo NAME: 300 actions named NAME, every 5th slow (60 ms), one every ~25 ms.
demo() {
	live_demo "$LIVE_TMP/demo-$1.out" --name "$1" --cause sleep --count 300 --slow-every 5 \
		--normal 1ms --slow 60ms --interval 20ms
}
skipped_log() {
	live_jankd_log | grep "^input $url: .* of events skipped after a worker restart"
}
skipped_lines() {
	skipped_log | wc -l
}
# new_worker OLD: true once a worker other than OLD runs and is connected.
new_worker() {
	local p

	p=$(worker_pid)
	[ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$1" ] &&
		[ "$(live_jankd_status '.inputs[0].state')" = connected ]
}

# ---- SIGKILL ----

demo k1 &
dp=$!
sleep 3
w1=$(worker_pid)
check "the worker is a child of jankd (pid $w1)" \
	[ "$(awk '{ print $4 }' "/proc/$w1/stat")" = "$LIVE_JANKD_PID" ]
kill -KILL "$w1"
live_wait 10 new_worker "$w1" || diag "no new worker attached within 10 s"
live_wait_for 10 '[ "$(skipped_lines)" -ge 1 ]' || true
wait "$dp"
check "the restart after SIGKILL: one line says what was skipped" [ "$(skipped_lines)" = 1 ]
said_how_much() {
	skipped_log | grep -Eq "^input .*: [0-9.]+ [mun]?s of events skipped after a worker restart .*; [0-9]+ open actions? lost$"
}
check "it says how long, and how many open actions were lost" said_how_much

# ---- SIGSTOP: the supervisor replaces the silent worker ----

demo k2 &
dp=$!
sleep 3
w2=$(worker_pid)
kill -STOP "$w2"
live_wait 10 new_worker "$w2" || diag "the stopped worker was not replaced within 10 s"
kill -CONT "$w2" 2>/dev/null || true
live_wait_for 10 '[ "$(skipped_lines)" -ge 2 ]' || true
wait "$dp"
check "the stopped worker was killed for its silence and replaced" \
	[ "$(live_jankd_status '.inputs[0].worker | "\(.restarts) \(.timeouts)"')" = "2 1" ]
check "the restart after SIGSTOP: a second line says what was skipped" \
	[ "$(skipped_lines)" = 2 ]

# ---- What is counted ----

sec=$(live_jankd_status '.inputs[0].skipped_seconds')
check "status JSON: skipped_seconds > 0 ($sec), two skipped ranges" \
	[ "$(live_jankd_status '.inputs[0] | .skipped_seconds > 0 and .skipped_ranges == 2')" = true ]
"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" >"$LIVE_TMP/status.txt" 2>&1
check "status text: a line says what restarts skipped" grep -Eq \
	'^  skipped after worker restarts: [0-9.]+ s of events in 2 gaps' "$LIVE_TMP/status.txt"
"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" --format openmetrics >"$LIVE_TMP/metrics" 2>&1
m=$(awk '/^jank_input_skipped_seconds_total\{/ { print $2 }' "$LIVE_TMP/metrics")
check "metrics: jank_input_skipped_seconds_total > 0 ($m)" \
	awk -v m="${m:-0}" 'BEGIN { exit !(m > 0) }'

# ---- No false alert, none twice ----

live_jank_entries "$action" MESSAGE_ID="$LIVE_JANK_ID" >"$LIVE_TMP/alerts.json"
n=$(wc -l <"$LIVE_TMP/alerts.json")
# A slow action: one of every 5th, or one the machine's load made slower
# than the threshold (the demo's own measure, ns, takes in its events).
awk '$1 == "action" && $5 == "slow" { print "name=" $3 ",id=" $2 }' \
	"$LIVE_TMP/demo-k1.out" "$LIVE_TMP/demo-k2.out" | sort >"$LIVE_TMP/slow"
awk '$1 == "action" && ($5 == "slow" || $6 > 30000000) { print "name=" $3 ",id=" $2 }' \
	"$LIVE_TMP/demo-k1.out" "$LIVE_TMP/demo-k2.out" | sort >"$LIVE_TMP/slow-or-late"
"$JQ" -r '.JANK_KEY' "$LIVE_TMP/alerts.json" | sort >"$LIVE_TMP/alerted"
check "alerts came ($n), fewer than the $(wc -l <"$LIVE_TMP/slow") slow actions (some were skipped)" \
	[ "$n" -gt 0 -a "$n" -lt "$(wc -l <"$LIVE_TMP/slow")" ]
late=$(($(wc -l <"$LIVE_TMP/slow-or-late") - $(wc -l <"$LIVE_TMP/slow")))
check "every alert is of a slow action ($late more were late by the machine's load): no false alert" \
	[ "$(comm -23 "$LIVE_TMP/alerted" "$LIVE_TMP/slow-or-late" | wc -l)" = 0 ]
comm -23 "$LIVE_TMP/alerted" "$LIVE_TMP/slow-or-late" | head -n 3 | while read -r k; do
	diag "alerted, not slow: $k"
done
check "nothing was alerted twice" [ "$(uniq -d "$LIVE_TMP/alerted" | wc -l)" = 0 ]
check "SIGTERM: exit 0" live_stop_jankd
diag "skipped: $(skipped_log | sed 's/.*: \([0-9.]* [mun]*s\) of events.*; \([0-9]*\) open.*/\1 (\2 lost)/' | tr '\n' ' ')"
live_jankd_diag
