# SPDX-License-Identifier: MIT
# tests/live/test-jankd-discarded.sh: events the tracer discards are counted.
#
# A channel with tiny buffers in discard mode, and a burst of 40,000 events:
# lttng-ust drops some. jankd must count exactly what the tracer says it
# dropped, and show it in `jankctl status` and in the STATUS= line.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_setup_jankd

plan 3

session=jankd-discarded-$$
live_lttng create "$session" --live=1000000 \
	--set-url="net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT" &&
	live_lttng enable-channel --userspace --session="$session" --subbuf-size=4096 \
		--num-subbuf=2 --discard tiny &&
	live_lttng enable-event --userspace --session="$session" --channel=tiny 'jank:*' &&
	live_lttng add-context --userspace --session="$session" --channel=tiny \
		-t vpid -t vtid -t procname &&
	live_lttng start "$session" || live_bail "cannot create the live session"
live_jankd_conf "$(live_url "$session")" frame 1s </dev/null
live_run_jankd --log-target=stderr

live_demo "$LIVE_TMP/demo.out" --count 20000 --slow-every 0 --normal 1us --interval 0ns
lttng stop "$session" >/dev/null 2>&1 9>&-
# All delivered: what jankd read stops growing (looked at 1.2 s apart: while
# events come, a worker sends its counters once a second).
prev=-1
for _ in $(seq 25); do
	cur=$(live_jankd_status '.inputs[0].events_read')
	[ "$cur" = "$prev" ] && break
	prev=$cur
	sleep 1.2
done
tracer=$(lttng list "$session" 9>&- 2>/dev/null | awk '/Discarded events:/ { n += $3 } END { print n + 0 }')
ours=$(live_jankd_status '.discarded_events')
input=$(live_jankd_status '.inputs[0].discarded_events')
diag "the tracer discarded $tracer events; jankd counted $ours"
if [ "$tracer" -gt 0 ]; then
	check "jankd counts the discarded events the tracer reports ($tracer)" [ "$ours" = "$tracer" ]
else
	skip "jankd counts the discarded events the tracer reports" "the tracer dropped nothing this time"
fi
check "per input too" [ "$input" = "$ours" ]
"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" >"$LIVE_TMP/status.txt" 2>&1
check "jankctl status (text) shows them" grep -q "discarded events $ours\$" "$LIVE_TMP/status.txt"
