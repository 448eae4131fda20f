#!/bin/sh
# The metrics pages with traced strings that are not UTF-8 (issue 26 §2): a
# key with an invalid byte and one cut inside a character in the exemplar,
# an action name with an invalid byte, a newline and an escape. The pages
# come from daemon/test-metrics (its untrusted_strings case); promtool (from
# Debian's prometheus package) checks the Prometheus text, and the
# OpenMetrics page is valid UTF-8 with exemplars of at most 128 characters.
. "$top_srcdir/tests/tap.sh"

command -v promtool >/dev/null || plan_skip_all "promtool is not installed"
command -v python3 >/dev/null || plan_skip_all "python3 is not installed"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

JANK_METRICS_PAGES=$tmp CMOCKA_MESSAGE_OUTPUT=STDOUT "$top_builddir/tests/daemon/test-metrics" \
	>"$tmp/unit.out" 2>&1
check "daemon/test-metrics wrote the pages" test -s "$tmp/metrics.txt" -a -s "$tmp/metrics.om"
promtool check metrics <"$tmp/metrics.txt" >"$tmp/promtool.out" 2>&1
rc=$?
sed 's/^/# promtool: /' "$tmp/promtool.out"
check "promtool check metrics passes on the Prometheus text (rc $rc)" [ "$rc" = 0 ]
check "the OpenMetrics page is valid UTF-8, its exemplars short enough" python3 - "$tmp/metrics.om" <<'PY'
import re, sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
ex = re.findall(r' # \{(.*?)\} [0-9.e+-]+\n', t)
assert ex, "no exemplar"
for e in ex:
    labels = re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', e)
    n = sum(len(k) + len(v) for k, v in labels)
    assert n <= 128, "exemplar of %d characters" % n
assert t.endswith("# EOF\n")
PY
plan "$_tap_n"
