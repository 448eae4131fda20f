# Helpers for the tests of jankctl. Source after tests/tap.sh.
JANKCTL=${JANKCTL:-$top_builddir/jankctl/jankctl}
JANK_GEN=${JANK_GEN:-$top_builddir/tests/gen/jank-gen}
JQ=${JQ:-jq}
SHARED_TRACES=${SHARED_TRACES:-$top_srcdir/../shared/traces}

if [ ! -x "$JANKCTL" ]; then
	echo "Bail out! $JANKCTL is not built"
	exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# expect_error DESC STATUS PATTERN -- COMMAND...: the command exits with
# STATUS (a number, or "nonzero"), was not killed by a signal, and wrote
# exactly one line on stderr, which matches the extended regex PATTERN.
expect_error() {
	desc=$1 want=$2 pattern=$3
	shift 4
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	nl=$(wc -l <"$tmp/err")
	if [ "$st" -ge 128 ]; then
		fail "$desc (killed: status $st)"
	elif [ "$want" = nonzero ] && [ "$st" -eq 0 ]; then
		fail "$desc (exit status 0)"
	elif [ "$want" != nonzero ] && [ "$st" -ne "$want" ]; then
		fail "$desc (exit status $st, expected $want)"
	elif [ "$nl" -ne 1 ]; then
		fail "$desc ($nl lines on stderr, expected 1)"
	elif ! grep -Eq -- "$pattern" "$tmp/err"; then
		fail "$desc (stderr '$(cat "$tmp/err")' does not match '$pattern')"
	else
		ok "$desc"
		return 0
	fi
	sed 's/^/# /' "$tmp/err"
	return 1
}

# Times in jankctl's JSON are integer nanoseconds from the clock's origin, too
# big for jq 1.6, which reads numbers as doubles. Quote them before jq sees
# them; the jq functions below compare and subtract them exactly.
quote_times() {
	sed -E 's/"(begin|end|ts)":(-?[0-9]+)/"\1":"\2"/g'
}
JQ_TIME_DEFS='
def hi: if length > 9 then .[:-9] | tonumber else 0 end;
def lo: if length > 9 then .[-9:] | tonumber else tonumber end;
def minus($a; $b): (($a | hi) - ($b | hi)) * 1000000000 + (($a | lo) - ($b | lo));
'
