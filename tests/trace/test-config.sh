#!/bin/sh
# jankctl analyze and the config file: each malformed config fails with exit
# status 1 and one line on stderr that names the file and, when the error is
# on one line, the line. A good config passes the config stage (the run then
# stops at the empty trace directory, which proves the config was accepted).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

plan 46

mkdir "$tmp/empty"

# bad NAME STATUS PATTERN: write stdin to NAME.conf, expect the error.
bad() {
	cat >"$tmp/$1.conf"
	expect_error "$1" "$2" "^jankctl: $tmp/$1.conf$3" -- \
		"$JANKCTL" analyze --config "$tmp/$1.conf" "$tmp/empty"
}

bad unknown-key 1 ":3: unknown key 'foo' in section \[graph\]$" <<'X'
[graph]
retention = 2s
foo = 1
X
bad unknown-section 1 ":2: unknown section \[grpah\]" <<'X'
# a comment
[grpah]
retention = 2s
X
bad bad-duration 1 ":4: bad duration 'abc' for threshold$" <<'X'
[action frame]
begin = jank:action_begin
end = jank:action_end
threshold = abc
X
bad bad-adaptive 1 ":4: bad threshold 'p99\*x'" <<'X'
[action frame]
begin = jank:action_begin
end = jank:action_end
threshold = p99*x
X
bad negative-threshold 1 ":4: bad duration '-5ms' for threshold$" <<'X'
[action frame]
begin = a
end = b
threshold = -5ms
X
bad missing-end 1 ": \[action frame\]: missing 'end'$" <<'X'
[action frame]
begin = jank:action_begin
threshold = 16ms

[graph]
retention = 2s
X
bad missing-threshold-at-eof 1 ": \[action frame\]: missing 'threshold'$" <<'X'
[action frame]
begin = jank:action_begin
end = jank:action_end
X
bad bad-match 1 ":5: bad match 'name = \"frame\"'" <<'X'
[action frame]
begin = jank:action_begin
end = jank:action_end
threshold = 16ms
match = name = "frame"
X
bad bad-key 1 ":5: bad key 'name,,id'" <<'X'
[action frame]
begin = jank:action_begin
end = jank:action_end
threshold = 16ms
key = name,,id
X
bad duplicate-action 1 ":5: duplicate action name 'frame' \(first at line 1\)$" <<'X'
[action frame]
begin = a
end = b
threshold = 1ms
[action frame]
begin = a
end = b
threshold = 1ms
X
bad duplicate-key 1 ":3: duplicate key 'retention' in section \[graph\]$" <<'X'
[graph]
retention = 2s
retention = 3s
X
bad bad-size 1 ":2: bad size 'lots' for memory-limit$" <<'X'
[graph]
memory-limit = lots
X
bad syntax 1 ":2: syntax error" <<'X'
[graph]
retention
X
bad key-outside-section 1 ":1: key 'retention' outside of any section$" <<'X'
retention = 2s
X
bad bad-url 1 ":2: bad url 'http://relayd/s'" <<'X'
[live]
url = http://relayd/s
X
bad bad-rate-limit 1 ":3: bad rate-limit '10'" <<'X'
[alerts]
target = journal
rate-limit = 10
X
bad bad-capture-mode 1 ":2: bad value 'always' for mode" <<'X'
[capture]
mode = always
X
bad bad-capture-bool 1 ":5: bad value 'maybe' for capture \(expected yes or no\)$" <<'X'
[action frame]
begin = a
end = b
threshold = 1ms
capture = maybe
X
bad bad-session 1 ":2: bad session name 'my session'" <<'X'
[live]
session = my session
X
bad bad-relayd 1 ":3: bad relayd 'http://relayd'" <<'X'
[live]
create = yes
relayd = http://relayd
X
bad bad-live-port 1 ":2: bad port '0' for relayd-live-port \(expected 1 to 65535\)$" <<'X'
[live]
relayd-live-port = 0
X
bad bad-tracefile-count 1 ":2: bad number '0' for tracefile-count \(expected 1 or more\)$" <<'X'
[live]
tracefile-count = 0
X
bad bad-tracefile-size 1 ":2: bad size 'big' for tracefile-size$" <<'X'
[live]
tracefile-size = big
X
bad url-twice 1 ":2: url 'net://h/host/x/s' is listed twice$" <<'X'
[live]
url = net://h/host/x/s, net://h/host/x/s
X
bad url-list-bad-element 1 ":2: bad url 'nett://h/host/x/t'" <<'X'
[live]
url = net://h/host/x/s,nett://h/host/x/t
X
bad bad-overdue-grace 1 ":3: bad duration 'soon' for overdue-grace$" <<'X'
[graph]
retention = 2s
overdue-grace = soon
X
bad bad-status-interval 1 ":2: bad duration '0s' for status-interval$" <<'X'
[daemon]
status-interval = 0s
X
bad bad-ready-timeout 1 ":2: bad duration 'later' for ready-timeout$" <<'X'
[daemon]
ready-timeout = later
X
bad bad-control-socket 1 ":2: bad control-socket 'jankd.sock' \(expected an absolute path" <<'X'
[daemon]
control-socket = jankd.sock
X
bad unknown-daemon-key 1 ":2: unknown key 'user' in section \[daemon\]$" <<'X'
[daemon]
user = jank
X
bad bad-warmup 1 ":5: bad number 'lots' for warmup$" <<'X'
[action frame]
begin = a
end = b
threshold = p99*1.5
warmup = lots
X
# Found by fuzz-config: a refused begin or end was then compared as NULL.
bad begin-not-event 1 ":2: bad event name 'a b' for begin$" <<'X'
[action a]
begin = a b
end = x
threshold = 1ms
X
bad end-empty 1 ":3: empty value for 'end' in section \[action a\]$" <<'X'
[action a]
begin = x
end =
threshold = 1ms
X
# The top-K names of jank_critical_path_seconds_total: at most 32 per rule.
bad composition-top-too-big 1 ":6: \[metrics\] composition-top: 33 is more than 32 names per rule$" <<'X'
[action frame]
begin = a
end = b
threshold = 1ms
[metrics]
composition-top = 33
X
bad no-action 1 ": no \[action \.\.\.\] section$" <<'X'
[graph]
retention = 2s
X
bad empty 1 ": no \[action \.\.\.\] section$" </dev/null

expect_error "missing file" 1 "^jankctl: $tmp/nope.conf: No such file or directory$" -- \
	"$JANKCTL" analyze --config "$tmp/nope.conf" "$tmp/empty"
expect_error "missing --config" 2 "^jankctl: analyze: --config FILE is required" -- \
	"$JANKCTL" analyze "$tmp/empty"

# The full example of jankd.conf(5), with inline comments and indented keys.
cat >"$tmp/good.conf" <<'X'
[live]
url = net://localhost/host/HOST/SESSION, net://other:5345/host/H2/s2   # several at once
timer = 100ms                             ; live timer when creating
session = jankd-live                      # the session jankd creates (create = yes)
relayd = net://127.0.0.1:5342:5343
relayd-live-port = 5344
tracefile-size = 64MiB
tracefile-count = 4
[graph]
  retention = 2s
  memory-limit = 256MiB
  action-timeout = 60s
  overdue-grace = 0                       # no overdue reports
[daemon]
control-socket = /run/jankd/control
status-interval = 5s
ready-timeout = 10s
[alerts]
target = journal                          # journal | stderr | json
rate-limit = 10/10s
[capture]
mode = snapshot                           # snapshot | rotation | none
dir = /var/lib/jankd/captures
cooldown = 30s
max-per-hour = 20
quota = 2GiB
[action frame]
begin = jank:action_begin
end = jank:action_end
key = name, id
match = name == "frame"                   # optional
threshold = 16ms                          # or p99*1.5 (adaptive)
capture = yes
[action ros2-callback]
begin = ros2:callback_start
end = ros2:callback_end
key = vtid,callback
threshold = p99*1.5
warmup = 50
[action slow-read]
begin = syscall_entry_read
end = syscall_exit_read
key = tid
match = fd == 3
threshold = 50ms
capture = no
X
expect_error "good config: accepted, then the empty trace is the error" 1 \
	"^jankctl: $tmp/empty: no CTF trace found \(no metadata file\)$" -- \
	"$JANKCTL" analyze --config "$tmp/good.conf" "$tmp/empty"

printf '[action a]\nbegin=x\nend=y\nthreshold=1ms\n[metrics]\ncomposition-top = 32\n' \
	>"$tmp/top32.conf"
expect_error "[metrics] composition-top = 32 (the most) accepted" 1 "no CTF trace found" -- \
	"$JANKCTL" analyze --config "$tmp/top32.conf" "$tmp/empty"

printf '[action a]\nbegin=x\nend=y\nthreshold=1ms\n[live]\ncreate = yes\ntimer = 250ms\n' \
	>"$tmp/create.conf"
expect_error "[live] create = yes accepted" 1 "no CTF trace found" -- \
	"$JANKCTL" analyze --config "$tmp/create.conf" "$tmp/empty"

printf '[live]\nurl = net://h/host/x/s\ncreate = yes\n[action a]\nbegin=x\nend=y\nthreshold=1ms\n' \
	>"$tmp/both.conf"
expect_error "[live] url and create = yes exclude each other" 1 \
	"^jankctl: $tmp/both.conf:3: \[live\]: 'url' and 'create = yes' exclude each other$" -- \
	"$JANKCTL" analyze --config "$tmp/both.conf" "$tmp/empty"

# A syntax error before a semantic one: the first line wins.
printf '[graph\nfoo = 1\n' >"$tmp/first.conf"
expect_error "the first error is reported" 1 "^jankctl: $tmp/first.conf:1: syntax error" -- \
	"$JANKCTL" analyze --config "$tmp/first.conf" "$tmp/empty"

# The example drop-ins that jank ships are accepted as they are.
expect_error "examples/ros2-flows.conf accepted" 1 "no CTF trace found" -- \
	"$JANKCTL" analyze --config "$top_srcdir/examples/ros2-flows.conf" "$tmp/empty"
printf '[flow f]\nfrom = a:x\nto = a:y\nkey = id\nto-key = a,,b\n' >"$tmp/tokey-bad.conf"
expect_error "[flow] to-key with an empty field" 1 \
	"^jankctl: $tmp/tokey-bad.conf:5: bad to-key 'a,,b' \(expected up to 4 field names separated by commas\)$" -- \
	"$JANKCTL" analyze --config "$tmp/tokey-bad.conf" "$tmp/empty"
printf '[flow f]\nfrom = a:x\nto = a:y\nkey = vpid, id\nto-key = id\n' >"$tmp/tokey.conf"
expect_error "[flow] to-key with fewer fields than key" 1 \
	"^jankctl: $tmp/tokey.conf:1: \[flow f\]: to-key names 1 fields and key 2" -- \
	"$JANKCTL" analyze --config "$tmp/tokey.conf" "$tmp/empty"
