# tests/live: end-to-end tests against a private lttng-sessiond, lttng-relayd
# and systemd-journald. They need root and lttng-tools, and skip cleanly
# otherwise (test-jankd-config.sh needs neither).
JANKD_LIVE_TESTS = \
	live/test-jankd-config.sh \
	live/test-jankd-alerts.sh \
	live/test-jankd-create.sh \
	live/test-jankd-discarded.sh \
	live/test-jankd-discarded-actions.sh \
	live/test-jankd-json.sh \
	live/test-jankd-decoders.sh \
	live/test-jankd-locks.sh \
	live/test-jankd-functions.sh \
	live/test-jankd-binaries.sh \
	live/test-jankd-debuginfod.sh \
	live/test-jankd-flows.sh \
	live/test-jankd-notify.sh \
	live/test-jankd-reload.sh \
	live/test-jankd-state.sh \
	live/test-jankd-reconnect.sh \
	live/test-jankd-multi.sh \
	live/test-jankd-ready.sh \
	live/test-metrics.sh \
	live/test-composition.sh \
	live/test-web.sh \
	live/test-fleet.sh \
	live/test-crosshost.sh \
	live/test-discover-limit.sh
# jankd's captures (daemon/capture/capturer.c, capture-session.c): snapshot, storm, quota, full disk, rotation.
CAPTURE_LIVE_TESTS = \
	live/test-capture.sh \
	live/test-capture-storm.sh \
	live/test-capture-quota.sh \
	live/test-capture-full.sh \
	live/test-capture-rotation.sh \
	live/test-capture-rotation-race.sh
# Faults of the daemons around jankd, each test in namespaces of its own
# (live_isolate): a daemon jankd depends on dies, stops or comes back; and
# its workers' privileges (test-worker-privs.sh), and who may read its
# status (test-jankd-access.sh).
FAULT_LIVE_TESTS = \
	live/test-fault-journald.sh \
	live/test-fault-relayd.sh \
	live/test-fault-sessiond.sh \
	live/test-lttng-ctl-threads.sh \
	live/test-fresh-sessiond.sh \
	live/test-fault-stall.sh \
	live/test-fault-worker.sh \
	live/test-worker-privs.sh \
	live/test-jankd-access.sh
# jankd's live input against mock-relayd (a relayd of the test's own, faults
# on demand): no root, no lttng daemon.
MOCK_LIVE_TESTS = \
	live/test-mock-relayd.sh \
	live/test-mock-relayd-faults.sh \
	live/test-mock-relayd-bt2.sh \
	live/test-mock-relayd-faults-bt2.sh \
	live/test-mock-netmatch.sh
TESTS += live/test-probes.sh live/test-symbols.sh live/test-locks.sh $(JANKD_LIVE_TESTS) live/test-session.sh \
	$(MOCK_LIVE_TESTS) \
	$(CAPTURE_LIVE_TESTS) $(FAULT_LIVE_TESTS)
EXTRA_DIST += live/lib.sh live/mock-lib.sh $(MOCK_LIVE_TESTS) live/test-probes.sh live/test-symbols.sh live/test-locks.sh $(JANKD_LIVE_TESTS) \
	live/test-session.sh $(CAPTURE_LIVE_TESTS) $(FAULT_LIVE_TESTS)

# Bad HTTP clients for test-metrics.sh: slowloris, oversized requests, a flood.
check_PROGRAMS += live/http-abuse
live_http_abuse_SOURCES = live/http-abuse.c

# A NOTIFY_SOCKET for test-jankd-notify.sh: prints what sd_notify sends.
check_PROGRAMS += live/notify-recv
live_notify_recv_SOURCES = live/notify-recv.c

# A relayd of the test's own: the live viewer protocol over a CTF trace
# directory, with faults on demand (test-mock-relayd.sh).
check_PROGRAMS += live/mock-relayd
live_mock_relayd_SOURCES = live/mock-relayd.c

# daemon/lttng/lttng-session.c (lttng-ctl sessions) from the command line: test-session.sh.
check_PROGRAMS += live/session-tool
live_session_tool_SOURCES = live/session-tool.c
live_session_tool_LDADD = $(top_builddir)/daemon/libjankd.la \
	$(top_builddir)/io/libjank-io.la $(top_builddir)/lib/libjank.la -lm

# daemon/lttng/lttng-session.c from two threads at once: test-lttng-ctl-threads.sh.
check_PROGRAMS += live/ctl-hammer
live_ctl_hammer_SOURCES = live/ctl-hammer.c
live_ctl_hammer_LDADD = $(top_builddir)/daemon/libjankd.la \
	$(top_builddir)/io/libjank-io.la $(top_builddir)/lib/libjank.la -lm -lpthread

# A program slow in known functions, every call an event: test-jankd-functions.sh.
check_PROGRAMS += live/fn-demo
live_fn_demo_SOURCES = live/fn-demo.c
live_fn_demo_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/probes
live_fn_demo_CFLAGS = $(AM_CFLAGS) -pthread -finstrument-functions -fno-omit-frame-pointer
live_fn_demo_LDFLAGS = -pthread
live_fn_demo_LDADD = $(top_builddir)/probes/libjank-ust.la

# A client and a server on two simulated hosts: test-crosshost.sh.
check_PROGRAMS += live/rpc-demo
live_rpc_demo_SOURCES = live/rpc-demo.c
live_rpc_demo_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/probes
live_rpc_demo_CFLAGS = $(AM_CFLAGS) -finstrument-functions -fno-omit-frame-pointer
live_rpc_demo_LDADD = $(top_builddir)/probes/libjank-ust.la

# Addresses symbolized from a trace's lttng-ust statedump: test-symbols.sh.
check_PROGRAMS += live/symbolize-trace
live_symbolize_trace_SOURCES = live/symbolize-trace.c
live_symbolize_trace_LDADD = $(top_builddir)/io/libjank-io.la $(top_builddir)/lib/libjank.la -lm
