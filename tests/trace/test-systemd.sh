#!/bin/sh
# systemd/: `make install DESTDIR=...` puts the units, the example config,
# the journal catalog and the tmpfiles.d entry in place; systemd-analyze
# verify accepts the units, and rates jankd.service's sandbox 1.3 or better
# and jankd-workers.service's 1.0 or better, jankd-opener@.service's 1.3
# (systemd-analyze security); jankd's workers come from jankd-workers.service,
# as jank-worker, on the socket jankd is told of, and their binary opener from
# jankd-opener@.service, with its three capabilities; jankd runs with the
# group jank; journalctl parses the catalog; systemd-sysusers and
# systemd-tmpfiles create the users and the capture directory (2750
# root:jank); the example config loads; a config an admin edited survives a
# reinstall and an uninstall. Needs no root.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

for cmd in systemd-analyze journalctl systemd-tmpfiles; do
	command -v "$cmd" >/dev/null 2>&1 ||
		plan_skip_all "$cmd not found (install the Debian package systemd)"
done

plan 20

root=$tmp/root
# A make of our own: not the jobserver of the make that runs the tests.
# On failure, the end of its output.
submake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -C "$top_builddir" "$@" \
		DESTDIR="$root" >"$tmp/make.log" 2>&1 && return 0
	diag "make $* failed:"
	tail -n 20 "$tmp/make.log" | sed 's/^/#   /'
	return 1
}

# COMMANDS; result DESCRIPTION: ok when COMMANDS (an && list) succeeded.
result() {
	st=$?
	if [ "$st" = 0 ]; then ok "$1"; else fail "$1"; fi
	return "$st"
}

submake install
result "make install DESTDIR=... exits 0"

unit=$(find "$root" -path '*/systemd/system/jankd.service' -type f)
relayd_unit=$(find "$root" -path '*/systemd/system/jank-relayd.service' -type f)
workers_unit=$(find "$root" -path '*/systemd/system/jankd-workers.service' -type f)
socket_unit=$(find "$root" -path '*/systemd/system/jankd-workers.socket' -type f)
opener_unit=$(find "$root" -path '*/systemd/system/jankd-opener@.service' -type f)
opener_socket=$(find "$root" -path '*/systemd/system/jankd-opener.socket' -type f)
tmpfiles=$(find "$root" -path '*/lib/tmpfiles.d/jankd.conf' -type f)
catalog=$(find "$root" -path '*/lib/systemd/catalog/jankd.catalog' -type f)
mandir=$(find "$root" -type d -path '*/share/man' | head -n 1)
[ -n "$unit" ] && [ -n "$relayd_unit" ] && [ -n "$workers_unit" ] && [ -n "$socket_unit" ] &&
	[ -n "$opener_unit" ] && [ -n "$opener_socket" ] && [ -n "$tmpfiles" ] && [ -n "$catalog" ] && [ -n "$mandir" ]
result "the units, the tmpfiles.d entry, the catalog and the man pages are installed"

# ExecStart=BINDIR/jankd --config SYSCONFDIR/jankd/jankd.conf, under DESTDIR.
exec_line=$(sed -n 's/^ExecStart=//p' "$unit")
bin=${exec_line%% *}
conf=$(echo "$exec_line" | sed -n 's/.* --config \([^ ]*\).*/\1/p')
diag "ExecStart=$exec_line"
[ -x "$root$bin" ] && [ -n "$conf" ] && [ -f "$root$conf" ]
result "ExecStart names the installed jankd and the installed config"

# systemd-analyze verify wants ExecStart's binary where the unit says: give
# it a copy of the unit that points into DESTDIR, and the installed pages
# (then the system's: lttng-relayd(8)) for Documentation=.
mkdir "$tmp/verify"
sed "s|^ExecStart=$bin |ExecStart=$root$bin |; s|^ExecReload=$bin |ExecReload=$root$bin |" "$unit" >"$tmp/verify/jankd.service"
sed "s|^ExecStart=$bin |ExecStart=$root$bin |" "$workers_unit" >"$tmp/verify/jankd-workers.service"
sed "s|^ExecStart=$bin |ExecStart=$root$bin |" "$opener_unit" >"$tmp/verify/jankd-opener@.service"
cp "$relayd_unit" "$socket_unit" "$opener_socket" "$tmp/verify/"
MANPATH=$mandir: systemd-analyze verify "$tmp/verify/jankd.service" \
	"$tmp/verify/jank-relayd.service" "$tmp/verify/jankd-workers.service" \
	"$tmp/verify/jankd-workers.socket" "$tmp/verify/jankd-opener.socket" \
	"$tmp/verify/jankd-opener@.service" >"$tmp/verify.out" 2>&1
# What other packages provide may be missing here (a build chroot has no
# procps or lttng-tools): said, not counted against the units.
others='Command (/bin/kill|lttng-relayd) is not executable|'"Command 'man lttng-relayd\\(8\\)' failed"
grep -E "$others" "$tmp/verify.out" | sed 's/^/# not installed here: /'
! grep -Ev "$others" "$tmp/verify.out" | grep -q .
result "systemd-analyze verify: no complaint" || sed 's/^/# /' "$tmp/verify.out"
# --offline: the unit file alone, not the running system (PID 1 may not be systemd).
# 1.3 with systemd 252: see the comments at the end of [Service] in
# systemd/jankd.service.in.
systemd-analyze security --offline=yes --threshold=13 "$tmp/verify/jankd.service" \
	>"$tmp/security.out" 2>&1
result "systemd-analyze security: jankd.service's exposure is 1.3 or less" ||
	sed 's/^/# /' "$tmp/security.out"
diag "$(grep 'Overall exposure' "$tmp/security.out")"
systemd-analyze security --offline=yes --threshold=10 "$tmp/verify/jankd-workers.service" \
	>"$tmp/security-workers.out" 2>&1
result "systemd-analyze security: jankd-workers.service's exposure is 1.0 or less" ||
	sed 's/^/# /' "$tmp/security-workers.out"
diag "$(grep 'Overall exposure' "$tmp/security-workers.out")"
systemd-analyze security --offline=yes --threshold=13 "$tmp/verify/jankd-opener@.service" \
	>"$tmp/security-opener.out" 2>&1
result "systemd-analyze security: jankd-opener@.service's exposure is 1.3 or less" ||
	sed 's/^/# /' "$tmp/security-opener.out"
diag "$(grep 'Overall exposure' "$tmp/security-opener.out")"

# jankd asks the spawner on the socket that jankd-workers.socket listens on;
# the spawner runs as the user that sysusers.d creates, without capability.
sock=$(sed -n 's/^ListenSequentialPacket=//p' "$socket_unit")
sysusers=$(find "$root" -path '*/lib/sysusers.d/jank.conf' -type f)
[ -n "$sock" ] && grep -q "^	--worker-spawner $sock\$" "$unit" &&
	grep -qx 'Requires=jankd-workers.socket' "$unit" && grep -qx 'SocketMode=0600' "$socket_unit" &&
	grep -qx "ExecStart=$bin --worker-spawner" "$workers_unit" &&
	grep -qx 'User=jank-worker' "$workers_unit" && grep -qx 'CapabilityBoundingSet=' "$workers_unit" &&
	grep -qx 'CapabilityBoundingSet=' "$unit" && grep -qx 'PrivateUsers=yes' "$unit" &&
	grep -q '^u jank-worker ' "$sysusers" && grep -qx 'g jank -' "$sysusers" &&
	grep -q "^ExecReload=$bin --check-config --config " "$unit"
result "jankd (no capability) gets its workers from jankd-workers.service (jank-worker) on $sock"

# The binary opener: one instance per connection to a socket of root's, as
# jank-opener with three capabilities (the same in both sets), no other;
# jankd is told of its socket. jankd runs with the group jank (its operators').
osock=$(sed -n 's/^ListenSequentialPacket=//p' "$opener_socket")
caps='CAP_CHECKPOINT_RESTORE CAP_SYS_PTRACE CAP_DAC_READ_SEARCH'
[ -n "$osock" ] && grep -q -- "--binary-opener $osock\$" "$unit" &&
	grep -qx 'Wants=jankd-opener.socket' "$unit" && grep -qx 'Accept=yes' "$opener_socket" &&
	grep -qx 'SocketMode=0600' "$opener_socket" && grep -qx 'SocketUser=root' "$opener_socket" &&
	grep -qx "ExecStart=$bin --binary-opener" "$opener_unit" &&
	grep -qx 'User=jank-opener' "$opener_unit" && grep -qx "AmbientCapabilities=$caps" "$opener_unit" &&
	grep -qx "CapabilityBoundingSet=$caps" "$opener_unit" &&
	grep -qx 'NoNewPrivileges=yes' "$opener_unit" && ! grep -q '^PrivateUsers=' "$opener_unit" &&
	grep -q '^u jank-opener ' "$sysusers" && grep -qx 'Group=jank' "$unit"
result "jankd's workers get their binary opener from jankd-opener@.service (jank-opener, $caps) on $osock; jankd runs with the group jank"

grep -qx 'Type=notify' "$unit" && grep -qx 'WatchdogSec=30s' "$unit" &&
	grep -qx 'Restart=on-failure' "$unit" && grep -qx 'RestartPreventExitStatus=1 2' "$unit" &&
	grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$unit"
result "Type=notify, WatchdogSec=30s, Restart=on-failure but not on exit 1 or 2, reload by HUP"
grep -qx 'Wants=lttng-sessiond.service jank-relayd.service' "$unit" &&
	grep -q '^After=.*lttng-sessiond.service jank-relayd.service' "$unit" &&
	grep -qx 'StateDirectory=jankd' "$unit" && grep -qx 'RuntimeDirectory=jankd' "$unit" &&
	grep -qx 'ProtectSystem=strict' "$unit" &&
	grep -qx 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6' "$unit"
result "wants and follows lttng-sessiond and jank-relayd; state and runtime directories; sandboxed"
grep -q '^ExecStart=lttng-relayd --daemonize' "$relayd_unit" &&
	grep -qx 'StopWhenUnneeded=yes' "$relayd_unit" &&
	grep -c 'tcp://127.0.0.1:534[234]' "$relayd_unit" | grep -qx 3
result "jank-relayd: lttng-relayd on loopback ports 5342-5344, while jankd wants it"

# journalctl looks in /usr/lib/systemd/catalog (and /usr/local/...) of its
# root, wherever --prefix put ours.
mkdir -p "$tmp/catroot/usr/lib/systemd/catalog"
cp "$catalog" "$tmp/catroot/usr/lib/systemd/catalog/"
journalctl --root="$tmp/catroot" --update-catalog >"$tmp/catalog.out" 2>&1 &&
	journalctl --root="$tmp/catroot" --list-catalog >"$tmp/catalog.list" 2>>"$tmp/catalog.out"
result "journalctl parses the catalog" || sed 's/^/# /' "$tmp/catalog.out"
grep -q '^3f5b0c2e8a6d4e1b9c7a5d3e1f2b4c6a jank: ' "$tmp/catalog.list" &&
	grep -q '^7c1e9a3b5d2f4e6a8b0c2d4e6f8a1b3c jank: ' "$tmp/catalog.list"
result "the catalog documents the jank and the suppressed-alerts MESSAGE_IDs"

# As at boot: the users and groups first (sysusers.d), then the directories.
mkdir -p "$root/etc"
systemd-sysusers --root="$root" "$sysusers" >"$tmp/tmpfiles.out" 2>&1 &&
	systemd-tmpfiles --root="$root" --create "$tmpfiles" >>"$tmp/tmpfiles.out" 2>&1 &&
	jgid=$(sed -n 's/^jank:x:\([0-9]*\):.*/\1/p' "$root/etc/group") && [ -n "$jgid" ] &&
	[ "$(stat -c '%a %g' "$root/var/lib/jankd/captures")" = "2750 $jgid" ] &&
	[ "$(stat -c '%a %g' "$root/var/lib/jankd")" = "750 $jgid" ] &&
	[ "$(stat -c %a "$root/var/lib/jankd/state")" = 700 ]
result "systemd-sysusers and systemd-tmpfiles make jank, /var/lib/jankd 0750 and its captures 2750 root:jank, its state 0700" ||
	sed 's/^/# /' "$tmp/tmpfiles.out"

cmp -s "$top_srcdir/systemd/jankd.conf" "$root$conf"
result "the installed config is the example systemd/jankd.conf"
mkdir "$tmp/empty"
expect_error "the example config loads (jankctl stops at the empty trace, not at the config)" \
	1 "^jankctl: $tmp/empty: no CTF trace found" -- \
	"$JANKCTL" analyze --config "$root$conf" "$tmp/empty"

# An admin's config is never overwritten nor removed.
echo "# edited by the admin" >>"$root$conf"
submake install && grep -qx '# edited by the admin' "$root$conf"
result "make install again keeps an edited config"
submake uninstall && [ ! -e "$unit" ] && [ ! -e "$relayd_unit" ] && [ ! -e "$workers_unit" ] &&
	[ ! -e "$socket_unit" ] && [ ! -e "$opener_unit" ] && [ ! -e "$opener_socket" ] &&
	[ ! -e "$tmpfiles" ] &&
	[ ! -e "$catalog" ] &&
	grep -qx '# edited by the admin' "$root$conf"
result "make uninstall removes the units, tmpfiles.d entry and catalog, keeps the edited config"
cp "$top_srcdir/systemd/jankd.conf" "$root$conf"
submake uninstall && [ ! -e "$root$conf" ]
result "make uninstall removes the config when it is still the example"
