/* SPDX-License-Identifier: MIT */
/*
 * rpc-demo: a client and a server that talk over TCP on loopback, for
 * tests/live/test-crosshost.sh, where each runs on a host of its own.
 *
 * The client's requests are actions (jank:action_begin/end "request", id i);
 * it hands each over to the server (jank:flow_from "request", i), sends the
 * id and waits for the answer, which it takes up (jank:flow_to "reply", i).
 * The server takes each request up (jank:flow_to "request", i), works in
 * handle_request → compute_answer (NORMAL_US), or, every SLOW_EVERY-th
 * request, in handle_request → slow_lookup (SLOW_US, spinning), and hands
 * the answer back (jank:flow_from "reply", i). Built with
 * -finstrument-functions: under lttng-ust's cyg-profile library, every call
 * is an event, and the alerts can name the server's code.
 *
 * A server given an UPSTREAM port asks a backend there for each answer, in
 * ask_backend (jank:flow_from "lookup", i; jank:flow_to "found", i): a
 * request slow because of a third host. The backend is a server whose flows
 * are "lookup" and "found". The busy mode is a traced thread that does
 * nothing for anyone: on one host, a decoy with another host's server tid.
 *
 * Usage: rpc-demo server PORT SLOW_EVERY NORMAL_US SLOW_US [UPSTREAM]
 *        rpc-demo backend PORT SLOW_EVERY NORMAL_US SLOW_US
 *        rpc-demo client PORT COUNT INTERVAL_US [FIRST_ID]
 *        rpc-demo busy COUNT INTERVAL_US
 * The server prints "server tid T" once listening, and serves one client;
 * the client prints "request I tid T US" per request, then "done N"; busy
 * prints "busy tid T", then "done N".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "jank/jank.h"

#define NOINLINE __attribute__((noinline))
#define UNTRACED __attribute__((no_instrument_function))

static volatile uint64_t sink;

static UNTRACED uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Busy for us microseconds, calling nothing traced. */
static NOINLINE UNTRACED void spin(long us)
{
	uint64_t end = now_us() + (uint64_t)us;

	while (now_us() < end)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
}

static UNTRACED int full(int fd, void *buf, size_t n, int out)
{
	for (size_t done = 0; done < n;) {
		ssize_t r = out ? write(fd, (char *)buf + done, n - done)
				: read(fd, (char *)buf + done, n - done);

		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

static UNTRACED struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static long normal_us, slow_us;
static const char *take_name = "request", *answer_name = "reply";
static int upstream = -1; /* the backend's connection, or -1 */

static NOINLINE void compute_answer(void)
{
	spin(normal_us);
}

static NOINLINE void slow_lookup(void)
{
	spin(slow_us);
}

/* The answer is the backend's: it has the request's id. */
static NOINLINE int ask_backend(uint64_t id)
{
	uint64_t back;

	jank_flow_from("lookup", id);
	if (full(upstream, &id, sizeof(id), 1) < 0 || full(upstream, &back, sizeof(back), 0) < 0)
		return -1;
	jank_flow_to("found", id);
	return 0;
}

static NOINLINE int handle_request(uint64_t id, long slow_every)
{
	if (upstream >= 0)
		return ask_backend(id);
	if (slow_every > 0 && id % (uint64_t)slow_every == (uint64_t)slow_every - 1)
		slow_lookup();
	else
		compute_answer();
	return 0;
}

static UNTRACED int dial(int port);

static int server(int port, long slow_every, int up_port)
{
	struct sockaddr_in a = loopback(port);
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0), c;
	uint64_t id;

	prctl(PR_SET_NAME, "rpc-server");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1) < 0) {
		perror("rpc-demo server");
		return 1;
	}
	if (up_port > 0 && (upstream = dial(up_port)) < 0) {
		perror("rpc-demo server: its backend");
		return 1;
	}
	printf("server tid %d\n", gettid());
	fflush(stdout);
	c = accept(s, NULL, NULL);
	if (c < 0)
		return 1;
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (full(c, &id, sizeof(id), 0) == 0) {
		jank_flow_to(take_name, id);
		if (handle_request(id, slow_every) < 0)
			break;
		jank_flow_from(answer_name, id);
		if (full(c, &id, sizeof(id), 1) < 0)
			break;
	}
	close(c);
	close(s);
	if (upstream >= 0)
		close(upstream);
	return 0;
}

/* A connection to the server at port, tried for 5 s; -1. */
static UNTRACED int dial(int port)
{
	struct sockaddr_in a = loopback(port);
	int one = 1, s = -1;

	for (int i = 0; i < 100 && s < 0; i++) {
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
			close(s);
			s = -1;
			usleep(50000);
		}
	}
	if (s >= 0)
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return s;
}

static int client(int port, long count, long interval_us, uint64_t first)
{
	int s;

	prctl(PR_SET_NAME, "rpc-client");
	s = dial(port);
	if (s < 0) {
		perror("rpc-demo client");
		return 1;
	}
	for (uint64_t i = first; i < first + (uint64_t)count; i++) {
		uint64_t t = now_us(), back;

		jank_action_begin("request", i);
		jank_flow_from("request", i);
		if (full(s, &i, sizeof(i), 1) < 0 || full(s, &back, sizeof(back), 0) < 0)
			return 1;
		jank_flow_to("reply", i);
		jank_action_end("request", i);
		printf("request %llu tid %d %llu\n", (unsigned long long)i, gettid(),
		       (unsigned long long)(now_us() - t));
		fflush(stdout);
		usleep((useconds_t)interval_us);
	}
	close(s);
	printf("done %ld\n", count);
	return 0;
}

/* A traced thread that works for no one: compute_answer, now and then. */
static int busy(long count, long interval_us)
{
	prctl(PR_SET_NAME, "rpc-busy");
	printf("busy tid %d\n", gettid());
	fflush(stdout);
	for (long i = 0; i < count; i++) {
		jank_flow_from("busy", (uint64_t)i);
		compute_answer();
		usleep((useconds_t)interval_us);
	}
	printf("done %ld\n", count);
	return 0;
}

int main(int argc, char **argv)
{
	bool backend = argc == 6 && !strcmp(argv[1], "backend");

	if (((argc == 6 || argc == 7) && !strcmp(argv[1], "server")) || backend) {
		normal_us = atol(argv[4]);
		slow_us = atol(argv[5]);
		if (backend) {
			take_name = "lookup";
			answer_name = "found";
		}
		return server(atoi(argv[2]), atol(argv[3]), argc == 7 ? atoi(argv[6]) : 0);
	}
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "client"))
		return client(atoi(argv[2]), atol(argv[3]), atol(argv[4]),
			      argc == 6 ? strtoull(argv[5], NULL, 10) : 0);
	if (argc == 4 && !strcmp(argv[1], "busy")) {
		normal_us = 1000;
		return busy(atol(argv[2]), atol(argv[3]));
	}
	fprintf(stderr, "usage: rpc-demo server PORT SLOW_EVERY NORMAL_US SLOW_US [UPSTREAM]\n"
			"       rpc-demo backend PORT SLOW_EVERY NORMAL_US SLOW_US\n"
			"       rpc-demo client PORT COUNT INTERVAL_US [FIRST_ID]\n"
			"       rpc-demo busy COUNT INTERVAL_US\n");
	return 2;
}
