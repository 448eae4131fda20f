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

live_setup_jankd --journald

plan 10

session=quota-live-$$
action=quota$$
caps=$LIVE_TMP/captures
live_create_session "$session"
mkdir -p "$caps/not-a-capture"
echo "keep me" >"$caps/notes.txt"
# write_conf QUOTA COOLDOWN
write_conf() {
	live_jankd_conf --journal --capture snapshot "$caps" "$(live_url "$session")" "$action" 30ms <<CONF
[capture]
cooldown = $2
quota = $1
buffer-size = 16KiB
CONF
}
write_conf 1GiB 0
live_run_jankd

# jank K: one slow action (id K), then wait for its report; prints its capture.
jank() {
	live_demo "$LIVE_TMP/demo$1.out" --cause sleep --count 1 --slow-every 1 --slow 50ms --name "frame$1"
	live_wait 20 live_jank_at_least "$1" "$action" MESSAGE_ID=$LIVE_REPORT_ID ||
		diag "no report for jank $1 after 20 s" >&2
	live_jank_entries "$action" MESSAGE_ID=$LIVE_REPORT_ID |
		"$JQ" -r --arg k "name=frame$1,id=0" 'select(.JANK_KEY == $k) | .JANK_CAPTURE'
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
live_reload_jankd

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
st=$(live_jankd_status '.capture | [.started, .completed, .deleted, .failed] | @tsv')
check "jankctl status: 6 started, 6 complete, 5 deleted (got: $st)" \
	[ "$st" = "$(printf '6\t6\t5\t0')" ]
n=$(live_jankd_log | grep -c "^capture complete: .*; quota .*: deleted the 1 oldest capture")
check "the deletions are logged with the capture that caused them ($n)" [ "$n" -ge 1 ]
n=$(live_jank_count "$action" MESSAGE_ID=$LIVE_REPORT_ID)
check "six reports announced" [ "$n" = 6 ]
"$LIVE_JANKCTL" captures --dir "$caps" --format json >"$LIVE_TMP/list.json" 2>&1
check "jankctl captures lists the one left" \
	[ "$("$JQ" -r .name "$LIVE_TMP/list.json")" = "$(basename "$c")" ]

check "SIGTERM: exit 0" live_stop_jankd
live_jankd_diag
