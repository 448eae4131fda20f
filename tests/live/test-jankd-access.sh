# SPDX-License-Identifier: MIT
# tests/live/test-jankd-access.sh: operators read jankd's status without
# root, as members of the group jank (systemd/jank.sysusers makes it).
#
# jankd runs as root, as jankd.service does, on a relayd that is not there
# (no lttng daemon is needed: the input is blind, and retried). Its control
# socket is 0660 root:jank; a member of jank (a supplementary group, as
# usermod -aG gives it) reads `jankctl status` in text and JSON; another
# user is refused by the socket's mode, and, when the mode was loosened by
# hand, by jankd itself (SO_PEERCRED) with a message that names the group.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_init
live_require_jankd
command -v setpriv >/dev/null 2>&1 || plan_skip_all "setpriv not found (install util-linux)"
command -v useradd >/dev/null 2>&1 || plan_skip_all "useradd not found (install passwd)"

plan 7

made_group=
if ! getent group jank >/dev/null 2>&1; then
	groupadd --system jank || live_bail "cannot create the group jank"
	made_group=1
fi
member=jank-m-$$
other=jank-o-$$
useradd --system --no-create-home --shell /usr/sbin/nologin -G jank "$member" ||
	live_bail "cannot create the user $member"
useradd --system --no-create-home --shell /usr/sbin/nologin "$other" || {
	userdel "$member"
	live_bail "cannot create the user $other"
}
cleanup_users() {
	userdel "$member" 2>/dev/null
	userdel "$other" 2>/dev/null
	[ -z "$made_group" ] || groupdel jank 2>/dev/null
}
trap 'cleanup_users; live_cleanup' EXIT

# The test's directory is root's (0700): the others may reach the socket only.
chmod 0755 "$LIVE_TMP"
sock=$LIVE_TMP/run/control
LIVE_JANKD_SOCK=$sock
cat >"$LIVE_JANKD_CONF" <<EOF
[live]
url = net://127.0.0.1:1/host/h/s
[daemon]
control-socket = $sock
state-dir = $LIVE_TMP/state
ready-timeout = 1s
[alerts]
target = stderr
[action a]
begin = jank:action_begin
end = jank:action_end
threshold = 10ms
EOF
live_start_jankd --config "$LIVE_JANKD_CONF"
up() { [ -S "$sock" ] && [ -n "$(live_jankd_status .pid)" ]; }
live_wait 10 up || live_bail "jankd did not answer on $sock: $(cat "$LIVE_TMP/jankd.err")"

check "the control socket is 0660 root:jank (got $(stat -c '%a %U:%G' "$sock"))" \
	[ "$(stat -c '%a %U:%G' "$sock")" = "660 root:jank" ]

# as USER COMMAND...: run COMMAND as USER, with USER's groups.
as() {
	local u=$1

	shift
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- "$@"
}

as "$member" "$LIVE_JANKCTL" status --socket "$sock" >"$LIVE_TMP/member.txt" 2>&1
rc=$?
check "a member of jank reads jankctl status (exit $rc: $(head -n 1 "$LIVE_TMP/member.txt"))" \
	[ "$rc" = 0 -a "$(sed -n 2p "$LIVE_TMP/member.txt" | cut -c1-38)" = \
	"inputs: 1, 0 connected, 1 BLIND (seein" ]
as "$member" "$LIVE_JANKCTL" status --socket "$sock" --format json >"$LIVE_TMP/member.json" 2>&1
rc=$?
check "... and its JSON (exit $rc)" [ "$rc" = 0 -a \
	"$("$JQ" -r '.inputs[0].blind' "$LIVE_TMP/member.json" 2>/dev/null)" = true ]
as "$member" "$LIVE_JANKCTL" status --socket "$sock" --format prometheus >"$LIVE_TMP/member.prom" 2>&1
rc=$?
check "... and its metrics, which say the input is blind and why (exit $rc)" [ "$rc" = 0 -a \
	-n "$(grep '^jank_input_blind{input="net://127.0.0.1:1/host/h/s",reason="relayd unreachable: .*"} 1$' "$LIVE_TMP/member.prom")" ]

as "$other" "$LIVE_JANKCTL" status --socket "$sock" >"$LIVE_TMP/other.txt" 2>&1
rc=$?
check "another user is refused by the socket's mode (exit $rc: $(head -n 1 "$LIVE_TMP/other.txt"))" \
	[ "$rc" != 0 -a -n "$(grep -i 'permission denied' "$LIVE_TMP/other.txt")" ]

# A mode loosened by hand: jankd itself still refuses.
chmod 0666 "$sock"
as "$other" "$LIVE_JANKCTL" status --socket "$sock" >"$LIVE_TMP/other.txt" 2>&1
rc=$?
check "... and by jankd when the mode was loosened by hand (exit $rc: $(head -n 1 "$LIVE_TMP/other.txt"))" \
	[ "$rc" != 0 -a -n "$(grep "permission denied: the control socket of jankd is for root and the group jank (uid $(id -u "$other") asked)" "$LIVE_TMP/other.txt")" ]
as "$member" "$LIVE_JANKCTL" status --socket "$sock" >/dev/null 2>&1
rc=$?
check "... while the member still reads it (exit $rc)" [ "$rc" = 0 ]
live_stop_jankd
