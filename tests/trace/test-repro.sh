#!/bin/sh
# Every input of ../shared/repro that once crashed or fooled jank, run the
# way its README says: each must end with exit 0 or 1 (2 for a usage error)
# and a clear message, and nothing from a sanitizer. CI runs this under ASan
# and UBSan too (make check-unit in the sanitizer build). Skipped when the
# reproducers are not there (a user's clone).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

REPRO=${REPRO:-$SHARED_TRACES/../repro}
MANY=$SHARED_TRACES/many-threads
[ -f "$REPRO/README.md" ] || plan_skip_all "$REPRO not present"
# babeltrace2 and glib keep memory for the process's life: not our leaks.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export ASAN_OPTIONS

plan 21

demo_conf=$top_srcdir/tests/data/demo/demo.conf
mkdir -p "$tmp/demo"
"$top_srcdir/tests/data/demo/demo-trace.sh" "$tmp/demo" &&
	"$JANK_GEN" "$tmp/demo/kernel.script" "$tmp/demo/trace/kernel" &&
	"$JANK_GEN" "$tmp/demo/ust.script" "$tmp/demo/trace/ust" || {
	echo "Bail out! cannot make the demo trace"
	exit 1
}
demo=$tmp/demo/trace

# run NAME COMMAND...: run it; $tmp/NAME.{out,err,rc}.
run() {
	name=$1
	shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
# clean NAME: no sanitizer report, no signal.
clean() {
	! grep -q "AddressSanitizer\|runtime error\|LeakSanitizer" "$tmp/$1.err" && [ "$(rc "$1")" -lt 128 ]
}
# says NAME RC REGEX: exit RC, clean, and one line on stderr matching REGEX.
says() {
	clean "$1" && [ "$(rc "$1")" = "$2" ] && [ "$(wc -l <"$tmp/$1.err")" = 1 ] &&
		grep -Eq -- "$3" "$tmp/$1.err"
}
show() { sed 's/^/#   /' "$tmp/$1.err" | head -5; }

run uaf-exit "$JANKCTL" analyze --config "$demo_conf" "$REPRO/uaf-exit-trace"
check "uaf-exit: a current thread that exits and is freed (exit $(rc uaf-exit))" \
	eval 'clean uaf-exit && [ "$(rc uaf-exit)" -le 1 ]' || show uaf-exit
run uaf-reuse "$JANKCTL" analyze --config "$demo_conf" "$REPRO/uaf-reuse-trace"
check "uaf-reuse-cur: a current thread whose tid a fork reuses (exit $(rc uaf-reuse))" \
	eval 'clean uaf-reuse && [ "$(rc uaf-reuse)" -le 1 ]' || show uaf-reuse

for conf in mt-memlimit-1 mt-memlimit-64KiB; do
	if [ -f "$MANY/metadata" ]; then
		run "$conf" "$JANKCTL" analyze --config "$REPRO/$conf.conf" "$MANY"
		check "$conf: the memory-budget sweep on many-threads (exit $(rc "$conf"))" \
			eval 'clean "$conf" && [ "$(rc "$conf")" = 0 ]' || show "$conf"
	else
		skip "$conf: the memory-budget sweep on many-threads" "$MANY not present"
	fi
done

for cmd in analyze critpath graph; do
	case $cmd in
	analyze) set -- analyze --config "$demo_conf" ;;
	critpath) set -- critpath --tid 4312 ;;
	graph) set -- graph ;;
	esac
	run "abort-$cmd" "$JANKCTL" "$@" "$REPRO/abort-1byte-trace"
	check "abort-1byte-trace, $cmd: exit 1, 'cannot read the trace', no abort" \
		says "abort-$cmd" 1 "cannot read the trace" || show "abort-$cmd"
done

if sh "$REPRO/mt-hang.sh" "$tmp/hang" 2>/dev/null; then
	JANKCTL_TIME_LIMIT=3 run hang "$JANKCTL" graph "$tmp/hang"
	check "mt-hang: truncated metadata: exit 1 within the time limit, with why" \
		says hang 1 "did not return within 3 s while reading the metadata" || show hang
else
	skip "mt-hang: truncated metadata" "mt-hang.sh could not copy ../traces/many-threads"
fi

run nolinks "$JANKCTL" graph --format json "$REPRO/graph-nolinks-trace"
check "graph-nolinks: no wakeup link (qsort of nothing): exit 0, valid JSON" \
	eval 'clean nolinks && [ "$(rc nolinks)" = 0 ] && "$JQ" -e ".links == []" "$tmp/nolinks.out" >/dev/null' ||
	show nolinks
check "graph-nolinks: a tid beyond 31 bits is no thread, not a truncated one" \
	eval '! grep -q "\"tid\":-" "$tmp/nolinks.out"'
mkdir "$tmp/empty"
run captures "$JANKCTL" captures --dir "$tmp/empty"
check "captures of an empty directory: exit 0, says so" \
	eval 'clean captures && [ "$(rc captures)" = 0 ] && grep -q "^no capture in" "$tmp/captures.out"' ||
	show captures

run range "$JANKCTL" critpath --tid 4312 --begin -1 --end 9223372036854775807 "$demo"
check "critpath over -1 .. INT64_MAX: a usage error, no overflow" \
	says range 2 "^jankctl: critpath: --begin -1 is negative" || show range

for conf in cfg-thr-pnan cfg-thr-p99x1e300; do
	run "$conf" "$JANKCTL" analyze --config "$REPRO/$conf.conf" "$demo"
	check "$conf: refused with its line" says "$conf" 1 ":11: bad threshold" || show "$conf"
done
run rules9 "$JANKCTL" analyze --config "$REPRO/cfg-9-rules.conf" "$demo"
check "cfg-9-rules: the 9th rule on one event is refused, not ignored" \
	says rules9 1 "\[action r7\]: event 'jank:action_begin' cannot serve one more rule" ||
	show rules9
run typo "$JANKCTL" analyze --config "$REPRO/cfg-match-typo.conf" "$demo"
check "cfg-match-typo: a match on a field the event lacks is an error that names its fields" \
	says typo 1 "\[action frame\]: event 'jank:action_(begin|end)' has no field 'nmae' \(its fields: .*name, id" ||
	show typo
run memlimit "$JANKCTL" analyze --config "$REPRO/memlimit-1.conf" "$demo"
check "memlimit-1: actions dropped by the memory budget are said so, not 'expired'" \
	eval 'clean memlimit && grep -q "dropped, oldest first, because open actions alone took half of the memory limit" "$tmp/memlimit.out" && ! grep -q "expired" "$tmp/memlimit.out"' ||
	show memlimit
for conf in cfg-noeq-last cfg-noeq-notlast; do
	run "$conf" "$JANKCTL" analyze --config "$REPRO/$conf.conf" "$demo"
	check "$conf: the syntax error names its line" says "$conf" 1 "$conf.conf:4: syntax error" ||
		show "$conf"
done

# 255 and 256 nested interrupts on the waker's CPU: the wakeup is an
# interrupt's either way (the depth wrapped to 0 at 256 and blamed a thread).
for n in 255 256; do
	run "irq$n" "$JANKCTL" critpath --tid 50 --format json "$REPRO/irq-nest-$n-trace"
	check "irq-nest-$n: the wait is 'interrupted', on tid 50 only" \
		eval 'clean irq$n && [ "$(rc irq$n)" = 0 ] &&
		[ "$("$JQ" -c "([.segments[] | select(.state == \"interrupted\")] | length > 0) and
			([.segments[].tid] | unique == [50])" "$tmp/irq$n.out")" = true ]' || show "irq$n"
done
