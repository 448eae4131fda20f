/* SPDX-License-Identifier: MIT */
/*
 * daemon/worker-sandbox.c: the memory ceiling a worker gives itself before
 * its seccomp filter, in a forked child that enters the whole sandbox (of
 * its own user: no change of user) and then tries to allocate past it; and
 * that it can make no socket: socket() for the Internet families, connect()
 * and bind() (on a socket it was given) and socketpair() kill it (SIGSYS),
 * socket(AF_UNIX) is refused (EACCES) and the given socket still works.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
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

enum net_try {
	TRY_INET = 1,
	TRY_INET6,
	TRY_CONNECT,
	TRY_BIND,
	TRY_PAIR,
	TRY_UNIX
};

/*
 * In the sandbox, with `given` (a socket it got before, as a worker gets
 * its channels): the call. Returns 0 when it was refused and `given` still
 * works; a number when the call went through (it should have killed).
 */
static int net_child(enum net_try what, int given)
{
	struct jank_worker_user u = { .same = true };
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(5344),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	char err[256];
	int sv[2], fd;

	if (jank_worker_sandbox_enter(&u, err, sizeof(err)) < 0)
		return 10;
	switch (what) {
	case TRY_INET:
		return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 11 : 12;
	case TRY_INET6:
		return socket(AF_INET6, SOCK_DGRAM, 0) >= 0 ? 11 : 12;
	case TRY_CONNECT:
		return connect(given, (struct sockaddr *)&in, sizeof(in)) == 0 ? 11 : 12;
	case TRY_BIND:
		return bind(given, (struct sockaddr *)&un, sizeof(sa_family_t)) == 0 ? 11 : 12;
	case TRY_PAIR:
		return socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 ? 11 : 12;
	case TRY_UNIX:
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd >= 0 || errno != EACCES)
			return 13;
		return send(given, "x", 1, MSG_NOSIGNAL) == 1 ? 0 : 14;
	}
	return 15;
}

/* The wait status of a sandboxed child that tried `what`. */
static int net_try(enum net_try what)
{
	int sv[2], st;
	char c;
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(net_child(what, sv[1]));
	close(sv[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (what == TRY_UNIX)
		assert_int_equal(recv(sv[0], &c, 1, MSG_DONTWAIT), 1);
	close(sv[0]);
	return st;
}

static void killed_by_filter(enum net_try what)
{
	int st = net_try(what);

	if (!WIFSIGNALED(st))
		fail_msg("try %d: exited %d, not killed", (int)what, WEXITSTATUS(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

static void __attribute__((unused)) no_inet_socket(void **state)
{
	(void)state;
	killed_by_filter(TRY_INET);
	killed_by_filter(TRY_INET6);
}

static void __attribute__((unused)) no_connect_bind_pair(void **state)
{
	(void)state;
	killed_by_filter(TRY_CONNECT);
	killed_by_filter(TRY_BIND);
	killed_by_filter(TRY_PAIR);
}

static void __attribute__((unused)) unix_socket_refused(void **state)
{
	int st;

	(void)state;
	st = net_try(TRY_UNIX);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(memory_max_parsed),
#ifndef __SANITIZE_ADDRESS__ /* it reserves terabytes of address space: no RLIMIT_AS fits */
		cmocka_unit_test(memory_ceiling),
#endif
		cmocka_unit_test(memory_ceiling_bad),
#ifndef __SANITIZE_ADDRESS__ /* the sandbox's RLIMIT_AS leaves its shadow no room */
		cmocka_unit_test(no_inet_socket),      cmocka_unit_test(no_connect_bind_pair),
		cmocka_unit_test(unix_socket_refused),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
