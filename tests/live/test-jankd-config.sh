# SPDX-License-Identifier: MIT
# tests/live/test-jankd-config.sh: jankd's start-up errors.
#
# A malformed config (or drop-in) is refused at once with exit status 1, a
# bad command line with 2 (jankd(8): systemd's unit keeps both out of its
# restarts), and one line on stderr that names the file and the line. Needs neither root nor
# lttng: jankd stops before it attaches to anything.
. "$top_srcdir/tests/tap.sh"

JANKD=${JANKD:-$top_builddir/daemon/jankd}
[ -x "$JANKD" ] || plan_skip_all "$JANKD is not built (make -C daemon)"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

plan 22

# refused [--usage] DESCRIPTION PATTERN ARGS...: exit 1 (2 with --usage),
# nothing on stdout, one line on stderr that matches the extended regex
# PATTERN, no control socket left.
refused() {
	local want=1 desc pattern rc

	[ "$1" = --usage ] && want=2 && shift
	desc=$1 pattern=$2
	shift 2
	timeout 10 "$JANKD" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -Eq -- "$pattern" "$tmp/err" && [ ! -e "$tmp/control" ]; then
		ok "$desc"
	else
		fail "$desc (exit $rc)"
		sed 's/^/#   /' "$tmp/err" "$tmp/out"
	fi
}

# conf NAME: write stdin to NAME.conf, with a control socket under $tmp.
conf() {
	cat >"$tmp/$1.conf"
}

good_rule='[action frame]
begin = jank:action_begin
end = jank:action_end
threshold = 16ms'

conf unknown-key <<X
[daemon]
control-socket = $tmp/control
[graph]
retention = 2s
colour = blue
$good_rule
X
refused "unknown key: FILE:LINE" "^jankd: $tmp/unknown-key.conf:5: unknown key 'colour' in section \[graph\]$" \
	--config "$tmp/unknown-key.conf"

conf bad-threshold <<X
[live]
url = net://localhost/host/h/s
[action frame]
begin = jank:action_begin
end = jank:action_end
threshold = fast
X
refused "bad threshold: FILE:LINE" "^jankd: $tmp/bad-threshold.conf:6: bad duration 'fast' for threshold$" \
	--config "$tmp/bad-threshold.conf"

conf bad-url-list <<X
[live]
url = net://localhost/host/h/a, , net://localhost/host/h/b
$good_rule
X
refused "url list with an empty element" "^jankd: $tmp/bad-url-list.conf:2: bad url list" \
	--config "$tmp/bad-url-list.conf"

conf bad-port <<X
[live]
create = yes
relayd-live-port = 70000
$good_rule
X
refused "bad relayd-live-port" "^jankd: $tmp/bad-port.conf:3: bad port '70000' for relayd-live-port" \
	--config "$tmp/bad-port.conf"

conf bad-socket <<X
[daemon]
control-socket = run/jankd.sock
$good_rule
X
refused "relative control-socket" "^jankd: $tmp/bad-socket.conf:2: bad control-socket 'run/jankd.sock'" \
	--config "$tmp/bad-socket.conf"

conf bad-rate <<X
[alerts]
rate-limit = 10 per minute
$good_rule
X
refused "bad rate-limit" "^jankd: $tmp/bad-rate.conf:2: bad rate-limit '10 per minute'" \
	--config "$tmp/bad-rate.conf"

conf root-workers <<X
[live]
url = net://localhost/host/h/s
[daemon]
worker-user = root
$good_rule
X
refused "worker-user = root without workers-as-root" \
	"^jankd: $tmp/root-workers.conf:4: \[daemon\]: 'worker-user = root' needs 'workers-as-root = yes'" \
	--config "$tmp/root-workers.conf"

conf bad-user <<X
[daemon]
worker-user = -jank
$good_rule
X
refused "bad worker-user" "^jankd: $tmp/bad-user.conf:2: bad worker-user '-jank' .expected a user name" \
	--config "$tmp/bad-user.conf"

conf no-action <<X
[live]
url = net://localhost/host/h/s
[daemon]
control-socket = $tmp/control
X
refused "no [action] section" "^jankd: $tmp/no-action.conf: no \[action \.\.\.\] section" \
	--config "$tmp/no-action.conf"

conf no-live <<X
[daemon]
control-socket = $tmp/control
$good_rule
X
refused "no url and no create = yes" "^jankd: $tmp/no-live.conf: \[live\]: no 'url' and no 'create = yes'" \
	--config "$tmp/no-live.conf"

# A drop-in (conf.d/ beside the config) is read as jankctl reads it: its
# errors name it and its line.
mkdir -p "$tmp/etc/conf.d"
cat >"$tmp/etc/jankd.conf" <<X
[live]
url = net://localhost/host/h/s
[daemon]
control-socket = $tmp/control
$good_rule
X
printf '[action frame]\nthreshold = soon\n' >"$tmp/etc/conf.d/50-app.conf"
refused "a drop-in's error: its FILE:LINE" \
	"^jankd: $tmp/etc/conf.d/50-app.conf:2: bad duration 'soon' for threshold$" \
	--config "$tmp/etc/jankd.conf"

refused "missing file" "^jankd: $tmp/nope.conf: No such file or directory$" --config "$tmp/nope.conf"
refused --usage "no --config" "^jankd: --config FILE is required" --foreground
refused --usage "unknown option" "^jankd: unknown option '--daemonize'" --config "$tmp/no-live.conf" --daemonize
refused --usage "bad --log-target" "^jankd: bad --log-target 'syslog'" --config "$tmp/no-live.conf" \
	--log-target=syslog
refused --usage "bad --worker-spawner" "^jankd: bad --worker-spawner 'workers.sock' \(expected the absolute path" \
	--config "$tmp/no-live.conf" --worker-spawner workers.sock
refused --usage "--worker-spawner too long" "^jankd: bad --worker-spawner '/$(printf 'x%.0s' $(seq 120))' \(expected" \
	--config "$tmp/no-live.conf" --worker-spawner "/$(printf 'x%.0s' $(seq 120))"
refused --usage "stray argument" "^jankd: unexpected argument 'extra'" --config "$tmp/no-live.conf" extra

# prints ARGS -- PATTERN: exit 0 and stdout matching PATTERN.
prints() {
	local pattern

	for pattern; do :; done
	"$JANKD" "$1" >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ] && grep -Eq "$pattern" "$tmp/out"
}
check "--help: exit 0, usage" prints --help '^Usage: jankd --config FILE'
check "--help documents the exit statuses" prints --help \
	'^Exit status: 0 stopped cleanly, 1 bad configuration, 2 bad usage, 3 failure while running'
check "--version: exit 0" prints --version '^jankd \(jank\) [0-9]'

# The journal catalog of the MESSAGE_IDs parses, and documents both.
if command -v journalctl >/dev/null 2>&1; then
	mkdir -p "$tmp/root/usr/lib/systemd/catalog"
	cp "$top_srcdir/daemon/jankd.catalog" "$tmp/root/usr/lib/systemd/catalog/"
	journalctl --root="$tmp/root" --update-catalog >"$tmp/out" 2>&1 &&
		journalctl --root="$tmp/root" --list-catalog >"$tmp/out" 2>&1
	check "jankd.catalog documents both MESSAGE_IDs" [ "$(grep -Ec \
		'^(3f5b0c2e8a6d4e1b9c7a5d3e1f2b4c6a|7c1e9a3b5d2f4e6a8b0c2d4e6f8a1b3c) jank: ' "$tmp/out")" = 2 ]
else
	skip "jankd.catalog documents both MESSAGE_IDs" "journalctl not found"
fi
