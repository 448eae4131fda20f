#!/bin/sh
# Kernel network matching, offline: jankctl analyze over two hosts' kernel
# traces in lttng-modules' own layout (tests/data/crosshost/two-hosts-tcp.sh,
# written by jank-netgen) where the only link between the hosts is TCP: a
# client on alpha sends a request, beta's softirq receives it and wakes the
# server, slow on requests 3 and 7, whose reply wakes the client back. No
# [flow], no user-level event on beta: each slow request's path must cross
# to beta's server thread (>= 80% of it there) through the matched segments
# and come back, never through alpha's thread of the same tid; through NAT
# (the addresses differ: only seq, ack_seq and flags match) with beta's
# clock 37 ms off, the clock offset estimated from the segments brackets the
# truth; a reply sent as one large segment and received as three matches by
# its sequence range; IPv6 too; a flood of sends never received changes
# nothing but the counts.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

NETGEN=$top_builddir/tests/gen/jank-netgen
conf=$top_srcdir/tests/data/crosshost/two-hosts-tcp.conf
plan 28

# gen DIR MODE [SKEW [FLOOD]]: the hosts' traces under DIR/t, the analysis in DIR/out.json
gen() {
	mkdir -p "$1/t" &&
		"$top_srcdir/tests/data/crosshost/two-hosts-tcp.sh" "$1" "$2" "${3:-0}" "${4:-0}" &&
		"$NETGEN" "$1/alpha-kernel.netgen" "$1/t/alpha-kernel" &&
		"$NETGEN" "$1/beta-kernel.netgen" "$1/t/beta-kernel" &&
		"$JANK_GEN" "$1/alpha-ust.script" "$1/t/alpha-ust" &&
		"$JANKCTL" analyze --format json --config "$conf" "$1/t" >"$1/out.json" 2>"$1/err"
}

# paths NAME DIR: the slow requests' paths in DIR/out.json
paths() {
	keys=$($JQ -r -s '[.[] | select(.type == "action") | .key] | join(" ")' "$2/out.json")
	if [ "$keys" = "id=3 id=7" ]; then
		ok "$1: the two slow requests alerted, no other"
	else
		fail "$1: alerted '$keys', expected id=3 and id=7"
	fi
	shares=$($JQ -r -s '[.[] | select(.type == "action") |
		(([.critical_path[] | select(.host == "beta") | .end - .begin] | add) * 1000
		 / .duration_ns | floor)] | map(tostring) | join(" ")' "$2/out.json")
	bad=0
	for s in $shares; do [ "$s" -ge 800 ] || bad=1; done
	if [ -n "$shares" ] && [ $bad = 0 ]; then
		ok "$1: at least 80% of each path on beta ($shares per mille)"
	else
		fail "$1: shares of the paths on beta: '$shares' per mille"
	fi
	decoy=$($JQ -s '[.[] | select(.type == "action") | .critical_path[] |
		select(.host == "alpha" and .tid == 200)] | length' "$2/out.json")
	server=$($JQ -s '[.[] | select(.type == "action") | .critical_path[] |
		select(.host == "beta" and .tid == 200 and .state == "running") |
		.end - .begin] | add // 0' "$2/out.json")
	if [ "$decoy" = 0 ] && [ "$server" -ge 120000000 ]; then
		ok "$1: the server's 60 ms on beta's tid 200 ($server ns), none on alpha's tid 200"
	else
		fail "$1: $decoy segments on alpha's tid 200, $server ns running on beta's"
	fi
}

# matching NAME DIR WANT: the kernel matching's counts, "sends receives pairs fallback"
matching() {
	got=$($JQ -r -s '.[] | select(.type == "tcp_matching") |
		"\(.sends) \(.receives) \(.pairs) \(.pairs_fallback)"' "$2/out.json")
	if [ "$got" = "$3" ]; then
		ok "$1: segments sent, received, matched, by the fallback key: $got"
	else
		fail "$1: segments sent, received, matched, by the fallback key: '$got', want '$3'"
	fi
}

for mode in plain gso ipv6; do
	if gen "$tmp/$mode" $mode; then ok "$mode: written, analyzed"; else
		fail "$mode: written, analyzed: $(cat "$tmp/$mode/err")"; fi
	paths "$mode" "$tmp/$mode"
	matching "$mode" "$tmp/$mode" "20 20 20 0"
done

# Through NAT, beta's clock 37 ms ahead.
if gen "$tmp/nat" nat 37000000; then ok "nat: written, analyzed"; else
	fail "nat: written, analyzed: $(cat "$tmp/nat/err")"; fi
paths "nat, 37 ms apart" "$tmp/nat"
matching nat "$tmp/nat" "20 20 20 20"
clock=$($JQ -r -s '.[] | select(.type == "clock") |
	"\(.host) \(.reference) \(.lo_ns) \(.offset_ns) \(.hi_ns) \(.messages_to) \(.messages_from)"' \
	"$tmp/nat/out.json")
# shellcheck disable=SC2086 # the words of the clock
set -- $clock
if [ "$1 $2" = "beta alpha" ] && [ "$3" -le -37000000 ] && [ "$5" -ge -37000000 ] &&
	[ "$4" -ge "$3" ] && [ "$4" -le "$5" ] && [ "$6" = 10 ] && [ "$7" = 10 ]; then
	ok "nat: the offset brackets the truth: $4 ns in [$3, $5], 10 segments each way"
else
	fail "nat: the offset: '$clock' (want beta alpha lo <= -37000000 <= hi, 10 10)"
fi

# A flood of 3000 segments to a host not traced: the same paths, the sends counted.
if gen "$tmp/flood" plain 0 3000; then ok "flood: written, analyzed"; else
	fail "flood: written, analyzed: $(cat "$tmp/flood/err")"; fi
paths flood "$tmp/flood"
matching flood "$tmp/flood" "3020 20 20 0"

# Text: the path goes through the segments, named as the flow tcp; the counts.
"$JANKCTL" analyze --config "$conf" "$tmp/nat/t" >"$tmp/out.txt" 2>&1
if grep -q 'via flow tcp to tid 200 (server) on beta' "$tmp/out.txt" &&
	grep -q 'via flow tcp to tid 100 (client) on alpha' "$tmp/out.txt" &&
	grep -q '^tcp matching: 20 sends, 20 receives that woke a thread, 20 matched (20 by seq' \
		"$tmp/out.txt"; then
	ok "text: the crossings through tcp, the matching's counts"
else
	fail "text: the crossings or the counts"
	sed 's/^/# /' "$tmp/out.txt" | head -30
fi

# alpha alone: nothing to match, the path stays on alpha.
"$JANKCTL" analyze --format json --config "$conf" "$tmp/plain/t/alpha-kernel" \
	"$tmp/plain/t/alpha-ust" >"$tmp/alpha.json" 2>"$tmp/err"
onbeta=$($JQ -s '[.[] | select(.type == "action") | .critical_path[] | select(has("host"))] |
	length' "$tmp/alpha.json")
if [ "$onbeta" = 0 ] && ! grep -q tcp_matching "$tmp/alpha.json"; then
	ok "one host: no crossing, no matching"
else
	fail "one host: $onbeta segments name a host"
fi
