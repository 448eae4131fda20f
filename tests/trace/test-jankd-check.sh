#!/bin/sh
# tests/trace/test-jankd-check.sh: jankd's first hour, without lttng.
#
# `jankd --check-config` on every example (systemd/jankd.conf, and
# examples/ros2-flows.conf as its drop-in) exits 0; on broken files it
# prints each problem with its file and line (a bad value; a worker user
# that does not exist, with the useradd that makes it; a state directory
# that cannot be made; a relayd that does not resolve; an address not of
# this host; a spawner socket that is not there, with the systemctl that
# starts it) and exits 1. At start, jankd exits 1 on what cannot fix itself
# (the worker user when it is root, a state directory it cannot use, a
# missing spawner socket), with the fix; a relayd that is not up is retried
# and `jankctl status` says which input is blind, why and since when. In a
# terminal (script(1)'s pty), jankd's messages and the worker-user error
# are on stderr.
#
# The host-dependent keys of the examples (directories, the control socket)
# are pointed into the test's directory by a drop-in; the worker user is
# the examples' own when it exists, else the test's user.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

JANKD=${JANKD:-$top_builddir/daemon/jankd}
[ -x "$JANKD" ] || plan_skip_all "$JANKD is not built"

plan 19

# expect DESC SHELL-CONDITION: ok when the condition (evaluated) holds.
expect() {
	if eval "$2"; then ok "$1"; else fail "$1"; fi
}

me=$(id -un)
# The user the examples' workers run as, or one that exists here.
if getent passwd jank-worker >/dev/null 2>&1; then
	wuser='' # the examples' own
elif [ "$(id -u)" = 0 ]; then
	wuser='worker-user = root
workers-as-root = yes'
else
	wuser="worker-user = $me"
fi

# setup NAME MAIN [DROPIN...]: $tmp/NAME/jankd.conf (a copy of MAIN), its
# drop-ins in conf.d/ (50-NAME.conf each), and 10-host.conf: this test's
# directories and control socket.
setup() {
	d=$tmp/$1
	mkdir -p "$d/conf.d" "$d/state" "$d/captures"
	cp "$2" "$d/jankd.conf"
	shift 2
	for f in "$@"; do
		cp "$f" "$d/conf.d/50-$(basename "$f")"
	done
	cat >"$d/conf.d/10-host.conf" <<EOF
[daemon]
state-dir = $d/state
control-socket = $d/run/control
$wuser
[capture]
dir = $d/captures
EOF
}

# ---- --check-config on the examples ----

setup example "$top_srcdir/systemd/jankd.conf"
"$JANKD" --check-config --config "$tmp/example/jankd.conf" >"$tmp/out" 2>"$tmp/err"
st=$?
expect "--check-config: systemd/jankd.conf is good (exit $st: $(cat "$tmp/out" "$tmp/err"))" \
	'[ "$st" = 0 ] && [ ! -s "$tmp/err" ]'
expect "... and says so: its drop-ins and rules" \
	'grep -qx "$tmp/example/jankd.conf: configuration OK (1 drop-in, 1 rule, 0 flows)" "$tmp/out"'

setup ros2 "$top_srcdir/systemd/jankd.conf" "$top_srcdir/examples/ros2-flows.conf"
"$JANKD" -t -c "$tmp/ros2/jankd.conf" >"$tmp/out" 2>"$tmp/err"
st=$?
expect "--check-config: examples/ros2-flows.conf as a drop-in of it is good (exit $st: $(cat "$tmp/out" "$tmp/err"))" \
	'[ "$st" = 0 ] && [ ! -s "$tmp/err" ]'
expect "... 2 drop-ins, 2 rules, 1 flow" \
	'grep -qx "$tmp/ros2/jankd.conf: configuration OK (2 drop-ins, 2 rules, 1 flow)" "$tmp/out"'

# A file alone is no jankd configuration: it watches no session.
"$JANKD" --check-config --config "$top_srcdir/examples/ros2-flows.conf" >"$tmp/out" 2>"$tmp/err"
st=$?
expect "--check-config: examples/ros2-flows.conf alone watches no live session (exit $st)" \
	'[ "$st" = 1 ] && [ ! -s "$tmp/out" ] && grep -q "ros2-flows.conf: \[live\]: no '\''url'\''" "$tmp/err"'

# ---- Broken files ----

setup bad-value "$top_srcdir/systemd/jankd.conf"
printf '# a drop-in\n[graph]\nretention = soon\n' >"$tmp/bad-value/conf.d/90-bad.conf"
"$JANKD" --check-config --config "$tmp/bad-value/jankd.conf" >"$tmp/out" 2>"$tmp/err"
st=$?
expect "--check-config: a bad value: exit 1, its file and line (got $st: $(head -n 1 "$tmp/err"))" \
	'[ "$st" = 1 ] && [ ! -s "$tmp/out" ]'
expect "... FILE:LINE: [graph] retention" \
	'grep -q "^$tmp/bad-value/conf.d/90-bad.conf:3: .*retention" "$tmp/err"'

setup bad-host "$top_srcdir/systemd/jankd.conf"
touch "$tmp/bad-host/file"
cat >"$tmp/bad-host/conf.d/90-bad.conf" <<EOF
[daemon]
worker-user = nobody-such
workers-as-root = no
state-dir = $tmp/bad-host/file/state
[live]
relayd = net://no-such-host.invalid
[metrics]
listen = 192.0.2.1:9100
listen-public = yes
EOF
"$JANKD" --check-config --config "$tmp/bad-host/jankd.conf" --worker-spawner "$tmp/none.sock" \
	>"$tmp/out" 2>"$tmp/err"
st=$?
"$JANKD" --check-config --config "$tmp/bad-host/jankd.conf" >"$tmp/out2" 2>"$tmp/err2"
bad=$tmp/bad-host/conf.d/90-bad.conf
expect "--check-config: what the host lacks: exit 1, 4 problems (got $st)" \
	'[ "$st" = 1 ] && [ "$(tail -n 1 "$tmp/err")" = "$tmp/bad-host/jankd.conf: 4 problems" ]'
expect "... the state directory, at its line" \
	'grep -q "^$bad:4: \[daemon\] state-dir: '\''$tmp/bad-host/file/state'\'' cannot be reached: Not a directory" "$tmp/err"'
expect "... the relayd that does not resolve, at its line" \
	'grep -q "^$bad:6: \[live\] relayd: '\''net://no-such-host.invalid'\'': cannot resolve '\''no-such-host.invalid'\''" "$tmp/err"'
expect "... the address not of this host, at its line" \
	'grep -q "^$bad:8: \[metrics\] listen: cannot listen on 192.0.2.1: Cannot assign requested address" "$tmp/err"'
expect "... the spawner socket that is not there, and what starts it" \
	'grep -A1 -q "^--worker-spawner: $tmp/none.sock: No such file or directory" "$tmp/err" && grep -qx "  fix: systemctl start jankd-workers.socket" "$tmp/err"'
expect "... without the spawner: the worker user that does not exist, and the useradd that makes it" \
	'grep -A1 "^$bad:2: \[daemon\] worker-user: no user '\''nobody-such'\''" "$tmp/err2" | grep -qx "  fix: useradd --system --no-create-home --shell /usr/sbin/nologin nobody-such"'

# ---- At start: what cannot fix itself ----

# live_conf [STATE-DIR [WORKER-USER-LINES]]: a config of one input on a
# relayd that is not there (port 1); the worker user on line 7.
live_conf() {
	mkdir -p "$tmp/run"
	cat <<EOF
[live]
url = net://127.0.0.1:1/host/h/s
[daemon]
control-socket = $tmp/run/control
state-dir = ${1:-$tmp/run/state}
ready-timeout = 1s
${2:-$wuser}
[alerts]
target = stderr
[action a]
begin = jank:action_begin
end = jank:action_end
threshold = 10ms
EOF
}

live_conf >"$tmp/start.conf"
"$JANKD" --config "$tmp/start.conf" --worker-spawner "$tmp/none.sock" >"$tmp/out" 2>"$tmp/err"
st=$?
printf 'jankd: --worker-spawner: %s: No such file or directory: the worker spawner does not listen there\njankd:   fix: systemctl start jankd-workers.socket\n' \
	"$tmp/none.sock" >"$tmp/want"
expect "start: a spawner socket that is not there: exit 1, with what starts it (got $st)" \
	'[ "$st" = 1 ] && cmp -s "$tmp/want" "$tmp/err"'

mkdir -p "$tmp/locked"
chmod 0700 "$tmp/locked"
live_conf "$tmp/locked/state" >"$tmp/locked.conf"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	# Another user, as jankd would be: the directory is root's.
	chmod 0755 "$tmp" "$tmp/run"
	chmod 0644 "$tmp/locked.conf"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$JANKD" --config "$tmp/locked.conf" \
		>"$tmp/out" 2>"$tmp/err"
	st=$?
else
	chmod 0000 "$tmp/locked"
	"$JANKD" --config "$tmp/locked.conf" >"$tmp/out" 2>"$tmp/err"
	st=$?
	chmod 0700 "$tmp/locked"
fi
expect "start: a state directory jankd cannot reach: exit 1 (got $st: $(head -n 1 "$tmp/err"))" \
	'[ "$st" = 1 ] && grep -q "^jankd: $tmp/locked.conf:5: \[daemon\] state-dir: '\''$tmp/locked/state'\'' cannot be reached: Permission denied" "$tmp/err"'

if [ "$(id -u)" = 0 ] && command -v script >/dev/null 2>&1; then
	live_conf "" "worker-user = nobody-such" >"$tmp/nouser.conf"
	# A first run in a terminal: the error and its fix are on its screen.
	script -qec "'$JANKD' --config '$tmp/nouser.conf'; echo exit=\$?" /dev/null >"$tmp/tty" 2>&1
	expect "start in a terminal as root: no worker user: the error, its fix and exit 1 on the screen" \
		'grep -q "^jankd: $tmp/nouser.conf:7: \[daemon\] worker-user: no user '\''nobody-such'\''" "$tmp/tty" && grep -q "^jankd:   fix: useradd --system --no-create-home --shell /usr/sbin/nologin nobody-such" "$tmp/tty" && grep -q "^exit=1" "$tmp/tty"'
else
	skip "start in a terminal as root: no worker user" "needs root and script(1)"
fi

# ---- What can fix itself: retried, and status says so ----

live_conf >"$tmp/retry.conf"
if command -v script >/dev/null 2>&1; then
	# In a terminal: jankd's messages on it, not in a journal.
	script -qfec "exec '$JANKD' --config '$tmp/retry.conf'" /dev/null >"$tmp/tty" 2>&1 &
	spid=$!
	i=0
	until grep -q "not attached yet" "$tmp/tty" 2>/dev/null || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$JANKCTL" status --socket "$tmp/run/control" >"$tmp/status" 2>&1
	"$JANKCTL" status --socket "$tmp/run/control" --format json >"$tmp/status.json" 2>&1
	jpid=$("$JQ" -r .pid "$tmp/status.json" 2>/dev/null)
	[ -z "$jpid" ] || kill -TERM "$jpid" 2>/dev/null
	wait "$spid" 2>/dev/null
	expect "in a terminal: a relayd not up is retried, and said on the terminal" \
		'grep -q "^jankd: net://127.0.0.1:1/host/h/s: not attached yet (.*Connection refused); watching for it" "$tmp/tty"'
	expect "status, second line: 1 input, 0 connected, 1 BLIND; the input, why and since when" \
		'sed -n 2,3p "$tmp/status" | tr '\''\n'\'' '\''|'\'' | grep -Eq "^inputs: 1, 0 connected, 1 BLIND \(seeing no events; retrying\):\|  net://127.0.0.1:1/host/h/s: [a-z]+ since [0-9-]+ [0-9:.]+ \([0-9]+s\): relayd unreachable: .*Connection refused\|$"'
	blind='.inputs_blind == 1 and .inputs[0].blind and (.inputs[0].blind_reason | startswith("relayd unreachable: ")) and .inputs[0].blind_since > 1600000000000000000'
	expect "status JSON: inputs_blind 1, the input's blind_reason and blind_since" \
		'"$JQ" -e "$blind" "$tmp/status.json" >/dev/null'
else
	skip "in a terminal: a relayd not up is retried" "script(1) not found (util-linux)"
	skip "status: blind" "script(1) not found (util-linux)"
	skip "status JSON: blind" "script(1) not found (util-linux)"
fi
