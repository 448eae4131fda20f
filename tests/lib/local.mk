# tests/lib: one test program per module of lib/, on synthetic event
# sequences (no files, no daemons). scenario.c plays a short event script
# through the engine; workload.c makes long random ones.
lib_ldadd = $(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) -lm
lib_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
lib_scenario = lib/scenario.c lib/scenario.h

lib_tests = \
	lib/test-actions \
	lib/test-baseline \
	lib/test-clocksync \
	lib/test-comp-history \
	lib/test-composition \
	lib/test-critpath \
	lib/test-discards \
	lib/test-engine \
	lib/test-engine-abuse \
	lib/test-flows \
	lib/test-functions \
	lib/test-graph \
	lib/test-hashmap \
	lib/test-hostjoin \
	lib/test-histogram \
	lib/test-layout \
	lib/test-locks \
	lib/test-memory \
	lib/test-model \
	lib/test-netmatch \
	lib/test-pidns \
	lib/test-stacks \
	lib/test-state \
	lib/test-strtable \
	lib/test-textsafe \
	lib/test-units
check_PROGRAMS += $(lib_tests)
TESTS += $(lib_tests)

lib_test_actions_SOURCES = lib/test-actions.c $(lib_scenario)
lib_test_actions_CFLAGS = $(lib_cflags)
lib_test_actions_LDADD = $(lib_ldadd)
lib_test_baseline_SOURCES = lib/test-baseline.c
lib_test_baseline_CFLAGS = $(lib_cflags)
lib_test_baseline_LDADD = $(lib_ldadd)
lib_test_clocksync_SOURCES = lib/test-clocksync.c
lib_test_clocksync_CFLAGS = $(lib_cflags)
lib_test_clocksync_LDADD = $(lib_ldadd)
lib_test_hostjoin_SOURCES = lib/test-hostjoin.c
lib_test_hostjoin_CFLAGS = $(lib_cflags)
lib_test_hostjoin_LDADD = $(lib_ldadd)
lib_test_comp_history_SOURCES = lib/test-comp-history.c
lib_test_comp_history_CFLAGS = $(lib_cflags)
lib_test_comp_history_LDADD = $(lib_ldadd)
lib_test_composition_SOURCES = lib/test-composition.c
lib_test_composition_CFLAGS = $(lib_cflags)
lib_test_composition_LDADD = $(lib_ldadd)
lib_test_critpath_SOURCES = lib/test-critpath.c $(lib_scenario)
lib_test_critpath_CFLAGS = $(lib_cflags)
lib_test_critpath_LDADD = $(lib_ldadd)
# Out-of-memory cases: the test's own realloc fails on demand.
lib_test_critpath_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=realloc
lib_test_discards_SOURCES = lib/test-discards.c
lib_test_discards_CFLAGS = $(lib_cflags)
lib_test_discards_LDADD = $(lib_ldadd)
lib_test_functions_SOURCES = lib/test-functions.c $(lib_scenario)
lib_test_stacks_SOURCES = lib/test-stacks.c $(lib_scenario)
lib_test_stacks_CFLAGS = $(lib_cflags)
lib_test_stacks_LDADD = $(lib_ldadd)
lib_test_functions_CFLAGS = $(lib_cflags)
lib_test_functions_LDADD = $(lib_ldadd)
lib_test_engine_SOURCES = lib/test-engine.c $(lib_scenario) lib/workload.c lib/workload.h
lib_test_engine_CFLAGS = $(lib_cflags)
lib_test_engine_LDADD = $(lib_ldadd)
lib_test_engine_abuse_SOURCES = lib/test-engine-abuse.c $(lib_scenario)
lib_test_engine_abuse_CFLAGS = $(lib_cflags)
lib_test_engine_abuse_LDADD = $(lib_ldadd)
lib_test_flows_SOURCES = lib/test-flows.c $(lib_scenario)
lib_test_flows_CFLAGS = $(lib_cflags)
lib_test_flows_LDADD = $(lib_ldadd)
lib_test_graph_SOURCES = lib/test-graph.c
lib_test_graph_CFLAGS = $(lib_cflags)
lib_test_graph_LDADD = $(lib_ldadd)
lib_test_memory_SOURCES = lib/test-memory.c
lib_test_memory_CFLAGS = $(lib_cflags)
lib_test_memory_LDADD = $(lib_ldadd)
lib_test_hashmap_SOURCES = lib/test-hashmap.c
lib_test_hashmap_CFLAGS = $(lib_cflags)
lib_test_hashmap_LDADD = $(lib_ldadd)
lib_test_histogram_SOURCES = lib/test-histogram.c
lib_test_histogram_CFLAGS = $(lib_cflags)
lib_test_histogram_LDADD = $(lib_ldadd)
lib_test_layout_SOURCES = lib/test-layout.c
lib_test_layout_CFLAGS = $(lib_cflags)
lib_test_layout_LDADD = $(lib_ldadd)
lib_test_locks_SOURCES = lib/test-locks.c $(lib_scenario)
lib_test_locks_CFLAGS = $(lib_cflags)
lib_test_locks_LDADD = $(lib_ldadd)
lib_test_model_SOURCES = lib/test-model.c $(lib_scenario)
lib_test_model_CFLAGS = $(lib_cflags)
lib_test_model_LDADD = $(lib_ldadd)
lib_test_state_SOURCES = lib/test-state.c
lib_test_state_CFLAGS = $(lib_cflags)
lib_test_state_LDADD = $(lib_ldadd)
lib_test_strtable_SOURCES = lib/test-strtable.c
lib_test_strtable_CFLAGS = $(lib_cflags)
lib_test_strtable_LDADD = $(lib_ldadd)
lib_test_pidns_SOURCES = lib/test-pidns.c
lib_test_pidns_CFLAGS = $(lib_cflags)
lib_test_pidns_LDADD = $(lib_ldadd)
lib_test_textsafe_SOURCES = lib/test-textsafe.c
lib_test_textsafe_CFLAGS = $(lib_cflags)
lib_test_textsafe_LDADD = $(lib_ldadd)
lib_test_units_SOURCES = lib/test-units.c
lib_test_units_CFLAGS = $(lib_cflags)
lib_test_units_LDADD = $(lib_ldadd)
lib_test_netmatch_SOURCES = lib/test-netmatch.c $(lib_scenario)
lib_test_netmatch_CFLAGS = $(lib_cflags)
lib_test_netmatch_LDADD = $(lib_ldadd)
