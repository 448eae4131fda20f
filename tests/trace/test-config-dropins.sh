#!/bin/sh
# Drop-ins: the *.conf files of conf.d/ beside the config are read after it,
# in the byte order of their names, by jankctl as by jankd. A drop-in adds
# [action] rules, changes keys of an earlier file's action, sets other
# sections' keys again; its errors name it and its line.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

[ -x "$JANK_GEN" ] || plan_skip_all "$JANK_GEN not built"
command -v "$JQ" >/dev/null 2>&1 || plan_skip_all "jq not found"

plan 14

# A frame of 40 us, a frame of 2 us, and an I/O request of 300 us.
cat >"$tmp/ust.txt" <<'X'
@trace ust
@cpus 1
@context vpid vtid procname:string
1000000 0 jank:action_begin vpid=7 vtid=7 procname="app" name="frame" id=1
1040000 0 jank:action_end vpid=7 vtid=7 procname="app" name="frame" id=1
1100000 0 jank:action_begin vpid=7 vtid=7 procname="app" name="frame" id=2
1102000 0 jank:action_end vpid=7 vtid=7 procname="app" name="frame" id=2
1200000 0 jank:action_begin vpid=7 vtid=7 procname="app" name="io" id=3
1500000 0 jank:action_end vpid=7 vtid=7 procname="app" name="io" id=3
X
"$JANK_GEN" "$tmp/ust.txt" "$tmp/trace" || exit 1

mkdir -p "$tmp/etc/conf.d"
cat >"$tmp/etc/jankd.conf" <<'X'
[action frame]
begin = jank:action_begin
end = jank:action_end
key = name, id
match = name == "frame"
threshold = 1s
X

# analyze: the "name:key" of each action over its threshold, one per line.
janks() {
	"$JANKCTL" analyze --config "$tmp/etc/jankd.conf" --format json "$tmp/trace" |
		"$JQ" -r 'select(.type == "action") | "\(.action):\(.key)"' | sort | tr '\n' ' '
}

check "no conf.d: the config alone, no frame over 1 s" test -z "$(janks)"

cat >"$tmp/etc/conf.d/20-tune.conf" <<'X'
# Only the threshold of the frames changes.
[action frame]
threshold = 10us
X
got=$(janks)
check "a drop-in changes one key of an earlier action, the others stay (got '$got')" \
	test "$got" = "frame:name=frame,id=1 "

cat >"$tmp/etc/conf.d/10-io.conf" <<'X'
[action io]
begin = jank:action_begin
end = jank:action_end
key = id
match = name == "io"
threshold = 100us
X
got=$(janks)
check "a drop-in adds an action (got '$got')" \
	test "$got" = "frame:name=frame,id=1 io:id=3 "

cat >"$tmp/etc/conf.d/30-relax.conf" <<'X'
[action frame]
threshold = 100ms
[graph]
retention = 3s
X
got=$(janks)
check "the last drop-in in name order wins (got '$got')" test "$got" = "io:id=3 "

# Not drop-ins: hidden files, other suffixes, editors' backups.
printf '[bogus]\n' >"$tmp/etc/conf.d/.hidden.conf"
printf '[bogus]\n' >"$tmp/etc/conf.d/README"
printf '[bogus]\n' >"$tmp/etc/conf.d/40-x.conf~"
printf '[bogus]\n' >"$tmp/etc/conf.d/50-x.conf.dpkg-old"
got=$(janks)
check "only *.conf files are read, hidden ones left out (got '$got')" test "$got" = "io:id=3 "
rm -f "$tmp/etc/conf.d/.hidden.conf" "$tmp/etc/conf.d/README" \
	"$tmp/etc/conf.d/40-x.conf~" "$tmp/etc/conf.d/50-x.conf.dpkg-old"

# Errors name the drop-in and its line.
d=$tmp/etc/conf.d
printf '[graph]\nretention = 2s\nfoo = 1\n' >"$d/60-bad.conf"
expect_error "an unknown key: the drop-in and its line" 1 \
	"^jankctl: $d/60-bad.conf:3: unknown key 'foo' in section \[graph\]$" -- \
	"$JANKCTL" analyze --config "$tmp/etc/jankd.conf" "$tmp/trace"
printf '[action x]\nbegin = a\nend = b\nthreshold = 1ms\n[action x]\nthreshold = 2ms\n' \
	>"$d/60-bad.conf"
expect_error "an action twice in one drop-in" 1 \
	"^jankctl: $d/60-bad.conf:5: duplicate action name 'x' \(first at line 1\)$" -- \
	"$JANKCTL" analyze --config "$tmp/etc/jankd.conf" "$tmp/trace"
printf '[action new]\nbegin = a\nthreshold = 1ms\n' >"$d/60-bad.conf"
expect_error "a new action must be whole in its drop-in" 1 \
	"^jankctl: $d/60-bad.conf: \[action new\]: missing 'end'$" -- \
	"$JANKCTL" analyze --config "$tmp/etc/jankd.conf" "$tmp/trace"
printf '[action frame]\nend = jank:action_begin\n' >"$d/60-bad.conf"
expect_error "a change that makes begin and end the same event" 1 \
	"^jankctl: $d/60-bad.conf:1: \[action frame\]: begin and end are the same event" -- \
	"$JANKCTL" analyze --config "$tmp/etc/jankd.conf" "$tmp/trace"
printf '[live]\ncreate = yes\n' >"$d/60-bad.conf"
printf '[live]\nurl = net://127.0.0.1/host/h/s\n' >"$d/55-url.conf"
expect_error "[live] url and create = yes from two files: the later one is named" 1 \
	"^jankctl: $d/60-bad.conf:2: \[live\]: 'url' and 'create = yes' exclude each other$" -- \
	"$JANKCTL" analyze --config "$tmp/etc/jankd.conf" "$tmp/trace"
rm -f "$d/55-url.conf"
rm -f "$d/60-bad.conf"
mkdir "$d/60-dir.conf"
expect_error "a drop-in that is a directory" 1 "^jankctl: $d/60-dir.conf: Is a directory$" -- \
	"$JANKCTL" analyze --config "$tmp/etc/jankd.conf" "$tmp/trace"
rmdir "$d/60-dir.conf"
ln -s "$tmp/etc/nowhere.conf" "$d/60-dangling.conf"
expect_error "a dangling symbolic link" 1 \
	"^jankctl: $d/60-dangling.conf: No such file or directory$" -- \
	"$JANKCTL" analyze --config "$tmp/etc/jankd.conf" "$tmp/trace"
rm -f "$d/60-dangling.conf"

# A [live] url list in a drop-in replaces the earlier list.
printf '[live]\nurl = net://127.0.0.1/host/h/a, net://127.0.0.1/host/h/b\n' >>"$tmp/etc/jankd.conf"
printf '[live]\nurl = net://127.0.0.1/host/h/a\n' >"$d/70-url.conf"
"$JANKCTL" analyze --config "$tmp/etc/jankd.conf" "$tmp/trace" >/dev/null 2>"$tmp/err"
check "a list set again is replaced, not appended to (no 'listed twice')" test $? -eq 0 -a ! -s "$tmp/err"

# A drop-in directory that cannot be read is an error, not an empty one.
if [ "$(id -u)" != 0 ]; then
	chmod 000 "$d"
	expect_error "conf.d unreadable" 1 "^jankctl: $d: Permission denied$" -- \
		"$JANKCTL" analyze --config "$tmp/etc/jankd.conf" "$tmp/trace"
	chmod 755 "$d"
else
	skip "conf.d unreadable" "root reads every directory"
fi
