# SPDX-License-Identifier: MIT
# tests/live/test-symbols.sh: addresses to function names from a real trace.
#
# Traces jank-demo with a private lttng-sessiond, with lttng-ust's statedump
# (lttng_ust_statedump:*, emitted when the application registers) and the
# ip context on the jank events. Then the trace reader feeds the symbolizer
# (io/symbols.c, through tests/live/symbolize-trace) with the statedump, and
# the test checks what it makes of addresses that babeltrace2 and nm give:
# jank-demo's main, the tracepoint's call site in libjank-ust
# (jank_action_begin), a place in jank-demo that no function holds, and
# addresses outside every mapping.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

BT=${BABELTRACE2:-babeltrace2}
TOOL=$top_builddir/tests/live/symbolize-trace

live_init
live_require_demo
command -v "$BT" >/dev/null 2>&1 || plan_skip_all "$BT not found (install babeltrace2)"
command -v nm >/dev/null 2>&1 || plan_skip_all "nm not found (install binutils)"
[ -x "$TOOL" ] || plan_skip_all "$TOOL is not built"
live_start_sessiond --no-kernel

plan 8

trace=$LIVE_TMP/trace
session=jank-symbols-$$
traced_ok=false
demo_rc=-
if live_lttng create "$session" --output="$trace" &&
	live_lttng enable-event --userspace 'lttng_ust_statedump:*' &&
	live_lttng enable-event --userspace 'jank:action_begin' &&
	live_lttng add-context --userspace -t vpid -t ip &&
	live_lttng start; then
	"$LIVE_DEMO" --cause sleep --count 3 --slow-every 0 --normal 1ms --interval 1ms \
		>"$LIVE_TMP/demo.out" 2>&1 9>&- &
	demo_pid=$!
	live_track "$demo_pid"
	wait "$demo_pid"
	demo_rc=$?
	live_forget "$demo_pid"
	live_lttng stop && live_lttng destroy "$session" && traced_ok=true
fi
check "traced jank-demo with the statedump (exit $demo_rc)" \
	[ "$traced_ok" = true ] && [ "$demo_rc" = 0 ]

"$BT" "$trace" >"$LIVE_TMP/bt.txt" 2>"$LIVE_TMP/bt.err"
# The statedump's bin_info of jank-demo itself (libtool runs it from .libs/).
bin_info=$(awk -v p="$demo_pid" '/lttng_ust_statedump:bin_info:/ &&
	$0 ~ ("vpid = " p "[ ,}]") && /path = "[^"]*jank-demo"/' "$LIVE_TMP/bt.txt" | head -n 1)
baddr=$(printf '%s\n' "$bin_info" | sed -n 's/.*baddr = \(0x[0-9A-Fa-f]*\).*/\1/p')
path=$(printf '%s\n' "$bin_info" | sed -n 's/.*path = "\([^"]*\)".*/\1/p')
if [ -n "$baddr" ] && [ -f "$path" ]; then
	ok "the statedump has jank-demo's bin_info: $path at $baddr"
else
	fail "the statedump has jank-demo's bin_info"
	grep -m 5 'lttng_ust_statedump' "$LIVE_TMP/bt.txt" | sed 's/^/#   /'
	sed 's/^/#   /' "$LIVE_TMP/bt.err"
fi

# The ip context of a jank:action_begin: inside libjank-ust's jank_action_begin.
ip=$(awk -v p="$demo_pid" '/jank:action_begin:/ && $0 ~ ("vpid = " p "[ ,}]")' \
	"$LIVE_TMP/bt.txt" | sed -n 's/.*[{,] ip = \(0x[0-9A-Fa-f]*\|[0-9]*\).*/\1/p' | head -n 1)
# main: the binary's base + its symbol's value (a PIE's first PT_LOAD is at 0).
main_off=$(nm "$path" 2>/dev/null | awk '$3 == "main" { print $1; exit }')
first_vaddr=$(LC_ALL=C readelf -lW "$path" 2>/dev/null |
	awk '$1 == "LOAD" { print $3; exit }')
main_addr=-
if [ -n "$main_off" ] && [ -n "$first_vaddr" ] && [ -n "$baddr" ]; then
	main_addr=$(printf '0x%x' $((baddr + 0x$main_off - first_vaddr)))
fi
base_name=${path##*/}

"$TOOL" "$trace" "$demo_pid" "$main_addr" "${ip:--}" "$baddr" 0x10 >"$LIVE_TMP/sym.out" \
	2>"$LIVE_TMP/sym.err"
tool_rc=$?
"$TOOL" "$trace" 999999999 "$main_addr" >"$LIVE_TMP/sym-other.out" 2>&1
read -r _ events _ mappings _ binaries <"$LIVE_TMP/sym.out"
if [ "$tool_rc" = 0 ] && [ "${events:-0}" -ge 3 ] && [ "${mappings:-0}" -ge 3 ]; then
	ok "the reader passed the statedump on: $events events, $mappings mappings, $binaries binaries"
else
	fail "the reader passed the statedump on (exit $tool_rc)"
	sed 's/^/#   /' "$LIVE_TMP/sym.out" "$LIVE_TMP/sym.err"
fi

# line N of the lookups (1: the first address)
lookup() {
	sed -n "$(($1 + 1))p" "$LIVE_TMP/sym.out" | cut -d' ' -f2-
}
check "jank-demo's main ($main_addr) is main" [ "$(lookup 1)" = "function main" ]
if [ "$(lookup 2)" = "function jank_action_begin" ]; then
	ok "the ip of jank:action_begin ($ip) is in jank_action_begin (libjank-ust)"
else
	fail "the ip of jank:action_begin (${ip:-none}) is in jank_action_begin (libjank-ust)"
	grep -m 2 'jank:action_begin' "$LIVE_TMP/bt.txt" | sed 's/^/#   /'
fi
base_text="$base_name+$(printf '0x%x' $((${first_vaddr:-0})))"
check "jank-demo's base, where no function is, is $base_text" \
	[ "$(lookup 3)" = "offset $base_text" ]
check "an address outside every mapping stays an address" [ "$(lookup 4)" = "unmapped 0x10" ]
check "another process has none of jank-demo's mappings" \
	[ "$(sed -n 2p "$LIVE_TMP/sym-other.out" | cut -d' ' -f2)" = unmapped ]
for n in 1 2 3 4; do
	diag "lookup $n: $(lookup $n)"
done
