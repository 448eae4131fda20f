#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the libFuzzer targets of tests/fuzz in a clang build directory and
# run each on its corpus (see README).
#
#   tests/fuzz/fuzz.sh [--seconds N | --runs N [--seed S]] [--builddir DIR]
#                      [--if-available] [TARGET...]
#
# TARGET: config, engine, ctf, text, verdict, frames, ctf-meta, ctf-packet, members, capture
# (default: all ten, one after the other).
# DIR (default build-fuzz/ beside the sources) is configured with CC=clang
# --enable-fuzzing when it has no Makefile. Each target runs N seconds
# (default 60) on the corpus it grew in DIR (tests/fuzz/corpus-TARGET) and
# the seeds of tests/fuzz/corpus/TARGET. With --runs, it runs N inputs from
# the seeds alone with the random seed S (default 1): the same inputs at
# every run of the same sources, a regression test (./check) rather than a
# search. Each target gives one line:
#   PASS: fuzz-engine: 60 s, 123456 runs, 2057 exec/s, cov 812, ft 3021, corpus 210 (+12 new)
#   FAIL: fuzz-engine: crash-..., then the first lines of the report
#   SKIP: fuzz-engine: why   (--if-available, when clang or libFuzzer is missing)
# Exit 0 when no target failed, 1 otherwise (or when the build failed).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=60 runs= seed=1 builddir=$top/build-fuzz if_available=no targets=
usage() {
	echo "usage: fuzz.sh [--seconds N | --runs N [--seed S]] [--builddir DIR] [--if-available] [config|engine|ctf|text|verdict|frames|ctf-meta|ctf-packet|members|capture]..." >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) [ $# -ge 2 ] || usage; seconds=$2; shift ;;
	--runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
	--seed) [ $# -ge 2 ] || usage; seed=$2; shift ;;
	--builddir) [ $# -ge 2 ] || usage; builddir=$2; shift ;;
	--if-available) if_available=yes ;;
	config | engine | ctf | text | verdict | frames | ctf-meta | ctf-packet | members | capture) targets="$targets $1" ;;
	*) usage ;;
	esac
	shift
done
targets=${targets:-config engine ctf text verdict frames ctf-meta ctf-packet members capture}
CC=${FUZZ_CC:-clang}

# Without clang and libFuzzer: an error, or a skip for CI.
unavailable() {
	if [ "$if_available" = yes ]; then
		for t in $targets; do echo "SKIP: fuzz-$t: $1"; done
		exit 0
	fi
	echo "fuzz.sh: $1" >&2
	exit 1
}
probe=$(mktemp -d) || exit 1
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n' >"$probe/p.c"
if ! command -v "$CC" >/dev/null 2>&1; then
	rm -rf "$probe"
	unavailable "$CC not found (install the Debian packages clang and libclang-rt-14-dev)"
fi
if ! "$CC" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
	rm -rf "$probe"
	unavailable "$CC cannot link libFuzzer targets (clang and the Debian package libclang-rt-14-dev are needed)"
fi
rm -rf "$probe"

mkdir -p "$builddir" || exit 1
builddir=$(cd "$builddir" && pwd)
if [ ! -f "$builddir/Makefile" ]; then
	(cd "$top" && { [ -x configure ] && [ configure -nt configure.ac ] || ./bootstrap >/dev/null; }) ||
		{ echo "fuzz.sh: ./bootstrap failed" >&2; exit 1; }
	(cd "$builddir" && CC=$CC "$top/configure" --enable-fuzzing >configure.out 2>&1) ||
		{ tail -20 "$builddir/configure.out"; echo "fuzz.sh: configure failed" >&2; exit 1; }
fi
if ! "$builddir/config.status" --config | grep -q -- --enable-fuzzing; then
	echo "fuzz.sh: $builddir is not configured with --enable-fuzzing" >&2
	exit 1
fi
log=$builddir/tests/fuzz/make.out
mkdir -p "$builddir/tests/fuzz"
jobs=$(nproc 2>/dev/null || echo 2)
{ make -C "$builddir/lib" -j"$jobs" && make -C "$builddir/io" -j"$jobs" &&
	make -C "$builddir/tests" -j"$jobs" gen/jank-gen &&
	make -C "$builddir/tests/fuzz" -j"$jobs"; } >"$log" 2>&1 ||
	{ tail -30 "$log"; echo "fuzz.sh: the build failed (see $log)" >&2; exit 1; }

rc=0
for t in $targets; do
	bin=$builddir/tests/fuzz/fuzz-$t
	work=$builddir/tests/fuzz/corpus-$t
	art=$builddir/tests/fuzz/artifacts
	out=$builddir/tests/fuzz/fuzz-$t.log
	mkdir -p "$work" "$art"
	case $t in
	ctf) opts="-timeout=60 -max_len=16384" ;;
	ctf-meta) opts="-timeout=10 -max_len=16384" ;;
	*) opts="-timeout=10 -max_len=4096" ;;
	esac
	dict=
	[ -f "$top/tests/fuzz/$t.dict" ] && dict=-dict=$top/tests/fuzz/$t.dict
	stamp=$art/.$t.start
	: >"$stamp"
	start=$(date +%s)
	if [ -n "$runs" ]; then
		# A fresh corpus directory: what an earlier run grew must not
		# change the inputs.
		work=$builddir/tests/fuzz/corpus-$t-runs
		rm -rf "$work" && mkdir -p "$work"
		# Comparison operands (-use_cmp) hold addresses, which differ at
		# every run: without them, the same seed gives the same inputs.
		limit="-runs=$runs -seed=$seed -reload=0 -use_cmp=0 -use_memmem=0"
	else
		limit="-max_total_time=$seconds"
	fi
	# shellcheck disable=SC2086
	"$bin" $limit -print_final_stats=1 $dict \
		-artifact_prefix="$art/$t-" $opts "$work" "$top/tests/fuzz/corpus/$t" >"$out" 2>&1
	status=$?
	took=$(( $(date +%s) - start ))
	nruns=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out")
	new=$(sed -n 's/^stat::new_units_added: *//p' "$out")
	last=$(grep -E '^#[0-9]+.*cov: ' "$out" | tail -1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	found=$(find "$art" -name "$t-*" -newer "$stamp" | head -1)
	if [ "$status" = 0 ] && [ -z "$found" ]; then
		echo "PASS: fuzz-$t: $took s, ${nruns:-?} runs${runs:+ (seed $seed)}, ${speed:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?} (+${new:-0} new)"
		continue
	fi
	rc=1
	echo "FAIL: fuzz-$t: exit $status after ${nruns:-?} runs${found:+, input saved as $found} (log: $out)"
	grep -m 1 -A 8 -E 'ERROR: |runtime error|invariant broken|deadly signal|ALARM|out-of-memory' "$out" |
		sed 's/^/#   /'
done
exit $rc
