/* SPDX-License-Identifier: MIT */
/*
 * daemon/fleet/worker-proc.c: the supervisor's side of a worker, without
 * spawning jankd; the test reaches its state and steps, and worker-launch.c's,
 * through worker-proc-int.h and worker-launch-int.h. A forked child that
 * only waits stands for a worker started here, a SOCK_SEQPACKET socketpair
 * for the spawner's connection (the test says what the spawner would), the
 * test says when the worker's socket closed, and the restart timer never
 * fires (the loop is run only for the spawner's messages), so nothing is
 * spawned.
 */
#define _GNU_SOURCE /* strsignal */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "log.h"
#include "worker-launch-int.h"
#include "worker-proc-int.h"
#include "worker-proto.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define S 1000000000LL

struct fixture {
	struct event_base *base;
	struct jank_proc *p;
	unsigned gone;
	unsigned logs;
	int log_priority;
	char log_line[512];
};

static struct json_object *start_msg(struct jank_proc *p, void *data)
{
	(void)p;
	(void)data;
	return jank_worker_proto_new("start");
}

static void message(struct jank_proc *p, struct json_object *msg, void *data)
{
	(void)p;
	(void)msg;
	(void)data;
}

static void gone(struct jank_proc *p, void *data)
{
	struct fixture *x = data;

	assert_ptr_equal(p, x->p);
	x->gone++;
}

static const struct jank_worker_proc_ops ops = { .start_msg = start_msg,
						 .message = message,
						 .gone = gone };

static void log_sink(int priority, const char *line, void *data)
{
	struct fixture *x = data;

	x->logs++;
	x->log_priority = priority;
	snprintf(x->log_line, sizeof(x->log_line), "%s", line);
}

static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));

	if (!x || !(x->base = event_base_new()))
		return -1;
	x->p = jank_worker_proc_new(x->base, "net://r/host/h/s", 10 * S, &ops, x);
	if (!x->p)
		return -1;
	jank_log_set_sink(log_sink, x);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;

	jank_log_set_sink(NULL, NULL);
	jank_worker_proc_free(x->p);
	event_base_free(x->base);
	free(x);
	return 0;
}

static void adopt(struct jank_proc *p, pid_t pid, int conn);

/* A child that waits to be killed stands for the worker. */
static pid_t fake_worker(struct jank_proc *p)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	adopt(p, pid, -1);
	return pid;
}

/* A worker (pid `pid`) of the launch's kind: here (conn -1) or the spawner's on `conn`. */
static void adopt(struct jank_proc *p, pid_t pid, int conn)
{
	struct jank_launch *l = calloc(1, sizeof(*l));

	assert_non_null(l);
	l->pid = pid;
	l->fn = worker_proc_on_ended;
	l->data = p;
	l->conn = conn;
	if (conn >= 0) {
		l->ev = event_new(p->base, conn, EV_READ | EV_PERSIST, worker_launch_on_spawner, l);
		assert_non_null(l->ev);
		assert_int_equal(event_add(l->ev, NULL), 0);
	}
	p->launch = l;
	p->pid = pid;
	p->eof = p->reaped = p->silenced = p->refused = false;
	p->heard_mono = jank_clock_monotonic_ns();
	p->starts++;
}

/* A worker of the spawner: returns the spawner's end of the connection. */
static int spawned_worker(struct jank_proc *p, pid_t pid)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(evutil_make_socket_nonblocking(sv[0]), 0);
	adopt(p, pid, sv[0]);
	return sv[1];
}

/* What the spawner says, then jankd's loop reads it. */
static void spawner_says(struct jank_proc *p, int peer, uint32_t type, int32_t value)
{
	struct jank_spawn_msg m = { .type = type, .value = value };

	assert_int_equal(send(peer, &m, sizeof(m), 0), sizeof(m));
	event_base_loop(p->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
}

/* The next message jankd sent the spawner: its type, or 0 for none. */
static uint32_t spawner_got(int peer)
{
	struct jank_spawn_msg m;
	ssize_t n = recv(peer, &m, sizeof(m), MSG_DONTWAIT);

	return n == sizeof(m) ? m.type : 0;
}

/* Its socket closed (what on_event() sees). */
static void socket_closed(struct jank_proc *p)
{
	p->eof = true;
	worker_proc_maybe_gone(p);
}

/* Wait until jank_worker_proc_reap() has reaped the child (SIGCHLD would call it). */
static void reap(struct jank_proc *p)
{
	for (int i = 0; i < 1000 && p->pid && !p->reaped; i++) {
		jank_worker_proc_reap(p);
		if (!p->reaped)
			usleep(2000);
	}
	assert_true(p->reaped);
}

static void status_texts(void **state)
{
	char b[256];

	(void)state;
	assert_string_equal(worker_proc_status_text(0, b, sizeof(b)), "exited with status 0");
	assert_string_equal(worker_proc_status_text(3 << 8, b, sizeof(b)), "exited with status 3");
	snprintf(b, sizeof(b), "died of signal 9 (%s)", strsignal(9));
	{
		char got[128];

		assert_string_equal(worker_proc_status_text(9, got, sizeof(got)), b);
	}
	snprintf(b, sizeof(b), "died of signal 11 (%s)", strsignal(11));
	{
		char got[128];

		assert_string_equal(worker_proc_status_text(11 | 0x80, got, sizeof(got)),
				    b); /* core dumped */
	}
	/* Stopped: neither exited nor signaled. */
	assert_string_equal(worker_proc_status_text(0x137f, b, sizeof(b)),
			    "ended (wait status 4991)");
	jank_worker_launch_set_spawner("/run/w.sock");
	assert_string_equal(worker_proc_status_text(JANK_LAUNCH_LOST, b, sizeof(b)),
			    "was lost with the connection to the worker spawner (/run/w.sock)");
	jank_worker_launch_set_spawner(NULL);
}

static void fresh(void **state)
{
	struct fixture *x = *state;
	struct jank_worker_proc_stats s;

	assert_string_equal(jank_worker_proc_name(x->p), "net://r/host/h/s");
	assert_false(jank_worker_proc_running(x->p));
	assert_false(jank_worker_proc_done(x->p));
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.pid, 0);
	assert_int_equal(s.starts, 0);
	assert_int_equal(s.crashes, 0);
	assert_int_equal(s.timeouts, 0);
	assert_int_equal(s.silent_ns, 0);
	assert_false(s.failing);
	assert_int_equal(s.last_status, -1);
	/* Without a worker: messages are dropped, and no timeout can strike. */
	jank_worker_proc_send(x->p, jank_worker_proto_new("reload"));
	jank_worker_proc_check(x->p, INT64_MAX);
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.timeouts, 0);
	assert_int_equal(x->logs, 0);
}

/* Back-off: 1 s, doubling up to 30 s; a recovery resets it. */
static void backoff(void **state)
{
	struct fixture *x = *state;
	static const int64_t expect[] = { 2, 4, 8, 16, 30, 30, 30 };

	assert_int_equal(x->p->backoff_ns, 1 * S);
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		worker_proc_start_later(x->p);
		assert_int_equal(x->p->backoff_ns, expect[i] * S);
		assert_true(evtimer_pending(x->p->ev_restart, NULL));
	}
	jank_worker_proc_recovered(x->p, "attached again");
	assert_int_equal(x->p->backoff_ns, 1 * S);
	/* Not failing: nothing to log. */
	assert_int_equal(x->logs, 0);
}

/* A worker that dies: counted, logged once per episode, restarted later. */
static void crash(void **state)
{
	struct fixture *x = *state;
	struct jank_worker_proc_stats s;
	int64_t since;
	pid_t pid = fake_worker(x->p);

	assert_true(jank_worker_proc_running(x->p));
	kill(pid, SIGKILL);
	reap(x->p);
	/* Reaped, but its socket not drained yet: not gone. */
	assert_true(jank_worker_proc_running(x->p));
	assert_false(evtimer_pending(x->p->ev_restart, NULL));
	socket_closed(x->p);
	assert_false(jank_worker_proc_running(x->p));
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.crashes, 1);
	assert_true(s.failing);
	assert_true(WIFSIGNALED(s.last_status) && WTERMSIG(s.last_status) == SIGKILL);
	/* What status shows: the failure, since when the episode began. */
	{
		char want[256];

		snprintf(want, sizeof(want), "worker died of signal 9 (%s)", strsignal(SIGKILL));
		assert_string_equal(s.error, want);
	}
	assert_true(s.failing_since > 0 && s.failing_since <= jank_clock_realtime_ns());
	since = s.failing_since;
	assert_int_equal(x->logs, 1);
	assert_int_equal(x->log_priority, LOG_WARNING);
	{
		char want[512];

		snprintf(want, sizeof(want),
			 "net://r/host/h/s: worker died of signal 9 (%s); restarting it in 1.00 s "
			 "(further failures are counted, not logged, until it works again)",
			 strsignal(SIGKILL));
		assert_string_equal(x->log_line, want);
	}
	assert_true(evtimer_pending(x->p->ev_restart, NULL));
	assert_int_equal(x->p->backoff_ns, 2 * S);
	assert_int_equal(x->gone, 0);

	/* It dies again, the other way round (socket first): counted, not logged. */
	pid = fake_worker(x->p);
	socket_closed(x->p);
	assert_true(jank_worker_proc_running(x->p));
	kill(pid, SIGKILL);
	reap(x->p);
	assert_false(jank_worker_proc_running(x->p));
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.crashes, 2);
	assert_int_equal(s.starts, 2);
	assert_int_equal(x->logs, 1);
	/* The episode goes on: the same since. */
	assert_int_equal(s.failing_since, since);
	assert_int_equal(x->p->backoff_ns, 4 * S);

	/* It works again: logged with the count, the back-off reset. */
	x->p->episode_restarts = 2;
	pid = fake_worker(x->p);
	jank_worker_proc_recovered(x->p, "attached again");
	assert_int_equal(x->logs, 2);
	assert_int_equal(x->log_priority, LOG_NOTICE);
	{
		char want[256];

		snprintf(want, sizeof(want),
			 "net://r/host/h/s: worker pid %ld attached again, after 2 restarts",
			 (long)pid);
		assert_string_equal(x->log_line, want);
	}
	jank_worker_proc_get_stats(x->p, &s);
	assert_false(s.failing);
	assert_string_equal(s.error, "");
	assert_int_equal(s.failing_since, 0);
	assert_int_equal(x->p->backoff_ns, 1 * S);
	/* jank_worker_proc_free() kills and reaps the one still running. */
}

/*
 * A worker whose frame cannot be read is killed, logged each time, counted
 * as a bad frame (not a crash) and started again after the back-off; no
 * frame of it is read after that.
 */
static void refused(void **state)
{
	struct fixture *x = *state;
	struct jank_worker_proc_stats s;
	char want[512];
	pid_t pid = fake_worker(x->p);

	jank_worker_proc_refuse(x->p, "a status that cannot be read (input: not an object)");
	assert_int_equal(x->logs, 1);
	assert_int_equal(x->log_priority, LOG_ERR);
	snprintf(want, sizeof(want),
		 "net://r/host/h/s: worker pid %ld sent a status that cannot be read (input: not "
		 "an object): killed, restarting it in 1.00 s (1 bad frame so far)",
		 (long)pid);
	assert_string_equal(x->log_line, want);
	/* Said once per worker: the next frames of the same one are not read. */
	jank_worker_proc_refuse(x->p, "more");
	assert_int_equal(x->logs, 1);
	reap(x->p);
	assert_true(WIFSIGNALED(x->p->last_status) && WTERMSIG(x->p->last_status) == SIGKILL);
	socket_closed(x->p);
	assert_false(jank_worker_proc_running(x->p));
	assert_true(evtimer_pending(x->p->ev_restart, NULL));
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.bad_frames, 1);
	assert_int_equal(s.crashes, 0);
	assert_true(s.failing);
	assert_int_equal(x->logs, 1);
	/* The next worker does it again: said again, waits longer. */
	pid = fake_worker(x->p);
	jank_worker_proc_refuse(x->p, "a log line that cannot be read");
	assert_int_equal(x->logs, 2);
	snprintf(want, sizeof(want),
		 "net://r/host/h/s: worker pid %ld sent a log line that cannot be read: killed, "
		 "restarting it in 2.00 s (2 bad frames so far)",
		 (long)pid);
	assert_string_equal(x->log_line, want);
	reap(x->p);
	socket_closed(x->p);
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.bad_frames, 2);
	assert_int_equal(s.crashes, 0);
}

/* A worker silent past the timeout is killed, counted as a timeout, not a crash. */
static void silent(void **state)
{
	struct fixture *x = *state;
	struct jank_worker_proc_stats s;
	int64_t heard;

	fake_worker(x->p);
	heard = x->p->heard_mono;
	jank_worker_proc_check(x->p, heard + 10 * S);
	assert_int_equal(x->logs, 0);
	jank_worker_proc_check(x->p, heard + 10 * S + 1);
	assert_true(x->p->silenced);
	assert_int_equal(x->logs, 1);
	{
		char want[512];

		snprintf(want, sizeof(want),
			 "net://r/host/h/s: worker pid %ld silent for 10.0 s (blocked on relayd?): "
			 "killed; restarting it in 1.00 s (further failures are counted, not "
			 "logged, until it works again)",
			 (long)x->p->pid);
		assert_string_equal(x->log_line, want);
	}
	/* Checked again before it is reaped: killed once, counted once. */
	jank_worker_proc_check(x->p, heard + 20 * S);
	reap(x->p);
	socket_closed(x->p);
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.timeouts, 1);
	assert_int_equal(s.crashes, 0);
	assert_int_equal(x->logs, 1);
	assert_true(evtimer_pending(x->p->ev_restart, NULL));
}

/* Stopped: no restart, gone() once the worker is. */
static void stop(void **state)
{
	struct fixture *x = *state;
	struct jank_worker_proc_stats s;
	pid_t pid = fake_worker(x->p);

	jank_worker_proc_stop(x->p);
	assert_false(jank_worker_proc_done(x->p));
	/* Its exit, as asked. */
	kill(pid, SIGTERM);
	reap(x->p);
	socket_closed(x->p);
	assert_true(jank_worker_proc_done(x->p));
	assert_int_equal(x->gone, 1);
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.crashes, 0);
	assert_false(evtimer_pending(x->p->ev_restart, NULL));
	assert_int_equal(x->logs, 0);
}

/* Retired: killed; stopping one with no worker is done at once (no gone()). */
static void retire(void **state)
{
	struct fixture *x = *state;

	fake_worker(x->p);
	jank_worker_proc_retire(x->p);
	reap(x->p);
	assert_true(WIFSIGNALED(x->p->last_status));
	socket_closed(x->p);
	assert_true(jank_worker_proc_done(x->p));
	assert_int_equal(x->gone, 1);
}

static void stop_without_worker(void **state)
{
	struct fixture *x = *state;

	worker_proc_start_later(x->p);
	jank_worker_proc_stop(x->p);
	assert_true(jank_worker_proc_done(x->p));
	assert_false(jank_worker_proc_running(x->p));
	/* The pending restart is cancelled. */
	assert_false(evtimer_pending(x->p->ev_restart, NULL));
	assert_int_equal(x->gone, 0);
}

/*
 * Through the spawner: KILL goes to it, the worker's end comes from its
 * EXITED (a SIGSYS here), and a silent worker is killed the same way.
 */
static void spawner_exit(void **state)
{
	struct fixture *x = *state;
	struct jank_worker_proc_stats s;
	int64_t heard;
	int peer;

	jank_worker_launch_set_spawner("/run/test-workers.sock");
	peer = spawned_worker(x->p, 4242);
	heard = x->p->heard_mono;
	jank_worker_proc_check(x->p, heard + 10 * S + 1);
	assert_int_equal(spawner_got(peer), JANK_SPAWN_KILL);
	assert_int_equal(spawner_got(peer), 0);
	assert_false(x->p->reaped);
	spawner_says(x->p, peer, JANK_SPAWN_EXITED, SIGKILL);
	assert_true(x->p->reaped);
	assert_int_equal(x->p->last_status, SIGKILL);
	socket_closed(x->p);
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.timeouts, 1);
	assert_int_equal(s.crashes, 0);
	assert_false(jank_worker_proc_running(x->p));
	close(peer);

	/* A crash: the status the spawner says, logged as such. */
	jank_worker_proc_recovered(x->p, "attached again");
	peer = spawned_worker(x->p, 4243);
	socket_closed(x->p);
	/* Its socket closed first: gone at its EXITED. */
	assert_true(jank_worker_proc_running(x->p));
	spawner_says(x->p, peer, JANK_SPAWN_EXITED, SIGSYS);
	assert_false(jank_worker_proc_running(x->p));
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.crashes, 1);
	assert_non_null(strstr(x->log_line, "worker was killed by its seccomp filter"));
	close(peer);
	jank_worker_launch_set_spawner(NULL);
}

/*
 * The worker's socket closes, jankd asks the spawner to kill it; meanwhile
 * the spawner reaped it, said EXITED and closed with jankd's KILL unread
 * (the kernel then reports ECONNRESET once, before the EXITED still
 * queued): the status is the one the spawner said, not a lost connection.
 */
static void spawner_exit_crossing_kill(void **state)
{
	struct fixture *x = *state;
	struct jank_spawn_msg m = { .type = JANK_SPAWN_EXITED, .value = SIGSYS };
	int peer;

	jank_worker_launch_set_spawner("/run/test-workers.sock");
	peer = spawned_worker(x->p, 4245);
	jank_worker_launch_kill(x->p->launch); /* what on_event() does at the socket's end */
	assert_int_equal(send(peer, &m, sizeof(m), 0), sizeof(m));
	close(peer); /* the KILL unread */
	socket_closed(x->p);
	event_base_loop(x->p->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	assert_true(x->p->reaped);
	assert_int_equal(x->p->last_status, SIGSYS);
	assert_false(jank_worker_proc_running(x->p));
	assert_non_null(strstr(x->log_line, "worker was killed by its seccomp filter"));
	jank_worker_launch_set_spawner(NULL);
}

/* The spawner's connection ends, or it says what it should not: the worker is lost. */
static void spawner_lost(void **state)
{
	struct fixture *x = *state;
	struct jank_worker_proc_stats s;
	int peer;

	jank_worker_launch_set_spawner("/run/test-workers.sock");
	peer = spawned_worker(x->p, 4244);
	close(peer);
	event_base_loop(x->p->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	assert_true(x->p->reaped);
	assert_int_equal(x->p->last_status, JANK_LAUNCH_LOST);
	socket_closed(x->p);
	jank_worker_proc_get_stats(x->p, &s);
	assert_int_equal(s.crashes, 1);
	assert_string_equal(x->log_line,
			    "net://r/host/h/s: worker was lost with the connection to the worker "
			    "spawner (/run/test-workers.sock); restarting it in 1.00 s (further "
			    "failures are counted, not logged, until it works again)");

	/* A second STARTED is no EXITED: lost too. */
	peer = spawned_worker(x->p, 4245);
	spawner_says(x->p, peer, JANK_SPAWN_STARTED, 4245);
	assert_int_equal(x->p->last_status, JANK_LAUNCH_LOST);
	/* Its worker's socket closes: a KILL to a spawner that is done with it is no use. */
	socket_closed(x->p);
	assert_false(jank_worker_proc_running(x->p));
	close(peer);

	/* Killing when the spawner has gone already: lost at once. */
	peer = spawned_worker(x->p, 4246);
	close(peer);
	jank_worker_proc_retire(x->p);
	assert_true(x->p->reaped);
	assert_int_equal(x->p->last_status, JANK_LAUNCH_LOST);
	socket_closed(x->p);
	assert_true(jank_worker_proc_done(x->p));
	jank_worker_launch_set_spawner(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(status_texts),
		cmocka_unit_test_setup_teardown(fresh, setup, teardown),
		cmocka_unit_test_setup_teardown(backoff, setup, teardown),
		cmocka_unit_test_setup_teardown(crash, setup, teardown),
		cmocka_unit_test_setup_teardown(silent, setup, teardown),
		cmocka_unit_test_setup_teardown(refused, setup, teardown),
		cmocka_unit_test_setup_teardown(stop, setup, teardown),
		cmocka_unit_test_setup_teardown(retire, setup, teardown),
		cmocka_unit_test_setup_teardown(stop_without_worker, setup, teardown),
		cmocka_unit_test_setup_teardown(spawner_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(spawner_exit_crossing_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(spawner_lost, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
