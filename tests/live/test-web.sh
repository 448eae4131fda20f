# SPDX-License-Identifier: MIT
# tests/live/test-web.sh: jankd's web pages ([web] listen), in a real browser.
#
# In namespaces of its own (live_isolate): journald, sessiond, relayd, and
# jankd watching a live session, with captures, [web] listen on loopback.
# jank-demo makes slow actions whose traced name holds markup and quotes
# (<script>x</script>"q'&): the name is part of the key jankd shows.
# Debian's chromium, headless, loads the pages (--dump-dom, --screenshot):
#   - /: a row per jank with links to /jank/ID, the filter form, the
#     composition pictures; the hostile name is text, never an element;
#   - /composition.svg?action=: valid SVG (xmllint), the rule's slow
#     critical-path time per interval, a bar of non-zero height once slow
#     actions were sampled, a legend of states; &by=on names the thread the
#     slow actions waited on (jank-demo/jank-worker: the second demo run has
#     the pthread wrapper, whose events name the threads);
#   - ?action= filters the rows; /jank/ID: the path in words, the suspects,
#     the state picture, the capture's files as /capture/NAME/FILE links;
#   - every answer has the strict Content-Security-Policy and nosniff; the
#     capture files have their types; a path outside [capture] dir, a
#     symbolic link, or a file not in the list is 404;
#   - a slowloris and floods of 100 connections on the web port do not delay
#     alerts (bound: ALERT_BOUND_MS), and the pages answer after.
# The screenshot is kept as $LIVE_TMP/web.png (WEB_SCREENSHOT=FILE copies it, and
# adds FILE-jank.png, one jank's page, and FILE-bars.png, the page once the
# composition pictures have bars: doc/web-page.png).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/live/lib.sh"

live_isolate "$@"

CHROMIUM=${CHROMIUM:-chromium}
ALERT_BOUND_MS=${ALERT_BOUND_MS:-1000}
HTTP_ABUSE=${HTTP_ABUSE:-$top_builddir/tests/live/http-abuse}
command -v "$CHROMIUM" >/dev/null 2>&1 ||
	plan_skip_all "$CHROMIUM not found (install the Debian package chromium)"
command -v curl >/dev/null 2>&1 || plan_skip_all "curl not found"
command -v xmllint >/dev/null 2>&1 || plan_skip_all "xmllint not found (install libxml2-utils)"
live_require_pthread_wrapper
[ -x "$HTTP_ABUSE" ] || plan_skip_all "$HTTP_ABUSE is not built (make -C tests check)"
live_setup_jankd --journald

plan 28

session=web-$$
action=web$$
caps=$LIVE_TMP/captures
hostile='<script>x</script>"q'"'"'&'
port=
for _ in $(seq 20); do
	p=$(live_random_port)
	live_port_listening "$p" || {
		port=$p
		break
	}
done
[ -n "$port" ] || live_bail "no free port"
base=http://127.0.0.1:$port
live_create_session "$session"
live_lttng enable-event --userspace --session="$session" 'lttng_ust_pthread:*' ||
	live_bail "cannot record the pthread wrapper's events"
live_jankd_conf --journal --capture snapshot "$caps" "$(live_url "$session")" "$action" 30ms <<CONF
[alerts]
rate-limit = 1000/1s
[capture]
session = web-snap-$$
[web]
listen = 127.0.0.1:$port
CONF
live_run_jankd

# browser ARGS... URL: headless chromium, nothing from the network but the URL.
browser() {
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --disable-dev-shm-usage \
		--user-data-dir="$(mktemp -d "$LIVE_TMP/chromium.XXXXXX")" "$@" 2>>"$LIVE_TMP/chromium.err" 9>&-
}
# alerts NAME: the alerts of the demo run NAME (not the captures' follow-ups), as JSON lines.
alerts() {
	live_journalctl -o json JANK_ACTION="$action" MESSAGE_ID=$LIVE_JANK_ID |
		"$JQ" -c --arg n "name=$1," 'select(.JANK_KEY | startswith($n))'
}
have_5() { [ "$(alerts "$1" | wc -l)" -ge 5 ]; }
# demo NAME: 20 actions, every 4th slow (60 ms against 30): 5 janks.
demo() {
	live_demo "$LIVE_TMP/demo-$2.out" --name "$1" --cause sleep --count 20 --slow-every 4 \
		--normal 1ms --slow 60ms --interval 5ms
}

demo "$hostile" hostile
live_wait 30 have_5 "$hostile" ||
	diag "not 5 alerts after 30 s: $(live_journalctl -o json JANK_ACTION="$action" | "$JQ" -r .JANK_KEY | tr '\n' ' ')"
# The first jank's capture, and its report.
live_wait 30 sh -c 'ls "$1"/*/report.txt' - "$caps" >/dev/null 2>&1 || diag "no report after 30 s"

# ---- The page, in chromium ----

browser --dump-dom "$base/" >"$LIVE_TMP/index.html"
rows=$(grep -o '<tr class="jank' "$LIVE_TMP/index.html" | wc -l)
check "chromium shows a row per jank (5: $rows)" [ "$rows" = 5 ]
links=$(grep -Eo 'href="/jank/[0-9]+"' "$LIVE_TMP/index.html" | sort -u | wc -l)
check "each row links to its jank (/jank/ID: $links)" [ "$links" = 5 ]
# The DOM as chromium parsed it: the one <script> would be the name's.
check "the traced name made no element: no <script> in the DOM" \
	sh -c '! grep -qi "<script" "$1"' - "$LIVE_TMP/index.html"
check "... it shows as text (&lt;script&gt;x&lt;/script&gt;\"q'&amp;)" \
	grep -qF "name=&lt;script&gt;x&lt;/script&gt;\"q'&amp;,id=" "$LIVE_TMP/index.html"
check "the filter form, and the composition pictures of the rule (by state, by thread)" \
	sh -c 'grep -q "<form method=\"get\" action=\"/\">" "$1" &&
		grep -q "<img class=\"composition\" src=\"/composition.svg?action=$2\"" "$1" &&
		grep -q "<img class=\"composition-on\" src=\"/composition.svg?action=$2&amp;by=on\"" "$1"' \
	- "$LIVE_TMP/index.html" "$action"

browser --screenshot="$LIVE_TMP/web.png" --window-size=1200,800 "$base/" >/dev/null
png_ok() { [ "$(head -c 8 "$LIVE_TMP/web.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
check "chromium took a screenshot of the page ($(wc -c <"$LIVE_TMP/web.png" 2>/dev/null) bytes)" png_ok
[ -z "${WEB_SCREENSHOT:-}" ] || cp "$LIVE_TMP/web.png" "$WEB_SCREENSHOT"
[ -z "${WEB_SCREENSHOT:-}" ] ||
	browser --screenshot="${WEB_SCREENSHOT%.png}-jank.png" --window-size=1200,900 \
		"$base/jank/$(grep -Eo 'href="/jank/[0-9]+"' "$LIVE_TMP/index.html" | tail -n 1 |
			grep -Eo '[0-9]+')" >/dev/null

# ---- Headers, filters ----

curl -s -D "$LIVE_TMP/h.index" -o /dev/null "$base/"
check "the page has the strict Content-Security-Policy" \
	grep -qi "^Content-Security-Policy: default-src 'none'; style-src 'self'; img-src 'self'" \
	"$LIVE_TMP/h.index"
check "... and X-Content-Type-Options: nosniff" grep -qi '^X-Content-Type-Options: nosniff' "$LIVE_TMP/h.index"
check "/style.css is text/css" sh -c 'curl -s -D - -o /dev/null "$1/style.css" |
	grep -qi "^Content-Type: text/css"' - "$base"

# The thread names come from the pthread wrapper's events.
LD_PRELOAD=$LIVE_PTHREAD_WRAPPER demo plain plain
live_wait 30 have_5 plain || diag "not 5 plain alerts after 30 s"
all=$(curl -s "$base/" | grep -c '<tr class="jank')
none=$(curl -s "$base/?action=nothing" | grep -c '<tr class="jank')
mine=$(curl -s "$base/?action=$action&host=" | grep -c '<tr class="jank')
check "?action= filters the rows ($all all, $mine of $action, $none of nothing)" \
	[ "$all" = 10 -a "$mine" = 10 -a "$none" = 0 ]
nohost=$(curl -s "$base/?host=elsewhere" | grep -c '<tr class="jank')
check "?host= filters the rows (elsewhere: $nohost)" [ "$nohost" = 0 ]
# comp BY: the rule's composition picture by BY into $LIVE_TMP/comp-BY.svg; true when
# it is valid SVG with a bar of non-zero height (jankd samples every 10 s).
comp() {
	curl -s -D "$LIVE_TMP/h.comp-$1" "$base/composition.svg?action=$action&by=$1" \
		>"$LIVE_TMP/comp-$1.svg" &&
		xmllint --noout "$LIVE_TMP/comp-$1.svg" 2>/dev/null &&
		grep -Eq '<rect class="bar" [^>]*height="(0\.0*[1-9]|[1-9])' "$LIVE_TMP/comp-$1.svg"
}
# legend BY: the texts of the picture's legend, one a line.
legend() {
	sed -n '/<g id="legend">/,/<\/g>/s/.*<text[^>]*>\([^<]*\)<\/text>.*/\1/p' \
		"$LIVE_TMP/comp-$1.svg" 2>/dev/null
}
# The plain run's time: its thread's name in the picture by=on.
on_named() { comp on && legend on | grep -qx 'jank-demo/jank-worker'; }
live_wait 40 comp state || diag "no bar of non-zero height after 40 s"
check "/composition.svg?action= is image/svg+xml, valid SVG with a bar of non-zero height" \
	sh -c 'grep -qi "^Content-Type: image/svg+xml" "$1" && xmllint --noout "$2" &&
		grep -Eq "<rect class=\"bar\" [^>]*height=\"(0\.0*[1-9]|[1-9])" "$2"' \
	- "$LIVE_TMP/h.comp-state" "$LIVE_TMP/comp-state.svg"
check "... a time axis (-15 min ... now) and a legend of states ($(legend state | tr '\n' ' '))" \
	sh -c 'grep -q ">-15 min</text>" "$1" && grep -q ">now</text>" "$1" &&
		[ -n "$2" ] && ! printf "%s\n" "$2" | grep -Evqx "$3"' \
	- "$LIVE_TMP/comp-state.svg" "$(legend state)" \
	'unknown|running|preempted|blocked|timer|network|block_device|interrupted|ipi|user_input|lock_wait'
live_wait 40 on_named || diag "by=on: $(legend on | tr '\n' ' ')"
check "&by=on: valid SVG, its legend names the thread waited on ($(legend on | tr '\n' ' '))" on_named
# With the bars drawn: the page as the README shows it (doc/web-page.png).
[ -z "${WEB_SCREENSHOT:-}" ] ||
	browser --screenshot="${WEB_SCREENSHOT%.png}-bars.png" --window-size=1200,1400 \
		"$base/" >/dev/null
check "a rule not configured is 404, by=other 400" \
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/composition.svg?action=nothing")" = 404 -a \
	"$(curl -s -o /dev/null -w '%{http_code}' "$base/composition.svg?action=$action&by=x")" = 400 ]

# ---- One jank ----

id=$(grep -Eo 'href="/jank/[0-9]+"' "$LIVE_TMP/index.html" | tail -n 1 | grep -Eo '[0-9]+')
browser --dump-dom "$base/jank/$id" >"$LIVE_TMP/jank.html"
check "/jank/$id: the path in words, the suspects, the state picture" \
	sh -c 'grep -q "<p id=\"path\">tid [0-9]" "$1" && grep -q "id=\"suspects\"" "$1" &&
		grep -q "<img id=\"states\" src=\"/jank/$2/states.svg\"" "$1"' - "$LIVE_TMP/jank.html" "$id"
check "... the key as text, no <script>" sh -c '! grep -qi "<script" "$1" &&
	grep -qF "name=&lt;script&gt;" "$1"' - "$LIVE_TMP/jank.html"
cap=$(sed -n 's|.*href="/capture/\([^/"]*\)/report.txt".*|\1|p' "$LIVE_TMP/jank.html" | head -n 1)
check "... links to its capture's files (/capture/${cap:-?}/...), shows its critical-path.svg" \
	sh -c '[ -n "$1" ] && [ -d "$2/$1" ] && grep -q "<img id=\"critical-path\" src=\"/capture/$1/critical-path.svg\"" "$3"' \
	- "$cap" "$caps" "$LIVE_TMP/jank.html"
ctype() { curl -s -D - -o "$LIVE_TMP/file" "$base/capture/$cap/$1" | tr -d '\r' |
	sed -n 's/^[Cc]ontent-[Tt]ype: //p'; }
live_wait 30 [ -f "$caps/$cap/report.txt" ] || true
check "report.txt is text/plain, the report itself" sh -c '[ "$1" = "text/plain; charset=utf-8" ] &&
	cmp -s "$2" "$3"' - "$(ctype report.txt)" "$LIVE_TMP/file" "$caps/$cap/report.txt"
check "report.json is application/json, critical-path.svg image/svg+xml" \
	[ "$(ctype report.json)" = application/json -a "$(ctype critical-path.svg)" = image/svg+xml ]
code() { curl -s -o /dev/null -w '%{http_code}' --path-as-is "$base$1"; }
# A link in the place of a served file (the capture wrote a real flame.svg).
rm -f "$caps/$cap/flame.svg"
ln -s "$caps/$cap/report.txt" "$caps/$cap/flame.svg"
mkdir -p "$LIVE_TMP/outside"
echo secret >"$LIVE_TMP/outside/report.txt"
ln -s "$LIVE_TMP/outside" "$caps/linked"
check "a symbolic link, a file not served, .., a directory linked out: 404" sh -c '
	for p in "/capture/$1/flame.svg" "/capture/$1/metadata" "/capture/../report.txt" \
		"/capture/%2E%2E/$1/report.txt" "/capture/linked/report.txt" "/jank/0" "/jank/99999"; do
		c=$(curl -s -o /dev/null -w "%{http_code}" --path-as-is "$2$p")
		[ "$c" = 404 ] || { echo "# $p: $c"; exit 1; }
	done' - "$cap" "$base"

# ---- Bad clients do not delay alerts ----

# latency NAME: "MAX COUNT" of its alerts' latencies in ms (action's end to journald).
latency() {
	alerts "$1" | "$JQ" -s -r '[.[] | ((.__REALTIME_TIMESTAMP | tonumber) * 1000 -
		(.JANK_END_NS | tonumber)) / 1e6] | sort | "\(.[-1] // -1 | floor) \(length)"'
}
phase() {
	demo "$1" "$1"
	live_wait 10 have_5 "$1" || true
	read -r max_ms nalerts <<EOF
$(latency "$1")
EOF
	diag "alert latency, $2: max $max_ms ms, $nalerts alerts"
}
on_time() { [ "$nalerts" = 5 ] && [ "$max_ms" -ge 0 ] && [ "$max_ms" -lt "$ALERT_BOUND_MS" ]; }

"$HTTP_ABUSE" slowloris "$port" 40 8 >"$LIVE_TMP/loris.out" 2>&1 9>&- &
abuse=$!
live_track "$abuse"
sleep 1
phase loris "a slowloris on the web port (40 connections, a byte a second)"
check "during a slowloris: 5 alerts, the slowest after ${max_ms} ms (< $ALERT_BOUND_MS)" on_time
answered=$(curl -s -m 3 -o /dev/null -w '%{http_code}' "$base/")
wait "$abuse"
live_forget "$abuse"
diag "slowloris: $(cat "$LIVE_TMP/loris.out")"
check "during the slowloris, the page is still served ($answered)" [ "$answered" = 200 ]

(
	end=$((SECONDS + 6))
	while [ "$SECONDS" -lt "$end" ]; do
		"$HTTP_ABUSE" flood "$port" 100 /
	done
) >"$LIVE_TMP/flood.out" 2>&1 9>&- &
abuse=$!
live_track "$abuse"
sleep 1
phase flood "floods of 100 parallel connections asking for /"
check "during floods of 100 connections: 5 alerts, the slowest after ${max_ms} ms (< $ALERT_BOUND_MS)" on_time
wait "$abuse"
live_forget "$abuse"
diag "floods: $(sort "$LIVE_TMP/flood.out" | uniq -c | head -n 5 | tr '\n' ';')"
check "each flood: pages answered, the rest closed, none left hanging" \
	awk '{ split($0, f, /[ =]/); if (f[4] < 1 || f[4] + f[6] != 100 || f[8] != 0) bad++ }
		END { exit !(NR > 0 && bad == 0) }' "$LIVE_TMP/flood.out"

check "the page answers after the abuse" [ "$(code /)" = 200 ]
check "jankd is still running" live_alive "$LIVE_JANKD_PID"
live_stop_jankd
rc=$?
stopped_clean() { [ "$rc" = 0 ] && ! live_port_listening "$port"; }
check "SIGTERM: jankd exits 0, the web port is closed (rc $rc)" stopped_clean
if [ "$_tap_failed" = 1 ]; then
	live_jankd_diag
	tail -n 20 "$LIVE_TMP/chromium.err" | sed 's/^/# chromium: /'
fi
