#!/bin/sh
# Captures read back are bounded (io/json-read.h; io/capture-json.h has
# the bounds): a capture.json of 5 MB whose `joined` holds 300,000 objects,
# and one under the byte bound with 300,000 values, are refused by jankctl
# report with a clear error, without building them (its peak memory stays
# small), and jankctl captures lists them as refused; a capture.json as
# jankd writes it, with 64 joined janks, is still read.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

command -v python3 >/dev/null || plan_skip_all "python3 is needed to write the captures"

cap=$tmp/captures
mkdir -p "$cap/20240501T120000Z-big-1" "$cap/20240501T120001Z-many-2" "$cap/20240501T120002Z-ok-3"
python3 - "$cap" <<'PY'
import json, sys
cap = sys.argv[1]
head = {"format": "jank-capture/1", "state": "complete", "time_ns": 1714564800000000000,
        "rule": {"name": "req", "begin": "jank:action_begin", "end": "jank:action_end",
                 "key": ["name"], "threshold": {"kind": "fixed", "ns": 10000000}},
        "action": {"action": "req", "kind": "completed", "key": "k", "tid": 101, "pid": 100,
                   "begin": 1000000, "end": 41000000, "duration_ns": 40000000,
                   "threshold_ns": 10000000}}
joined = {"type": "action", "kind": "completed", "action": "req", "key": "k", "begin": 2000000,
          "end": 30000000, "duration_ns": 28000000, "threshold_ns": 10000000, "tid": 1,
          "pid": 1, "comm": "app", "over_threshold": True}
big = dict(head, name="20240501T120000Z-big-1", joined=[{"key": "k12345"}] * 300000)
open(cap + "/20240501T120000Z-big-1/capture.json", "w").write(json.dumps(big, separators=(",", ":")))
many = dict(head, name="20240501T120001Z-many-2", joined=[0] * 300000)
open(cap + "/20240501T120001Z-many-2/capture.json", "w").write(json.dumps(many, separators=(",", ":")))
ok = dict(head, name="20240501T120002Z-ok-3", joined=[joined] * 64, joined_more=3)
open(cap + "/20240501T120002Z-ok-3/capture.json", "w").write(json.dumps(ok))
PY
big=$cap/20240501T120000Z-big-1
many=$cap/20240501T120001Z-many-2
size=$(wc -c <"$big/capture.json")
diag "the big capture.json: $size bytes; the other: $(wc -c <"$many/capture.json") bytes"
check "the big capture.json is 5 MB" [ "$size" -gt 5000000 ] && [ "$size" -lt 5500000 ]

# report_rss DIR: jankctl report DIR, its stderr to $tmp/err, its peak RSS (KiB) to $tmp/rss.
report_rss() {
	/usr/bin/time -f %M -o "$tmp/time" "$JANKCTL" report "$1" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	tail -1 "$tmp/time" >"$tmp/rss"
	return $rc
}
report_rss "$big"
rc=$?
check "report of the 5 MB capture.json: refused (exit $rc)" [ "$rc" -ne 0 ]
check "report of the 5 MB capture.json: says it is too large" \
	grep -q "$big/capture.json: larger than 1024 KiB (4\.9 MiB): not read" "$tmp/err"
diag "$(cat "$tmp/err"); peak RSS $(cat "$tmp/rss") KiB"
check "report of the 5 MB capture.json: peak RSS under 64 MiB ($(cat "$tmp/rss") KiB)" \
	[ "$(cat "$tmp/rss")" -lt 65536 ]
report_rss "$many"
rc=$?
check "report of a capture.json of 300,000 values: refused (exit $rc)" [ "$rc" -ne 0 ]
check "report of a capture.json of 300,000 values: says so" \
	grep -q "$many/capture.json: more than 65536 values (300[0-9]*): not read" "$tmp/err"
diag "$(cat "$tmp/err"); peak RSS $(cat "$tmp/rss") KiB"
check "report of a capture.json of 300,000 values: peak RSS under 64 MiB ($(cat "$tmp/rss") KiB)" \
	[ "$(cat "$tmp/rss")" -lt 65536 ]

"$JANKCTL" captures --dir "$cap" >"$tmp/list.txt" 2>"$tmp/err"
check "captures: exit 0" [ $? -eq 0 ]
check "captures: both listed as refused" [ "$(grep -c "capture.json refused" "$tmp/list.txt")" = 2 ]
check "captures: the one jankd could write is read (state complete)" grep -q "complete" "$tmp/list.txt"
"$JANKCTL" captures --format json --dir "$cap" >"$tmp/list.json" 2>"$tmp/err"
check "captures (JSON): jq reads it" "$JQ" -e . "$tmp/list.json"
check "captures (JSON): the big one's state says why" \
	grep -q "capture.json refused: larger than 1024 KiB (4\.9 MiB): not read" "$tmp/list.json"
check "captures (JSON): so does the other's" \
	grep -q "capture.json refused: more than 65536 values (300[0-9]*): not read" "$tmp/list.json"
plan "$_tap_n"
