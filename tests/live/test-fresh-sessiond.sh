# SPDX-License-Identifier: MIT
# tests/live/test-fresh-sessiond.sh: a session daemon that has just started
# is never taken for dead.
#
# As after a boot or an upgrade of the tracing stack: lttng-sessiond starts
# right before jankd, which creates its live session ([live] create = yes)
# and a rotating capture session rotated every second; jank-demo makes a
# slow action every other one (JANK_FRESH_ACTIONS actions, half of them
# janks, each a rotation capture). The keeper's probes and the capturer's
# rotations meet in lttng-ctl all along. Each of JANK_FRESH_RUNS runs (a new
# lttng-sessiond, relayd and jankd each) must end with: no line saying
# lttng-sessiond or the live session is gone, no live session made again,
# no failed capture, and every jank alerted.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

RUNS=${JANK_FRESH_RUNS:-3}
ACTIONS=${JANK_FRESH_ACTIONS:-40}
JANKS=$((ACTIONS / 2))

live_isolate
live_init
live_require_demo
live_require_jankd

plan $((RUNS * 5))

# run N: one run, with daemons of its own.
run() {
	local n=$1 caps=$LIVE_TMP/captures-$1 err lines session=fresh-$$-$1

	live_start_sessiond --no-kernel
	live_start_relayd
	live_jankd_conf --capture rotation "$caps" "" frame 20ms <<CONF
[live]
create = yes
session = $session
relayd = net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT
relayd-live-port = $LIVE_RELAYD_LIVE_PORT
timer = 100ms
[alerts]
rate-limit = 1000/10s
[capture]
rotation-period = 1s
retention = 1s
CONF
	live_run_jankd --log-target=stderr
	live_demo "$LIVE_TMP/demo-$n.out" --cause sleep --count "$ACTIONS" --slow-every 2 \
		--normal 1ms --slow 40ms --interval 60ms
	live_wait_for 15 '[ "$(grep -c "^JANK frame" "$LIVE_TMP/jankd.err")" -ge "$JANKS" ]' || true
	# Captures in flight end, and what a false conclusion would do shows.
	sleep 2
	live_stop_jankd
	err=$LIVE_TMP/jankd-$n.err
	cp "$LIVE_TMP/jankd.err" "$err"
	lines=$(grep -cE "cannot reach lttng-sessiond|is gone from lttng-sessiond|created the live session '[^']*' again" "$err")
	check "run $n: no line takes lttng-sessiond or the live session for gone ($lines)" \
		[ "$lines" = 0 ]
	lines=$(grep -c "capture failed" "$err")
	check "run $n: no capture failed ($lines)" [ "$lines" = 0 ]
	# The slow actions are the odd ids (a normal one slowed by a loaded
	# machine may be alerted too: not this test's business).
	lines=$(sed -n 's/^JANK frame \[name=frame,id=\([0-9]*[13579]\)\].*/\1/p' "$err" | sort -u | wc -l)
	check "run $n: every jank alerted ($lines of $JANKS)" [ "$lines" = "$JANKS" ]
	lines=$(ls "$caps" | grep -cE '^[0-9]{8}T')
	check "run $n: captures were taken ($lines)" [ "$lines" -gt 0 ]
	check "run $n: lttng-sessiond is the one started" live_alive "$LIVE_SESSIOND_PID"
	if [ "$_tap_failed" = 1 ]; then
		grep -vE '^JANK|^  ' "$err" | head -30 | sed 's/^/#   /'
	fi
	live_stop_relayd
	live_stop_sessiond
	rm -f "$LIVE_RUNDIR/lttng-sessiond.pid"
}

for n in $(seq "$RUNS"); do
	run "$n"
done
