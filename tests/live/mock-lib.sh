# SPDX-License-Identifier: MIT
# tests/live/mock-lib.sh: jankd against mock-relayd (tests/live/mock-relayd.c),
# sourced after tap.sh and lib.sh by test-mock-relayd*.sh.
#
# No root, no lttng daemon, no journald: the mock serves a trace that
# jank-gen wrote, on an ephemeral port of 127.0.0.1, and jankd alerts in
# JSON Lines on stdout (--log-target=json), its messages on stderr.
#
# The trace ($MOCK_TRACE, host jank-fixture): 20 actions "frame", id 1 to
# 20, one every 10 ms from 1.01 s; ids 1-10 on CPU 0, 11-20 on CPU 1; each
# takes 100 us, but every fifth (5, 10, 15, 20) takes 5 ms: with a 2 ms
# threshold, four janks. Then id 21 begins at 1.21 s on CPU 1 and never
# ends. Two events a packet: one packet per action. The trace ends at
# MOCK_END (1.21 s), the last packet's end.
#
# Use: mock_init; plan N; then per case: mock_start ARGS... (mock-relayd
# ARGS... on the trace), mock_jankd <<CONF (jankd on the mock's session,
# the rule frame at 2 ms, CONF merged in as live_jankd_conf does), checks,
# then mock_stop (jankd, checked to exit 0, and the mock).

MOCK_RELAYD=${MOCK_RELAYD:-${top_builddir:-.}/tests/live/mock-relayd}
MOCK_GEN=${MOCK_GEN:-${top_builddir:-.}/tests/gen/jank-gen}
MOCK_END=1210000000
MOCK_CASE=

# mock_init: skip all unless the mock, jank-gen, jankd and jq are there;
# LIVE_TMP (removed at exit) and the trace.
mock_init() {
	local i t cpu d

	[ -n "${top_builddir:-}" ] || plan_skip_all "top_builddir is not set"
	[ -x "$MOCK_RELAYD" ] || plan_skip_all "$MOCK_RELAYD is not built (make -C tests check)"
	[ -x "$MOCK_GEN" ] || plan_skip_all "$MOCK_GEN is not built"
	[ -x "$LIVE_JANKD" ] || plan_skip_all "$LIVE_JANKD is not built"
	[ -x "$LIVE_JANKCTL" ] || plan_skip_all "$LIVE_JANKCTL is not built"
	command -v "$JQ" >/dev/null 2>&1 || plan_skip_all "jq not found (install jq)"
	# As root, jankd's workers become jank-worker (lib.sh); otherwise they stay the test's user.
	[ "$(id -u)" != 0 ] || live_worker_user
	LIVE_TMP=$(mktemp -d "${TMPDIR:-/tmp}/jank-live.XXXXXX") ||
		plan_skip_all "cannot create a temporary directory"
	trap live_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	LIVE_JANKD_SOCK=$LIVE_TMP/control
	LIVE_JANKD_CONF=$LIVE_TMP/jankd.conf
	MOCK_TRACE=$LIVE_TMP/trace
	{
		printf '@trace ust\n@cpus 2\n@context vpid vtid procname:string\n@packet 2\n'
		for i in $(seq 1 20); do
			t=$((1000000000 + i * 10000000))
			cpu=$((i > 10 ? 1 : 0))
			d=100000
			[ $((i % 5)) != 0 ] || d=5000000
			echo "$t $cpu jank:action_begin vpid=100 vtid=$((100 + cpu)) procname=\"app\" name=\"frame\" id=$i"
			echo "$((t + d)) $cpu jank:action_end vpid=100 vtid=$((100 + cpu)) procname=\"app\" name=\"frame\" id=$i"
		done
		echo "$MOCK_END 1 jank:action_begin vpid=100 vtid=101 procname=\"app\" name=\"frame\" id=21"
	} >"$LIVE_TMP/trace.txt"
	"$MOCK_GEN" "$LIVE_TMP/trace.txt" "$MOCK_TRACE" 2>"$LIVE_TMP/gen.err" ||
		live_bail "jank-gen failed" "$LIVE_TMP/gen.err"
}

# mock_start NAME ARGS...: mock-relayd ARGS... on the trace, its log in
# $LIVE_TMP/NAME.mock; MOCK_PID, MOCK_PORT, MOCK_URL. Bails out if it does
# not listen within 5 s.
mock_start() {
	MOCK_CASE=$1
	shift
	MOCK_LOG=$LIVE_TMP/$MOCK_CASE.mock
	rm -f "$LIVE_TMP/port"
	"$MOCK_RELAYD" --port-file "$LIVE_TMP/port" "$@" "$MOCK_TRACE" 2>"$MOCK_LOG" &
	MOCK_PID=$!
	live_track "$MOCK_PID"
	live_wait 5 test -s "$LIVE_TMP/port" || live_bail "mock-relayd did not start" "$MOCK_LOG"
	MOCK_PORT=$(cat "$LIVE_TMP/port")
	MOCK_URL=net://127.0.0.1:$MOCK_PORT/host/jank-fixture/mock
}

# mock_jankd [ARGS...] <<CONF: jankd ARGS... --log-target=json on the mock's
# session (rule frame, threshold 2 ms; CONF merged in); its stdout and
# stderr in $LIVE_TMP/NAME.out and NAME.err.
mock_jankd() {
	live_jankd_conf "$MOCK_URL" frame 2ms
	live_start_jankd --config "$LIVE_JANKD_CONF" --log-target=json "$@"
	MOCK_OUT=$LIVE_TMP/$MOCK_CASE.out
	MOCK_ERR=$LIVE_TMP/$MOCK_CASE.err
}

# The files of the running jankd, named after the case once it stopped.
mock_out() {
	if [ -n "${LIVE_JANKD_PID:-}" ] && live_alive "$LIVE_JANKD_PID"; then
		echo "$LIVE_TMP/jankd.out"
	else
		echo "$MOCK_OUT"
	fi
}

# mock_alerts [JQ_FILTER]: the alerts so far, through jq -r FILTER (default:
# KIND KEY, kind "completed" for an action that ended).
MOCK_ALERT_FILTER='"\(.kind // "completed") \(.key)"'
mock_alerts() {
	"$JQ" -r "${1:-$MOCK_ALERT_FILTER}" "$LIVE_TMP/jankd.out" 2>/dev/null
}

# mock_alert_count: how many alerts jankd wrote so far.
mock_alert_count() {
	wc -l <"$LIVE_TMP/jankd.out"
}

# mock_logged PATTERN: how many of jankd's messages so far match PATTERN.
mock_logged() {
	grep -c -- "$1" "$LIVE_TMP/jankd.err"
}

# mock_input FILTER: the input's status (jankctl status), through jq -r FILTER.
mock_input() {
	live_jankd_status ".inputs[0] | $1"
}

# mock_wait_input SECONDS FILTER VALUE: wait until mock_input FILTER says VALUE.
mock_wait_input() {
	live_wait "$1" mock_input_is "$2" "$3"
}

mock_input_is() {
	[ "$(mock_input "$1")" = "$2" ]
}

# mock_stop: SIGTERM to jankd ("NAME: jankd exits 0" checked) and to the
# mock; their logs as diagnostics when a case of this one failed.
mock_stop() {
	local rc=0

	live_stop_jankd || rc=$?
	check "$MOCK_CASE: jankd exits 0 on SIGTERM (got $rc)" [ "$rc" = 0 ]
	mv "$LIVE_TMP/jankd.out" "$MOCK_OUT"
	mv "$LIVE_TMP/jankd.err" "$MOCK_ERR"
	live_stop_pid "$MOCK_PID"
	if [ "$_tap_failed" = 1 ] && [ -z "${MOCK_SHOWN:-}" ]; then
		MOCK_SHOWN=1
		diag "$MOCK_CASE: jankd's messages:"
		sed 's/^/#   /' "$MOCK_ERR"
		diag "$MOCK_CASE: its alerts:"
		sed 's/^/#   /' "$MOCK_OUT" | cut -c1-200
		diag "$MOCK_CASE: mock-relayd's log:"
		tail -n 30 "$MOCK_LOG" | sed 's/^/#   /'
	fi
}
