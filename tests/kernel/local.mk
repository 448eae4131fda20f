# tests/kernel: critical paths on real kernel data. ktrace-record.sh records
# kwork's workloads with ftrace (root, tracefs), ktrace-conv turns the raw
# pages into jank-gen scripts of an lttng-modules 2.13 trace, and
# test-kernel.sh checks what jankctl says each action waited for, and the
# user stacks of the recorded events (the callstack_user context), as jank
# names them from the lttng-ust statedump ktrace-conv makes of the saved map.
# kwork keeps frame pointers, which the kernel's user stack walk follows;
# kwork-nofp is the same program without them.
check_PROGRAMS += kernel/kwork kernel/kwork-nofp kernel/ktrace-conv
kernel_kwork_SOURCES = kernel/kwork.c
kernel_kwork_CFLAGS = $(AM_CFLAGS) -pthread -fno-omit-frame-pointer
kernel_kwork_LDFLAGS = $(AM_LDFLAGS) -pthread
kernel_kwork_nofp_SOURCES = kernel/kwork.c
kernel_kwork_nofp_CFLAGS = $(AM_CFLAGS) -pthread -fomit-frame-pointer
kernel_kwork_nofp_LDFLAGS = $(AM_LDFLAGS) -pthread
kernel_ktrace_conv_SOURCES = kernel/ktrace-conv.c
TESTS += kernel/test-kernel.sh
EXTRA_DIST += kernel/test-kernel.sh kernel/ktrace-record.sh kernel/README
