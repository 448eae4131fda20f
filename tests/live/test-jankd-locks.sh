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

live_require_pthread_wrapper
live_setup_jankd

plan 6

session=jankd-locks-$$
live_create_session "$session"
live_lttng enable-event --userspace --session="$session" 'lttng_ust_pthread:*' ||
	live_bail "cannot record the pthread wrapper's events"
live_jankd_conf "$(live_url "$session")" frame 20ms </dev/null
live_run_jankd --log-target=json

LD_PRELOAD=$LIVE_PTHREAD_WRAPPER live_demo "$LIVE_TMP/demo.out" --cause lock --count 10 \
	--slow-every 5 --normal 2ms --slow 40ms --interval 5ms
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
check "jankctl analyze reads what relayd stored" live_analyze_relayd
paths() {
	live_quote_times "$1" | "$JQ" -S -c 'select(.type == "action") | [.key, .critical_path]' | sort
}
paths "$out" >"$LIVE_TMP/live.paths"
paths "$LIVE_TMP/analyze.out" >"$LIVE_TMP/offline.paths"
check "the recorded run gives the same paths as the live run" \
	cmp -s "$LIVE_TMP/live.paths" "$LIVE_TMP/offline.paths"
cmp -s "$LIVE_TMP/live.paths" "$LIVE_TMP/offline.paths" ||
	diff "$LIVE_TMP/live.paths" "$LIVE_TMP/offline.paths" | sed 's/^/#   /' | head -10
live_stop_jankd || true
