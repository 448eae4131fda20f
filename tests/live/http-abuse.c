/* SPDX-License-Identifier: MIT */
/*
 * Bad HTTP clients for test-metrics.sh and test-web.sh, against a loopback port:
 *
 *   http-abuse slowloris PORT CONNS SECONDS
 *       keep CONNS connections that send a request's headers one byte a
 *       second, reconnecting each one the server closes; print how many
 *       connections were made and the longest one the server kept.
 *   http-abuse oversized PORT BYTES SECONDS
 *       send requests with a header of BYTES bytes, one after the other;
 *       print the replies' status codes (0: closed without one).
 *   http-abuse flood PORT CONNS [PATH]
 *       open CONNS connections at once, each asking GET PATH (/metrics); print how
 *       many got 200 and how many were closed without a reply.
 *   http-abuse idle PORT CONNS SECONDS
 *       keep CONNS connections open that send nothing, opening a new one for
 *       each the server closes, as fast as it closes them; print how many
 *       connections were made and how many the server closed.
 *
 * Output: one line of NAME=VALUE pairs. Exit 0, or 2 on a usage error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 1024
#define REPLY_LEN 256

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dial(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The status code of the reply on fd (0: closed without one), reading at most `wait` seconds. */
static int read_status(int fd, double wait)
{
	char buf[REPLY_LEN];
	size_t len = 0;
	double end = now_s() + wait;
	int code = 0;

	while (len < sizeof(buf) - 1 && now_s() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (strchr(buf, '\n'))
			break;
	}
	buf[len] = '\0';
	if (sscanf(buf, "HTTP/1.%*d %d", &code) != 1)
		code = 0;
	return code;
}

static const char request_head[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";

static int slowloris(int port, int conns, int seconds)
{
	int fd[MAX_CONNS];
	double since[MAX_CONNS], end = now_s() + seconds, longest = 0;
	long made = 0, closed = 0;

	for (int i = 0; i < conns; i++) {
		fd[i] = dial(port);
		since[i] = now_s();
		made += fd[i] >= 0;
		if (fd[i] >= 0)
			send_all(fd[i], request_head, sizeof(request_head) - 1);
	}
	while (now_s() < end) {
		sleep(1);
		for (int i = 0; i < conns; i++) {
			char probe;

			/* A byte of a header that never ends; the server may have closed. */
			if (fd[i] >= 0 && send_all(fd[i], "X", 1) == 0 &&
			    recv(fd[i], &probe, 1, MSG_DONTWAIT) != 0)
				continue;
			if (fd[i] >= 0) {
				double lived = now_s() - since[i];

				longest = lived > longest ? lived : longest;
				closed++;
				close(fd[i]);
			}
			fd[i] = dial(port);
			since[i] = now_s();
			made += fd[i] >= 0;
			if (fd[i] >= 0)
				send_all(fd[i], request_head, sizeof(request_head) - 1);
		}
	}
	for (int i = 0; i < conns; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	printf("connections=%ld closed_by_server=%ld longest_s=%.1f\n", made, closed, longest);
	return 0;
}

static int idle(int port, int conns, int seconds)
{
	int fd[MAX_CONNS];
	double end = now_s() + seconds;
	long made = 0, closed = 0;

	for (int i = 0; i < conns; i++) {
		fd[i] = dial(port);
		made += fd[i] >= 0;
	}
	while (now_s() < end) {
		struct pollfd p[MAX_CONNS];

		for (int i = 0; i < conns; i++)
			p[i] = (struct pollfd){ .fd = fd[i], .events = POLLIN };
		if (poll(p, (nfds_t)conns, 100) <= 0)
			continue;
		for (int i = 0; i < conns; i++) {
			char probe;

			/* Readable: the server closed it (it never answers an empty request). */
			if (fd[i] >= 0 && !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (fd[i] >= 0 && recv(fd[i], &probe, 1, MSG_DONTWAIT) > 0)
				continue;
			if (fd[i] >= 0) {
				closed++;
				close(fd[i]);
			}
			fd[i] = dial(port);
			made += fd[i] >= 0;
		}
	}
	for (int i = 0; i < conns; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	printf("connections=%ld closed_by_server=%ld\n", made, closed);
	return 0;
}

static int oversized(int port, long bytes, int seconds)
{
	char *big = malloc((size_t)bytes);
	double end = now_s() + seconds;
	long sent = 0, refused = 0, ok = 0;

	if (!big)
		return 1;
	memset(big, 'a', (size_t)bytes);
	while (now_s() < end) {
		int fd = dial(port), code;

		if (fd < 0) {
			usleep(10000);
			continue;
		}
		send_all(fd, request_head, sizeof(request_head) - 1);
		send_all(fd, "X-Big: ", 7);
		send_all(fd, big, (size_t)bytes); /* may fail: the server stopped reading */
		send_all(fd, "\r\n\r\n", 4);
		code = read_status(fd, 5);
		sent++;
		ok += code == 200;
		refused += code != 200;
		close(fd);
	}
	free(big);
	printf("requests=%ld refused=%ld ok=%ld\n", sent, refused, ok);
	return 0;
}

static int flood(int port, int conns, const char *path)
{
	char req[512];
	int fd[MAX_CONNS], ok = 0, refused = 0, other = 0;
	int len = snprintf(req, sizeof(req),
			   "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);

	if (len < 0 || (size_t)len >= sizeof(req))
		return 2;

	for (int i = 0; i < conns; i++)
		fd[i] = dial(port);
	for (int i = 0; i < conns; i++)
		if (fd[i] >= 0)
			send_all(fd[i], req, (size_t)len);
	for (int i = 0; i < conns; i++) {
		int code = fd[i] >= 0 ? read_status(fd[i], 10) : 0;

		ok += code == 200;
		refused += code == 0;
		other += code != 0 && code != 200;
		if (fd[i] >= 0)
			close(fd[i]);
	}
	printf("connections=%d ok=%d refused=%d other=%d\n", conns, ok, refused, other);
	return 0;
}

int main(int argc, char **argv)
{
	int port = argc > 2 ? atoi(argv[2]) : 0;
	long n = argc > 3 ? atol(argv[3]) : 0;
	int seconds = argc > 4 ? atoi(argv[4]) : 0;

	signal(SIGPIPE, SIG_IGN);
	if (argc == 5 && !strcmp(argv[1], "slowloris") && n > 0 && n <= MAX_CONNS)
		return slowloris(port, (int)n, seconds);
	if (argc == 5 && !strcmp(argv[1], "oversized") && n > 0)
		return oversized(port, n, seconds);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "flood") && n > 0 && n <= MAX_CONNS)
		return flood(port, (int)n, argc == 5 ? argv[4] : "/metrics");
	if (argc == 5 && !strcmp(argv[1], "idle") && n > 0 && n <= MAX_CONNS)
		return idle(port, (int)n, seconds);
	fprintf(stderr, "usage: http-abuse slowloris PORT CONNS SECONDS | oversized PORT BYTES "
			"SECONDS | flood PORT CONNS [PATH] | idle PORT CONNS SECONDS\n");
	return 2;
}
