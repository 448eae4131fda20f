# SPDX-License-Identifier: MIT
# tests/live/test-composition.sh: what the slow actions wait on, as a real
# Prometheus sees it: the share of slow critical-path time per cause moves
# when the traced program's cause changes (jank_critical_path_seconds_total,
# and the recording rules of examples/jank.rules.yml).
#
# A private lttng-sessiond, lttng-relayd and systemd-journald; a live session
# with jank:* and the lttng-ust pthread wrapper's events; jankd on it with
# [metrics] listen on loopback and a [flow pool]; Prometheus (private storage,
# 1 s scrapes, the example rules evaluated every second) on loopback.
#   1. jank-demo --cause sleep: 20 slow actions, each sleeping on its own
#      thread. The share rule gives (nearly) all the slow time to
#      on="jank-demo/jank-worker"; jank-pool has none.
#   2. jank-demo --cause pool: 20 slow actions, each waiting for the pool's
#      thread, busy with other work (2.5 times the slow time of step 1). The
#      share moves: on="jank-demo/jank-pool" goes from nothing to the largest
#      share, the worker's falls (the 5 m rate still has step 1 in it).
#      Measured: worker 1 then ~0.26, pool 0 then ~0.74 (3.05 s of 4.25 s).
# There is no kernel tracer here: the state of nearly all of that time is
# `unknown` (a few us `blocked` on the pool's mutex), so what moves is the
# `on` label, the thread waited for; the shares per state stay ~1 unknown.
# The thread names come from the pthread wrapper's events: with jank:* events
# alone, jankd knows no comm and every name is on="?".
# Also: promtool check metrics on the page with its composition series,
# promtool check rules on examples/jank.rules.yml, and the share query of
# jankd(8) agrees with the recorded one.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_require_pthread_wrapper
live_setup_jankd --journald
for cmd in prometheus promtool curl; do
	command -v "$cmd" >/dev/null 2>&1 ||
		plan_skip_all "$cmd not found (install the Debian packages prometheus and curl)"
done

SLOW=20                    # slow actions per step
SLEEP_MS=60                # step 1: a slow action's sleep
POOL_MS=150                # step 2: the pool's other work before a slow action
WORKER=jank-demo/jank-worker
POOL=jank-demo/jank-pool
RULES=$top_srcdir/examples/jank.rules.yml

# A loopback port nothing listens on.
free_port() {
	local p

	for _ in $(seq 20); do
		p=$(live_random_port)
		live_port_listening "$p" || {
			echo "$p"
			return 0
		}
	done
	return 1
}

session=jankd-composition-$$
action=frame
mport=$(free_port) || live_bail "no free port"
pport=$(free_port) || live_bail "no free port"
[ "$mport" != "$pport" ] || live_bail "no two free ports"
endpoint=http://127.0.0.1:$mport/metrics
api=http://127.0.0.1:$pport/api/v1
live_create_session "$session"
live_lttng enable-event --userspace --session="$session" 'lttng_ust_pthread:*' ||
	live_bail "cannot record the pthread wrapper's events"
# The pool's tasks are actions too (pool-task), never slow; frame is the
# worker's. The worker's figures reach the page every second.
live_jankd_conf --journal "$(live_url "$session")" "$action" 30ms <<CONF
[daemon]
status-interval = 1s
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
[metrics]
listen = 127.0.0.1:$mport
CONF
live_run_jankd

cat >"$LIVE_TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: ['$RULES']
scrape_configs:
  - job_name: jank
    static_configs:
      - targets: ['127.0.0.1:$mport']
YML
prometheus --config.file="$LIVE_TMP/prometheus.yml" --storage.tsdb.path="$LIVE_TMP/prom" \
	--web.listen-address="127.0.0.1:$pport" >"$LIVE_TMP/prometheus.log" 2>&1 9>&- &
prom_pid=$!
live_track "$prom_pid"
live_wait 30 curl -sf -o /dev/null "http://127.0.0.1:$pport/-/ready" ||
	live_bail "prometheus did not become ready" "$LIVE_TMP/prometheus.log"
diag "prometheus pid $prom_pid on 127.0.0.1:$pport, jankd's metrics on 127.0.0.1:$mport"

plan 16

# promql QUERY: "LABELS VALUE" per result, LABELS as JSON.
promql() {
	curl -sf "$api/query" --data-urlencode "query=$1" |
		"$JQ" -r '.data.result[] | "\(.metric.on // .metric.state) \(.value[1])"'
}
# on_value QUERY ON: the value of the result whose `on` is ON, 0 when none.
on_value() {
	curl -sf "$api/query" --data-urlencode "query=$1" |
		"$JQ" -r --arg on "$2" '[.data.result[] | select(.metric.on == $on) | .value[1]] | .[0] // "0"'
}
# page_sum FILE CLASS [ON]: the sum of the page's jank_critical_path_seconds_total of frame.
page_sum() {
	awk -v a="action=\"$action\"" -v c="class=\"$2\"" -v on="${3:+on=\"$3\"}" '
		/^jank_critical_path_seconds_total\{/ && index($0, a) && index($0, c) &&
		(on == "" || index($0, on)) { s += $NF }
		END { printf "%.6f\n", s }' "$1"
}
# janks: frame's jank_janks_total on the page.
janks() {
	curl -sf "$endpoint" | sed -n "s/^jank_janks_total{action=\"$action\"} //p"
}
# settled FILE: true once Prometheus holds the page's slow total (within 1 us).
settled() {
	local want got

	curl -sf "$endpoint" >"$1" || return 1
	want=$(page_sum "$1" slow)
	got=$(curl -sf "$api/query" --data-urlencode \
		"query=sum(jank_critical_path_seconds_total{action=\"$action\",class=\"slow\"})" |
		"$JQ" -r '.data.result[0].value[1] // "-1"')
	awk -v a="$want" -v b="$got" 'BEGIN { d = a - b; exit !(a > 0 && d < 1e-6 && d > -1e-6) }'
}
# step NAME JANKS: wait until jankd counted JANKS janks and Prometheus holds
# the page (in $LIVE_TMP/page-NAME.txt), then for two more rule evaluations.
janks_are() { [ "$(janks)" = "$1" ]; }
step() {
	live_wait 20 janks_are "$2" || diag "$1: $(janks) janks on the page after 20 s, not $2"
	live_wait 20 settled "$LIVE_TMP/page-$1.txt" || diag "$1: Prometheus does not hold the page's total"
	sleep 2.5
}
BY_ON="sum by (on) (action_state_on:jank_critical_path_slow_share:ratio_rate5m{action=\"$action\"})"
BY_STATE="action_state:jank_critical_path_slow_share:ratio_rate5m{action=\"$action\"}"
# jankd(8)'s query, by `on`.
SEL="jank_critical_path_seconds_total{action=\"$action\",class=\"slow\"}"
MAN="sum by (action, on) (rate(${SEL}[5m])) / ignoring (on) group_left sum by (action) (rate(${SEL}[5m]))"
# shares NAME: the shares by `on` and by state, as diag lines.
shares() {
	promql "$BY_ON" | sed "s/^/# $1: share by on: /"
	promql "$BY_STATE" | sed "s/^/# $1: share by state: /"
}
# sum_is_one QUERY: the results of QUERY add up to 1 (within 1e-6).
sum_is_one() {
	curl -sf "$api/query" --data-urlencode "query=sum($1)" |
		"$JQ" -e '.data.result[0].value[1] | tonumber | . > 0.999999 and . < 1.000001' >/dev/null
}
# gt A B: A > B (decimal numbers).
gt() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'
}

# Prometheus scrapes a target first a few seconds after it starts (its
# target discovery sends updates every 5 s): the demo must come after, or
# the rate would miss the whole step.
scraped() {
	[ "$(curl -sf "$api/query" --data-urlencode 'query=up{job="jank"}' |
		"$JQ" -r '.data.result[0].value[1] // ""')" = 1 ]
}
live_wait 20 scraped || diag "Prometheus did not scrape jankd within 20 s"
check_rules() { promtool check rules "$RULES" >"$LIVE_TMP/promtool-rules.out" 2>&1; }
check "promtool check rules passes on examples/jank.rules.yml" check_rules

# ---- Step 1: the worker sleeps ----

LD_PRELOAD=$LIVE_PTHREAD_WRAPPER live_demo "$LIVE_TMP/demo-sleep.out" --cause sleep \
	--count $((SLOW * 3)) --slow-every 3 --normal 2ms --slow ${SLEEP_MS}ms --interval 50ms
step sleep $SLOW
page=$LIVE_TMP/page-sleep.txt
check "step 1 (sleep): jank-demo ran, jankd counted its $SLOW janks" \
	[ "$(tail -n 1 "$LIVE_TMP/demo-sleep.out")" = "done $((SLOW * 3))" -a "$(janks)" = $SLOW ]
w1=$(page_sum "$page" slow $WORKER)
diag "step 1: slow time on $WORKER $w1 s, on $POOL $(page_sum "$page" slow $POOL) s"
check "the page: the slow time is on the worker (${w1} s, $SLOW x $SLEEP_MS ms and a little)" \
	awk -v w="$w1" -v all="$(page_sum "$page" slow)" -v n=$SLOW -v ms=$SLEEP_MS \
	'BEGIN { exit !(w >= n * ms / 1000 && w < n * ms * 1.25 / 1000 && w > 0.99 * all) }'
shares "step 1"
w_before=$(on_value "$BY_ON" $WORKER)
p_before=$(on_value "$BY_ON" $POOL)
diag "step 1: share of $WORKER $w_before, of $POOL $p_before"
before_ok() { gt "$w_before" 0.99 && [ "$p_before" = 0 ]; }
check "step 1: the recorded share of $WORKER is nearly all ($w_before), $POOL has none ($p_before)" \
	before_ok
check "step 1: the shares by (state, on) add up to 1" \
	sum_is_one "action_state_on:jank_critical_path_slow_share:ratio_rate5m{action=\"$action\"}"

# ---- Step 2: the worker waits for the pool ----

LD_PRELOAD=$LIVE_PTHREAD_WRAPPER live_demo "$LIVE_TMP/demo-pool.out" --cause pool \
	--count $((SLOW * 3)) --slow-every 3 --normal 2ms --slow ${POOL_MS}ms --interval 50ms
step pool $((SLOW * 2))
page=$LIVE_TMP/page-pool.txt
check "step 2 (pool): jank-demo ran, jankd counted $SLOW more janks" \
	[ "$(tail -n 1 "$LIVE_TMP/demo-pool.out")" = "done $((SLOW * 3))" -a "$(janks)" = $((SLOW * 2)) ]
p2=$(page_sum "$page" slow $POOL)
w2=$(page_sum "$page" slow $WORKER)
diag "step 2: slow time on $WORKER $w2 s, on $POOL $p2 s"
check "the page: the pool's slow time (${p2} s, $SLOW x $POOL_MS ms and a little)" \
	awk -v p="$p2" -v n=$SLOW -v ms=$POOL_MS 'BEGIN { exit !(p >= n * ms / 1000 && p < n * ms * 1.25 / 1000) }'
check "the page: the worker's counter only grew (${w1} s, then ${w2} s)" \
	awk -v a="$w1" -v b="$w2" 'BEGIN { exit !(b >= a && b < a + 0.05) }'
check "the page: the normal class has the pool too (the sampled normal actions)" \
	gt "$(page_sum "$page" normal $POOL)" 0
promtool check metrics <"$page" >"$LIVE_TMP/promtool.out" 2>&1
rc=$?
sed 's/^/# promtool: /' "$LIVE_TMP/promtool.out"
check "promtool check metrics passes on the page with its composition series (rc $rc)" \
	[ "$rc" = 0 -a ! -s "$LIVE_TMP/promtool.out" ]

shares "step 2"
w_after=$(on_value "$BY_ON" $WORKER)
p_after=$(on_value "$BY_ON" $POOL)
diag "step 2: share of $WORKER $w_after (was $w_before), of $POOL $p_after (was $p_before)"
top=$(curl -sf "$api/query" --data-urlencode "query=topk(1, $BY_ON)" | "$JQ" -r '.data.result[0].metric.on')
largest_ok() { [ "$top" = $POOL ] && gt "$p_after" 0.5; }
check "step 2: $POOL has the largest share now ($top, $p_after)" largest_ok
# moved A B BY: B - A > BY.
moved() { awk -v a="$1" -v b="$2" -v by="$3" 'BEGIN { exit !(b - a > by) }'; }
check "step 2: the share of $POOL rose by more than 0.5 ($p_before to $p_after)" \
	moved "$p_before" "$p_after" 0.5
check "step 2: the share of $WORKER fell by more than 0.5 ($w_before to $w_after)" \
	moved "$w_after" "$w_before" 0.5
sums_ok() {
	sum_is_one "action_state_on:jank_critical_path_slow_share:ratio_rate5m{action=\"$action\"}" &&
		sum_is_one "$BY_STATE"
}
check "step 2: the shares by (state, on) and by state each add up to 1" sums_ok
man=$(on_value "$MAN" $POOL)
check "jankd(8)'s share query agrees with the recorded share of $POOL ($man, $p_after)" \
	awk -v a="$man" -v b="$p_after" 'BEGIN { d = a - b; exit !(a > 0 && d < 0.02 && d > -0.02) }'

check "SIGTERM: exit 0" live_stop_jankd
live_jankd_diag "$LIVE_TMP/promtool-rules.out"
if [ "$_tap_failed" = 1 ]; then
	grep '^jank_critical_path' "$LIVE_TMP"/page-*.txt | sed 's/^/#   /'
	sed 's/^/# prometheus: /' "$LIVE_TMP/prometheus.log" | tail -n 20
fi
