/* SPDX-License-Identifier: MIT */
/*
 * daemon/worker/relayd.c: which live sessions a relayd serves. What runs without a
 * relayd: the validation of live URLs (net://HOST[:PORT]/host/HOSTNAME/
 * SESSION), and the answer when nothing listens at the relayd's address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include "relayd.h"

static void not_live_urls(void **state)
{
	static const char *const bad[] = {
		"",
		"net://relay:5344",
		"net://relay:5344/jank",
		"net://relay:5344/host/web-1",	  /* no session */
		"net://relay:5344/hosts/web-1/s", /* not /host/ */
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[256];

		err[0] = '\0';
		assert_int_equal(jank_relayd_has_session(bad[i], err, sizeof(err)), -EINVAL);
		snprintf(want, sizeof(want), "%s: not a live URL", bad[i]);
		assert_string_equal(err, want);
	}
}

/* A relay part longer than the buffer it is copied into is refused, not cut. */
static void long_relay(void **state)
{
	char url[1200], err[64];

	(void)state;
	memset(url, 'a', 1100);
	strcpy(url + 1100, "/host/h/s");
	assert_int_equal(jank_relayd_has_session(url, err, sizeof(err)), -EINVAL);
	/* The message is cut to the buffer, and ends. */
	assert_int_equal(strlen(err), sizeof(err) - 1);
}

/* A TCP port of 127.0.0.1 where nothing listens (bound, then closed). */
static unsigned closed_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static unsigned calls;

static void count(const char *host, const char *session, void *data)
{
	(void)host;
	(void)session;
	(void)data;
	calls++;
}

/*
 * Nothing listens: an error, never a session. (-ENOENT when babeltrace2's
 * ctf plugin is not installed, -ECONNREFUSED when it is.)
 */
static void nobody_listens(void **state)
{
	char relay[64], url[128], err[256] = "";
	int r;

	(void)state;
	snprintf(relay, sizeof(relay), "net://127.0.0.1:%u", closed_port());
	calls = 0;
	r = jank_relayd_list_sessions(relay, count, NULL, err, sizeof(err));
	assert_true(r == -ECONNREFUSED || r == -ENOENT);
	assert_int_equal(calls, 0);
	if (r == -ECONNREFUSED) {
		char want[128];

		snprintf(want, sizeof(want), "%s: relayd does not answer", relay);
		assert_string_equal(err, want);
	} else {
		assert_string_equal(err, "cannot load babeltrace2's lttng-live source");
	}
	snprintf(url, sizeof(url), "%s/host/web-1/jank", relay);
	err[0] = '\0';
	assert_int_equal(jank_relayd_has_session(url, err, sizeof(err)), r);
	assert_true(err[0] != '\0');
}

/* The traced host of a live URL, against this host's name. */
static void url_on_host(void **state)
{
	(void)state;
	assert_true(jank_relayd_url_on_host("net://127.0.0.1/host/web1/s", "web1"));
	assert_true(jank_relayd_url_on_host("net://r:5344/host/web1/host/x", "web1"));
	assert_false(jank_relayd_url_on_host("net://127.0.0.1/host/web10/s", "web1"));
	assert_false(jank_relayd_url_on_host("net://127.0.0.1/host/web/s", "web1"));
	assert_false(jank_relayd_url_on_host("net://127.0.0.1/host/web1", "web1"));
	assert_false(jank_relayd_url_on_host("/var/trace/web1", "web1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(not_live_urls),
		cmocka_unit_test(url_on_host),
		cmocka_unit_test(long_relay),
		cmocka_unit_test(nobody_listens),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
