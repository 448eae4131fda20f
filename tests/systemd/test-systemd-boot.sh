#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/systemd/test-systemd-boot.sh: jank under a real systemd.
#
# Boots systemd as PID 1 in a throw-away container: private PID, mount, UTS,
# IPC, network and cgroup namespaces (loopback only), its root an overlayfs
# (moved onto / and chrooted into, as systemd-nspawn does) whose lower layer
# is the host's root and whose upper layer is a tmpfs of the container's
# own, with /proc, /sys (both read-only where the host's kernel settings
# live), a minimal /dev, and tmpfs on /run and /tmp. The host's system files
# are never written, its /tmp (where the live tests keep their lock) and
# /run (its lttng-sessiond, if any) are never seen, and every mount lives and
# dies with the container's mount namespace.
#
# jank goes in either from the Debian packages in $JANK_DEBS (default
# $top_builddir/deb, which `make deb` fills), or with `make install
# DESTDIR=...`. Then, with lttng-sessiond and jank-relayd as units:
# jankd.service starts (Type=notify), alerts on jank-demo's slow actions in
# the journal, captures with a report, reloads, is restarted by the watchdog
# after SIGSTOP and alerts again, destroys its sessions when stopped, and
# runs in its sandbox without any capability, in a user namespace of its
# own, its worker in jankd-workers.service (started on its socket) as
# jank-worker without capabilities under a seccomp filter of its own;
# packages install, and purge leaves nothing (but the user jank-worker).
#
# Needs root, unshare/nsenter, overlayfs, cgroup2, systemd and lttng-tools;
# skips (with the reason) otherwise, and under JANK_SKIP_LIVE. The container
# is killed by PID, its cgroup and temporary directory removed, on every
# path. JANK_BOOT_KEEP=1 keeps the temporary directory (logs, and the
# container's journal in journal.txt) for a look.
. "$top_srcdir/tests/tap.sh"

SYSTEMD=${SYSTEMD:-/lib/systemd/systemd}
JANK_DEBS=${JANK_DEBS:-${top_builddir:-.}/deb}
ALERT_ID=3f5b0c2e8a6d4e1b9c7a5d3e1f2b4c6a
CAPTURE_ID=5a8d2c4e6f1b3a5c7e9d1f3b5a7c9e1d
CT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

[ -n "${top_builddir:-}" ] || plan_skip_all "top_builddir is not set"
[ -z "${JANK_SKIP_LIVE:-}" ] || plan_skip_all "JANK_SKIP_LIVE is set (live tests ran in the main build)"
[ "$(id -u)" = 0 ] || plan_skip_all "needs root (namespaces, mounts, systemd as PID 1)"
for cmd in unshare nsenter chroot mount ip find lttng-sessiond lttng-relayd; do
	command -v "$cmd" >/dev/null 2>&1 || plan_skip_all "$cmd not found"
done
[ -x "$SYSTEMD" ] || plan_skip_all "$SYSTEMD not found (install the Debian package systemd)"
grep -qw overlay /proc/filesystems || plan_skip_all "no overlayfs in this kernel"
unshare --mount --uts --ipc --net --pid --cgroup --fork true 2>/dev/null ||
	plan_skip_all "cannot create mount, UTS, IPC, network, PID and cgroup namespaces here"
# The container gets a cgroup2 subtree of its own, made its cgroup root.
cgroot=
for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	if [ "$(stat -f -c %T "$d" 2>/dev/null)" = cgroup2fs ]; then
		cgroot=$d
		break
	fi
done
[ -n "$cgroot" ] || plan_skip_all "no cgroup2 hierarchy mounted (systemd needs one)"

debs=
if ls "$JANK_DEBS"/jank_*.deb "$JANK_DEBS"/libjank-ust0_*.deb "$JANK_DEBS"/jank-demo_*.deb \
	>/dev/null 2>&1; then
	debs=$(cd "$JANK_DEBS" && pwd)
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jank-boot.XXXXXX") || plan_skip_all "cannot create a temporary directory"
cg=
ct_outer=
ct_pid=

# ct COMMAND...: run COMMAND in the container (all its namespaces, its root).
ct() {
	nsenter --target "$ct_pid" --mount --uts --ipc --net --pid --cgroup --root --wd \
		env -i PATH="$CT_PATH" HOME=/root LANG=C.UTF-8 SYSTEMD_PAGER= "$@"
}

cleanup() {
	local i

	trap '' INT TERM # a second signal must not cut the cleanup short
	if [ -n "${JANK_BOOT_KEEP:-}" ] && [ -n "$ct_pid" ] && kill -0 "$ct_pid" 2>/dev/null; then
		ct journalctl --no-pager -o short-monotonic >"$tmp/journal.txt" 2>&1
	fi
	# SIGKILL to the container's PID 1 ends its PID namespace: every process
	# in it dies, and with them its mount namespace and all its mounts.
	# (Only while it is still unshare's child: never a PID reused since.)
	if [ -n "$ct_pid" ] && [ "$(ps -o ppid= -p "$ct_pid" 2>/dev/null | tr -d ' ')" = "$ct_outer" ]; then
		kill -KILL "$ct_pid" 2>/dev/null
	fi
	if [ -n "$ct_outer" ]; then
		wait "$ct_outer" 2>/dev/null
	fi
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		for i in $(seq 50); do
			find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null
			[ -d "$cg" ] || break
			sleep 0.1
		done
		[ -d "$cg" ] && echo "# could not remove the cgroup $cg"
	fi
	if [ -n "${JANK_BOOT_KEEP:-}" ]; then
		echo "# JANK_BOOT_KEEP: kept $tmp"
	else
		case "$tmp" in
		*/jank-boot.*) rm -rf "$tmp" ;;
		esac
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bail() {
	[ -n "${2:-}" ] && [ -f "$2" ] && tail -n 30 "$2" | sed 's/^/# /'
	echo "Bail out! $1"
	exit 1
}

# ---- What goes into the container ----

# Files of the container only, copied into its overlay before it boots.
ctetc=$tmp/etc-ct/etc
mkdir -p "$ctetc/systemd/system" "$ctetc/default"

# Without packages: make install, with the build's own prefix, into a
# staging directory that the container copies into its overlay too.
demo=/usr/bin/jank-demo
if [ -z "$debs" ]; then
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -C "$top_builddir" install \
		DESTDIR="$tmp/stage" >"$tmp/install.log" 2>&1 ||
		bail "make install DESTDIR=... failed" "$tmp/install.log"
	demo=$(cd "$tmp/stage" && find . -path '*/bin/jank-demo' | head -n 1)
	demo=${demo#.}
	unit=$(cd "$tmp/stage" && find . -name jankd.service | head -n 1)
	[ -n "$demo" ] && [ -n "$unit" ] || bail "make install put no jank-demo or jankd.service"
	# A unit directory that systemd does not read (configure was told
	# another): the units go to /etc/systemd/system.
	case "${unit%/*}" in
	./lib/systemd/system | ./usr/lib/systemd/system | ./usr/local/lib/systemd/system | \
		./etc/systemd/system) ;;
	*) cp "$tmp/stage/${unit%/*}"/jank*.service "$ctetc/systemd/system/" ;;
	esac
fi
# The boot target: sysinit (journald, tmpfiles) and sockets, nothing else
# of the host's (no getty, timers, or services it enabled).
cat >"$ctetc/systemd/system/boot-test.target" <<'EOF'
[Unit]
Description=boot test
Requires=sysinit.target sockets.target
After=sysinit.target sockets.target
AllowIsolate=yes
EOF
# Nothing may touch the host's kernel: no module loading, sysctl, binfmt,
# clock or udev. (Read-only /proc/sys and /sys stop most of it already.)
for u in systemd-modules-load.service systemd-sysctl.service systemd-binfmt.service \
	systemd-timesyncd.service systemd-udevd.service systemd-udev-trigger.service \
	systemd-udev-settle.service systemd-hwdb-update.service systemd-pstore.service \
	kmod-static-nodes.service modprobe@.service proc-sys-fs-binfmt_misc.automount \
	systemd-remount-fs.service swap.target; do
	ln -s /dev/null "$ctetc/systemd/system/$u"
done
: >"$ctetc/fstab"
# User space only: no kernel tracer, and nothing to load for it.
echo 'DAEMON_ARGS=--no-kernel' >"$ctetc/default/lttng-sessiond"

# Runs in the new namespaces (as their PID 1, then exec'ed by systemd).
cat >"$tmp/setup.sh" <<'EOF'
set -e
tmp=$1 systemd=$2
ovl=$tmp/ovl
root=$ovl/root
mkdir -p "$ovl"
# The upper layer may not be on the lower layer's file system (/): a tmpfs.
mount -t tmpfs -o mode=0755 boot-test "$ovl"
mkdir "$ovl/upper" "$ovl/work" "$root"
mount -t overlay boot-test -o "lowerdir=/,upperdir=$ovl/upper,workdir=$ovl/work" "$root"
# tar, not cp: /lib is a symbolic link to usr/lib (merged /usr), and stays one.
for d in stage etc-ct; do
	[ ! -d "$tmp/$d" ] || tar -C "$tmp/$d" -cf - . | tar -C "$root" -xf - --keep-directory-symlink
done

mount -t proc proc "$root/proc"
for p in sys sysrq-trigger; do
	[ -e "$root/proc/$p" ] || continue
	mount --bind "$root/proc/$p" "$root/proc/$p"
	mount -o remount,bind,ro "$root/proc/$p"
done
mount -t sysfs -o ro sysfs "$root/sys"
mount -t cgroup2 cgroup2 "$root/sys/fs/cgroup"
mount -t tmpfs -o mode=0755,nosuid tmpfs "$root/dev"
for d in null zero full random urandom tty; do
	touch "$root/dev/$d"
	mount --bind "/dev/$d" "$root/dev/$d"
done
touch "$root/dev/console"
mount --bind /dev/null "$root/dev/console"
mkdir "$root/dev/pts" "$root/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts"
ln -s pts/ptmx "$root/dev/ptmx"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm"
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$root/run"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/tmp"
# The upper layer, read-only, for the purge check.
mkdir -p "$root/run/boot-test/upper"
mount --bind "$ovl/upper" "$root/run/boot-test/upper"
mount -o remount,bind,ro "$root/run/boot-test/upper"
hostname boot-test
ip link set lo up
# Only into the overlay: systemd's tmpfiles.d rules must never see the
# host's /tmp or /var.
[ "$(stat -f -c %T "$root")" = overlayfs ] || { echo "$root is not the overlay" >&2; exit 1; }
# The overlay becomes the namespace's root (as systemd-nspawn does), not a
# mere chroot: the kernel refuses user namespaces (PrivateUsers=) to
# chrooted processes. The host's tree stays underneath, out of reach.
cd "$root"
mount --move . /
[ "$(stat -f -c %T .)" = overlayfs ] || { echo "the new root is not the overlay" >&2; exit 1; }
exec env -i container=jank-test PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	chroot . "$systemd" --unit=boot-test.target --log-target=journal
EOF

# ---- Boot ----

cg=$cgroot/jank-boot.$$
mkdir "$cg" || plan_skip_all "cannot create a cgroup under $cgroot"
# The shell moves itself into the new cgroup, then unshare (and the
# container) inherit it; --cgroup makes it the container's cgroup root.
sh -c 'echo 0 >"$1/cgroup.procs" && exec unshare --mount --propagation private --uts --ipc \
	--net --pid --cgroup --fork sh "$2/setup.sh" "$2" "$3"' sh "$cg" "$tmp" "$SYSTEMD" \
	>"$tmp/boot.log" 2>&1 </dev/null &
ct_outer=$!

# The container's PID 1 is unshare's child.
for _ in $(seq 100); do
	ct_pid=$(cat "/proc/$ct_outer/task/$ct_outer/children" 2>/dev/null | tr -d ' ')
	[ -n "$ct_pid" ] && [ "$(cat "/proc/$ct_pid/comm" 2>/dev/null)" = systemd ] && break
	kill -0 "$ct_outer" 2>/dev/null || bail "the container did not start" "$tmp/boot.log"
	sleep 0.1
done
[ "$(cat "/proc/$ct_pid/comm" 2>/dev/null)" = systemd ] ||
	bail "systemd did not start in the container" "$tmp/boot.log"



# ct_upper: what the container changed: the overlay's upper layer, one
# "TYPE ./PATH" line per entry (TYPE as find -printf %y: c is a whiteout,
# a file of the host's that the container removed).
ct_upper() {
	ct sh -c 'cd /run/boot-test/upper && find . -printf "%y %p\n"'
}

# wait_for SECONDS COMMAND...: run COMMAND every 0.2 s until it succeeds.
wait_for() {
	local n=$(($1 * 5))

	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}

booted() {
	state=$(ct systemctl is-system-running 2>/dev/null)
	case "$state" in
	running | degraded) return 0 ;;
	esac
	return 1
}

# jankd_pid: jankd's PID in the container, or nothing when it does not run.
jankd_pid() {
	local p

	p=$(ct systemctl show -p MainPID --value jankd.service 2>/dev/null)
	case "$p" in
	"" | 0 | *[!0-9]*) ;;
	*) echo "$p" ;;
	esac
}

# journal_jankd ARGS...: the journal of jankd.service in the container.
journal_jankd() {
	ct journalctl --no-pager -q -u jankd.service "$@"
}

# alert_keys PID: the JANK_KEY of each alert that jankd PID sent, sorted.
alert_keys() {
	journal_jankd MESSAGE_ID="$ALERT_ID" _PID="$1" -o export 2>/dev/null |
		sed -n 's/^JANK_KEY=//p' | sort
}

# demo_alerted PID: jank-demo's two slow frames (ids 4 and 9) were alerted by
# PID. (A normal frame that a loaded host made slower than 16 ms is alerted
# too, rightly: not an error.)
demo_alerted() {
	local keys

	keys=$(alert_keys "$1")
	echo "$keys" | grep -qx 'name=frame,id=4' && echo "$keys" | grep -qx 'name=frame,id=9'
}

run_demo() {
	ct "$demo" --count 10 --slow-every 5 --normal 1ms --slow 50ms --interval 5ms \
		>"$tmp/$1.out" 2>&1
}

# On failure: the unit's state and the end of its journal.
show_jankd() {
	diag "$(ct systemctl show -p MainPID -p NRestarts jankd.service | tr '\n' ' ')"
	ct systemctl status --no-pager -l jankd.service 2>&1 | sed 's/^/#   /' | head -n 20
	journal_jankd -n 30 -o short-monotonic 2>&1 | sed 's/^/#   /'
}

plan 22

# ---- 1. Boot ----
t_boot=$SECONDS
state=
if wait_for 30 booted; then
	ok "systemd booted as PID 1 in the container: $state, in $((SECONDS - t_boot)) s"
	[ "$state" = running ] || diag "failed units: $(ct systemctl --failed --no-legend --plain | tr '\n' ' ')"
else
	fail "systemd booted as PID 1 in the container (state: ${state:-none})"
	tail -n 20 "$tmp/boot.log" | sed 's/^/# /'
	bail "no systemd to test with"
fi

# ---- 2. Install ----
if [ -n "$debs" ]; then
	ct_upper | sort >"$tmp/upper-before"
	set -- "$debs"/jank_*.deb "$debs"/libjank-ust0_*.deb "$debs"/libjank-ust-dev_*.deb \
		"$debs"/jank-demo_*.deb
	diag "installing $(cd "$debs" && echo "${@##*/}")"
	if ct dpkg -i "$@" >"$tmp/dpkg-install.log" 2>&1 &&
		[ "$(ct systemctl is-enabled jankd.service 2>&1)" = enabled ]; then
		ok "the packages install (dpkg -i), and jankd.service is enabled"
	else
		fail "the packages install (dpkg -i), and jankd.service is enabled"
		sed 's/^/#   /' "$tmp/dpkg-install.log" | tail -n 20
	fi
else
	skip "the packages install (dpkg -i)" "no .debs in $JANK_DEBS (make deb builds them): make install"
	ct ldconfig # for libjank-ust under /usr/local/lib
	# The README's step after make install: the workers' user (sysusers.d).
	ct systemd-sysusers >"$tmp/sysusers.log" 2>&1 || bail "systemd-sysusers failed" "$tmp/sysusers.log"
fi

# ---- 3. Start ----
# Metrics on loopback, in a drop-in beside the config the unit names
# (removed before the purge: it is the test's, not the package's).
jconf=$(ct systemctl show -p ExecStart --value jankd.service | sed -n 's/.*--config \([^ ;]*\).*/\1/p')
dropin=${jconf%/*}/conf.d/50-boot-test-metrics.conf
# [graph] functions: the alerts name the function (the binary opener's case).
ct sh -c 'mkdir -p "${1%/*}" &&
	printf "[metrics]\nlisten = 127.0.0.1:9479\n[graph]\nfunctions = yes\n" >"$1"' sh "$dropin"
# The package may have started jankd already, or be starting it (without
# the drop-in): restart, which starts it when it is not running.
# Type=notify: systemctl returns once jankd said READY=1.
if ct systemctl restart jankd.service >"$tmp/start.log" 2>&1 &&
	[ "$(ct systemctl is-active jankd.service)" = active ]; then
	ok "systemctl restart jankd: active (READY=1 came)"
	diag "$(ct systemctl show -p StatusText jankd.service)"
else
	fail "systemctl restart jankd: active (READY=1 came)"
	sed 's/^/#   /' "$tmp/start.log"
	show_jankd
	bail "jankd does not run: nothing more to test"
fi
pid1=$(jankd_pid)
[ -n "$pid1" ] || bail "jankd is active but has no main PID"

# ---- 4. Alerts in the journal ----
run_demo demo1
if wait_for 15 demo_alerted "$pid1"; then
	ok "jank-demo's two slow frames are alerted in journalctl -u jankd"
	diag "alerts: $(alert_keys "$pid1" | tr '\n' ' ')"
else
	fail "jank-demo's two slow frames are alerted in journalctl -u jankd"
	diag "alerts of pid $pid1: $(alert_keys "$pid1" | tr '\n' ' ')"
	sed 's/^/#   /' "$tmp/demo1.out"
	show_jankd
fi

# ---- 5. A capture and its report ----
capture_reported() {
	report=$(journal_jankd MESSAGE_ID="$CAPTURE_ID" -o export 2>/dev/null |
		sed -n 's/^JANK_REPORT=//p' | head -n 1)
	[ -n "$report" ] && ct test -s "$report"
}
report=
if wait_for 40 capture_reported && ct test -f "${report%/report.txt}/capture.json" &&
	case "$report" in /var/lib/jankd/captures/*) true ;; *) false ;; esac; then
	ok "a capture with its report: $report"
else
	fail "a capture with its report under /var/lib/jankd/captures (${report:-none announced})"
	ct ls -lR /var/lib/jankd 2>&1 | head -n 20 | sed 's/^/#   /'
	show_jankd
fi

# ---- 5b. Operators: the group jank reads status and captures ----
# A member of jank (not root) reads `jankctl status` and the captures
# (jankctl captures, a report); another user is refused both: the socket is
# 0660 root:jank and the captures 2750 root:jank, jankd.service's Group=jank
# mapped in its user namespace.
ct useradd --system -M -s /bin/sh -G jank boot-test-op >/dev/null 2>&1
ct useradd --system -M -s /bin/sh boot-test-other >/dev/null 2>&1
as_user() {
	local u=$1

	shift
	ct runuser -u "$u" -- "$@"
}
out_op=$(as_user boot-test-op jankctl status 2>&1)
st_op=$?
out_other=$(as_user boot-test-other jankctl status 2>&1)
st_other=$?
sockls=$(ct stat -c '%a %U:%G' /run/jankd/control 2>&1)
if [ "$st_op" = 0 ] && echo "$out_op" | grep -q 'inputs' && [ "$sockls" = "660 root:jank" ]; then
	ok "a member of jank reads jankctl status without root (socket $sockls)"
else
	fail "a member of jank reads jankctl status without root (status $st_op; socket $sockls)"
	echo "$out_op" | head -n 5 | sed 's/^/#   /'
	journal_jankd -n 5 -o cat | sed 's/^/#   /'
fi
if [ "$st_other" != 0 ] && ! echo "$out_other" | grep -q 'inputs'; then
	ok "another user is refused jankctl status: $(echo "$out_other" | head -n 1)"
else
	fail "another user is refused jankctl status (status $st_other)"
	echo "$out_other" | head -n 5 | sed 's/^/#   /'
fi
cap_dir=${report%/report.txt}
cap_name=${cap_dir##*/}
out_op=$(as_user boot-test-op jankctl captures --format json 2>&1)
st_op=$?
read_all=$(as_user boot-test-op sh -c 'find "$1" -type f -exec cat {} + >/dev/null' sh "$cap_dir" 2>&1)
st_all=$?
if [ -n "$report" ] && [ "$st_op" = 0 ] && echo "$out_op" | grep -qF "$cap_name" &&
	as_user boot-test-op cat "$report" >/dev/null 2>&1 &&
	as_user boot-test-op cat "$cap_dir/capture.json" >/dev/null 2>&1 && [ "$st_all" = 0 ]; then
	ok "a member of jank lists the captures and reads every file of one ($cap_name)"
else
	fail "a member of jank lists the captures and reads every file of one (${cap_name:-none}; status $st_op)"
	echo "$out_op" | head -n 5 | sed 's/^/#   /'
	echo "$read_all" | head -n 5 | sed 's/^/#   reading every file: /'
	ct find "${cap_dir:-/var/lib/jankd}" ! -perm -g=r -printf '%m %u:%g %p\n' 2>&1 | head -n 20 |
		sed 's/^/#   not group-readable: /'
fi
if ! as_user boot-test-other jankctl captures >/dev/null 2>&1 &&
	! as_user boot-test-other cat "${report:-/var/lib/jankd/captures/x/report.txt}" >/dev/null 2>&1 &&
	! as_user boot-test-op ls /var/lib/jankd/state >/dev/null 2>&1 &&
	! as_user boot-test-op sh -c 'echo x >"$1/write-probe"' sh "${cap_dir:-/var/lib/jankd/captures}" 2>/dev/null; then
	ok "another user reads no capture; the group writes none, nor reads jankd's state"
else
	fail "another user reads no capture; the group writes none, nor reads jankd's state"
	ct ls -ld /var/lib/jankd /var/lib/jankd/captures /var/lib/jankd/state "$cap_dir" 2>&1 | sed 's/^/#   /'
fi

# ---- 5c. The binary opener ----
# jank-demo (built with -finstrument-functions) from a 0700 directory of
# root's, under lttng-ust's cyg-profile: its worker (jank-worker, no
# capability) cannot open the binary; jankd-opener@.service (user
# jank-opener, three capabilities) opens it for the worker, and the alerts
# name its function (sleep_ns), not jank-demo+0xOFFSET. It runs 2 s: the
# opener opens it through /proc/PID/map_files, on the container's overlayfs
# root (whose maps show the overlay's device, and the file its layer's).
cyg=$(ct sh -c 'ls /usr/lib/*-linux-gnu/liblttng-ust-cyg-profile.so.1 2>/dev/null | head -n 1')
# fn_alerts PID: JANK_KEY JANK_FUNCTION of each alert of the traced process PID.
fn_alerts() {
	journal_jankd MESSAGE_ID="$ALERT_ID" JANK_PID="$1" -o export 2>/dev/null |
		awk -F= '/^JANK_KEY=/ { k = $2 } /^JANK_FUNCTION=/ { f = $2 } /^$/ { if (k != "") print k, f; k = f = "" }
			END { if (k != "") print k, f }'
}
fn_named() {
	[ "$(fn_alerts "$1" | grep -c ' sleep_ns$')" -ge 2 ]
}
# opener_seen: an instance of jankd-opener@ runs (its worker is alive), as
# jank-opener with its three capabilities and no other, no new privileges.
opener_status=
opener_seen() {
	local u p

	u=$(ct systemctl list-units --no-legend --plain --state=running 'jankd-opener@*' 2>/dev/null |
		awk '{ print $1; exit }')
	[ -n "$u" ] || return 1
	p=$(ct systemctl show -p MainPID --value "$u" 2>/dev/null)
	opener_status=$(ct cat "/proc/${p:-0}/status" 2>/dev/null)
	[ -n "$opener_status" ]
}
if [ -z "$cyg" ]; then
	skip "alerts of a binary in a 0700 directory name its function" "no liblttng-ust-cyg-profile.so.1"
	skip "the binary opener runs as jank-opener with three capabilities" "no liblttng-ust-cyg-profile.so.1"
else
	# The build's jank-demo, with its symbols (the package's is stripped: its
	# symbols are in jank-demo-dbgsym); its libjank-ust is the installed one.
	fn_demo=$demo
	[ -x "$top_builddir/probes/.libs/jank-demo" ] &&
		fn_demo=$(cd "$top_builddir/probes/.libs" && pwd)/jank-demo
	ct sh -c 'rm -rf /root/boot-test-private && install -d -m 0700 /root/boot-test-private &&
		cp "$1" /root/boot-test-private/jank-demo' sh "$fn_demo"
	ppid_=$(ct sh -c 'echo $$; exec env LD_PRELOAD="$1" /root/boot-test-private/jank-demo \
		--count 20 --slow-every 5 --normal 1ms --slow 50ms --interval 100ms >/dev/null 2>&1' \
		sh "$cyg" | head -n 1)
	if wait_for 15 fn_named "$ppid_"; then
		ok "alerts of a binary in a 0700 directory name its function: $(fn_alerts "$ppid_" | tr '\n' ' ')"
	else
		fail "alerts of a binary in a 0700 directory name its function (pid $ppid_)"
		diag "alerts: $(fn_alerts "$ppid_" | tr '\n' ' ')"
		journal_jankd -n 10 -o cat | sed 's/^/#   /'
		ct journalctl --no-pager -q -u 'jankd-opener@*' -n 10 -o cat 2>&1 | sed 's/^/#   /'
	fi
	ouid=$(ct id -u jank-opener 2>/dev/null)
	# CAP_DAC_READ_SEARCH (2), CAP_SYS_PTRACE (19), CAP_CHECKPOINT_RESTORE (40).
	caps=$(printf '%016x' $(((1 << 2) | (1 << 19) | (1 << 40))))
	if wait_for 5 opener_seen && [ -n "$ouid" ] && [ "$ouid" != 0 ] &&
		echo "$opener_status" | grep -q "^Uid:[[:space:]]*$ouid[[:space:]]*$ouid[[:space:]]*$ouid[[:space:]]*$ouid$" &&
		echo "$opener_status" | grep -q "^CapEff:[[:space:]]*$caps$" &&
		echo "$opener_status" | grep -q "^CapBnd:[[:space:]]*$caps$" &&
		echo "$opener_status" | grep -q '^NoNewPrivs:[[:space:]]*1$' &&
		echo "$opener_status" | grep -q '^Seccomp:[[:space:]]*2$'; then
		ok "the binary opener (jankd-opener@, one per worker) runs as jank-opener (uid $ouid) with CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE, CAP_CHECKPOINT_RESTORE only, no new privileges, seccomp"
	else
		fail "the binary opener (jankd-opener@, one per worker) runs as jank-opener with three capabilities only"
		echo "$opener_status" | grep -E '^(Name|Uid|Seccomp|NoNewPrivs|Cap)' | sed 's/^/#   /'
		ct systemctl list-units --no-pager --all 'jankd-opener*' 2>&1 | sed 's/^/#   /' | head -n 10
	fi
	ct rm -rf /root/boot-test-private
fi
ct userdel boot-test-op >/dev/null 2>&1
ct userdel boot-test-other >/dev/null 2>&1

# ---- 6. Reload ----
if ct systemctl reload jankd.service >"$tmp/reload.log" 2>&1 &&
	wait_for 5 sh -c "journal_jankd() { :; }; true" &&
	[ "$(jankd_pid)" = "$pid1" ] && [ "$(ct systemctl is-active jankd.service)" = active ] &&
	wait_for 5 eval 'journal_jankd _PID="$pid1" -o cat | grep -q "^reloaded .*jankd.conf"'; then
	ok "systemctl reload jankd: reloaded, same process, still active"
else
	fail "systemctl reload jankd: reloaded, same process, still active"
	sed 's/^/#   /' "$tmp/reload.log"
	show_jankd
fi

# ---- 7. The sandbox ----
# Looked at from jankd's own mount namespace and root (never without --root:
# that namespace's / is the host's). A write outside its paths fails, one
# inside succeeds; seccomp, no new privileges, no capabilities; /proc
# hidden (hidepid); IP traffic to anything but loopback dropped.
in_jankd() {
	ct nsenter --target "$pid1" --mount --root --wd "$@"
}
status=$(ct cat "/proc/$pid1/status" 2>/dev/null)
uidmap=$(ct cat "/proc/$pid1/uid_map" 2>/dev/null | tr -s ' \t' ' ' | sed 's/^ //')
procopts=$(in_jankd findmnt -n -o OPTIONS /proc 2>/dev/null)
if ! in_jankd sh -c 'echo x >/etc/sandbox-probe' 2>/dev/null &&
	! ct test -e /etc/sandbox-probe &&
	in_jankd sh -c 'echo x >/var/lib/jankd/sandbox-probe && rm /var/lib/jankd/sandbox-probe' &&
	echo "$status" | grep -q '^Seccomp:[[:space:]]*2$' &&
	echo "$status" | grep -q '^NoNewPrivs:[[:space:]]*1$' &&
	echo "$status" | grep -q '^CapEff:[[:space:]]*0000000000000000$' &&
	echo "$status" | grep -q '^CapPrm:[[:space:]]*0000000000000000$' &&
	[ "$uidmap" = "0 0 1" ] &&
	case "$procopts" in *hidepid=invisible*) true ;; *) false ;; esac; then
	ok "the sandbox: /etc read-only and /var/lib/jankd writable for jankd; seccomp, no new privileges, no capability, root alone in its user namespace, /proc hidepid=invisible"
else
	fail "the sandbox: /etc read-only and /var/lib/jankd writable for jankd; seccomp, no new privileges, no capability, root alone in its user namespace, /proc hidepid=invisible"
	echo "$status" | grep -E '^(Seccomp|NoNewPrivs|Cap)' | sed 's/^/#   /'
	diag "/proc: $procopts; uid_map: $uidmap"
fi
# Its worker (one live session): a child of the spawner, the main process
# of jankd-workers.service (both jank-worker), no capability at all, no new
# privileges, its own seccomp filter on top of the unit's (systemd loads
# several: the worker has one more than the spawner). None is jankd's child.
wuid=$(ct id -u jank-worker 2>/dev/null)
spid=$(ct systemctl show -p MainPID --value jankd-workers.service 2>/dev/null)
wpid=$(ct ps -o pid= --ppid "${spid:-0}" 2>/dev/null | head -n 1 | tr -d ' ')
wstatus=$(ct cat "/proc/${wpid:-0}/status" 2>/dev/null)
sstatus=$(ct cat "/proc/${spid:-0}/status" 2>/dev/null)
if [ -n "$wuid" ] && [ "$wuid" != 0 ] && [ -n "$wpid" ] &&
	[ -z "$(ct ps -o pid= --ppid "$pid1" 2>/dev/null)" ] &&
	[ "$(ct systemctl show -p User --value jankd-workers.service)" = jank-worker ] &&
	echo "$sstatus" | grep -q "^Uid:[[:space:]]*$wuid[[:space:]]*$wuid[[:space:]]*$wuid[[:space:]]*$wuid$" &&
	echo "$wstatus" | grep -q "^Uid:[[:space:]]*$wuid[[:space:]]*$wuid[[:space:]]*$wuid[[:space:]]*$wuid$" &&
	echo "$wstatus" | grep -q '^CapEff:[[:space:]]*0000000000000000$' &&
	echo "$wstatus" | grep -q '^CapPrm:[[:space:]]*0000000000000000$' &&
	echo "$wstatus" | grep -q '^NoNewPrivs:[[:space:]]*1$' &&
	echo "$wstatus" | grep -q '^Seccomp:[[:space:]]*2$' &&
	[ "$(echo "$wstatus" | sed -n 's/^Seccomp_filters:[[:space:]]*//p')" = \
		"$(($(echo "$sstatus" | sed -n 's/^Seccomp_filters:[[:space:]]*//p') + 1))" ]; then
	ok "jankd's worker (pid $wpid) runs in jankd-workers.service under the spawner (pid $spid), both jank-worker (uid $wuid); no capabilities, no new privileges, its own seccomp filter"
else
	fail "jankd's worker (pid ${wpid:-none}) runs in jankd-workers.service under the spawner (pid ${spid:-none}), both jank-worker (uid ${wuid:-none}); no capabilities, no new privileges, its own seccomp filter"
	echo "$wstatus" | grep -E '^(Name|Uid|Gid|Seccomp|NoNewPrivs|Cap)' | sed 's/^/#   /'
	diag "the spawner's $(echo "$sstatus" | grep -E '^(Uid|Seccomp_filters):' | tr '\n' ' ')"
	ct systemctl status --no-pager -l jankd-workers.service 2>&1 | sed 's/^/#   /' | head -n 15
fi
# The worker's resident memory in the metrics: jankd reads the worker's
# /proc/PID/statm, another user's process in another unit, through its
# ProtectProc=invisible (hidepid lets the root group see every process).
rss=$(ct curl -s http://127.0.0.1:9479/metrics 2>/dev/null |
	sed -n 's/^jank_input_worker_resident_memory_bytes{[^}]*} \([0-9]*\)$/\1/p' | head -n 1)
if [ -n "$rss" ] && [ "$rss" -gt 1000000 ]; then
	ok "jank_input_worker_resident_memory_bytes of the spawner's worker: $rss"
else
	fail "jank_input_worker_resident_memory_bytes of the spawner's worker: ${rss:-none}"
fi

# IPAddressDeny=any, IPAddressAllow=localhost: a process in jankd's cgroup
# reaches 127.0.0.1 (refused at once: nothing listens on port 9) but not
# another address, even one on lo: the cgroup's BPF filter drops the packets,
# and the connection gets no answer at all.
ct ip addr add 192.0.2.1/32 dev lo 2>/dev/null
# try_connect UNIT ADDRESS: connect to ADDRESS port 9 from UNIT's cgroup.
try_connect() {
	ct sh -c 'echo $$ >"/sys/fs/cgroup$1/cgroup.procs" &&
		timeout 3 bash -c "exec 3<>/dev/tcp/$2/9" 2>&1 || echo "status $?"' \
		sh "$(ct systemctl show -p ControlGroup --value "$1")" "$2"
}
for u in jankd.service jankd-workers.service; do
	lo_out=$(try_connect "$u" 127.0.0.1)
	other_out=$(try_connect "$u" 192.0.2.1)
	case "$lo_out|$other_out" in
	*"Connection refused"*"|"*"status 124"*)
		ok "IPAddressDeny/Allow: $u's cgroup reaches 127.0.0.1, not 192.0.2.1" ;;
	*)
		fail "IPAddressDeny/Allow: $u's cgroup reaches 127.0.0.1, not 192.0.2.1"
		diag "127.0.0.1: $lo_out"
		diag "192.0.2.1: $other_out" ;;
	esac
done

# ---- 8. The watchdog ----
# A stopped jankd pings no more: after WatchdogSec (30 s) systemd kills it
# (SIGABRT, then SIGCONT), and Restart=on-failure starts it again after 5 s.
t_stop=$SECONDS
# Never with an empty or 0 PID: kill -STOP 0 would stop this test's own group.
[ -n "$pid1" ] && ct kill -STOP "$pid1"
restarted() {
	local p

	p=$(jankd_pid)
	[ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$pid1" ] &&
		[ "$(ct systemctl is-active jankd.service)" = active ]
}
if wait_for 60 restarted && journal_jankd -o cat | grep -qi 'watchdog timeout'; then
	pid2=$(jankd_pid)
	ok "SIGSTOP: the watchdog killed jankd and it was restarted ($((SECONDS - t_stop)) s)"
else
	pid2=
	fail "SIGSTOP: the watchdog killed jankd and it was restarted"
	show_jankd
fi
if [ -n "$pid2" ] && run_demo demo2 && wait_for 15 demo_alerted "$pid2"; then
	ok "the restarted jankd alerts again"
	diag "alerts: $(alert_keys "$pid2" | tr '\n' ' ')"
else
	fail "the restarted jankd alerts again"
	diag "alerts of pid ${pid2:-none}: $(alert_keys "${pid2:-0}" | tr '\n' ' ')"
	[ -f "$tmp/demo2.out" ] && sed 's/^/#   /' "$tmp/demo2.out"
	show_jankd
fi

# ---- 9. Stop ----
sessions() {
	ct lttng list 2>/dev/null | sed -n 's/^ *[0-9][0-9]*) \([^ ]*\) .*/\1/p'
}
diag "lttng sessions before the stop: $(sessions | tr '\n' ' ')"
if ct systemctl stop jankd.service >"$tmp/stop.log" 2>&1 &&
	! ct systemctl is-active -q jankd.service && [ -z "$(sessions | grep '^jankd-')" ]; then
	ok "systemctl stop jankd: stopped, and its lttng sessions are destroyed"
else
	fail "systemctl stop jankd: stopped, and its lttng sessions are destroyed"
	diag "sessions left: $(sessions | tr '\n' ' ')"
	sed 's/^/#   /' "$tmp/stop.log"
	show_jankd
fi
if wait_for 10 eval '! ct systemctl is-active -q jank-relayd.service' &&
	! ct test -e /run/jankd && ! ct systemctl is-active -q jankd-workers.service &&
	! ct systemctl is-active -q jankd-workers.socket && ! ct test -e /run/jankd-workers.sock; then
	ok "jank-relayd stops with it (StopWhenUnneeded), jankd-workers and its socket too (PartOf), /run/jankd is gone"
else
	fail "jank-relayd stops with it (StopWhenUnneeded), jankd-workers and its socket too (PartOf), /run/jankd is gone"
	ct systemctl status --no-pager jankd-workers.service jankd-workers.socket 2>&1 | sed 's/^/#   /' | head -n 10
	ct systemctl status --no-pager jank-relayd.service 2>&1 | sed 's/^/#   /' | head -n 10
fi

# ---- 10. Purge ----
# What the upper layer gained from install to purge (ct_upper lines on
# stdin), less what a package manager changes anyway (its database and log,
# the caches its triggers rebuild) and the host's directories that the
# overlay copied up because something was written into them: each line left
# is a file or directory left behind, or (c) something of the host's removed.
leftovers() {
	local t p

	while read -r t p; do
		case "$p" in
		./var/lib/dpkg/* | ./var/log/* | ./var/cache/man/* | ./var/cache/ldconfig/* | \
			./var/cache/debconf/* | ./etc/ld.so.cache | ./var/lib/systemd/catalog/database)
			continue ;;
		# The user jank-worker stays after a purge, as Debian's policy has it
		# for system users (another package's files may be its).
		./etc/passwd | ./etc/passwd- | ./etc/group | ./etc/group- | ./etc/shadow | \
			./etc/shadow- | ./etc/gshadow | ./etc/gshadow-)
			continue ;;
		# useradd's, for the test's own users (5b), removed since.
		./etc/subuid | ./etc/subuid- | ./etc/subgid | ./etc/subgid-)
			continue ;;
		esac
		[ "$t" = d ] && [ -d "${p#.}" ] && continue
		echo "$t $p"
	done
}
ct rm -f "$dropin"
ct rmdir "${dropin%/*}" 2>/dev/null
if [ -n "$debs" ]; then
	ct dpkg --purge jank-demo libjank-ust-dev libjank-ust0 jank >"$tmp/dpkg-purge.log" 2>&1
	st=$?
	ct systemctl daemon-reload
	ct_upper | sort >"$tmp/upper-after"
	left=$(comm -13 "$tmp/upper-before" "$tmp/upper-after" | leftovers)
	units=$(ct systemctl list-units --all --no-legend --plain 'jank*' 2>/dev/null)
	if [ "$st" = 0 ] && [ -z "$left" ] && [ -z "$units" ]; then
		ok "dpkg --purge: nothing of jank is left (file, directory, unit), nothing else removed"
	else
		fail "dpkg --purge: nothing of jank is left (file, directory, unit), nothing else removed"
		sed 's/^/#   /' "$tmp/dpkg-purge.log" | tail -n 10
		echo "$left" | head -n 30 | sed 's/^/#   left: /'
		diag "units: $units"
	fi
else
	skip "dpkg --purge leaves nothing" "no .debs in $JANK_DEBS (make deb builds them)"
fi
