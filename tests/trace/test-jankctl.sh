#!/bin/sh
# jankctl end to end on a generated kernel + user-space session: the two
# traces are found under the session directory and merged in time order, the
# action (user space) gets its critical path through the kernel scheduling
# events, and every time is exact to the nanosecond, also above 2^53.
#
#   tid 100 (app) runs, begins an action, blocks; tid 200 (db) wakes it up;
#   app waits for a CPU, runs, and ends the action.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

[ -x "$JANK_GEN" ] || plan_skip_all "$JANK_GEN not built"
command -v "$JQ" >/dev/null 2>&1 || plan_skip_all "jq not found"

plan 19

# Times near 1.7e18 ns, odd, so that a double would round them.
B=1700000000000000000
t() { echo $((B + $1)); }

cat >"$tmp/kernel.txt" <<X
@trace kernel
@cpus 2
$(t 1001) 0 sched_switch prev_comm="swapper/0" prev_tid=0 prev_prio=20 prev_state=0 next_comm="app" next_tid=100 next_prio=120
$(t 1001) 1 sched_switch prev_comm="swapper/1" prev_tid=0 prev_prio=20 prev_state=0 next_comm="db" next_tid=200 next_prio=120
$(t 3005) 0 sched_switch prev_comm="app" prev_tid=100 prev_prio=120 prev_state=1 next_comm="swapper/0" next_tid=0 next_prio=20
$(t 5007) 1 sched_waking comm="app" tid=100 prio=120 target_cpu=0
$(t 5109) 0 sched_wakeup comm="app" tid=100 prio=120 target_cpu=0
$(t 6011) 0 sched_switch prev_comm="swapper/0" prev_tid=0 prev_prio=20 prev_state=0 next_comm="app" next_tid=100 next_prio=120
$(t 8015) 0 sched_switch prev_comm="app" prev_tid=100 prev_prio=120 prev_state=1 next_comm="swapper/0" next_tid=0 next_prio=20
$(t 9017) 1 sched_switch prev_comm="db" prev_tid=200 prev_prio=120 prev_state=1 next_comm="swapper/1" next_tid=0 next_prio=20
X
cat >"$tmp/ust.txt" <<X
@trace ust
@cpus 2
@context vpid vtid procname:string
$(t 2003) 0 jank:action_begin vpid=100 vtid=100 procname="app" name="frame" id=1
$(t 6500) 0 jank:action_begin vpid=100 vtid=100 procname="app" name="frame" id=2
$(t 6600) 0 jank:action_end vpid=100 vtid=100 procname="app" name="frame" id=2
$(t 7013) 0 jank:action_end vpid=100 vtid=100 procname="app" name="frame" id=1
X
s=$tmp/session
"$JANK_GEN" "$tmp/kernel.txt" "$s/kernel" && "$JANK_GEN" "$tmp/ust.txt" "$s/ust/uid/0/64-bit"
check "fixture: kernel and ust traces generated" \
	test -f "$s/kernel/metadata" -a -f "$s/ust/uid/0/64-bit/metadata"

cat >"$tmp/frame.conf" <<'X'
[action frame]
begin = jank:action_begin
end = jank:action_end
key = name, id
match = name == "frame"
threshold = 1us
X

# same A B: the two JSON documents (times quoted) are equal.
same() { [ "$("$JQ" -n --slurpfile a "$1" --slurpfile b "$2" '$a == $b')" = true ]; }

"$JANKCTL" analyze --config "$tmp/frame.conf" --format json "$s" >"$tmp/an.raw" 2>"$tmp/err"
check "analyze: exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$tmp/err"
quote_times <"$tmp/an.raw" >"$tmp/an.json"
cat >"$tmp/an.expect" <<X
{"type":"action","kind":"completed","action":"frame","key":"name=frame,id=1","begin":"$(t 2003)","end":"$(t 7013)",
 "duration_ns":5010,"threshold_ns":1000,"tid":100,"pid":100,"comm":"app","over_threshold":true,
 "discarded_events":0,
 "critical_path":[
  {"tid":100,"comm":"app","state":"running","begin":"$(t 2003)","end":"$(t 3005)"},
  {"tid":200,"comm":"db","state":"running","begin":"$(t 3005)","end":"$(t 5007)"},
  {"tid":100,"comm":"app","state":"preempted","begin":"$(t 5007)","end":"$(t 6011)"},
  {"tid":100,"comm":"app","state":"running","begin":"$(t 6011)","end":"$(t 7013)"}],
 "breakdown":{"states":{"running":4006,"preempted":1004},
  "threads":[{"tid":100,"comm":"app","state":"running","ns":2004},
             {"tid":200,"comm":"db","state":"running","ns":2002},
             {"tid":100,"comm":"app","state":"preempted","ns":1004}]},
 "suspects":{"ready":false,"normal_actions":1,"needed":10,"baseline":"trace","normal_duration_ns":100,
  "summary":"no baseline yet (1 of 10 normal actions in the whole trace)","items":[],"cpu_taken_by":[]}}
X
"$JQ" -c 'select(.type == "action")' "$tmp/an.json" >"$tmp/an.actions"
# The report's path: on app, each segment says which of app's actions was open
# (its span; frame 2 is nested in frame 1); jankctl critpath has no actions.
f1='"span":{"action":"frame","key":"name=frame,id=1"}'
f2='"span":{"action":"frame","key":"name=frame,id=2"}'
"$JQ" -c --argjson p "[
  {\"tid\":100,\"comm\":\"app\",\"state\":\"running\",\"begin\":\"$(t 2003)\",\"end\":\"$(t 3005)\",$f1},
  {\"tid\":200,\"comm\":\"db\",\"state\":\"running\",\"begin\":\"$(t 3005)\",\"end\":\"$(t 5007)\"},
  {\"tid\":100,\"comm\":\"app\",\"state\":\"preempted\",\"begin\":\"$(t 5007)\",\"end\":\"$(t 6011)\",$f1},
  {\"tid\":100,\"comm\":\"app\",\"state\":\"running\",\"begin\":\"$(t 6011)\",\"end\":\"$(t 6500)\",$f1},
  {\"tid\":100,\"comm\":\"app\",\"state\":\"running\",\"begin\":\"$(t 6500)\",\"end\":\"$(t 6600)\",$f2},
  {\"tid\":100,\"comm\":\"app\",\"state\":\"running\",\"begin\":\"$(t 6600)\",\"end\":\"$(t 7013)\",$f1}]" \
	'.critical_path = $p' "$tmp/an.expect" >"$tmp/an.spans"
check "analyze: one jank, its report exact (path through the waker, times to the ns)" \
	same "$tmp/an.actions" "$tmp/an.spans"
if ! same "$tmp/an.actions" "$tmp/an.spans"; then
	diag "got: $(cat "$tmp/an.actions")"
fi
check "analyze: summary (2 actions, 1 over threshold, max 5010 ns)" test "$("$JQ" -c \
	'select(.type == "summary") | [.action, .count, .over_threshold, .max_ns]' "$tmp/an.json")" \
	= '["frame",2,1,5010]'
check "analyze: JSON Lines, one object per line" \
	test "$(wc -l <"$tmp/an.raw")" -eq 2 -a "$("$JQ" -s length "$tmp/an.raw")" -eq 2

"$JANKCTL" analyze --all --config "$tmp/frame.conf" --format json "$s" | quote_times \
	>"$tmp/all.json"
check "analyze --all: the short action too, not over threshold" test "$("$JQ" -c \
	'select(.type == "action" and .key == "name=frame,id=2")
	 | [.begin, .end, .duration_ns, .over_threshold, (.critical_path | length)]' \
	"$tmp/all.json")" = "[\"$(t 6500)\",\"$(t 6600)\",100,false,1]"

# The same traces given one by one, in either order, or the session: same result.
"$JANKCTL" analyze --config "$tmp/frame.conf" --format json "$s/ust/uid/0/64-bit" "$s/kernel" \
	>"$tmp/an2.raw"
"$JANKCTL" analyze --config "$tmp/frame.conf" --format json "$s/kernel" "$s/ust" >"$tmp/an3.raw"
check "analyze: traces given one by one, in any order, give the same output" \
	cmp -s "$tmp/an.raw" "$tmp/an2.raw"
check "analyze: ... and through a parent directory" cmp -s "$tmp/an.raw" "$tmp/an3.raw"

"$JANKCTL" analyze --config "$tmp/frame.conf" "$s" >"$tmp/an.txt"
check "analyze (text): the jank, its story, the summary" \
	grep -q "^JANK frame .*5.01 us.* on tid 100 (app) pid 100" "$tmp/an.txt"
grep -q "waiting for tid 200 (db): running 2.00 us" "$tmp/an.txt" &&
	grep -Eq "^frame +2 +1 " "$tmp/an.txt"
check "analyze (text): story and summary lines" test $? -eq 0

"$JANKCTL" critpath --tid 100 --begin "$(t 2003)" --end "$(t 7013)" --format json "$s" |
	quote_times >"$tmp/cp.json"
"$JQ" -c '{tid, begin: .begin, "end": .end, segments: .critical_path, breakdown}' "$tmp/an.expect" \
	>"$tmp/cp.expect"
check "critpath over the action's interval: the action's path" same "$tmp/cp.json" "$tmp/cp.expect"

"$JANKCTL" critpath --tid 100 --format json "$s" | quote_times >"$tmp/cpall.json"
check "critpath, default interval: the thread's whole life" test "$("$JQ" -c \
	'[.begin, .end, [.segments[] | [.tid, .state, .begin, .end]]]' "$tmp/cpall.json")" = \
	"[\"$(t 1001)\",\"$(t 8015)\",[[100,\"running\",\"$(t 1001)\",\"$(t 3005)\"],[200,\"running\",\"$(t 3005)\",\"$(t 5007)\"],[100,\"preempted\",\"$(t 5007)\",\"$(t 6011)\"],[100,\"running\",\"$(t 6011)\",\"$(t 8015)\"]]]"

"$JANKCTL" graph --format json "$s" | quote_times >"$tmp/graph.json"
cat >"$tmp/graph.expect" <<X
{"threads":[
  {"tid":100,"comm":"app","intervals":[
    {"begin":"$(t 1001)","end":"$(t 3005)","state":"running"},
    {"begin":"$(t 3005)","end":"$(t 5007)","state":"blocked"},
    {"begin":"$(t 5007)","end":"$(t 6011)","state":"preempted"},
    {"begin":"$(t 6011)","end":"$(t 8015)","state":"running"}]},
  {"tid":200,"comm":"db","intervals":[
    {"begin":"$(t 1001)","end":"$(t 9017)","state":"running"}]}],
 "links":[{"from_tid":200,"to_tid":100,"ts":"$(t 5007)","state":"blocked"}]}
X
"$JQ" -c '{threads: (.threads | map(select(.tid == 100 or .tid == 200))), links}' \
	"$tmp/graph.json" >"$tmp/graph.apps"
check "graph: app and db intervals and the wakeup link, exact" \
	same "$tmp/graph.apps" "$tmp/graph.expect"
check "graph: threads and links only (no \"workers\" alias)" \
	test "$("$JQ" -c 'keys == ["links", "threads"] and (.threads | length) > 0' "$tmp/graph.json")" = true
"$JANKCTL" graph --tid 200 --format json "$s" | quote_times >"$tmp/g200.json"
check "graph --tid 200: db and its link to app" test "$("$JQ" -c \
	'[(.threads | map(.tid)), (.links | map([.from_tid, .to_tid]))]' \
	"$tmp/g200.json")" = '[[200],[[200,100]]]'

# Events the tracer discarded reach the engine (and the text notes).
cat >"$tmp/lost.txt" <<X
@trace kernel
@cpus 1
$(t 1000) 0 sched_switch prev_comm="swapper/0" prev_tid=0 prev_prio=20 prev_state=0 next_comm="app" next_tid=100 next_prio=120
@discarded 0 7
$(t 2000) 0 sched_switch prev_comm="app" prev_tid=100 prev_prio=120 prev_state=1 next_comm="swapper/0" next_tid=0 next_prio=20
X
"$JANK_GEN" "$tmp/lost.txt" "$tmp/lost" &&
	"$JANKCTL" analyze --config "$tmp/frame.conf" "$tmp/lost" >"$tmp/lost.out" 2>"$tmp/err"
check "discarded events: counted" grep -q "discarded 7 events" "$tmp/lost.out"

# Each action says how many events were discarded in its interval. The
# packets end after 3 events; the second says 7 were discarded since the
# first ended: babeltrace2 tells the range from the end of the first packet
# (the tick at 200) to the end of the second (the tick at 450). Only the
# action inside it (2) counts them; those before (1) and after (3) do not.
cat >"$tmp/lostust.txt" <<X
@trace ust
@cpus 1
@context vpid vtid procname:string
@packet 3
$(t 100) 0 jank:action_begin vpid=100 vtid=100 procname="app" name="frame" id=1
$(t 150) 0 jank:action_end vpid=100 vtid=100 procname="app" name="frame" id=1
$(t 200) 0 jank:tick vpid=100 vtid=100 procname="app"
@discarded 0 7
$(t 300) 0 jank:action_begin vpid=100 vtid=100 procname="app" name="frame" id=2
$(t 400) 0 jank:action_end vpid=100 vtid=100 procname="app" name="frame" id=2
$(t 450) 0 jank:tick vpid=100 vtid=100 procname="app"
$(t 500) 0 jank:action_begin vpid=100 vtid=100 procname="app" name="frame" id=3
$(t 600) 0 jank:action_end vpid=100 vtid=100 procname="app" name="frame" id=3
X
sed 's/^threshold = .*/threshold = 1ns/' "$tmp/frame.conf" >"$tmp/frame1ns.conf"
"$JANK_GEN" "$tmp/lostust.txt" "$tmp/lostust" &&
	"$JANKCTL" analyze --config "$tmp/frame1ns.conf" --format json "$tmp/lostust" \
		>"$tmp/lostust.json" 2>"$tmp/err" &&
	"$JANKCTL" analyze --config "$tmp/frame1ns.conf" "$tmp/lostust" >"$tmp/lostust.txt.out" \
		2>>"$tmp/err"
check "discarded events: counted in the action whose interval they overlap, 0 in the others" \
	test "$("$JQ" -c 'select(.type == "action") | [.key, .discarded_events]' \
	"$tmp/lostust.json" | tr -d '\n')" = \
	'["name=frame,id=1",0]["name=frame,id=2",7]["name=frame,id=3",0]'
check "discarded events: the text says the path of that action may be incomplete" test \
	"$(grep -c 'events discarded by the tracer during it: the path may be incomplete' \
	"$tmp/lostust.txt.out")" = 1 -a \
	"$(grep -A2 'id=2\]' "$tmp/lostust.txt.out" | grep -c '^  7 events discarded')" = 1

# A UST trace alone: the rules still apply (no kernel, so the path is the thread's own).
"$JANKCTL" analyze --config "$tmp/frame.conf" --format json "$s/ust" | quote_times \
	>"$tmp/ust.json"
check "ust only: the action, its path on its own thread" test "$("$JQ" -c \
	'select(.type == "action") | [.begin, .end, .tid, ([.critical_path[].tid] | unique)]' \
	"$tmp/ust.json")" = "[\"$(t 2003)\",\"$(t 7013)\",100,[100]]"

# Help for the reader of a failed run.
if [ "$_tap_failed" -ne 0 ]; then
	diag "analyze: $(cat "$tmp/an.raw")"
	diag "graph: $(cat "$tmp/graph.json")"
fi
