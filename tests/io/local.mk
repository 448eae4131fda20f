# tests/io: the modules of io/ on their own (temporary directories, a fake
# clock and statvfs, configs from strings).
io_ldadd = $(top_builddir)/io/libjank-io.la $(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) \
	$(JSONC_LIBS) -lm
io_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS)

io_tests = \
	io/test-capture-chunks \
	io/test-capture-list \
	io/test-capture-policy \
	io/test-config-file
check_PROGRAMS += $(io_tests)
TESTS += $(io_tests)

io_test_capture_chunks_SOURCES = io/test-capture-chunks.c
io_test_capture_chunks_CFLAGS = $(io_cflags)
io_test_capture_chunks_LDADD = $(io_ldadd)
io_test_capture_list_SOURCES = io/test-capture-list.c
io_test_capture_list_CFLAGS = $(io_cflags)
io_test_capture_list_LDADD = $(io_ldadd)
io_test_capture_policy_SOURCES = io/test-capture-policy.c
io_test_capture_policy_CFLAGS = $(io_cflags)
io_test_capture_policy_LDADD = $(io_ldadd)
io_test_config_file_SOURCES = io/test-config-file.c
io_test_config_file_CFLAGS = $(io_cflags)
io_test_config_file_LDADD = $(io_ldadd)
