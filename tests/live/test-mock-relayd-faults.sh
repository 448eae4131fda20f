# SPDX-License-Identifier: MIT
# tests/live/test-mock-relayd-faults.sh: jankd's live input when relayd
# misbehaves, on demand, with mock-relayd (tests/live/mock-relayd.c) and
# the trace of tests/live/mock-lib.sh. No root, no lttng daemon.
#
#   close        relayd closes the connection after 12 packets: the loss
#                is logged once, the input reconnects, and every jank is
#                still alerted, once
#   vanish       the session is destroyed after 12 packets: "session
#                missing" in status, said once in the log
#   stall        a reply stops halfway, the connection open (the idle
#                streams' beacons advancing until then): the worker is
#                blocked, status says since when the input is stalled
#   quiet        relayd answers, with nothing new (no packet, and the
#                beacons of the idle stream wait for the other's data) for
#                9 s (a stall is said after 4 s: a window wide enough for a
#                loaded machine): stalled, then resumed, every jank alerted
#   stall at attach
#                the session list stops halfway: the blocked worker is
#                replaced after worker-timeout, and the new one attaches
#   memory       a second input whose trace is crafted to take memory (its
#                events' payload begins with an array of 100,000,000
#                bytes: babeltrace2 makes a field of each element when it
#                reads an event), JANK_WORKER_MEMORY_MAX=256M: its worker
#                goes past its limit while reading, is said to have run out
#                of memory and restarted, again and again; jankd and the
#                first input go on (every jank alerted, its worker never
#                restarted)
#   malformed    replies with wrong sizes or statuses: a clear error, once;
#                jankd runs on (babeltrace2 may abort the worker on some:
#                the worker is a process of its own, its death is logged)
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"
. "$top_srcdir/tests/live/mock-lib.sh"

mock_init

plan 49

janks="completed name=frame,id=5
completed name=frame,id=10
completed name=frame,id=15
completed name=frame,id=20"

janks_alerted() {
	[ "$(mock_alerts)" = "$janks" ]
}

# The janks, and nothing else but the open action overdue (beacons that
# advance move the input's time past its threshold).
janks_among_alerts() {
	[ "$(mock_alerts | grep -v '^overdue name=frame,id=21$')" = "$janks" ]
}

# ---- relayd closes the connection mid-trace ----
mock_start close --after-packets 12 --then close
mock_jankd </dev/null
live_wait_for 10 '[ "$(mock_alert_count)" -ge 4 ]' || true
mock_wait_input 5 '"\(.state) \(.disconnects) \(.reconnects)"' "connected 1 1" || true
# A close with a request of the viewer unread reaches it as a reset; one
# that comes before the request, as the end of the connection.
check "close: the loss is logged once" [ "$(mock_logged \
	': lost the live session: .*\(closed connection\|closed the connection\|Connection reset by peer\); reconnecting')" = 1 ]
check "close: then the reconnection, once" [ "$(mock_logged ': reconnected$')" = 1 ]
got=$(mock_input '"\(.state) \(.disconnects) \(.reconnects)"')
check "close: status connected, 1 disconnect, 1 reconnect (got $got)" [ "$got" = "connected 1 1" ]
check "close: the mock closed the connection, and the input attached again" \
	[ "$(grep -c 'fault: close' "$MOCK_LOG")" = 1 -a "$(grep -c 'attached to session' "$MOCK_LOG")" = 2 ]
sleep 1
check "close: every jank alerted, once (got $(mock_alerts | tr '\n' ' '))" janks_alerted
mock_stop

# ---- the session vanishes ----
mock_start vanish --after-packets 12 --then vanish
mock_jankd </dev/null
live_wait_jankd
mock_wait_input 8 '.problem' "session missing" || true
got=$(mock_input '"\(.state) \(.problem) \(.disconnects)"')
check "vanish: status says the session is missing (got $got)" [ "$got" = "reconnecting session missing 1" ]
check "vanish: the log says it once" [ "$(mock_logged ': the live session is gone')" = 1 ]
check "vanish: no error on the way" [ "$(mock_logged 'cannot\|lost the live session')" = 0 ]
check "vanish: the janks of the 12 packets served were alerted (got $(mock_alerts | tr '\n' ' '))" \
	[ "$(mock_alerts)" = "$(echo "$janks" | head -n 2)" ]
mock_stop

# ---- a reply that stalls ----
# Beacons advance until then: the input's time moves, only the stall stops it.
mock_start stall --after-ms 2500 --then stall --beacon-advance yes
mock_jankd <<CONF
[live]
worker-timeout = 60s
CONF
live_wait_jankd
live_wait_for 10 '[ -n "$(mock_input '\''.stalled_since // empty'\'')" ]' || true
check "stall: the mock stopped a reply halfway" grep -q 'fault: stall: conn 1 gets' "$MOCK_LOG"
check "stall: status says since when the input is stalled" [ -n "$(mock_input '.stalled_since // empty')" ]
check "stall: its worker is the one that is silent (blocked on relayd)" \
	[ "$(mock_input '.worker.silent_ns')" -ge 3000000000 ]
check "stall: said once in the log" [ "$(mock_logged ': stalled: ')" = 1 ]
check "stall: the status text says for how long" sh -c \
	'"$1" status --socket "$2" | grep -Eq "stalled for [0-9.]+ [mun]?s \(no event or beacon\)"' \
	sh "$LIVE_JANKCTL" "$LIVE_JANKD_SOCK"
since=$("$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" --format openmetrics |
	awk '/^jank_input_stalled_since_seconds\{/ { print $2 }')
now=$(date +%s)
check "stall: metrics: jank_input_stalled_since_seconds is when it stalled ($since, now $now)" \
	[ -n "$since" ] && [ "${since%.*}" -gt $((now - 60)) ] && [ "${since%.*}" -le "$now" ]
check "stall: the alerts before it were sent" janks_among_alerts
mock_stop

# ---- relayd answers, with nothing new ----
mock_start quiet --after-packets 12 --then quiet --for 9000 --beacon-advance yes
mock_jankd </dev/null
live_wait_jankd
# Seen while it lasts (a second look may come after the input resumed).
stalled_seen=no
live_wait_for 9 '[ -n "$(mock_input ".stalled_since // empty")" ]' && stalled_seen=yes
check "quiet: status says the input is stalled" [ "$stalled_seen" = yes ]
check "quiet: while its worker is not (it hears relayd)" \
	[ "$(mock_input '.worker.silent_ns')" -lt 2000000000 ]
live_wait_for 10 '[ "$(mock_alert_count)" -ge 4 ]' || true
live_wait_for 3 '[ "$(mock_logged '\'': resumed after '\'')" -ge 1 ]' || true
check "quiet: the stall, then its end, are logged once" \
	[ "$(mock_logged ': stalled: ')" = 1 -a "$(mock_logged ': resumed after ')" = 1 ]
check "quiet: every jank alerted once the packets came (got $(mock_alerts | tr '\n' ' '))" \
	janks_among_alerts
check "quiet: no disconnection" [ "$(mock_input .disconnects)" = 0 ]
mock_stop

# ---- a reply that stalls at attach ----
mock_start attach-stall --then stall
mock_jankd <<CONF
[live]
worker-timeout = 3s
CONF
live_wait_for 15 '[ "$(mock_alert_count)" -ge 4 ]' || true
check "stall at attach: the mock stopped the session list halfway" \
	grep -q 'fault: stall: conn 1 gets 171 of the 343 bytes' "$MOCK_LOG"
check "stall at attach: the blocked worker was replaced, once" \
	[ "$(mock_logged 'silent for .*(blocked on relayd?): killed')" = 1 -a \
	"$(mock_input '.worker.timeouts')" = 1 ]
check "stall at attach: its successor attached, and every jank was alerted" \
	[ "$(mock_input .state)" = connected ] && janks_alerted
mock_stop

# ---- a worker past its memory limit, while reading ----
big=$LIVE_TMP/big-trace
cp -r "$MOCK_TRACE" "$big"
sed -i 's/^\tfields := struct {/&\n\t\tinteger { size = 8; align = 8; signed = 0; encoding = none; base = 10; } _jank_big[100000000];/' \
	"$big/metadata"
"$MOCK_RELAYD" --port-file "$LIVE_TMP/port.big" "$big" 2>"$LIVE_TMP/big.mock" &
big_pid=$!
live_track "$big_pid"
live_wait 5 test -s "$LIVE_TMP/port.big" || live_bail "mock-relayd did not start" "$LIVE_TMP/big.mock"
big_url=net://127.0.0.1:$(cat "$LIVE_TMP/port.big")/host/jank-fixture/mock
mock_start memory
# big_input FILTER: the crafted input's status, through jq FILTER.
big_input() {
	live_jankd_status ".inputs[] | select(.url == \"$big_url\") | $1"
}
normal_input() {
	live_jankd_status ".inputs[] | select(.url == \"$MOCK_URL\") | $1"
}
# big_ran_out: restarted at least twice, and the last failure was its
# memory; the status judged ("starts crashes last_error") stays in $big_got.
big_ran_out() {
	big_got=$(big_input '"\(.worker.starts) \(.worker.crashes) \(.worker.last_error)"')
	[ "${big_got%% *}" -ge 3 ] 2>/dev/null &&
		case $big_got in *"ran out of memory: an allocation past its limit failed"*) ;; *) false ;; esac
}
JANK_WORKER_MEMORY_MAX=256M
export JANK_WORKER_MEMORY_MAX
mock_jankd <<CONF
[live]
url = $MOCK_URL, $big_url
CONF
unset JANK_WORKER_MEMORY_MAX
wait_janks
# The first failure of an episode is logged, the next ones counted (status
# says the last); a worker that attached in between begins a new episode.
# The answer judged is the one the wait saw: asking again could meet a
# restarted worker attached, before it reads (last_error null then).
ran_out=no
live_wait 15 big_ran_out && ran_out=yes
got=$big_got
said=$(mock_logged ': worker ran out of memory: an allocation past its limit failed')
if [ "$said" -ge 1 ] && [ $ran_out = yes ]; then
	ok "memory: the crafted input's worker runs out of memory while reading: said, restarted, status says why"
else
	fail "memory: the crafted input's worker runs out of memory while reading: said, restarted, status says why ($said said; starts, crashes, last error: $got)"
fi
check "memory: glib's own message is there too (the allocation it could not make)" \
	grep -q 'GLib-ERROR.*failed to allocate' "$LIVE_TMP/jankd.err"
got=$(normal_input '"\(.state) \(.worker.starts) \(.events_read)"')
if janks_alerted && [ "$got" = "connected 1 41" ]; then
	ok "memory: the other input goes on: every jank alerted, connected, its worker never restarted"
else
	fail "memory: the other input goes on: every jank alerted, connected, its worker never restarted (got $got)"
fi
check "memory: jankd runs on, and answers" live_alive "$LIVE_JANKD_PID"
mock_stop
live_stop_pid "$big_pid"

# ---- malformed replies ----
# malformed NAME KIND AFTER_PACKETS ERROR_PATTERN: jankd on a mock whose KIND
# replies are wrong once AFTER_PACKETS were served; checks: the error (its
# message matching ERROR_PATTERN) logged once, and jankd running on.
malformed() {
	local name=$1 kind=$2 after=$3 pattern=$4 n

	mock_start "$name" --after-packets "$after" --then malformed --malformed "$kind"
	mock_jankd </dev/null
	live_wait_for 5 '[ "$(mock_logged "$pattern")" -ge 1 ]' || true
	sleep 3 # the input retries, a few times
	n=$(mock_logged "$pattern")
	if [ "$n" = 0 ] && [ "$(mock_logged ': worker died of signal')" = 1 ]; then
		# babeltrace2 2.0 asserts on some replies (a packet of 0 bytes).
		diag "$name: the worker died (babeltrace2 aborted): $(grep -m1 'died' "$LIVE_TMP/jankd.err")"
		n=1
	fi
	check "malformed $kind: a clear error, logged once (got $n)" [ "$n" = 1 ]
	check "malformed $kind: jankd runs on, and answers" \
		[ "$(live_alive "$LIVE_JANKD_PID" && mock_input .url)" = "$MOCK_URL" ]
	mock_stop
}
malformed metadata-len metadata-len 0 'cannot attach: .*\(Erroneous response length\|malformed reply: metadata of 0 bytes\); retrying'
malformed index-status index-status 12 'lost the live session: .*cannot read the trace: .*; reconnecting'
malformed index-size index-size 12 'lost the live session: .*cannot read the trace: .*; reconnecting'
malformed packet-len packet-len 12 'lost the live session: .*cannot read the trace: .*; reconnecting'
malformed sessions-count sessions-count 0 'cannot attach: .*\(closed connection\|closed the connection\); retrying'
