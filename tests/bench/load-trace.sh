#!/bin/sh
# load-trace.sh OUTDIR [ACTIONS]: the "load" shape of BENCHMARKS.md (the
# engine's cost per event, issue 36) as a CTF trace: make bench-live's load
# offline. ACTIONS (default 1,000,000) back-to-back `load` actions on one
# thread (CPU 0), begin and end 2.5 us apart, one every 10 us (200k events/s),
# ids 0, 1, ...; and one 50 ms `frame` a second on another thread (CPU 1).
# Analyse it with live-cpu.sh's rules (tests/bench/load.conf):
#   jankctl analyze --decoder native -c tests/bench/load.conf OUTDIR
# Environment: top_builddir (where tests/gen/jank-gen is built; default the
# source tree) or JANK_GEN.
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
JANK_GEN=${JANK_GEN:-$top_builddir/tests/gen/jank-gen}
out=${1:?usage: load-trace.sh OUTDIR [ACTIONS]}
n=${2:-1000000}

awk -v n="$n" 'BEGIN {
	print "@trace ust"
	print "@cpus 2"
	print "@context vpid vtid procname:string"
	f = 0; e = 0
	for (i = 0; i < n; i++) {
		t = 1000000 + i * 10000
		if (e < f && fe[e] <= t) {
			printf "%d 1 jank:action_end vpid=100 vtid=102 procname=\"load\" name=\"frame\" id=%d\n", fe[e], e
			e++
		}
		if (t >= f * 1000000000 + 1000000) {
			printf "%d 1 jank:action_begin vpid=100 vtid=102 procname=\"load\" name=\"frame\" id=%d\n", t - 1, f
			fe[f++] = t - 1 + 50000000
		}
		printf "%d 0 jank:action_begin vpid=100 vtid=101 procname=\"load\" name=\"load\" id=%d\n", t, i
		printf "%d 0 jank:action_end vpid=100 vtid=101 procname=\"load\" name=\"load\" id=%d\n", t + 2500, i
	}
	for (; e < f; e++)
		printf "%d 1 jank:action_end vpid=100 vtid=102 procname=\"load\" name=\"frame\" id=%d\n", fe[e], e
}' | "$JANK_GEN" - "$out"
