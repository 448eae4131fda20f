# SPDX-License-Identifier: MIT
# tests/live/test-locks.sh: user-space lock contention, recorded for real.
#
# jank-demo --cause lock runs under the lttng-ust pthread wrapper
# (liblttng-ust-pthread-wrapper.so preloaded) in a user-space-only session
# of a private lttng-sessiond. jankctl analyze must flag the slow actions,
# and each path must name the thread that held the mutex and the mutex.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_init
live_require_demo
live_require_pthread_wrapper
live_start_sessiond --no-kernel
plan 6

trace=$LIVE_TMP/trace
session=jank-locks-$$
out=$LIVE_TMP/demo.out
if live_lttng create "$session" --output="$trace" &&
	live_lttng enable-event --userspace --session="$session" 'lttng_ust_pthread:*' &&
	live_start_session "$session"; then
	"$top_builddir/libtool" --mode=execute env LD_PRELOAD="$LIVE_PTHREAD_WRAPPER" "$LIVE_DEMO" \
		--cause lock --count 10 --slow-every 5 --normal 2ms --slow 40ms --interval 5ms \
		> "$out" 2> "$out.err" 9>&-
	live_lttng stop && live_lttng destroy "$session"
fi
check "jank-demo ran under the pthread wrapper" grep -q '^done 10$' "$out"

live_conf_rule frame "threshold = 20ms" >"$LIVE_TMP/locks.conf"
json=$("$top_builddir/jankctl/jankctl" analyze --config "$LIVE_TMP/locks.conf" --format json \
	"$trace" 2> "$LIVE_TMP/jankctl.err")
check "jankctl analyze reads the trace" [ -n "$json" ]
slow=$(awk '$1 == "action" && $5 == "slow" { print "name=frame,id=" $2 }' "$out" | tr '\n' ' ')
got=$(echo "$json" | "$JQ" -r 'select(.type == "action") | .key' | tr '\n' ' ')
check "the slow actions and only they are flagged ($slow)" [ "$got" = "$slow" ]
holders=$(echo "$json" | "$JQ" -r 'select(.type == "action") |
	[.critical_path[] | select(.lock != null and .comm == "jank-holder")] | length > 0' | sort -u)
check "every flagged path names the holder thread, through a lock" [ "$holders" = true ]
locks=$(echo "$json" | "$JQ" -r 'select(.type == "action") | .breakdown.locks | length' | sort -u)
check "the breakdown shows the time waiting per lock" [ "$locks" = 1 ]
# The time waiting for the lock is most of each slow action.
share=$(echo "$json" | "$JQ" -r 'select(.type == "action") |
	(.breakdown.locks[0].ns / .duration_ns > 0.8)' | sort -u)
check "the lock wait is most of each slow action" [ "$share" = true ]
[ -s "$LIVE_TMP/jankctl.err" ] && sed 's/^/# /' "$LIVE_TMP/jankctl.err"
echo "$json" | "$JQ" -c 'select(.type == "action") | [.key, .duration_ns, [.critical_path[] | [.comm, .state, .end - .begin, .lock]]]' | sed 's/^/# /'
