# SPDX-License-Identifier: MIT
# tests/live/test-capture-full.sh: captures on a tiny filesystem.
#
# The capture dir is a 512 KiB tmpfs. A burst of 20000 actions fills the
# flight recorder (2 MiB per CPU) with more than the filesystem holds, so
# every snapshot fails (ENOSPC): the partial capture is removed, the failure
# is logged once however many follow, and every jank is still alerted.
# Then a file fills the filesystem: captures are refused (under min-free),
# logged once, janks still alerted. jankd keeps monitoring throughout and
# stops cleanly.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

JQ=${JQ:-jq}
JANK_ID=3f5b0c2e8a6d4e1b9c7a5d3e1f2b4c6a

live_init
[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
live_require_jankd
live_require_journald
command -v mount >/dev/null 2>&1 || plan_skip_all "mount not found"

# Mounted before journald starts: its private mount namespace (where jankd
# runs) copies this mount, and both see the same filesystem. Unmounted at
# exit, after every process of the test is gone.
tiny=$(mktemp -d "${TMPDIR:-/tmp}/jank-tiny.XXXXXX") || plan_skip_all "mktemp failed"
if ! mount -t tmpfs -o size=512k,mode=0700 tmpfs "$tiny" 2>/dev/null; then
	rmdir "$tiny"
	plan_skip_all "cannot mount a tmpfs here"
fi
tiny_cleanup() {
	live_cleanup
	umount "$tiny" 2>/dev/null || umount -l "$tiny"
	rmdir "$tiny"
}
trap tiny_cleanup EXIT

live_start_sessiond --no-kernel
live_start_relayd
live_start_journald

plan 11

session=full-live-$$
action=full$$
caps=$tiny/captures
sock=$LIVE_TMP/control
conf=$LIVE_TMP/jankd.conf
live_create_session "$session" || live_bail "cannot create the live session"
cat >"$conf" <<CONF
[live]
url = $(live_url "$session")
[alerts]
target = journal
[capture]
mode = snapshot
dir = $caps
cooldown = 0
max-per-hour = 0
buffer-size = 2MiB
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
alerts() {
	live_journalctl -o json MESSAGE_ID=$JANK_ID JANK_ACTION="$action" | wc -l
}
# have_alerts N: N alerts or more.
have_alerts() {
	[ "$(alerts)" -ge "$1" ]
}
status() {
	live_jankd_status "$sock" "$1"
}
# settled: no capture in flight.
settled() {
	[ "$(status '.capture.in_flight')" = null ]
}
# janks FIRST: three slow actions, one at a time, named jankFIRST..; wait for each alert.
janks() {
	local k

	for k in 0 1 2; do
		"$LIVE_DEMO" --cause sleep --count 1 --slow-every 1 --slow 40ms \
			--name "jank$(($1 + k))" >>"$LIVE_TMP/demo.out" 2>&1 9>&-
		live_wait 10 have_alerts $(($1 + k)) || diag "no alert for jank $(($1 + k))"
		live_wait 10 settled || diag "a capture still in flight after 10 s"
	done
}

# Fill the flight recorder: 20000 quick actions (40000 events), no jank.
"$LIVE_DEMO" --cause cpu --count 20000 --slow-every 0 --normal 0 --interval 0 --name bulk \
	>"$LIVE_TMP/bulk.out" 2>&1 9>&-
janks 1

st=$(status '.capture | [.started, .failed, .failure_episodes, .completed] | @tsv')
check "three captures started, three failed, one failure episode (got: $st)" \
	[ "$st" = "$(printf '3\t3\t1\t0')" ]
n=$(jlog | grep -c '^capture failed: ')
check "the failure is logged once ($n)" [ "$n" = 1 ]
check "it says why, and that the partial capture was removed" \
	sh -c 'grep "^capture failed: " | grep -q "Snapshot record failed.*partial capture removed"' <<EOF
$(jlog)
EOF
left=$(find "$caps" -mindepth 1 -maxdepth 1 | wc -l)
check "no partial capture is left on the filesystem ($left entries)" [ "$left" = 0 ]
check "the three janks were alerted" [ "$(alerts)" = 3 ]

# Fill the filesystem: below min-free (5%), captures are refused.
dd if=/dev/zero of="$tiny/filler" bs=4k count=1000 2>/dev/null
janks 4
st=$(status '.capture | [.started, .refused["disk-full"], .refusal_episodes["disk-full"]] | @tsv')
check "disk full: no more captures started, three refused, one episode (got: $st)" \
	[ "$st" = "$(printf '3\t3\t1')" ]
n=$(jlog | grep -c '^capture refused: the filesystem of .* under min-free')
check "the refusal is logged once ($n)" [ "$n" = 1 ]
n=$(alerts)
check "every jank was alerted: 6 ($n), the last ones without JANK_CAPTURE" \
	[ "$n" = 6 -a "$(live_journalctl -o json MESSAGE_ID=$JANK_ID JANK_ACTION="$action" |
		"$JQ" -r 'select(.JANK_CAPTURE == null) | 1' | wc -l)" = 3 ]
check "jankd still monitors: status answers, its input is connected" \
	[ "$(status '.inputs[0].state')" = connected ]
n=$(jlog | grep -c '^capture failed: ')
check "still one failure line in all ($n)" [ "$n" = 1 ]

kill -TERM "$LIVE_JANKD_PID"
wait "$LIVE_JANKD_PID"
rc=$?
live_forget "$LIVE_JANKD_PID"
check "SIGTERM: exit 0" [ "$rc" = 0 ]
if [ "$_tap_failed" = 1 ]; then
	diag "jankd's log:"
	jlog | sed 's/^/#   /'
	sed 's/^/#   /' "$LIVE_TMP/jankd.err"
	df -k "$tiny" | sed 's/^/#   /'
fi
