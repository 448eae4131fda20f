# SPDX-License-Identifier: MIT
# tests/live/test-crosshost.sh: a slow request followed, live, to the thread
# of the other host that kept it waiting.
#
# Two simulated hosts (lib.sh: each an lttng-sessiond in UTS and mount
# namespaces of its own, its hostname alpha or beta) stream a live session
# each to one relayd; one jankd watches both, a worker per host. A client on
# alpha (rpc-demo) makes 40 requests over TCP to a server on beta, which
# spends 60 ms in slow_lookup on every 10th. The [flow rpc] pairs the
# client's send with the server's take, and the server's answer with the
# client's reception, keyed by name and request id: the sends and the takes
# are on different hosts, so only jankd's supervisor can join them.
#   - exactly the 4 slow requests are alerted;
#   - each alert puts at least 80% of its path on beta, on the server's
#     thread (and in slow_lookup, with lttng-ust's cyg-profile library),
#     none on a thread of alpha with the server's tid; every segment names
#     its host and the segments tile the action;
#   - jankctl status shows the clock of the two hosts, its bracket around
#     the truth (0: one machine), and the paths joined; metrics too.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_init
live_require_jankd
live_require_hosts
RPC=$top_builddir/tests/live/rpc-demo
[ -x "$RPC" ] || plan_skip_all "$RPC is not built (make -C tests check)"
cyg=
for f in /usr/lib/*-linux-gnu/liblttng-ust-cyg-profile.so.1 /usr/lib/liblttng-ust-cyg-profile.so.1; do
	[ -e "$f" ] && cyg=$f && break
done
live_start_relayd

plan 12

session=crosshost-$$
action=request
port=$(live_random_port)
mport=$(live_random_port)

# session HOST: a live session on HOST with the flows' and the functions' events.
session() {
	local out=$LIVE_TMP/hosts/$1/lttng.out p

	{
		live_host "$1" lttng create "$session" --live=100000 \
			--set-url="net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT" &&
			live_host "$1" lttng enable-event --userspace --session="$session" \
				'jank:*,lttng_ust_cyg_profile:*,lttng_ust_statedump:*' &&
			live_host "$1" lttng add-context --userspace --session="$session" \
				-t vpid -t vtid -t procname &&
			live_host "$1" lttng start "$session"
	} >"$out" 2>&1 || live_bail "host $1: cannot create the live session" "$out"
	for p in $(ps -o pid= --ppid "$(live_host_pid "$1")"); do
		LIVE_PIDS="$p $LIVE_PIDS"
	done
}

for h in alpha beta; do
	live_host_start "$h"
	session "$h"
done
relay=net://127.0.0.1:$LIVE_RELAYD_LIVE_PORT
live_jankd_conf "$relay/host/alpha/$session, $relay/host/beta/$session" "$action" 30ms <<CONF
[flow rpc]
from = jank:flow_from
to = jank:flow_to
key = name, key
[graph]
functions = yes
[metrics]
listen = 127.0.0.1:$mport
CONF
live_run_jankd --log-target=json

# rpc-demo, copied where jankd's workers can read it: the hosts are not
# this one, so no binary opener reaches into a private build tree (a clone
# in root's 0700 home) for them. Its library from the build, the
# cyg-profile library preloaded into it alone.
rpc_bin=$top_builddir/tests/live/.libs/rpc-demo
[ -f "$rpc_bin" ] || rpc_bin=$RPC
mkdir -m 0755 "$LIVE_TMP/bin"
cp "$rpc_bin" "$LIVE_TMP/bin/rpc-demo"
chmod 0755 "$LIVE_TMP/bin/rpc-demo"
chmod 0711 "$LIVE_TMP"
rpc() {
	local h=$1

	shift
	live_host "$h" env LD_LIBRARY_PATH="$top_builddir/probes/.libs" ${cyg:+LD_PRELOAD=$cyg} \
		"$LIVE_TMP/bin/rpc-demo" "$@"
}
rpc beta server "$port" 10 1000 60000 >"$LIVE_TMP/server.out" 2>&1 &
server_pid=$!
live_track "$server_pid"
live_wait 10 grep -q '^server tid' "$LIVE_TMP/server.out" ||
	live_bail "the server did not start" "$LIVE_TMP/server.out"
stid=$(awk '/^server tid/ { print $3 }' "$LIVE_TMP/server.out")
rpc alpha client "$port" 40 20000 >"$LIVE_TMP/client.out" 2>&1
check "the client made 40 requests to beta's server (tid $stid)" grep -q '^done 40$' "$LIVE_TMP/client.out"
wait "$server_pid"
live_forget "$server_pid"

out=$LIVE_TMP/jankd.out
# The last alert may wait for beta's side up to the join's timeout (5 s).
live_wait_for 20 '[ "$("$JQ" -s "[.[] | select(.type == \"action\")] | length" "$out")" -ge 4 ]' || true
sleep 1
keys=$("$JQ" -r 'select(.type == "action") | .key' "$out" | sort | tr '\n' ' ')
check "the 4 slow requests are alerted, no other ($keys)" \
	[ "$keys" = "name=request,id=19 name=request,id=29 name=request,id=39 name=request,id=9 " ]

shares=$("$JQ" -r 'select(.type == "action") | (([.critical_path[] | select(.host == "beta") |
	.end - .begin] | add // 0) * 1000 / .duration_ns | floor)' "$out" | tr '\n' ' ')
low=$(for s in $shares; do [ "$s" -ge 800 ] || echo "$s"; done)
check "at least 80% of each path on beta (per mille: $shares)" [ -n "$shares" -a -z "$low" ]
server=$("$JQ" -r --argjson t "$stid" 'select(.type == "action") | ([.critical_path[] |
	select(.host == "beta" and .tid == $t) | .end - .begin] | add // 0) >= 55000000' "$out" |
	sort -u | tr '\n' ' ')
check "each path has its 60 ms on beta's server thread" [ "$server" = "true " ]
decoy=$("$JQ" -s --argjson t "$stid" '[.[] | select(.type == "action") | .critical_path[] |
	select(.host == "alpha" and .tid == $t)] | length' "$out")
check "none on a thread of alpha with the server's tid" [ "$decoy" = 0 ]
tiles=$("$JQ" -s '[.[] | select(.type == "action") | . as $a |
	(.critical_path | length > 0) and (.critical_path[0].begin == $a.begin) and
	(.critical_path[-1].end == $a.end) and
	([range(1; .critical_path | length) as $i |
	  .critical_path[$i].begin == .critical_path[$i - 1].end] | all) and
	([.critical_path[] | .host != null] | all)] | all' "$out")
check "the segments tile each action, each names its host" [ "$tiles" = true ]
flowed=$("$JQ" -s '[.[] | select(.type == "action") | .critical_path[] |
	select(.host == "alpha" and .flow == "rpc")] | length' "$out")
check "the path comes back to alpha through the flow rpc" [ "$flowed" -ge 4 ]
if [ -n "$cyg" ]; then
	fn=$("$JQ" -s --argjson t "$stid" '[.[] | select(.type == "action") |
		[.critical_path[] | select(.host == "beta" and .tid == $t and
		((.stack // []) | index(["slow_lookup"]) != null))] | length > 0] | all' "$out")
	check "beta's part is in the server's slow_lookup" [ "$fn" = true ]
else
	skip "beta's part is in the server's slow_lookup" "no liblttng-ust-cyg-profile.so.1"
fi

st=$(live_jankd_status '.fleet.crossing')
clock=$(echo "$st" | "$JQ" -r '.clocks[0] |
	"\(.host) \(.reference) \(.lo_ns) \(.offset_ns) \(.hi_ns) \(.messages_to) \(.messages_from)"')
diag "clock: $clock"
set -- $clock
check "status: the clock of the two hosts, its bracket around 0 (one machine)" \
	[ "$1 $2" = "beta alpha" -o "$1 $2" = "alpha beta" ] && [ "$3" -le 0 ] && [ "$5" -ge 0 ] &&
	[ "$6" -ge 40 ] && [ "$7" -ge 40 ]
check "status: 4 verdicts held and joined, none timed out" \
	[ "$(echo "$st" | "$JQ" -r '"\(.held) \(.joined) \(.timed_out)"')" = "4 4 0" ]
live_jankd_status >/dev/null
"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" >"$LIVE_TMP/status.txt" 2>&1
check "jankctl status says the clock" grep -Eq '^clock of (beta|alpha) against (alpha|beta): ' \
	"$LIVE_TMP/status.txt"
curl -s "http://127.0.0.1:$mport/metrics" >"$LIVE_TMP/metrics.txt" 2>&1 || true
check "metrics: the offset and its bracket" sh -c "grep -q '^jank_host_clock_offset_seconds{host=' '$LIVE_TMP/metrics.txt' &&
	grep -q '^jank_host_clock_offset_low_seconds{' '$LIVE_TMP/metrics.txt' &&
	grep -q '^jank_host_clock_offset_high_seconds{' '$LIVE_TMP/metrics.txt'"

live_jankd_diag "$out" "$LIVE_TMP/status.txt"
