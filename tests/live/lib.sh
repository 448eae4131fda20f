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
# LIVE_KEEP_TMP=1 in the environment keeps LIVE_TMP for a post-mortem.

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
	[ -z "${JANK_SKIP_LIVE:-}" ] || plan_skip_all "JANK_SKIP_LIVE is set (live tests ran in the main build)"
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
	if [ -n "${LIVE_KEEP_TMP:-}" ]; then
		echo "# LIVE_KEEP_TMP: kept $LIVE_TMP"
		return
	fi
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

# ---- journald and jankd (tests/live/test-jankd-*.sh) ----
#
# live_start_journald starts a systemd-journald of the test's own, in a
# private mount namespace (tmpfs on /run/systemd, /run/log and, when it
# exists, /var/log/journal): it neither sees nor disturbs the host's journal,
# and whatever it stored vanishes with it. Programs whose entries it must
# receive run through live_in_journal (nsenter into its namespace, same PID);
# live_journalctl reads it. Where no mount namespace can be made, the host's
# journald is used if one runs, else a journald started for the test (and
# stopped at exit); tests filter entries by fields of their own either way.
#
# Variables set: LIVE_JOURNALD_PID (empty: the host's), LIVE_JOURNAL_NS,
# LIVE_JANKD_PID (live_start_jankd).

LIVE_JOURNALD_BIN=${LIVE_JOURNALD_BIN:-/lib/systemd/systemd-journald}
LIVE_JANKD=${LIVE_JANKD:-${top_builddir:-.}/daemon/jankd}
LIVE_JANKCTL=${LIVE_JANKCTL:-${top_builddir:-.}/jankctl/jankctl}
LIVE_JOURNAL_NS=
LIVE_JOURNALD_PID=

# live_require_jankd: skip all unless jankd, jankctl and jq are there.
live_require_jankd() {
	[ -x "$LIVE_JANKD" ] || plan_skip_all "$LIVE_JANKD is not built (make -C daemon)"
	[ -x "$LIVE_JANKCTL" ] || plan_skip_all "$LIVE_JANKCTL is not built (make -C daemon)"
	command -v "${JQ:-jq}" >/dev/null 2>&1 || plan_skip_all "jq not found (install jq)"
	command -v lttng-relayd >/dev/null 2>&1 ||
		plan_skip_all "lttng-relayd not found (install the Debian package lttng-tools)"
}

# live_require_journald: skip all unless systemd-journald and journalctl are there.
live_require_journald() {
	[ -x "$LIVE_JOURNALD_BIN" ] ||
		plan_skip_all "$LIVE_JOURNALD_BIN not found (install the Debian package systemd)"
	command -v journalctl >/dev/null 2>&1 ||
		plan_skip_all "journalctl not found (install the Debian package systemd)"
}

# live_in_journal COMMAND...: run COMMAND where the test's journald gets its entries.
live_in_journal() {
	if [ -n "$LIVE_JOURNAL_NS" ]; then
		nsenter --mount="$LIVE_JOURNAL_NS" -- "$@"
	else
		"$@"
	fi
}

# live_journalctl ARGS...: journalctl on the test's journal.
live_journalctl() {
	live_in_journal journalctl --no-pager -q "$@"
}

live_start_journald() {
	local log=$LIVE_TMP/journald.log i

	if command -v unshare >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1 &&
		unshare --mount true 2>/dev/null; then
		# unshare and sh exec: $! is journald's PID.
		unshare --mount --propagation private sh -c '
			set -e
			for d in /run/systemd /run/log; do
				mkdir -p "$d"
				mount -t tmpfs -o mode=0755 tmpfs "$d"
			done
			if [ -d /var/log/journal ]; then
				mount -t tmpfs -o mode=0755 tmpfs /var/log/journal
			fi
			mkdir -p /run/systemd/journal
			exec "$0"' "$LIVE_JOURNALD_BIN" >"$log" 2>&1 9>&- &
		LIVE_JOURNALD_PID=$!
		live_track "$LIVE_JOURNALD_PID"
		LIVE_JOURNAL_NS=/proc/$LIVE_JOURNALD_PID/ns/mnt
	elif pidof systemd-journald >/dev/null 2>&1 && [ -S /run/systemd/journal/socket ]; then
		diag "no private mount namespace: using the running journald"
		return 0
	else
		rm -f /run/systemd/journal/socket # left by a journald that is gone
		"$LIVE_JOURNALD_BIN" >"$log" 2>&1 9>&- &
		LIVE_JOURNALD_PID=$!
		live_track "$LIVE_JOURNALD_PID"
	fi
	for i in $(seq 100); do
		live_alive "$LIVE_JOURNALD_PID" || live_bail "systemd-journald exited at startup" "$log"
		if live_in_journal test -S /run/systemd/journal/socket &&
			live_journalctl -n 0 >/dev/null 2>&1; then
			diag "systemd-journald pid $LIVE_JOURNALD_PID${LIVE_JOURNAL_NS:+ (private mount namespace)}"
			return 0
		fi
		sleep 0.1
	done
	live_bail "systemd-journald did not start within 10s" "$log"
}

# live_require_notify_recv: skip all unless tests/live/notify-recv is built.
live_require_notify_recv() {
	LIVE_NOTIFY_RECV=${NOTIFY_RECV:-$top_builddir/tests/live/notify-recv}
	[ -x "$LIVE_NOTIFY_RECV" ] ||
		plan_skip_all "$LIVE_NOTIFY_RECV is not built (make -C tests check)"
}

# live_start_notify_recv SOCKET OUT: a NOTIFY_SOCKET bound at SOCKET, whose
# messages go to OUT (see notify-recv.c); bail out if it does not bind.
live_start_notify_recv() {
	"$LIVE_NOTIFY_RECV" "$1" >"$2" 2>"$2.err" 9>&- &
	live_track $!
	live_wait 5 test -S "$1" || live_bail "notify-recv did not bind $1" "$2.err"
}

# live_wait SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds; false on timeout.
live_wait() {
	local n=$(($1 * 10))

	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# live_create_session NAME: a user-space live session on the test's relayd
# (jank:* events, contexts vpid/vtid/procname, 100 ms live timer), started.
live_create_session() {
	live_lttng create "$1" --live=100000 \
		--set-url="net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT" &&
		live_lttng enable-event --userspace --session="$1" 'jank:*' &&
		live_lttng add-context --userspace --session="$1" -t vpid -t vtid -t procname &&
		live_lttng start "$1"
}

# live_url NAME: the lttng-live URL of session NAME on the test's relayd.
live_url() {
	echo "net://127.0.0.1:$LIVE_RELAYD_LIVE_PORT/host/$(hostname)/$1"
}

# live_restart_relayd: lttng-relayd again, on the ports it had (after a kill).
live_restart_relayd() {
	local log=$LIVE_TMP/relayd2.log i up p

	lttng-relayd -C "tcp://127.0.0.1:$LIVE_RELAYD_CTRL_PORT" \
		-D "tcp://127.0.0.1:$LIVE_RELAYD_DATA_PORT" \
		-L "tcp://127.0.0.1:$LIVE_RELAYD_LIVE_PORT" \
		-o "$LIVE_RELAYD_OUTPUT" >"$log" 2>&1 9>&- &
	LIVE_RELAYD_PID=$!
	live_track "$LIVE_RELAYD_PID"
	for i in $(seq 100); do
		live_alive "$LIVE_RELAYD_PID" || break
		up=0
		for p in $LIVE_RELAYD_CTRL_PORT $LIVE_RELAYD_DATA_PORT $LIVE_RELAYD_LIVE_PORT; do
			live_port_listening "$p" && up=$((up + 1))
		done
		[ "$up" = 3 ] && return 0
		sleep 0.1
	done
	diag "lttng-relayd did not restart on its ports:"
	sed 's/^/#   /' "$log"
	return 1
}

# live_start_jankd ARGS...: start jankd ARGS (through live_in_journal) in
# the background; stdout to $LIVE_TMP/jankd.out, stderr to jankd.err.
live_start_jankd() {
	# Not through live_in_journal: a function would run in a subshell, and $!
	# would be the subshell's PID. nsenter execs: $! is jankd's.
	if [ -n "$LIVE_JOURNAL_NS" ]; then
		nsenter --mount="$LIVE_JOURNAL_NS" -- "$LIVE_JANKD" "$@" \
			>"$LIVE_TMP/jankd.out" 2>"$LIVE_TMP/jankd.err" 9>&- &
	else
		"$LIVE_JANKD" "$@" >"$LIVE_TMP/jankd.out" 2>"$LIVE_TMP/jankd.err" 9>&- &
	fi
	LIVE_JANKD_PID=$!
	live_track "$LIVE_JANKD_PID"
}

# live_jankd_status SOCKET [FILTER]: jankctl status --format json, through jq FILTER.
live_jankd_status() {
	"$LIVE_JANKCTL" status --socket "$1" --format json 2>/dev/null | "${JQ:-jq}" -r "${2:-.}"
}

# live_jankd_attached SOCKET: true once jankd said READY (every input attached).
live_jankd_attached() {
	local st

	# Not a pipe into jq -e: jq 1.6 says yes to an empty input.
	st=$("$LIVE_JANKCTL" status --socket "$1" --format json 2>/dev/null) && [ -n "$st" ] &&
		echo "$st" | "${JQ:-jq}" -e '.ready and all(.inputs[]; .state == "connected")' \
			>/dev/null
}

# live_wait_jankd SOCKET: wait (10 s) until jankd is attached; bail out if it is not.
live_wait_jankd() {
	live_wait 10 live_jankd_attached "$1" && return 0
	live_alive "$LIVE_JANKD_PID" || live_bail "jankd exited" "$LIVE_TMP/jankd.err"
	live_bail "jankd did not attach within 10s" "$LIVE_TMP/jankd.err"
}
