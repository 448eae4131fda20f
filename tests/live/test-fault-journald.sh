# SPDX-License-Identifier: MIT
# tests/live/test-fault-journald.sh: jankd never blocks on journald (issue 27).
#
# In namespaces of its own (live_isolate): a private journald, sessiond,
# relayd, jankd with alerts to the journal and its metrics endpoint, and
# jank-demo making slow actions. Three faults:
#   (a) journald is stopped (SIGSTOP) for 10 s while the demo makes slow
#       actions: jankctl status and the metrics endpoint answer within 2 s
#       throughout; status and metrics show alerts queued; after SIGCONT
#       every slow action of the stall is in the journal, the metrics count
#       them sent, and one entry says the outage is over.
#   (b) journald is killed and a new one started on the same socket: the
#       alerts made meanwhile waited in jankd and reach the new one.
#   (c) SIGTERM while journald is stopped: jankd exits within a few seconds;
#       each alert is in the journal (what journald had in its socket) or
#       on jankd's stderr (what still waited in jankd).
# The kernel's queue of journald's socket holds 10 datagrams here
# (net.unix.max_dgram_qlen of a new network namespace): the 30 alerts of a
# stall cannot all fit there.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
for cmd in timeout curl nsenter; do
	command -v "$cmd" >/dev/null 2>&1 || plan_skip_all "$cmd not found"
done
live_setup_jankd --journald
[ -n "$LIVE_JOURNAL_NS" ] || plan_skip_all "journald needs a private mount namespace here"

plan 18

# The journald's mount namespace outlives journald itself: the restarted one
# (case b) and journalctl run there.
nsenter --mount="$LIVE_JOURNAL_NS" -- sleep 100000 9>&- &
anchor=$!
live_track "$anchor"
LIVE_JOURNAL_NS=/proc/$anchor/ns/mnt

session=fault-journald-$$
action=faultj$$
sock=$LIVE_JANKD_SOCK
# The network namespace is the test's own: the first free port after relayd's.
mport=$((LIVE_RELAYD_LIVE_PORT + 1))
while live_port_listening "$mport"; do
	mport=$((mport + 1))
done
live_create_session "$session"
live_jankd_conf --journal "$(live_url "$session")" "$action" 30ms <<CONF
[alerts]
rate-limit = 1000/10s
[metrics]
listen = 127.0.0.1:$mport
CONF
live_run_jankd

# slow_keys NAME: the keys of the slow actions of the demo run NAME, sorted.
slow_keys() {
	awk -v n="$1" '$1 == "action" && $5 == "slow" { printf "name=%s,id=%s\n", n, $2 }' \
		"$LIVE_TMP/demo-$1.out" | sort
}
# journal_keys NAME: the keys of NAME's alerts in the journal, sorted.
journal_keys() {
	live_jank_entries "$action" JANK_KIND=completed | "$JQ" -r .JANK_KEY |
		grep "^name=$1," | sort -u
}
has_all_keys() { # NAME
	[ "$(journal_keys "$1")" = "$(slow_keys "$1")" ]
}
all_of() { # NAME N: the demo run NAME made N slow actions, and all are in the journal
	[ "$(slow_keys "$1" | wc -l)" = "$2" ] && has_all_keys "$1"
}
demo() { # NAME ARGS...: jank-demo --name NAME ARGS, its output in demo-NAME.out
	local name=$1

	shift
	live_demo "$LIVE_TMP/demo-$name.out" --name "$name" --cause sleep --normal 1ms \
		--slow 60ms "$@"
}
# status FILTER: jankctl status --format json through jq FILTER; fails unless
# jankd answers within 2 s.
status() {
	local st

	st=$(timeout 2 "$LIVE_JANKCTL" status --socket "$sock" --format json 2>/dev/null) &&
		[ -n "$st" ] && echo "$st" | "$JQ" -r "$1"
}
# count FILTER: a number from status, -1 when jankd did not answer or has no such figure.
count() {
	local n

	n=$(status "$1")
	case $n in
	'' | *[!0-9]*) echo -1 ;;
	*) echo "$n" ;;
	esac
}
# metric NAME: a sample of the metrics endpoint (within 2 s), e.g.
# 'jank_alerts_total{outcome="queued"}'.
metric() {
	timeout 2 curl -sf "http://127.0.0.1:$mport/metrics" >"$LIVE_TMP/metrics.txt" &&
		awk -v m="$1" '$1 == m { print $2; found = 1 } END { if (!found) print -1 }' \
			"$LIVE_TMP/metrics.txt"
}

# Warm up: alerts reach journald.
demo warm --count 4 --slow-every 2 --interval 5ms
live_wait 10 has_all_keys warm || true
check "before: the alerts reach journald" has_all_keys warm

# ---- (a) journald stopped for 10 s ----

kill -STOP "$LIVE_JOURNALD_PID"
start=$(date +%s)
# 60 actions, 30 slow, about 10 s.
demo stall --count 60 --slow-every 2 --interval 120ms &
demo_pid=$!
live_track "$demo_pid"
polls=0 unanswered=0 queueing=0 metrics_down=0
while [ $(($(date +%s) - start)) -lt 10 ]; do
	polls=$((polls + 1))
	state=$(status .journal.state) || state=
	case $state in
	'') unanswered=$((unanswered + 1)) ;;
	queueing) queueing=$((queueing + 1)) ;;
	esac
	metric jank_journal_queue_entries >/dev/null || metrics_down=$((metrics_down + 1))
	sleep 1
done
wait "$demo_pid"
live_forget "$demo_pid"
# The last slow actions' verdicts: jankd has them all before journald comes back.
live_wait_for 5 '[ "$(count .janks)" -ge 32 ]' || true
queued_during=$(metric 'jank_alerts_total{outcome="queued"}')
status_queued=$(count .journal.alerts.queued)
diag "stall: $polls polls, $unanswered unanswered, $queueing saw 'queueing'," \
	"$metrics_down metrics failures; queued: metrics $queued_during, status $status_queued"
check "jankctl status answered within 2 s throughout the stall ($polls polls)" \
	[ "$polls" -ge 8 -a "$unanswered" = 0 ]
check "the metrics endpoint answered within 2 s throughout the stall" [ "$metrics_down" = 0 ]
check "status said 'queueing' during the stall" [ "$queueing" -gt 0 ]
check "during the stall: jank_alerts_total{outcome=\"queued\"} > 0 ($queued_during), as in status" \
	[ "${queued_during:--1}" -gt 0 -a "$queued_during" = "$status_queued" ]
sent_during=$(metric 'jank_alerts_total{outcome="sent"}')

kill -CONT "$LIVE_JOURNALD_PID"
live_wait 20 has_all_keys stall || true
check "after SIGCONT, every slow action of the stall is in the journal ($(slow_keys stall | wc -l))" \
	all_of stall 30
live_wait_for 5 '[ "$(status .journal.state)" = accepting ]' || true
sent_after=$(metric 'jank_alerts_total{outcome="sent"}')
dropped=$(metric 'jank_alerts_total{outcome="dropped"}')
check "metrics after: sent $sent_during -> $sent_after (2 + 30 alerts), none dropped" \
	[ "$sent_after" = 32 -a "${sent_after:--1}" -gt "${sent_during:--1}" -a "$dropped" = 0 ]
back=$(live_journalctl -o json MESSAGE_ID=1df63e5a65df72967fdf789074ae3d3c _PID="$LIVE_JANKD_PID")
diag "$(echo "$back" | "$JQ" -r .MESSAGE)"
back_ok() {
	[ "$(echo "$back" | grep -c .)" = 1 ] &&
		[ "$(echo "$back" | "$JQ" -r .JANK_LATE)" -ge "$status_queued" ] 2>/dev/null &&
		[ "$(echo "$back" | "$JQ" -r .JANK_DROPPED)" = 0 ]
}
check "one entry says journald is back, with the entries delivered late, none dropped" back_ok
timeout 2 "$LIVE_JANKCTL" status --socket "$sock" >"$LIVE_TMP/status.txt" 2>&1
check "jankctl status (text): journald accepting, 1 outage, the alerts' outcomes" \
	grep -Eq "^journald: accepting entries, 1 outage; alerts 32 sent \([0-9]+ late\), $status_queued queued, 0 dropped, 0 on stderr" \
	"$LIVE_TMP/status.txt"
check "the outage was announced once on stderr" \
	[ "$(grep -c 'journald is not accepting entries' "$LIVE_TMP/jankd.err")" = 1 ]

# ---- (b) journald killed, a new one on the same socket ----

kill -KILL "$LIVE_JOURNALD_PID"
wait "$LIVE_JOURNALD_PID" 2>/dev/null
live_forget "$LIVE_JOURNALD_PID"
queued_before=$(count .journal.alerts.queued)
demo restart --count 10 --slow-every 2 --interval 5ms
live_wait_for 10 '[ "$(count .journal.alerts.queued)" -ge $((queued_before + 5)) ]' || true
check "journald gone: the 5 alerts wait in jankd (status: $(status .journal.state))" \
	[ "$queued_before" -ge 0 -a "$(count .journal.alerts.queued)" -ge $((queued_before + 5)) ]
# Away for more than a second: an outage, not a burst journald catches up with.
sleep 2
# A new journald where the old one was (the same mount namespace, as jankd's).
nsenter --mount="$LIVE_JOURNAL_NS" -- sh -c 'rm -f /run/systemd/journal/socket && exec "$0"' \
	"$LIVE_JOURNALD_BIN" >"$LIVE_TMP/journald2.log" 2>&1 9>&- &
LIVE_JOURNALD_PID=$!
live_track "$LIVE_JOURNALD_PID"
live_wait 10 live_in_journal test -S /run/systemd/journal/socket ||
	live_bail "the new journald did not start" "$LIVE_TMP/journald2.log"
live_wait 20 has_all_keys restart || true
check "the alerts made while journald was away reach the new one" all_of restart 5
check "the new journald has the news too (2 outages)" \
	[ "$(live_journalctl -o cat MESSAGE_ID=1df63e5a65df72967fdf789074ae3d3c | wc -l)" = 2 -a \
	"$(count .journal.outages)" = 2 ]

# ---- (c) SIGTERM while journald is stopped ----

kill -STOP "$LIVE_JOURNALD_PID"
janks=$(count .janks)
demo stop --count 30 --slow-every 2 --interval 5ms
live_wait_for 10 '[ "$(count .janks)" -ge $((janks + 15)) ]' || true
live_wait_for 5 '[ "$(count .journal.queue_entries)" -gt 0 ]' || true
check "journald stopped: alerts wait in jankd ($(count .journal.queue_entries))" \
	[ "$(count .journal.queue_entries)" -gt 0 ]
kill -TERM "$LIVE_JANKD_PID"
t0=$(date +%s)
live_wait 10 eval '! live_alive "$LIVE_JANKD_PID"' || true
exited=1
live_alive "$LIVE_JANKD_PID" && exited=0
check "SIGTERM with journald stopped: jankd exits ($(($(date +%s) - t0)) s)" [ "$exited" = 1 ]
kill -CONT "$LIVE_JOURNALD_PID"
wait "$LIVE_JANKD_PID"
rc=$?
live_forget "$LIVE_JANKD_PID"
check "exit status 0" [ "$rc" = 0 ]
check "stderr: what journald did not take before exit follows" \
	grep -q '^jankd: journald did not take [0-9]* entries before exit' "$LIVE_TMP/jankd.err"
# What journald had in its socket reaches the journal once it runs again.
sleep 1
{
	journal_keys stop
	sed -n 's/^  JANK_KEY=\(name=stop,.*\)$/\1/p' "$LIVE_TMP/jankd.err"
} | sort -u >"$LIVE_TMP/stop.keys"
diag "stop: $(journal_keys stop | wc -l) in the journal," \
	"$(grep -c '^  JANK_KEY=name=stop,' "$LIVE_TMP/jankd.err") on stderr"
check "each alert is in the journal or on stderr" \
	[ "$(slow_keys stop | wc -l)" = 15 -a "$(cat "$LIVE_TMP/stop.keys")" = "$(slow_keys stop)" ]
live_jankd_diag "$LIVE_TMP/status.txt"
