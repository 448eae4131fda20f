# tests/gen: jank-gen writes CTF fixtures from event scripts (babeltrace2 API)
noinst_PROGRAMS += gen/jank-gen
gen_jank_gen_SOURCES = gen/jank-gen.c
gen_jank_gen_CFLAGS = $(AM_CFLAGS) $(BABELTRACE2_CFLAGS)
gen_jank_gen_LDADD = $(BABELTRACE2_LIBS)
TESTS += gen/test-gen.sh
EXTRA_DIST += gen/test-gen.sh
