# SPDX-License-Identifier: MIT
# tests/live/test-discover-limit.sh: more sessions than [live] max-inputs.
#
# Anyone who can stream to relayd can make sessions, and each watched
# session is a worker process of jankd's. With max-inputs = 2 and four
# sessions on the relayd, jankd watches two, says once that it leaves the
# others, and counts them (status, metrics).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_setup_jankd --journald

plan 6

action=limit$$
for i in 1 2; do
	live_create_session "limit-$$-$i"
done
live_jankd_conf --journal "" "$action" 30ms <<CONF
[live]
discover = net://127.0.0.1:$LIVE_RELAYD_LIVE_PORT
sessions = limit-$$-*
discover-interval = 1s
max-inputs = 2
CONF
live_run_jankd
for i in 3 4; do
	live_create_session "limit-$$-$i"
done

inputs() {
	live_jankd_status '[.inputs[] | .session] | length'
}
refused() {
	live_jankd_status '.fleet.discovery.sessions_refused'
}
live_wait_for 10 '[ "$(refused)" -ge 2 ]' || true
check "two sessions watched, no more (got $(inputs))" [ "$(inputs)" = 2 ]
check "the sessions past the limit are counted ($(refused) refused listings)" [ "$(refused)" -ge 2 ]
check "status says it is at the limit" [ "$(live_jankd_status '.fleet.discovery.at_limit')" = true ]
sleep 2
check "said once in the journal, not at each listing" \
	[ "$(live_jankd_log | grep -c 'the \[live\] max-inputs')" = 1 ]
om=$("$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" --format openmetrics)
check "metrics: jank_inputs_at_limit 1 and the refusals" \
	sh -c 'echo "$1" | grep -qx "jank_inputs_at_limit 1" &&
		echo "$1" | grep -Eq "^jank_discovery_sessions_refused_total [1-9]"' - "$om"

check "SIGTERM: exit 0" live_stop_jankd
live_jankd_diag
