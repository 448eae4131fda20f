# tests/daemon: the daemon's modules on their own (fake clock, recording sink).
daemon_tests = daemon/test-alert daemon/test-capture
check_PROGRAMS += $(daemon_tests)
TESTS += $(daemon_tests)

daemon_test_alert_SOURCES = daemon/test-alert.c
daemon_test_alert_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS) $(JANK_SAN_CFLAGS)
daemon_test_alert_LDFLAGS = $(JANK_SAN_LDFLAGS)
daemon_test_alert_LDADD = $(top_builddir)/daemon/libjankd-daemon.la \
	$(top_builddir)/daemon/libjankd-common.la $(top_builddir)/lib/libjank.la \
	$(CMOCKA_LIBS) -lm

daemon_test_capture_SOURCES = daemon/test-capture.c
daemon_test_capture_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS) $(JANK_SAN_CFLAGS)
daemon_test_capture_LDFLAGS = $(JANK_SAN_LDFLAGS)
daemon_test_capture_LDADD = $(top_builddir)/daemon/libjankd-common.la \
	$(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) $(JSONC_LIBS) -lm
