#!/bin/sh
# jankctl analyze over two hosts' traces (tests/data/crosshost/two-hosts.sh):
# a client on alpha waits for a server on beta, slow on requests 5 and 15.
# The request and reply flows cross the hosts: each slow request's path must
# go to beta's server thread (>= 80% of it there) and back, never through
# alpha's thread of the same tid (200, a busy decoy); every segment names its
# host. With beta's metadata clock offset 37 ms off, the same, and the clock
# offset estimated from the flows brackets the truth (-37 ms: alpha's time is
# beta's minus 37 ms). One host's traces alone say nothing of hosts. With a
# third host, gamma, where the server's database is slow, the path goes
# alpha, beta, gamma, beta, alpha.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

plan 21
conf=$top_srcdir/tests/data/crosshost/two-hosts.conf

# gen DIR [SKEW [gamma]]: the traces of the hosts under DIR/t
gen() {
	mkdir -p "$1" &&
		"$top_srcdir/tests/data/crosshost/two-hosts.sh" "$1" "${2:-0}" ${3:-} &&
		for f in alpha-kernel alpha-ust beta-kernel beta-ust ${3:+gamma-kernel gamma-ust}; do
			"$JANK_GEN" "$1/$f.script" "$1/t/$f" || return 1
		done
}

# check NAME DIR: the slow requests' paths in DIR/out.json
check() {
	n=$($JQ -s '[.[] | select(.type == "action")] | length' "$2/out.json")
	keys=$($JQ -r -s '[.[] | select(.type == "action") | .key] | join(" ")' "$2/out.json")
	if [ "$n" = 2 ] && [ "$keys" = "id=5 id=15" ]; then
		ok "$1: the two slow requests, no other"
	else
		fail "$1: $n actions alerted ($keys), expected id=5 and id=15"
	fi
	# The share of each path on beta, in per mille.
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
		.end - .begin] | add' "$2/out.json")
	if [ "$decoy" = 0 ] && [ "$server" -ge 120000000 ]; then
		ok "$1: the server's 60 ms on beta's tid 200, none on alpha's tid 200"
	else
		fail "$1: $decoy segments on alpha's tid 200, $server ns running on beta's"
	fi
	# Tiling: in order, no gap, no overlap, from begin to end; every segment has a host.
	tiles=$($JQ -s '[.[] | select(.type == "action") | . as $a |
		(.critical_path | length > 0) and (.critical_path[0].begin == $a.begin) and
		(.critical_path[-1].end == $a.end) and
		([range(1; .critical_path | length) as $i |
		  .critical_path[$i].begin == .critical_path[$i - 1].end and
		  .critical_path[$i].begin < .critical_path[$i].end] | all) and
		([.critical_path[] | .host != null] | all)] | all' "$2/out.json")
	if [ "$tiles" = true ]; then
		ok "$1: the segments tile each action, each names its host"
	else
		fail "$1: the segments do not tile the actions or lack hosts"
	fi
}

if gen "$tmp/a"; then ok "two hosts' traces written"; else fail "two hosts' traces written"; fi
"$JANKCTL" analyze --format json --config "$conf" "$tmp/a/t" >"$tmp/a/out.json" 2>"$tmp/err"
st=$?
if [ $st = 0 ] && [ ! -s "$tmp/err" ]; then ok "analyze over two hosts"; else
	fail "analyze over two hosts: status $st, $(cat "$tmp/err")"; fi
check "same clocks" "$tmp/a"

if gen "$tmp/s" 37000000; then ok "beta's clock 37 ms off"; else fail "beta's clock 37 ms off"; fi
"$JANKCTL" analyze --format json --config "$conf" "$tmp/s/t" >"$tmp/s/out.json" 2>"$tmp/err"
st=$?
if [ $st = 0 ]; then ok "analyze over two hosts, 37 ms apart"; else
	fail "analyze over two hosts, 37 ms apart: status $st, $(cat "$tmp/err")"; fi
check "37 ms apart" "$tmp/s"
clock=$($JQ -r -s '.[] | select(.type == "clock") |
	"\(.host) \(.reference) \(.lo_ns) \(.offset_ns) \(.hi_ns) \(.messages_to) \(.messages_from)"' \
	"$tmp/s/out.json")
set -- $clock
if [ "$1 $2" = "beta alpha" ] && [ "$3" -le -37000000 ] && [ "$5" -ge -37000000 ] &&
	[ "$4" -ge "$3" ] && [ "$4" -le "$5" ] && [ $(($5 - $3)) -lt 1000000 ] &&
	[ "$6" = 20 ] && [ "$7" = 20 ]; then
	ok "the offset brackets the truth: $4 ns in [$3, $5], 20 messages each way"
else
	fail "the offset: '$clock' (want beta alpha lo <= -37000000 <= hi, 20 20)"
fi

"$JANKCTL" analyze --config "$conf" "$tmp/s/t" >"$tmp/s/out.txt" 2>&1
if grep -q '^      tid 200 (server) on beta blocked' "$tmp/s/out.txt" &&
	grep -q 'via flow reply to tid 100 (client) on alpha' "$tmp/s/out.txt" &&
	grep -Eq '^clock of beta against alpha: -37\.0 ms \(between -37\.[0-9] ms and -36\.[0-9] ms' \
		"$tmp/s/out.txt"; then
	ok "text: the hosts in the story, the clock offset"
else
	fail "text: the hosts in the story or the offset"
	sed 's/^/# /' "$tmp/s/out.txt" | head -30
fi

# alpha alone: one host, no host in the output, and nothing of beta on the path.
"$JANKCTL" analyze --format json --config "$conf" "$tmp/a/t/alpha-kernel" "$tmp/a/t/alpha-ust" \
	>"$tmp/alpha.json" 2>"$tmp/err"
hosts=$($JQ -s '[.[] | select(.type == "action") | .critical_path[] | select(has("host"))] |
	length' "$tmp/alpha.json")
if [ "$hosts" = 0 ] && ! grep -q '"type":"clock"' "$tmp/alpha.json"; then
	ok "one host: no host in the output"
else
	fail "one host: $hosts segments name a host"
fi

# A hostname that is not one is refused, naming the trace.
sed 's/^@env hostname="beta"/@env hostname="be ta"/' "$tmp/a/beta-ust.script" >"$tmp/bad.script"
"$JANK_GEN" "$tmp/bad.script" "$tmp/bad/beta-ust"
expect_error "a bad hostname" 1 "beta-ust: its environment's hostname is not a hostname" -- \
	"$JANKCTL" analyze --config "$conf" "$tmp/a/t/alpha-kernel" "$tmp/bad"

# A flow restricted to other hosts (hosts =) does not pair across these two.
sed 's/^\(\[flow .*\]\)$/\1\nhosts = alpha, gamma/' "$conf" >"$tmp/gamma.conf"
"$JANKCTL" analyze --format json --config "$tmp/gamma.conf" "$tmp/a/t" >"$tmp/gamma.json" 2>"$tmp/err"
n=$($JQ -s '[.[] | select(.type == "action")] | length' "$tmp/gamma.json")
onbeta=$($JQ -s '[.[] | select(.type == "action") | .critical_path[] |
	select(.host == "beta")] | length' "$tmp/gamma.json")
if [ "$n" = 2 ] && [ "$onbeta" = 0 ]; then
	ok "hosts = alpha, gamma: the flows stay on alpha"
else
	fail "hosts = alpha, gamma: $n actions, $onbeta segments on beta"
fi
sed 's/^\(\[flow .*\]\)$/\1\nhosts = al pha/' "$conf" >"$tmp/bad.conf"
expect_error "a bad hosts list" 1 "bad.conf:[0-9]+: bad hosts 'al pha'" -- \
	"$JANKCTL" analyze --config "$tmp/bad.conf" "$tmp/a/t"

# Three hosts: the server on beta waits 55 ms for its database on gamma.
gen "$tmp/g" 37000000 gamma
"$JANKCTL" analyze --format json --config "$top_srcdir/tests/data/crosshost/three-hosts.conf" \
	"$tmp/g/t" >"$tmp/g.json" 2>"$tmp/err"
st=$?
route=$($JQ -r -s '[.[] | select(.type == "action") | [.critical_path[].host] |
	reduce .[] as $h ([]; if length > 0 and .[-1] == $h then . else . + [$h] end) |
	join(">")] | join(" ")' "$tmp/g.json")
if [ $st = 0 ] && [ "$route" = "beta>gamma>beta>alpha beta>gamma>beta>alpha" ]; then
	ok "three hosts: the slow paths go beta, gamma, back to beta, to alpha"
else
	fail "three hosts: status $st, routes '$route'"
fi
shares=$($JQ -r -s '[.[] | select(.type == "action") |
	(([.critical_path[] | select(.host == "gamma" and .tid == 300) | .end - .begin] |
	  add) * 1000 / .duration_ns | floor)] | map(tostring) | join(" ")' "$tmp/g.json")
bad=0
for x in $shares; do [ "$x" -ge 800 ] || bad=1; done
if [ -n "$shares" ] && [ $bad = 0 ]; then
	ok "three hosts: at least 80% of each slow path on gamma's db thread ($shares per mille)"
else
	fail "three hosts: shares on gamma's db thread '$shares' per mille"
fi
# Beta's clock is 37 ms ahead, gamma's 5 ms behind: beta's time is gamma's plus 42 ms.
clock=$($JQ -r -s '.[] | select(.type == "clock" and .host == "gamma") |
	"\(.reference) \(.lo_ns) \(.offset_ns) \(.hi_ns)"' "$tmp/g.json")
set -- $clock
if [ "$1" = beta ] && [ "$2" -le 42000000 ] && [ "$4" -ge 42000000 ]; then
	ok "three hosts: gamma's clock against beta's brackets +42 ms ($3 in [$2, $4])"
else
	fail "three hosts: gamma's clock '$clock'"
fi
