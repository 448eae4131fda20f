# tests/trace: jankctl end to end on CTF traces (fixtures from gen/jank-gen, and
# the real traces of ../shared/traces when present).
TRACE_TESTS = \
	trace/test-repro.sh \
	trace/test-config.sh \
	trace/test-config-dropins.sh \
	trace/test-badinput.sh \
	trace/test-many-threads.sh \
	trace/test-gc-ctf.sh \
	trace/test-jankctl.sh \
	trace/test-scenarios.sh \
	trace/test-demo.sh \
	trace/test-suspects.sh \
	trace/test-report.sh \
	trace/test-flame.sh \
	trace/test-crosshost.sh \
	trace/test-netmatch.sh \
	trace/test-debuginfod.sh \
	trace/test-untrusted.sh \
	trace/test-capture-bounds.sh \
	trace/test-systemd.sh \
	trace/test-jankd-check.sh \
	trace/test-man.sh
TESTS += $(TRACE_TESTS)
EXTRA_DIST += $(TRACE_TESTS) trace/lib.sh
# The native CTF decoder against babeltrace2, event by event (ctf-diff) and
# through jankctl, over every trace the tests have (test-ctf-native.sh).
noinst_PROGRAMS += trace/ctf-diff
trace_ctf_diff_SOURCES = trace/ctf-diff.c
trace_ctf_diff_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
trace_ctf_diff_LDADD = $(top_builddir)/io/libjank-io.la $(top_builddir)/lib/libjank.la -lm
TESTS += trace/test-ctf-native.sh
EXTRA_DIST += trace/test-ctf-native.sh
