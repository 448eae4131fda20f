#!/bin/sh
# jankctl report and jankctl captures on capture directories made by hand:
# a trace from jank-gen (kernel + ust, as a snapshot lays them out) and a
# capture.json as jankd writes it.
#
# The main scenario: thread A (tid 101, a comm full of XML specials) begins
# a "req" action, wakes B and waits; B wakes C and waits; C runs 27 ms,
# wakes B (which waits 2 us for a CPU), and B wakes A. The path has three
# threads and four wakeups.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

MS=1000000 US=1000
A=101 B=102 C=103
ACOMM='ui<&>'"'"'q\"'   # as jank-gen reads it: ui<&>'q"
cap=$tmp/captures
mkdir -p "$cap"

sw() { # ts cpu prev_comm prev_tid prev_state next_comm next_tid
	echo "$1 $2 sched_switch prev_comm=\"$3\" prev_tid=$4 prev_prio=20 prev_state=$5 next_comm=\"$6\" next_tid=$7 next_prio=20"
}
wake() { # ts cpu comm tid
	echo "$1 $2 sched_waking comm=\"$3\" tid=$4 prio=20 target_cpu=$2"
	echo "$1 $2 sched_wakeup comm=\"$3\" tid=$4 prio=20 target_cpu=$2"
}
{
	printf '@trace kernel\n@env hostname="test-host"\n@cpus 3\n'
	sw 0 0 swapper/0 0 0 "$ACOMM" $A
	sw 0 1 b $B 1 swapper/1 0
	sw 0 2 c $C 1 swapper/2 0
	wake $((2 * MS)) 0 b $B
	sw $((2 * MS)) 0 "$ACOMM" $A 1 swapper/0 0
	sw $((2 * MS + 10 * US)) 1 swapper/1 0 0 b $B
	wake $((3 * MS)) 1 c $C
	sw $((3 * MS)) 1 b $B 1 swapper/1 0
	sw $((3 * MS + 5 * US)) 2 swapper/2 0 0 c $C
	wake $((30 * MS)) 2 b $B
	sw $((30 * MS + 2 * US)) 1 swapper/1 0 0 b $B
	sw $((31 * MS)) 2 c $C 1 swapper/2 0
	wake $((35 * MS)) 1 "$ACOMM" $A
	sw $((36 * MS)) 1 b $B 1 swapper/1 0
	sw $((36 * MS)) 0 swapper/0 0 0 "$ACOMM" $A
	sw $((42 * MS)) 0 "$ACOMM" $A 1 swapper/0 0
} >"$tmp/chain-kernel.script"
cat >"$tmp/chain-ust.script" <<UST
@trace ust
@cpus 3
@context vpid vtid procname:string
$((1 * MS)) 0 jank:action_begin name="req" id=1 vpid=100 vtid=$A procname="ui"
$((41 * MS)) 0 jank:action_end name="req" id=1 vpid=100 vtid=$A procname="ui"
UST

# make_capture DIR KERNEL_SCRIPT UST_SCRIPT: the trace as a snapshot writes it.
make_capture() {
	mkdir -p "$1/snapshot-1/ust/uid/0" &&
		"$JANK_GEN" "$2" "$1/snapshot-1/kernel" &&
		"$JANK_GEN" "$3" "$1/snapshot-1/ust/uid/0/64-bit"
}

# capture_json NAME KEY TID BEGIN END KIND RULE-MATCH-JSON: capture.json on stdout.
capture_json() {
	cat <<JSON
{
  "format": "jank-capture/1",
  "name": "$1",
  "mode": "snapshot",
  "state": "complete",
  "time": "2024-05-01T12:00:00Z",
  "time_ns": 1714564800000000000,
  "hostname": "test-host",
  "session": "jankd-capture",
  "jankd_version": "test",
  "rule": { "name": "req", "begin": "jank:action_begin", "end": "jank:action_end",
            "key": ["name", "id"], "match": $7,
            "threshold": { "kind": "fixed", "ns": 10000000 } },
  "action": { "action": "req", "kind": "$6", "key": "$2", "tid": $3, "pid": 100,
              "comm": "ui", "begin": $4, "end": $5, "duration_ns": $(($5 - $4)),
              "threshold_ns": 10000000 },
  "joined": [ { "action": "req", "kind": "completed", "key": "name=req,id=9", "tid": $3,
                "pid": 100, "comm": "ui", "begin": 0, "end": 1, "duration_ns": 1,
                "threshold_ns": 10000000 } ],
  "joined_more": 0
}
JSON
}

# tiles FILE: report.json's path tiles [begin, end] exactly.
tiles() {
	quote_times <"$1" | "$JQ" -e "$JQ_TIME_DEFS"'
		.critical_path as $p | ($p | length) > 0 and
		minus($p[0].begin; .begin) == 0 and minus($p[-1].end; .end) == 0 and
		([range(1; $p | length) | minus($p[.].begin; $p[. - 1].end)] | all(. == 0)) and
		([$p[] | minus(.end; .begin)] | add) == minus(.end; .begin)' >/dev/null
}

# ---- The chain ----
c1=$cap/20240501T120000Z-req-$A
make_capture "$c1" "$tmp/chain-kernel.script" "$tmp/chain-ust.script" ||
	echo "Bail out! cannot generate the chain fixture"
capture_json 20240501T120000Z-req-$A name=req,id=1 $A $((1 * MS)) $((41 * MS)) completed \
	'{ "field": "name", "value": "req" }' >"$c1/capture.json"
"$JANKCTL" report "$c1" >"$tmp/out" 2>"$tmp/err"
st=$?
check "report on a capture: exit 0, nothing on stderr" [ "$st" = 0 ] && [ ! -s "$tmp/err" ]
[ "$st" = 0 ] || sed 's/^/# /' "$tmp/err"
check "it prints the summary" grep -q "^req \[name=req,id=1\] 40.0 ms (threshold 10.0 ms): " "$tmp/out"
check "report.json, report.txt and critical-path.svg written" \
	test -s "$c1/report.json" -a -s "$c1/report.txt" -a -s "$c1/critical-path.svg"
check "report.json is one JSON object" [ "$("$JQ" -s length <"$c1/report.json")" = 1 ]
got=$("$JQ" -r '[.type, .action, .key, .tid, .over_threshold, .analysis.match] | @tsv' <"$c1/report.json")
check "report.json names the flagged action" [ "$got" = "$(printf 'action\treq\tname=req,id=1\t%s\ttrue\tend_event' $A)" ]
check "its path tiles the action's interval exactly" tiles "$c1/report.json"
want="$A:running:1000000:2000000 $B:preempted:2000000:2010000 $B:running:2010000:3000000"
want="$want $C:preempted:3000000:3005000 $C:running:3005000:30000000"
want="$want $B:preempted:30000000:30002000 $B:running:30002000:35000000"
want="$want $A:preempted:35000000:36000000 $A:running:36000000:41000000"
got=$("$JQ" -r '[.critical_path[] | "\(.tid):\(.state):\(.begin):\(.end)"] | join(" ")' <"$c1/report.json")
check "the path goes A -> B -> C -> B -> A" [ "$got" = "$want" ]
[ "$got" = "$want" ] || { diag "want: $want"; diag "got:  $got"; }
check "report.json carries capture.json" \
	[ "$("$JQ" -r '.capture.session + " " + .capture.action.key' <"$c1/report.json")" = "jankd-capture name=req,id=1" ]
check "report.json has the one-line summary" \
	[ "$("$JQ" -r .cause <"$c1/report.json")" = "67.5% running on tid $C (c)" ]
check "report.txt names the capture" grep -q "^jank capture report: $c1\$" "$c1/report.txt"
check "report.txt tells the story" grep -q "→ waiting for tid $C (c): preempted 5.00 us" "$c1/report.txt"
check "report.txt counts the joined janks" grep -q "1 more janks happened during the capture" "$c1/report.txt"
check "report.txt says what to look at next" \
	grep -q "jankctl critpath --tid $C --begin 1000000 --end 41000000 $c1\$" "$c1/report.txt"

svg=$c1/critical-path.svg
check "the SVG is well-formed XML" xmllint --noout "$svg"
lanes=$(grep -c '<g class="lane"' "$svg")
threads=$("$JQ" -r '[.critical_path[].tid] | unique | length' <"$c1/report.json")
check "one lane per thread of the path ($threads)" [ "$lanes" = "$threads" ] && [ "$lanes" = 3 ]
check "lanes in order: the action's thread first" \
	[ "$(grep -o '<g class="lane" data-tid="[0-9]*"' "$svg" | grep -o '[0-9]*' | tr '\n' ' ')" = "$A $B $C " ]
check "four wakeup arrows" [ "$(grep -c 'class="wakeup"' "$svg")" = 4 ]
check "the comm is escaped" grep -q "ui&lt;&amp;&gt;&apos;q&quot;" "$svg"
check "every segment is drawn, even 2 us in 40 ms" \
	[ "$(grep -c '<rect [^>]*><title>' "$svg")" = "$("$JQ" '.critical_path | length' <"$c1/report.json")" ]
check "begin, end and threshold are marked" sh -c 'grep -q ">begin</text>" "$1" &&
	grep -q ">end</text>" "$1" && grep -q ">threshold 10.0 ms</text>" "$1"' - "$svg"

# flame.svg: the path by thread (no call stacks in this trace), states as leaves.
flame=$c1/flame.svg
check "flame.svg written beside it, well-formed XML" sh -c '[ -s "$1" ] && xmllint --noout "$1"' - "$flame"
check "report.json names both pictures" [ "$("$JQ" -r '.analysis.pictures | "\(.critical_path) \(.flame)"' \
	<"$c1/report.json")" = "critical-path.svg flame.svg" ]
check "flame.svg: a frame per thread of the path under 'all', each as long as its time" sh -c '
	grep -q "<title>all (40.0 ms, 100.00%)</title>" "$1" &&
	grep -q "<title>c (27.0 ms, 67.50%)</title>" "$1" && grep -q "<title>b (6.00 ms, 15.00%)</title>" "$1" &&
	grep -q "<title>ui&lt;&amp;&gt;&apos;q&quot; (7.00 ms, 17.50%)</title>" "$1"' - "$flame"
check "flame.svg: the wait states as leaf frames, in their state's colour" \
	[ "$(grep -c '<title>\[preempted\] ' "$flame")" = 3 ]
check "report.txt points at both pictures" grep -q "critical-path.svg, and by call stack $c1/flame.svg\$" "$c1/report.txt"

# ---- The action's end is not in the capture ----
c2=$cap/20240501T130000Z-req-$A
make_capture "$c2" "$tmp/chain-kernel.script" "$tmp/chain-ust.script"
capture_json 20240501T130000Z-req-$A name=req,id=2 $A $((20 * MS)) $((90 * MS)) overdue null >"$c2/capture.json"
"$JANKCTL" report "$c2" >"$tmp/out" 2>"$tmp/err"
check "overdue action: exit 0" [ $? = 0 ]
got=$("$JQ" -r '[.kind, .analysis.match, .begin, .end] | @tsv' <"$c2/report.json")
check "overdue action: path from the recorded begin to the capture's last event" \
	[ "$got" = "$(printf 'overdue\trecorded_interval\t%s\t%s' $((20 * MS)) $((42 * MS)))" ]
check "overdue action: the path tiles it" tiles "$c2/report.json"
check "overdue action: report.txt explains" grep -q "^Note: the capture does not hold the action's end" "$c2/report.txt"

# ---- The action is not in the capture ----
c3=$cap/20240501T140000Z-req-999
make_capture "$c3" "$tmp/chain-kernel.script" "$tmp/chain-ust.script"
capture_json 20240501T140000Z-req-999 name=req,id=7 999 $((1 * MS)) $((41 * MS)) completed null >"$c3/capture.json"
expect_error "action not in the capture: one-line error" 1 \
	"^jankctl: $c3: the capture holds no 'req' action with key 'name=req,id=7' and no event of tid 999 during it\$" -- \
	"$JANKCTL" report "$c3"
cp "$c1/flame.svg" "$c3/flame.svg" # a stale one
"$JANKCTL" report "$c3" >/dev/null 2>&1
check "action not in the capture: report.json says why, no picture" sh -c \
	'"$1" -e ".error | test(\"holds no\")" <"$2/report.json" >/dev/null && [ ! -e "$2/critical-path.svg" ] &&
	[ ! -e "$2/flame.svg" ] && "$1" -e ".analysis.pictures == null" <"$2/report.json" >/dev/null' - "$JQ" "$c3"

# ---- jankctl captures ----
"$JANKCTL" captures --dir "$cap" --format json >"$tmp/list" 2>"$tmp/err"
check "captures --format json: one line per capture, by time" \
	[ "$("$JQ" -r .name <"$tmp/list" | tr '\n' ' ')" = "20240501T120000Z-req-$A 20240501T130000Z-req-$A 20240501T140000Z-req-999 " ]
check "captures: size on disk and summary" \
	[ "$("$JQ" -r 'select(.key == "name=req,id=1") | (.bytes > 0), .summary' <"$tmp/list" | tr '\n' ' ')" = "true req [name=req,id=1] 40.0 ms (threshold 10.0 ms): 67.5% running on tid $C (c) " ]
"$JANKCTL" captures --dir "$cap" >"$tmp/list" 2>"$tmp/err"
check "captures: a table" sh -c 'head -1 "$1" | grep -q "^time (UTC) .*summary$" &&
	grep -q "^2024-05-01 12:00:00Z  req .* 40.0 ms .* complete .*67.5% running on tid 103 (c)$" "$1"' - "$tmp/list"

# ---- The demo's slow frame 15: worker waits for db, which waits for the disk ----
c4=$tmp/demo/20240501T120000Z-frame-4312
"$top_srcdir/tests/data/demo/demo-trace.sh" "$tmp"
make_capture "$c4" "$tmp/kernel.script" "$tmp/ust.script"
sed -e 's/"req"/"frame"/g' -e 's/"ns": 10000000/"ns": 16000000/' -e 's/: 10000000/: 16000000/' >"$c4/capture.json" <<X
$(capture_json 20240501T120000Z-frame-4312 name=frame,id=15 4312 1028350000 1073340000 completed '{ "field": "name", "value": "frame" }')
X
"$JANKCTL" report "$c4" >"$tmp/out" 2>"$tmp/err"
check "demo: the frame waited 40 ms for the disk, in db" [ "$("$JQ" -r '.critical_path[] |
	select(.state == "block_device") | "\(.comm) \(.end - .begin)"' <"$c4/report.json")" = "db 40010000" ]
check "demo: report.json names what was different, against the 15 frames before" \
	[ "$("$JQ" -rc '[.analysis.baseline, .suspects.normal_actions, .suspects.summary]' <"$c4/report.json")" = \
	'["before",15,"+40.0 ms block_device waiting on db (normally none)"]' ]
check "demo: report.txt too, in its header and after the breakdown" sh -c '
	grep -q "^  suspect   +40.0 ms block_device waiting on db (normally none)$" "$1" &&
	grep -q "^  what was different (against 15 normal actions, mean " "$1"' - "$c4/report.txt"
check "demo: two lanes, worker and db" \
	[ "$(grep -o '<g class="lane" data-tid="[0-9]*"' "$c4/critical-path.svg" | grep -o '[0-9]*' | tr '\n' ' ')" = "4312 4377 " ]

# ---- Functions: a real binary, mapped by the statedump, and one gone ----
# shop (pid 100, tid 301) is a PIE built here with a build-id, which the
# statedump records; libgone.so is mapped too, but no file of it is left.
# The action runs run_task > compute_price, 10 ms in a function of
# libgone.so (unresolved: libgone.so+0x1234), then 20 ms in apply_discounts.
CC=${CC:-cc}
cat >"$tmp/shop.c" <<'EOF2'
__attribute__((noinline)) void apply_discounts(void) {}
__attribute__((noinline)) void compute_price(void) { apply_discounts(); }
__attribute__((noinline)) void run_task(void) { compute_price(); }
int main(void) { run_task(); return 0; }
EOF2
if $CC -O0 -fPIE -pie -Wl,--build-id=sha1 -o "$tmp/shop" "$tmp/shop.c" 2>/dev/null &&
	command -v nm >/dev/null && command -v readelf >/dev/null; then
	base=0x555555554000 gone=0x7f0000000000 in_gone=0x7f0000001234 S=301
	bid=$(readelf -n "$tmp/shop" | awk '/Build ID:/ { print $3 }')
	bid_array=[$(echo "$bid" | sed 's/../0x&,/g; s/,$//')]
	off_of() { nm "$tmp/shop" | awk -v f="$1" '$3 == f { print $1 }' | sed 's/^0*//'; }
	addr_of() { printf '0x%x' $((base + 0x$(off_of "$1"))); }
	{
		printf '@trace kernel\n@cpus 1\n'
		echo "0 0 lttng_statedump_process_state tid=$S pid=100 name=\"shop\" status=5"
		sw 0 0 swapper/0 0 0 shop $S
	} >"$tmp/fn-kernel.script"
	ev() { echo "$1 0 $2 vpid=100 vtid=$S procname=\"shop\""; }
	fn() { ev "$1" "lttng_ust_cyg_profile:func_$2 addr=$3 call_site=$(addr_of main)"; }
	{
		printf '@trace ust\n@cpus 1\n@context vpid vtid procname:string\n'
		ev 500000 "lttng_ust_statedump:bin_info baddr=$base memsz=0x100000 path=\"$tmp/shop\" is_pic=1 has_build_id=1 has_debug_link=0"
		ev 500000 "lttng_ust_statedump:build_id baddr=$base build_id=$bid_array"
		ev 500000 "lttng_ust_statedump:bin_info baddr=$gone memsz=0x10000 path=\"$tmp/gone/libgone.so\" is_pic=1 has_build_id=0 has_debug_link=0"
		ev $((1 * MS)) 'jank:action_begin name="req" id=1'
		fn $((1 * MS + 10 * US)) entry "$(addr_of run_task)"
		fn $((1 * MS + 20 * US)) entry "$(addr_of compute_price)"
		fn $((2 * MS)) entry $in_gone
		fn $((12 * MS)) exit $in_gone
		fn $((12 * MS)) entry "$(addr_of apply_discounts)"
		fn $((32 * MS)) exit "$(addr_of apply_discounts)"
		fn $((32 * MS + 10 * US)) exit "$(addr_of compute_price)"
		fn $((32 * MS + 20 * US)) exit "$(addr_of run_task)"
		ev $((33 * MS)) 'jank:action_end name="req" id=1'
	} >"$tmp/fn-ust.script"
	c6=$cap/20240501T150000Z-req-$S
	make_capture "$c6" "$tmp/fn-kernel.script" "$tmp/fn-ust.script" ||
		echo "Bail out! cannot generate the functions fixture"
	capture_json 20240501T150000Z-req-$S name=req,id=1 $S $((1 * MS)) $((33 * MS)) completed \
		'{ "field": "name", "value": "req" }' >"$c6/capture.json"
	"$JANKCTL" report "$c6" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "functions: report exit 0, nothing on stderr" [ "$st" = 0 ] && [ ! -s "$tmp/err" ]
	[ "$st" = 0 ] || sed 's/^/# /' "$tmp/err"
	svg=$c6/critical-path.svg
	check "functions: critical-path.svg is well-formed XML" xmllint --noout "$svg"
	check "functions: each step is labelled with its innermost function" sh -c '
		grep -q "<text class=\"function\" [^>]*>apply_discounts · running 20.0 ms</text>" "$1" &&
		grep -q "<text class=\"function\" [^>]*>libgone.so+0x1234 · running 10.0 ms</text>" "$1"' - "$svg"
	check "functions: its tooltip is the whole stack, innermost first" sh -c '
		grep -q "<title>tid $2 (shop): running 20.0 ms in apply_discounts ← compute_price ← run_task</title>" "$1" &&
		grep -q "<title>tid $2 (shop): running 10.0 ms in libgone.so+0x1234 ← compute_price ← run_task</title>" "$1"' - "$svg" $S
	check "functions: the lane's tooltip names its functions" \
		grep -q "^<title>tid $S (shop): 32.0 ms on the path, most in apply_discounts 20.0 ms, libgone.so+0x1234 10.0 ms" "$svg"
	check "functions: an address no file names prints as binary+0xoffset in report.txt" \
		grep -Eq "^    libgone.so\+0x1234 +10.0 ms " "$c6/report.txt"
	bj=$c6/binaries.json
	check "binaries.json: written, valid JSON, named in report.json" sh -c '
		"$1" -e ".format == \"jank-binaries/1\"" "$2" >/dev/null &&
		[ "$("$1" -r .analysis.binaries "$3")" = binaries.json ]' - "$JQ" "$bj" "$c6/report.json"
	check "binaries.json: shop, its build-id from the trace, where it is mapped, its symbols' file" \
		"$JQ" -e --arg p "$tmp/shop" --arg id "$bid" --arg base $base '
		[.binaries[] | select(.path == $p)] | length == 1 and (.[0] | .build_id == $id and
		.build_id_from == "trace" and .symbol_file == $p and
		.mappings == [{ "pid": 100, "base": $base, "size": "0x100000", "pic": true }])' "$bj"
	check "binaries.json: the path's addresses in shop as offsets, with their names" \
		"$JQ" -e --arg p "$tmp/shop" --arg off "0x$(off_of apply_discounts)" --arg a "$(addr_of apply_discounts)" '
		.binaries[] | select(.path == $p) | ([.frames[] | .name] | sort) == ["apply_discounts", "compute_price", "run_task"] and
		(.frames[] | select(.name == "apply_discounts") | .offset == $off and .address == $a and .pid == 100)' "$bj"
	check "binaries.json: libgone.so, no build-id, no symbols, the offset its name gives" \
		"$JQ" -e --arg p "$tmp/gone/libgone.so" '.binaries[] | select(.path == $p) |
		.build_id == null and .symbol_file == null and
		.frames == [{ "pid": 100, "address": "0x7f0000001234", "offset": "0x1234", "name": "libgone.so+0x1234" }]' "$bj"
	check "binaries.json: no address outside a known mapping" "$JQ" -e '.unmapped == []' "$bj"
	cp "$bj" "$c3/binaries.json" # a stale one, where there is no path
	"$JANKCTL" report "$c3" >/dev/null 2>&1
	check "no path: no binaries.json" [ ! -e "$c3/binaries.json" ]
else
	for t in report svg labels titles lane text json shop offsets gone unmapped stale; do
		skip "functions: $t" "cannot build a PIE with $CC, or no nm/readelf"
	done
fi

# ---- A real trace: a path through more threads than the picture has lanes for ----
if [ -f "$SHARED_TRACES/many-threads/metadata" ]; then
	c5=$tmp/real/20160304T175302Z-slow-select-691
	mkdir -p "$c5" && cp -r "$SHARED_TRACES/many-threads" "$c5/trace"
	capture_json 20160304T175302Z-slow-select-691 tid=691 691 1457113582843201000 1457113582851260400 completed null |
		sed -e 's/"jank:action_begin"/"syscall_entry_select"/' -e 's/"jank:action_end"/"syscall_exit_select"/' \
		    -e 's/"key": \["name", "id"\]/"key": ["tid"]/' >"$c5/capture.json"
	"$JANKCTL" report "$c5" >"$tmp/out" 2>"$tmp/err"
	check "real trace: the select of Xorg is found, its path tiles it" tiles "$c5/report.json"
	threads=$("$JQ" -r '[.critical_path[].tid] | unique | length' <"$c5/report.json")
	check "real trace: $threads threads on 19 lanes and one shared lane, well-formed" sh -c '
		[ "$(grep -c "<g class=\"lane\"" "$1")" = 19 ] &&
		grep -q "<g class=\"lane-other\" data-threads=\"$(($2 - 19))\"" "$1" &&
		xmllint --noout "$1"' - "$c5/critical-path.svg" "$threads"
else
	skip "real trace: the select of Xorg is found" "no $SHARED_TRACES/many-threads"
	skip "real trace: lanes" "no $SHARED_TRACES/many-threads"
fi

# ---- A capture directory another user owns, with links planted in it ----
# Root runs jankctl report on a copy of a capture that nobody owns, where
# nobody planted links to a root file at every name jankctl writes: the
# root file stays whole, nothing is written into the directory, and the
# report goes to standard output (or into --dir).
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null 2>&1; then
	chmod 711 "$tmp"
	hostile=$tmp/hostile
	mkdir -m 755 "$hostile"
	cp -r "$c1" "$hostile/cap"
	rm -f "$hostile/cap/report.json" "$hostile/cap/report.txt" "$hostile/cap/critical-path.svg" \
		"$hostile/cap/flame.svg" "$hostile/cap/binaries.json"
	chown -R nobody "$hostile/cap"
	printf 'secret\n' >"$tmp/victim"
	chmod 600 "$tmp/victim"
	for n in report.json .report.json.tmp report.txt .report.txt.tmp critical-path.svg \
		.critical-path.svg.tmp flame.svg .flame.svg.tmp binaries.json .binaries.json.tmp; do
		runuser -u nobody -- ln -s "$tmp/victim" "$hostile/cap/$n"
	done
	"$JANKCTL" report "$hostile/cap" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "root on a capture nobody owns: exit 0, and it says why it writes nothing there" \
		[ "$st" = 0 ] && grep -q "belongs to uid $(id -u nobody), not root: writing nothing into it" "$tmp/err"
	check "... the report is on standard output" grep -q 'critical path' "$tmp/out"
	check "... the root file the links point at is untouched" \
		[ "$(cat "$tmp/victim")" = secret ]
	check "... the links are still links: nothing was written into the directory" \
		[ -L "$hostile/cap/report.json" -a -L "$hostile/cap/.report.json.tmp" ]
	mkdir "$tmp/out-dir"
	"$JANKCTL" report --dir "$tmp/out-dir" "$hostile/cap" >"$tmp/out" 2>"$tmp/err"
	check "--dir OUT: the report files go there, the root file is untouched" \
		[ -s "$tmp/out-dir/report.json" -a -s "$tmp/out-dir/report.txt" -a \
		"$(cat "$tmp/victim")" = secret ]
	chown -R root "$hostile/cap"
	"$JANKCTL" report "$hostile/cap" >"$tmp/out" 2>"$tmp/err"
	check "the same directory, root's: links at every name are replaced by files, never followed" \
		[ "$(cat "$tmp/victim")" = secret -a -f "$hostile/cap/report.json" -a \
		! -L "$hostile/cap/report.json" -a ! -e "$hostile/cap/.report.json.tmp" ]
else
	skip "a capture another user owns" "needs root and runuser"
fi

# ---- Bad input ----
expect_error "no such capture dir" 1 "^jankctl: $tmp/nope: No such file or directory\$" -- \
	"$JANKCTL" report "$tmp/nope"
mkdir "$tmp/empty"
expect_error "a dir without capture.json" 1 "^jankctl: $tmp/empty: no capture.json \(not a capture directory\)\$" -- \
	"$JANKCTL" report "$tmp/empty"
mkdir "$tmp/bad"
echo '{"format": "jank-capture/1", "rule": ' >"$tmp/bad/capture.json"
expect_error "a malformed capture.json" 1 "^jankctl: $tmp/bad/capture.json: malformed: " -- \
	"$JANKCTL" report "$tmp/bad"
capture_json x name=req,id=1 $A 1 2 completed null | sed '/"tid"/s/"tid": [0-9]*,//' >"$tmp/bad/capture.json"
expect_error "capture.json without the action's tid" 1 "^jankctl: $tmp/bad/capture.json: bad 'action.tid': missing\$" -- \
	"$JANKCTL" report "$tmp/bad"
capture_json x name=req,id=1 $A 5 2 completed null >"$tmp/bad/capture.json"
expect_error "capture.json: an action that ends before it begins" 1 \
	"^jankctl: $tmp/bad/capture.json: bad 'action.end': 2 is before its begin, 5\$" -- \
	"$JANKCTL" report "$tmp/bad"
capture_json x name=req,id=1 $A 1 2 late null >"$tmp/bad/capture.json"
expect_error "capture.json: an unknown kind of verdict" 1 \
	"^jankctl: $tmp/bad/capture.json: bad 'action.kind': unknown name 'late'\$" -- \
	"$JANKCTL" report "$tmp/bad"
mkdir "$tmp/notrace"
capture_json x name=req,id=1 $A 1 2 completed null >"$tmp/notrace/capture.json"
expect_error "a capture without its trace" 1 "^jankctl: $tmp/notrace: no CTF trace found" -- \
	"$JANKCTL" report "$tmp/notrace"
check "a capture without its trace: report.json says so" \
	sh -c '"$1" -e ".error | test(\"no CTF trace found\")" "$2" >/dev/null' - "$JQ" "$tmp/notrace/report.json"
expect_error "report without a CAPTURE_DIR" 2 "^jankctl: report: no CAPTURE_DIR given" -- \
	"$JANKCTL" report
expect_error "captures on a missing dir" 1 "^jankctl: $tmp/nope: No such file or directory\$" -- \
	"$JANKCTL" captures --dir "$tmp/nope"

plan "$_tap_n"
