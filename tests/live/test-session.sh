# SPDX-License-Identifier: MIT
# tests/live/test-session.sh: daemon/lttng/lttng-session.c (lttng-ctl) end to end.
#
# With a private lttng-sessiond (no kernel tracer) and lttng-relayd, through
# tests/live/session-tool: a live session is created with the requested
# channel, events, contexts, live timer and tracefile limits, starts without
# the kernel tracer, is listed by relayd, and streams jank-demo's events; a
# leftover session of the same name is replaced; relayd's files stay within
# the limits; destroy works twice. A snapshot session records jank-demo's
# actions into a directory that babeltrace2 reads. Without lttng-sessiond,
# every call fails with one clear line.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

BT=${BABELTRACE2:-babeltrace2}
TOOL=$top_builddir/tests/live/session-tool

live_init
[ -x "$TOOL" ] || plan_skip_all "$TOOL is not built (make -C tests check)"
live_require_demo
command -v "$BT" >/dev/null 2>&1 || plan_skip_all "$BT not found (install babeltrace2)"
live_start_sessiond --no-kernel
live_start_relayd

plan 35

HOST=$(uname -n)
RELAYD=net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT
LIVE=live-$$
SNAP=snap-$$

# tool NAME ARGS...: run session-tool ARGS; NAME.out (stdout), NAME.err
# (stderr); sets RC (exit status).
tool() {
	local name=$1

	shift
	"$TOOL" "$@" >"$LIVE_TMP/$name.out" 2>"$LIVE_TMP/$name.err" 9>&-
	RC=$?
	if [ "$RC" != 0 ]; then
		diag "session-tool $* exited with $RC:"
		sed 's/^/#   /' "$LIVE_TMP/$name.err"
	fi
}

# field NAME KEY: the value of "KEY value" in NAME.out.
field() {
	sed -n "s/^$2 //p" "$LIVE_TMP/$1.out"
}

# demo OUT ARGS...: run jank-demo; sets DEMO_PID and DEMO_RC.
demo() {
	local out=$1

	shift
	"$LIVE_DEMO" "$@" >"$LIVE_TMP/$out" 2>&1 9>&- &
	DEMO_PID=$!
	live_track "$DEMO_PID"
	wait "$DEMO_PID"
	DEMO_RC=$?
	live_forget "$DEMO_PID"
}

# one_line_error NAME PATTERN: exit 1, stderr is one line matching PATTERN.
one_line_error() {
	[ "$RC" = 1 ] && [ "$(wc -l <"$LIVE_TMP/$1.err")" = 1 ] &&
		grep -q "$2" "$LIVE_TMP/$1.err"
}

# COMMANDS; result DESCRIPTION: ok when COMMANDS (an && list) succeeded.
# Returns their status.
result() {
	local rc=$?

	if [ "$rc" = 0 ]; then ok "$1"; else fail "$1"; fi
	return "$rc"
}

session_listed() {
	lttng list 9>&- 2>/dev/null | grep -q "^ *[0-9]*) $1 "
}

# ---- Live session ----

# SIGPIPE left at its default: lttng-sessiond hangs up on kernel commands
# without a kernel tracer, and lttng-session.c must not die of it.
SESSION_TOOL_SIGPIPE=1 tool live live "$LIVE" --relayd "$RELAYD" \
	--live-port "$LIVE_RELAYD_LIVE_PORT" --timer 200000 --kernel \
	--tracefile-size 65536 --tracefile-count 4 --subbuf-size 16384 --num-subbuf 4 \
	--event jank:action_begin --event jank:action_end --event syscall_entry_read
url=$(field live url)
check "create live: exit 0 with the kernel requested but no kernel tracer" [ "$RC" = 0 ]
[ "$(field live kernel_ok)" = 0 ] && [ "$(field live rc)" = 2 ] &&
	grep -q '^note kernel tracer unavailable (.*): user-space events only$' "$LIVE_TMP/live.out"
result "kernel_ok 0, flag NO_KERNEL (rc 2), and the note says why"
check "the URL is net://127.0.0.1:LIVE-PORT/host/HOSTNAME/NAME ($url)" \
	[ "$url" = "net://127.0.0.1:$LIVE_RELAYD_LIVE_PORT/host/$HOST/$LIVE" ]

lttng list 9>&- >"$LIVE_TMP/list-all" 2>&1
lttng list "$LIVE" 9>&- >"$LIVE_TMP/list-live" 2>&1
check "lttng list: the session is active" grep -q "^Recording session $LIVE: \[active\]" \
	"$LIVE_TMP/list-live"
check "lttng list: live timer 200000 us" grep -q 'Live timer interval: 200000 us' \
	"$LIVE_TMP/list-all"
grep -q '^- jank-ust: \[enabled\]' "$LIVE_TMP/list-live" &&
	grep -q 'Buffering scheme: per-user' "$LIVE_TMP/list-live" &&
	grep -q 'Event-loss mode: *discard' "$LIVE_TMP/list-live"
result "lttng list: the user-space channel is per-user, discard mode"
events_ok=true
for e in jank:action_begin jank:action_end 'lttng_ust_pthread:\*'; do
	grep -q "^ *$e (type: tracepoint) \[enabled\]" "$LIVE_TMP/list-live" || events_ok=false
done
$events_ok && ! grep -q syscall_entry_read "$LIVE_TMP/list-live"
result "lttng list: rule events and lttng_ust_pthread:* enabled; the kernel one is not in UST"
grep -q 'Trace file size: *65536 bytes' "$LIVE_TMP/list-live" &&
	grep -q 'Trace file count: *4 per stream' "$LIVE_TMP/list-live"
result "lttng list: trace file size 65536 bytes, count 4 per stream"

"$BT" -i lttng-live "net://127.0.0.1:$LIVE_RELAYD_LIVE_PORT" >"$LIVE_TMP/bt-list" 2>&1 9>&-
check "babeltrace2 -i lttng-live lists the session at the returned URL" \
	grep -q "^$url " "$LIVE_TMP/bt-list"

# Read the session live while jank-demo runs; destroying it ends the reader.
"$BT" -i lttng-live "$url" >"$LIVE_TMP/bt-live" 2>"$LIVE_TMP/bt-live.err" 9>&- &
bt_pid=$!
live_track "$bt_pid"
demo demo-live.out --count 50 --slow-every 10 --normal 1ms --slow 5ms --interval 1ms
n=0
for _ in $(seq 200); do
	n=$(grep -c ' jank:action_end: ' "$LIVE_TMP/bt-live")
	[ "$n" -ge 50 ] && break
	sleep 0.1
done
check "jank-demo ran (exit 0)" [ "$DEMO_RC" = 0 ]
check "its 50 jank:action_end events arrive through lttng-live ($n)" [ "$n" = 50 ]
# pid_ns where lttng-ust has it (2.12 and later): the process's PID namespace.
check "with the vpid, vtid, procname and pid_ns contexts" \
	grep -Eq "jank:action_end: \{ cpu_id = [0-9]* \}, \{ vpid = $DEMO_PID, vtid = [0-9]*, procname = \"jank-worker\", pid_ns = $(stat -Lc %i /proc/self/ns/pid) \}" \
	"$LIVE_TMP/bt-live"

# ---- A leftover session of the same name ----

sleep 1 # relayd names a session's directory NAME-DATETIME: keep the two apart

tool again live "$LIVE" --relayd "$RELAYD" --live-port "$LIVE_RELAYD_LIVE_PORT" \
	--tracefile-size 4096 --tracefile-count 2 --subbuf-size 4096 --num-subbuf 4 \
	--event jank:action_end
[ "$RC" = 0 ] && [ $(($(field again rc) & 1)) = 1 ] &&
	grep -q "^note destroyed a leftover session '$LIVE'" "$LIVE_TMP/again.out"
result "create live over a leftover of the same name: exit 0, flag REPLACED"
live_stop_pid "$bt_pid"
lttng list "$LIVE" 9>&- >"$LIVE_TMP/list-again" 2>&1
[ "$(lttng list 9>&- | grep -c "^ *[0-9]*) $LIVE ")" = 1 ] &&
	grep -q 'Trace file size: *4096 bytes' "$LIVE_TMP/list-again" &&
	grep -q "^Recording session $LIVE: \[active\]" "$LIVE_TMP/list-again"
result "the new session replaced the old one (one session, the new tracefile size)"

# 400 actions make about 40 KiB: several 4 KiB files per stream.
demo demo-files.out --count 400 --slow-every 0 --normal 100us --interval 1ms
sleep 1
discarded=$(lttng list "$LIVE" 9>&- | sed -n 's/^ *Discarded events: *//p')
tool destroy destroy "$LIVE"
check "destroy: exit 0" [ "$RC" = 0 ]
! session_listed "$LIVE"
result "the session is gone"
tool destroy2 destroy "$LIVE"
check "destroy again (no such session): exit 0" [ "$RC" = 0 ]
check "... and a note says there was none" grep -q "^note session '$LIVE' did not exist$" \
	"$LIVE_TMP/destroy2.out"

# relayd names the files of a stream CHANNEL_CPU_INDEX, INDEX cycling through
# 0..count-1: once a stream has filled its files, relayd overwrites the
# oldest. So the files stay within the limits, and the trace on disk lacks
# the oldest of jank-demo's 400 actions (while the tracer lost none).
second=$(find "$LIVE_RELAYD_OUTPUT/$HOST" -maxdepth 1 -name "$LIVE-*" | sort | tail -n 1)
find "$second" -type f -name 'jank-ust_*' ! -name '*.idx' >"$LIVE_TMP/files"
awk -F/ '{ n = split($NF, p, "_"); if (p[n] + 0 > max) max = p[n] + 0 } END { print max + 0 }' \
	"$LIVE_TMP/files" >"$LIVE_TMP/files.max"
big=$(xargs -r stat -c '%s' <"$LIVE_TMP/files" | awk '$1 > 4096' | wc -l)
"$BT" "$second" 2>/dev/null 9>&- | grep -c " jank:action_end: .* vpid = $DEMO_PID," \
	>"$LIVE_TMP/files.events"
diag "relayd files: $(wc -l <"$LIVE_TMP/files"), highest index $(cat "$LIVE_TMP/files.max")," \
	"$(cat "$LIVE_TMP/files.events") of 400 actions on disk"
[ -s "$LIVE_TMP/files" ] && [ "$(cat "$LIVE_TMP/files.max")" -le 1 ] && [ "$big" = 0 ]
result "relayd keeps at most 2 files of at most 4096 bytes per stream" ||
	find "$second" -type f -exec ls -l {} + | sed 's/^/#   /'
[ "$discarded" = 0 ] && [ "$(cat "$LIVE_TMP/files.events")" -lt 400 ]
result "the oldest data was overwritten on relayd: a bounded footprint"

# ---- Failures that must leave nothing behind ----

dead=$((LIVE_RELAYD_CTRL_PORT + 3))
while live_port_listening "$dead" || live_port_listening $((dead + 1)); do
	dead=$((dead + 2))
done
tool norelayd live "$LIVE-x" --relayd "net://127.0.0.1:$dead:$((dead + 1))"
check "relayd unreachable: exit 1, one line that says so" \
	one_line_error norelayd "cannot reach lttng-relayd at net://127.0.0.1:$dead:$((dead + 1))"
! session_listed "$LIVE-x"
result "relayd unreachable: no half-made session left"
tool small live "$LIVE-z" --relayd "$RELAYD" --subbuf-size 4096 --tracefile-size 1000
[ "$RC" = 0 ] && [ "$(field small rc)" = 8 ] &&
	grep -q '^note tracefile-size rounded up to the sub-buffer size (4096 bytes)$' \
		"$LIVE_TMP/small.out"
result "a tracefile size under the sub-buffer size: rounded up, flag ADJUSTED (rc 8)"
tool small-destroy destroy "$LIVE-z"
tool badspec live "$LIVE-y" --relayd "$RELAYD" --tracefile-count 2
check "a tracefile count without a size: exit 1, one line" \
	one_line_error badspec "tracefile count needs a tracefile size"

# ---- Snapshot session ----

tool snap snapshot "$SNAP" --output "$LIVE_TMP/snapdefault" --subbuf-size 65536 \
	--num-subbuf 4 --kernel --event jank:action_begin
[ "$RC" = 0 ] && [ "$(field snap kernel_ok)" = 0 ]
result "create snapshot: exit 0, kernel_ok 0"
lttng list "$SNAP" 9>&- >"$LIVE_TMP/list-snap" 2>&1
events_ok=true
for e in 'jank:\*' jank:action_begin 'lttng_ust_pthread:\*'; do
	grep -q "^ *$e (type: tracepoint) \[enabled\]" "$LIVE_TMP/list-snap" || events_ok=false
done
grep -q "^Recording session $SNAP: \[active snapshot\]" "$LIVE_TMP/list-snap" &&
	grep -q 'Event-loss mode: *overwrite' "$LIVE_TMP/list-snap" &&
	grep -q 'Sub-buffer size: *65536 bytes' "$LIVE_TMP/list-snap" && $events_ok
result "lttng list: active snapshot session, overwrite, 65536-byte sub-buffers, jank:* on"

demo demo-snap.out --count 20 --slow-every 5 --normal 1ms --slow 5ms --interval 1ms
tool record record "$SNAP" "$LIVE_TMP/capture"
check "record into a directory: exit 0" [ "$RC" = 0 ]
"$BT" "$LIVE_TMP/capture" >"$LIVE_TMP/bt-snap" 2>"$LIVE_TMP/bt-snap.err" 9>&-
nb=$(grep -c " jank:action_begin: .* vpid = $DEMO_PID," "$LIVE_TMP/bt-snap")
ne=$(grep -c " jank:action_end: .* vpid = $DEMO_PID," "$LIVE_TMP/bt-snap")
[ "$nb" = 20 ] && [ "$ne" = 20 ]
result "babeltrace2 reads the capture: jank-demo's 20 begins and 20 ends ($nb, $ne)"
tool record-default record "$SNAP"
[ "$RC" = 0 ] && [ -n "$(find "$LIVE_TMP/snapdefault" -name metadata 2>/dev/null)" ]
result "record to the session's own output: a trace appears there"
tool record-rel record "$SNAP" relative/dir
check "record into a relative path: exit 1, one line" \
	one_line_error record-rel "expected an absolute path"
tool record-nosuch record "$SNAP-nosuch" "$LIVE_TMP/x"
check "record a session that does not exist: exit 1, one line" \
	one_line_error record-nosuch "cannot record a snapshot of session '$SNAP-nosuch'"
tool destroy-snap destroy "$SNAP"
[ "$RC" = 0 ] && ! session_listed "$SNAP"
result "destroy the snapshot session"

# ---- Without lttng-sessiond ----

live_stop_sessiond
tool nosd-live live "$LIVE" --relayd "$RELAYD"
check "no sessiond: create live fails with one clear line" \
	one_line_error nosd-live '^session-tool: cannot reach lttng-sessiond: is it running? (.*)$'
tool nosd-snap snapshot "$SNAP"
check "no sessiond: create snapshot fails with one clear line" \
	one_line_error nosd-snap 'cannot reach lttng-sessiond: is it running?'
tool nosd-record record "$SNAP" "$LIVE_TMP/y"
rc_record=$RC
tool nosd-destroy destroy "$LIVE"
one_line_error nosd-destroy 'cannot reach lttng-sessiond' &&
	grep -q 'cannot reach lttng-sessiond' "$LIVE_TMP/nosd-record.err" && [ "$rc_record" = 1 ]
result "no sessiond: record and destroy fail with one clear line"
