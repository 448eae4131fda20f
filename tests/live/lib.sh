# SPDX-License-Identifier: MIT
# tests/live/lib.sh: helpers for live end-to-end tests, sourced after tap.sh.
#
# A live test runs its own lttng-sessiond (and lttng-relayd) as root, with a
# private LTTNG_HOME, and stops exactly the processes it started, by PID.
# A root sessiond always uses the global run directory /var/run/lttng, so two
# cannot run at once: live tests take an exclusive lock for their whole run
# (they queue under `make -j check`), and skip when a sessiond that is not
# theirs is running.
#
# Use:
#   . "$top_srcdir/tests/tap.sh"; . "$top_srcdir/tests/live/lib.sh"
#   live_init                      # skip all unless root + lttng-tools
#   live_start_sessiond --no-kernel
#   plan N
#   live_lttng create ... ; ...    # lttng with the test's LTTNG_HOME
# Cleanup runs at exit (trap). Starting a daemon happens before `plan`: when
# it fails, the test bails out with the daemon's log.
#
# Variables set: LIVE_TMP (private temp dir, removed at exit), LTTNG_HOME,
# LIVE_DEMO (the jank-demo libtool wrapper), LIVE_SESSIOND_PID,
# LIVE_RELAYD_PID, LIVE_RELAYD_CTRL_PORT, LIVE_RELAYD_DATA_PORT,
# LIVE_RELAYD_LIVE_PORT, LIVE_RELAYD_OUTPUT.

LIVE_LOCK=${LIVE_LOCK:-/tmp/jank-live-tests.lock}
LIVE_LOCK_TIMEOUT=${LIVE_LOCK_TIMEOUT:-900}
LIVE_STOP_TIMEOUT=${LIVE_STOP_TIMEOUT:-10}
LIVE_RUNDIR=/var/run/lttng
LIVE_PIDS=
LIVE_TMP=

# Stop with "Bail out!" (an error, not a failed case) and the tail of a log.
live_bail() {
	local log=${2:-}

	if [ -n "$log" ] && [ -f "$log" ]; then
		sed 's/^/# /' "$log" | tail -n 20
	fi
	echo "Bail out! $1"
	exit 1
}

# Skip the whole test unless it can run here; create LIVE_TMP; set the trap.
live_init() {
	local cmd

	[ -n "${top_builddir:-}" ] || plan_skip_all "top_builddir is not set"
	[ "$(id -u)" = 0 ] || plan_skip_all "live tests need root (a root lttng-sessiond)"
	for cmd in lttng lttng-sessiond flock; do
		command -v "$cmd" >/dev/null 2>&1 ||
			plan_skip_all "$cmd not found (install the Debian package lttng-tools)"
	done
	LIVE_DEMO=$top_builddir/probes/jank-demo
	LIVE_TMP=$(mktemp -d "${TMPDIR:-/tmp}/jank-live.XXXXXX") ||
		plan_skip_all "cannot create a temporary directory"
	trap live_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	LTTNG_HOME=$LIVE_TMP/home
	mkdir -p "$LTTNG_HOME"
	export LTTNG_HOME

	# Released when this shell exits; daemons are started with fd 9 closed.
	exec 9>>"$LIVE_LOCK"
	flock -w "$LIVE_LOCK_TIMEOUT" 9 ||
		plan_skip_all "another live test held $LIVE_LOCK for ${LIVE_LOCK_TIMEOUT}s"
}

# True while process $1 exists and is not a zombie (an exited child of ours
# stays a zombie until `wait`, and kill -0 still succeeds on it).
live_alive() {
	local state

	state=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	case "$state" in
	Z* | X* | "") return 1 ;;
	esac
	return 0
}

# live_stop_pid PID: SIGTERM, wait up to LIVE_STOP_TIMEOUT s, then SIGKILL.
live_stop_pid() {
	local pid=$1 i=0

	if live_alive "$pid"; then
		kill -TERM "$pid" 2>/dev/null
		while live_alive "$pid" && [ "$i" -lt $((LIVE_STOP_TIMEOUT * 10)) ]; do
			sleep 0.1
			i=$((i + 1))
		done
		if live_alive "$pid"; then
			diag "pid $pid still running ${LIVE_STOP_TIMEOUT}s after SIGTERM: SIGKILL"
			kill -KILL "$pid" 2>/dev/null
		fi
	fi
	wait "$pid" 2>/dev/null
	live_forget "$pid"
}

# live_track PID: stop PID at cleanup if it still runs (a background child).
live_track() {
	LIVE_PIDS="$LIVE_PIDS $1"
}

# live_forget PID: PID has been waited for; cleanup must not touch it.
live_forget() {
	local p rest=

	for p in $LIVE_PIDS; do
		[ "$p" = "$1" ] || rest="$rest $p"
	done
	LIVE_PIDS=$rest
	return 0
}

# Stop every process this test started, newest first; remove LIVE_TMP.
live_cleanup() {
	local pid order=

	trap '' INT TERM # a second signal must not cut the cleanup short
	for pid in $LIVE_PIDS; do
		order="$pid $order"
	done
	for pid in $order; do
		live_stop_pid "$pid"
	done
	case "$LIVE_TMP" in
	*/jank-live.*) rm -rf "$LIVE_TMP" ;;
	esac
}

# A PID of a root sessiond that this test did not start, if any.
live_foreign_sessiond() {
	local pid

	[ -f "$LIVE_RUNDIR/lttng-sessiond.pid" ] || return 1
	pid=$(cat "$LIVE_RUNDIR/lttng-sessiond.pid" 2>/dev/null)
	[ -n "$pid" ] && live_alive "$pid" || return 1
	echo "$pid"
}

# live_lttng ARGS...: run lttng quietly; on failure, show its output.
live_lttng() {
	local out=$LIVE_TMP/lttng.out

	if lttng "$@" >"$out" 2>&1 9>&-; then
		return 0
	fi
	diag "lttng $* failed:"
	sed 's/^/#   /' "$out"
	return 1
}

# live_start_sessiond [ARGS...]: start lttng-sessiond ARGS in the background
# and wait until it answers `lttng list`. Pass --no-kernel unless the test
# needs the kernel tracer. Skips all when another root sessiond is running.
live_start_sessiond() {
	local log=$LIVE_TMP/sessiond.log pid i

	pid=$(live_foreign_sessiond) &&
		plan_skip_all "a root lttng-sessiond that is not ours is running (pid $pid)"
	lttng-sessiond "$@" >"$log" 2>&1 9>&- &
	LIVE_SESSIOND_PID=$!
	live_track "$LIVE_SESSIOND_PID"
	for i in $(seq 100); do
		live_alive "$LIVE_SESSIOND_PID" ||
			live_bail "lttng-sessiond exited at startup" "$log"
		if lttng list >/dev/null 2>&1 9>&-; then
			diag "lttng-sessiond pid $LIVE_SESSIOND_PID, LTTNG_HOME=$LTTNG_HOME"
			return 0
		fi
		sleep 0.1
	done
	live_bail "lttng-sessiond did not answer within 10s" "$log"
}

live_stop_sessiond() {
	[ -n "${LIVE_SESSIOND_PID:-}" ] && live_stop_pid "$LIVE_SESSIOND_PID"
	LIVE_SESSIOND_PID=
}

# True when something listens on TCP port $1 of 127.0.0.1.
live_port_listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# live_start_relayd [ARGS...]: start lttng-relayd on three free loopback
# ports (control, data, live), writing under LIVE_RELAYD_OUTPUT.
live_start_relayd() {
	local log=$LIVE_TMP/relayd.log base i up p

	command -v lttng-relayd >/dev/null 2>&1 ||
		live_bail "lttng-relayd not found (install the Debian package lttng-tools)"
	command -v ss >/dev/null 2>&1 || live_bail "ss not found (install iproute2)"
	LIVE_RELAYD_OUTPUT=$LIVE_TMP/relayd
	mkdir -p "$LIVE_RELAYD_OUTPUT"
	for _ in 1 2 3 4 5; do
		base=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		if live_port_listening "$base" || live_port_listening $((base + 1)) ||
			live_port_listening $((base + 2)); then
			continue
		fi
		LIVE_RELAYD_CTRL_PORT=$base
		LIVE_RELAYD_DATA_PORT=$((base + 1))
		LIVE_RELAYD_LIVE_PORT=$((base + 2))
		lttng-relayd -C "tcp://127.0.0.1:$LIVE_RELAYD_CTRL_PORT" \
			-D "tcp://127.0.0.1:$LIVE_RELAYD_DATA_PORT" \
			-L "tcp://127.0.0.1:$LIVE_RELAYD_LIVE_PORT" \
			-o "$LIVE_RELAYD_OUTPUT" "$@" >"$log" 2>&1 9>&- &
		LIVE_RELAYD_PID=$!
		live_track "$LIVE_RELAYD_PID"
		for i in $(seq 100); do
			live_alive "$LIVE_RELAYD_PID" || break
			up=0
			for p in $LIVE_RELAYD_CTRL_PORT $LIVE_RELAYD_DATA_PORT \
				$LIVE_RELAYD_LIVE_PORT; do
				live_port_listening "$p" && up=$((up + 1))
			done
			if [ "$up" = 3 ]; then
				diag "lttng-relayd pid $LIVE_RELAYD_PID, ports" \
					"$LIVE_RELAYD_CTRL_PORT/$LIVE_RELAYD_DATA_PORT/$LIVE_RELAYD_LIVE_PORT"
				return 0
			fi
			sleep 0.1
		done
		# Lost a race for a port, or did not come up: try other ports.
		live_stop_pid "$LIVE_RELAYD_PID"
		LIVE_RELAYD_PID=
	done
	live_bail "lttng-relayd did not start on free loopback ports" "$log"
}

live_stop_relayd() {
	[ -n "${LIVE_RELAYD_PID:-}" ] && live_stop_pid "$LIVE_RELAYD_PID"
	LIVE_RELAYD_PID=
}
