# SPDX-License-Identifier: MIT
# tests/live/test-metrics.sh: jankd's metrics endpoint, scraped by a real
# Prometheus, and abused by bad clients while alerts must stay on time.
#
# A private lttng-sessiond, lttng-relayd and systemd-journald; jankd on a
# live session with [metrics] listen on loopback; Prometheus (private
# storage, 1 s scrapes, the example rules of examples/jank.rules.yml) on
# loopback; jank-demo as the traced program.
#   - Prometheus's jank_janks_total equals jankctl status's count, and
#     histogram_quantile() lands in the bucket of jankctl status's p50/p99;
#   - promtool check metrics passes; the OpenMetrics answer has # EOF and the
#     last jank as an exemplar, which Prometheus stores; jankctl status
#     --format openmetrics has the same families; node_exporter's textfile
#     collector reads --format prometheus (when installed);
#   - a slowloris, oversized requests and floods of 100 connections: alerts
#     reach journald as fast as without them (bound: ALERT_BOUND_MS), the
#     connection deadline and limit hold, and the endpoint serves again after.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

JQ=${JQ:-jq}
ALERT_BOUND_MS=${ALERT_BOUND_MS:-1000} # an alert's latency, abuse or not (usually 70-150 ms)
SCRAPE_CPU_BOUND_US=5000               # jankd's CPU per scrape
DEADLINE_S=5                           # JANK_METRICS_SERVER_TIMEOUT_S
MAX_CONNECTIONS=16                     # JANK_METRICS_SERVER_MAX_CONNECTIONS
HTTP_ABUSE=${HTTP_ABUSE:-$top_builddir/tests/live/http-abuse}

live_init
[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
live_require_jankd
live_require_journald
for cmd in prometheus promtool curl; do
	command -v "$cmd" >/dev/null 2>&1 ||
		plan_skip_all "$cmd not found (install the Debian packages prometheus and curl)"
done
[ -x "$HTTP_ABUSE" ] || plan_skip_all "$HTTP_ABUSE is not built (make -C tests check)"

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

live_start_sessiond --no-kernel
live_start_relayd
live_start_journald

session=jankd-metrics-$$
action=metrics$$
mkdir -p "$LIVE_TMP/run"
sock=$LIVE_TMP/run/control
LIVE_JANKD_SOCK=$sock
conf=$LIVE_TMP/jankd.conf
mport=$(free_port) || live_bail "no free port"
pport=$(free_port) || live_bail "no free port"
endpoint=http://127.0.0.1:$mport/metrics
api=http://127.0.0.1:$pport/api/v1
live_create_session "$session" || live_bail "cannot create the live session"
# No match: each phase's actions have a name of their own (the key is name, id).
cat >"$conf" <<CONF
[live]
url = $(live_url "$session")
[alerts]
target = journal
rate-limit = 1000/1s
[daemon]
control-socket = $sock
state-dir = $LIVE_TMP/state
status-interval = 1s
[metrics]
listen = 127.0.0.1:$mport
[action $action]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 30ms
CONF
live_start_jankd --config "$conf"
live_wait_jankd

cat >"$LIVE_TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: ['$top_srcdir/examples/jank.rules.yml']
scrape_configs:
  - job_name: jank
    static_configs:
      - targets: ['127.0.0.1:$mport']
YML
prometheus --config.file="$LIVE_TMP/prometheus.yml" --storage.tsdb.path="$LIVE_TMP/prom" \
	--web.listen-address="127.0.0.1:$pport" --enable-feature=exemplar-storage \
	>"$LIVE_TMP/prometheus.log" 2>&1 9>&- &
prom_pid=$!
live_track "$prom_pid"
live_wait 30 curl -sf -o /dev/null "http://127.0.0.1:$pport/-/ready" ||
	live_bail "prometheus did not become ready" "$LIVE_TMP/prometheus.log"
diag "prometheus pid $prom_pid on 127.0.0.1:$pport, jankd's metrics on 127.0.0.1:$mport"

plan 33

# promql QUERY: the first result's value, "" when none.
promql() {
	curl -sf "$api/query" --data-urlencode "query=$1" | "$JQ" -r '.data.result[0].value[1] // ""'
}
# status FILTER: jankctl status --format json through jq.
status() {
	live_jankd_status "$1"
}
# demo NAME: 20 actions, every 4th slow (60 ms against 30): 5 janks.
demo() {
	"$LIVE_DEMO" --name "$1" --cause sleep --count 20 --slow-every 4 --normal 1ms --slow 60ms \
		--interval 5ms >"$LIVE_TMP/demo-$1.out" 2>&1 9>&-
}
# alerts NAME: this phase's alerts, as JSON lines.
alerts() {
	live_journalctl -o json JANK_ACTION="$action" |
		"$JQ" -c --arg n "name=$1," 'select(.JANK_KEY | startswith($n))'
}
# latency NAME: "MAX MEDIAN COUNT" of its alerts' latencies in ms: from the action's end
# (trace clock, realtime-based) to the entry's arrival in journald.
latency() {
	alerts "$1" | "$JQ" -s -r '[.[] | ((.__REALTIME_TIMESTAMP | tonumber) * 1000 -
		(.JANK_END_NS | tonumber)) / 1e6] | sort |
		"\(.[-1] // -1 | floor) \(.[length / 2 | floor] // -1 | floor) \(length)"'
}
# phase NAME: run the demo, wait for its 5 alerts; sets max_ms, median_ms, nalerts.
phase() {
	demo "$1"
	live_wait_for 10 '[ "$(alerts "'"$1"'" | wc -l)" -ge 5 ]' || true
	read -r max_ms median_ms nalerts <<EOF
$(latency "$1")
EOF
	diag "alert latency, $2: max $max_ms ms, median $median_ms ms, $nalerts alerts"
}
alerts_on_time() {
	[ "$nalerts" = 5 ] && [ "$max_ms" -ge 0 ] && [ "$max_ms" -lt "$ALERT_BOUND_MS" ]
}

# ---- Prometheus agrees with jankctl status ----

"$LIVE_DEMO" --name base --cause sleep --count 50 --slow-every 10 --normal 1ms --slow 60ms \
	--interval 5ms >"$LIVE_TMP/demo-base.out" 2>&1 9>&-
live_wait_for 10 '[ "$(status '\''.inputs[0].rules[0].janks'\'')" = 5 ]' || true
janks=$(status '.inputs[0].rules[0].janks')
live_wait_for 15 '[ "$(promql "jank_janks_total{action=\"$action\"}")" = "$janks" ]' || true
got=$(promql "jank_janks_total{action=\"$action\"}")
check "Prometheus's jank_janks_total ($got) is jankctl status's count ($janks)" \
	[ -n "$got" -a "$got" = "$janks" -a "$janks" = 5 ]
check "Prometheus's jank_action_duration_seconds_count is jankctl status's count (50)" \
	[ "$(promql "jank_action_duration_seconds_count{action=\"$action\"}")" = \
	"$(status '.inputs[0].rules[0].count')" ]
check "up{job=\"jank\"} is 1" [ "$(promql 'up{job="jank"}')" = 1 ]
wpid=$(status '.inputs[0].worker.pid')
wrss=$(promql 'jank_input_worker_resident_memory_bytes')
wcpu=$(promql 'jank_workers_cpu_seconds_total')
worker_figures() {
	[ -n "$wrss" ] && [ -n "$wcpu" ] && [ "$wrss" -gt 1048576 ] &&
		awk -v c="$wcpu" 'BEGIN { exit !(c > 0) }' &&
		[ "$(promql 'jank_input_worker_restarts_total')" = 0 ]
}
check "the worker (pid $wpid): its resident memory (${wrss:-?} B), CPU (${wcpu:-?} s), 0 restarts" \
	worker_figures

curl -sf "$endpoint" >"$LIVE_TMP/metrics.txt"
# bucket_of SECONDS: the index of the first bucket bound at or above it.
bucket_of() {
	grep "^jank_action_duration_seconds_bucket{action=\"$action\"," "$LIVE_TMP/metrics.txt" |
		sed 's/.*le="\([^"]*\)".*/\1/' |
		awk -v v="$1" '$1 == "+Inf" || $1 + 0 >= v + 0 { print NR; exit }'
}
for q in 50 99; do
	pq=$(promql "histogram_quantile(0.$q, jank_action_duration_seconds_bucket{action=\"$action\"})")
	sq=$(status ".inputs[0].rules[0].p${q}_ns / 1e9")
	diag "p$q: Prometheus $pq s, jankctl status $sq s (buckets $(bucket_of "$pq"), $(bucket_of "$sq"))"
	check "histogram_quantile(0.$q) is in the bucket of jankctl status's p$q" \
		[ -n "$pq" -a -n "$(bucket_of "$pq")" -a "$(bucket_of "$pq")" = "$(bucket_of "$sq")" ]
done

promtool check metrics <"$LIVE_TMP/metrics.txt" >"$LIVE_TMP/promtool.out" 2>&1
rc=$?
sed 's/^/# promtool: /' "$LIVE_TMP/promtool.out"
check "promtool check metrics passes on the endpoint's Prometheus text (rc $rc)" \
	[ "$rc" = 0 -a ! -s "$LIVE_TMP/promtool.out" ]

curl -sf -D "$LIVE_TMP/om.headers" -H 'Accept: application/openmetrics-text; version=1.0.0' \
	"$endpoint" >"$LIVE_TMP/metrics.om"
check "Accept: application/openmetrics-text gets OpenMetrics" \
	grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0' "$LIVE_TMP/om.headers"
check "the OpenMetrics answer ends with # EOF" [ "$(tail -n 1 "$LIVE_TMP/metrics.om")" = "# EOF" ]
check "the last jank (name=base,id=49) is the exemplar of its bucket" \
	grep -q "^jank_action_duration_seconds_bucket{action=\"$action\",le=\"0.067108863\"} 50 # {key=\"name=base,id=49\"} 0.06" \
	"$LIVE_TMP/metrics.om"
now=$(date +%s)
check "Prometheus stored the exemplar" [ "$(curl -sf "$api/query_exemplars" \
	--data-urlencode "query=jank_action_duration_seconds_bucket{action=\"$action\"}" \
	--data-urlencode "start=$((now - 600))" --data-urlencode "end=$((now + 10))" |
	"$JQ" -r '[.data[].exemplars[].labels.key] | index("name=base,id=49") != null')" = true ]

"$LIVE_JANKCTL" status --socket "$sock" --format openmetrics >"$LIVE_TMP/status.om"
families() { grep '^# TYPE ' "$1"; }
check "jankctl status --format openmetrics: the endpoint's families, and # EOF" \
	[ "$(families "$LIVE_TMP/status.om")" = "$(families "$LIVE_TMP/metrics.om")" -a \
	"$(tail -n 1 "$LIVE_TMP/status.om")" = "# EOF" ]
check "jankctl status --format openmetrics: the same counts" \
	[ "$(grep "^jank_janks_total" "$LIVE_TMP/status.om")" = \
	"$(grep "^jank_janks_total" "$LIVE_TMP/metrics.om")" ]

# node_exporter's textfile collector reads the Prometheus text format.
nodex=$(command -v prometheus-node-exporter || command -v node_exporter)
if [ -n "$nodex" ] && nport=$(free_port); then
	mkdir -p "$LIVE_TMP/textfile"
	"$LIVE_JANKCTL" status --socket "$sock" --format prometheus >"$LIVE_TMP/textfile/jank.prom"
	"$nodex" --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$LIVE_TMP/textfile" \
		--web.listen-address="127.0.0.1:$nport" >"$LIVE_TMP/nodex.log" 2>&1 9>&- &
	nodex_pid=$!
	live_track "$nodex_pid"
	live_wait 10 curl -sf -o "$LIVE_TMP/nodex.txt" "http://127.0.0.1:$nport/metrics" || true
	live_stop_pid "$nodex_pid"
	check "node_exporter's textfile collector reads jankctl status --format prometheus" \
		grep -q "^jank_janks_total{action=\"$action\"} 5$" "$LIVE_TMP/nodex.txt"
	check "... with the types: counters, histograms" \
		grep -q "^# TYPE jank_action_duration_seconds histogram" "$LIVE_TMP/nodex.txt"
else
	skip "node_exporter's textfile collector reads --format prometheus" "prometheus-node-exporter not installed"
	skip "... with the types: counters, histograms" "prometheus-node-exporter not installed"
fi

check "Prometheus loaded the example rules, and evaluates them without error" \
	[ "$(curl -sf "$api/rules" | "$JQ" -r '[.data.groups[].rules[] |
		select(.health == "ok")] | length')" = \
	"$(curl -sf "$api/rules" | "$JQ" -r '[.data.groups[].rules[]] | length')" -a \
	"$(curl -sf "$api/rules" | "$JQ" -r '[.data.groups[].rules[]] | length')" -gt 3 ]

# ---- What a scrape costs ----

cpu() { curl -sf "$endpoint" | awk '$1 == "process_cpu_seconds_total" { print $2 }'; }
bytes=$(wc -c <"$LIVE_TMP/metrics.txt")
c0=$(cpu)
t0=$(date +%s%N)
for _ in $(seq 200); do
	curl -sf -o /dev/null "$endpoint"
done
t1=$(date +%s%N)
c1=$(cpu)
us=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%d", (b - a) * 1e6 / 201 }')
diag "scrape cost: ${us} us of jankd's CPU per scrape ($bytes bytes), $(((t1 - t0) / 200000)) us per curl round trip"
diag "Prometheus's scrape_duration_seconds: $(promql 'scrape_duration_seconds{job="jank"}') s"
check "a scrape costs jankd less than $SCRAPE_CPU_BOUND_US us of CPU (${us} us)" \
	[ -n "$us" -a "$us" -lt "$SCRAPE_CPU_BOUND_US" ]

# ---- Bad clients do not delay alerts ----

phase quiet "no abuse"
check "without abuse: 5 alerts, the slowest after ${max_ms} ms (< $ALERT_BOUND_MS)" alerts_on_time

"$HTTP_ABUSE" slowloris "$mport" 40 12 >"$LIVE_TMP/loris.out" 2>&1 9>&- &
abuse=$!
live_track "$abuse"
sleep 1
phase loris "slowloris (40 connections, a header byte a second)"
check "during a slowloris: 5 alerts, the slowest after ${max_ms} ms (< $ALERT_BOUND_MS)" alerts_on_time
wait "$abuse"
live_forget "$abuse"
diag "slowloris: $(cat "$LIVE_TMP/loris.out")"
longest=$(sed -n 's/.*longest_s=\([0-9]*\).*/\1/p' "$LIVE_TMP/loris.out")
check "jankd closed each slowloris connection within its ${DEADLINE_S} s deadline (longest ${longest:-?} s)" \
	[ -n "$longest" -a "${longest:-99}" -le $((DEADLINE_S + 2)) ]
# 40 connections for 16 places: closed at their deadline, or evicted by newer ones.
check "the timeouts and evictions are counted" [ "$(curl -sf "$endpoint" | awk '
	$1 == "jank_metrics_connections_timed_out_total" { t = $2 }
	$1 == "jank_metrics_connections_evicted_total" { e = $2 }
	END { print (t + e > 0) }')" = 1 ]

"$HTTP_ABUSE" oversized "$mport" 1048576 8 >"$LIVE_TMP/big.out" 2>&1 9>&- &
abuse=$!
live_track "$abuse"
sleep 1
phase big "requests with a 1 MiB header, one after the other"
check "during oversized requests: 5 alerts, the slowest after ${max_ms} ms (< $ALERT_BOUND_MS)" alerts_on_time
wait "$abuse"
live_forget "$abuse"
diag "oversized: $(cat "$LIVE_TMP/big.out")"
check "every oversized request was refused" \
	grep -Eq '^requests=[1-9][0-9]* refused=([0-9]+) ok=0$' "$LIVE_TMP/big.out"

(
	end=$((SECONDS + 8))
	while [ "$SECONDS" -lt "$end" ]; do
		"$HTTP_ABUSE" flood "$mport" 100
	done
) >"$LIVE_TMP/flood.out" 2>&1 9>&- &
abuse=$!
live_track "$abuse"
sleep 1
phase flood "floods of 100 parallel connections"
check "during floods of 100 connections: 5 alerts, the slowest after ${max_ms} ms (< $ALERT_BOUND_MS)" alerts_on_time
wait "$abuse"
live_forget "$abuse"
# ok=N refused=N per flood: the range of ok, and whether every flood was answered or closed.
flood_figures() {
	awk '{ split($0, f, /[ =]/)
		if (NR == 1 || f[4] < min) min = f[4]
		if (f[4] > max) max = f[4]
		if (f[4] + f[6] != 100 || f[8] != 0 || f[6] == 0) bad++ }
		END { printf "%d %d %d %d\n", NR, min, max, bad }' "$LIVE_TMP/flood.out"
}
read -r floods ok_min ok_max flood_bad <<EOF
$(flood_figures)
EOF
diag "flood: $floods floods of 100 connections: $ok_min to $ok_max answered (at most $MAX_CONNECTIONS at a time, Prometheus's own included), the rest closed"
check "each flood: some answered, the rest closed, none left hanging" \
	[ "$floods" -gt 0 -a "$flood_bad" = 0 -a "$ok_min" -ge 1 ]

# 1000 connections held open, sending nothing, reopened as soon as closed:
# each scrape evicts the oldest idle one, and is answered. Another peer
# (127.0.0.2) that keeps 3 connections alive between its scrapes, as
# Prometheus does, keeps them: the peer that holds the most loses its own.
cat >"$LIVE_TMP/keepalive.py" <<'PY'
import os, socket, sys, time
port, ready, go = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def scrape(s):
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: jank\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    n = [int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
    while n and len(body) < n[0]:
        chunk = s.recv(65536)
        if not chunk:
            return False
        body += chunk
    return head.startswith(b"HTTP/1.1 200")
conns = []
for _ in range(3):
    s = socket.socket()
    s.settimeout(5)
    s.bind(("127.0.0.2", 0))
    s.connect(("127.0.0.1", port))
    conns.append(s)
first = sum(1 for s in conns if scrape(s))
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.1)
again = 0
for s in conns:
    try:
        again += scrape(s)
    except OSError:
        pass
print(first, again)
PY
python3 "$LIVE_TMP/keepalive.py" "$mport" "$LIVE_TMP/ka.ready" "$LIVE_TMP/ka.go" \
	>"$LIVE_TMP/keepalive.out" 2>&1 9>&- &
keepalive=$!
live_track "$keepalive"
live_wait 5 [ -e "$LIVE_TMP/ka.ready" ] || true
ulimit -n 4096 2>/dev/null || true
"$HTTP_ABUSE" idle "$mport" 1000 10 >"$LIVE_TMP/idle.out" 2>&1 9>&- &
abuse=$!
live_track "$abuse"
sleep 2
touch "$LIVE_TMP/ka.go" # within the 5 s a kept-alive connection waits for its next request
scraped=0
for _ in 1 2 3 4 5; do
	curl -sf -m 3 -o "$LIVE_TMP/idle-scrape.txt" "$endpoint" &&
		grep -q '^jank_janks_total' "$LIVE_TMP/idle-scrape.txt" && scraped=$((scraped + 1))
	sleep 0.5
done
wait "$abuse"
live_forget "$abuse"
diag "idle: $(cat "$LIVE_TMP/idle.out")"
check "with 1000 idle connections held open, every scrape is answered ($scraped of 5)" \
	[ "$scraped" = 5 ]
wait "$keepalive"
live_forget "$keepalive"
check "another peer's 3 kept-alive connections outlived the abuse (scrapes before, during: $(cat "$LIVE_TMP/keepalive.out"))" \
	[ "$(cat "$LIVE_TMP/keepalive.out")" = "3 3" ]
check "the evicted connections are counted" [ "$(curl -sf "$endpoint" |
	sed -n 's/^jank_metrics_connections_evicted_total //p')" -gt 0 ]

# ---- After the abuse ----

check "the endpoint answers again" curl -sf -o /dev/null "$endpoint"
live_wait_for 15 '[ "$(promql "jank_janks_total{action=\"$action\"}")" = \
	"$(status '\''.inputs[0].rules[0].janks'\'')" ]' || true
got=$(promql "jank_janks_total{action=\"$action\"}")
janks=$(status '.inputs[0].rules[0].janks')
check "Prometheus scrapes again, and still agrees with jankctl status ($got, $janks janks)" \
	[ -n "$got" -a "$got" = "$janks" -a "$janks" = 25 ]
check "journald has an alert for each jank ($janks)" \
	[ "$(live_journalctl -o json JANK_ACTION="$action" | wc -l)" = "$janks" ]
check "jankd is still running" live_alive "$LIVE_JANKD_PID"

kill -TERM "$LIVE_JANKD_PID"
wait "$LIVE_JANKD_PID"
rc=$?
live_forget "$LIVE_JANKD_PID"
stopped_clean() { [ "$rc" = 0 ] && ! live_port_listening "$mport"; }
check "SIGTERM: jankd exits 0, and the port is closed" stopped_clean
if [ "$_tap_failed" = 1 ]; then
	diag "jankd's log:"
	live_journalctl -o cat _PID="$LIVE_JANKD_PID" | sed 's/^/#   /' | tail -n 40
	sed 's/^/#   /' "$LIVE_TMP/jankd.err" | tail -n 20
	sed 's/^/# prometheus: /' "$LIVE_TMP/prometheus.log" | tail -n 20
fi
