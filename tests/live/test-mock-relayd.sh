# SPDX-License-Identifier: MIT
# tests/live/test-mock-relayd.sh: jankd's live input against mock-relayd,
# a relayd of the test's own (tests/live/mock-relayd.c) serving a trace
# jank-gen wrote (tests/live/mock-lib.sh describes it): what a relayd
# sends when all goes well, and what a real one rarely sends on demand.
# No root, no lttng daemon: it runs everywhere.
#
#   normal       the four janks alerted, exactly, and the same as jankctl
#                analyze finds offline; the input's time is the trace's end
#                (the beacons of idle streams carry it), nothing overdue
#   metadata     the metadata in replies of 100 bytes: the same alerts
#   late stream  CPU 1's stream appears after five packets (the "new
#                stream" flag, then GET_NEW_STREAMS): the same alerts
#   no streams   a session without a stream for 3 s: attached and ready
#                meanwhile; then the streams come, and the alerts
#   beacons      idle streams send inactivity beacons 10 s past the trace's
#                end: the action left open is overdue at once, on the
#                trace's time (trace_now is the beacons'), with no wall
#                clock waited
#   metadata grows
#                an application registers its events late: the metadata
#                says them only after five packets (relayd's "new metadata"
#                flag, then GET_METADATA): the rule on them alerts too
#   refused      a clock of 500 MHz, which the native decoder does not
#                take: [live] decoder = auto reads the session through
#                babeltrace2, said once in the log and the status
#   domains      a session of two traces, kernel and user space (the demo
#                trace): the slow frames' paths through other threads, the
#                disk, a flow and functions, the same as jankctl analyze's
#
# Each case runs with the decoder JANK_LIVE_DECODER says ([live] decoder;
# unset: auto, the native one on these traces); test-mock-relayd-bt2.sh
# runs it all again with babeltrace2's.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"
. "$top_srcdir/tests/live/mock-lib.sh"

mock_init

plan 33

decoder=${JANK_LIVE_DECODER:-auto}
reader=native
[ "$decoder" != babeltrace2 ] || reader=babeltrace2

janks="completed name=frame,id=5
completed name=frame,id=10
completed name=frame,id=15
completed name=frame,id=20"

# janks_alerted: the four janks, in order, and nothing else.
janks_alerted() {
	[ "$(mock_alerts)" = "$janks" ]
}

# wait_janks: until four alerts came (10 s), and 1 s more for any extra.
wait_janks() {
	live_wait_for 10 '[ "$(mock_alert_count)" -ge 4 ]' || true
	sleep 1
}

# ---- normal ----
mock_start normal
mock_jankd </dev/null
live_wait_jankd
wait_janks
check "normal: the four janks alerted, exactly (got $(mock_alerts | tr '\n' ' '))" janks_alerted
mock_wait_input 5 '"\(.events_read) \(.trace_now)"' "41 $MOCK_END" || true
got=$(mock_input '"\(.events_read) \(.trace_now) \(.state) \(.overdue)"')
check "normal: 41 events read, the input's time the trace's end, connected, nothing overdue (got $got)" \
	[ "$got" = "41 $MOCK_END connected 0" ]
"$LIVE_JANKCTL" analyze --config "$LIVE_JANKD_CONF" --format json "$MOCK_TRACE" \
	>"$LIVE_TMP/analyze.out" 2>"$LIVE_TMP/analyze.err"
normalize() {
	live_quote_times "$1" | "$JQ" -S -c 'select(.type == "action") | del(.host, .session)' | sort
}
normalize "$LIVE_TMP/jankd.out" >"$LIVE_TMP/live.json"
normalize "$LIVE_TMP/analyze.out" >"$LIVE_TMP/offline.json"
check "normal: the alerts are those of jankctl analyze on the same trace, field for field" \
	[ -s "$LIVE_TMP/live.json" -a "$(wc -l <"$LIVE_TMP/offline.json")" = 4 ] &&
	cmp -s "$LIVE_TMP/live.json" "$LIVE_TMP/offline.json"
check "normal: the mock served the 21 packets to one viewer, attached once" \
	[ "$(grep -c 'attached to session' "$MOCK_LOG")" = 1 ]
check "normal: decoder $decoder: the $reader decoder reads it (got $(mock_input .decoder))" \
	[ "$(mock_input '"\(.decoder) \(.decoder_note // "")"')" = "$reader " ]
mock_stop
check "normal: the summary counts 20 actions and 4 janks" \
	grep -q '^jankd: summary: frame: 20 actions, 4 janks' "$MOCK_ERR"

# ---- the metadata in pieces ----
mock_start metadata --metadata-chunk 100
mock_jankd </dev/null
live_wait_jankd
wait_janks
check "metadata in replies of 100 bytes: the four janks alerted, exactly" janks_alerted
check "metadata: the mock sent it in pieces (got: $(grep -o 'metadata: .*' "$MOCK_LOG"))" \
	grep -q ': metadata: [0-9]* bytes in [2-9][0-9] replies' "$MOCK_LOG"
mock_stop

# ---- a stream that appears later ----
mock_start late --late channel0_1 --late-after 5
mock_jankd </dev/null
live_wait_jankd
wait_janks
check "late stream: the four janks alerted, exactly (got $(mock_alerts | tr '\n' ' '))" janks_alerted
check "late stream: the mock announced it once, after five packets" \
	[ "$(grep -c ': 1 new streams' "$MOCK_LOG")" = 1 ]
mock_stop

# ---- a session without streams, for a while ----
mock_start nostreams --no-streams 3000
mock_jankd </dev/null
live_wait_jankd
check "no streams yet: attached and ready, no event read" \
	[ "$(mock_input '"\(.state) \(.events_read)"')" = "connected 0" ]
wait_janks
check "no streams, then the streams: the four janks alerted, exactly" janks_alerted
check "no streams, then the streams: no disconnection on the way" \
	[ "$(mock_input .disconnects)" = 0 ]
mock_stop

# ---- beacons move the input's time ----
beacon=$((MOCK_END + 10000000000))
started=$(date +%s)
mock_start beacons --beacon-offset 10000000000
mock_jankd <<CONF
[graph]
overdue-grace = 1s
CONF
live_wait_jankd
live_wait_for 10 '[ "$(mock_alert_count)" -ge 5 ]' || true
sleep 1
check "beacons: the action left open (id 21) is alerted overdue, once, after the four janks" \
	[ "$(mock_alerts)" = "$janks
overdue name=frame,id=21" ]
check "beacons: trace_now is the beacons' time, 10 s past the trace's last event" \
	[ "$(mock_input '"\(.trace_now) \(.last_event_ns)"')" = "$beacon $MOCK_END" ]
took=$(($(date +%s) - started))
check "beacons: the overdue alert is on the trace's time: open 10 s, in $took s of wall clock" \
	[ "$("$JQ" -r 'select(.kind == "overdue") | .duration_ns' "$LIVE_TMP/jankd.out")" = 10000000000 \
	-a "$took" -lt 10 ]
mock_stop

# ---- metadata that grows: event classes registered later ----
single=$MOCK_TRACE
{
	grep '^@' "$LIVE_TMP/trace.txt"
	{
		grep -v '^@' "$LIVE_TMP/trace.txt"
		echo "1150500000 0 app:late_begin vpid=100 vtid=100 procname=\"app\" id=1"
		echo "1156500000 0 app:late_end vpid=100 vtid=100 procname=\"app\" id=1"
	} | sort -s -n -k1,1
} >"$LIVE_TMP/grow.txt"
"$MOCK_GEN" "$LIVE_TMP/grow.txt" "$LIVE_TMP/grow" 2>"$LIVE_TMP/gen.err" ||
	live_bail "jank-gen failed" "$LIVE_TMP/gen.err"
MOCK_TRACE=$LIVE_TMP/grow
mock_start grow --metadata-hold app:late_begin --late-after 5
MOCK_TRACE=$single
mock_jankd <<CONF
[action late]
begin = app:late_begin
end = app:late_end
key = id
threshold = 2ms
CONF
live_wait_jankd
live_wait_for 10 '[ "$(mock_alert_count)" -ge 5 ]' || true
sleep 1
check "metadata grows: the rule on the late classes alerts too (got $(mock_alerts | tr '\n' ' '))" \
	[ "$(mock_alerts | sort)" = "$(printf '%s\ncompleted id=1\n' "$janks" | sort)" ]
got=$(mock_input '"\(.events_read) \(.decoder) \(.disconnects)"')
if [ "$reader" = native ]; then
	check "metadata grows: 43 events read, by the native decoder, no reconnection (got $got)" \
		[ "$got" = "43 native 0" ]
else
	# babeltrace2 2.0 fails on plain-text metadata (the mock's) that grows,
	# and reconnects: LTTng's own metadata is in packets.
	check "metadata grows: read by babeltrace2 (got $got)" [ "$(echo "$got" | cut -d" " -f2)" = babeltrace2 ]
fi
check "metadata grows: the mock held the late classes back, then sent them" \
	[ "$(grep -c ': metadata: [0-9]* bytes in' "$MOCK_LOG")" -ge 2 ]
mock_stop

# ---- a trace the native decoder refuses: a clock of 500 MHz ----
mkdir "$LIVE_TMP/slow"
cp "$MOCK_TRACE"/* "$LIVE_TMP/slow/"
sed -i 's/freq = 1000000000;/freq = 500000000;/' "$LIVE_TMP/slow/metadata"
MOCK_TRACE=$LIVE_TMP/slow
mock_start refused
MOCK_TRACE=$single
mock_jankd </dev/null
live_wait_jankd
live_wait_for 10 '[ "$(mock_alert_count)" -ge 4 ]' || true
sleep 1
fallbacks=$(mock_logged ': read through babeltrace2: .*1 GHz')
got=$(mock_input '"\(.decoder) \(.decoder_note // "" | test("1 GHz"))"')
case $decoder in
auto)
	check "refused: auto: the four janks alerted, through babeltrace2" janks_alerted
	check "refused: auto: said once in the log (got $fallbacks)" [ "$fallbacks" = 1 ]
	check "refused: auto: and in the status (got $got)" [ "$got" = "babeltrace2 true" ] ;;
babeltrace2)
	check "refused: babeltrace2: the four janks alerted" janks_alerted
	check "refused: babeltrace2: no fallback to say (got $fallbacks)" [ "$fallbacks" = 0 ]
	check "refused: babeltrace2: status (got $got)" [ "$got" = "babeltrace2 false" ] ;;
native)
	check "refused: native: nothing alerted" [ "$(mock_alert_count)" = 0 ]
	check "refused: native: the reason, logged once" \
		[ "$(mock_logged 'cannot attach: .*1 GHz')" = 1 ]
	check "refused: native: status (got $got)" [ "$got" = "native false" ] ;;
esac
mock_stop

# ---- a session of both domains: a kernel trace and a user-space one ----
# The demo trace (tests/data/demo/demo-trace.sh), as one live session of
# two traces (each its own metadata stream and ctf_trace_id), as lttng makes
# it with a kernel and a ust channel: jankd follows the frames' critical
# paths through the scheduler's events, into the db thread's disk wait, and
# through the flow pool into the pool's functions.
# The binary its functions come from, where jankd's workers (jank-worker
# when run as root) can open it: the build tree may be under root's 0700
# home, and this session's host is none of this machine's (no binary opener).
demo_bin=$top_builddir/probes/.libs/jank-demo
[ -f "$demo_bin" ] || demo_bin=$top_builddir/probes/jank-demo
mkdir -m 0755 "$LIVE_TMP/bin"
cp "$demo_bin" "$LIVE_TMP/bin/jank-demo"
chmod 0755 "$LIVE_TMP/bin/jank-demo"
chmod 0711 "$LIVE_TMP"
sh "$top_srcdir/tests/data/demo/demo-trace.sh" "$LIVE_TMP" "$LIVE_TMP/bin/jank-demo"
"$MOCK_GEN" "$LIVE_TMP/kernel.script" "$LIVE_TMP/demo-kernel" 2>"$LIVE_TMP/gen.err" &&
	"$MOCK_GEN" "$LIVE_TMP/ust.script" "$LIVE_TMP/demo-ust" 2>>"$LIVE_TMP/gen.err" ||
	live_bail "jank-gen failed on the demo trace" "$LIVE_TMP/gen.err"
single=$MOCK_TRACE
MOCK_TRACE=$LIVE_TMP/demo-ust
mock_start domains "$LIVE_TMP/demo-kernel"
MOCK_TRACE=$single
MOCK_URL=net://127.0.0.1:$MOCK_PORT/host/demo-host/mock
mock_jankd <<CONF
[graph]
functions = yes
[action frame]
threshold = 16ms
[flow pool]
from = jank:flow_from
to = jank:flow_to
key = vpid, name, key
CONF
live_wait_jankd
live_wait_for 10 '[ "$(mock_alert_count)" -ge 3 ]' || true
sleep 1
check "domains: the three slow frames alerted (got $(mock_alerts | tr '\n' ' '))" \
	[ "$(mock_alerts)" = "completed name=frame,id=15
completed name=frame,id=18
completed name=frame,id=20" ]
path20=$(mock_alerts 'select(.key == "name=frame,id=20") | .critical_path[] | "\(.tid) \(.state) \(.flow // "") \(.stack // [] | join(","))"' 2>/dev/null | tr '\n' '|')
check "domains: frame 20's path goes through the flow pool to the pool's thread, in work_cpu (got $path20)" \
	[ -n "$(echo "$path20" | grep -E '4390 running pool [^|]*work_cpu')" ]
"$LIVE_JANKCTL" analyze --config "$LIVE_JANKD_CONF" --format json "$LIVE_TMP/demo-kernel" \
	"$LIVE_TMP/demo-ust" >"$LIVE_TMP/analyze.out" 2>"$LIVE_TMP/analyze.err"
normalize "$LIVE_TMP/jankd.out" >"$LIVE_TMP/live.json"
normalize "$LIVE_TMP/analyze.out" >"$LIVE_TMP/offline.json"
check "domains: the alerts are those of jankctl analyze on the two traces, field for field" \
	[ -s "$LIVE_TMP/live.json" -a "$(wc -l <"$LIVE_TMP/offline.json")" = 3 ] &&
	cmp -s "$LIVE_TMP/live.json" "$LIVE_TMP/offline.json"
mock_stop
