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

SLOW=${RACE_SLOW:-20}

live_setup_jankd --journald

plan 10

session=race-live-$$
action=race$$
caps=$LIVE_TMP/captures
live_create_session "$session"
live_jankd_conf --journal --capture rotation "$caps" "$(live_url "$session")" "$action" 30ms <<CONF
[capture]
rotation-period = 100ms
retention = 1s
[alerts]
rate-limit = 100/1s
CONF
live_run_jankd

status() {
	live_jankd_status "$1"
}
janks() {
	live_jank_count "$action" JANK_KIND=completed
}
# Every jank alerted, and every capture it started complete or failed, with its report.
# (A normal action that a loaded machine delays past the threshold is a jank too.)
all_done() {
	[ "$(janks)" -ge "$SLOW" ] &&
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

live_demo "$LIVE_TMP/demo.out" --cause sleep --count $((SLOW * 15)) --slow-every 15 --normal 1ms \
	--slow 50ms --interval 10ms
live_wait 30 all_done || diag "captures still in flight after 30 s"

# The demo's slow actions (by id) are among the alerted ones.
awk '$1 == "action" && $5 == "slow" { print $2 }' "$LIVE_TMP/demo.out" | sort >"$LIVE_TMP/slow.ids"
live_jank_entries "$action" JANK_KIND=completed | "$JQ" -r '.JANK_KEY | sub(".*id="; "")' |
	sort >"$LIVE_TMP/alerted.ids"
missing=$(comm -23 "$LIVE_TMP/slow.ids" "$LIVE_TMP/alerted.ids" | tr '\n' ' ')
check "jankd alerted every slow action ($(wc -l <"$LIVE_TMP/slow.ids") slow, $(janks) janks${missing:+; not alerted: $missing})" \
	[ "$(wc -l <"$LIVE_TMP/slow.ids")" = "$SLOW" -a -z "$missing" ]
st=$(status '.capture | [.started, .completed, .failed] | @tsv')
check "every capture completed, none failed (started, complete, failed: $st)" \
	[ "$(echo "$st" | cut -f1)" -gt 0 -a "$(echo "$st" | cut -f3)" = 0 -a \
	"$(echo "$st" | cut -f1)" = "$(echo "$st" | cut -f2)" ]
waited=$(status .capture.rotations_waited)
check "captures landed while a rotation was pending, and waited ($waited times)" \
	[ "${waited:-0}" -gt 0 ]
missing= unread=
for c in $(live_jank_entries "$action" JANK_KIND=completed |
	"$JQ" -r '.JANK_CAPTURE // "none"' | sort -u); do
	[ -f "$c/capture.json" ] && [ -n "$(ls "$c/chunks" 2>/dev/null)" ] || missing="$missing $c"
	"$JQ" -e --arg a "$action" '.action == $a and .error == null and (.critical_path | length) > 0' \
		"$c/report.json" >/dev/null 2>&1 || unread="$unread ${c##*/}"
done
check "every alert names a capture that holds chunks${missing:+ (not:$missing)}" [ -z "$missing" ]
check "every capture holds its jank: the report found it${unread:+ (not:$unread)}" [ -z "$unread" ]
n=$(live_jankd_log | grep -c "Rotation already pending\|capture failed") || true
check "the log has no failed capture and no 'Rotation already pending' ($n)" [ "$n" = 0 ]

# Stop jankd while rotations are still being started.
live_stop_jankd
rc=$?
touch "$LIVE_TMP/hammer.stop"
wait "$hammer"
live_forget "$hammer"
check "SIGTERM: exit 0" [ "$rc" = 0 ]
n=$(live_jankd_log | grep -c "^destroyed the capture session 'jankd-capture'$") || true
check "the log says the capture session was destroyed, with no warning ($n)" [ "$n" = 1 ]
n=$(live_lttng list 2>/dev/null | grep -c "jankd-capture") || true
check "lttng lists no jankd-capture session" [ "$n" = 0 ]
check "the rotating session's files are gone" [ ! -e "$caps/.rotating/jankd-capture" ]
live_jankd_diag
