# Unit tests for lib/: synthetic event sequences, no files, no daemons.
lib_ldadd = $(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) -lm
lib_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANK_SAN_CFLAGS)
lib_ldflags = $(JANK_SAN_LDFLAGS)

lib_tests = \
	lib/test-critpath \
	lib/test-gc \
	lib/test-actions \
	lib/test-lib \
	lib/test-locks \
	lib/test-abuse
check_PROGRAMS += $(lib_tests)
TESTS += $(lib_tests)

lib_test_critpath_SOURCES = lib/test-critpath.c lib/scenario.c lib/scenario.h
lib_test_critpath_CFLAGS = $(lib_cflags)
lib_test_critpath_LDFLAGS = $(lib_ldflags)
lib_test_critpath_LDADD = $(lib_ldadd)

lib_test_gc_SOURCES = lib/test-gc.c lib/scenario.c lib/scenario.h lib/workload.c lib/workload.h
lib_test_gc_CFLAGS = $(lib_cflags)
lib_test_gc_LDFLAGS = $(lib_ldflags)
lib_test_gc_LDADD = $(lib_ldadd)

lib_test_actions_SOURCES = lib/test-actions.c lib/scenario.c lib/scenario.h
lib_test_actions_CFLAGS = $(lib_cflags)
lib_test_actions_LDFLAGS = $(lib_ldflags)
lib_test_actions_LDADD = $(lib_ldadd)

lib_test_lib_SOURCES = lib/test-lib.c
lib_test_lib_CFLAGS = $(lib_cflags)
lib_test_lib_LDFLAGS = $(lib_ldflags)
lib_test_lib_LDADD = $(lib_ldadd)

lib_test_locks_SOURCES = lib/test-locks.c lib/scenario.c lib/scenario.h
lib_test_locks_CFLAGS = $(lib_cflags)
lib_test_locks_LDFLAGS = $(lib_ldflags)
lib_test_locks_LDADD = $(lib_ldadd)

lib_test_abuse_SOURCES = lib/test-abuse.c lib/scenario.c lib/scenario.h
lib_test_abuse_CFLAGS = $(lib_cflags)
lib_test_abuse_LDFLAGS = $(lib_ldflags)
lib_test_abuse_LDADD = $(lib_ldadd)
