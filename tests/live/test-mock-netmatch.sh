# SPDX-License-Identifier: MIT
# tests/live/test-mock-netmatch.sh: the kernel network matching online.
# Two mock-relayds serve two hosts' sessions, alpha's (a kernel trace in
# lttng-modules' own layout, written by jank-netgen, and the client's
# user-space actions) and beta's (kernel only), of
# tests/data/crosshost/two-hosts-tcp.sh: a client on alpha calls a server
# on beta over TCP, slow on requests 3 and 7, beta's clock 37 ms ahead, and
# no [flow] anywhere. One jankd watches both, a worker per host: the workers
# send their TCP segments, the supervisor matches them and joins the paths.
#   - exactly the 2 slow requests are alerted;
#   - each puts at least 80% of its path on beta's server thread, none on
#     alpha's thread of the same tid, every segment naming its host;
#   - jankctl status: 20 segments sent, 20 received, 20 matched; the clock
#     of beta against alpha brackets -37 ms; 2 verdicts held and joined;
#     the metrics count the segments.
# No root, no lttng daemon: it runs everywhere.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"
. "$top_srcdir/tests/live/mock-lib.sh"

mock_init
NETGEN=$top_builddir/tests/gen/jank-netgen
[ -x "$NETGEN" ] || plan_skip_all "$NETGEN is not built"

plan 8

d=$LIVE_TMP/net
mkdir -p "$d/t"
{
	"$top_srcdir/tests/data/crosshost/two-hosts-tcp.sh" "$d" plain 37000000 &&
		"$NETGEN" "$d/alpha-kernel.netgen" "$d/t/alpha-kernel" &&
		"$NETGEN" "$d/beta-kernel.netgen" "$d/t/beta-kernel" &&
		"$MOCK_GEN" "$d/alpha-ust.script" "$d/t/alpha-ust"
} 2>"$d/gen.err" || live_bail "the two hosts' traces" "$d/gen.err"

# mock HOST TRACE...: a mock-relayd serving HOST's session s; its port in $d/HOST.port.
mock() {
	local h=$1

	shift
	"$MOCK_RELAYD" --port-file "$d/$h.port" --hostname "$h" --session s "$@" \
		2>"$d/$h.mock" &
	live_track $!
	eval "mock_$h=$!"
	live_wait 5 test -s "$d/$h.port" || live_bail "mock-relayd of $h did not start" "$d/$h.mock"
}
mock alpha "$d/t/alpha-kernel" "$d/t/alpha-ust"
mock beta "$d/t/beta-kernel"
mport=$(live_random_port)
cat >"$LIVE_JANKD_CONF" <<CONF
[live]
url = net://127.0.0.1:$(cat "$d/alpha.port")/host/alpha/s, net://127.0.0.1:$(cat "$d/beta.port")/host/beta/s
${JANK_LIVE_DECODER:+decoder = $JANK_LIVE_DECODER}
[daemon]
control-socket = $LIVE_JANKD_SOCK
state-dir = $LIVE_TMP/state
[metrics]
listen = 127.0.0.1:$mport
[action req]
begin = app:req_send
end = app:req_done
key = id
threshold = 30ms
CONF
live_start_jankd --config "$LIVE_JANKD_CONF" --log-target=json
out=$LIVE_TMP/jankd.out
live_wait_for 20 '[ "$("$JQ" -s "[.[] | select(.type == \"action\")] | length" "$out")" -ge 2 ]' || true
sleep 1

keys=$("$JQ" -r 'select(.type == "action") | .key' "$out" | sort | tr '\n' ' ')
check "the 2 slow requests are alerted, no other ($keys)" [ "$keys" = "id=3 id=7 " ]
shares=$("$JQ" -r 'select(.type == "action") | (([.critical_path[] |
	select(.host == "beta" and .tid == 200) | .end - .begin] | add // 0) * 1000 /
	.duration_ns | floor)' "$out" | tr '\n' ' ')
low=$(for s in $shares; do [ "$s" -ge 800 ] || echo "$s"; done)
check "at least 80% of each path on beta's server thread (per mille: $shares)" \
	[ -n "$shares" -a -z "$low" ]
decoy=$("$JQ" -s '[.[] | select(.type == "action") | .critical_path[] |
	select(.host == "alpha" and .tid == 200)] | length' "$out")
named=$("$JQ" -s '[.[] | select(.type == "action") | .critical_path[] | .host != null] | all' \
	"$out")
check "none on alpha's thread of the same tid; every segment names its host" \
	[ "$decoy" = 0 -a "$named" = true ]

st=$(live_jankd_status '.fleet.crossing')
tcp=$(echo "$st" | "$JQ" -r '.tcp_segments | "\(.sends) \(.receives) \(.pairs) \(.pairs_fallback)"')
check "status: 20 segments sent, 20 received waking a thread, 20 matched ($tcp)" \
	[ "$tcp" = "20 20 20 0" ]
clock=$(echo "$st" | "$JQ" -r '.clocks[0] | "\(.host) \(.reference) \(.lo_ns) \(.offset_ns) \(.hi_ns)"')
# shellcheck disable=SC2086 # the words of the clock
set -- $clock
check "status: beta's clock against alpha's brackets -37 ms ($clock)" \
	[ "$1 $2" = "beta alpha" ] && [ "$3" -le -37000000 ] && [ "$5" -ge -37000000 ]
check "status: 2 verdicts held and joined, none timed out" \
	[ "$(echo "$st" | "$JQ" -r '"\(.held) \(.joined) \(.timed_out)"')" = "2 2 0" ]
curl -s "http://127.0.0.1:$mport/metrics" >"$LIVE_TMP/metrics.txt" 2>&1 || true
check "metrics: the segments sent, received and matched" sh -c "
	grep -q '^jank_crosshost_tcp_segments_total{direction=\"sent\"} 20$' '$LIVE_TMP/metrics.txt' &&
	grep -q '^jank_crosshost_tcp_segments_total{direction=\"received\"} 20$' '$LIVE_TMP/metrics.txt' &&
	grep -q '^jank_crosshost_tcp_pairs_total 20$' '$LIVE_TMP/metrics.txt'"

live_stop_jankd
rc=$?
check "jankd exits 0 on SIGTERM (got $rc)" [ "$rc" = 0 ]
if [ "$_tap_failed" = 1 ]; then
	diag "jankd's messages:"
	sed 's/^/#   /' "$LIVE_TMP/jankd.err" | tail -20
	diag "its alerts:"
	cut -c1-300 "$out" | sed 's/^/#   /'
	grep -h '^jank_crosshost' "$LIVE_TMP/metrics.txt" | sed 's/^/#   /'
fi
