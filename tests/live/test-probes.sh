# SPDX-License-Identifier: MIT
# tests/live/test-probes.sh: the `jank` tracepoint provider, end to end.
#
# Traces jank-demo with a private lttng-sessiond, reads the trace with
# babeltrace2, and checks the events against what jank-demo printed: counts,
# fields, contexts, and the duration of the slow actions. Then runs every
# cause of jank-demo, and its option errors.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

BT=${BABELTRACE2:-babeltrace2}
NORMAL_NS=1000000
SLOW_NS=20000000
TOLERANCE_NS=2000000

live_init
live_require_demo
command -v "$BT" >/dev/null 2>&1 || plan_skip_all "$BT not found (install babeltrace2)"
live_start_sessiond --no-kernel

plan 31

# demo OUT ARGS...: run jank-demo, stdout to OUT, stderr to OUT.err; sets
# DEMO_PID and DEMO_RC.
demo() {
	local out=$1

	shift
	"$LIVE_DEMO" "$@" >"$out" 2>"$out.err" 9>&- &
	DEMO_PID=$!
	live_track "$DEMO_PID"
	wait "$DEMO_PID"
	DEMO_RC=$?
	live_forget "$DEMO_PID"
	if [ "$DEMO_RC" != 0 ]; then
		diag "jank-demo $* exited with $DEMO_RC:"
		sed 's/^/#   /' "$out.err"
	fi
}

# bt_records TRACE: one line per jank event:
#   <ts_ns> <event> <vpid> <vtid> <procname> <name> <id or value>
bt_records() {
	"$BT" --clock-cycles "$1" | awk '
	function get(re,    s) {
		if (!match($0, re))
			return "-"
		s = substr($0, RSTART, RLENGTH)
		sub(/^[{,] [a-z_]+ = /, "", s)
		gsub(/"/, "", s)
		return s
	}
	match($0, / jank:[a-z_]+: /) {
		ev = substr($0, RSTART + 1, RLENGTH - 3)
		ts = substr($0, 2, index($0, "]") - 2)
		sub(/^0+/, "", ts)
		num = get("[{,] id = [0-9]+")
		if (num == "-")
			num = get("[{,] value = -?[0-9]+")
		print ts, ev, get("[{,] vpid = [0-9]+"), get("[{,] vtid = [0-9]+"),
			get("[{,] procname = \"[^\"]*\""), get("[{,] name = \"[^\"]*\""), num
	}'
}

# ---- A traced run ----

trace=$LIVE_TMP/trace
session=jank-probes-$$
traced_ok=false
if live_lttng create "$session" --output="$trace" &&
	live_lttng enable-event --userspace 'jank:*' &&
	live_lttng add-context --userspace -t vpid -t vtid -t procname &&
	live_lttng start; then
	demo "$LIVE_TMP/main.out" --cause sleep --count 10 --slow-every 5 \
		--normal 1ms --slow 20ms --interval 1ms
	main_pid=$DEMO_PID
	main_rc=$DEMO_RC
	demo "$LIVE_TMP/unfinished.out" --cause sleep --count 2 --slow-every 0 \
		--normal 1ms --interval 1ms --unfinished --hold 100ms
	unfinished_pid=$DEMO_PID
	unfinished_rc=$DEMO_RC
	live_lttng stop && live_lttng destroy "$session" && traced_ok=true
fi

actions=$(grep -c '^action ' "$LIVE_TMP/main.out" 2>/dev/null)
if $traced_ok && [ "$main_rc" = 0 ] && [ "$actions" = 10 ] &&
	[ "$(tail -n 1 "$LIVE_TMP/main.out")" = "done 10" ]; then
	ok "traced jank-demo --cause sleep: exit 0, 10 actions, done 10"
else
	fail "traced jank-demo --cause sleep: exit 0, 10 actions, done 10"
fi

bt_records "$trace" >"$LIVE_TMP/all.rec" 2>"$LIVE_TMP/bt.err"
awk -v p="$main_pid" '$3 == p' "$LIVE_TMP/all.rec" >"$LIVE_TMP/main.rec"
awk -v p="$unfinished_pid" '$3 == p' "$LIVE_TMP/all.rec" >"$LIVE_TMP/unfinished.rec"
if [ -s "$LIVE_TMP/main.rec" ]; then
	ok "babeltrace2 reads jank events of jank-demo (pid $main_pid) from the trace"
else
	fail "babeltrace2 reads jank events of jank-demo (pid $main_pid) from the trace"
	sed 's/^/#   /' "$LIVE_TMP/bt.err"
fi

count_events() {
	awk -v e="$1" '$2 == e' "$LIVE_TMP/main.rec" | wc -l
}
check "10 jank:action_begin events" [ "$(count_events jank:action_begin)" = 10 ]
check "10 jank:action_end events" [ "$(count_events jank:action_end)" = 10 ]
check "every action event has name = \"frame\"" \
	[ "$(awk '$2 ~ /^jank:action_/ && $6 != "frame"' "$LIVE_TMP/main.rec" | wc -l)" = 0 ]

ids() {
	awk -v e="$1" '$2 == e { print $7 }' "$LIVE_TMP/main.rec" | sort -n | tr '\n' ' '
}
expected_ids="0 1 2 3 4 5 6 7 8 9 "
check "action_begin ids are 0..9" [ "$(ids jank:action_begin)" = "$expected_ids" ]
check "action_end ids are 0..9" [ "$(ids jank:action_end)" = "$expected_ids" ]

check "every event has a vtid context" \
	[ "$(awk '$4 !~ /^[0-9]+$/' "$LIVE_TMP/main.rec" | wc -l)" = 0 ]
check "events come from the worker thread (vtid != vpid, procname jank-worker)" \
	[ "$(awk '$4 == $3 || $5 != "jank-worker"' "$LIVE_TMP/main.rec" | wc -l)" = 0 ]
check "one jank:mark {name = \"jank-demo.start\", value = 10}" \
	[ "$(awk '$2 == "jank:mark" { print $6, $7 }' "$LIVE_TMP/main.rec")" = "jank-demo.start 10" ]

# trace_duration ID: end - begin timestamps of action ID in the main run.
trace_duration() {
	awk -v id="$1" '
	$2 == "jank:action_begin" && $7 == id { b = $1 }
	$2 == "jank:action_end" && $7 == id { e = $1 }
	END { if (b != "" && e != "") printf "%.0f\n", e - b; else print "-" }' "$LIVE_TMP/main.rec"
}

# Each action's traced interval lies inside jank-demo's own measurement.
bad=
while read -r _ id _ _ kind measured; do
	d=$(trace_duration "$id")
	if [ "$d" = - ] || [ "$d" -lt 0 ] || [ "$d" -gt "$measured" ]; then
		bad="$bad $id"
	fi
done <<EOF
$(grep '^action ' "$LIVE_TMP/main.out")
EOF
check "each action's traced duration is within its measured duration${bad:+ (not:$bad)}" \
	[ -z "$bad" ]

for id in 4 9; do
	line=$(awk -v id="$id" '$1 == "action" && $2 == id' "$LIVE_TMP/main.out")
	kind=$(echo "$line" | awk '{ print $5 }')
	measured=$(echo "$line" | awk '{ print $6 }')
	d=$(trace_duration "$id")
	diag "slow action $id: measured ${measured:-?} ns, traced $d ns"
	if [ "$kind" = slow ] && [ "$d" != - ] && [ "$d" -ge "$SLOW_NS" ] &&
		[ $((d > measured ? d - measured : measured - d)) -le "$TOLERANCE_NS" ]; then
		ok "slow action $id: traced begin->end within 2 ms of the measured duration"
	else
		fail "slow action $id: traced begin->end within 2 ms of the measured duration"
	fi
done

if [ "$unfinished_rc" = 0 ] &&
	grep -qx 'unfinished 1 frame sleep normal' "$LIVE_TMP/unfinished.out" &&
	[ "$(tail -n 1 "$LIVE_TMP/unfinished.out")" = "done 1" ] &&
	[ "$(awk '$2 == "jank:action_begin"' "$LIVE_TMP/unfinished.rec" | wc -l)" = 2 ] &&
	[ "$(awk '$2 == "jank:action_end" { print $7 }' "$LIVE_TMP/unfinished.rec")" = 0 ]; then
	ok "--unfinished: the last action begins and never ends"
else
	fail "--unfinished: the last action begins and never ends"
fi

# ---- Every cause ----

for cause in cpu sleep lock io pipe; do
	mkdir -p "$LIVE_TMP/io"
	demo "$LIVE_TMP/$cause.out" --cause "$cause" --count 5 --slow-every 5 \
		--normal 1ms --slow 20ms --interval 1ms --dir "$LIVE_TMP/io"
	short=$(awk -v n="$NORMAL_NS" -v s="$SLOW_NS" '$1 == "action" &&
		(($5 == "slow" && $6 < s) || ($5 == "normal" && $6 < n))' "$LIVE_TMP/$cause.out")
	slow=$(awk '$1 == "action" && $5 == "slow" { print $2 }' "$LIVE_TMP/$cause.out")
	if [ "$DEMO_RC" = 0 ] && [ "$(grep -c '^action ' "$LIVE_TMP/$cause.out")" = 5 ] &&
		[ "$(tail -n 1 "$LIVE_TMP/$cause.out")" = "done 5" ] && [ "$slow" = 4 ] &&
		[ -z "$short" ] && [ -z "$(ls -A "$LIVE_TMP/io")" ]; then
		ok "--cause $cause: completes, and each action lasts at least its duration"
	else
		fail "--cause $cause: completes, and each action lasts at least its duration"
		sed 's/^/#   /' "$LIVE_TMP/$cause.out"
	fi
done

# ---- Usage ----

if "$LIVE_DEMO" --help >"$LIVE_TMP/help.out" 2>&1 9>&- &&
	grep -q '^Usage: jank-demo' "$LIVE_TMP/help.out"; then
	ok "--help exits 0 and prints usage"
else
	fail "--help exits 0 and prints usage"
fi

# bad_usage DESCRIPTION ARGS...: exit 2, one line on stderr, nothing on stdout
# (from jank-demo, or from $BAD_PROG).
bad_usage() {
	local what=$1 rc

	shift
	"${BAD_PROG:-$LIVE_DEMO}" "$@" >"$LIVE_TMP/bad.out" 2>"$LIVE_TMP/bad.err" 9>&-
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$LIVE_TMP/bad.err")" = 1 ] &&
		[ ! -s "$LIVE_TMP/bad.out" ]; then
		ok "$what: exit 2, one line on stderr"
	else
		fail "$what: exit 2, one line on stderr (exit $rc)"
		sed 's/^/#   /' "$LIVE_TMP/bad.err"
	fi
}
bad_usage "unknown option" --bogus
bad_usage "non-numeric --count" --count abc
bad_usage "missing value" --count
bad_usage "unknown cause" --cause disk
bad_usage "duration without a unit" --normal 5
bad_usage "bad duration unit" --slow 5min
bad_usage "stray argument" extra

# jank-load (make bench-live's load): the same parsing, its own checks, its pace.
BAD_PROG=$top_builddir/probes/jank-load
bad_usage "jank-load: non-numeric --rate" --rate fast
bad_usage "jank-load: --slow not shorter than --jank-every" --slow 2s --jank-every 1s
bad_usage "jank-load: option that takes no value" --help=1
BAD_PROG=
"$top_builddir/probes/jank-load" --rate 20000 --duration 300ms --jank-every 100ms --slow 20ms \
	>"$LIVE_TMP/load.out" 2>&1 9>&-
read -r _ events _ <<<"$(grep '^done ' "$LIVE_TMP/load.out")"
check "jank-load: 20,000 events/s for 300 ms emits 6,000 events, 3 slow actions (got ${events:-none}, $(grep -c '^slow ' "$LIVE_TMP/load.out"))" \
	[ "${events:-0}" = 6006 -a "$(grep -c '^slow ' "$LIVE_TMP/load.out")" = 3 ]
