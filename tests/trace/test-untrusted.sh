#!/bin/sh
# Traced strings are untrusted (issues 21 §5, 26 §2): an action name with a
# newline, a terminal escape, markup and quotes, invalid UTF-8, a character
# the engine's key cut splits, a 64 KiB tail; thread names with the same.
# Through jankctl analyze (text and JSON), jankctl report (report.txt and
# report.json) and jankctl captures (text and JSON): text has no control
# byte but its own newlines, no forged line, and is valid UTF-8, with the
# strings escaped as \xNN and cut with "…"; JSON is valid UTF-8.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

command -v python3 >/dev/null || plan_skip_all "python3 is needed to check UTF-8"

MS=1000000
A=101 B=102
# As jank-gen reads them: a newline, ESC[31m, a C1 CSI (\xc2\x9b), what XML
# 1.0 cannot carry (U+FFFF, U+FFFE) and a C1 NEL (\xc2\x85), markup,
# quotes, a backslash, a lone \xff, then '€'s whose cut at the key's 95
# bytes falls inside one, then 64 KiB.
EVIL='../../x<script>alert(1)</script>\"\nRED\x1b[31mRED\xc2\x9b2J\xef\xbf\xbf\xef\xbf\xbe\xc2\x85\\q\xff'
EVIL="$EVIL$(printf '%s' '€€€€€€€€€€€€€€€€€€€€€€€€€€€€')$(head -c 65536 /dev/zero | tr '\0' y)"
ACOMM='a\x1b]0;t\x07\n\xe2\x82'   # 11 bytes, invalid at the end
BCOMM='b€€€€€€€€'                  # 25 bytes: the 15-byte comm cuts inside a '€'

sw() { # ts cpu prev_comm prev_tid prev_state next_comm next_tid
	printf "%s\n" "$1 $2 sched_switch prev_comm=\"$3\" prev_tid=$4 prev_prio=20 prev_state=$5 next_comm=\"$6\" next_tid=$7 next_prio=20"
}
wake() { # ts cpu comm tid
	printf "%s\n" "$1 $2 sched_waking comm=\"$3\" tid=$4 prio=20 target_cpu=$2"
	printf "%s\n" "$1 $2 sched_wakeup comm=\"$3\" tid=$4 prio=20 target_cpu=$2"
}
{
	printf '@trace kernel\n@env hostname="test-host"\n@cpus 2\n'
	sw 0 0 swapper/0 0 0 "$ACOMM" $A
	sw 0 1 "$BCOMM" $B 1 swapper/1 0
	wake $((2 * MS)) 0 "$BCOMM" $B
	sw $((2 * MS)) 0 "$ACOMM" $A 1 swapper/0 0
	sw $((2 * MS + 10000)) 1 swapper/1 0 0 "$BCOMM" $B
	wake $((29 * MS)) 1 "$ACOMM" $A
	sw $((30 * MS)) 1 "$BCOMM" $B 1 swapper/1 0
	sw $((30 * MS)) 0 swapper/0 0 0 "$ACOMM" $A
	sw $((42 * MS)) 0 "$ACOMM" $A 1 swapper/0 0
} >"$tmp/kernel.script"
{
	printf '@trace ust\n@env hostname="test-host"\n@cpus 2\n@context vpid vtid procname:string\n'
	printf "%s\n" "$((1 * MS)) 0 jank:action_begin name=\"$EVIL\" id=1 vpid=100 vtid=$A procname=\"$ACOMM\""
	printf "%s\n" "$((41 * MS)) 0 jank:action_end name=\"$EVIL\" id=1 vpid=100 vtid=$A procname=\"$ACOMM\""
} >"$tmp/ust.script"
s=$tmp/capture/20240501T120000Z-req-$A
mkdir -p "$s/snapshot-1/ust/uid/0"
if ! "$JANK_GEN" "$tmp/kernel.script" "$s/snapshot-1/kernel" ||
	! "$JANK_GEN" "$tmp/ust.script" "$s/snapshot-1/ust/uid/0/64-bit"; then
	printf "%s\n" "Bail out! cannot generate the hostile trace"
	exit 1
fi
cat >"$tmp/req.conf" <<'X'
[action req]
begin = jank:action_begin
end = jank:action_end
key = name, id
threshold = 10ms
X

# utf8 FILE: the file is valid UTF-8.
utf8() { python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2>/dev/null; }
# no_controls FILE: no control byte but newlines (C0, DEL, C1 as UTF-8).
no_controls() {
	python3 - "$1" <<'PY'
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
bad = [c for c in t if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f)]
sys.exit(1 if bad else 0)
PY
}
# xml_chars FILE: no character XML 1.0 forbids, nor a C1 control (U+0080 to U+009F).
xml_chars() {
	python3 - "$1" <<'PY'
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
bad = [c for c in t if (ord(c) < 0x20 and c not in "\t\n\r") or 0x7f <= ord(c) <= 0x9f
       or ord(c) in (0xFFFE, 0xFFFF) or 0xD800 <= ord(c) <= 0xDFFF]
sys.exit(1 if bad else 0)
PY
}
# longest FILE: the length of its longest line, in bytes.
longest() { awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' "$1"; }
# text_ok DESC FILE: the three properties of a text output.
text_ok() {
	check "$1: valid UTF-8" utf8 "$2"
	check "$1: no control byte but its newlines" no_controls "$2"
	check "$1: no forged line" sh -c '! grep -q "^RED" "$1"' - "$2"
	check "$1: lines are bounded ($(longest "$2") bytes at most)" [ "$(longest "$2")" -lt 4096 ]
}

# ---- jankctl analyze ----
"$JANKCTL" analyze --config "$tmp/req.conf" "$s" >"$tmp/an.txt" 2>"$tmp/err"
check "analyze (text): exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$tmp/err"
text_ok "analyze (text)" "$tmp/an.txt"
check "analyze (text): the key is escaped, as \\xNN and \\\\" \
	grep -qF '[name=../../x<script>alert(1)</script>"\x0aRED\x1b[31mRED\xc2\x9b2J' "$tmp/an.txt"
check "analyze (text): the key's C1 NEL is escaped too" grep -qF '\xc2\x85\\q\xff€' "$tmp/an.txt"
check "analyze (text): the thread names are escaped" \
	grep -qF "tid $A (a\\x1b]0;t\\x07\\x0a\\xe2\\x82)" "$tmp/an.txt"
check "analyze (text): the comm was cut on a character" grep -qF "tid $B (b€€€€)" "$tmp/an.txt"

"$JANKCTL" analyze --config "$tmp/req.conf" --format json "$s" >"$tmp/an.json" 2>"$tmp/err"
check "analyze (JSON): exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$tmp/err"
check "analyze (JSON): valid UTF-8" utf8 "$tmp/an.json"
check "analyze (JSON): one object per line, jq reads them" sh -c '"$1" -e . "$2" >/dev/null' - "$JQ" "$tmp/an.json"
key=$("$JQ" -r 'select(.type == "action") | .key' <"$tmp/an.json")
want=$(printf 'name=../../x<script>alert(1)</script>"\nRED\033[31mRED\302\2332J\357\277\277\357\277\276\302\205\\q\357\277\275')
check "analyze (JSON): the key has its bytes, the invalid one as U+FFFD" \
	[ "${key%%€*}" = "$want" ]
check "analyze (JSON): the key was cut on a character (95 bytes at most)" \
	[ "$(printf '%s' "$key" | wc -c)" -le 97 ]
check "analyze (JSON): the comm of B was cut on a character" \
	[ "$("$JQ" -r '.critical_path[] | select(.tid == '$B') | .comm' <"$tmp/an.json" | head -1)" = "b€€€€" ]

# ---- jankctl report, on a capture of it ----
"$JQ" -n --arg key "$key" '{
  format: "jank-capture/1", name: "20240501T120000Z-req-101", mode: "snapshot",
  state: "complete", time: "2024-05-01T12:00:00Z", time_ns: 1714564800000000000,
  hostname: "test-host", session: "jankd-capture", jankd_version: "test",
  rule: { name: "req", begin: "jank:action_begin", end: "jank:action_end",
          key: ["name", "id"], threshold: { kind: "fixed", ns: 10000000 } },
  action: { action: "req", kind: "completed", key: $key, tid: 101, pid: 100,
            comm: "a\u001b]0;t\u0007\n", begin: 1000000, end: 41000000,
            duration_ns: 40000000, threshold_ns: 10000000 } }' >"$s/capture.json"
"$JANKCTL" report "$s" >"$tmp/rep.out" 2>"$tmp/err"
check "report: exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$tmp/err"
check "report: it found the flagged action by its key" \
	[ "$("$JQ" -r .analysis.match <"$s/report.json")" = end_event ]
text_ok "report (stdout)" "$tmp/rep.out"
text_ok "report.txt" "$s/report.txt"
check "report.txt: the key is escaped" grep -qF 'RED\x1b[31mRED\xc2\x9b2J' "$s/report.txt"
check "report.json: valid UTF-8" utf8 "$s/report.json"
# Every picture is well-formed XML, whatever the strings: XML 1.0 has no
# U+FFFF, U+FFFE or C0 control but tab, newline and return (xmllint:
# "Char 0xFFFF out of allowed range").
for svg in critical-path.svg flame.svg; do
	check "$svg is well-formed XML" xmllint --noout "$s/$svg"
	check "$svg has no U+FFFF, U+FFFE, C0 or C1 control" xml_chars "$s/$svg"
done

# ---- jankctl captures ----
"$JANKCTL" captures --dir "$tmp/capture" >"$tmp/list.txt" 2>"$tmp/err"
check "captures (text): exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$tmp/err"
text_ok "captures (text)" "$tmp/list.txt"
check "captures (text): one line per capture and a header" [ "$(wc -l <"$tmp/list.txt")" = 2 ]
"$JANKCTL" captures --format json --dir "$tmp/capture" >"$tmp/list.json" 2>"$tmp/err"
check "captures (JSON): valid UTF-8, jq reads it" sh -c 'python3 -c "import sys; open(sys.argv[1], \"rb\").read().decode()" "$1" && "$2" -e . "$1" >/dev/null' - "$tmp/list.json" "$JQ"

# ---- the other text outputs of jankctl ----
"$JANKCTL" critpath --tid $A "$s" >"$tmp/cp.txt" 2>"$tmp/err"
check "critpath (text): exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$tmp/err"
text_ok "critpath (text)" "$tmp/cp.txt"
check "critpath (text): the thread names are escaped" grep -qF 'a\x1b]0;t\x07\x0a' "$tmp/cp.txt"
"$JANKCTL" graph --format text "$s" >"$tmp/graph.txt" 2>"$tmp/err"
check "graph (text): exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$tmp/err"
text_ok "graph (text)" "$tmp/graph.txt"
"$JANKCTL" compare --config "$tmp/req.conf" "$s" >"$tmp/cmp.txt" 2>"$tmp/err"
rc=$?
check "compare (text): exit 0 or 1 (too few actions), said on stderr ($rc)" [ $rc -le 1 ]
text_ok "compare (text)" "$tmp/cmp.txt"
text_ok "compare (its stderr)" "$tmp/err"

# ---- honest strings are shown as they are ----
check "analyze (text): an honest thread name is as it is" grep -qF "€" "$tmp/an.txt"

plan "$_tap_n"
