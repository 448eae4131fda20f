# SPDX-License-Identifier: MIT
# tests/live/test-jankd-debuginfod.sh: [symbols] debuginfod-urls, live: a
# stripped binary named through a debuginfod server.
#
# fn-demo (see test-jankd-functions.sh) runs stripped: its file has no
# .symtab, and its .dynsym none of its functions, so a worker alone names
# its frames fn-demo+0xOFFSET. A real debuginfod (Debian's package),
# started here on a free port and asked on loopback, serves a directory
# holding fn-demo as built, with its symbols. Without [symbols], jankd
# fetches nothing (the server is asked nothing) and names nothing. With it,
# the worker asks the supervisor, goes on (an alert that cannot wait says
# fn-demo+0xOFFSET), and the supervisor's fetcher downloads into the cache,
# which the worker reads: the run's last alert names its function, and a
# second run of the same binary names every one. With captures and a new
# cache, the capture reports (made on the capturer's thread, which waits
# for the download) name the function and give the cached file in
# binaries.json, whatever the first alerts said. The workers stay
# jank-worker without capabilities; the recorded trace, analysed with
# jankctl and the same configuration, names the functions too. The
# download runs in a process of jankd's own, as jank-worker without
# capabilities, which owns the cache.
# Names that come late: behind a proxy that holds each connection 4 s, the
# run's alerts all say fn-demo+0xOFFSET (they do not wait); once the file
# is downloaded, the worker tells the supervisor the names of those
# frames, and `jankctl status`'s recent janks and the web page say the
# functions where they said fn-demo+0xOFFSET.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"
live_require_pthread_wrapper
live_setup_jankd --journald
DEBUGINFOD=${DEBUGINFOD:-debuginfod}
command -v "$DEBUGINFOD" >/dev/null 2>&1 || plan_skip_all "no debuginfod (Debian package debuginfod)"
command -v strip >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 || plan_skip_all "no strip or curl"

FN_DEMO=$top_builddir/tests/live/fn-demo
[ -x "$FN_DEMO" ] || plan_skip_all "$FN_DEMO is not built (make -C tests check)"
# The program itself, not libtool's wrapper script (its libraries by LD_LIBRARY_PATH).
[ -x "$top_builddir/tests/live/.libs/fn-demo" ] && FN_DEMO=$top_builddir/tests/live/.libs/fn-demo
head -c 4 "$FN_DEMO" | grep -q ELF || plan_skip_all "$FN_DEMO is not an ELF program"
cyg=$(live_cyg_profile) || plan_skip_all "liblttng-ust-cyg-profile.so.1 not found (liblttng-ust1)"
LIBS=$(cd "$top_builddir/probes/.libs" 2>/dev/null && pwd || true)

SRV=$LIVE_TMP/srv
PUBLIC=$LIVE_TMP/public
mkdir -m 0755 "$SRV" "$PUBLIC"
chmod 0711 "$LIVE_TMP"
cp "$FN_DEMO" "$SRV/fn-demo"
strip -o "$PUBLIC/fn-demo" "$FN_DEMO" && chmod 0755 "$PUBLIC/fn-demo" ||
	live_bail "cannot strip $FN_DEMO"
bid=$(readelf -n "$SRV/fn-demo" | awk '/Build ID:/ { print $3 }')
[ -n "$bid" ] || plan_skip_all "$FN_DEMO has no build-id"

# The server, on a free port; stopped by its pid at the end (live_track).
for try in 1 2 3 4 5; do
	port=$(live_random_port)
	live_port_listening "$port" || break
done
"$DEBUGINFOD" -F -p "$port" -d "$LIVE_TMP/db.sqlite" -t 0 -g 0 "$SRV" >"$LIVE_TMP/server.log" 2>&1 9>&- &
server_pid=$!
live_track "$server_pid"
url=http://127.0.0.1:$port
served() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/buildid/$bid/executable")" = 200 ]; }
live_wait 30 served || live_bail "debuginfod did not serve fn-demo on $url" "$LIVE_TMP/server.log"
# The server's count of debuginfo requests (the test's own are for the executable).
asked() { curl -s "$url/metrics" | awk '/^http_requests_total\{type="debuginfo"\}/ { n = $2 } END { print n + 0 }'; }

plan 26

session=jankd-debuginfod-$$
# run OUT: fn-demo, stripped, from PUBLIC: 400 actions of 1 ms, 2 ms apart, every 100th slow
# by 40 ms (4 slow ones, about 0.3 s apart).
SLOW_IDS='(99|199|299|399)'
run() {
	env LD_PRELOAD="$cyg:$LIVE_PTHREAD_WRAPPER" LD_LIBRARY_PATH="$LIBS" \
		"$PUBLIC/fn-demo" 400 100 1000 40000 >"$1" 2>&1 9>&- &
	pid=$!
	wait "$pid"
	live_wait 15 alerts_for "$pid" || true
	sleep 0.3
	# The 4 slow ones (a loaded machine may make a normal one slow too).
	live_jank_entries frame JANK_KIND=completed JANK_PID="$pid" |
		"$JQ" -c "select(.JANK_KEY | test(\"id=$SLOW_IDS\$\"))" >"$LIVE_TMP/alerts-$pid.json"
	"$JQ" -r '"#   " + .JANK_KEY + " " + .JANK_FUNCTION' "$LIVE_TMP/alerts-$pid.json"
}
alerts_for() {
	[ "$(live_jank_count frame JANK_KIND=completed JANK_PID="$1")" -ge 4 ] &&
		live_jank_entries frame JANK_KIND=completed JANK_PID="$1" | grep -q 'id=399"'
}
# functions PID: each alert's JANK_FUNCTION, "name" or "offset", in order.
functions() {
	"$JQ" -r 'if .JANK_FUNCTION | test("^[a-z_]+$") then "name" else
		if .JANK_FUNCTION | test("^fn-demo\\+0x[0-9a-f]+$") then "offset" else .JANK_FUNCTION end end' \
		"$LIVE_TMP/alerts-$1.json" | tr '\n' ' '
}
# The workers: uid jank-worker, no capability.
workers_unprivileged() {
	local w uid ok=0

	for w in $(cat /proc/"$LIVE_JANKD_PID"/task/*/children 2>/dev/null); do
		uid=$(awk '/^Uid:/ { print $2 }' "/proc/$w/status")
		[ "$uid" = "$(id -u jank-worker)" ] || return 1
		grep -q '^CapEff:[[:space:]]*0*$' "/proc/$w/status" || return 1
		ok=1
	done
	[ "$ok" = 1 ]
}
start_jankd() { # [--capture DIR] NAME [SYMBOLS-LINES]
	local capture=

	[ "$1" = --capture ] && capture="--capture snapshot $2" && shift 2
	# shellcheck disable=SC2086
	live_jankd_conf --journal $capture "" frame 20ms <<CONF
[live]
create = yes
session = $session-$1
relayd = net://127.0.0.1:$LIVE_RELAYD_CTRL_PORT:$LIVE_RELAYD_DATA_PORT
relayd-live-port = $LIVE_RELAYD_LIVE_PORT
timer = 100ms
[graph]
functions = yes
[alerts]
rate-limit = 100/10s
${2:+[symbols]
$2}
CONF
	live_run_jankd
}

# ---- No server configured ----
before=$(asked)
start_jankd off
run "$LIVE_TMP/off.out"
check "no [symbols]: 4 alerts, each fn-demo+0xOFFSET" [ "$(functions "$pid")" = "offset offset offset offset " ]
check "no [symbols]: the server was asked nothing, no cache was made" \
	[ "$(asked)" = "$before" ] && [ ! -e "$LIVE_TMP/cache" ]
check "SIGTERM: exit 0" live_stop_jankd

# ---- The server listed ----
start_jankd on "debuginfod-urls = $url
debuginfod-cache = $LIVE_TMP/cache"
check "the workers run as jank-worker without capabilities" workers_unprivileged
# The download runs in a process of its own, jankd's child: jank-worker,
# no capability, no_new_privs; the cache is its.
fetcher=$(live_jankd_status '.debuginfod.pid')
fetcher_unprivileged() {
	[ -n "$fetcher" ] && [ "$fetcher" != "$LIVE_JANKD_PID" ] &&
		[ "$(cat "/proc/$fetcher/comm")" = jankd-fetcher ] &&
		[ "$(awk '/^PPid:/ { print $2 }' "/proc/$fetcher/status")" = "$LIVE_JANKD_PID" ] &&
		[ "$(awk '/^Uid:/ { print $2 $3 $4 $5 }' "/proc/$fetcher/status")" = \
			"$(id -u jank-worker)$(id -u jank-worker)$(id -u jank-worker)$(id -u jank-worker)" ] &&
		grep -q '^CapEff:[[:space:]]*0*$' "/proc/$fetcher/status" &&
		grep -q '^CapPrm:[[:space:]]*0*$' "/proc/$fetcher/status" &&
		grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$fetcher/status" &&
		[ "$(stat -c %U "$LIVE_TMP/cache")" = jank-worker ]
}
check "the fetcher process (pid $fetcher) runs as jank-worker without capabilities, and owns the cache" \
	fetcher_unprivileged
run "$LIVE_TMP/on1.out"
got=$(functions "$pid")
check "first run: 4 alerts, named once fetched, the last named ($got)" sh -c '
	echo "$1" | grep -Eq "^((offset|name) ){3}name $"' - "$got"
after1=$(asked)
check "the supervisor asked the server (fn-demo, and the libraries no local file names: $((after1 - before)))" \
	[ "$after1" -gt "$before" ]
check "the debug file is in the cache, readable by the workers (0644), the build's" sh -c '
	[ "$(stat -c %a "$1/$2/debuginfo")" = 644 ] && [ "$(stat -c %a "$1/$2")" = 755 ] &&
	readelf -n "$1/$2/debuginfo" | grep -q "Build ID: $2"' - "$LIVE_TMP/cache" "$bid"
run "$LIVE_TMP/on2.out"
check "second run of the same binary: all 4 alerts named" [ "$(functions "$pid")" = "name name name name " ]
check "second run: the server was asked nothing more (each build-id once)" [ "$(asked)" = "$after1" ]
# Which function is test-jankd-functions.sh's to check; here, that the
# names are fn-demo's own: apply_discounts twice, and the lock's side
# (refresh_rates, the holder, or fetch_rates, the waiter, when a loaded
# machine delays the waiter past the holder's release).
fns=$("$JQ" -r .JANK_FUNCTION "$LIVE_TMP/alerts-$pid.json" | sort | uniq -c |
	awk '{ print $1 $2 }' | tr '\n' ' ')
check "which functions: apply_discounts 2, refresh_rates or fetch_rates the others ($fns)" \
	sh -c 'echo "$1" | grep -qxE "2apply_discounts ([12]fetch_rates )?([12]refresh_rates )?" &&
	[ "$(echo "$1" | tr " " "\n" | awk "{ n += \$1 } END { print n }")" = 4 ]' - "$fns"
check "jankd's log says what it fetched" live_jankd_logged "debuginfod: build-id $bid: $LIVE_TMP/cache/$bid/debuginfo"
got=$(live_jankd_status '.debuginfod | "\(.requests) \(.fetched) \(.failed) \(.dropped)"')
check "jankctl status: the build-ids asked, one fetched, the others failed, none dropped ($got)" sh -c '
	set -- $1 && [ "$2" = 1 ] && [ "$4" = 0 ] && [ "$1" -ge 1 ] && [ $(($2 + $3)) -le "$1" ]' - "$got"
check "SIGTERM: exit 0" live_stop_jankd

# ---- Names that come late: a slow server ----
# A proxy on loopback that holds each connection DELAY seconds, then
# relays it to the server; stopped by its pid.
cat >"$LIVE_TMP/slow-proxy.py" <<'PY'
import socket, sys, threading, time
port, target, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
def serve(c):
    time.sleep(delay)
    u = socket.create_connection(("127.0.0.1", target))
    threading.Thread(target=pipe, args=(c, u), daemon=True).start()
    pipe(u, c)
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", port))
l.listen(16)
while True:
    c, _ = l.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
for try in 1 2 3 4 5; do
	slow_port=$(live_random_port)
	live_port_listening "$slow_port" || break
done
python3 "$LIVE_TMP/slow-proxy.py" "$slow_port" "$port" 4 >"$LIVE_TMP/proxy.log" 2>&1 9>&- &
proxy_pid=$!
live_track "$proxy_pid"
live_wait 10 live_port_listening "$slow_port" || live_bail "the proxy did not listen" "$LIVE_TMP/proxy.log"
for try in 1 2 3 4 5; do
	web_port=$(live_random_port)
	live_port_listening "$web_port" || break
done
start_jankd late "debuginfod-urls = http://127.0.0.1:$slow_port
debuginfod-cache = $LIVE_TMP/cache-late
debuginfod-timeout = 30s
[web]
listen = 127.0.0.1:$web_port"
run "$LIVE_TMP/late.out"
late_pid=$pid
check "slow server: the 4 alerts did not wait, each fn-demo+0xOFFSET" \
	[ "$(functions "$late_pid")" = "offset offset offset offset " ]
# The recent janks of that run, as jankctl status says them: "offset" while
# one's story still says fn-demo+0xOFFSET, else "name" once it names one
# of the slow functions.
recent_said() {
	live_jankd_status "[.recent[] | select(.pid == $late_pid and (.key | test(\"id=$SLOW_IDS\$\")))
		| if .critical_path | test(\"fn-demo\\\\+0x\") then \"offset\"
		  elif .critical_path | test(\"apply_discounts|refresh_rates\") then \"name\"
		  else \"other\" end] | join(\" \")"
}
recent_named() { [ "$(recent_said)" = "name name name name" ]; }
diag "recent janks before the download: $(recent_said)"
live_wait 40 recent_named || diag "recent janks after 40 s: $(recent_said)"
check "jankctl status: the 4 recent janks name their functions now ($(recent_said))" recent_named
check "jankd's log says the names came" live_jankd_logged "fn-demo+0x[0-9a-f]* is [a-z_]* ([0-9]* recent janks say it now)"
curl -s "http://127.0.0.1:$web_port/" >"$LIVE_TMP/late.html"
check "the web page of recent janks names them, and no longer says fn-demo+0xOFFSET" sh -c '
	grep -Eq "apply_discounts|refresh_rates" "$1" && ! grep -q "fn-demo+0x" "$1"' - "$LIVE_TMP/late.html"
check "the server was asked through the proxy: the file is in the new cache" \
	[ -s "$LIVE_TMP/cache-late/$bid/debuginfo" ]
check "SIGTERM: exit 0" live_stop_jankd
live_stop_pid "$proxy_pid"

# ---- A capture: its report downloads, and waits ----
# A new cache: the worker's first alert cannot wait for the file; the
# capture's report, made on the capturer's analyst thread, does.
# The cache is an older jankd's, root's: given over whole to the fetcher's
# user, but a link in it is not followed (the file it names stays root's).
caps=$LIVE_TMP/captures
mkdir -p "$LIVE_TMP/cache3/old"
echo x >"$LIVE_TMP/cache3/old/file"
echo x >"$LIVE_TMP/root-file"
ln -s "$LIVE_TMP/root-file" "$LIVE_TMP/cache3/old/link"
start_jankd --capture "$caps" capture "debuginfod-urls = $url
debuginfod-cache = $LIVE_TMP/cache3"
check "an older, root-owned cache becomes jank-worker's, its link not followed" sh -c '
	[ "$(stat -c %U "$1/cache3" "$1/cache3/old" "$1/cache3/old/file" | sort -u)" = jank-worker ] &&
	[ "$(stat -c %U "$1/root-file")" = root ]' - "$LIVE_TMP"
run "$LIVE_TMP/cap.out"
reports() { ls "$caps"/*/report.json 2>/dev/null | wc -l; }
live_wait 30 live_jank_at_least 1 frame MESSAGE_ID=$LIVE_REPORT_ID || diag "no report after 30 s"
sleep 1
n=$(reports)
diag "first alert: $(head -n 1 "$LIVE_TMP/alerts-$pid.json" | "$JQ" -r .JANK_FUNCTION); $n capture reports"
check "capture reports ($n): each names its function (not fn-demo+0xOFFSET)" sh -c '
	[ "$2" -ge 1 ] && for r in "$1"/*/report.json; do
		"$3" -e ".breakdown.functions[0].name | test(\"^[a-z_]+\$\")" "$r" >/dev/null || exit 1
	done' - "$caps" "$n" "$JQ"
check "binaries.json: fn-demo, its symbols from the cache" sh -c '
	for b in "$1"/*/binaries.json; do
		"$2" -e --arg f "$3/$4/debuginfo" "[.binaries[] | select(.build_id == \"$4\")] |
			length == 1 and .[0].symbol_file == \$f" "$b" >/dev/null || exit 1
	done' - "$caps" "$JQ" "$LIVE_TMP/cache3" "$bid"
check "SIGTERM: exit 0" live_stop_jankd
live_stop_pid "$server_pid"

# The recorded trace, offline, the server gone: from the cache.
"$LIVE_JANKCTL" analyze --config "$LIVE_JANKD_CONF" --format json "$LIVE_RELAYD_OUTPUT" \
	>"$LIVE_TMP/analyze.out" 2>"$LIVE_TMP/analyze.err"
got=$("$JQ" -r 'select(.type == "action" and (.key | test("id='"$SLOW_IDS"'$"))) |
	[.critical_path[] | select(.end - .begin > 30000000) |
	.stack | join(">")] | join(" ")' "$LIVE_TMP/analyze.out" | sort -u | tr '\n' ' ')
check "jankctl analyze of the recorded trace: the stacks of the slow parts ($got)" [ "$got" = \
	"holder_main>refresh_rates main>run_task>compute_price>apply_discounts " ]
check "jankctl: nothing on stderr" [ ! -s "$LIVE_TMP/analyze.err" ]
live_jankd_diag "$LIVE_TMP"/*.out "$LIVE_TMP/server.log" "$LIVE_TMP/analyze.err"
