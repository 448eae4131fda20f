/* SPDX-License-Identifier: MIT */
/*
 * jank-demo: a small program instrumented with <jank/jank.h>.
 *
 * A worker thread runs --count actions named --name, with ids 0..count-1.
 * Each action does work of one cause (cpu, sleep, lock, io, pipe, pool) for
 * the normal or, every --slow-every-th action, the slow duration. The lock
 * and pipe causes make the worker wait on a helper thread, so that the
 * critical path of a slow action crosses threads. The pool cause hands the
 * work over to a one-thread pool and waits on a condition variable for the
 * reply: the pool's thread, jank-pool, runs the action's task for the normal
 * duration; before a slow action begins, the worker posts the pool other work
 * of the slow duration, which holds the pool when the action's task comes.
 * Each task posted emits jank:flow_from {"pool", key} on the worker and
 * jank:flow_to {"pool", key} on the pool, which runs it as an action named
 * "pool-task" with the key as its id (the action's task: 2 * id, the other
 * work: 2 * id + 1). The README quick start and the live tests use it as a
 * known workload.
 *
 * Output (stdout, one flushed line per completed action, then a summary):
 *   action <id> <name> <cause> <normal|slow> <measured_ns>
 *   done <completed>
 * measured_ns is CLOCK_MONOTONIC from just before jank_action_begin() to just
 * after jank_action_end(); the trace's begin-to-end time lies inside it.
 * With --unfinished, the last action prints
 *   unfinished <id> <name> <cause> <normal|slow>
 * after its work, then the program sleeps --hold and exits without ending it.
 *
 * Before the first action, the worker emits jank:mark {"jank-demo.start",
 * count}.
 *
 * Built with -finstrument-functions: run with
 * LD_PRELOAD=liblttng-ust-cyg-profile.so, its functions' entries and exits
 * are events (lttng_ust_cyg_profile:func_entry/func_exit), so that a path
 * says which function a thread was in (pool_main → sleep_ns on the pool's
 * thread, work_pool on the worker's).
 *
 * Exit status: 0 on success, 1 on a runtime failure, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "jank/jank.h"

/* Out of -finstrument-functions' events. */
#define UNTRACED __attribute__((no_instrument_function))

#define NSEC_PER_SEC  1000000000ULL
#define IO_BLOCK_SIZE 4096
#define IO_BLOCKS     256 /* the temp file cycles over 1 MiB */

enum demo_cause {
	DEMO_CAUSE_CPU,
	DEMO_CAUSE_SLEEP,
	DEMO_CAUSE_LOCK,
	DEMO_CAUSE_IO,
	DEMO_CAUSE_PIPE,
	DEMO_CAUSE_POOL,
};

/* clang-format off */
static const char *const demo_cause_names[] = {
	[DEMO_CAUSE_CPU] = "cpu",
	[DEMO_CAUSE_SLEEP] = "sleep",
	[DEMO_CAUSE_LOCK] = "lock",
	[DEMO_CAUSE_IO] = "io",
	[DEMO_CAUSE_PIPE] = "pipe",
	[DEMO_CAUSE_POOL] = "pool",
};
/* clang-format on */

#define DEMO_NCAUSES (sizeof(demo_cause_names) / sizeof(demo_cause_names[0]))

struct demo_opts {
	const char *name;
	enum demo_cause cause;
	uint64_t count;
	uint64_t slow_every;
	uint64_t normal_ns;
	uint64_t slow_ns;
	uint64_t interval_ns;
	uint64_t hold_ns;
	bool unfinished;
	const char *dir;
};

/* A task of the pool cause: posted by the worker, run by the pool's thread. */
struct pool_task {
	uint64_t key;
	uint64_t ns;
	bool done;
	struct pool_task *next;
};

/*
 * Shared between the worker and the helper thread of the lock and pipe
 * causes. The worker writes helper_ns, then posts `request`; the semaphore
 * orders the two. The pool cause's queue is under pool_lock.
 */
struct demo {
	struct demo_opts opts;
	pthread_t helper;
	bool helper_started;
	bool helper_stop;
	uint64_t helper_ns;
	sem_t request;
	sem_t held;
	pthread_mutex_t lock;
	int pipe_fds[2];
	int io_fd;
	uint64_t io_block;
	pthread_mutex_t pool_lock;
	pthread_cond_t pool_work; /* a task was posted, or stop */
	pthread_cond_t pool_done; /* a task is done */
	struct pool_task *queue, **queue_tail;
	bool pool_stop;
	uint64_t action_id; /* the action running, for the pool cause */
	int status;	    /* the worker's result: 0 or -errno */
};

/* The io cause's temp file, global so that a fatal signal can remove it. */
static char demo_io_path[PATH_MAX];

/* Not traced: the cpu and io causes call it in their loops. */
static UNTRACED uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Sleep until now + ns on CLOCK_MONOTONIC, through signal interruptions. */
static void sleep_ns(uint64_t ns)
{
	uint64_t deadline = now_ns() + ns;
	struct timespec ts = {
		.tv_sec = (time_t)(deadline / NSEC_PER_SEC),
		.tv_nsec = (long)(deadline % NSEC_PER_SEC),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void sem_wait_intr(sem_t *sem)
{
	while (sem_wait(sem) < 0 && errno == EINTR)
		;
}

/* ---- Argument parsing ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: jank-demo [OPTION]...\n"
		"Run instrumented actions (jank:action_begin/jank:action_end) on a worker thread.\n"
		"\n"
		"  --name NAME          action name (default: frame)\n"
		"  --cause CAUSE        what an action waits on: cpu, sleep, lock, io, pipe,\n"
		"                       pool (default: sleep)\n"
		"  --count N            number of actions, ids 0..N-1 (default: 20)\n"
		"  --slow-every K       every K-th action is slow; 0: none (default: 5)\n"
		"  --normal DUR         duration of a normal action (default: 2ms)\n"
		"  --slow DUR           duration of a slow action (default: 50ms)\n"
		"  --interval DUR       idle gap between actions (default: 10ms)\n"
		"  --unfinished         the last action begins and never ends\n"
		"  --hold DUR           with --unfinished, time to wait before exiting (default: "
		"5s)\n"
		"  --dir DIR            directory of the io cause's temp file (default: /tmp)\n"
		"  -h, --help           show this help and exit\n"
		"\n"
		"DUR is an integer with a unit: ns, us, ms or s (e.g. 50ms).\n"
		"Prints 'action <id> <name> <cause> <normal|slow> <measured_ns>' per action,\n"
		"then 'done <completed>'.\n");
}

/* --cause: a name of demo_cause_names. */
static void parse_cause(const char *opt, const char *arg, void *target)
{
	for (size_t i = 0; i < DEMO_NCAUSES; i++) {
		if (strcmp(arg, demo_cause_names[i]) == 0) {
			*(enum demo_cause *)target = (enum demo_cause)i;
			return;
		}
	}
	cli_usage_error("--%s: unknown cause '%s' (expected cpu, sleep, lock, io, pipe or pool)",
			opt, arg);
}

static void parse_args(int argc, char **argv, struct demo_opts *o)
{
	const struct cli_option opts[] = {
		{ "name", CLI_NAME, &o->name, NULL },
		{ "cause", CLI_CUSTOM, &o->cause, parse_cause },
		{ "count", CLI_COUNT, &o->count, NULL },
		{ "slow-every", CLI_COUNT, &o->slow_every, NULL },
		{ "normal", CLI_DURATION, &o->normal_ns, NULL },
		{ "slow", CLI_DURATION, &o->slow_ns, NULL },
		{ "interval", CLI_DURATION, &o->interval_ns, NULL },
		{ "unfinished", CLI_FLAG, &o->unfinished, NULL },
		{ "hold", CLI_DURATION, &o->hold_ns, NULL },
		{ "dir", CLI_NAME, &o->dir, NULL },
	};

	*o = (struct demo_opts){
		.name = "frame",
		.cause = DEMO_CAUSE_SLEEP,
		.count = 20,
		.slow_every = 5,
		.normal_ns = 2000000,
		.slow_ns = 50000000,
		.interval_ns = 10000000,
		.hold_ns = 5 * NSEC_PER_SEC,
		.dir = "/tmp",
	};
	cli_parse(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), usage);
	if (o->unfinished && o->count == 0)
		cli_usage_error("--unfinished needs --count of at least 1");
}

/* ---- Causes ---- */

static int work_cpu(struct demo *d, uint64_t ns)
{
	uint64_t end = now_ns() + ns;
	volatile uint64_t spin = 0;

	while (now_ns() < end) {
		for (int i = 0; i < 1000; i++)
			spin += (uint64_t)i;
	}
	return 0;
}

static int work_sleep(struct demo *d, uint64_t ns)
{
	sleep_ns(ns);
	return 0;
}

/* Block on d->lock while the helper thread holds it for ns. */
static int work_lock(struct demo *d, uint64_t ns)
{
	int r;

	d->helper_ns = ns;
	sem_post(&d->request);
	sem_wait_intr(&d->held);
	r = pthread_mutex_lock(&d->lock);
	if (r != 0)
		return -r;
	pthread_mutex_unlock(&d->lock);
	return 0;
}

/* Write and fsync() the temp file until ns has passed, at least once. */
static int work_io(struct demo *d, uint64_t ns)
{
	static char block[IO_BLOCK_SIZE];
	uint64_t end = now_ns() + ns;

	do {
		off_t off = (off_t)(d->io_block++ % IO_BLOCKS) * IO_BLOCK_SIZE;

		if (pwrite(d->io_fd, block, sizeof(block), off) < 0)
			return -errno;
		if (fsync(d->io_fd) < 0)
			return -errno;
	} while (now_ns() < end);
	return 0;
}

/* Block in read() until the helper thread writes to the pipe after ns. */
static int work_pipe(struct demo *d, uint64_t ns)
{
	char c;
	ssize_t n;

	d->helper_ns = ns;
	sem_post(&d->request);
	do
		n = read(d->pipe_fds[0], &c, 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == 1 ? 0 : -EPIPE;
}

/* Queue a task for the pool (its lock held) and wake the pool. */
static void pool_post(struct demo *d, struct pool_task *t)
{
	jank_flow_from("pool", t->key);
	t->next = NULL;
	*d->queue_tail = t;
	d->queue_tail = &t->next;
	pthread_cond_signal(&d->pool_work);
}

/*
 * Hand the action's task over to the pool and wait for its reply. A slow
 * action finds the pool busy with the other work posted before it began
 * (work_pool_before()).
 */
static int work_pool(struct demo *d, uint64_t ns)
{
	struct pool_task t = { .ns = d->opts.normal_ns };
	uint64_t id = d->action_id;
	int r;

	(void)ns;
	t.key = 2 * id;
	r = pthread_mutex_lock(&d->pool_lock);
	if (r != 0)
		return -r;
	pool_post(d, &t);
	while (!t.done)
		pthread_cond_wait(&d->pool_done, &d->pool_lock);
	pthread_mutex_unlock(&d->pool_lock);
	return 0;
}

/* Before a slow action of the pool cause: other work for the pool, of the slow duration. */
static int work_pool_before(struct demo *d, uint64_t id)
{
	struct pool_task *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	t->key = 2 * id + 1;
	t->ns = d->opts.slow_ns;
	r = pthread_mutex_lock(&d->pool_lock);
	if (r != 0) {
		free(t);
		return -r;
	}
	pool_post(d, t);
	pthread_mutex_unlock(&d->pool_lock);
	return 0;
}

/*
 * The pool's thread: take the next task, run it (an action named pool-task),
 * and reply. The other work (odd keys) is the pool's to free: nobody waits
 * for it.
 */
static void *pool_main(void *arg)
{
	struct demo *d = arg;

	for (;;) {
		struct pool_task *t;

		pthread_mutex_lock(&d->pool_lock);
		while (!d->queue && !d->pool_stop)
			pthread_cond_wait(&d->pool_work, &d->pool_lock);
		t = d->queue;
		if (t) {
			d->queue = t->next;
			if (!d->queue)
				d->queue_tail = &d->queue;
		}
		pthread_mutex_unlock(&d->pool_lock);
		if (!t)
			break;
		jank_flow_to("pool", t->key);
		jank_action_begin("pool-task", t->key);
		sleep_ns(t->ns);
		jank_action_end("pool-task", t->key);
		if (t->key % 2) {
			free(t);
			continue;
		}
		/* The reply, under the lock; then back to the queue. */
		pthread_mutex_lock(&d->pool_lock);
		t->done = true;
		pthread_cond_broadcast(&d->pool_done);
		pthread_mutex_unlock(&d->pool_lock);
	}
	return NULL;
}

/* clang-format off */
static int (*const demo_work[])(struct demo *, uint64_t) = {
	[DEMO_CAUSE_CPU] = work_cpu,
	[DEMO_CAUSE_SLEEP] = work_sleep,
	[DEMO_CAUSE_LOCK] = work_lock,
	[DEMO_CAUSE_IO] = work_io,
	[DEMO_CAUSE_PIPE] = work_pipe,
	[DEMO_CAUSE_POOL] = work_pool,
};
/* clang-format on */

/* The helper thread: per request, hold the lock or delay a pipe write. */
static void *helper_main(void *arg)
{
	struct demo *d = arg;

	for (;;) {
		sem_wait_intr(&d->request);
		if (d->helper_stop)
			break;
		if (d->opts.cause == DEMO_CAUSE_LOCK) {
			pthread_mutex_lock(&d->lock);
			sem_post(&d->held);
			sleep_ns(d->helper_ns);
			pthread_mutex_unlock(&d->lock);
		} else {
			sleep_ns(d->helper_ns);
			while (write(d->pipe_fds[1], "x", 1) < 0 && errno == EINTR)
				;
		}
	}
	return NULL;
}

/* ---- Setup and teardown ---- */

static void remove_io_file(void)
{
	if (demo_io_path[0] != '\0')
		unlink(demo_io_path);
}

static void on_fatal_signal(int sig)
{
	remove_io_file();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int setup_io(struct demo *d)
{
	int n = snprintf(demo_io_path, sizeof(demo_io_path), "%s/jank-demo-XXXXXX", d->opts.dir);

	if (n < 0 || (size_t)n >= sizeof(demo_io_path)) {
		demo_io_path[0] = '\0';
		fprintf(stderr, "jank-demo: --dir path too long: %s\n", d->opts.dir);
		return -ENAMETOOLONG;
	}
	d->io_fd = mkostemp(demo_io_path, O_CLOEXEC);
	if (d->io_fd < 0) {
		int r = -errno;

		fprintf(stderr, "jank-demo: cannot create a temp file in %s: %s\n", d->opts.dir,
			strerror(-r));
		demo_io_path[0] = '\0';
		return r;
	}
	signal(SIGINT, on_fatal_signal);
	signal(SIGTERM, on_fatal_signal);
	signal(SIGHUP, on_fatal_signal);
	return 0;
}

/*
 * The threads' start, untraced: a thread is named before its first traced
 * call, since lttng-ust takes a thread's procname context at its first
 * event (under cyg-profile, the entry of its main function).
 */

static UNTRACED void *pool_start(void *arg)
{
	pthread_setname_np(pthread_self(), "jank-pool");
	return pool_main(arg);
}

static UNTRACED void *helper_start(void *arg)
{
	const struct demo *d = arg;

	pthread_setname_np(pthread_self(),
			   d->opts.cause == DEMO_CAUSE_LOCK ? "jank-holder" : "jank-writer");
	return helper_main(arg);
}

static int demo_setup(struct demo *d)
{
	int r;

	d->io_fd = -1;
	d->pipe_fds[0] = d->pipe_fds[1] = -1;
	switch (d->opts.cause) {
	case DEMO_CAUSE_IO:
		return setup_io(d);
	case DEMO_CAUSE_PIPE:
		if (pipe2(d->pipe_fds, O_CLOEXEC) < 0) {
			r = -errno;
			fprintf(stderr, "jank-demo: cannot create a pipe: %s\n", strerror(-r));
			return r;
		}
		break;
	case DEMO_CAUSE_LOCK:
		pthread_mutex_init(&d->lock, NULL);
		break;
	case DEMO_CAUSE_POOL:
		pthread_mutex_init(&d->pool_lock, NULL);
		pthread_cond_init(&d->pool_work, NULL);
		pthread_cond_init(&d->pool_done, NULL);
		d->queue_tail = &d->queue;
		r = pthread_create(&d->helper, NULL, pool_start, d);
		if (r != 0) {
			fprintf(stderr, "jank-demo: cannot start the pool's thread: %s\n",
				strerror(r));
			return -r;
		}
		d->helper_started = true;
		return 0;
	case DEMO_CAUSE_CPU:
	case DEMO_CAUSE_SLEEP:
		return 0;
	}
	sem_init(&d->request, 0, 0);
	sem_init(&d->held, 0, 0);
	r = pthread_create(&d->helper, NULL, helper_start, d);
	if (r != 0) {
		fprintf(stderr, "jank-demo: cannot start the helper thread: %s\n", strerror(r));
		return -r;
	}
	d->helper_started = true;
	return 0;
}

static void demo_teardown(struct demo *d)
{
	if (d->helper_started && d->opts.cause == DEMO_CAUSE_POOL) {
		pthread_mutex_lock(&d->pool_lock);
		d->pool_stop = true;
		pthread_cond_signal(&d->pool_work);
		pthread_mutex_unlock(&d->pool_lock);
		pthread_join(d->helper, NULL);
	} else if (d->helper_started) {
		d->helper_stop = true;
		sem_post(&d->request);
		pthread_join(d->helper, NULL);
	}
	if (d->pipe_fds[0] >= 0) {
		close(d->pipe_fds[0]);
		close(d->pipe_fds[1]);
	}
	if (d->io_fd >= 0) {
		close(d->io_fd);
		remove_io_file();
	}
}

/* ---- The worker ---- */

static bool action_is_slow(const struct demo_opts *o, uint64_t id)
{
	return o->slow_every != 0 && (id + 1) % o->slow_every == 0;
}

static int run_action(struct demo *d, uint64_t id, bool last)
{
	const struct demo_opts *o = &d->opts;
	bool slow = action_is_slow(o, id);
	const char *cause = demo_cause_names[o->cause];
	const char *kind = slow ? "slow" : "normal";
	uint64_t t0, t1;
	int r;

	if (o->cause == DEMO_CAUSE_POOL) {
		d->action_id = id;
		if (slow && (r = work_pool_before(d, id)) < 0) {
			fprintf(stderr, "jank-demo: action %" PRIu64 " (%s): %s\n", id, cause,
				strerror(-r));
			return r;
		}
	}
	t0 = now_ns();
	jank_action_begin(o->name, id);
	r = demo_work[o->cause](d, slow ? o->slow_ns : o->normal_ns);
	if (r < 0) {
		fprintf(stderr, "jank-demo: action %" PRIu64 " (%s): %s\n", id, cause,
			strerror(-r));
		return r;
	}
	if (last && o->unfinished) {
		printf("unfinished %" PRIu64 " %s %s %s\n", id, o->name, cause, kind);
		fflush(stdout);
		sleep_ns(o->hold_ns);
		return 0;
	}
	jank_action_end(o->name, id);
	t1 = now_ns();
	printf("action %" PRIu64 " %s %s %s %" PRIu64 "\n", id, o->name, cause, kind, t1 - t0);
	fflush(stdout);
	return 1;
}

static void *worker_main(void *arg)
{
	struct demo *d = arg;
	uint64_t id, completed = 0;
	int r;

	jank_mark("jank-demo.start", (int64_t)d->opts.count);
	for (id = 0; id < d->opts.count; id++) {
		if (id > 0)
			sleep_ns(d->opts.interval_ns);
		r = run_action(d, id, id + 1 == d->opts.count);
		if (r < 0) {
			d->status = r;
			break;
		}
		completed += (uint64_t)r;
	}
	printf("done %" PRIu64 "\n", completed);
	fflush(stdout);
	return NULL;
}

static UNTRACED void *worker_start(void *arg)
{
	pthread_setname_np(pthread_self(), "jank-worker");
	return worker_main(arg);
}

int main(int argc, char **argv)
{
	struct demo d = { 0 };
	pthread_t worker;
	int r;

	cli_prog = "jank-demo";
	parse_args(argc, argv, &d.opts);
	if (demo_setup(&d) < 0) {
		demo_teardown(&d);
		return 1;
	}
	r = pthread_create(&worker, NULL, worker_start, &d);
	if (r != 0) {
		fprintf(stderr, "jank-demo: cannot start the worker thread: %s\n", strerror(r));
		demo_teardown(&d);
		return 1;
	}
	pthread_join(worker, NULL);
	demo_teardown(&d);
	return d.status < 0 ? 1 : 0;
}
