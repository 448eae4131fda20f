#!/bin/sh
# Binaries named by build-id through a debuginfod server ([symbols]
# debuginfod-urls): a real debuginfod (Debian's package), started here on a
# free port and asked on loopback, serves a directory holding shop, built
# with its symbols. The traces are of shop's process (its statedump gives
# shop's path and build-id, cyg-profile its call stacks), analysed where
# shop is absent (another host's binary) or stripped. jankctl must name
# apply_discounts through the server (analyze, and report --config on a
# capture of that host), keep the file in its cache (0644, for jankd's
# workers) and name it from there with the server gone; take no file larger
# than the cache may hold; and with no server configured, fetch nothing,
# even with DEBUGINFOD_URLS set.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

DEBUGINFOD=${DEBUGINFOD:-debuginfod}
command -v "$DEBUGINFOD" >/dev/null 2>&1 || plan_skip_all "no debuginfod (Debian package debuginfod)"
command -v curl >/dev/null 2>&1 || plan_skip_all "no curl"
command -v strip >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 && command -v nm >/dev/null 2>&1 ||
	plan_skip_all "no strip, readelf or nm"
CC=${CC:-cc}

server_pid=
stop_server() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	server_pid=
}
trap 'stop_server; rm -rf "$tmp"' EXIT

# shop: each action runs compute_price > apply_discounts, 20 ms in the latter.
mkdir -p "$tmp/srv" "$tmp/stripped"
cat >"$tmp/shop.c" <<'EOF'
__attribute__((noinline)) void apply_discounts(void) {}
__attribute__((noinline)) void compute_price(void) { apply_discounts(); }
int main(void) { compute_price(); return 0; }
EOF
$CC -O0 -g -fPIE -pie -Wl,--build-id=sha1 -o "$tmp/srv/shop" "$tmp/shop.c" ||
	{ echo "Bail out! cannot build shop with $CC"; exit 1; }
strip -o "$tmp/stripped/shop" "$tmp/srv/shop" || { echo "Bail out! cannot strip shop"; exit 1; }
bid=$(readelf -n "$tmp/srv/shop" | awk '/Build ID:/ { print $3 }')
bid_array=[$(echo "$bid" | sed 's/../0x&,/g; s/,$//')]
base=0x555555554000
addr_of() { printf '0x%x' $((base + 0x$(nm "$tmp/srv/shop" | awk -v f="$1" '$3 == f { print $1 }'))); }
off_disc=$(nm "$tmp/srv/shop" | awk '$3 == "apply_discounts" { print $1 }' | sed 's/^0*//')

# gen DIR PATH: a trace of 3 slow actions of shop, mapped from PATH.
gen() {
	mkdir -p "$1" && cat >"$1/kernel.script" <<EOF &&
@trace kernel
@cpus 1
999000000 0 lttng_statedump_process_state tid=1001 pid=1000 name="shop" status=5
999500000 0 sched_switch prev_comm="swapper/0" prev_tid=0 prev_prio=20 prev_state=0 next_comm="shop" next_tid=1001 next_prio=20
EOF
		awk -v base="$base" -v price="$(addr_of compute_price)" -v disc="$(addr_of apply_discounts)" \
			-v path="$2" -v bid="$bid_array" '
	function ev(t, what, f) { printf "%.0f 0 %s %s vpid=1000 vtid=1001 procname=\"shop\"\n", t, what, f }
	function fn(t, entry, a) {
		ev(t, "lttng_ust_cyg_profile:func_" (entry ? "entry" : "exit"), "addr=" a " call_site=" price)
	}
	BEGIN {
		print "@trace ust\n@cpus 1\n@context vpid vtid procname:string"
		ev(999600000, "lttng_ust_statedump:bin_info", "baddr=" base " memsz=0x100000 path=\"" path \
		   "\" is_pic=1 has_build_id=1 has_debug_link=0")
		ev(999600000, "lttng_ust_statedump:build_id", "baddr=" base " build_id=" bid)
		for (i = 0; i < 3; i++) {
			t = 1000000000 + i * 40000000
			ev(t, "jank:action_begin", "name=\"req\" id=" i)
			fn(t + 10000, 1, price)
			fn(t + 20000, 1, disc)
			fn(t + 20020000, 0, disc)
			fn(t + 20030000, 0, price)
			ev(t + 20040000, "jank:action_end", "name=\"req\" id=" i)
		}
	}' >"$1/ust.script" &&
		"$JANK_GEN" "$1/kernel.script" "$1/trace/kernel" && "$JANK_GEN" "$1/ust.script" "$1/trace/ust"
}
gen "$tmp/remote" /opt/elsewhere/shop && gen "$tmp/strip" "$tmp/stripped/shop" ||
	{ echo "Bail out! cannot generate the traces"; exit 1; }

# A free port on loopback, then the server on it, indexing $tmp/srv.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
	{ echo "Bail out! no free port"; exit 1; }
"$DEBUGINFOD" -F -p "$port" -d "$tmp/db.sqlite" -t 0 -g 0 "$tmp/srv" >"$tmp/server.log" 2>&1 &
server_pid=$!
url=http://127.0.0.1:$port
i=0
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/buildid/$bid/executable")" = 200 ]; do
	i=$((i + 1))
	if [ $i -gt 150 ] || ! kill -0 "$server_pid" 2>/dev/null; then
		sed 's/^/# /' "$tmp/server.log"
		echo "Bail out! debuginfod did not serve shop on $url"
		exit 1
	fi
	sleep 0.2
done
# The server's count of debuginfo requests (the executable ones are the test's own).
asked() { curl -s "$url/metrics" | awk '/^http_requests_total\{type="debuginfo"\}/ { n = $2 } END { print n + 0 }'; }

conf() { # FILE [SYMBOLS-LINES]
	printf '[action req]\nbegin = jank:action_begin\nend = jank:action_end\nkey = name, id\n' >"$1"
	printf 'match = name == "req"\nthreshold = 10ms\n' >>"$1"
	[ -n "${2:-}" ] && printf '[symbols]\n%s\n' "$2" >>"$1"
	return 0
}
conf "$tmp/none.conf"
conf "$tmp/fetch.conf" "debuginfod-urls = $url
debuginfod-cache = $tmp/cache
debuginfod-timeout = 5s"
# functions JSON: the function each action's path spent most in, counted ("3 apply_discounts").
functions() { "$JQ" -r 'select(.type == "action") | .breakdown.functions[0].name' "$1" | uniq -c | awk '{ $1 = $1 } 1'; }

# ---- No server configured: nothing is fetched, even with the client's variable set ----
before=$(asked)
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$tmp/envcache \
	"$JANKCTL" analyze --config "$tmp/none.conf" --format json "$tmp/remote/trace" >"$tmp/none.json" 2>"$tmp/err"
check "no server configured: exit 0, nothing on stderr" [ $? = 0 ] && [ ! -s "$tmp/err" ]
check "no server configured: the remote binary's frames are shop+offset" \
	[ "$(functions "$tmp/none.json")" = "3 shop+0x$off_disc" ]
check "no server configured: the server was asked nothing, no cache was made" \
	[ "$(asked)" = "$before" ] && [ ! -e "$tmp/cache" ] && [ ! -e "$tmp/envcache" ]

# ---- A remote host's binary, absent here ----
before=$(asked)
ms() { echo $(($(date +%s%N) / 1000000)); }
t0=$(ms)
"$JANKCTL" analyze --config "$tmp/fetch.conf" --format json "$tmp/remote/trace" >"$tmp/remote.json" 2>"$tmp/err"
check "remote binary: exit 0, nothing on stderr" [ $? = 0 ] && [ ! -s "$tmp/err" ]
t1=$(ms)
"$JANKCTL" analyze --config "$tmp/none.conf" --format json "$tmp/remote/trace" >/dev/null 2>&1
t2=$(ms)
"$JANKCTL" analyze --config "$tmp/fetch.conf" --format json "$tmp/remote/trace" >/dev/null 2>&1
diag "jankctl analyze: $((t1 - t0)) ms downloading, $(($(ms) - t2)) ms from the cache, $((t2 - t1)) ms without [symbols]"
[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err"
check "remote binary: named through the server, each of the 3 slow actions" \
	[ "$(functions "$tmp/remote.json")" = "3 apply_discounts" ]
check "remote binary: the whole stack is named" [ "$("$JQ" -c 'select(.type == "action") |
	.critical_path[] | select(.stack) | .stack' "$tmp/remote.json" | sort -u)" = '["compute_price","apply_discounts"]' ]
check "remote binary: the server was asked once" [ "$(asked)" = $((before + 1)) ]
check "remote binary: its debug file is in the cache, 0644, the build's" sh -c '
	[ "$(stat -c %a "$1/$2/debuginfo")" = 644 ] && [ "$(stat -c %a "$1/$2")" = 755 ] &&
	readelf -n "$1/$2/debuginfo" | grep -q "Build ID: $2"' - "$tmp/cache" "$bid"

# ---- A capture of that host, reported here: jankctl report --config ----
cap=$tmp/captures/20240501T120000Z-req-1001
mkdir -p "$cap" && cp -r "$tmp/remote/trace" "$cap/snapshot-1" && cat >"$cap/capture.json" <<EOF
{
  "format": "jank-capture/1", "name": "20240501T120000Z-req-1001", "mode": "snapshot",
  "state": "complete", "time": "2024-05-01T12:00:00Z", "time_ns": 1714564800000000000,
  "hostname": "remote-host", "session": "jankd-capture", "jankd_version": "test",
  "rule": { "name": "req", "begin": "jank:action_begin", "end": "jank:action_end",
            "key": ["name", "id"], "match": { "field": "name", "value": "req" },
            "threshold": { "kind": "fixed", "ns": 10000000 } },
  "action": { "action": "req", "kind": "completed", "key": "name=req,id=0", "tid": 1001,
              "pid": 1000, "comm": "shop", "begin": 1000000000, "end": 1020040000,
              "duration_ns": 20040000, "threshold_ns": 10000000 },
  "joined": [], "joined_more": 0
}
EOF
"$JANKCTL" report "$cap" >"$tmp/out" 2>"$tmp/err"
check "report without --config: exit 0, shop+offset" [ $? = 0 ] &&
	[ "$("$JQ" -r '.breakdown.functions[0].name' "$cap/report.json")" = "shop+0x$off_disc" ]
[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err"
conf "$tmp/report.conf" "debuginfod-urls = $url
debuginfod-cache = $tmp/cache4"
"$JANKCTL" report --config "$tmp/report.conf" "$cap" >"$tmp/out" 2>"$tmp/err"
check "report --config: exit 0, the function named through the server" [ $? = 0 ] &&
	[ "$("$JQ" -r '.breakdown.functions[0].name' "$cap/report.json")" = apply_discounts ]
[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err"
check "report --config: binaries.json gives the downloaded file" "$JQ" -e --arg id "$bid" \
	--arg f "$tmp/cache4/$bid/debuginfo" '[.binaries[] | select(.build_id == $id)] |
	length == 1 and .[0].symbol_file == $f and .[0].path == "/opt/elsewhere/shop"' "$cap/binaries.json"

# ---- A file larger than the cache may hold: not downloaded ----
conf "$tmp/small.conf" "debuginfod-urls = $url
debuginfod-cache = $tmp/small
debuginfod-cache-size = 4KiB"
size=$(stat -c %s "$tmp/cache/$bid/debuginfo")
"$JANKCTL" analyze --config "$tmp/small.conf" --format json "$tmp/remote/trace" >"$tmp/small.json" 2>"$tmp/err"
check "a debug file ($size bytes) larger than debuginfod-cache-size (4 KiB): not kept, the offsets" \
	[ "$(functions "$tmp/small.json")" = "3 shop+0x$off_disc" ] && [ -z "$(find "$tmp/small" -type f -size +0)" ]

# ---- A stripped binary here, its debug file on the server (from the cache now) ----
stop_server
"$JANKCTL" analyze --config "$tmp/none.conf" --format json "$tmp/strip/trace" >"$tmp/strip0.json" 2>"$tmp/err"
check "stripped binary, no server: not named (its .dynsym has no apply_discounts)" \
	[ "$(functions "$tmp/strip0.json")" = "3 shop+0x$off_disc" ]
"$JANKCTL" analyze --config "$tmp/fetch.conf" --format json "$tmp/strip/trace" >"$tmp/strip.json" 2>"$tmp/err"
check "stripped binary: named from the cache, the server gone" \
	[ "$(functions "$tmp/strip.json")" = "3 apply_discounts" ]

# ---- A server that is gone, and no cache: the offsets, in time ----
conf "$tmp/gone.conf" "debuginfod-urls = $url
debuginfod-cache = $tmp/cache2
debuginfod-timeout = 2s"
start=$(date +%s)
"$JANKCTL" analyze --config "$tmp/gone.conf" --format json "$tmp/remote/trace" >"$tmp/gone.json" 2>"$tmp/err"
st=$?
diag "a server gone: jankctl took $(($(date +%s) - start)) s"
check "server gone: exit 0, the frames are shop+offset" \
	[ $st = 0 ] && [ "$(functions "$tmp/gone.json")" = "3 shop+0x$off_disc" ]

# ---- The configuration's checks ----
printf '[symbols]\ndebuginfod-urls = ftp://x\n' >"$tmp/bad.conf"
expect_error "a URL that is not http(s) is refused" 1 "bad debuginfod-urls 'ftp://x' \(expected http:// or https:// URLs" -- \
	"$JANKCTL" analyze --config "$tmp/bad.conf" "$tmp/remote/trace"
printf '[symbols]\ndebuginfod-cache = cache\n' >"$tmp/bad.conf"
expect_error "a relative cache directory is refused" 1 "bad debuginfod-cache 'cache' \(expected an absolute path\)" -- \
	"$JANKCTL" analyze --config "$tmp/bad.conf" "$tmp/remote/trace"

plan "$_tap_n"
