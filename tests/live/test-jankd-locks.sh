# SPDX-License-Identifier: MIT
# tests/live/test-jankd-locks.sh: user-space lock contention, live.
#
# jank-demo --cause lock runs under the lttng-ust pthread wrapper in a live
# session with user-space events only. jankd must flag the slow actions, and
# each alert's critical path must name the thread that held the mutex and
# the mutex. The same trace, stored by relayd and analysed afterwards with
# jankctl, must give the very same paths.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

JQ=${JQ:-jq}
wrapper=
for f in /usr/lib/*-linux-gnu/liblttng-ust-pthread-wrapper.so.1 /usr/lib/liblttng-ust-pthread-wrapper.so.1; do
	[ -e "$f" ] && wrapper=$f && break
done

live_init
[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
[ -n "$wrapper" ] || plan_skip_all "liblttng-ust-pthread-wrapper.so.1 not found (liblttng-ust1)"
live_require_jankd
live_start_sessiond --no-kernel
live_start_relayd

plan 6

session=jankd-locks-$$
sock=$LIVE_TMP/control
conf=$LIVE_TMP/jankd.conf
{ live_create_session "$session" &&
	live_lttng enable-event --userspace --session="$session" 'lttng_ust_pthread:*'; } ||
	live_bail "cannot create the live session"
cat >"$conf" <<CONF
[live]
url = $(live_url "$session")
[daemon]
control-socket = $sock
[action frame]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 20ms
CONF
live_start_jankd --config "$conf" --log-target=json
live_wait_jankd "$sock"

LD_PRELOAD=$wrapper "$LIVE_DEMO" --cause lock --count 10 --slow-every 5 --normal 2ms \
	--slow 40ms --interval 5ms >"$LIVE_TMP/demo.out" 2>&1 9>&-
out=$LIVE_TMP/jankd.out
for _ in $(seq 100); do
	[ "$(grep -c '"type":"action"' "$out")" -ge 2 ] && break
	sleep 0.1
done
sleep 1
check "jank-demo ran under the pthread wrapper" grep -q '^done 10$' "$LIVE_TMP/demo.out"
slow=$(awk '$1 == "action" && $5 == "slow" { print "name=frame,id=" $2 }' "$LIVE_TMP/demo.out" |
	tr '\n' ' ')
check "jankd flags exactly the slow actions ($slow)" [ "$("$JQ" -r 'select(.type == "action") |
	.key' "$out" | tr '\n' ' ')" = "$slow" ]
check "each alert's path names the holding thread, through the mutex" [ "$("$JQ" -r '
	select(.type == "action") | [.critical_path[] | select(.lock != null and
	.comm == "jank-holder")] | length > 0' "$out" | sort -u)" = true ]
check "each alert's breakdown has the time waiting for that mutex" [ "$("$JQ" -r '
	select(.type == "action") | (.breakdown.locks | length == 1) and
	(.breakdown.locks[0].ns > 0.8 * .duration_ns)' "$out" | sort -u)" = true ]

live_lttng destroy "$session"
"$LIVE_JANKCTL" analyze --config "$conf" --format json "$LIVE_RELAYD_OUTPUT" \
	>"$LIVE_TMP/analyze.out" 2>"$LIVE_TMP/analyze.err"
check "jankctl analyze reads what relayd stored" [ $? = 0 ]
paths() {
	sed -E 's/"(begin|end)":(-?[0-9]+)/"\1":"\2"/g' "$1" |
		"$JQ" -S -c 'select(.type == "action") | [.key, .critical_path]' | sort
}
paths "$out" >"$LIVE_TMP/live.paths"
paths "$LIVE_TMP/analyze.out" >"$LIVE_TMP/offline.paths"
check "the recorded run gives the same paths as the live run" \
	cmp -s "$LIVE_TMP/live.paths" "$LIVE_TMP/offline.paths"
cmp -s "$LIVE_TMP/live.paths" "$LIVE_TMP/offline.paths" ||
	diff "$LIVE_TMP/live.paths" "$LIVE_TMP/offline.paths" | sed 's/^/#   /' | head -10
kill -TERM "$LIVE_JANKD_PID"
wait "$LIVE_JANKD_PID"
live_forget "$LIVE_JANKD_PID"
