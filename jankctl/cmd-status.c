/* SPDX-License-Identifier: MIT */
/*
 * jankctl status: the client of jankd's control socket. It sends one
 * request ("status", "status json", ...), reads the reply to the end and
 * prints it as jankd wrote it; jankd renders every format itself
 * (daemon/status.c, daemon/http/metrics.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "exit-status.h"
#include "jankctl.h"

#define STATUS_SOCKET	 "/run/jankd/control"
#define STATUS_TIMEOUT_S 10

static const char usage_status[] =
	"Usage: jankctl status [--socket PATH] [--format text|json|openmetrics|prometheus]\n"
	"Ask the running jankd for its figures: per-rule counts and latency percentiles,\n"
	"recent janks, events/s, graph memory, GC and drop counters, inputs and their state.\n"
	"openmetrics and prometheus print its metrics as its [metrics] endpoint serves them\n"
	"(node_exporter's textfile collector reads the prometheus format).\n"
	"\n"
	"  -s, --socket PATH     jankd's control socket (default " STATUS_SOCKET ")\n"
	"  -f, --format FORMAT   text (default), json, openmetrics or prometheus\n"
	"  -h, --help            show this help\n";

/* Connect to jankd's control socket. Returns the fd, or -1 (message printed). */
static int status_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { STATUS_TIMEOUT_S, 0 };
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errorf("status: socket path too long: %s", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		errorf("status: cannot create a socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	err = errno;
	close(fd);
	if (err == ENOENT || err == ECONNREFUSED)
		errorf("cannot connect to %s: %s (is jankd running?)", path, strerror(err));
	else if (err == EACCES || err == EPERM)
		errorf("cannot connect to %s: %s (jankd's control socket is for root and the "
		       "group jank)",
		       path, strerror(err));
	else
		errorf("cannot connect to %s: %s", path, strerror(err));
	return -1;
}

int cmd_status(int argc, char **argv)
{
	static const char *const status_requests[] = {
		[FORMAT_TEXT] = "status\n",
		[FORMAT_JSON] = "status json\n",
		[FORMAT_OPENMETRICS] = "status openmetrics\n",
		[FORMAT_PROMETHEUS] = "status prometheus\n",
	};
	struct options o = { .socket = STATUS_SOCKET };
	const char *path, *req;
	char *reply = NULL;
	size_t len = 0, cap = 0;
	int fd, r;

	r = parse_options(argc, argv, "status", "sfh", usage_status, &o);
	if (r)
		return r == 1 ? 0 : r;
	if (no_arguments("status", &o))
		return JANK_EXIT_USAGE;
	path = o.socket;
	req = status_requests[o.format];
	r = JANK_EXIT_FAILURE; /* jankd cannot be reached, or did not answer */
	fd = status_connect(path);
	if (fd < 0)
		return JANK_EXIT_FAILURE;
	/* A refusal may come before the request is read: still read the reply then. */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req) && errno != EPIPE &&
	    errno != ECONNRESET) {
		errorf("cannot send to %s: %s", path, strerror(errno));
		goto end;
	}
	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > cap) {
			char *b = realloc(reply, cap = cap ? cap * 2 : 8192);

			if (!b) {
				errorf("out of memory");
				goto end;
			}
			reply = b;
		}
		n = read(fd, reply + len, cap - len - 1);
		if (n == 0 || (n < 0 && errno == ECONNRESET && len > 0))
			break;
		if (n < 0) {
			errorf("no answer from jankd on %s: %s", path,
			       errno == EAGAIN ? "timed out" : strerror(errno));
			goto end;
		}
		len += (size_t)n;
	}
	/* The loop always allocates before it reads: reply is not NULL here. */
	reply[len] = '\0';
	if (len == 0) {
		errorf("jankd closed %s without an answer", path);
		goto end;
	}
	if (!strncmp(reply, "error: ", 7)) {
		reply[strcspn(reply, "\n")] = '\0';
		errorf("jankd: %s", reply + 7);
		goto end;
	}
	fputs(reply, stdout);
	r = finish_output();
end:
	free(reply);
	close(fd);
	return r;
}
