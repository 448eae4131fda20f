/* SPDX-License-Identifier: MIT */
/*
 * daemon/worker-sandbox.c: the memory ceiling a worker gives itself before
 * its seccomp filter, in a forked child that enters the whole sandbox (of
 * its own user: no change of user) and then tries to allocate past it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "worker-sandbox.h"

static void memory_max_parsed(void **state)
{
	uint64_t v;

	(void)state;
	unsetenv("JANK_WORKER_MEMORY_MAX");
	assert_int_equal(jank_worker_memory_max(&v), 0);
	assert_int_equal(v, JANK_WORKER_MEMORY_MAX);
	setenv("JANK_WORKER_MEMORY_MAX", "64M", 1);
	assert_int_equal(jank_worker_memory_max(&v), 0);
	assert_int_equal(v, 64ull << 20);
	setenv("JANK_WORKER_MEMORY_MAX", "33554432", 1);
	assert_int_equal(jank_worker_memory_max(&v), 0);
	assert_int_equal(v, 32ull << 20);
	setenv("JANK_WORKER_MEMORY_MAX", "1M", 1); /* below 16 MiB */
	assert_int_equal(jank_worker_memory_max(&v), -EINVAL);
	setenv("JANK_WORKER_MEMORY_MAX", "64G", 1);
	assert_int_equal(jank_worker_memory_max(&v), -EINVAL);
	setenv("JANK_WORKER_MEMORY_MAX", "", 1);
	assert_int_equal(jank_worker_memory_max(&v), -EINVAL);
	unsetenv("JANK_WORKER_MEMORY_MAX");
}

/* In the sandbox: exit 0 when the ceiling holds, else the number of the check that failed. */
static int child(void)
{
	struct jank_worker_user u = { .same = true };
	struct rlimit as, data;
	char err[256];
	char *small, *big;

	if (jank_worker_sandbox_enter(&u, err, sizeof(err)) < 0)
		return 10;
	if (getrlimit(RLIMIT_AS, &as) < 0 || getrlimit(RLIMIT_DATA, &data) < 0)
		return 11;
	if (as.rlim_cur != 64ull << 20 || as.rlim_max != 64ull << 20 ||
	    data.rlim_cur != 64ull << 20 || data.rlim_max != 64ull << 20)
		return 12;
	small = malloc(1 << 20);
	if (!small)
		return 13;
	big = malloc(128u << 20); /* past the ceiling: refused, not the host's memory */
	if (big)
		return 14;
	free(small);
	return 0;
}

static void __attribute__((unused)) memory_ceiling(void **state)
{
	int st;
	pid_t pid;

	(void)state;
	setenv("JANK_WORKER_MEMORY_MAX", "64M", 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child());
	unsetenv("JANK_WORKER_MEMORY_MAX");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A bad ceiling is no ceiling: the worker does not start. */
static void memory_ceiling_bad(void **state)
{
	int st;
	pid_t pid;

	(void)state;
	setenv("JANK_WORKER_MEMORY_MAX", "lots", 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child());
	unsetenv("JANK_WORKER_MEMORY_MAX");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(memory_max_parsed),
#ifndef __SANITIZE_ADDRESS__ /* it reserves terabytes of address space: no RLIMIT_AS fits */
		cmocka_unit_test(memory_ceiling),
#endif
		cmocka_unit_test(memory_ceiling_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
