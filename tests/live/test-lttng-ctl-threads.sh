# SPDX-License-Identifier: MIT
# tests/live/test-lttng-ctl-threads.sh: lttng-ctl from two threads at once.
#
# jankd's live keeper asks lttng-sessiond whether its live session exists
# while the capturer rotates or snapshots its capture session, each from a
# thread of its own; liblttng-ctl has one connection for the whole process.
# tests/live/ctl-hammer does the same through daemon/lttng/lttng-session.c, right
# after a fresh lttng-sessiond started, and counts every wrong answer: a
# session said absent, "No session daemon is available", a failed capture.
# Without the one owner of lttng-ctl (daemon/lttng/lttng-session.c, CTL_ENTER),
# a 5 s run gave hundreds of each.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

HAMMER=$top_builddir/tests/live/ctl-hammer
SECONDS_EACH=${JANK_HAMMER_SECONDS:-4}

live_isolate
live_init
[ -x "$HAMMER" ] || plan_skip_all "$HAMMER is not built (make -C tests check)"
live_start_sessiond --no-kernel

plan 6

KEPT=kept-$$
ROT=rot-$$
SNAP=snap-$$
live_lttng create "$KEPT" --snapshot &&
	live_lttng enable-event -u 'jank:*' -s "$KEPT" &&
	live_lttng start "$KEPT" || live_bail "cannot create the kept session"
live_lttng create "$ROT" --output="$LIVE_TMP/rot" &&
	live_lttng enable-event -u 'jank:*' -s "$ROT" &&
	live_lttng start "$ROT" || live_bail "cannot create the rotating session"
live_lttng create "$SNAP" --snapshot &&
	live_lttng enable-event -u 'jank:*' -s "$SNAP" &&
	live_lttng start "$SNAP" || live_bail "cannot create the snapshot session"

# hammer NAME CAPTURE MODE: run ctl-hammer; NAME.out, NAME.err; RC.
hammer() {
	"$HAMMER" "$KEPT" "$2" "$3" "$SECONDS_EACH" >"$LIVE_TMP/$1.out" 2>"$LIVE_TMP/$1.err" 9>&-
	RC=$?
	diag "$3: $(cat "$LIVE_TMP/$1.out")"
	if [ "$RC" != 0 ]; then
		sort "$LIVE_TMP/$1.err" | uniq -c | sort -rn | head -5 | sed 's/^/#   /'
	fi
}

# figure NAME KEY: the number after KEY in NAME.out.
figure() {
	tr ' ' '\n' <"$LIVE_TMP/$1.out" | sed -n "/^$2\$/{n;p;}"
}

hammer rot "$ROT" rotate
check "rotations while the keeper probes: no wrong answer" [ "$RC" = 0 ]
check "the keeper probed and the capturer rotated" \
	[ "$(figure rot probes)" -gt 100 ] && [ "$(figure rot captures)" -gt 0 ]
hammer snap "$SNAP" snapshot
check "snapshots while the keeper probes: no wrong answer" [ "$RC" = 0 ]
check "the keeper probed and the capturer recorded" \
	[ "$(figure snap probes)" -gt 100 ] && [ "$(figure snap captures)" -gt 0 ]
check "lttng-sessiond is the one started (never went away)" live_alive "$LIVE_SESSIOND_PID"
check "the kept session is still there" sh -c "lttng list 9>&- | grep -q '$KEPT'"
