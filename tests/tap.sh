# TAP helpers for shell tests. Source it, call plan N (or plan_skip_all),
# then ok/fail/skip per case. Each case is counted by the test harness.
_tap_n=0
_tap_failed=0
plan() { echo "1..$1"; }
plan_skip_all() { echo "1..0 # SKIP $*"; exit 0; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
fail() { _tap_n=$((_tap_n + 1)); _tap_failed=1; echo "not ok $_tap_n - $*"; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP ${2:-}"; }
diag() { echo "# $*"; }
# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }
