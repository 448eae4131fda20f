# tests/daemon: jankd's modules on their own (fake clock, recording sink).
daemon_tests = daemon/test-alert daemon/test-metrics daemon/test-worker-proto \
	daemon/test-alerted daemon/test-clock daemon/test-log daemon/test-input-figures \
	daemon/test-input-status daemon/test-fleet daemon/test-status \
	daemon/test-worker-proc daemon/test-relayd daemon/test-skipped daemon/test-journal \
	daemon/test-capture-session daemon/test-sessiond-probe \
	daemon/test-worker-sandbox daemon/test-binary-opener daemon/test-crossing \
	daemon/test-relayd-broker
check_PROGRAMS += $(daemon_tests)
TESTS += $(daemon_tests)
# promtool on the metrics pages daemon/test-metrics writes.
daemon_shell_tests = daemon/test-metrics-promtool.sh
TESTS += $(daemon_shell_tests)
EXTRA_DIST += $(daemon_shell_tests)

daemon_test_alert_SOURCES = daemon/test-alert.c
daemon_test_alert_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS)
daemon_test_alert_LDADD = $(top_builddir)/daemon/libjankd.la $(top_builddir)/io/libjank-io.la \
	$(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) $(JSONC_LIBS) -lm

daemon_test_metrics_SOURCES = daemon/test-metrics.c
daemon_test_metrics_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS)
daemon_test_metrics_LDADD = $(top_builddir)/daemon/libjankd.la $(top_builddir)/io/libjank-io.la \
	$(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) $(JSONC_LIBS) -lm
# The messages between jankd's supervisor and its workers, and their dedup.
daemon_test_worker_proto_SOURCES = daemon/test-worker-proto.c
daemon_test_worker_proto_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS) \
	$(LIBEVENT_CFLAGS)
daemon_test_worker_proto_LDADD = $(top_builddir)/daemon/libjankd.la \
	$(top_builddir)/io/libjank-io.la $(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) \
	$(JSONC_LIBS) $(LIBEVENT_LIBS) -lm

# The daemon's modules that run without a daemon, one test program each.
daemon_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS) $(LIBEVENT_CFLAGS)
daemon_ldadd = $(top_builddir)/daemon/libjankd.la $(top_builddir)/io/libjank-io.la \
	$(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) $(JSONC_LIBS) $(LIBEVENT_LIBS) -lm
daemon_test_binary_opener_SOURCES = daemon/test-binary-opener.c
daemon_test_binary_opener_CFLAGS = $(daemon_cflags)
daemon_test_binary_opener_LDADD = $(daemon_ldadd)
# The supervisor's join of paths across hosts, fed with workers' frames.
daemon_test_crossing_SOURCES = daemon/test-crossing.c
daemon_test_crossing_CFLAGS = $(daemon_cflags)
daemon_test_crossing_LDADD = $(daemon_ldadd)
daemon_test_alerted_SOURCES = daemon/test-alerted.c
daemon_test_alerted_CFLAGS = $(daemon_cflags)
daemon_test_alerted_LDADD = $(daemon_ldadd)
daemon_test_sessiond_probe_SOURCES = daemon/test-sessiond-probe.c
daemon_test_sessiond_probe_CFLAGS = $(daemon_cflags)
daemon_test_sessiond_probe_LDADD = $(daemon_ldadd)
daemon_test_skipped_SOURCES = daemon/test-skipped.c
daemon_test_skipped_CFLAGS = $(daemon_cflags)
daemon_test_skipped_LDADD = $(daemon_ldadd)
daemon_test_clock_SOURCES = daemon/test-clock.c
daemon_test_clock_CFLAGS = $(daemon_cflags)
daemon_test_clock_LDADD = $(daemon_ldadd)
# stderr is a temporary file while the test logs to it.
daemon_test_log_SOURCES = daemon/test-log.c
daemon_test_log_CFLAGS = $(daemon_cflags)
daemon_test_log_LDADD = $(daemon_ldadd)
# The composition history of the web pages: its rounds fed by hand.
daemon_test_input_figures_SOURCES = daemon/test-input-figures.c
daemon_test_input_figures_CFLAGS = $(daemon_cflags)
daemon_test_input_figures_LDADD = $(daemon_ldadd)
# The live input and its engine are fakes: their getters are wrapped.
daemon_test_input_status_SOURCES = daemon/test-input-status.c
daemon_test_input_status_CFLAGS = $(daemon_cflags) $(BABELTRACE2_CFLAGS)
daemon_test_input_status_LDADD = $(daemon_ldadd)
daemon_test_input_status_LDFLAGS = $(AM_LDFLAGS) \
	-Wl,--wrap=jank_live_input_engine,--wrap=jank_live_input_url \
	-Wl,--wrap=jank_live_input_attached,--wrap=jank_live_input_last_error \
	-Wl,--wrap=jank_live_input_get_stats,--wrap=jank_engine_get_stats \
	-Wl,--wrap=jank_live_input_decoder \
	-Wl,--wrap=jank_live_input_symbols,--wrap=jank_symbols_get_stats \
	-Wl,--wrap=jank_engine_rule_count,--wrap=jank_engine_rule \
	-Wl,--wrap=jank_engine_rule_histogram,--wrap=jank_engine_rule_stats \
	-Wl,--wrap=jank_engine_rule_composition
# The fleet's message handlers through fleet-int.h; no worker is spawned.
daemon_test_fleet_SOURCES = daemon/test-fleet.c
daemon_test_fleet_CFLAGS = $(daemon_cflags)
daemon_test_fleet_LDADD = $(daemon_ldadd)
daemon_test_fleet_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=jank_worker_proc_start,--wrap=jank_worker_proc_running \
	-Wl,--wrap=jank_worker_proc_refuse
# status.c (in libjankd) and its pieces of text through status-int.h.
daemon_test_status_SOURCES = daemon/test-status.c
daemon_test_status_CFLAGS = $(daemon_cflags) $(SYSTEMD_CFLAGS) -DJANK_VERSION='"$(PACKAGE_VERSION)"'
daemon_test_status_LDADD = $(daemon_ldadd) $(SYSTEMD_LIBS)
# worker-proc.c through worker-proc-int.h; forked children stand for the workers.
daemon_test_worker_proc_SOURCES = daemon/test-worker-proc.c
daemon_test_worker_proc_CFLAGS = $(daemon_cflags)
daemon_test_worker_proc_LDADD = $(daemon_ldadd)
# The worker's sandbox entered in a forked child (its own user): the memory ceiling.
daemon_test_worker_sandbox_SOURCES = daemon/test-worker-sandbox.c
daemon_test_worker_sandbox_CFLAGS = $(daemon_cflags)
daemon_test_worker_sandbox_LDADD = $(daemon_ldadd)
# The relayd broker: the supervisor's loop here, the worker a forked child.
daemon_test_relayd_broker_SOURCES = daemon/test-relayd-broker.c
daemon_test_relayd_broker_CFLAGS = $(daemon_cflags)
daemon_test_relayd_broker_LDADD = $(daemon_ldadd)
# A datagram socket in a temporary directory stands for journald.
daemon_test_journal_SOURCES = daemon/test-journal.c
daemon_test_journal_CFLAGS = $(daemon_cflags)
daemon_test_journal_LDADD = $(daemon_ldadd)
# No relayd: URL validation, and a port where nothing listens.
daemon_test_relayd_SOURCES = daemon/test-relayd.c
daemon_test_relayd_CFLAGS = $(daemon_cflags)
daemon_test_relayd_LDADD = $(daemon_ldadd)
# The capture session over a fake lttng-ctl (its ops table), a real capture policy in a
# temporary directory.
daemon_test_capture_session_SOURCES = daemon/test-capture-session.c
daemon_test_capture_session_CFLAGS = $(daemon_cflags)
daemon_test_capture_session_LDADD = $(daemon_ldadd)
