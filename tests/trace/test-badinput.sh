#!/bin/sh
# jankctl on bad input: a missing, empty or non-CTF trace, a trace with no
# usable events, unknown options and commands, bad option values, a thread
# that is not in the trace, no jankd to ask. Each fails with a non-zero
# status (1 for bad input, 2 for usage errors, 3 when jankd cannot be
# reached), is not killed by a signal, and writes exactly
# one line on stderr, which starts with "jankctl: ".
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

plan 35

J=$JANKCTL
mkdir -p "$tmp/empty" "$tmp/notctf/sub" "$tmp/garbage"
echo hello >"$tmp/notctf/sub/README"
echo "this is not CTF metadata" >"$tmp/garbage/metadata"
echo x >"$tmp/garbage/channel0_0"

# A valid trace for the cases that need one: a jank-gen fixture.
trace=
if [ -x "$JANK_GEN" ]; then
	cat >"$tmp/k.txt" <<'X'
@trace kernel
@cpus 1
1000 0 sched_switch prev_comm="swapper/0" prev_tid=0 prev_prio=20 prev_state=0 next_comm="app" next_tid=100 next_prio=120
2000 0 sched_switch prev_comm="app" prev_tid=100 prev_prio=120 prev_state=1 next_comm="swapper/0" next_tid=0 next_prio=20
X
	"$JANK_GEN" "$tmp/k.txt" "$tmp/k" && trace=$tmp/k
	# Events that no rule and no part of the model uses.
	cat >"$tmp/n.txt" <<'X'
@trace kernel
1000 0 kmem_kmalloc call_site=0x10 ptr=0x20 bytes_req=8 bytes_alloc=8 gfp_flags=0
X
	"$JANK_GEN" "$tmp/n.txt" "$tmp/n" || rm -rf "$tmp/n"
fi

e() { expect_error "$@"; }

e "missing trace dir" 1 "^jankctl: $tmp/nope: No such file or directory$" -- \
	"$J" graph "$tmp/nope"
e "empty dir" 1 "^jankctl: $tmp/empty: no CTF trace found \(no metadata file\)$" -- \
	"$J" graph "$tmp/empty"
e "dir without CTF" 1 "^jankctl: $tmp/notctf: no CTF trace found \(no metadata file\)$" -- \
	"$J" critpath --tid 1 "$tmp/notctf"
e "garbage metadata" 1 "^jankctl: $tmp/garbage: not a CTF trace: " -- \
	"$J" graph "$tmp/garbage"
e "a file, not a dir" 1 "^jankctl: $tmp/notctf/sub/README: not a directory" -- \
	"$J" graph "$tmp/notctf/sub/README"
good=$trace
[ -z "$good" ] && [ -f "$SHARED_TRACES/many-threads/metadata" ] && good=$SHARED_TRACES/many-threads
if [ -n "$good" ]; then
	e "one bad trace after a good one" 1 "^jankctl: $tmp/empty: no CTF trace found" -- \
		"$J" graph "$good" "$tmp/empty"
else
	skip "one bad trace after a good one" "no trace to use"
fi
e "unknown command" 2 "^jankctl: unknown command 'frobnicate'" -- "$J" frobnicate "$tmp/empty"
e "no command" 2 "^jankctl: no command given" -- "$J"
e "unknown global option" 2 "^jankctl: unknown option '--frob'" -- "$J" --frob
e "unknown option" 2 "^jankctl: graph: unknown option '--frob'" -- "$J" graph --frob "$tmp/empty"
e "unknown short option" 2 "^jankctl: critpath: unknown option '-z'" -- \
	"$J" critpath -z "$tmp/empty"
e "option of another command" 2 "^jankctl: graph: option '--config' does not apply" -- \
	"$J" graph --config x "$tmp/empty"
e "missing option argument" 2 "^jankctl: critpath: option '--tid' needs an argument" -- \
	"$J" critpath "$tmp/empty" --tid
e "no trace given" 2 "^jankctl: graph: no TRACE given" -- "$J" graph
e "non-numeric --tid" 2 "^jankctl: critpath: bad --tid 'abc'" -- \
	"$J" critpath --tid abc "$tmp/empty"
e "negative --tid" 2 "^jankctl: graph: bad --tid '-4'" -- "$J" graph --tid -4 "$tmp/empty"
e "non-numeric --begin" 2 "^jankctl: critpath: bad --begin '12x'" -- \
	"$J" critpath --tid 1 --begin 12x "$tmp/empty"
e "--begin after --end" 2 "^jankctl: critpath: --begin 5 is after --end 3$" -- \
	"$J" critpath --tid 1 --begin 5 --end 3 "$tmp/empty"
e "critpath without --tid" 2 "^jankctl: critpath: --tid N is required" -- \
	"$J" critpath "$tmp/empty"
e "bad --format" 2 "^jankctl: graph: bad --format 'xml'" -- \
	"$J" graph --format xml "$tmp/empty"
e "status: bad --format" 2 "^jankctl: status: bad --format 'yaml' \(expected text, json, openmetrics or prometheus\)$" -- \
	"$J" status --format yaml
e "status: no jankd on the socket" 3 "^jankctl: cannot connect to $tmp/nosock: No such file or directory" -- \
	"$J" status --socket "$tmp/nosock"
e "status: stray argument" 2 "^jankctl: status: unexpected argument 'now' \(see jankctl status --help\)$" -- \
	"$J" status now
e "captures: bad --format" 2 "^jankctl: captures: bad --format 'csv' \(expected text or json\)$" -- \
	"$J" captures --dir "$tmp" --format csv
e "captures: stray argument" 2 "^jankctl: captures: unexpected argument 'all' \(see jankctl captures --help\)$" -- \
	"$J" captures --dir "$tmp" all

if [ -n "$trace" ]; then
	e "critpath: tid not in the trace" 1 "^jankctl: thread 999 not found in the trace$" -- \
		"$J" critpath --tid 999 "$trace"
	e "graph: tid not in the trace" 1 "^jankctl: thread 999 not found in the trace$" -- \
		"$J" graph --tid 999 "$trace"
	e "critpath: --begin after the traces" 1 "^jankctl: critpath: --begin 5000 is after the end of the traces \(2000\)$" -- \
		"$J" critpath --tid 100 --begin 5000 "$trace"
	e "critpath: --end before the traces" 1 "^jankctl: critpath: --end 5 is before the start of the traces" -- \
		"$J" critpath --tid 100 --end 5 "$trace"
	e "critpath: a negative --begin" 2 "^jankctl: critpath: --begin -1 is negative" -- \
		"$J" critpath --tid 100 --begin -1 --end 9223372036854775807 "$trace"
	"$J" critpath --tid 100 "$trace" >/dev/null 2>"$tmp/err"
	check "critpath on the good trace succeeds silently" test $? -eq 0 -a ! -s "$tmp/err"
else
	skip "critpath: tid not in the trace" "jank-gen not built"
	skip "graph: tid not in the trace" "jank-gen not built"
	skip "critpath: --begin after the traces" "jank-gen not built"
	skip "critpath: --end before the traces" "jank-gen not built"
	skip "critpath: a negative --begin" "jank-gen not built"
	skip "critpath on the good trace succeeds silently" "jank-gen not built"
fi
if [ -d "$tmp/n" ]; then
	e "trace with no usable events" 1 "^jankctl: $tmp/n: no events the engine can use" -- \
		"$J" graph "$tmp/n"
else
	skip "trace with no usable events" "jank-gen not built"
fi

# And the good uses of the command line: help and version on stdout, status 0.
"$J" --help >"$tmp/out" 2>"$tmp/err"
check "--help" test $? -eq 0 -a -s "$tmp/out" -a ! -s "$tmp/err"
"$J" --version >"$tmp/out" 2>"$tmp/err"
check "--version" grep -Eq '^jankctl \(jank\) [0-9]' "$tmp/out"
ok_help=0
for c in analyze critpath graph; do
	"$J" $c --help >"$tmp/out" 2>"$tmp/err" && grep -q "^Usage: jankctl $c" "$tmp/out" &&
		[ ! -s "$tmp/err" ] || ok_help=1
done
check "COMMAND --help" test $ok_help -eq 0
