#!/bin/sh
# man/: every page passes `mandoc -Tlint -W warning` with no message; every
# command and option that jankctl and jankd print in their --help is in their
# page; every section and key that io/config-file.c accepts is in jankd.conf(5)
# (under its section) and in the example systemd/jankd.conf.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/trace/lib.sh"

MAN=$top_srcdir/man
CONFIG_C=$top_srcdir/io/config-file.c # the schema's tables
EXAMPLE=$top_srcdir/systemd/jankd.conf
JANKD=${JANKD:-$top_builddir/daemon/jankd}

command -v mandoc >/dev/null 2>&1 || plan_skip_all "mandoc not found (install mandoc)"

pages=$(ls "$MAN"/*.[1-8])
commands=$("$JANKCTL" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
plan $(($(echo "$pages" | wc -l) + 9))

for page in $pages; do
	mandoc -Tlint -W warning "$page" >"$tmp/lint" 2>&1
	if [ "$?" = 0 ] && [ ! -s "$tmp/lint" ]; then
		ok "mandoc -Tlint: $(basename "$page") is clean"
	else
		fail "mandoc -Tlint: $(basename "$page") is clean"
		sed 's/^/# /' "$tmp/lint"
	fi
done

# missing_options PAGE HELP-TEXT-FILE: the --options of the help that PAGE
# does not mention (as \-\-option in its source).
missing_options() {
	for opt in $(grep -o -- '--[a-z][a-z-]*' "$2" | sort -u); do
		esc=$(echo "$opt" | sed 's/-/\\\\-/g')
		grep -q -- "$esc" "$1" || printf ' %s' "$opt"
	done
}

# ---- jankctl(1) ----

[ -n "$commands" ]
result=$?
missing=
for c in $commands; do
	grep -q "^\.SS $c\$" "$MAN/jankctl.1" || missing="$missing $c"
	grep -q "^\.B jankctl $c\$" "$MAN/jankctl.1" || missing="$missing $c(synopsis)"
done
if [ "$result" = 0 ] && [ -z "$missing" ]; then
	ok "jankctl.1 has a synopsis line and a section for each command:" $commands
else
	fail "jankctl.1 has a synopsis line and a section for each command (missing:$missing)"
fi

"$JANKCTL" --help >"$tmp/help" 2>&1
for c in $commands; do
	"$JANKCTL" "$c" --help >>"$tmp/help" 2>&1
done
missing=$(missing_options "$MAN/jankctl.1" "$tmp/help")
check "jankctl.1 has every option of jankctl --help and jankctl COMMAND --help${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]

# ---- jankd(8) ----

if [ -x "$JANKD" ]; then
	"$JANKD" --help >"$tmp/jankd-help" 2>&1
	missing=$(missing_options "$MAN/jankd.8" "$tmp/jankd-help")
	[ -s "$tmp/jankd-help" ] || missing=" (no help)"
	check "jankd.8 has every option of jankd --help${missing:+ (missing:$missing)}" \
		[ -z "$missing" ]
else
	skip "jankd.8 has every option of jankd --help" "$JANKD is not built"
fi
missing=
for id in 3f5b0c2e8a6d4e1b9c7a5d3e1f2b4c6a 7c1e9a3b5d2f4e6a8b0c2d4e6f8a1b3c \
	5a8d2c4e6f1b3a5c7e9d1f3b5a7c9e1d NOTIFY_SOCKET WATCHDOG_USEC \
	SIGHUP SIGTERM 'RestartPreventExitStatus=1'; do
	grep -q "$id" "$MAN/jankd.8" || missing="$missing $id"
done
check "jankd.8 has the MESSAGE_IDs, the environment, the signals and exit 1's meaning${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]
missing=
for state in running preempted blocked timer network block_device interrupted ipi lock_wait unknown; do
	grep -q "^\.B $state\$" "$MAN/jankd.8" && grep -q "^\.B $state\$" "$MAN/jankctl.1" ||
		missing="$missing $state"
done
check "jankd.8 and jankctl.1 list every critical-path state${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]

# ---- jankd.conf(5): the schema's tables in config-file.c ----

# The schema's tables: { "live", ... } rows of `sections`, K("live", "url", ...) rows of `keys`.
awk '/^static const struct jank_config_schema_section sections\[\] = \{/ { on = 1; next }
	on && /^};/ { exit }
	on && match($0, /^\t\{ *"[a-z]+"/) { s = substr($0, RSTART, RLENGTH); gsub(/[\t{ "]/, "", s);
		print s, ($0 ~ /\.named = true/) }' \
	"$CONFIG_C" >"$tmp/sections"
# A named section's header: [action NAME], [flow NAME].
header_of() {
	if grep -qx "$1 1" "$tmp/sections"; then echo "[$1 NAME]"; else echo "[$1]"; fi
}
awk '/^static const struct jank_config_schema_key keys\[\] = \{/ { on = 1; next }
	on && /^};/ { exit }
	on && match($0, /K\("[a-z]+", *"[a-z-]+"/) {
		k = substr($0, RSTART, RLENGTH); gsub(/K\(|"|,/, " ", k); split(k, f, " ")
		print f[1], f[2] }' \
	"$CONFIG_C" >"$tmp/keys"
diag "config-file.c: $(wc -l <"$tmp/sections") sections, $(wc -l <"$tmp/keys") keys"

missing=
for s in $(cut -d' ' -f1 "$tmp/sections"); do
	header=$(header_of "$s")
	grep -qF ".SH $header" "$MAN/jankd.conf.5" || missing="$missing $header"
done
[ "$(wc -l <"$tmp/sections")" -ge 5 ] || missing=" (config-file.c's section table not found)"
check "jankd.conf.5 has a section for each of config-file.c's${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]

# The keys of a man section: the .BI lines between its .SH and the next.
missing=
while read -r sec key; do
	header=$(header_of "$sec")
	esc=$(echo "$key" | sed 's/-/\\\\-/g')
	awk -v h=".SH $header" '$0 == h { on = 1; next } /^\.SH / { on = 0 } on' \
		"$MAN/jankd.conf.5" | grep -q "^\.BI $esc " || missing="$missing $header$key"
done <"$tmp/keys"
[ -s "$tmp/keys" ] || missing=" (config-file.c's key tables not found)"
check "jankd.conf.5 documents every key of config-file.c in its section${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]

missing=
while read -r sec key; do
	grep -Eq "^#? *$key = " "$EXAMPLE" || missing="$missing [$sec]$key"
done <"$tmp/keys"
check "the example systemd/jankd.conf shows every key of config-file.c${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]

# And nothing the parser does not know: the keys set in jankd.conf.5's
# example are all in config-file.c.
unknown=
for key in $(sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/p' "$MAN/jankd.conf.5" |
	sed -n 's/^\([a-z][a-z\\-]*\) = .*/\1/p' | sed 's/\\-/-/g' | sort -u); do
	awk -v k="$key" '$2 == k { found = 1 } END { exit !found }' "$tmp/keys" ||
		unknown="$unknown $key"
done
check "jankd.conf.5's examples use only keys that config-file.c knows${unknown:+ (unknown:$unknown)}" \
	[ -z "$unknown" ]
