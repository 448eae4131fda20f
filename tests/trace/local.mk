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
	trace/test-untrusted.sh \
	trace/test-capture-bounds.sh \
	trace/test-systemd.sh \
	trace/test-man.sh
TESTS += $(TRACE_TESTS)
EXTRA_DIST += $(TRACE_TESTS) trace/lib.sh
