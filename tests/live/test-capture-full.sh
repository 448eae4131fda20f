# SPDX-License-Identifier: MIT
# tests/live/test-capture-full.sh: captures on a tiny filesystem.
#
# The capture dir is a 512 KiB tmpfs. A burst of 20000 actions fills the
# flight recorder (2 MiB per CPU) with more than the filesystem holds, so
# every snapshot fails (ENOSPC): the partial trace is removed, the capture's
# directory stays with its capture.json saying "failed" and why (so that no
# alert names a directory that is gone), a follow-up entry says
# JANK_CAPTURE_FAILED, the failure is logged once however many follow, every
# jank is still alerted, and no two captures share a name.
# Then a file fills the filesystem: captures are refused (under min-free),
# logged once, janks still alerted. jankd keeps monitoring throughout and
# stops cleanly.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_init
live_require_demo
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

live_start_daemons --journald

plan 14

session=full-live-$$
action=full$$
caps=$tiny/captures
live_create_session "$session"
# min-free: jankd's default (5%), not live_jankd_conf's 0.
live_jankd_conf --journal --capture snapshot "$caps" "$(live_url "$session")" "$action" 30ms <<CONF
[capture]
min-free = 5%
buffer-size = 2MiB
CONF
live_run_jankd

alerts() {
	live_jank_count "$action" MESSAGE_ID=$LIVE_JANK_ID
}
status() {
	live_jankd_status "$1"
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
		live_wait 10 live_jank_at_least $(($1 + k)) "$action" MESSAGE_ID=$LIVE_JANK_ID ||
			diag "no alert for jank $(($1 + k))"
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
n=$(live_jankd_log | grep -c '^capture failed: ')
check "the failure is logged once ($n)" [ "$n" = 1 ]
check "it says why, and that the partial capture was removed" \
	sh -c 'grep "^capture failed: " | grep -q "Snapshot record failed.*partial capture removed"' <<EOF
$(live_jankd_log)
EOF
# failed_only: each capture directory holds only capture.json, which says "failed" and why.
failed_only() {
	local d

	for d in "$caps"/*/; do
		[ "$(ls -A "$d")" = capture.json ] &&
			"$JQ" -e '.state == "failed" and (.error | length > 0)' "$d/capture.json" \
				>/dev/null || return 1
	done
}
left=$(find "$caps" -mindepth 1 -maxdepth 1 | wc -l)
check "no partial trace is left: 3 directories, each only a capture.json saying failed ($left)" \
	eval '[ "$left" = 3 ] && failed_only'
check "the three janks were alerted" [ "$(alerts)" = 3 ]
n=$(live_journalctl -o json JANK_ACTION="$action" \
	MESSAGE_ID=5a8d2c4e6f1b3a5c7e9d1f3b5a7c9e1d |
	"$JQ" -r 'select(.JANK_CAPTURE_FAILED != null and .JANK_CAPTURE != null) | 1' | wc -l)
check "three follow-up entries say JANK_CAPTURE_FAILED ($n)" [ "$n" = 3 ]

# Fill the filesystem: below min-free (5%), captures are refused.
dd if=/dev/zero of="$tiny/filler" bs=4k count=1000 2>/dev/null
janks 4
st=$(status '.capture | [.started, .refused["disk-full"], .refusal_episodes["disk-full"]] | @tsv')
check "disk full: no more captures started, three refused, one episode (got: $st)" \
	[ "$st" = "$(printf '3\t3\t1')" ]
n=$(live_jankd_log | grep -c '^capture refused: the filesystem of .* under min-free')
check "the refusal is logged once ($n)" [ "$n" = 1 ]
n=$(alerts)
check "every jank was alerted: 6 ($n), the last ones without JANK_CAPTURE" \
	[ "$n" = 6 -a "$(live_jank_entries "$action" MESSAGE_ID=$LIVE_JANK_ID |
		"$JQ" -r 'select(.JANK_CAPTURE == null) | 1' | wc -l)" = 3 ]
check "jankd still monitors: status answers, its input is connected" \
	[ "$(status '.inputs[0].state')" = connected ]
n=$(live_jankd_log | grep -c '^capture failed: ')
check "still one failure line in all ($n)" [ "$n" = 1 ]
live_jank_entries "$action" MESSAGE_ID=$LIVE_JANK_ID | "$JQ" -r '.JANK_CAPTURE // empty' \
	>"$LIVE_TMP/named"
gone=0
while read -r d; do
	[ -d "$d" ] || gone=$((gone + 1))
done <"$LIVE_TMP/named"
check "no alert names a capture directory that does not exist ($gone of $(wc -l <"$LIVE_TMP/named"))" \
	[ "$gone" = 0 -a -s "$LIVE_TMP/named" ]
check "no two alerts share a capture name" [ "$(sort "$LIVE_TMP/named" | uniq -d | wc -l)" = 0 ]

check "SIGTERM: exit 0" live_stop_jankd
live_jankd_diag
if [ "$_tap_failed" = 1 ]; then
	df -k "$tiny" | sed 's/^/#   /'
fi
