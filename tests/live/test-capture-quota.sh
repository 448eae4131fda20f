# SPDX-License-Identifier: MIT
# tests/live/test-capture-quota.sh: the quota deletes the oldest captures.
#
# A flight recorder keeps every packet until its ring buffer wraps, and each
# snapshot closes one: captures grow until the buffers are full. Small
# buffers ([capture] buffer-size = 16KiB) make them stop growing after a few
# janks. Three janks warm up; the third capture is S bytes (trace and
# report). A reload sets the quota to 1.5 S (the cooldown is 0); three more
# janks, one at a time: after each one, the capture dir holds the newest
# capture only (two do not fit), the older ones were deleted oldest first,
# the total stays under the quota, and what is not a capture (a file, a
# directory of another name) is never touched.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

JQ=${JQ:-jq}
REPORT_ID=5a8d2c4e6f1b3a5c7e9d1f3b5a7c9e1d

live_init
[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
live_require_jankd
live_require_journald
live_start_sessiond --no-kernel
live_start_relayd
live_start_journald

plan 10

session=quota-live-$$
action=quota$$
caps=$LIVE_TMP/captures
sock=$LIVE_TMP/control
conf=$LIVE_TMP/jankd.conf
live_create_session "$session" || live_bail "cannot create the live session"
mkdir -p "$caps/not-a-capture"
echo "keep me" >"$caps/notes.txt"
# write_conf QUOTA COOLDOWN
write_conf() {
	cat >"$conf" <<CONF
[live]
url = $(live_url "$session")
[alerts]
target = journal
[capture]
mode = snapshot
dir = $caps
cooldown = $2
max-per-hour = 0
quota = $1
min-free = 0
buffer-size = 16KiB
[daemon]
control-socket = $sock
[action $action]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 30ms
capture = yes
CONF
}
write_conf 1GiB 0
live_start_jankd --config "$conf"
live_wait_jankd "$sock"

jlog() {
	live_journalctl -o cat _PID="$LIVE_JANKD_PID" SYSLOG_IDENTIFIER=jankd
}
followups() {
	live_journalctl -o json MESSAGE_ID=$REPORT_ID JANK_ACTION="$action"
}
# have_followups N: N follow-up entries or more (a function: live_wait runs it again).
have_followups() {
	[ "$(followups | wc -l)" -ge "$1" ]
}
# jank K: one slow action (id K), then wait for its report; prints its capture.
jank() {
	"$LIVE_DEMO" --cause sleep --count 1 --slow-every 1 --slow 50ms --name "frame$1" \
		>"$LIVE_TMP/demo$1.out" 2>&1 9>&-
	live_wait 20 have_followups "$1" || diag "no report for jank $1 after 20 s" >&2
	followups | "$JQ" -r --arg k "name=frame$1,id=0" 'select(.JANK_KEY == $k) | .JANK_CAPTURE'
}
# captures: the capture directories, oldest first (their names sort by time).
captures() {
	ls "$caps" | grep -E '^[0-9]{8}T[0-9]{6}Z-' | tr '\n' ' '
}
du_bytes() {
	du -sB1 "$1" | cut -f1
}

for k in 1 2 3; do
	[ "$k" = 1 ] || sleep 1.1 # another second: another name
	c=$(jank "$k")
	[ -d "$c" ] || live_bail "no capture for jank $k"
	diag "warm-up: capture $k takes $(du_bytes "$c") bytes"
done
size=$(du_bytes "$c")
quota=$((size * 3 / 2))
diag "quota: $quota bytes"
write_conf "$quota" 0
kill -HUP "$LIVE_JANKD_PID"
reloaded() {
	jlog | grep -q "^reloaded"
}
live_wait 5 reloaded || diag "no 'reloaded' in the log after 5 s"

ok_all=true
for k in 4 5 6; do
	sleep 1.1
	c=$(jank "$k")
	got=$(captures)
	total=$(du_bytes "$caps")
	diag "after jank $k: $got($total bytes)"
	if [ -z "$c" ] || [ "$got" != "$(basename "$c") " ] || [ "$total" -gt "$quota" ]; then
		ok_all=false
	fi
done
check "after each jank, only the newest capture is left, under the quota" $ok_all
got=$(captures)
check "the newest one is the 6th jank's" \
	[ -n "$c" -a "$got" = "$(basename "$c") " -a -f "$c/report.json" ]
total=$(du_bytes "$caps")
check "the capture dir is under the quota ($total <= $quota bytes)" [ "$total" -le "$quota" ]
check "the 6th capture is complete, its report written" \
	[ "$("$JQ" -r .state "$c/capture.json")" = complete -a -s "$c/report.txt" ]
check "what is not a capture is left alone" \
	[ -d "$caps/not-a-capture" -a "$(cat "$caps/notes.txt")" = "keep me" ]
st=$(live_jankd_status "$sock" '.capture | [.started, .completed, .deleted, .failed] | @tsv')
check "jankctl status: 6 started, 6 complete, 5 deleted (got: $st)" \
	[ "$st" = "$(printf '6\t6\t5\t0')" ]
n=$(jlog | grep -c "^capture complete: .*; quota .*: deleted the 1 oldest capture")
check "the deletions are logged with the capture that caused them ($n)" [ "$n" -ge 1 ]
n=$(followups | wc -l)
check "six reports announced" [ "$n" = 6 ]
"$LIVE_JANKCTL" captures --dir "$caps" --format json >"$LIVE_TMP/list.json" 2>&1
check "jankctl captures lists the one left" \
	[ "$("$JQ" -r .name "$LIVE_TMP/list.json")" = "$(basename "$c")" ]

kill -TERM "$LIVE_JANKD_PID"
wait "$LIVE_JANKD_PID"
rc=$?
live_forget "$LIVE_JANKD_PID"
check "SIGTERM: exit 0" [ "$rc" = 0 ]
if [ "$_tap_failed" = 1 ]; then
	diag "jankd's log:"
	jlog | sed 's/^/#   /'
	sed 's/^/#   /' "$LIVE_TMP/jankd.err"
fi
