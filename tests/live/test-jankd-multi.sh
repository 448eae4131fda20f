# SPDX-License-Identifier: MIT
# tests/live/test-jankd-multi.sh: one jankd watching two live sessions.
#
# Two user-space live sessions on one relayd, each filtered to one program's
# actions (alpha, beta); jankd gets both URLs in `[live] url` and one rule
# that matches both. Each input has its own engine: every alert names the
# input it came from, jankctl status has a row per input with its own
# counts. Then session beta is destroyed: jankd says so for beta only, and
# alpha's janks are still alerted; beta comes back and is watched again.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

JQ=${JQ:-jq}

live_init
[ -x "$LIVE_DEMO" ] || plan_skip_all "$LIVE_DEMO is not built (make -C probes)"
live_require_jankd
live_require_journald
live_start_sessiond --no-kernel
live_start_relayd
live_start_journald

plan 16

sa=jankd-multi-a-$$
sb=jankd-multi-b-$$
alpha=alpha$$
beta=beta$$
action=multi$$
sock=$LIVE_TMP/control
conf=$LIVE_TMP/jankd.conf

# session NAME ACTION-NAME: a live session that records only that action's events.
session() {
	live_lttng create "$1" --live=100000 \
		--set-url="net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT" &&
		live_lttng enable-event --userspace --session="$1" 'jank:*' \
			--filter "name == \"$2\"" &&
		live_lttng add-context --userspace --session="$1" -t vpid -t vtid -t procname &&
		live_lttng start "$1"
}
session "$sa" "$alpha" || live_bail "cannot create session $sa"
session "$sb" "$beta" || live_bail "cannot create session $sb"
ua=$(live_url "$sa")
ub=$(live_url "$sb")
cat >"$conf" <<CONF
[live]
url = $ua, $ub
[alerts]
target = journal
[daemon]
control-socket = $sock
[action $action]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 30ms
CONF
live_start_jankd --config "$conf"
live_wait_jankd "$sock"

alerts() { # [FIELD=VALUE...]
	live_journalctl -o json JANK_ACTION="$action" "$@" | wc -l
}
log() {
	live_journalctl -o cat _PID="$LIVE_JANKD_PID" SYSLOG_IDENTIFIER=jankd
}
# demo NAME SLOW-EVERY: 20 actions NAME, every SLOW-EVERY-th one slow.
demo() {
	"$LIVE_DEMO" --name "$1" --cause sleep --count 20 --slow-every "$2" --normal 1ms \
		--slow 60ms --interval 5ms >"$LIVE_TMP/demo-$1.out" 2>&1 9>&-
}

# Both programs at once: alpha has 4 slow actions, beta 2.
demo "$alpha" 5 &
pa=$!
demo "$beta" 10 &
pb=$!
wait "$pa"
ra=$?
wait "$pb"
rb=$?
check "both programs ran" [ "$ra" = 0 -a "$rb" = 0 ]
live_wait 10 [ "$(alerts)" -ge 6 ] || true
sleep 1
check "6 alerts in all (got $(alerts))" [ "$(alerts)" = 6 ]
live_journalctl -o json JANK_ACTION="$action" >"$LIVE_TMP/alerts.json"
# from NAME: "COUNT INPUTS PIDS" of the alerts of action NAME.
from() {
	"$JQ" -r --arg n "$1" 'select(.JANK_KEY | startswith("name=" + $n + ","))
		| "\(.JANK_INPUT) \(.JANK_PID)"' "$LIVE_TMP/alerts.json" |
		awk '{ n++; if (!($1 in u)) { u[$1]; nu++ }; if (!($2 in p)) { p[$2]; np++; pid = $2 } ; url = $1 }
			END { printf "%d %d %d %s %s\n", n, nu, np, url, pid }'
}
read -r na nua npa urla pida <<<"$(from "$alpha")"
read -r nb nub npb urlb pidb <<<"$(from "$beta")"
check "alpha: 4 alerts, all from session $sa (got $na from $nua input(s): $urla)" \
	[ "$na" = 4 -a "$nua" = 1 -a "$urla" = "$ua" ]
check "beta: 2 alerts, all from session $sb (got $nb from $nub input(s): $urlb)" \
	[ "$nb" = 2 -a "$nub" = 1 -a "$urlb" = "$ub" ]
check "each input's alerts name its own program (pids $pida, $pidb)" \
	[ "$npa" = 1 -a "$npb" = 1 -a "$pida" != "$pidb" ]

# input_is URL "STATE COUNT JANKS": jankctl status's row for that input.
input_is() {
	st=$("$LIVE_JANKCTL" status --socket "$sock" --format json 2>/dev/null |
		"$JQ" -r --arg u "$1" '.inputs[] | select(.url == $u) |
		"\(.state) \(.rules[0].count) \(.rules[0].janks)"')
	[ "$st" = "$2" ]
}
check "status: two inputs" [ "$(live_jankd_status "$sock" '.inputs | length')" = 2 ]
live_wait 3 input_is "$ua" "connected 20 4" || true
check "status: $sa connected, 20 actions, 4 janks (got: $st)" input_is "$ua" "connected 20 4"
live_wait 3 input_is "$ub" "connected 20 2" || true
check "status: $sb connected, 20 actions, 2 janks (got: $st)" input_is "$ub" "connected 20 2"
check "status: the totals add up (40 actions, 6 janks)" \
	[ "$(live_jankd_status "$sock" '"\(.actions_completed) \(.janks)"')" = "40 6" ]

# ---- One session goes away: the other is still watched ----

live_lttng destroy "$sb"
live_wait 10 eval 'log | grep -q "the live session is gone"' || true
check "the loss of $sb is logged, for $sb only" \
	[ "$(log | grep -c 'the live session is gone')" = 1 -a \
	"$(log | grep -c "^$ub: the live session is gone")" = 1 ]
check "status: $sa still connected, $sb not" \
	[ "$(live_jankd_status "$sock" '[.inputs[] | .state == "connected"] | map(tostring) | join(" ")')" \
	= "true false" ]
demo "$alpha" 5
live_wait 10 [ "$(alerts)" -ge 10 ] || true
sleep 0.5
check "alpha's janks are still alerted (10 alerts in all, got $(alerts))" [ "$(alerts)" = 10 ]

session "$sb" "$beta" || live_bail "cannot create session $sb again"
live_wait 15 eval 'log | grep -q "^$ub: reconnected$"' || true
check "$sb's return is logged" eval 'log | grep -q "^$ub: reconnected$"'
demo "$beta" 10
live_wait 10 [ "$(alerts)" -ge 12 ] || true
sleep 0.5
check "beta's janks are alerted again (12 alerts in all, got $(alerts))" [ "$(alerts)" = 12 ]
check "status: per input, alpha 40/8 and beta 40/4" \
	[ "$(live_jankd_status "$sock" \
	'[.inputs[] | "\(.rules[0].count)/\(.rules[0].janks)"] | join(" ")')" = "40/8 40/4" ]

kill -TERM "$LIVE_JANKD_PID"
wait "$LIVE_JANKD_PID"
rc=$?
live_forget "$LIVE_JANKD_PID"
check "SIGTERM: exit 0" [ "$rc" = 0 ]
if [ "$_tap_failed" = 1 ]; then
	log | sed 's/^/#   /'
	sed 's/^/#   /' "$LIVE_TMP/jankd.err"
fi
