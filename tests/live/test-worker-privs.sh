# SPDX-License-Identifier: MIT
# tests/live/test-worker-privs.sh: jankd's workers drop their privileges
# (daemon/worker-sandbox.h), and alerts still come.
#
# jankd runs as root, as jankd.service runs it, with its default [daemon]
# worker-user: the input's worker (a child of jankd, its PID in `jankctl
# status`) runs as jank-worker (lib.sh creates it as the package does), with
# no capability in any set, no_new_privs and a seccomp filter (Seccomp 2),
# as /proc/PID/status says; jank-demo's slow actions are alerted through it,
# without a restart. A worker killed by SIGSYS (what its filter does) is
# logged as such and replaced. With worker-user = nobody-such, jankd says so
# and the input does not start (no worker process). worker-user = root runs
# workers as root only with workers-as-root = yes, with a warning, and still
# without capabilities, with no_new_privs and the filter.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_setup_jankd --journald

plan 12

session=worker-privs-$$
action=privs$$
url=$(live_url "$session")
live_create_session "$session"

worker_pid() {
	live_jankd_status '.inputs[0].worker.pid'
}
# field PID NAME: the value of NAME in /proc/PID/status, blanks squeezed.
field() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null | tr -s ' \t' ' ' | sed 's/ $//'
}
# show PID: the status lines the checks read, as a diag.
show() {
	grep -E '^(Name|Uid|Gid|Groups|Cap[A-Za-z]+|NoNewPrivs|Seccomp[a-z_]*):' "/proc/$1/status" 2>&1 |
		sed 's/^/#   /'
}
# new_worker OLD: true once a worker other than OLD runs and is connected.
new_worker() {
	local p

	p=$(worker_pid)
	[ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$1" ] &&
		[ "$(live_jankd_status '.inputs[0].state')" = connected ]
}
no_caps() {
	local s

	for s in CapInh CapPrm CapEff CapAmb; do
		[ "$(field "$1" "$s")" = 0000000000000000 ] || return 1
	done
}

# ---- The default: jank-worker ----
live_jankd_conf --journal "$url" "$action" 30ms </dev/null
live_run_jankd
uid=$(id -u jank-worker)
gid=$(id -g jank-worker)
w=$(worker_pid)
diag "worker pid $w, jank-worker is $uid:$gid"
# is_user PID UID GID: real, effective, saved and fs ids, and no other group.
is_user() {
	[ -n "$1" ] && [ "$2" != 0 ] && [ "$(field "$1" Uid)" = "$2 $2 $2 $2" ] &&
		[ "$(field "$1" Gid)" = "$3 $3 $3 $3" ] && [ "$(field "$1" Groups)" = "$3" ]
}
check "the worker runs as jank-worker ($uid:$gid): real, effective, saved and fs ids, one group" \
	is_user "$w" "$uid" "$gid"
check "the worker has no capability (CapInh, CapPrm, CapEff, CapAmb all 0)" no_caps "$w"
check "the worker has no_new_privs (NoNewPrivs 1)" [ "$(field "$w" NoNewPrivs)" = 1 ]
check "the worker is under a seccomp filter (Seccomp 2)" [ "$(field "$w" Seccomp)" = 2 ]
[ "$_tap_failed" = 1 ] && show "$w"
diag "$(grep -E '^(Uid|CapEff|NoNewPrivs|Seccomp):' "/proc/$w/status" | tr '\t' ' ' | tr '\n' ';')"

live_demo "$LIVE_TMP/demo.out" --cause sleep --count 20 --slow-every 5 --normal 1ms \
	--slow 60ms --interval 5ms
live_wait 10 live_jank_at_least 4 "$action" JANK_KIND=completed || true
n=$(live_jank_count "$action" JANK_KIND=completed)
check "jank-demo's 4 slow actions are alerted through it (got $n)" [ "$n" = 4 ]
starts=$(live_jankd_status '.inputs[0].worker.starts')
check "the same worker did it all: no restart (pid $(worker_pid), starts $starts)" \
	[ "$(worker_pid)" = "$w" -a "$starts" = 1 ]

# What the filter does to a call outside its list: SIGSYS, logged as such.
kill -SYS "$w"
live_wait 10 new_worker "$w" || true
w2=$(worker_pid)
if live_jankd_logged "worker was killed by its seccomp filter" && [ -n "$w2" ] &&
	[ "$w2" != "$w" ] && [ "$(field "$w2" Seccomp)" = 2 ]; then
	ok "a worker killed by SIGSYS is logged as killed by its seccomp filter, and replaced"
else
	fail "a worker killed by SIGSYS is logged as killed by its seccomp filter, and replaced"
fi
live_jankd_diag
live_stop_jankd

# ---- A user that does not exist ----
live_jankd_conf --journal "$url" "$action" 30ms <<CONF
[daemon]
worker-user = nobody-such
CONF
live_start_jankd --config "$LIVE_JANKD_CONF"
live_wait 10 live_jankd_logged "worker cannot start: no user 'nobody-such' (\[daemon\] worker-user)" ||
	true
check "worker-user = nobody-such: jankd says so" \
	live_jankd_logged "worker cannot start: no user 'nobody-such' (\[daemon\] worker-user)"
sleep 1
kids=$(ps -o pid= --ppid "$LIVE_JANKD_PID")
state=$(live_jankd_status '.inputs[0].state')
if [ -z "$kids" ] && [ -n "$state" ] && [ "$state" != connected ] && live_alive "$LIVE_JANKD_PID"; then
	ok "... and the input does not start: no worker process, $state, jankd runs"
else
	fail "... and the input does not start: no worker process (got: $kids), not connected ($state), jankd runs"
fi
live_jankd_diag
live_stop_jankd

# ---- root, on purpose only ----
live_jankd_conf --journal "$url" "$action" 30ms <<CONF
[daemon]
worker-user = root
CONF
"$LIVE_JANKD" --config "$LIVE_JANKD_CONF" >/dev/null 2>"$LIVE_TMP/root.err"
rc=$?
if [ "$rc" = 1 ] && grep -q "needs 'workers-as-root = yes'" "$LIVE_TMP/root.err"; then
	ok "worker-user = root without workers-as-root: jankd refuses its config (exit 1)"
else
	fail "worker-user = root without workers-as-root: jankd refuses its config (exit $rc)"
	sed 's/^/#   /' "$LIVE_TMP/root.err"
fi

live_jankd_conf --journal "$url" "$action" 30ms <<CONF
[daemon]
worker-user = root
workers-as-root = yes
CONF
live_run_jankd
w=$(worker_pid)
if [ -n "$w" ] && [ "$(field "$w" Uid)" = "0 0 0 0" ] && live_jankd_logged "^workers run as root"; then
	ok "workers-as-root = yes: the worker runs as root, with a warning in the log"
else
	fail "workers-as-root = yes: the worker runs as root, with a warning in the log"
fi
if no_caps "$w" && [ "$(field "$w" NoNewPrivs)" = 1 ] && [ "$(field "$w" Seccomp)" = 2 ]; then
	ok "... still without capabilities, with no_new_privs and its seccomp filter"
else
	fail "... still without capabilities, with no_new_privs and its seccomp filter"
fi
[ "$_tap_failed" = 1 ] && show "$w"
live_jankd_diag
live_stop_jankd
