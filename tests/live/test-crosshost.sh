# SPDX-License-Identifier: MIT
# tests/live/test-crosshost.sh: a slow request followed, live, to the thread
# of the other host that kept it waiting.
#
# In namespaces of its own (live_isolate), three simulated hosts (lib.sh:
# each an lttng-sessiond in UTS, mount and PID namespaces of its own, its
# hostname alpha, beta or gamma) stream a live session each to one relayd;
# one jankd watches them all, a worker per host. Each host's pids and tids
# are its own, as two machines' are: they collide. jankd runs on alpha (the
# test's hostname), whose sessiond is the one it talks to (--shared-run), so
# that its captures record alpha; alpha's programs are in a PID namespace
# of their own, as in a container.
#
# Beta slow: a client on alpha (rpc-demo) makes 40 requests over TCP to a
# server on beta, which spends 60 ms in slow_lookup on every 10th; on alpha,
# a decoy thread is given the server's tid. The [flow rpc] pairs the
# client's send with the server's take, and the server's answer with the
# client's reception, keyed by name and request id: the sends and the takes
# are on different hosts, so only jankd's supervisor can join them.
#   - exactly the 4 slow requests are alerted;
#   - each alert puts at least 80% of its path on beta, on the server's
#     thread (and in slow_lookup, with lttng-ust's cyg-profile library),
#     none on alpha's thread with the server's tid (the decoy's); every
#     segment names its host and the segments tile the action;
#   - the captures' reports (alpha's trace, replayed) carry beta's part of
#     the path, as the alert did;
#   - jankctl status shows the clock of the two hosts, its bracket around
#     the truth (0: one machine), and the paths joined; metrics too.
# Gamma slow: the client on alpha asks a server on beta, which asks a
# backend on gamma for each answer (flows lookup and found); the backend
# spends 60 ms on every 10th. The 4 slow requests are alerted, each with at
# least 80% of its path on gamma's backend thread, through beta; a capture's
# report has gamma's part, its picture a group of lanes per host.
# [live] crossing-timeout is 8s: status says so, and no path timed out.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_init
# jankd runs on alpha (captures record jankd's host): alpha's programs are in
# a PID namespace of their own there, as in a container.
[ -n "${LIVE_ISOLATED:-}" ] || plan_skip_all "not in namespaces of its own (live_isolate)"
hostname alpha
live_require_jankd
live_require_hosts
RPC=$top_builddir/tests/live/rpc-demo
[ -x "$RPC" ] || plan_skip_all "$RPC is not built (make -C tests check)"
cyg=$(live_cyg_profile) || cyg=
live_start_relayd

plan 25

session=crosshost-$$
action=request
port=$(live_random_port)
port2=$(live_random_port)
port3=$(live_random_port)
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

live_host_start --pid --shared-run alpha
session alpha
for h in beta gamma; do
	live_host_start --pid "$h"
	session "$h"
done
relay=net://127.0.0.1:$LIVE_RELAYD_LIVE_PORT
captures=$LIVE_TMP/captures
mkdir -p "$captures"
live_jankd_conf --capture snapshot "$captures" \
	"$relay/host/alpha/$session, $relay/host/beta/$session, $relay/host/gamma/$session" \
	"$action" 30ms <<CONF
[live]
crossing-timeout = 8s
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

# rpc-demo, copied where jankd's workers can read it for beta and gamma:
# those hosts are not this one, so no binary opener reaches into a private
# build tree (a clone in root's 0700 home) for them. alpha is jankd's host:
# its copy is in a 0700 directory, which only the binary opener reaches, for
# processes in alpha's PID namespace (their vpids are not jankd's pids). Its
# library from the build, the cyg-profile library preloaded into it alone.
rpc_bin=$top_builddir/tests/live/.libs/rpc-demo
[ -f "$rpc_bin" ] || rpc_bin=$RPC
mkdir -m 0755 "$LIVE_TMP/bin"
mkdir -m 0700 "$LIVE_TMP/private"
cp "$rpc_bin" "$LIVE_TMP/bin/rpc-demo"
cp "$rpc_bin" "$LIVE_TMP/private/rpc-demo"
chmod 0755 "$LIVE_TMP/bin/rpc-demo" "$LIVE_TMP/private/rpc-demo"
chmod 0711 "$LIVE_TMP"
rpc_path() {
	if [ "$1" = alpha ]; then
		echo "$LIVE_TMP/private/rpc-demo"
	else
		echo "$LIVE_TMP/bin/rpc-demo"
	fi
}
rpc() {
	local h=$1

	shift
	live_host "$h" env LD_LIBRARY_PATH="$top_builddir/probes/.libs" ${cyg:+LD_PRELOAD=$cyg} \
		"$(rpc_path "$h")" "$@"
}
# rpc_as_tid HOST TID ARGS...: rpc ARGS on HOST, as pid (and tid) TID of its
# namespace if it is free (the next pid the namespace gives, set just
# before the fork).
rpc_as_tid() {
	local h=$1 t=$2

	shift 2
	live_host "$h" sh -c 'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid; shift; "$@" & wait $!' \
		sh "$t" env LD_LIBRARY_PATH="$top_builddir/probes/.libs" ${cyg:+LD_PRELOAD=$cyg} \
		"$(rpc_path "$h")" "$@"
}

rpc beta server "$port" 10 1000 60000 >"$LIVE_TMP/server.out" 2>&1 &
server_pid=$!
live_track "$server_pid"
live_wait 10 grep -q '^server tid' "$LIVE_TMP/server.out" ||
	live_bail "the server did not start" "$LIVE_TMP/server.out"
stid=$(awk '/^server tid/ { print $3 }' "$LIVE_TMP/server.out")
rpc_as_tid alpha "$stid" busy 200 10000 >"$LIVE_TMP/busy.out" 2>&1 &
busy_pid=$!
live_track "$busy_pid"
live_wait 10 grep -q '^busy tid' "$LIVE_TMP/busy.out" ||
	live_bail "the decoy did not start" "$LIVE_TMP/busy.out"
btid=$(awk '/^busy tid/ { print $3 }' "$LIVE_TMP/busy.out")
check "alpha's decoy thread has beta's server tid ($btid, $stid): tids of two hosts collide" \
	[ "$btid" = "$stid" ]
rpc alpha client "$port" 40 20000 >"$LIVE_TMP/client.out" 2>&1
check "the client made 40 requests to beta's server (tid $stid)" grep -q '^done 40$' "$LIVE_TMP/client.out"
wait "$server_pid"
live_forget "$server_pid"
wait "$busy_pid"
live_forget "$busy_pid"

# alerted FILE CLIENT_OUT SLOW_IDS: whether the actions of FILE are the
# requests SLOW_IDS, every one, and no other but a request the loaded
# machine made slow past the threshold, as the client measured it (30 ms or
# more: said). Their alerts are then in FILE.slow.
alerted() {
	local file=$1 cout=$2 slow=" $3 " id us bad=

	for id in $("$JQ" -r 'select(.type == "action") | .key | sub(".*id="; "")' "$file"); do
		case "$slow" in
		*" $id "*) continue ;;
		esac
		us=$(awk -v i="$id" '$1 == "request" && $2 == i { print $5 }' "$cout")
		if [ "${us:-0}" -ge 30000 ]; then
			diag "request $id alerted: $us us as the client measured it (the machine's load)"
		else
			bad="$bad $id"
		fi
	done
	for id in $slow; do
		"$JQ" -en --arg k "name=request,id=$id" \
			'[inputs | select(.type == "action" and .key == $k)] | length > 0' \
			"$file" >/dev/null || bad="$bad !$id"
	done
	"$JQ" -c --arg ids "$slow" 'select(.type == "action") | (.key | sub(".*id="; "")) as $id |
		select($ids | contains(" " + $id + " "))' "$file" >"$file.slow"
	[ -z "$bad" ] || diag "alerts wrong:$bad"
	[ -z "$bad" ]
}

out=$LIVE_TMP/jankd.out
# The last alert may wait for beta's side up to the join's timeout (8 s).
live_wait_for 20 '[ "$("$JQ" -s "[.[] | select(.type == \"action\")] | length" "$out")" -ge 4 ]' || true
sleep 1
cp "$out" "$LIVE_TMP/phase1.out"
keys=$("$JQ" -r 'select(.type == "action") | .key' "$out" | sort | tr '\n' ' ')
check "the 4 slow requests are alerted, no normal one ($keys)" \
	alerted "$LIVE_TMP/phase1.out" "$LIVE_TMP/client.out" "9 19 29 39"
out=$LIVE_TMP/phase1.out.slow

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
check "none on alpha's thread with the server's tid (the decoy's)" [ "$decoy" = 0 ]
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
	fn=$("$JQ" -s '[.[] | select(.type == "action") | [.critical_path[] | select(.host == "alpha" and
		((.stack // []) | index(["client"]) != null))] | length > 0] | all' "$out")
	check "alpha's part is named (client): its binary, in a 0700 directory, through jankd's binary opener" \
		[ "$fn" = true ]
else
	skip "beta's part is in the server's slow_lookup" "no liblttng-ust-cyg-profile.so.1"
	skip "alpha's part is named (client)" "no liblttng-ust-cyg-profile.so.1"
fi

# The captures: alpha's trace, replayed; the report splices in the other
# host's part of the path as the alert had it.
live_wait_for 30 '[ "$(ls "$captures"/*/report.json 2>/dev/null | wc -l)" -ge 1 ]' || true
report=$(ls "$captures"/*/report.json 2>/dev/null | head -1)
diag "report: ${report:-none}"
rbeta=0
[ -z "$report" ] || rbeta=$("$JQ" --argjson t "$stid" '[.critical_path[]? |
	select(.host == "beta" and .tid == $t) | .end - .begin] | add // 0' "$report")
check "a capture's report has beta's part of the path ($rbeta ns on its server thread)" \
	[ "$rbeta" -ge 55000000 ]
check "its text says the path went on beta" \
	grep -q 'on beta' "$(dirname "${report:-/nonexistent/x}")/report.txt"
check "its picture has a lane of beta's server thread" \
	grep -q ">tid $stid on beta</text>" "$(dirname "${report:-/nonexistent/x}")/critical-path.svg"

st=$(live_jankd_status '.fleet.crossing')
clock=$(echo "$st" | "$JQ" -r '.clocks[0] |
	"\(.host) \(.reference) \(.lo_ns) \(.offset_ns) \(.hi_ns) \(.messages_to) \(.messages_from)"')
diag "clock: $clock"
set -- $clock
check "status: the clock of the two hosts, its bracket around 0 (one machine)" \
	[ "$1 $2" = "beta alpha" -o "$1 $2" = "alpha beta" ] && [ "$3" -le 0 ] && [ "$5" -ge 0 ] &&
	[ "$6" -ge 40 ] && [ "$7" -ge 40 ]
check "status: the verdicts held were joined, none timed out (crossing-timeout 8s)" \
	[ "$(echo "$st" | "$JQ" -r '(.held >= 4 and .joined == .held and .timed_out == 0 and
		.timeout_ns == 8000000000)')" = true ]
live_jankd_status >/dev/null
"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" >"$LIVE_TMP/status.txt" 2>&1
check "jankctl status says the clock" grep -Eq '^clock of (beta|alpha) against (alpha|beta): ' \
	"$LIVE_TMP/status.txt"
curl -s "http://127.0.0.1:$mport/metrics" >"$LIVE_TMP/metrics.txt" 2>&1 || true
check "metrics: the offset and its bracket" sh -c "grep -q '^jank_host_clock_offset_seconds{host=' '$LIVE_TMP/metrics.txt' &&
	grep -q '^jank_host_clock_offset_low_seconds{' '$LIVE_TMP/metrics.txt' &&
	grep -q '^jank_host_clock_offset_high_seconds{' '$LIVE_TMP/metrics.txt'"

# Gamma slow: alpha's client, beta's server, gamma's backend.
rpc gamma backend "$port3" 10 1000 60000 >"$LIVE_TMP/backend.out" 2>&1 &
backend_pid=$!
live_track "$backend_pid"
live_wait 10 grep -q '^server tid' "$LIVE_TMP/backend.out" ||
	live_bail "the backend did not start" "$LIVE_TMP/backend.out"
gtid=$(awk '/^server tid/ { print $3 }' "$LIVE_TMP/backend.out")
rpc beta server "$port2" 0 1000 0 "$port3" >"$LIVE_TMP/server2.out" 2>&1 &
server2_pid=$!
live_track "$server2_pid"
live_wait 10 grep -q '^server tid' "$LIVE_TMP/server2.out" ||
	live_bail "the second server did not start" "$LIVE_TMP/server2.out"
rpc alpha client "$port2" 40 20000 100 >"$LIVE_TMP/client2.out" 2>&1
check "the client made 40 requests through beta to gamma's backend (tid $gtid)" \
	grep -q '^done 40$' "$LIVE_TMP/client2.out"
wait "$server2_pid" "$backend_pid"
live_forget "$server2_pid"
live_forget "$backend_pid"
all=$LIVE_TMP/jankd.out
live_wait_for 20 '[ "$("$JQ" -s "[.[] | select(.type == \"action\")] | length" "$all")" -ge 8 ]' || true
sleep 1
"$JQ" -c 'select(.type == "action" and (.key | test("id=1[0-9][0-9]$")))' "$all" >"$LIVE_TMP/phase2.out"
keys=$("$JQ" -r '.key' "$LIVE_TMP/phase2.out" | sort | tr '\n' ' ')
check "gamma: the 4 slow requests are alerted, no normal one ($keys)" \
	alerted "$LIVE_TMP/phase2.out" "$LIVE_TMP/client2.out" "109 119 129 139"
out=$LIVE_TMP/phase2.out.slow
shares=$("$JQ" -r --argjson t "$gtid" '(([.critical_path[] | select(.host == "gamma" and .tid == $t) |
	.end - .begin] | add // 0) * 1000 / .duration_ns | floor)' "$out" | tr '\n' ' ')
low=$(for s in $shares; do [ "$s" -ge 800 ] || echo "$s"; done)
check "gamma: at least 80% of each path on gamma's backend thread (per mille: $shares)" \
	[ -n "$shares" -a -z "$low" ]
via=$("$JQ" -s '[.[] | [.critical_path[] | select(.host == "beta")] | length > 0] | all' "$out")
check "gamma: each path goes through beta" [ "$via" = true ]
if [ -n "$cyg" ]; then
	fn=$("$JQ" -s --argjson t "$gtid" '[.[] | [.critical_path[] | select(.host == "gamma" and
		.tid == $t and ((.stack // []) | index(["slow_lookup"]) != null))] | length > 0] | all' "$out")
	check "gamma: its part is in the backend's slow_lookup" [ "$fn" = true ]
else
	skip "gamma: its part is in the backend's slow_lookup" "no liblttng-ust-cyg-profile.so.1"
fi
# A capture of a gamma request: its report has three hosts, its picture a
# group of lanes each.
live_wait_for 30 '[ -n "$(grep -l "\"host\":\"gamma\"" "$captures"/*/report.json 2>/dev/null)" ]' || true
report=$(grep -l '"host":"gamma"' "$captures"/*/report.json 2>/dev/null | head -1)
diag "report: ${report:-none}"
rgamma=0
[ -z "$report" ] || rgamma=$("$JQ" --argjson t "$gtid" '[.critical_path[]? |
	select(.host == "gamma" and .tid == $t) | .end - .begin] | add // 0' "$report")
check "gamma: a capture's report has gamma's part ($rgamma ns on its backend thread)" \
	[ "$rgamma" -ge 55000000 ]
svg=$(dirname "${report:-/nonexistent/x}")/critical-path.svg
check "gamma: its picture groups the lanes of alpha, beta and gamma, in that order" \
	sh -c "grep -o 'data-host=\"[a-z]*\"' '$svg' | tr '\n' ' ' |
		grep -qx 'data-host=\"alpha\" data-host=\"beta\" data-host=\"gamma\" '"

st=$(live_jankd_status '.fleet.crossing')
diag "clocks: $(echo "$st" | "$JQ" -c '[.clocks[] | [.host, .reference, .lo_ns, .offset_ns, .hi_ns]]')"
check "gamma: its verdicts held were joined too, none timed out" \
	[ "$(echo "$st" | "$JQ" -r '(.held >= 8 and .joined == .held and .timed_out == 0)')" = true ]

live_jankd_diag "$all" "$LIVE_TMP/status.txt"
