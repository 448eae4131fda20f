# SPDX-License-Identifier: MIT
# tests/live/test-jankd-flows.sh: a request that waits for a busy thread pool,
# live, with user-space events only.
#
# jank-demo --cause pool, under the lttng-ust pthread wrapper: its worker
# (the request thread) hands each action's task over to a one-thread pool
# (jank:flow_from, jank:flow_to) and waits on a condition variable for the
# reply; before each slow action, other work of the slow duration holds the
# pool. jankd creates the live session itself ([live] create = yes, no
# kernel tracer in these namespaces), with a [flow pool] and a capture per
# jank. The alerts must be exactly the slow actions, and each must blame the
# pool: JANK_CRITICAL_PATH goes "via flow pool" to the pool's thread, the
# breakdown is not the request thread running, and the top suspect is the
# pool's thread. The capture's report follows the flow too, and jankctl
# analyze of what relayd stored gives the same paths.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_require_pthread_wrapper
live_setup_jankd --journald

plan 15

session=jankd-flows-$$
action=request
caps=$LIVE_TMP/captures
# The worker's actions only: the pool's tasks are actions too (pool-task),
# whose rule gives the path's spans on the pool's thread.
mport=$(live_random_port)
live_jankd_conf --journal --capture snapshot "$caps" "" "$action" 20ms <<CONF
[live]
create = yes
session = $session
relayd = net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT
relayd-live-port = $LIVE_RELAYD_LIVE_PORT
timer = 100ms
[action $action]
match = name == "frame"
[action pool-task]
begin = jank:action_begin
end = jank:action_end
key = name, id
match = name == "pool-task"
threshold = 10s
[flow pool]
from = jank:flow_from
to = jank:flow_to
key = vpid, name, key
[graph]
functions = yes
[metrics]
listen = 127.0.0.1:$mport
CONF
live_run_jankd

lttng list "$session" >"$LIVE_TMP/list.out" 2>&1 9>&-
check "jankd's live session enables the flow's events" \
	[ "$(grep -Ec '^ +jank:flow_(from|to) ' "$LIVE_TMP/list.out")" = 2 ]

demo=$LIVE_TMP/demo.out
# jank-demo is built with -finstrument-functions: under lttng-ust's
# cyg-profile library its calls are traced, and the alerts name the code.
cyg=$(live_cyg_profile) || cyg=
LD_PRELOAD=${cyg:+$cyg:}$LIVE_PTHREAD_WRAPPER live_demo "$demo" --cause pool --count 45 --slow-every 15 \
	--normal 2ms --slow 40ms --interval 10ms
check "jank-demo ran 45 actions through its pool" [ "$(grep -c '^action .* pool ' "$demo")" = 45 ]

live_wait 20 live_jank_at_least 3 "$action" MESSAGE_ID=$LIVE_JANK_ID || true
live_wait 30 live_jank_at_least 1 "$action" MESSAGE_ID=$LIVE_REPORT_ID ||
	diag "no capture report announced after 30 s"
sleep 1
live_jank_entries "$action" MESSAGE_ID=$LIVE_JANK_ID >"$LIVE_TMP/alerts.json"
slow=$(awk '$1 == "action" && $5 == "slow" { printf "name=frame,id=%s\n", $2 }' "$demo" | sort)
got=$("$JQ" -r .JANK_KEY "$LIVE_TMP/alerts.json" | sort)
check "the alerts are the 3 slow actions ($(echo $got))" \
	[ "$got" = "$slow" -a "$(echo "$slow" | wc -l)" = 3 ]

# The path names the pool's thread by its comm; its tid is not the request's.
check "JANK_CRITICAL_PATH goes via flow pool to the pool's thread" \
	[ "$("$JQ" -r 'select(.JANK_CRITICAL_PATH |
		test("via flow pool to tid [0-9]+ \\(jank-pool\\)")) | 1' \
		"$LIVE_TMP/alerts.json" | wc -l)" = 3 ]
if [ -n "$cyg" ]; then
	check "JANK_FUNCTION names the code the pool ran, reached through the flow (sleep_ns)" \
		[ "$("$JQ" -r 'select(.JANK_FUNCTION == "sleep_ns" and (.JANK_CRITICAL_PATH |
			test("via flow pool to tid [0-9]+ \\(jank-pool\\): [a-z_]+ [0-9.]+ ms in sleep_ns"))) | 1' \
			"$LIVE_TMP/alerts.json" | wc -l)" = 3 ]
else
	skip "JANK_FUNCTION names the code the pool ran" "no liblttng-ust-cyg-profile.so.1"
fi
pool_tids=$("$JQ" -r '.JANK_CRITICAL_PATH | capture("via flow pool to tid (?<t>[0-9]+)").t' \
	"$LIVE_TMP/alerts.json" | sort -u)
req_tids=$("$JQ" -r .JANK_TID "$LIVE_TMP/alerts.json" | sort -u)
check "one pool thread ($pool_tids), not the request thread ($req_tids)" \
	[ "$(echo "$pool_tids" | wc -l)" = 1 -a "$(echo "$req_tids" | wc -l)" = 1 -a \
	"$pool_tids" != "$req_tids" ]

# Breakdown: per thread and state. The request thread does not run while it
# waits, and most of the time is on the pool's thread.
check "the breakdown is not the request thread running (under 20%)" \
	[ "$("$JQ" -r '(.JANK_TID | tonumber) as $t | (.JANK_DURATION_NS | tonumber) as $d |
		(.JANK_BREAKDOWN | fromjson | [.threads[] | select(.tid == $t and
		.state == "running") | .ns] | add // 0) | select(. < 0.2 * $d) | 1' \
		"$LIVE_TMP/alerts.json" | wc -l)" = 3 ]
check "most of it (over 70%) is on the pool's thread" \
	[ "$("$JQ" -r '(.JANK_DURATION_NS | tonumber) as $d |
		(.JANK_BREAKDOWN | fromjson | [.threads[] | select(.comm == "jank-pool") | .ns] |
		add // 0) | select(. > 0.7 * $d) | 1' "$LIVE_TMP/alerts.json" | wc -l)" = 3 ]
# The first slow action comes after 14 normal ones: the baseline is ready.
# With function events, a function on the pool's thread that explains its
# time comes before the thread (suspects by function).
check "the top suspect is the pool's thread, or the code it ran" \
	[ "$("$JQ" -r '(.JANK_SUSPECTS | fromjson) as $s | select($s.ready and
		($s.items[0].kind == "thread" or $s.items[0].kind == "function") and
		$s.items[0].thread == "jank-pool") | 1' \
		"$LIVE_TMP/alerts.json" | wc -l)" = 3 ]

# The capture's report replays the trace with the flows of capture.json.
cap=$(ls -d "$caps"/*-"$action"-* 2>/dev/null | head -n 1)
check "a capture, whose capture.json lists the flow" \
	[ -n "$cap" ] && [ "$("$JQ" -r '.flows | map(.name + " " + .from + " " + .to) | join(",")' \
	"$cap/capture.json")" = "pool jank:flow_from jank:flow_to" ]
check "its report.txt says how the path crossed: via flow pool to the pool's thread" \
	grep -Eq "via flow pool to tid $pool_tids \\(jank-pool\\)" "$cap/report.txt"

# The status counts the pairings: 45 tasks posted and picked up, plus the replies.
live_wait_for 10 '[ "$(live_jankd_status '\''.inputs[0].flows_paired // 0'\'')" -ge 45 ]' || true
paired=$(live_jankd_status '.inputs[0].flows_paired // 0')
check "jankctl status counts the flows paired ($paired >= 45), none unmatched" \
	[ "$paired" -ge 45 -a "$(live_jankd_status '.inputs[0].flows_unmatched // -1')" = 0 ]
# And so do the metrics, by outcome.
metric_flows() {
	curl -sf "http://127.0.0.1:$mport/metrics" 2>/dev/null |
		sed -n "s/^jank_input_flows_total{input=\"[^\"]*\",outcome=\"$1\"} \([0-9]*\)\$/\1/p"
}
mpaired=$(metric_flows paired)
check "jank_input_flows_total{outcome=\"paired\"} counts them too ($mpaired >= 45), unmatched 0" \
	[ "${mpaired:-0}" -ge 45 -a "$(metric_flows unmatched)" = 0 ]

# What relayd stored, analysed afterwards, follows the flow too.
check "SIGTERM: exit 0" live_stop_jankd
live_analyze_relayd
"$JQ" -c 'select(.type == "action" and .action == "request") |
	[.key, ([.critical_path[] | select(.flow == "pool" and .comm == "jank-pool")] | length > 0)]' \
	"$LIVE_TMP/analyze.out" >"$LIVE_TMP/offline" 2>&1
check "jankctl analyze of what relayd stored: the 3 janks, each path via flow pool" \
	[ "$(grep -c ',true]$' "$LIVE_TMP/offline")" = 3 -a "$(grep -c . "$LIVE_TMP/offline")" = 3 ]
live_jankd_diag "$LIVE_TMP/alerts.json" "$LIVE_TMP/list.out" "$LIVE_TMP/offline"
[ "$_tap_failed" != 1 ] || sed 's/^/#   /' "$cap/report.txt" 2>/dev/null | head -40
