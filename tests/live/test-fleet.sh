# SPDX-License-Identifier: MIT
# tests/live/test-fleet.sh: one jankd watches every host on a relayd, each
# input in a worker process of its own.
#
# Simulated hosts (lib.sh: a sessiond in its own UTS and mount namespaces)
# stream a live session each, all named the same, to one relayd on
# loopback; each runs jank-demo with slow actions of its own. jankd is given
# the relayd and patterns ([live] discover, hosts, sessions), no URL:
#   - it finds every host, and alerts exactly each host's janks, with
#     JANK_HOST and JANK_SESSION; jankctl status groups the inputs by host;
#   - a host started later is watched without a reload;
#   - a host whose sessiond is killed is reported, for that input only;
#   - relayd stopped (SIGSTOP) for 10 s: jankctl status answers all along,
#     the watchdog is fed (WATCHDOG=1 on the NOTIFY_SOCKET), the workers
#     stuck on relayd are killed and restarted; after SIGCONT the inputs
#     work again, and nothing is alerted twice;
#   - a worker that aborts (SIGABRT) is restarted and counted, and the other
#     hosts' workers never notice.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_require_notify_recv
live_init
live_require_demo
live_require_jankd
live_require_journald
live_require_hosts
live_start_relayd
live_start_journald

plan 29

session=jank-$$
action=fleet$$
ha=fleet-$$-a
hb=fleet-$$-b
hc=fleet-$$-c
hd=fleet-$$-d
notify=$LIVE_TMP/notify
msgs=$LIVE_TMP/notify.out
for h in "$ha" "$hb" "$hc"; do
	live_host_start "$h"
	live_host_session "$h" "$session"
done
relay=net://127.0.0.1:$LIVE_RELAYD_LIVE_PORT
live_jankd_conf --journal "" "$action" 30ms <<CONF
[live]
discover = $relay
hosts = fleet-$$-*
sessions = jank-$$
discover-interval = 1s
worker-timeout = 3s
CONF
live_start_notify_recv "$notify" "$msgs"
NOTIFY_SOCKET=$notify WATCHDOG_USEC=2000000 live_start_jankd --config "$LIVE_JANKD_CONF"

# connected HOST...: true when jankd is ready and each HOST's input is connected.
connected() {
	local st h

	st=$("$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" --format json 2>/dev/null) &&
		[ -n "$st" ] || return 1
	for h in "$@"; do
		echo "$st" | "$JQ" -e --arg h "$h" '.ready and
			any(.inputs[]; .host == $h and .state == "connected")' >/dev/null || return 1
	done
}
live_wait 20 connected "$ha" "$hb" "$hc" || live_bail "jankd did not attach to the three hosts" \
	"$LIVE_TMP/jankd.err"
check "READY=1 once every host found is attached" grep -q '^READY=1$' "$msgs"
check "status: three inputs, one per host, discovered, session $session" [ "$(live_jankd_status \
	'[.inputs[] | select(.discovered and .session == "'"$session"'") | .host] | sort | join(" ")')" \
	= "$ha $hb $hc" ]
check "each input runs in a worker process of its own, a child of jankd" [ "$(live_jankd_status \
	'[.inputs[].worker.pid] | unique | length')" = 3 -a \
	"$(for p in $(live_jankd_status '.inputs[].worker.pid'); do
		awk '{ print $4 }' "/proc/$p/stat"
	done | sort -u)" = "$LIVE_JANKD_PID" ]

# demo HOST EVERY [COUNT]: COUNT (20) actions on HOST, every EVERY-th one slow (60 ms).
demo() {
	live_host_demo "$1" "$LIVE_TMP/demo-$1.out" --cause sleep --count "${3:-20}" \
		--slow-every "$2" --normal 1ms --slow 60ms --interval 5ms
}
# alerts [HOST]: how many alerts (of HOST).
alerts() {
	live_jank_count "$action" ${1:+JANK_HOST="$1"}
}
# expect "A B C D": wait (10 s) until the alerts of ha, hb, hc, hd are these counts.
got=
expect() {
	local n

	n=$(echo "$1" | awk '{ print $1 + $2 + $3 + $4 }')
	live_wait_for 10 '[ "$(alerts)" -ge "$n" ]' || true
	sleep 1
	got="$(alerts "$ha") $(alerts "$hb") $(alerts "$hc") $(alerts "$hd")"
	[ "$got" = "$1" ]
}

demo "$ha" 5 &
pa=$!
demo "$hb" 10 &
pb=$!
demo "$hc" 4 &
pc=$!
wait "$pa" && wait "$pb" && wait "$pc"
check "the demos ran on their hosts" [ $? = 0 ]
expect "4 2 5 0"
check "exact alert counts per host: 4, 2, 5 (got $got)" [ "$got" = "4 2 5 0" ]
live_jank_entries "$action" >"$LIVE_TMP/alerts.json"
check "every alert has JANK_HOST, JANK_SESSION and the input's URL" [ "$("$JQ" -r \
	--arg s "$session" --arg r "$relay" 'select(.JANK_SESSION == $s and
	.JANK_INPUT == $r + "/host/" + .JANK_HOST + "/" + $s) | 1' "$LIVE_TMP/alerts.json" |
	wc -l)" = 11 ]
check "each host's alerts come from its own program" [ "$("$JQ" -r \
	'"\(.JANK_HOST) \(.JANK_PID)"' "$LIVE_TMP/alerts.json" | sort -u | wc -l)" = 3 ]

# ---- A host that starts later ----

live_host_start "$hd"
live_host_session "$hd" "$session"
live_wait 15 connected "$hd" || true
check "a host started later is discovered and attached, without a reload" \
	[ "$(live_jankd_status '"\(.inputs | length) \(.reloads)"')" = "4 0" ]
check "its discovery is logged" live_jankd_logged "^$relay/host/$hd/$session: discovered"
demo "$hd" 5 15
expect "4 2 5 3"
check "its janks are alerted: 3 (got $got)" [ "$got" = "4 2 5 3" ]

"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" >"$LIVE_TMP/status.txt" 2>&1
check "jankctl status groups the inputs by host" [ "$(grep -c \
	"^host fleet-$$-[abcd]: 1 input, 1 connected, [0-9]* events, [0-9]* janks$" \
	"$LIVE_TMP/status.txt")" = 4 ]
check "jankctl status: the per-host figures (JSON)" [ "$(live_jankd_status \
	'[.hosts[] | "\(.host)=\(.janks)"] | sort | join(" ")')" = \
	"$ha=4 $hb=2 $hc=5 $hd=3" ]

# ---- A host's sessiond dies: that input only ----

kill -KILL "$(live_host_pid "$hb")"
ub=$relay/host/$hb/$session
live_wait 20 live_jankd_logged "^$ub: " || true
live_wait 15 live_jankd_logged "^$ub: relayd no longer lists" || true
check "the loss of host $hb's session is logged for its input" \
	live_jankd_logged "^$ub: relayd no longer lists the session"
check "and for no other input" [ "$(live_jankd_log | grep -E "lost|gone|no longer|killed|died" |
	grep -vc "^$ub: ")" = 0 ]
check "the other hosts' inputs stay connected" connected "$ha" "$hc" "$hd"
demo "$ha" 5
expect "8 2 5 3"
check "and their janks are alerted: 4 more on $ha (got $got)" [ "$got" = "8 2 5 3" ]

# ---- relayd stops answering for 10 s ----

w0=$(grep -c '^WATCHDOG=1$' "$msgs")
kill -STOP "$LIVE_RELAYD_PID"
asked=0 answered=0 slowest=0
t_end=$(($(date +%s%N) + 10000000000))
while [ "$(date +%s%N)" -lt "$t_end" ]; do
	t0=$(date +%s%N)
	asked=$((asked + 1))
	timeout 2 "$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" --format json \
		>"$LIVE_TMP/st.json" 2>/dev/null && [ -s "$LIVE_TMP/st.json" ] &&
		answered=$((answered + 1))
	dt=$((($(date +%s%N) - t0) / 1000000))
	[ "$dt" -gt "$slowest" ] && slowest=$dt
	sleep 0.5
done
w1=$(grep -c '^WATCHDOG=1$' "$msgs")
timeouts=$(live_jankd_status .fleet.timeouts)
kill -CONT "$LIVE_RELAYD_PID"
check "relayd stopped: jankctl status answered every time ($answered of $asked, slowest ${slowest} ms)" \
	[ "$answered" = "$asked" -a "$asked" -ge 10 ]
check "and the watchdog was fed: WATCHDOG=1 every second ($((w1 - w0)) in 10 s)" \
	[ $((w1 - w0)) -ge 9 ]
check "the workers stuck on relayd were killed (silent past 3 s): $timeouts" [ "$timeouts" -ge 3 ]
live_wait 40 connected "$ha" "$hc" "$hd" || true
check "after SIGCONT the inputs work again" connected "$ha" "$hc" "$hd"
demo "$ha" 5 &
pa=$!
demo "$hc" 4 &
pc=$!
demo "$hd" 5 15
wait "$pa"
wait "$pc"
expect "12 2 10 6"
check "new janks are alerted (got $got)" [ "$got" = "12 2 10 6" ]
live_jank_entries "$action" >"$LIVE_TMP/alerts.json"
diag "verdicts dropped as duplicates: $(live_jankd_status .fleet.duplicates_dropped)"
check "nothing was alerted twice" [ "$("$JQ" -r '"\(.JANK_HOST) \(.JANK_KEY) \(.JANK_END_NS)"' \
	"$LIVE_TMP/alerts.json" | sort | uniq -d | wc -l)" = 0 -a \
	"$("$JQ" -r '"\(.JANK_HOST) \(.JANK_PID) \(.JANK_KEY)"' "$LIVE_TMP/alerts.json" |
		sort | uniq -d | wc -l)" = 0 ]

# ---- A worker aborts ----

# worker HOST FIELD: .worker.FIELD of HOST's input.
worker() {
	live_jankd_status ".inputs[] | select(.host == \"$1\") | .worker.$2"
}
wa=$(worker "$ha" pid)
before="$(worker "$hc" pid) $(worker "$hc" starts) $(worker "$hd" pid) $(worker "$hd" starts)"
kill -ABRT "$wa"
live_wait_for 15 '[ "$(worker "$ha" crashes)" = 1 ]' || true
live_wait 15 connected "$ha" || true
restarted() {
	[ "$(worker "$ha" crashes)" = 1 -a "$(worker "$ha" pid)" != "$wa" ] && connected "$ha"
}
check "the aborted worker is restarted and counted (pid $wa before)" restarted
check "its death is logged once" [ "$(live_jankd_log |
	grep -c "^$relay/host/$ha/$session: worker died of signal 6")" = 1 ]
check "the other hosts' workers never noticed (same pids, no restart)" \
	[ "$(worker "$hc" pid) $(worker "$hc" starts) $(worker "$hd" pid) $(worker "$hd" starts)" = \
	"$before" ]
demo "$ha" 5 &
pa=$!
demo "$hc" 4
wait "$pa"
expect "16 2 15 6"
check "all hosts alert on (got $got)" [ "$got" = "16 2 15 6" ]

pids=$(live_jankd_status '.inputs[].worker.pid')
check "SIGTERM: exit 0" live_stop_jankd
check "the final summary names each input" [ "$(live_jankd_log |
	grep -c "^summary of $relay/host/fleet-$$-.*: [0-9]* events")" -ge 3 ]
gone=1
for p in $pids; do
	[ "$p" = 0 ] || ! live_alive "$p" || gone=0
done
check "no worker is left" [ "$gone" = 1 ]
live_jankd_diag
