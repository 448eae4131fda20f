#!/bin/sh
# SPDX-License-Identifier: MIT
# completions/: each file sources in bash and registers its function for its
# command (complete -p); the function completes commands, options, option
# values and operands for a few command lines (COMP_WORDS/COMP_CWORD, as
# bash sets them, then COMPREPLY).
. "$top_srcdir/tests/tap.sh"

command -v bash >/dev/null 2>&1 || plan_skip_all "bash not found"
dir=$top_srcdir/completions
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/trace-a" "$tmp/trace-b"
touch "$tmp/trace-file"

plan 19

# complete FILE WORD...: the sorted COMPREPLY of the command line WORD...
# whose last word is the one being completed, one per line.
complete_line() {
	file=$1
	shift
	(cd "$tmp" && bash --norc --noprofile -c '
		. "$0" || exit 1
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		func=$(complete -p "$1" | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
		"$func" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort' "$file" "$@")
}

# expect DESC EXPECTED FILE WORD...: COMPREPLY is EXPECTED (words, one space).
expect() {
	desc=$1 want=$2
	shift 2
	got=$(complete_line "$@" | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$want" ]; then
		ok "$desc"
	else
		fail "$desc"
		diag "expected: '$want'"
		diag "got:      '$got'"
	fi
}

for cmd in jankctl jankd; do
	out=$(bash --norc --noprofile -c '. "$0" && complete -p "$1"' "$dir/$cmd" "$cmd" 2>&1)
	case $out in
	"complete -F _$cmd $cmd") ok "$cmd: sources, and registers _$cmd (complete -p)" ;;
	*) fail "$cmd: sources, and registers _$cmd (complete -p)"; diag "$out" ;;
	esac
done

J=$dir/jankctl
D=$dir/jankd
expect "jankctl <TAB>: the commands and --help, --version" \
	"--help --version analyze captures compare critpath flame graph report status" $J jankctl ''
expect "jankctl c<TAB>: captures, compare, critpath" "captures compare critpath" $J jankctl c
expect "jankctl analyze --<TAB>: its options" "--all --config --decoder --format --help" \
	$J jankctl analyze --
expect "jankctl critpath --format <TAB>: text, json" "json text" \
	$J jankctl critpath --format ''
expect "jankctl flame --<TAB>: its options" \
	"--action --all --config --decoder --format --help --svg" \
	$J jankctl flame --
expect "jankctl graph --decoder <TAB>: the decoders" "auto babeltrace2 native" \
	$J jankctl graph --decoder ''
expect "jankctl flame --format <TAB>: folded, svg" "folded svg" $J jankctl flame --format ''
expect "jankctl compare --f<TAB>: --flame, --format" "--flame --format" $J jankctl compare --f
expect "jankctl compare --flame F<TAB>: files" "trace-a trace-b trace-file" \
	$J jankctl compare --flame trace
expect "jankctl status --format=j<TAB> (--opt=value): json" "json" \
	$J jankctl status --format = j
expect "jankctl graph TRACE: directories only" "trace-a trace-b" $J jankctl graph trace
expect "jankctl analyze --config F<TAB>: files too" "trace-a trace-b trace-file" \
	$J jankctl analyze --config trace
expect "jankctl captures --dir <TAB>: directories" "trace-a trace-b" \
	$J jankctl captures --dir trace
expect "jankctl critpath --tid <TAB>: nothing (a number)" "" $J jankctl critpath --tid ''
expect "jankd --<TAB>: its options" "--binary-opener --check-config --config --foreground --help --log-target --version --worker-spawner" \
	$D jankd --
expect "jankd --log-target=<TAB>: auto, journal, stderr, json" "auto journal json stderr" \
	$D jankd --log-target = ''
expect "jankd -c <TAB>: files" "trace-a trace-b trace-file" $D jankd -c trace
