# Unit tests for lib/: synthetic event sequences, no files, no daemons.
unit_ldadd = $(top_builddir)/lib/libjank.la $(CMOCKA_LIBS) -lm
unit_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANK_SAN_CFLAGS)
unit_ldflags = $(JANK_SAN_LDFLAGS)

unit_tests = \
	unit/test-critpath \
	unit/test-gc \
	unit/test-actions \
	unit/test-lib \
	unit/test-locks \
	unit/test-abuse
check_PROGRAMS += $(unit_tests)
TESTS += $(unit_tests)

unit_test_critpath_SOURCES = unit/test-critpath.c unit/scenario.c unit/scenario.h
unit_test_critpath_CFLAGS = $(unit_cflags)
unit_test_critpath_LDFLAGS = $(unit_ldflags)
unit_test_critpath_LDADD = $(unit_ldadd)

unit_test_gc_SOURCES = unit/test-gc.c unit/scenario.c unit/scenario.h unit/workload.c unit/workload.h
unit_test_gc_CFLAGS = $(unit_cflags)
unit_test_gc_LDFLAGS = $(unit_ldflags)
unit_test_gc_LDADD = $(unit_ldadd)

unit_test_actions_SOURCES = unit/test-actions.c unit/scenario.c unit/scenario.h
unit_test_actions_CFLAGS = $(unit_cflags)
unit_test_actions_LDFLAGS = $(unit_ldflags)
unit_test_actions_LDADD = $(unit_ldadd)

unit_test_lib_SOURCES = unit/test-lib.c
unit_test_lib_CFLAGS = $(unit_cflags)
unit_test_lib_LDFLAGS = $(unit_ldflags)
unit_test_lib_LDADD = $(unit_ldadd)

unit_test_locks_SOURCES = unit/test-locks.c unit/scenario.c unit/scenario.h
unit_test_locks_CFLAGS = $(unit_cflags)
unit_test_locks_LDFLAGS = $(unit_ldflags)
unit_test_locks_LDADD = $(unit_ldadd)

unit_test_abuse_SOURCES = unit/test-abuse.c unit/scenario.c unit/scenario.h
unit_test_abuse_CFLAGS = $(unit_cflags)
unit_test_abuse_LDFLAGS = $(unit_ldflags)
unit_test_abuse_LDADD = $(unit_ldadd)
