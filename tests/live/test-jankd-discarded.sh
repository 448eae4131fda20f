# SPDX-License-Identifier: MIT
# tests/live/test-jankd-discarded.sh: events the tracer discards are counted.
#
# A channel with tiny buffers in discard mode, and a burst of 40,000 events:
# lttng-ust drops some. jankd must count exactly what the tracer says it
# dropped, and show it in `jankctl status` and in the STATUS= line.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_init
[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
live_require_jankd
live_start_sessiond --no-kernel
live_start_relayd

plan 3

session=jankd-discarded-$$
sock=$LIVE_TMP/control
live_lttng create "$session" --live=1000000 \
	--set-url="net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT" &&
	live_lttng enable-channel --userspace --session="$session" --subbuf-size=4096 \
		--num-subbuf=2 --discard tiny &&
	live_lttng enable-event --userspace --session="$session" --channel=tiny 'jank:*' &&
	live_lttng add-context --userspace --session="$session" --channel=tiny \
		-t vpid -t vtid -t procname &&
	live_lttng start "$session" || live_bail "cannot create the live session"
cat >"$LIVE_TMP/jankd.conf" <<CONF
[live]
url = $(live_url "$session")
[daemon]
control-socket = $sock
[action frame]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 1s
CONF
live_start_jankd --config "$LIVE_TMP/jankd.conf" --log-target=stderr
live_wait_jankd "$sock"

"$LIVE_DEMO" --count 20000 --slow-every 0 --normal 1us --interval 0ns \
	>"$LIVE_TMP/demo.out" 2>&1 9>&-
lttng stop "$session" >/dev/null 2>&1 9>&-
# All delivered: what jankd read stops growing.
prev=-1
for _ in $(seq 50); do
	cur=$(live_jankd_status "$sock" '.inputs[0].events_read')
	[ "$cur" = "$prev" ] && break
	prev=$cur
	sleep 0.4
done
tracer=$(lttng list "$session" 9>&- 2>/dev/null | awk '/Discarded events:/ { n += $3 } END { print n + 0 }')
ours=$(live_jankd_status "$sock" '.discarded_events')
input=$(live_jankd_status "$sock" '.inputs[0].discarded_events')
diag "the tracer discarded $tracer events; jankd counted $ours"
if [ "$tracer" -gt 0 ]; then
	check "jankd counts the discarded events the tracer reports ($tracer)" [ "$ours" = "$tracer" ]
else
	skip "jankd counts the discarded events the tracer reports" "the tracer dropped nothing this time"
fi
check "per input too" [ "$input" = "$ours" ]
"$LIVE_JANKCTL" status --socket "$sock" >"$LIVE_TMP/status.txt" 2>&1
check "jankctl status (text) shows them" grep -q "discarded events $ours\$" "$LIVE_TMP/status.txt"
