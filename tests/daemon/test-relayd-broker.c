/* SPDX-License-Identifier: MIT */
/*
 * daemon/relayd-broker.c: the supervisor's side on a libevent loop here,
 * the worker's in a forked child with its channel on JANK_RELAYD_FD, as
 * lttng-live calls it: gethostbyname(), socket() and connect() (this
 * program's, which are the broker's), to an address the broker does not
 * use. The child gets a socket connected to the URL's relayd (a loopback
 * listener of the test's own), connects again after closing it (a
 * reconnection asks again), and gets ECONNREFUSED where nothing listens.
 * Without a channel, socket() makes a socket.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <event2/event.h>
#include "relayd-broker.h"

static void url_parsed(void **state)
{
	char host[64];
	unsigned port;

	(void)state;
	assert_int_equal(jank_relayd_url_addr("net://localhost", host, sizeof(host), &port), 0);
	assert_string_equal(host, "localhost");
	assert_int_equal(port, JANK_RELAYD_PORT);
	assert_int_equal(
		jank_relayd_url_addr("net://127.0.0.1:5399/host/h/s", host, sizeof(host), &port),
		0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 5399);
	assert_int_equal(
		jank_relayd_url_addr("net://[::1]:6000/host/h/s", host, sizeof(host), &port), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(port, 6000);
	assert_int_equal(jank_relayd_url_addr("net://relay/host/h/s", host, sizeof(host), &port),
			 0);
	assert_int_equal(port, JANK_RELAYD_PORT);
	assert_int_equal(jank_relayd_url_addr("tcp://relay", host, sizeof(host), &port), -EINVAL);
	assert_int_equal(jank_relayd_url_addr("net://", host, sizeof(host), &port), -EINVAL);
	assert_int_equal(jank_relayd_url_addr("net://h:0", host, sizeof(host), &port), -EINVAL);
	assert_int_equal(jank_relayd_url_addr("net://h:70000", host, sizeof(host), &port), -EINVAL);
	assert_int_equal(jank_relayd_url_addr("net://h:12x", host, sizeof(host), &port), -EINVAL);
	assert_int_equal(jank_relayd_url_addr("net://[::1", host, sizeof(host), &port), -EINVAL);
}

/* A loopback listener; its port in *port. */
static int listener(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/*
 * What lttng-live does, once: resolve, socket(), connect() to an address
 * the broker does not use; then say "ping" and expect "pong". 0 when the
 * peer is 127.0.0.1:port, else a number; the connect's errno in *e.
 */
static int dial(unsigned port, int *e)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(1) };
	struct sockaddr_in peer;
	socklen_t len = sizeof(peer);
	struct hostent *h = gethostbyname("relayd.invalid"); /* no lookup in a worker */
	char buf[4];
	int fd;

	*e = 0;
	if (!h || h->h_addrtype != AF_INET)
		return 20;
	memcpy(&to.sin_addr, h->h_addr_list[0], sizeof(to.sin_addr));
	to.sin_addr.s_addr = htonl(0x0a010203); /* 10.1.2.3: not where it goes */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 21;
	if (connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		*e = errno;
		close(fd);
		return 22;
	}
	if (getpeername(fd, (struct sockaddr *)&peer, &len) < 0 ||
	    peer.sin_addr.s_addr != htonl(INADDR_LOOPBACK) || ntohs(peer.sin_port) != port)
		return 23;
	if (write(fd, "ping", 4) != 4 || read(fd, buf, 4) != 4 || memcmp(buf, "pong", 4))
		return 24;
	close(fd);
	return 0;
}

/* The worker: twice to the listener (a reconnection), then refused. */
static int child(int chan, unsigned port)
{
	int r, e;

	if (dup2(chan, JANK_RELAYD_FD) < 0)
		return 10;
	jank_relayd_client_init();
	if (!jank_relayd_client_ready())
		return 11;
	r = dial(port, &e);
	if (r == 0)
		r = dial(port, &e);
	return r;
}

/* The supervisor's loop, and relayd's side of each connection, until the child exits. */
static int serve(struct event_base *base, int lfd, pid_t pid)
{
	for (int i = 0; i < 1000; i++) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int st;

		event_base_loop(base, EVLOOP_NONBLOCK);
		if (poll(&p, 1, 10) == 1) {
			int c = accept(lfd, NULL, NULL);
			char buf[4];

			assert_true(c >= 0);
			assert_int_equal(read(c, buf, 4), 4);
			assert_memory_equal(buf, "ping", 4);
			assert_int_equal(write(c, "pong", 4), 4);
			close(c);
		}
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fail_msg("the child did not end");
	return -1;
}

static void connects_and_reconnects(void **state)
{
	struct event_base *base = event_base_new();
	char url[96];
	unsigned port;
	int sv[2], lfd = listener(&port), st;
	struct jank_relayd_conn *c;
	uint64_t passed, failed;
	pid_t pid;

	(void)state;
	snprintf(url, sizeof(url), "net://127.0.0.1:%u/host/h/s", port);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	c = jank_relayd_conn_new(base, sv[0], "test", url);
	assert_non_null(c);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child(sv[1], port));
	close(sv[1]);
	st = serve(base, lfd, pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	jank_relayd_conn_counts(c, &passed, &failed);
	assert_int_equal(passed, 2);
	assert_int_equal(failed, 0);
	jank_relayd_conn_free(c);
	close(lfd);
	event_base_free(base);
}

static int refused_child(int chan, unsigned port)
{
	int e, r;

	if (dup2(chan, JANK_RELAYD_FD) < 0)
		return 10;
	jank_relayd_client_init();
	r = dial(port, &e);
	return r == 22 && e == ECONNREFUSED ? 0 : 30 + r;
}

static void refused(void **state)
{
	struct event_base *base = event_base_new();
	char url[96];
	unsigned port;
	int sv[2], lfd = listener(&port), st;
	struct jank_relayd_conn *c;
	uint64_t passed, failed;
	pid_t pid;

	(void)state;
	close(lfd); /* nothing listens there now */
	lfd = listener(&(unsigned){ 0 });
	snprintf(url, sizeof(url), "net://127.0.0.1:%u", port);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	c = jank_relayd_conn_new(base, sv[0], "test", url);
	assert_non_null(c);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(refused_child(sv[1], port));
	close(sv[1]);
	st = serve(base, lfd, pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	jank_relayd_conn_counts(c, &passed, &failed);
	assert_int_equal(passed, 0);
	assert_int_equal(failed, 1);
	jank_relayd_conn_free(c);
	close(lfd);
	event_base_free(base);
}

/* A request that is not one closes the channel; a URL without a relayd is refused. */
static void bad_request(void **state)
{
	struct event_base *base = event_base_new();
	struct jank_relayd_conn *c;
	int sv[2];
	char buf[16];

	(void)state;
	assert_null(jank_relayd_conn_new(base, dup(0), "test", "/some/dir"));
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	c = jank_relayd_conn_new(base, sv[0], "test", "net://127.0.0.1:1");
	assert_non_null(c);
	assert_int_equal(send(sv[1], "jkrlxxxxyy", 10, 0), 10);
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), 0); /* closed */
	close(sv[1]);
	jank_relayd_conn_free(c);
	event_base_free(base);
}

/* Not a worker: the system's socket(). */
static void no_channel(void **state)
{
	struct stat st;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(url_parsed),  cmocka_unit_test(no_channel),
		cmocka_unit_test(bad_request), cmocka_unit_test(connects_and_reconnects),
		cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
