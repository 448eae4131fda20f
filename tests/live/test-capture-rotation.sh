# SPDX-License-Identifier: MIT
# tests/live/test-capture-rotation.sh: [capture] mode = rotation.
#
# jankd's capture session is a normal one, rotated every second; the
# retention is 1 s. jank-demo runs for about 6 s with two slow actions. Each
# jank rotates the session at once and keeps the archived chunks that
# overlap [begin - retention, end]: two captures, each with its chunks,
# that babeltrace2 reads and that hold the flagged action; the report is
# written from them. The chunks that overlap no jank are deleted once they
# are older than twice the retention: what is left of the rotating session
# is recent.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

BT=${BABELTRACE2:-babeltrace2}
RETENTION=1

command -v "$BT" >/dev/null 2>&1 || plan_skip_all "babeltrace2 not found"
live_setup_jankd --journald

plan 11

session=rot-live-$$
action=rot$$
caps=$LIVE_TMP/captures
archives=$caps/.rotating/jankd-capture/archives
live_create_session "$session"
live_jankd_conf --journal --capture rotation "$caps" "$(live_url "$session")" "$action" 30ms <<CONF
[capture]
rotation-period = 1s
retention = ${RETENTION}s
CONF
live_run_jankd

# chunk_times NAME: "BEGIN END" in seconds since the epoch (END rounded up).
chunk_times() {
	local b=${1%%-*} rest=${1#*-} e

	e=${rest%-*}
	echo "$(date -d "$(iso "$b")" +%s) $(($(date -d "$(iso "$e")" +%s) + 1))"
}
iso() { # 20240501T120000+0200 -> 2024-05-01T12:00:00+0200
	echo "$1" | sed -E 's/^(....)(..)(..)T(..)(..)(..)(.*)$/\1-\2-\3T\4:\5:\6\7/'
}

live_demo "$LIVE_TMP/demo.out" --cause sleep --count 300 --slow-every 150 --normal 1ms --slow 60ms \
	--interval 20ms
live_wait 20 live_jank_at_least 2 "$action" MESSAGE_ID=$LIVE_REPORT_ID ||
	diag "not two reports after 20 s"
# The archives that overlap no jank go after twice the retention.
sleep $((2 * RETENTION + 3))

ls "$caps" | grep -E '^[0-9]{8}T' >"$LIVE_TMP/ls"
check "two janks, two captures ($(tr '\n' ' ' <"$LIVE_TMP/ls"))" [ "$(wc -l <"$LIVE_TMP/ls")" = 2 ]

all_ok=true bt_ok=true report_ok=true
for name in $(cat "$LIVE_TMP/ls"); do
	cap=$caps/$name
	sed -E 's/"(begin|end)":(-?[0-9]+)/"\1":"\2"/g' "$cap/capture.json" >"$LIVE_TMP/c.json"
	id=$("$JQ" -r '.action.key | sub(".*id="; "")' "$LIVE_TMP/c.json")
	b=$("$JQ" -r .action.begin "$LIVE_TMP/c.json")
	e=$("$JQ" -r .action.end "$LIVE_TMP/c.json")
	listed=$("$JQ" -r '[.chunks[].name] | sort | join(" ")' "$LIVE_TMP/c.json")
	present=$(ls "$cap/chunks" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')
	diag "$name (id $id): chunks $present"
	if [ -z "$present" ] || [ "$listed" != "$present" ] ||
		[ "$("$JQ" -r '.mode + " " + .state' "$LIVE_TMP/c.json")" != "rotation complete" ]; then
		all_ok=false
	fi
	for ch in $present; do
		set -- $(chunk_times "$ch")
		# Overlaps [begin - retention, end] (whole seconds).
		if [ "$1" -gt $((e / 1000000000 + 1)) ] || [ "$2" -lt $((b / 1000000000 - RETENTION)) ]; then
			diag "chunk $ch ($1..$2) does not overlap the jank ($b..$e)"
			all_ok=false
		fi
	done
	"$BT" "$cap" >"$LIVE_TMP/bt.out" 2>"$LIVE_TMP/bt.err" 9>&- || bt_ok=false
	grep -q "jank:action_begin: .* name = \"frame\", id = $id }" "$LIVE_TMP/bt.out" &&
		grep -q "jank:action_end: .* name = \"frame\", id = $id }" "$LIVE_TMP/bt.out" ||
		bt_ok=false
	"$JQ" -e --arg a "$action" '.action == $a and .error == null and (.critical_path | length) > 0' \
		"$cap/report.json" >/dev/null 2>&1 || report_ok=false
done
check "each capture keeps chunks, listed in capture.json, that overlap its jank" $all_ok
check "babeltrace2 reads each one, and finds the flagged begin and end" $bt_ok
check "each report names the action, with a path" $report_ok
check "the alerts name the captures" \
	[ "$(live_jank_entries "$action" JANK_KIND=completed |
		"$JQ" -r '.JANK_CAPTURE | sub(".*/"; "")' | sort | tr '\n' ' ')" = "$(sort "$LIVE_TMP/ls" | tr '\n' ' ')" ]
check "two reports announced" [ "$(live_jank_count "$action" MESSAGE_ID=$LIVE_REPORT_ID)" = 2 ]

now=$(date +%s)
old=
for ch in $(ls "$archives" 2>/dev/null); do
	set -- $(chunk_times "$ch")
	[ "$2" -ge $((now - 2 * RETENTION - 3)) ] || old="$old $ch"
done
check "no old chunk is left in the rotating session's archives${old:+ (left:$old)}" [ -z "$old" ]
st=$(live_jankd_status '.capture | [.mode, .started, .completed, .failed, .chunks_kept > 0, .chunks_deleted > 0] | @tsv')
check "jankctl status: 2 captures, chunks kept and deleted (got: $st)" \
	[ "$st" = "$(printf 'rotation\t2\t2\t0\ttrue\ttrue')" ]
n=$(live_jankd_log | grep -c "^created the capture session 'jankd-capture' (rotation mode")
check "the log says it made a rotating session" [ "$n" = 1 ]

check "SIGTERM: exit 0" live_stop_jankd
check "the rotating session's files are gone, the captures stay" \
	[ ! -e "$caps/.rotating/jankd-capture" -a "$(ls "$caps" | grep -c '^[0-9]')" = 2 ]
live_jankd_diag
if [ "$_tap_failed" = 1 ]; then
	find "$caps" -maxdepth 4 | sed 's/^/#   /' | head -50
fi
