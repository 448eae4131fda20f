# tests/io: the modules of io/ on their own (tmp directories, injected statfs).
io_ldadd = $(top_builddir)/io/libjank-io.la $(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) \
	$(JSONC_LIBS) -lm
io_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS)

io_tests = io/test-capture-policy
check_PROGRAMS += $(io_tests)
TESTS += $(io_tests)

io_test_capture_policy_SOURCES = io/test-capture-policy.c
io_test_capture_policy_CFLAGS = $(io_cflags)
io_test_capture_policy_LDADD = $(io_ldadd)
