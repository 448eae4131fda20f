# tests/io: the modules of io/ on their own (temporary directories, a fake
# clock and statvfs, configs from strings, engine structs built by hand,
# synthetic babeltrace2 sources in memory).
io_ldadd = $(top_builddir)/io/libjank-io.la $(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) \
	$(JSONC_LIBS) -lm
io_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS)

io_tests = \
	io/test-baseline-file \
	io/test-capture-chunks \
	io/test-capture-json \
	io/test-capture-list \
	io/test-capture-policy \
	io/test-compare \
	io/test-config-file \
	io/test-config-schema \
	io/test-ctf-plan \
	io/test-dirtree \
	io/test-errbuf \
	io/test-flame \
	io/test-html \
	io/test-format \
	io/test-json-util \
	io/test-svg \
	io/test-debuginfod \
	io/test-symbols \
	io/test-time-limit \
	io/test-trace-groups \
	io/test-trace-live \
	io/test-trace-native \
	io/test-trace-merge \
	io/test-verdict-json
check_PROGRAMS += $(io_tests)
TESTS += $(io_tests)

io_test_trace_live_SOURCES = io/test-trace-live.c
io_test_trace_live_CFLAGS = $(io_cflags) -pthread
io_test_trace_live_LDADD = $(io_ldadd) -lpthread
io_test_trace_groups_SOURCES = io/test-trace-groups.c
io_test_trace_groups_CFLAGS = $(io_cflags) $(BABELTRACE2_CFLAGS)
io_test_trace_groups_LDADD = $(io_ldadd) $(BABELTRACE2_LIBS)
io_test_ctf_plan_SOURCES = io/test-ctf-plan.c fuzz/ctf-lttng.h
io_test_ctf_plan_CFLAGS = $(io_cflags) -I$(top_srcdir)/tests/fuzz
io_test_ctf_plan_LDADD = $(io_ldadd)
io_test_trace_native_SOURCES = io/test-trace-native.c
io_test_trace_native_CFLAGS = $(io_cflags)
io_test_trace_native_LDADD = $(io_ldadd)
io_test_baseline_file_SOURCES = io/test-baseline-file.c
io_test_baseline_file_CFLAGS = $(io_cflags)
io_test_baseline_file_LDADD = $(io_ldadd)
io_test_capture_chunks_SOURCES = io/test-capture-chunks.c
io_test_capture_chunks_CFLAGS = $(io_cflags)
io_test_capture_chunks_LDADD = $(io_ldadd)
io_test_capture_json_SOURCES = io/test-capture-json.c
io_test_capture_json_CFLAGS = $(io_cflags)
io_test_capture_json_LDADD = $(io_ldadd)
io_test_capture_list_SOURCES = io/test-capture-list.c
io_test_capture_list_CFLAGS = $(io_cflags)
io_test_capture_list_LDADD = $(io_ldadd)
io_test_capture_policy_SOURCES = io/test-capture-policy.c
io_test_capture_policy_CFLAGS = $(io_cflags)
io_test_capture_policy_LDADD = $(io_ldadd)
io_test_compare_SOURCES = io/test-compare.c
io_test_compare_CFLAGS = $(io_cflags)
io_test_compare_LDADD = $(io_ldadd)
io_test_config_file_SOURCES = io/test-config-file.c
io_test_config_file_CFLAGS = $(io_cflags)
io_test_config_file_LDADD = $(io_ldadd)
io_test_config_schema_SOURCES = io/test-config-schema.c
io_test_config_schema_CFLAGS = $(io_cflags)
io_test_config_schema_LDADD = $(io_ldadd)
io_test_dirtree_SOURCES = io/test-dirtree.c
io_test_dirtree_CFLAGS = $(io_cflags)
io_test_dirtree_LDADD = $(io_ldadd)
io_test_errbuf_SOURCES = io/test-errbuf.c
io_test_errbuf_CFLAGS = $(io_cflags)
io_test_errbuf_LDADD = $(io_ldadd)
io_test_flame_SOURCES = io/test-flame.c
io_test_flame_CFLAGS = $(io_cflags)
io_test_flame_LDADD = $(io_ldadd)
io_test_format_SOURCES = io/test-format.c
io_test_format_CFLAGS = $(io_cflags)
io_test_format_LDADD = $(io_ldadd)
io_test_json_util_SOURCES = io/test-json-util.c
io_test_json_util_CFLAGS = $(io_cflags)
io_test_json_util_LDADD = $(io_ldadd)
io_test_html_SOURCES = io/test-html.c
io_test_html_CFLAGS = $(io_cflags)
io_test_html_LDADD = $(io_ldadd)
io_test_svg_SOURCES = io/test-svg.c
io_test_svg_CFLAGS = $(io_cflags)
io_test_svg_LDADD = $(io_ldadd)
io_test_debuginfod_SOURCES = io/test-debuginfod.c
io_test_debuginfod_CFLAGS = $(io_cflags)
io_test_debuginfod_LDADD = $(io_ldadd)
io_test_symbols_SOURCES = io/test-symbols.c
io_test_symbols_CFLAGS = $(io_cflags)
# The 1,000,000-symbol ELF is written with libelf (LIBDW_LIBS: -ldw -lelf).
io_test_symbols_LDADD = $(io_ldadd) $(LIBDW_LIBS)
io_test_time_limit_SOURCES = io/test-time-limit.c
io_test_time_limit_CFLAGS = $(io_cflags)
io_test_time_limit_LDADD = $(io_ldadd)
io_test_verdict_json_SOURCES = io/test-verdict-json.c
io_test_verdict_json_CFLAGS = $(io_cflags)
io_test_verdict_json_LDADD = $(io_ldadd)
io_test_trace_merge_SOURCES = io/test-trace-merge.c
io_test_trace_merge_CFLAGS = $(io_cflags) $(BABELTRACE2_CFLAGS)
io_test_trace_merge_LDADD = $(io_ldadd) $(BABELTRACE2_LIBS)
