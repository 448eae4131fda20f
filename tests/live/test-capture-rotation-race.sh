# SPDX-License-Identifier: MIT
# tests/live/test-capture-rotation-race.sh: captures and destruction while
# a rotation is pending.
#
# lttng-sessiond refuses a rotation while another one of the same session is
# in progress ("Rotation already pending"), and a destruction's own final
# rotation fails the same way. jankd must wait for it, not lose the capture
# or leave the session behind.
#
# To make the race happen on purpose, not by luck: jankd's capture session
# rotates every 100 ms on its schedule, and the test also starts a rotation
# itself (`lttng rotate --no-wait`, as an operator or another tool would)
# back to back, so that a rotation is in progress most of the time. jank-demo
# makes a slow action every 15th, 20 in all, and each jank's capture rotates
# the session: most land while a rotation is pending, and status counts
# those (rotations_waited). Every capture must complete. Then jankd is
# stopped while the rotations still go on: it must destroy its session and
# delete the session's files.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

JQ=${JQ:-jq}
SLOW=${RACE_SLOW:-20}

live_init
[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
live_require_jankd
live_require_journald
live_start_sessiond --no-kernel
live_start_relayd
live_start_journald

plan 10

session=race-live-$$
action=race$$
caps=$LIVE_TMP/captures
sock=$LIVE_TMP/control
conf=$LIVE_TMP/jankd.conf
live_create_session "$session" || live_bail "cannot create the live session"
cat >"$conf" <<CONF
[live]
url = $(live_url "$session")
[alerts]
target = journal
rate-limit = 100/1s
[capture]
mode = rotation
dir = $caps
cooldown = 0
max-per-hour = 0
min-free = 0
rotation-period = 100ms
retention = 1s
[daemon]
control-socket = $sock
[action $action]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 30ms
capture = yes
CONF
live_start_jankd --config "$conf"
live_wait_jankd "$sock"

jlog() {
	live_journalctl -o cat _PID="$LIVE_JANKD_PID" SYSLOG_IDENTIFIER=jankd
}
status() {
	live_jankd_status "$sock" "$1"
}
janks() {
	live_journalctl -o json JANK_ACTION="$action" JANK_KIND=completed | wc -l
}
# Every jank alerted, and every capture it started complete or failed, with its report.
all_done() {
	[ "$(janks)" = "$SLOW" ] &&
		status '.capture | .started > 0 and .completed + .failed == .started and
			.reports + .reports_without_path + .reports_failed == .completed' |
		grep -qx true
}

# The other rotations: back to back, until told to stop.
rm -f "$LIVE_TMP/hammer.stop"
(
	while [ ! -e "$LIVE_TMP/hammer.stop" ]; do
		live_lttng rotate --no-wait jankd-capture >/dev/null 2>&1
	done
) 9>&- &
hammer=$!
live_track "$hammer"

"$LIVE_DEMO" --cause sleep --count $((SLOW * 15)) --slow-every 15 --normal 1ms --slow 50ms \
	--interval 10ms >"$LIVE_TMP/demo.out" 2>&1 9>&-
live_wait 30 all_done || diag "captures still in flight after 30 s"

janks=$(janks)
check "jankd alerted every slow action ($janks of $SLOW)" [ "$janks" = "$SLOW" ]
st=$(status '.capture | [.started, .completed, .failed] | @tsv')
check "every capture completed, none failed (started, complete, failed: $st)" \
	[ "$(echo "$st" | cut -f1)" -gt 0 -a "$(echo "$st" | cut -f3)" = 0 -a \
	"$(echo "$st" | cut -f1)" = "$(echo "$st" | cut -f2)" ]
waited=$(status .capture.rotations_waited)
check "captures landed while a rotation was pending, and waited ($waited times)" \
	[ "${waited:-0}" -gt 0 ]
missing= unread=
for c in $(live_journalctl -o json JANK_ACTION="$action" JANK_KIND=completed |
	"$JQ" -r '.JANK_CAPTURE // "none"' | sort -u); do
	[ -f "$c/capture.json" ] && [ -n "$(ls "$c/chunks" 2>/dev/null)" ] || missing="$missing $c"
	"$JQ" -e --arg a "$action" '.action == $a and .error == null and (.critical_path | length) > 0' \
		"$c/report.json" >/dev/null 2>&1 || unread="$unread ${c##*/}"
done
check "every alert names a capture that holds chunks${missing:+ (not:$missing)}" [ -z "$missing" ]
check "every capture holds its jank: the report found it${unread:+ (not:$unread)}" [ -z "$unread" ]
n=$(jlog | grep -c "Rotation already pending\|capture failed") || true
check "the log has no failed capture and no 'Rotation already pending' ($n)" [ "$n" = 0 ]

# Stop jankd while rotations are still being started.
kill -TERM "$LIVE_JANKD_PID"
wait "$LIVE_JANKD_PID"
rc=$?
live_forget "$LIVE_JANKD_PID"
touch "$LIVE_TMP/hammer.stop"
wait "$hammer"
live_forget "$hammer"
check "SIGTERM: exit 0" [ "$rc" = 0 ]
n=$(jlog | grep -c "^destroyed the capture session 'jankd-capture'$") || true
check "the log says the capture session was destroyed, with no warning ($n)" [ "$n" = 1 ]
n=$(live_lttng list 2>/dev/null | grep -c "jankd-capture") || true
check "lttng lists no jankd-capture session" [ "$n" = 0 ]
check "the rotating session's files are gone" [ ! -e "$caps/.rotating/jankd-capture" ]
if [ "$_tap_failed" = 1 ]; then
	diag "jankd's log:"
	jlog | tail -40 | sed 's/^/#   /'
	sed 's/^/#   /' "$LIVE_TMP/jankd.err"
fi
