# SPDX-License-Identifier: MIT
# tests/live/test-worker-privs.sh: jankd's workers drop their privileges
# (daemon/worker/worker-sandbox.h), and alerts still come.
#
# jankd runs as root, as jankd.service runs it, with its default [daemon]
# worker-user: the input's worker (a child of jankd, its PID in `jankctl
# status`) runs as jank-worker (lib.sh creates it as the package does), with
# no capability in any set, no_new_privs and a seccomp filter (Seccomp 2),
# as /proc/PID/status says; jank-demo's slow actions are alerted through it,
# without a restart. A worker that calls socket(2) itself (gdb makes it) is
# killed by its filter, said, and a new one (connected to relayd by jankd)
# alerts again; the same through the spawner. A worker killed by SIGSYS (what its filter does) is
# logged as such and replaced. With worker-user = nobody-such, jankd exits
# 1 at start with the useradd that fixes it; a user deleted while jankd
# runs leaves the input restarting, and status says why and since when. worker-user = root runs
# workers as root only with workers-as-root = yes, with a warning, and still
# without capabilities, with no_new_privs and the filter.
#
# Through the worker spawner (jankd --worker-spawner SOCKET, as
# jankd.service runs it): the spawner runs as jank-worker on a
# SOCK_SEQPACKET socket passed as systemd passes it (systemd-socket-activate),
# refuses to run as root; the worker is the spawner's child, as jank-worker,
# without capabilities, with no_new_privs and its filter, neither of them
# readable by another process of that user, and alerts come
# through it. Peers other than root are refused (the spawner's own user
# too), and requests that are not one (the wrong size, no descriptor, a
# pipe) close their connection only; past --max-workers, a request is
# refused (EAGAIN) and logged.
# A worker killed by SIGSYS is said so (its wait status comes from the
# spawner) and replaced; a killed spawner takes its workers with it, jankd
# says so, and starts its worker again once a spawner listens again.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_setup_jankd --journald

plan 32

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
# make_socket PID: the worker makes a TCP socket itself, as a worker that a
# crafted trace took over would: gdb makes it call socket(2) directly (past
# the relayd broker's socket()). Its filter kills it (SIGSYS).
make_socket() {
	local nr

	case $(uname -m) in
	x86_64) nr=41 ;;
	aarch64) nr=198 ;;
	*) return 1 ;;
	esac
	gdb -p "$1" -batch -nx -ex "call (long)syscall($nr, 2, 1, 0)" >"$LIVE_TMP/gdb.out" 2>&1 || true
}
# seccomp_said: how many times jankd said a worker was killed by its filter.
seccomp_said() {
	live_jankd_log | grep -c "worker was killed by its seccomp filter"
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
# mem_limited PID BYTES: its address space and data at most BYTES, soft and hard.
mem_limited() {
	grep -Eq "^Max address space +$2 +$2 +bytes" "/proc/$1/limits" &&
		grep -Eq "^Max data size +$2 +$2 +bytes" "/proc/$1/limits"
}
check "the worker's memory is limited: address space and data 2 GiB, soft and hard" \
	mem_limited "$w" 2147483648
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

# A worker that makes a socket (relayd's connection comes from jankd, through
# the relayd broker): its filter kills it, jankd says so, and a new worker
# reads on (jank-demo's slow actions alerted).
said=$(seccomp_said)
make_socket "$w"
live_wait 10 new_worker "$w" || true
w2=$(worker_pid)
if [ "$(seccomp_said)" = $((said + 1)) ] && [ -n "$w2" ] && [ "$w2" != "$w" ] &&
	! live_alive "$w"; then
	ok "a worker that calls socket(AF_INET) is killed by its seccomp filter; jankd says so and starts another"
else
	fail "a worker that calls socket(AF_INET) is killed by its seccomp filter; jankd says so and starts another (said $said, then $(seccomp_said); worker $w, now ${w2:-none})"
	sed 's/^/#   gdb: /' "$LIVE_TMP/gdb.out"
fi
w=$w2
live_demo "$LIVE_TMP/demo.out" --cause sleep --count 10 --slow-every 5 --normal 1ms \
	--slow 60ms --interval 5ms
live_wait 10 live_jank_at_least 6 "$action" JANK_KIND=completed || true
n=$(live_jank_count "$action" JANK_KIND=completed)
check "... and the new worker, connected through jankd, alerts jank-demo's 2 slow actions (got $((n - 4)))" \
	[ "$n" = 6 ]

# What the filter does to a call outside its list: SIGSYS, logged as such.
said=$(seccomp_said)
kill -SYS "$w"
live_wait 10 new_worker "$w" || true
w2=$(worker_pid)
if [ "$(seccomp_said)" = $((said + 1)) ] && [ -n "$w2" ] &&
	[ "$w2" != "$w" ] && [ "$(field "$w2" Seccomp)" = 2 ]; then
	ok "a worker killed by SIGSYS is logged as killed by its seccomp filter, and replaced"
else
	fail "a worker killed by SIGSYS is logged as killed by its seccomp filter, and replaced"
fi
live_jankd_diag
live_stop_jankd

# ---- A worker over its memory ceiling ----
# JANK_WORKER_MEMORY_MAX=16M, the least, is less than a worker has mapped
# already (about 50 MiB of libraries): past its limit, it cannot even make
# its seccomp filter, exits, is said and restarted with the back-off, and
# jankd goes on (its status answers, the input is shown, restarting).
JANK_WORKER_MEMORY_MAX=16M
export JANK_WORKER_MEMORY_MAX
live_start_jankd --config "$LIVE_JANKD_CONF"
unset JANK_WORKER_MEMORY_MAX
live_wait 20 sh -c '[ "$(live_jankd_status ".inputs[0].worker.starts")" -ge 2 ] 2>/dev/null' || true
starts=$(live_jankd_status '.inputs[0].worker.starts')
diag "16M: starts $starts, crashes $(live_jankd_status '.inputs[0].worker.crashes'), state $(live_jankd_status '.inputs[0].state')"
if [ "${starts:-0}" -ge 2 ] && live_alive "$LIVE_JANKD_PID" &&
	live_jankd_logged "the worker cannot drop its privileges: cannot make the seccomp filter: Cannot allocate memory" &&
	live_jankd_logged "worker could not drop its privileges (exit status 4); restarting it"; then
	ok "a worker past JANK_WORKER_MEMORY_MAX=16M fails to allocate, is said and restarted; jankd goes on"
else
	fail "a worker past JANK_WORKER_MEMORY_MAX=16M fails to allocate, is said and restarted; jankd goes on (starts $starts)"
fi
live_jankd_diag
live_stop_jankd

# ---- A user that does not exist ----
# At start: it will not appear by itself. jankd exits 1 with the fix.
live_jankd_conf --journal "$url" "$action" 30ms <<CONF
[daemon]
worker-user = nobody-such
CONF
"$LIVE_JANKD" --config "$LIVE_JANKD_CONF" >/dev/null 2>"$LIVE_TMP/nouser.err"
rc=$?
if [ "$rc" = 1 ] && grep -q "worker-user: no user 'nobody-such' (jankd's workers run as it)" "$LIVE_TMP/nouser.err" &&
	grep -q "fix: useradd --system --no-create-home --shell /usr/sbin/nologin nobody-such" "$LIVE_TMP/nouser.err"; then
	ok "worker-user = nobody-such: jankd exits 1 at start, with the useradd that fixes it"
else
	fail "worker-user = nobody-such: jankd exits 1 at start, with the useradd that fixes it (exit $rc)"
	sed 's/^/# /' "$LIVE_TMP/nouser.err"
fi
# Gone while jankd runs: its next worker cannot start; status says why and since when.
gone=jank-gone-$$
useradd --system --no-create-home --shell /usr/sbin/nologin "$gone"
live_jankd_conf --journal "$url" "$action" 30ms <<CONF
[daemon]
worker-user = $gone
CONF
live_start_jankd --config "$LIVE_JANKD_CONF"
live_wait 10 live_jankd_attached || true
w=$(worker_pid)
# The worker first (userdel refuses a user with a process), then the user,
# within the restart's back-off (1 s); -f for the case it lost that race.
[ -z "$w" ] || [ "$w" = 0 ] || kill -KILL "$w"
userdel -f "$gone" 2>/dev/null
blind() {
	[ "$(live_jankd_status '.inputs[0].blind_reason')" = \
		"worker cannot start: no user '$gone' ([daemon] worker-user)" ]
}
live_wait 10 blind || true
state=$(live_jankd_status '.inputs[0].state')
"$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" >"$LIVE_TMP/gone.status" 2>&1
if blind && [ "$state" = restarting ] && live_alive "$LIVE_JANKD_PID" &&
	grep -q "^input $url: restarting since .*: worker cannot start: no user '$gone'" "$LIVE_TMP/gone.status" &&
	sed -n 2p "$LIVE_TMP/gone.status" | grep -q "1 BLIND"; then
	ok "... a user gone while jankd runs: retried, and status says restarting since when, and why"
else
	fail "... a user gone while jankd runs: retried, and status says restarting since when, and why ($state)"
	sed 's/^/# /' "$LIVE_TMP/gone.status"
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

# ---- Through the worker spawner ----
out=$("$LIVE_JANKD" --worker-spawner 2>&1)
rc=$?
if [ "$rc" = 1 ] && echo "$out" | grep -q "refusing to run as root"; then
	ok "jankd --worker-spawner refuses to run as root (exit 1)"
else
	fail "jankd --worker-spawner refuses to run as root (exit $rc: $out)"
fi

out=$(setpriv --reuid=jank-worker --regid=jank-worker --init-groups "$LIVE_JANKD" \
	--worker-spawner 2>&1)
rc=$?
if [ "$rc" = 1 ] && echo "$out" | grep -q "worker spawner: no socket from systemd (it runs as jankd-workers.service"; then
	ok "jankd --worker-spawner without a socket from systemd: exit 1, says so"
else
	fail "jankd --worker-spawner without a socket from systemd: exit 1, says so (exit $rc: $out)"
fi

sock=$LIVE_TMP/workers.sock
# spawner_start N [ARG]: a spawner as jank-worker on $sock (made by
# systemd-socket-activate, which execs it on the first connection);
# stderr to spawner.N.err.
spawner_start() {
	rm -f "$sock"
	systemd-socket-activate --seqpacket -l "$sock" -- setpriv --reuid=jank-worker \
		--regid=jank-worker --init-groups "$LIVE_JANKD" --worker-spawner $2 \
		>"$LIVE_TMP/spawner.$1.err" 2>&1 9>&- &
	spawner=$!
	live_track "$spawner"
	live_wait 5 test -S "$sock" || diag "no socket $sock after 5 s"
}
ppid_of() {
	ps -o ppid= -p "$1" 2>/dev/null | tr -d ' '
}
# At most two workers at once: jankd's, and one more (the cap is tested below).
spawner_start 1 --max-workers=2
live_jankd_conf --journal "$url" "$action" 30ms </dev/null
live_run_jankd --worker-spawner "$sock"
w=$(worker_pid)
diag "worker pid $w, its parent $(ppid_of "$w"), the spawner $spawner"
if [ -n "$w" ] && [ "$(ppid_of "$w")" = "$spawner" ] && is_user "$w" "$uid" "$gid" &&
	[ "$(field "$spawner" Uid)" = "$uid $uid $uid $uid" ] && mem_limited "$w" 2147483648; then
	ok "--worker-spawner: the worker is the spawner's child, both jank-worker, its memory limited"
else
	fail "--worker-spawner: the worker is the spawner's child, both jank-worker, its memory limited"
	[ -n "$w" ] && show "$w"
fi
if no_caps "$w" && [ "$(field "$w" NoNewPrivs)" = 1 ] && [ "$(field "$w" Seccomp)" = 2 ]; then
	ok "... without capabilities, with no_new_privs and its seccomp filter"
else
	fail "... without capabilities, with no_new_privs and its seccomp filter"
fi
# Not dumpable: another process of jank-worker (another worker) cannot read
# the worker's or the spawner's memory or environment; its own, it can.
as_worker() {
	setpriv --reuid=jank-worker --regid=jank-worker --init-groups "$@" 2>/dev/null
}
if as_worker sh -c 'cat /proc/$$/environ >/dev/null' &&
	! as_worker cat "/proc/$w/environ" >/dev/null && ! as_worker cat "/proc/$w/mem" >/dev/null &&
	! as_worker cat "/proc/$spawner/environ" >/dev/null; then
	ok "another process of jank-worker cannot read the worker's or the spawner's /proc/PID/environ or mem (not dumpable)"
else
	fail "another process of jank-worker cannot read the worker's or the spawner's /proc/PID/environ or mem (not dumpable)"
fi
live_demo "$LIVE_TMP/demo2.out" --cause sleep --count 20 --slow-every 5 --normal 1ms \
	--slow 60ms --interval 5ms
live_wait 10 live_jank_at_least 4 "$action" JANK_KIND=completed _PID="$LIVE_JANKD_PID" || true
n=$(live_jank_count "$action" JANK_KIND=completed _PID="$LIVE_JANKD_PID")
check "jank-demo's 4 slow actions are alerted through the spawner's worker (got $n)" [ "$n" = 4 ]

# Peers: another user (the socket, and the way to it, opened to all for
# it), then root with requests that are not one. Each gets its connection
# closed, nothing else.
chmod 0666 "$sock"
chmod o+x "$LIVE_TMP"
# Debian's python3 (one under root's home would not run as nobody).
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
cat >"$LIVE_TMP/peer.py" <<'PY'
import os, socket, sys, array
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5)
    s.connect(sys.argv[1])
    return s
def closed(s):
    try:
        return s.recv(64) == b""
    except OSError:
        return True
what = sys.argv[2]
s = conn()
# The spawner may close before the request is sent (a refused peer): a
# broken pipe is a closed connection too.
try:
    if what == "nobody":
        s.send(b"x" * 104)
    elif what == "short":
        s.send(b"jksp")
    elif what == "nofd":
        s.send(b"\x70\x73\x6b\x6a\x01\x00\x00\x00" + b"\0" * 96)
    elif what == "pipe":
        r, w = os.pipe()
        s.sendmsg([b"\x70\x73\x6b\x6a\x01\x00\x00\x00" + b"\0" * 96],
                  [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [r]))])
    elif what == "two":
        # Two requests that are one each, while jankd's worker runs: the
        # first is started, the second is past the cap.
        def request(c):
            a, b = socket.socketpair()
            c.sendmsg([b"\x70\x73\x6b\x6a\x01\x00\x00\x00" + b"test".ljust(96, b"\0")],
                      [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [b.fileno()]))])
            b.close()
            m = c.recv(64)
            return (a, "started" if m[:4] == b"\x01\0\0\0" else
                    "refused" if m[:8] == b"\x02\0\0\0\x0b\0\0\0" else repr(m))
        keep, first = request(s)
        t = conn()
        _, second = request(t)
        print(first, second, "closed" if closed(t) else "open")
        sys.exit(0)
    print("closed" if closed(s) else "answered")
except (BrokenPipeError, ConnectionResetError):
    print("closed")
PY
peer() {
	local who=$1

	shift
	if [ "$who" = nobody ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$py" - "$sock" "$@"
	elif [ "$who" = jank-worker ]; then
		setpriv --reuid=jank-worker --regid=jank-worker --clear-groups "$py" - "$sock" "$@"
	else
		"$py" - "$sock" "$@"
	fi <"$LIVE_TMP/peer.py" 2>&1
}
r=$(peer nobody nobody)
if [ "$r" = closed ] && live_wait 5 grep -q "refused a connection from pid [0-9]*, uid $(id -u nobody)" \
	"$LIVE_TMP/spawner.1.err"; then
	ok "a peer that is not root (nobody) is refused by the spawner, and logged"
else
	fail "a peer that is not root (nobody) is refused by the spawner, and logged ($r)"
	sed 's/^/#   /' "$LIVE_TMP/spawner.1.err"
fi
# Nor the spawner's own user, which is its workers': a worker must not get workers.
r=$(peer jank-worker nobody)
if [ "$r" = closed ] && live_wait 5 grep -q "refused a connection from pid [0-9]*, uid $uid: only jankd's user (uid 0)" \
	"$LIVE_TMP/spawner.1.err"; then
	ok "a peer of the spawner's own user (jank-worker) is refused, and logged"
else
	fail "a peer of the spawner's own user (jank-worker) is refused, and logged ($r)"
	sed 's/^/#   /' "$LIVE_TMP/spawner.1.err"
fi
r=$(peer root two)
if [ "$r" = "started refused closed" ] && live_wait 5 grep -q "worker spawner: 2 workers run already, the most it starts (--max-workers): a request refused" \
	"$LIVE_TMP/spawner.1.err"; then
	ok "--max-workers=2: a second worker besides jankd's is started, a third refused (EAGAIN), logged"
else
	fail "--max-workers=2: a second worker besides jankd's is started, a third refused (EAGAIN), logged ($r)"
	sed 's/^/#   /' "$LIVE_TMP/spawner.1.err"
fi
# The extra worker ends with its connection (killed, reaped): room again.
live_wait 5 sh -c '[ "$(ps -o pid= --ppid "$1" | wc -l)" = 1 ]' - "$spawner" ||
	diag "the spawner still has $(ps -o pid= --ppid "$spawner" | wc -l) children"
r="$(peer root short) $(peer root nofd) $(peer root pipe)"
kids=$(ps -o pid= --ppid "$spawner" | tr -d ' ' | tr '\n' ' ')
if [ "$r" = "closed closed closed" ] && live_alive "$spawner" && [ "$kids" = "$w " ] &&
	[ "$(worker_pid)" = "$w" ]; then
	ok "requests of the wrong size, without a descriptor or with a pipe: closed; the spawner and jankd's worker go on"
else
	fail "requests of the wrong size, without a descriptor or with a pipe: closed ($r); the spawner and jankd's worker go on (children: $kids)"
fi
chmod 0600 "$sock"
chmod o-x "$LIVE_TMP"

# A spawner's worker that makes a socket: killed by its filter, said (its
# status from the spawner), replaced by the spawner.
said=$(seccomp_said)
make_socket "$w"
live_wait 10 new_worker "$w" || true
# Its end is said when the spawner's report of its status comes, which
# may be after its replacement connected.
live_wait_for 10 '[ "$(seccomp_said)" -gt "$said" ]' || true
w2=$(worker_pid)
if [ "$(seccomp_said)" = $((said + 1)) ] && [ -n "$w2" ] && [ "$w2" != "$w" ] &&
	[ "$(ppid_of "$w2")" = "$spawner" ]; then
	ok "a spawner's worker that calls socket(AF_INET) is killed by its filter; jankd says so, the spawner starts another, which connects"
else
	fail "a spawner's worker that calls socket(AF_INET) is killed by its filter; jankd says so, the spawner starts another, which connects (said $said, then $(seccomp_said); worker $w, now ${w2:-none})"
	sed 's/^/#   gdb: /' "$LIVE_TMP/gdb.out"
fi
w=$w2

# A worker killed by SIGSYS: the spawner says its status (which, as above,
# may come after its replacement connected).
said=$(seccomp_said)
kill -SYS "$w"
live_wait 10 new_worker "$w" || true
live_wait_for 10 '[ "$(seccomp_said)" -gt "$said" ]' || true
w2=$(worker_pid)
if [ "$(seccomp_said)" = $((said + 1)) ] && [ -n "$w2" ] &&
	[ "$w2" != "$w" ] && [ "$(ppid_of "$w2")" = "$spawner" ]; then
	ok "a worker killed by SIGSYS: jankd logs the seccomp filter (status from the spawner), a new worker from the spawner"
else
	fail "a worker killed by SIGSYS: jankd logs the seccomp filter (status from the spawner), a new worker from the spawner"
	live_jankd_diag
fi

# The spawner killed: its worker dies with it; jankd says so, and starts
# its worker again once a spawner listens again.
kill -KILL "$spawner"
wait "$spawner" 2>/dev/null
live_forget "$spawner"
live_wait 10 live_jankd_logged "worker was lost with the connection to the worker spawner" || true
if live_jankd_logged "worker was lost with the connection to the worker spawner ($sock)" &&
	live_wait 5 eval '! live_alive "$w2"'; then
	ok "the spawner killed: its worker dies with it, and jankd says the worker was lost with the spawner"
else
	fail "the spawner killed: its worker dies with it, and jankd says the worker was lost with the spawner"
	live_jankd_diag
fi
spawner_start 2
live_wait 40 new_worker "$w2" || true
w3=$(worker_pid)
if [ -n "$w3" ] && [ "$w3" != "$w2" ] && [ "$(ppid_of "$w3")" = "$spawner" ]; then
	ok "a new spawner: jankd's worker runs again under it (pid $w3)"
else
	fail "a new spawner: jankd's worker runs again under it (pid ${w3:-none})"
	live_jankd_diag
fi
live_demo "$LIVE_TMP/demo3.out" --cause sleep --count 20 --slow-every 5 --normal 1ms \
	--slow 60ms --interval 5ms
live_wait 10 live_jank_at_least 8 "$action" JANK_KIND=completed _PID="$LIVE_JANKD_PID" || true
n=$(live_jank_count "$action" JANK_KIND=completed _PID="$LIVE_JANKD_PID")
check "... and alerts again: 8 slow actions in all (got $n)" [ "$n" = 8 ]
live_stop_jankd
rc=$?
check "jankd stops cleanly (exit $rc), and the spawner's worker ends with it" \
	[ "$rc" = 0 -a -z "$(ps -o pid= --ppid "$spawner")" ]
