# SPDX-License-Identifier: MIT
# tests/live/test-jankd-functions.sh: [graph] functions, live (issue 24).
#
# fn-demo, built with -finstrument-functions, runs under lttng-ust's
# cyg-profile library and the pthread wrapper in the live session that
# jankd creates with [graph] functions = yes (user-space events only). Its
# slow actions are slow in a known function: apply_discounts on the
# action's own thread, or refresh_rates on the thread "fn-holder" that holds
# the mutex the action waits for. Each journald alert must name that
# function (JANK_FUNCTION, and in MESSAGE), and its breakdown must give it
# most of the time; once the baseline is ready, the top suspect names it;
# the path's segments carry the stacks, outermost first.
# The same trace, stored by relayd and analysed with jankctl, names them too.
# LIVE_CYG_FAST=1 in the environment runs fn-demo under the -fast library
# instead, whose func_exit events carry no address: the same checks hold.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_require_pthread_wrapper
live_setup_jankd --journald

FN_DEMO=$top_builddir/tests/live/fn-demo
[ -x "$FN_DEMO" ] || plan_skip_all "$FN_DEMO is not built (make -C tests check)"
cyg=$(live_cyg_profile ${LIVE_CYG_FAST:+fast}) ||
	plan_skip_all "liblttng-ust-cyg-profile${LIVE_CYG_FAST:+-fast}.so.1 not found (liblttng-ust1)"

plan 10

session=jankd-functions-$$
live_jankd_conf --journal "" frame 20ms <<CONF
[live]
create = yes
session = $session
relayd = net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT
relayd-live-port = $LIVE_RELAYD_LIVE_PORT
timer = 100ms
[graph]
functions = yes
CONF
live_run_jankd

lttng list "$session" >"$LIVE_TMP/list.out" 2>&1 9>&-
check "jankd's session records function entries and the statedump" \
	sh -c "grep -q 'lttng_ust_cyg_profile:\*' '$LIVE_TMP/list.out' &&
		grep -q 'lttng_ust_statedump:\*' '$LIVE_TMP/list.out'"

# 20 actions, every 5th slow: 2 slow in apply_discounts, 2 behind the lock.
# Preloaded into fn-demo itself, not its libtool wrapper's shells (see live_demo).
"$top_builddir/libtool" --mode=execute env LD_PRELOAD="$cyg:$LIVE_PTHREAD_WRAPPER" "$FN_DEMO" \
	20 5 1000 40000 >"$LIVE_TMP/demo.out" 2>&1 9>&-
check "fn-demo ran" grep -q '^done 20$' "$LIVE_TMP/demo.out"
live_wait 15 live_jank_at_least 4 frame JANK_KIND=completed || true
sleep 0.5
live_jank_entries frame JANK_KIND=completed >"$LIVE_TMP/alerts.json"

# key_of KIND: the keys of fn-demo's actions of that kind, in order.
key_of() {
	awk -v k="$1" '$1 == "action" && $3 == k { print "name=frame,id=" $2 }' "$LIVE_TMP/demo.out"
}
# alerted FUNCTION: the keys of the alerts whose JANK_FUNCTION is FUNCTION, in order.
alerted() {
	"$JQ" -r --arg f "$1" 'select(.JANK_FUNCTION == $f) | .JANK_KEY' "$LIVE_TMP/alerts.json"
}
check "4 alerts, one per slow action" [ "$(wc -l <"$LIVE_TMP/alerts.json")" = 4 ]
check "the slow actions on their own thread name apply_discounts ($(key_of own | tr '\n' ' '))" \
	[ "$(alerted apply_discounts)" = "$(key_of own)" ]
check "the actions behind the lock name refresh_rates, on the holding thread ($(key_of lock | tr '\n' ' '))" \
	[ "$(alerted refresh_rates)" = "$(key_of lock)" ]
check "the MESSAGE says it: 'in apply_discounts (…)', 'in refresh_rates (…)'" \
	[ "$("$JQ" -r '.MESSAGE | capture(", in (?<f>[a-z_]+) \\(").f' "$LIVE_TMP/alerts.json" |
		sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" = "2apply_discounts 2refresh_rates " ]
# The first 10 normal actions make the baseline: the last two slow ones have suspects.
check "with a baseline, the top suspect is that function: 'suspect: +N ms in FUNCTION (normally none)'" \
	[ "$("$JQ" -r 'select(.MESSAGE | test("; suspect: ")) | (.MESSAGE |
		capture("; suspect: \\+[0-9.]+ ms in (?<f>[a-z_]+) \\(normally none\\)$").f) ==
		.JANK_FUNCTION' "$LIVE_TMP/alerts.json" | sort | uniq -c | awk '{ print $1 $2 }')" = 2true ]
check "the breakdown gives that function most of the action's time" \
	[ "$("$JQ" -r '(.JANK_BREAKDOWN | fromjson | .functions[0]) as $f |
		($f.name == .JANK_FUNCTION) and ($f.ns > 0.6 * (.JANK_DURATION_NS | tonumber))' \
		"$LIVE_TMP/alerts.json" | sort -u)" = true ]

check "SIGTERM: exit 0" live_stop_jankd
# The trace relayd stored, offline: the same functions, stacks outermost first.
"$LIVE_JANKCTL" analyze --config "$LIVE_JANKD_CONF" --format json "$LIVE_RELAYD_OUTPUT" \
	>"$LIVE_TMP/analyze.out" 2>"$LIVE_TMP/analyze.err"
check "jankctl analyze of the recorded trace: the stacks of the slow parts" [ "$("$JQ" -r '
	select(.type == "action") | [.critical_path[] | select(.end - .begin > 30000000) |
	.stack | join(">")] | join(" ")' "$LIVE_TMP/analyze.out" | sort -u | tr '\n' ' ')" = \
	"holder_main>refresh_rates main>run_task>compute_price>apply_discounts " ]
live_jankd_diag "$LIVE_TMP/demo.out" "$LIVE_TMP/alerts.json" "$LIVE_TMP/analyze.err"
