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
# A jankd test starts with live_setup_jankd instead, and writes jankd's config
# with live_jankd_conf (see "journald and jankd" below).
# Cleanup runs at exit (trap). Starting a daemon happens before `plan`: when
# it fails, the test bails out with the daemon's log.
#
# Variables set: LIVE_TMP (private temp dir, removed at exit), LTTNG_HOME,
# LIVE_DEMO (the jank-demo libtool wrapper), JQ (jq), LIVE_SESSIOND_PID,
# LIVE_RELAYD_PID, LIVE_RELAYD_CTRL_PORT, LIVE_RELAYD_DATA_PORT,
# LIVE_RELAYD_LIVE_PORT, LIVE_RELAYD_OUTPUT.
# LIVE_KEEP_TMP=1 in the environment keeps LIVE_TMP for a post-mortem.

LIVE_LOCK=${LIVE_LOCK:-/tmp/jank-live-tests.lock}
LIVE_LOCK_TIMEOUT=${LIVE_LOCK_TIMEOUT:-900}
LIVE_STOP_TIMEOUT=${LIVE_STOP_TIMEOUT:-10}
LIVE_RUNDIR=/var/run/lttng
LIVE_PIDS=
LIVE_TMP=
JQ=${JQ:-jq}

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
	LIVE_JANKD_SOCK=$LIVE_TMP/control
	LIVE_JANKD_CONF=$LIVE_TMP/jankd.conf
	LTTNG_HOME=$LIVE_TMP/home
	mkdir -p "$LTTNG_HOME"
	export LTTNG_HOME

	# Released when this shell exits; daemons are started with fd 9 closed.
	exec 9>>"$LIVE_LOCK"
	flock -w "$LIVE_LOCK_TIMEOUT" 9 ||
		plan_skip_all "another live test held $LIVE_LOCK for ${LIVE_LOCK_TIMEOUT}s"
}

# live_isolate: run this test in namespaces of its own. Call it first, before
# live_init. The test script is run again, as PID 1's child, in private
# mount, UTS, IPC, PID and network namespaces (loopback only), with /proc of
# the new PID namespace and tmpfs on /run (lttng's run directory, journald's
# socket), /dev/shm (lttng-ust's buffers) and /var/log/journal: its
# journald, sessiond and relayd are its own, never the host's, and it needs
# no lock against the other live tests. Every process it started dies with
# its PID namespace, whatever happens to the test. Skips all when such
# namespaces cannot be made here (or without root: live_init says so).
live_isolate() {
	[ -z "${LIVE_ISOLATED:-}" ] || return 0
	[ "$(id -u)" = 0 ] || return 0
	[ -z "${JANK_SKIP_LIVE:-}" ] || return 0
	command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1 ||
		plan_skip_all "unshare or ip not found (install util-linux and iproute2)"
	unshare --mount --uts --ipc --pid --net --fork true 2>/dev/null ||
		plan_skip_all "cannot make mount, UTS, IPC, PID and network namespaces here"
	exec unshare --mount --propagation private --uts --ipc --pid --net --fork \
		env LIVE_ISOLATED=1 LIVE_LOCK="${TMPDIR:-/tmp}/jank-isolated.$$.lock" sh -c '
		set -e
		mount -t proc proc /proc
		mount -t tmpfs -o mode=0755 tmpfs /run
		mkdir -p /run/lock /run/lttng
		mount -t tmpfs -o mode=1777 tmpfs /dev/shm
		[ ! -d /var/log/journal ] || mount -t tmpfs -o mode=0755 tmpfs /var/log/journal
		hostname jank-isolated
		ip link set lo up
		shell=$1
		shift
		trap "rm -f \"\$LIVE_LOCK\"" EXIT
		"$shell" "$@"' sh "$(readlink /proc/$$/exe)" "$0" "$@"
}

# live_require_demo: skip all unless jank-demo is built.
live_require_demo() {
	[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
}

# live_require_pthread_wrapper: skip all unless lttng-ust's pthread wrapper is
# there; LIVE_PTHREAD_WRAPPER is its path, for LD_PRELOAD.
live_require_pthread_wrapper() {
	local f

	for f in /usr/lib/*-linux-gnu/liblttng-ust-pthread-wrapper.so.1 \
		/usr/lib/liblttng-ust-pthread-wrapper.so.1 \
		/usr/local/lib/liblttng-ust-pthread-wrapper.so.1; do
		if [ -e "$f" ]; then
			LIVE_PTHREAD_WRAPPER=$f
			return 0
		fi
	done
	plan_skip_all "liblttng-ust-pthread-wrapper.so.1 not found (liblttng-ust1)"
}

# live_cyg_profile [fast]: the path of lttng-ust's cyg-profile library (its
# -fast variant with "fast") on stdout; 1 when there is none.
live_cyg_profile() {
	local f lib=liblttng-ust-cyg-profile${1:+-$1}.so.1

	for f in /usr/lib/*-linux-gnu/$lib /usr/lib/$lib /usr/local/lib/$lib; do
		[ -e "$f" ] && echo "$f" && return 0
	done
	return 1
}

# live_demo OUT ARGS...: run jank-demo ARGS; its stdout and stderr go to OUT.
live_demo() {
	local out=$1 libs=${LD_PRELOAD:-}

	shift
	if [ -z "$libs" ]; then
		"$LIVE_DEMO" "$@" >"$out" 2>&1 9>&-
		return
	fi
	# Preloaded into jank-demo itself, never into its libtool wrapper's
	# shells: lttng-ust in a process that forks can deadlock the child.
	LD_PRELOAD= "$top_builddir/libtool" --mode=execute env LD_PRELOAD="$libs" "$LIVE_DEMO" "$@" \
		>"$out" 2>&1 9>&-
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

# live_random_port: a port to listen on, below the kernel's ephemeral range
# (ip_local_port_range), where the local end of an outgoing connection
# (other tests', the consumers') may sit without listening: ss would not
# see it, and the bind would fail.
live_random_port() {
	local low

	low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
	case $low in '' | *[!0-9]*) low=32768 ;; esac
	[ "$low" -gt 12000 ] || low=32768
	echo $((10000 + (RANDOM * 32768 + RANDOM) % (low - 10003)))
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
		base=$(live_random_port)
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

# ---- journald and jankd (tests/live/test-jankd-*.sh, test-capture*.sh) ----
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
# A jankd test: its own skips if any, live_setup_jankd [--journald], plan N,
# live_create_session NAME, live_jankd_conf ... <<CONF (what its config has
# of its own), live_run_jankd; at the end, check "SIGTERM: exit 0"
# live_stop_jankd, and live_jankd_diag.
#
# Variables set: LIVE_JOURNALD_PID (empty: the host's), LIVE_JOURNAL_NS,
# LIVE_JOURNAL (1 once live_start_journald ran), LIVE_JANKD_PID
# (live_start_jankd), LIVE_JANKD_SOCK and LIVE_JANKD_CONF (live_init: jankd's
# control socket and config file, in LIVE_TMP).

LIVE_JOURNALD_BIN=${LIVE_JOURNALD_BIN:-/lib/systemd/systemd-journald}
LIVE_JANKD=${LIVE_JANKD:-${top_builddir:-.}/daemon/jankd}
LIVE_JANKCTL=${LIVE_JANKCTL:-${top_builddir:-.}/jankctl/jankctl}
LIVE_JOURNAL_NS=
LIVE_JOURNALD_PID=
LIVE_JOURNAL=
# MESSAGE_ID of jankd's journal entries: an alert, a summary of the alerts the
# rate limit held back, and a capture's report.
LIVE_JANK_ID=3f5b0c2e8a6d4e1b9c7a5d3e1f2b4c6a
LIVE_SUPPRESSED_ID=7c1e9a3b5d2f4e6a8b0c2d4e6f8a1b3c
LIVE_REPORT_ID=5a8d2c4e6f1b3a5c7e9d1f3b5a7c9e1d

# live_worker_user: the user of jankd's workers ([daemon] worker-user,
# default jank-worker) exists, or is created as the package creates it:
# systemd-sysusers with systemd/jank.sysusers (else useradd --system). The
# live tests run jankd as root with its default config, as jankd.service
# does; a fresh Debian root has no such user yet. Bails out if it cannot.
live_worker_user() {
	getent passwd jank-worker >/dev/null 2>&1 && return 0
	if command -v systemd-sysusers >/dev/null 2>&1; then
		systemd-sysusers "$top_srcdir/systemd/jank.sysusers" >/dev/null 2>&1
	else
		useradd --system --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin --comment "jank workers" jank-worker
	fi
	getent passwd jank-worker >/dev/null 2>&1 ||
		live_bail "cannot create the user jank-worker (systemd-sysusers or useradd)"
}

# live_require_jankd: skip all unless jankd, jankctl and jq are there; then
# live_worker_user.
live_require_jankd() {
	[ -x "$LIVE_JANKD" ] || plan_skip_all "$LIVE_JANKD is not built (make -C daemon)"
	[ -x "$LIVE_JANKCTL" ] || plan_skip_all "$LIVE_JANKCTL is not built (make -C daemon)"
	command -v "${JQ:-jq}" >/dev/null 2>&1 || plan_skip_all "jq not found (install jq)"
	command -v lttng-relayd >/dev/null 2>&1 ||
		plan_skip_all "lttng-relayd not found (install the Debian package lttng-tools)"
	live_worker_user
}

# live_require_journald: skip all unless systemd-journald and journalctl are there.
live_require_journald() {
	[ -x "$LIVE_JOURNALD_BIN" ] ||
		plan_skip_all "$LIVE_JOURNALD_BIN not found (install the Debian package systemd)"
	command -v journalctl >/dev/null 2>&1 ||
		plan_skip_all "journalctl not found (install the Debian package systemd)"
}

# live_start_daemons [--journald]: lttng-sessiond (without the kernel tracer),
# lttng-relayd and, with --journald, systemd-journald.
live_start_daemons() {
	live_start_sessiond --no-kernel
	live_start_relayd
	[ "${1:-}" != --journald ] || live_start_journald
}

# live_setup_jankd [--journald]: live_init; skip all unless jank-demo and jankd
# are built (and systemd-journald is there); then live_start_daemons.
live_setup_jankd() {
	live_init
	live_require_demo
	live_require_jankd
	[ "${1:-}" != --journald ] || live_require_journald
	live_start_daemons "$@"
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

	LIVE_JOURNAL=1
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

# live_wait_for SECONDS CODE: like live_wait, but CODE is shell code, evaluated
# again at each try. (live_wait's arguments are expanded once, by its caller:
# `live_wait 5 [ "$(f)" = x ]` asks f only once.) CODE is evaluated in
# live_wait_for, so a caller's positional parameters must be expanded into
# it by the caller: '[ "$(f)" = "'"$1"'" ]'.
live_wait_for() {
	# An unlikely name: CODE sees its caller's variables (n, i...), not ours.
	local live_wait_for_tries=$(($1 * 10))

	while [ "$live_wait_for_tries" -gt 0 ]; do
		eval "$2" && return 0
		sleep 0.1
		live_wait_for_tries=$((live_wait_for_tries - 1))
	done
	return 1
}

# live_start_session NAME [FILTER]: the session NAME, just created, records
# the jank:* events (those that pass the lttng filter FILTER, if given) with
# the contexts vpid/vtid/procname; start it.
live_start_session() {
	live_lttng enable-event --userspace --session="$1" 'jank:*' ${2:+--filter "$2"} &&
		live_lttng add-context --userspace --session="$1" -t vpid -t vtid -t procname &&
		live_lttng start "$1"
}

# live_create_session NAME [FILTER]: a user-space live session on the test's
# relayd (100 ms live timer), started (live_start_session); bail out if not.
live_create_session() {
	live_lttng create "$1" --live=100000 \
		--set-url="net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT" &&
		live_start_session "$@" || live_bail "cannot create the live session $1"
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

# live_jankd_status [FILTER]: jankctl status --format json (on LIVE_JANKD_SOCK),
# through jq FILTER.
live_jankd_status() {
	"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" --format json 2>/dev/null |
		"$JQ" -r "${1:-.}"
}

# live_jankd_attached: true once jankd said READY (every input attached).
live_jankd_attached() {
	local st

	# Not a pipe into jq -e: jq 1.6 says yes to an empty input.
	st=$("$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" --format json 2>/dev/null) &&
		[ -n "$st" ] &&
		echo "$st" | "$JQ" -e '.ready and all(.inputs[]; .state == "connected")' >/dev/null
}

# live_wait_jankd: wait (10 s) until jankd is attached; bail out if it is not.
live_wait_jankd() {
	live_wait 10 live_jankd_attached && return 0
	live_alive "$LIVE_JANKD_PID" || live_bail "jankd exited" "$LIVE_TMP/jankd.err"
	live_bail "jankd did not attach within 10s" "$LIVE_TMP/jankd.err"
}

# live_run_jankd [ARGS...]: start jankd with LIVE_JANKD_CONF and ARGS, and
# wait until it is attached (live_wait_jankd).
live_run_jankd() {
	live_start_jankd --config "$LIVE_JANKD_CONF" "$@"
	live_wait_jankd
}

# live_stop_jankd: SIGTERM to jankd, and wait for it; its exit status.
# LIVE_JANKD_PID stays, for its journal entries (live_jankd_log).
live_stop_jankd() {
	local rc

	kill -TERM "$LIVE_JANKD_PID"
	wait "$LIVE_JANKD_PID"
	rc=$?
	live_forget "$LIVE_JANKD_PID"
	return "$rc"
}

# live_reload_jankd [PATTERN]: SIGHUP to jankd, and wait (5 s) until a line of
# its log matches PATTERN (default ^reloaded); a diag if none does.
live_reload_jankd() {
	local pattern=${1:-^reloaded}

	kill -HUP "$LIVE_JANKD_PID"
	live_wait 5 live_jankd_logged "$pattern" || diag "no '$pattern' in jankd's log after 5 s"
}

# live_jankd_log: what jankd (LIVE_JANKD_PID) logged to the test's journal.
live_jankd_log() {
	live_journalctl -o cat _PID="$LIVE_JANKD_PID" SYSLOG_IDENTIFIER=jankd
}

# live_jankd_logged PATTERN: true when a line of live_jankd_log matches PATTERN.
live_jankd_logged() {
	live_jankd_log | grep -q "$1"
}

# live_jank_entries RULE [FIELD=VALUE...]: the journal entries of jankd's rule
# RULE (alerts, summaries, reports: FIELD=VALUE narrows), as JSON lines.
live_jank_entries() {
	local rule=$1

	shift
	live_journalctl -o json JANK_ACTION="$rule" "$@"
}

# live_jank_count RULE [FIELD=VALUE...]: how many live_jank_entries there are.
live_jank_count() {
	live_jank_entries "$@" | wc -l
}

# live_jank_at_least N RULE [FIELD=VALUE...]: true once live_jank_count is N or
# more (a command for live_wait).
live_jank_at_least() {
	local n=$1

	shift
	[ "$(live_jank_count "$@")" -ge "$n" ]
}

# live_jankd_diag [FILE...]: when a case failed, jankd's log (in the journal,
# if the test runs one, and on stderr), then FILE..., as TAP comments.
live_jankd_diag() {
	[ "$_tap_failed" = 1 ] || return 0
	diag "jankd's log:"
	[ -z "$LIVE_JOURNAL" ] || live_jankd_log | sed 's/^/#   /'
	sed 's/^/#   /' "$LIVE_TMP/jankd.err" "$@"
	return 0
}

# live_analyze_relayd: jankctl analyze, with jankd's config, of what relayd
# stored: JSON lines in $LIVE_TMP/analyze.out, errors in analyze.err; its status.
live_analyze_relayd() {
	"$LIVE_JANKCTL" analyze --config "$LIVE_JANKD_CONF" --format json "$LIVE_RELAYD_OUTPUT" \
		>"$LIVE_TMP/analyze.out" 2>"$LIVE_TMP/analyze.err"
}

# live_quote_times FILE: the JSON in FILE with its times (begin, end, ts) as
# strings: jq 1.6 reads numbers as doubles.
live_quote_times() {
	sed -E 's/"(begin|end|ts)":(-?[0-9]+)/"\1":"\2"/g' "$1"
}

# ---- jankd's config ----

# live_conf_rule NAME [LINE...]: the config section of a rule, [action NAME],
# on jank-demo's actions (jank:action_begin/end, key name, id); then LINE...
live_conf_rule() {
	printf '[action %s]\nbegin = jank:action_begin\nend = jank:action_end\nkey = name, id\n' "$1"
	shift
	[ "$#" = 0 ] || printf '%s\n' "$@"
}

# live_jankd_conf [--journal] [--capture MODE DIR] URL RULE THRESHOLD: write
# LIVE_JANKD_CONF: [live] url = URL (no url if URL is empty); [daemon]
# control-socket = LIVE_JANKD_SOCK, state-dir = LIVE_TMP/state; the rule RULE
# (live_conf_rule) with that threshold. --journal: [alerts] target = journal. --capture: [capture] mode =
# MODE, dir = DIR, nothing held back (cooldown, max-per-hour, min-free 0), and
# the rule captures. The config on stdin (a here-document, or </dev/null) is
# merged in: its keys replace those of the same section, or are added to it;
# its other sections come last.
live_jankd_conf() {
	local journal='' mode='' dir='' base=$LIVE_TMP/jankd.conf.base

	while :; do
		case "$1" in
		--journal) journal=1 && shift ;;
		--capture) mode=$2 dir=$3 && shift 3 ;;
		*) break ;;
		esac
	done
	{
		echo "[live]"
		[ -z "$1" ] || echo "url = $1"
		[ -z "${JANK_LIVE_DECODER:-}" ] || echo "decoder = $JANK_LIVE_DECODER"
		[ -z "$journal" ] || printf '[alerts]\ntarget = journal\n'
		[ -z "$mode" ] || printf '[capture]\nmode = %s\ndir = %s\ncooldown = 0\nmax-per-hour = 0\nmin-free = 0\n' \
			"$mode" "$dir"
		printf '[daemon]\ncontrol-socket = %s\nstate-dir = %s\n' "$LIVE_JANKD_SOCK" "$LIVE_TMP/state"
		live_conf_rule "$2" "threshold = $3" ${mode:+"capture = yes"}
	} >"$base"
	# First stdin, by section: its lines, and the line of each key. Then the
	# base, with those keys in their place, the new ones at the section's end.
	awk 'function key(l) { sub(/[ \t]*=.*/, "", l); return l }
		function rest(s, i) { for (i = 1; i <= n[s]; i++) if (!((s, i) in used)) print line[s, i] }
		more && /^\[.*\]$/ { sec = $0; if (!(sec in n)) { n[sec] = 0; order[++nsec] = sec }; next }
		more { line[sec, ++n[sec]] = $0; if (/=/ && !/^[ \t]*#/) at[sec, key($0)] = n[sec]; next }
		/^\[.*\]$/ { rest(cur); cur = $0; done[cur]; print; next }
		/=/ && ((cur, key($0)) in at) { i = at[cur, key($0)]; used[cur, i]; print line[cur, i]; next }
		{ print }
		END { rest(cur); for (s = 1; s <= nsec; s++) if (!(order[s] in done)) { print order[s]; rest(order[s]) } }' \
		more=1 - more=0 "$base" >"$LIVE_JANKD_CONF"
}

# ---- Simulated hosts (tests/live/test-fleet.sh, make bench-fleet) ----
#
# A simulated host is an lttng-sessiond (no kernel tracer) in a UTS namespace
# of its own, whose hostname is the host's name, and a mount namespace with
# tmpfs over /run/lttng (the sockets of the sessiond, and of the traced apps)
# and /dev/shm (lttng-ust's shared memory), with a LTTNG_HOME of its own.
# Its sessions stream to the test's relayd over loopback, under its name.
# The programs and the lttng commands of a host run in its namespaces
# (live_host, through nsenter). The sessiond's consumer daemons are tracked
# too, so that cleanup stops them even after their sessiond was killed.
# live_host_start --pid gives the host a PID namespace too, with its /proc:
# its sessiond is its PID 1, its programs' pids and tids are its own and
# collide with the other hosts' (as two machines' do). --shared-run leaves
# /run/lttng and /dev/shm the test's: the host's sessiond is the one jankd
# talks to (its captures record that host), which needs live_isolate.
#
# Files: $LIVE_TMP/hosts/NAME/{pid,pidns?,home,sessiond.log}.

# live_require_hosts: skip all unless namespaces can be made here.
live_require_hosts() {
	command -v unshare >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1 ||
		plan_skip_all "unshare and nsenter not found (install the Debian package util-linux)"
	unshare --uts --mount true 2>/dev/null ||
		plan_skip_all "cannot make UTS and mount namespaces here"
}

# live_host_pid NAME: the PID of host NAME's sessiond.
live_host_pid() {
	cat "$LIVE_TMP/hosts/$1/pid"
}

# live_host NAME COMMAND...: run COMMAND on host NAME (in its PID namespace,
# if it has one: nsenter then forks, COMMAND is its child).
live_host() {
	local dir=$LIVE_TMP/hosts/$1 pidns=

	shift
	[ ! -e "$dir/pidns" ] || pidns=--pid
	LTTNG_HOME=$dir/home nsenter --target "$(cat "$dir/pid")" --uts --mount $pidns -- "$@" 9>&-
}

# live_host_start [--pid] [--shared-run] NAME: start host NAME and wait until
# its sessiond answers.
live_host_start() {
	local dir pid i outer pidns= shared=

	while :; do
		case "$1" in
		--pid) pidns=1 && shift ;;
		--shared-run) shared=1 && shift ;;
		*) break ;;
		esac
	done
	dir=$LIVE_TMP/hosts/$1
	mkdir -p "$dir/home"
	if [ -n "$pidns" ]; then
		unshare --pid --fork true 2>/dev/null ||
			live_bail "host $1: cannot make a PID namespace here"
		: >"$dir/pidns"
	fi
	# Without a PID namespace, unshare and sh exec: $! is the sessiond's PID.
	# With one, $! is unshare's, whose child (sh, then the sessiond) is PID 1
	# there; killed with unshare.
	LTTNG_HOME=$dir/home unshare --uts --mount --propagation private \
		${pidns:+--pid --fork --kill-child --mount-proc} sh -c '
		set -e
		hostname "$1"
		if [ -z "$2" ]; then
			mkdir -p /run/lttng
			mount -t tmpfs -o mode=0755 tmpfs /run/lttng
			mount -t tmpfs -o mode=1777 tmpfs /dev/shm
		fi
		exec lttng-sessiond --no-kernel' sh "$1" "$shared" >"$dir/sessiond.log" 2>&1 9>&- &
	pid=$!
	live_track "$pid"
	if [ -n "$pidns" ]; then
		outer=$pid
		pid=
		for i in $(seq 50); do
			pid=$(ps -o pid= --ppid "$outer" | tr -d ' ')
			[ -z "$pid" ] || break
			sleep 0.1
		done
		[ -n "$pid" ] || live_bail "host $1: its PID namespace did not start" "$dir/sessiond.log"
		live_track "$pid" # stopped first: the namespace ends with it
	fi
	echo "$pid" >"$dir/pid"
	for i in $(seq 100); do
		live_alive "$pid" || live_bail "host $1: lttng-sessiond exited at startup" "$dir/sessiond.log"
		live_host "$1" lttng list >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	live_bail "host $1: lttng-sessiond did not answer within 10s" "$dir/sessiond.log"
}

# live_host_session NAME SESSION: on host NAME, a user-space live session
# (live_create_session's) on the test's relayd; its consumer daemons tracked.
# LIVE_HOST_CHANNEL, if set, holds lttng enable-channel options for its
# channel (say, --tracefile-size and --tracefile-count to bound relayd's disk).
live_host_session() {
	local out=$LIVE_TMP/hosts/$1/lttng.out p

	{
		live_host "$1" lttng create "$2" --live=100000 \
			--set-url="net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT" &&
			{ [ -z "${LIVE_HOST_CHANNEL:-}" ] ||
				live_host "$1" lttng enable-channel --userspace --session="$2" \
					$LIVE_HOST_CHANNEL jank; } &&
			live_host "$1" lttng enable-event --userspace --session="$2" \
				${LIVE_HOST_CHANNEL:+--channel=jank} 'jank:*' &&
			live_host "$1" lttng add-context --userspace --session="$2" \
				-t vpid -t vtid -t procname &&
			live_host "$1" lttng start "$2"
	} >"$out" 2>&1 || live_bail "host $1: cannot create the live session $2" "$out"
	# Stopped last, after their sessiond (which stops them itself).
	for p in $(ps -o pid= --ppid "$(live_host_pid "$1")"); do
		LIVE_PIDS="$p $LIVE_PIDS"
	done
}

# live_host_demo NAME OUT ARGS...: jank-demo ARGS on host NAME, output to OUT.
live_host_demo() {
	local name=$1 out=$2

	shift 2
	live_host "$name" "$LIVE_DEMO" "$@" >"$out" 2>&1
}
