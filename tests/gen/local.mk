# tests/gen: jank-gen writes CTF fixtures from event scripts (babeltrace2 API)
noinst_PROGRAMS += gen/jank-gen
gen_jank_gen_SOURCES = gen/jank-gen.c
gen_jank_gen_CFLAGS = $(AM_CFLAGS) $(BABELTRACE2_CFLAGS)
gen_jank_gen_LDADD = $(BABELTRACE2_LIBS)
TESTS += gen/test-gen.sh
EXTRA_DIST += gen/test-gen.sh
# jank-causes: scripts of a workload whose slow actions have known causes
# (trace/test-suspects.sh checks that jank names them).
noinst_PROGRAMS += gen/jank-causes
gen_jank_causes_SOURCES = gen/jank-causes.c
# jank-netgen: kernel traces in lttng-modules' own layout, with the IP and
# TCP headers of net_dev_queue and net_if_receive_skb (trace/test-netmatch.sh)
noinst_PROGRAMS += gen/jank-netgen
gen_jank_netgen_SOURCES = gen/jank-netgen.c
