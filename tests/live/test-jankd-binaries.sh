# SPDX-License-Identifier: MIT
# tests/live/test-jankd-binaries.sh: [graph] functions name the code a local
# process really runs, wherever its binary is, with unprivileged workers.
#
# fn-demo (see test-jankd-functions.sh) runs from three places a worker
# (jank-worker) cannot read its binary from:
#   private    a root-owned 0700 directory;
#   replaced   a world-readable directory, but another build (/bin/true)
#              is renamed over the binary right after it starts, as dpkg
#              upgrades a package: the path now names another file;
#   container  a tmpfs mounted in a mount namespace of its own (unshare -m):
#              the path does not exist in jankd's;
#   pidns      the same, in a PID namespace of its own too (unshare -p -m):
#              its pid in the trace (lttng-ust's vpid, 1) is not this host's,
#              where pid 1 is init.
#   twins      two pidns containers at once: both fn-demos are vpid 1, each
#              at its own load address (ASLR), their action ids apart (the
#              rule's key is name, id). Processes are told apart by (PID
#              namespace, vpid): a worker that took one for the other would
#              look its frames up in the other's mappings.
# pidns runs first: a worker keeps a binary it opened by its build-id, and
# the other cases' fn-demo is the same build. Each run makes 4 slow actions (2 in apply_discounts, 2 behind the lock
# refresh_rates holds). lttng-ust's statedump leaves out a binary it cannot
# open by its path (the replaced one): its mappings then come from the
# process's /proc/PID/maps, which the opener opens for the worker too. With [daemon] open-binaries = yes (the default),
# the supervisor's binary opener gives the workers the file each process
# maps: every alert names its function. With open-binaries = no, the same
# runs name none (binary+0xOFFSET): what the workers could do alone. The
# workers run as jank-worker without capabilities either way.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_require_pthread_wrapper
live_setup_jankd --journald
command -v unshare >/dev/null 2>&1 || plan_skip_all "unshare not found (util-linux)"
unshare --mount true 2>/dev/null || plan_skip_all "no mount namespaces here"

FN_DEMO=$top_builddir/tests/live/fn-demo
[ -x "$FN_DEMO" ] || plan_skip_all "$FN_DEMO is not built (make -C tests check)"
# The program itself, not libtool's wrapper script (its libraries by LD_LIBRARY_PATH).
[ -x "$top_builddir/tests/live/.libs/fn-demo" ] && FN_DEMO=$top_builddir/tests/live/.libs/fn-demo
head -c 4 "$FN_DEMO" | grep -q ELF || plan_skip_all "$FN_DEMO is not an ELF program"
cyg=$(live_cyg_profile) || plan_skip_all "liblttng-ust-cyg-profile.so.1 not found (liblttng-ust1)"
LIBS=$(cd "$top_builddir/probes/.libs" 2>/dev/null && pwd || true)

plan 13

# LIVE_TMP may be passed through (0711), not listed: PUBLIC is readable to all.
PRIVATE=$LIVE_TMP/private
PUBLIC=$LIVE_TMP/public
CONTAINER=$LIVE_TMP/container
mkdir -m 0700 "$PRIVATE"
mkdir -m 0755 "$PUBLIC" "$CONTAINER"
chmod 0711 "$LIVE_TMP"

session=jankd-binaries-$$
# run_HOW OUT: fn-demo, from where HOW says, in the background; its pid in
# $pid (env execs it). 20 actions, every 5th slow by 40 ms; it stays 2 s
# after the last.
run_private() {
	cp "$FN_DEMO" "$PRIVATE/fn-demo"
	env LD_PRELOAD="$cyg:$LIVE_PTHREAD_WRAPPER" LD_LIBRARY_PATH="$LIBS" \
		"$PRIVATE/fn-demo" 20 5 1000 40000 2000 >"$1" 2>&1 9>&- &
	pid=$!
}
run_replaced() {
	cp "$FN_DEMO" "$PUBLIC/fn-demo"
	cp /bin/true "$PUBLIC/fn-demo.new"
	chmod 0755 "$PUBLIC/fn-demo" "$PUBLIC/fn-demo.new"
	env LD_PRELOAD="$cyg:$LIVE_PTHREAD_WRAPPER" LD_LIBRARY_PATH="$LIBS" \
		"$PUBLIC/fn-demo" 20 5 1000 40000 2000 >"$1" 2>&1 9>&- &
	pid=$!
	# Once env has exec'd it (not /bin/true).
	live_wait 5 runs_demo "$pid" || diag "fn-demo did not start"
	mv -f "$PUBLIC/fn-demo.new" "$PUBLIC/fn-demo"
}
runs_demo() {
	[ "$(readlink "/proc/$1/exe")" = "$PUBLIC/fn-demo" ]
}
run_container() {
	# unshare and sh exec: $! is fn-demo's pid.
	unshare --mount --propagation private sh -c '
		mount -t tmpfs -o mode=0700 tmpfs "$1" && cp "$2" "$1/fn-demo" && shift 2 &&
		exec env LD_PRELOAD="$1" LD_LIBRARY_PATH="$2" "$3/fn-demo" 20 5 1000 40000 2000' \
		sh "$CONTAINER" "$FN_DEMO" "$cyg:$LIVE_PTHREAD_WRAPPER" "$LIBS" "$CONTAINER" \
		>"$1" 2>&1 9>&- &
	pid=$!
}

run_pidns() {
	# unshare forks: $! is unshare's pid; fn-demo is pid 1 in its namespace.
	unshare --pid --fork --mount --propagation private sh -c '
		mount -t tmpfs -o mode=0700 tmpfs "$1" && cp "$2" "$1/fn-demo" && shift 2 &&
		exec env LD_PRELOAD="$1" LD_LIBRARY_PATH="$2" "$3/fn-demo" 20 5 1000 40000 2000' \
		sh "$CONTAINER" "$FN_DEMO" "$cyg:$LIVE_PTHREAD_WRAPPER" "$LIBS" "$CONTAINER" \
		>"$1" 2>&1 9>&- &
	pid=$!
	vpid=1
}

# named PID [FUNCTIONS]: "ALERTS NAMED": the alerts of fn-demo pid PID, and
# how many name a function of fn-demo's (not fn-demo+0xOFFSET, nor a bare
# address; which function, test-jankd-functions.sh checks), or, with
# FUNCTIONS (a regex), one of those.
named() {
	live_jank_entries frame JANK_KIND=completed JANK_PID="$1" _PID="$LIVE_JANKD_PID" \
		>"$LIVE_TMP/alerts-$1.json"
	echo "$(wc -l <"$LIVE_TMP/alerts-$1.json")" "$("$JQ" -r '.JANK_FUNCTION' \
		"$LIVE_TMP/alerts-$1.json" | grep -cxE "${2:-[a-z_]+}")"
}
# alerts_for PID [N]: at least N (4) alerts of pid PID.
alerts_for() {
	[ "$(live_jank_count frame JANK_KIND=completed JANK_PID="$1" _PID="$LIVE_JANKD_PID")" \
		-ge "${2:-4}" ]
}

# case HOW OPENER EXPECTED: run fn-demo as HOW, and check "4 EXPECTED" (EXPECTED: a regex).
one_case() {
	local how=$1 opener=$2 want=$3 got

	vpid=
	"run_$how" "$LIVE_TMP/$how-$opener.out"
	wait "$pid"
	# The pid the trace says (JANK_PID): fn-demo's in its own namespace.
	pid=${vpid:-$pid}
	live_wait 15 alerts_for "$pid" || true
	sleep 0.3
	got=$(named "$pid")
	check "open-binaries = $opener, $how binary: $got of 4 slow actions alerted, $want named" \
		sh -c 'echo "$1" | grep -qxE "$2"' - "$got" "4 ($want)"
	"$JQ" -r '"#   " + .JANK_KEY + " " + .JANK_FUNCTION' "$LIVE_TMP/alerts-$pid.json"
}

# The workers: uid jank-worker, no capability.
workers_unprivileged() {
	local w uid ok=0

	for w in $(cat /proc/"$LIVE_JANKD_PID"/task/*/children 2>/dev/null); do
		uid=$(awk '/^Uid:/ { print $2 }' "/proc/$w/status")
		[ "$uid" = "$(id -u jank-worker)" ] || return 1
		grep -q '^CapEff:[[:space:]]*0*$' "/proc/$w/status" || return 1
		ok=1
	done
	[ "$ok" = 1 ]
}

# start_jankd OPENER [NAME]: jankd with open-binaries = OPENER.
start_jankd() {
	live_jankd_conf --journal "" frame 20ms <<CONF
[live]
create = yes
session = $session-${2:-$1}
relayd = net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT
relayd-live-port = $LIVE_RELAYD_LIVE_PORT
timer = 100ms
[graph]
functions = yes
[daemon]
open-binaries = $1
[alerts]
rate-limit = 100/10s
CONF
	live_run_jankd
}

# Without the opener, the replaced binary is named only when the worker
# read its path before the rename (it is world-readable until then): a
# race the test does not decide, so all or none.
start_jankd no
for how in pidns private replaced container; do
	case $how in
	replaced) one_case "$how" no "0|4" ;;
	*) one_case "$how" no 0 ;;
	esac
done
check "SIGTERM: exit 0" live_stop_jankd

start_jankd yes
check "the workers run as jank-worker without capabilities" workers_unprivileged
for how in pidns private replaced container; do
	one_case "$how" yes 4
done
check "SIGTERM: exit 0" live_stop_jankd

# The twins: both at once, in a jankd of their own (its alerts are theirs).
start_jankd yes twins
run_pidns "$LIVE_TMP/twin-a.out"
twin_a=$pid
export FN_DEMO_FIRST_ID=100
run_pidns "$LIVE_TMP/twin-b.out"
twin_b=$pid
unset FN_DEMO_FIRST_ID
wait "$twin_a"
wait "$twin_b"
live_wait 15 alerts_for 1 8 || true
sleep 0.3
got=$(named 1)
# Where each slow action waited (test-jankd-functions.sh): ids 4, 14 (and
# 104, 114) spin in apply_discounts; 9, 19 wait for the lock the holder
# keeps in refresh_rates (a holder of the other container would be another).
right=$("$JQ" -s '[.[] | select(.JANK_FUNCTION == (.JANK_KEY | capture("id=(?<i>[0-9]+)$").i |
	tonumber % 10 | if . == 4 then "apply_discounts" else "refresh_rates" end))] | length' \
	"$LIVE_TMP/alerts-1.json")
check "two PID namespaces at once, both fn-demos vpid 1: $got of 8 slow actions alerted and named, $right in the right function" \
	test "$got $right" = "8 8 8"
"$JQ" -r '"#   " + .JANK_KEY + " " + .JANK_FUNCTION' "$LIVE_TMP/alerts-1.json"
check "SIGTERM: exit 0" live_stop_jankd
live_jankd_diag "$LIVE_TMP"/*.out
