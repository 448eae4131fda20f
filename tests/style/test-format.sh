# SPDX-License-Identifier: MIT
# tests/style/test-format.sh: the C sources follow .clang-format, and every
# header compiles on its own.
#
# clang-format's output changes between versions; the tree is formatted by
# clang-format 14, Debian 12's, which scripts/install-deps installs. With
# another version (or none) the format case is skipped, with the reason.
. "$top_srcdir/tests/tap.sh"

CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
CC=${CC:-cc}
cd "$top_srcdir" || exit 1
sources=$(find lib io daemon jankctl probes tests -name '*.[ch]' | sort)
headers=$(find lib io daemon -name '*.h' | sort)

plan $((1 + $(echo "$headers" | wc -l)))

version=$("$CLANG_FORMAT" --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$version" != 14 ]; then
	skip "the sources follow .clang-format" \
		"clang-format 14 is needed (found: ${version:-none}); install the Debian package clang-format"
else
	bad=
	for f in $sources; do
		"$CLANG_FORMAT" --dry-run --Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
	done
	check "the sources follow .clang-format${bad:+ (run clang-format -i on:$bad)}" [ -z "$bad" ]
fi

# Each header includes what it uses: it compiles alone, with the include
# paths of its layer only (lib/ < io/ < daemon/), and in daemon/ of the
# folders its folder may use (daemon/Makefile.am's rooms): the worker's
# sees nothing of the supervisor's.
d="-Ilib -Iio -Idaemon"
for h in $headers; do
	case $h in
	lib/*) inc="-Ilib" ;;
	io/*) inc="-Ilib -Iio" ;;
	daemon/worker/*) inc="$d -Idaemon/worker" ;;
	daemon/fleet/*) inc="$d -Idaemon/worker -Idaemon/fleet" ;;
	daemon/alert/*) inc="$d -Idaemon/alert" ;;
	daemon/lttng/*) inc="$d -Idaemon/worker -Idaemon/fleet -Idaemon/lttng" ;;
	daemon/capture/*) inc="$d -Idaemon/alert -Idaemon/lttng -Idaemon/capture" ;;
	daemon/http/*) inc="$d -Idaemon/worker -Idaemon/alert -Idaemon/http" ;;
	daemon/clock.h | daemon/control-socket.h | daemon/journal.h | daemon/log.h) inc="$d" ;;
	*) inc="$d -Idaemon/worker -Idaemon/fleet -Idaemon/alert -Idaemon/lttng -Idaemon/capture -Idaemon/http" ;;
	esac
	# shellcheck disable=SC2086
	echo "#include \"${h##*/}\"" | $CC -fsyntax-only -Wall -Werror $inc $DEPS_CFLAGS -x c - \
		>"${TMPDIR:-/tmp}/jank-header.$$" 2>&1
	check "$h compiles on its own, with the headers of its layer" [ $? = 0 ]
	[ -s "${TMPDIR:-/tmp}/jank-header.$$" ] && sed 's/^/# /' "${TMPDIR:-/tmp}/jank-header.$$" | head -5
	rm -f "${TMPDIR:-/tmp}/jank-header.$$"
done
