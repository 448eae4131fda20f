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

live_setup_jankd --journald

plan 16

sa=jankd-multi-a-$$
sb=jankd-multi-b-$$
alpha=alpha$$
beta=beta$$
action=multi$$

# Each session records only the actions of its program.
live_create_session "$sa" "name == \"$alpha\""
live_create_session "$sb" "name == \"$beta\""
ua=$(live_url "$sa")
ub=$(live_url "$sb")
# 12 alerts of one rule and host may come within 10 s: above the default rate limit.
live_jankd_conf --journal "$ua, $ub" "$action" 30ms <<'CONF'
[alerts]
rate-limit = 100/10s
CONF
live_run_jankd

alerts() {
	live_jank_count "$action"
}
# demo NAME SLOW-EVERY: 20 actions NAME, every SLOW-EVERY-th one slow.
demo() {
	live_demo "$LIVE_TMP/demo-$1.out" --name "$1" --cause sleep --count 20 --slow-every "$2" \
		--normal 1ms --slow 60ms --interval 5ms
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
live_wait_for 10 '[ "$(alerts)" -ge 6 ]' || true
sleep 1
check "6 alerts in all (got $(alerts))" [ "$(alerts)" = 6 ]
live_jank_entries "$action" >"$LIVE_TMP/alerts.json"
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
	st=$("$LIVE_JANKCTL" status --socket "$LIVE_JANKD_SOCK" --format json 2>/dev/null |
		"$JQ" -r --arg u "$1" '.inputs[] | select(.url == $u) |
		"\(.state) \(.rules[0].count) \(.rules[0].janks)"')
	[ "$st" = "$2" ]
}
check "status: two inputs" [ "$(live_jankd_status '.inputs | length')" = 2 ]
live_wait 3 input_is "$ua" "connected 20 4" || true
check "status: $sa connected, 20 actions, 4 janks (got: $st)" input_is "$ua" "connected 20 4"
live_wait 3 input_is "$ub" "connected 20 2" || true
check "status: $sb connected, 20 actions, 2 janks (got: $st)" input_is "$ub" "connected 20 2"
check "status: the totals add up (40 actions, 6 janks)" \
	[ "$(live_jankd_status '"\(.actions_completed) \(.janks)"')" = "40 6" ]

# ---- One session goes away: the other is still watched ----

live_lttng destroy "$sb"
live_wait 10 live_jankd_logged "the live session is gone" || true
check "the loss of $sb is logged, for $sb only" \
	[ "$(live_jankd_log | grep -c 'the live session is gone')" = 1 -a \
	"$(live_jankd_log | grep -c "^$ub: the live session is gone")" = 1 ]
check "status: $sa still connected, $sb not" \
	[ "$(live_jankd_status '[.inputs[] | .state == "connected"] | map(tostring) | join(" ")')" \
	= "true false" ]
demo "$alpha" 5
live_wait_for 10 '[ "$(alerts)" -ge 10 ]' || true
sleep 0.5
check "alpha's janks are still alerted (10 alerts in all, got $(alerts))" [ "$(alerts)" = 10 ]

live_create_session "$sb" "name == \"$beta\""
live_wait 15 live_jankd_logged "^$ub: reconnected$" || true
check "$sb's return is logged" live_jankd_logged "^$ub: reconnected$"
demo "$beta" 10
live_wait_for 10 '[ "$(alerts)" -ge 12 ]' || true
sleep 0.5
check "beta's janks are alerted again (12 alerts in all, got $(alerts))" [ "$(alerts)" = 12 ]
# The counters follow the alerts: within 500 ms of the last event read.
live_wait_for 3 '[ "$(live_jankd_status '\''[.inputs[] | "\(.rules[0].count)/\(.rules[0].janks)"] | join(" ")'\'')" = "40/8 40/4" ]' ||
	true
check "status: per input, alpha 40/8 and beta 40/4" \
	[ "$(live_jankd_status '[.inputs[] | "\(.rules[0].count)/\(.rules[0].janks)"] | join(" ")')" = "40/8 40/4" ]

check "SIGTERM: exit 0" live_stop_jankd
live_jankd_diag
