/* SPDX-License-Identifier: MIT */
/*
 * notify-recv SOCKET: bind a unix datagram socket at SOCKET, as systemd does
 * for NOTIFY_SOCKET, and print each sd_notify message received: a line
 * "-- MS pid=PID" (MS: monotonic milliseconds; PID: the sender's, from
 * SCM_CREDENTIALS), then the message's lines. Runs until SIGTERM or SIGINT.
 */
#define _GNU_SOURCE /* struct ucred */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sigaction act = { .sa_handler = on_signal };
	char buf[4096 + 1];
	int fd, one = 1;

	if (argc != 2 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify-recv SOCKET\n");
		return 2;
	}
	memcpy(sa.sun_path, argv[1], strlen(argv[1]) + 1);
	sigaction(SIGTERM, &act, NULL); /* no SA_RESTART: recvmsg returns EINTR */
	sigaction(SIGINT, &act, NULL);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "notify-recv: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (!stop) {
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(struct ucred))];
		} control;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) - 1 };
		struct msghdr msg = { .msg_iov = &iov,
				      .msg_iovlen = 1,
				      .msg_control = &control,
				      .msg_controllen = sizeof(control) };
		struct cmsghdr *c;
		struct timespec ts;
		long pid = -1;
		ssize_t n = recvmsg(fd, &msg, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "notify-recv: %s\n", strerror(errno));
			break;
		}
		buf[n] = '\0';
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
				struct ucred u;

				memcpy(&u, CMSG_DATA(c), sizeof(u));
				pid = (long)u.pid;
			}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("-- %lld pid=%ld\n%s%s", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
		       pid, buf, n > 0 && buf[n - 1] == '\n' ? "" : "\n");
	}
	close(fd);
	unlink(argv[1]);
	return 0;
}
