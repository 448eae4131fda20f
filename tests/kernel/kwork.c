/* SPDX-License-Identifier: MIT */
/*
 * kwork: workloads whose critical path is known, for tests/kernel.
 *
 * Usage: kwork CASE [-n REPS] [-d DIR]
 *
 * Each case does its action once unmarked (so that every thread has run and
 * is known to the trace), then REPS times (default 24) between the markers
 *   jank:action_begin name="CASE" id=I
 *   jank:action_end name="CASE" id=I
 * written to $KTRACE_MARKER (an ftrace trace_marker). The thread that does
 * the action is named kw-A; the others kw-B, kw-C, kw-hog, kw-child,
 * kw-grandchild.
 *
 *   timer       A waits on a condition variable; B, kicked by A, sleeps
 *               20 ms and signals it.
 *   idle-waker  the same, A and B pinned on two CPUs: B's CPU is idle while
 *               it sleeps, and B wakes A from there.
 *   cpu-user    A spins 8 ms of CPU time in user space, pinned on one CPU
 *               with two kw-hog threads there: one spins, one (SCHED_FIFO)
 *               sleeps 1 ms and spins 0.3 ms, again and again.
 *   cpu-kernel  the same, A reading /dev/zero 1 MiB at a time.
 *   futex       B takes a mutex, tells A, sleeps 20 ms, unlocks; A blocks
 *               on the mutex.
 *   chain       A waits on B, B waits on C, C sleeps 20 ms.
 *   fork        A forks kw-child, which spins 2 ms, sleeps 20 ms and exits;
 *               A waits for it with waitpid().
 *   fork-chain  A forks kw-child, which forks kw-grandchild (2 ms spin,
 *               20 ms sleep) and waits for it; A waits for kw-child.
 *   udp, tcp    A blocks in recv() on a loopback socket; B sleeps 20 ms and
 *               sends it one byte.
 *   disk        A reads 4 KiB with O_DIRECT from a file in DIR (default .),
 *               at a random offset. Exit 77 with the reason when DIR is not
 *               on a physical block device.
 *   stack       known user code for the recorded user stacks: A, in
 *               case_stack() -> do_blocking_read() -> read_config(), blocks
 *               in read() on a pipe; B, in writer_b() -> slow_path() ->
 *               nap(), sleeps 20 ms in clock_nanosleep(), then writes the
 *               pipe. These functions are never inlined and kwork is built
 *               with frame pointers (local.mk; kwork-nofp is the same
 *               program without them).
 *
 * Exit status 0; 77 when the case cannot run here (the reason on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#define SLEEP_MS       20
#define SPIN_CPU_MS    8
#define DISK_FILE_SIZE (16 << 20)
#define DISK_BLOCK     4096

static const char *case_name;
static int reps = 24;
static const char *disk_dir = ".";
static int marker_fd = -1;
static atomic_bool stop;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("kwork: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void skip(const char *fmt, ...)
{
	va_list ap;

	fputs("kwork: skip: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(77);
}

/* One write per marker: ftrace records each write as one event. */
static void mark(const char *what, int id)
{
	char buf[128];
	int n;

	if (id < 0)
		return; /* the unmarked warm-up */
	n = snprintf(buf, sizeof(buf), "jank:action_%s name=\"%s\" id=%d\n", what, case_name, id);
	if (write(marker_fd, buf, (size_t)n) != n)
		die("trace_marker: %s", strerror(errno));
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void name_self(const char *name)
{
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("cannot pin to CPU %d: %s", cpu, strerror(errno));
}

/* The first two CPUs this process may run on; -1 when there is none. */
static void usable_cpus(int *a, int *b)
{
	cpu_set_t set;

	*a = *b = -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity: %s", strerror(errno));
	for (int i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		if (*a < 0) {
			*a = i;
		} else {
			*b = i;
			break;
		}
	}
}

/* A counter under a condition variable: post() wakes whoever waits for it. */
struct chan {
	pthread_mutex_t m;
	pthread_cond_t c;
	unsigned long n;
};

#define CHAN_INIT                                                                                  \
	{                                                                                          \
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0                             \
	}

static void post(struct chan *ch)
{
	pthread_mutex_lock(&ch->m);
	ch->n++;
	pthread_cond_signal(&ch->c);
	pthread_mutex_unlock(&ch->m);
}

/* Wait for a post after the one *seen counts. */
static void await(struct chan *ch, unsigned long *seen)
{
	pthread_mutex_lock(&ch->m);
	while (ch->n == *seen)
		pthread_cond_wait(&ch->c, &ch->m);
	*seen = ch->n;
	pthread_mutex_unlock(&ch->m);
}

static pthread_t spawn(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, fn, arg);

	if (err)
		die("pthread_create: %s", strerror(err));
	return t;
}

/* ------------------------------------------------ timer, idle-waker, chain */

static struct chan kick_b = CHAN_INIT, done_b = CHAN_INIT;
static struct chan kick_c = CHAN_INIT, done_c = CHAN_INIT;
static int pin_b = -1;

static void *sleeper_b(void *arg)
{
	unsigned long seen = 0;

	name_self("kw-B");
	if (pin_b >= 0)
		pin_self(pin_b);
	for (;;) {
		await(&kick_b, &seen);
		if (atomic_load(&stop))
			return NULL;
		sleep_ms(SLEEP_MS);
		post(&done_b);
	}
}

static void *sleeper_c(void *arg)
{
	unsigned long seen = 0;

	name_self("kw-C");
	for (;;) {
		await(&kick_c, &seen);
		if (atomic_load(&stop))
			return NULL;
		sleep_ms(SLEEP_MS);
		post(&done_c);
	}
}

/* B of the chain: waits for C on A's behalf. */
static void *relay_b(void *arg)
{
	unsigned long seen = 0, seen_c = 0;

	name_self("kw-B");
	for (;;) {
		await(&kick_b, &seen);
		if (atomic_load(&stop)) {
			post(&kick_c);
			return NULL;
		}
		post(&kick_c);
		await(&done_c, &seen_c);
		post(&done_b);
	}
}

static void run_wait_on_b(void *(*b)(void *), bool chain)
{
	unsigned long seen = 0;
	pthread_t tb, tc = 0;

	tb = spawn(b, NULL);
	if (chain)
		tc = spawn(sleeper_c, NULL);
	for (int i = -1; i < reps; i++) {
		mark("begin", i);
		post(&kick_b);
		await(&done_b, &seen);
		mark("end", i);
	}
	atomic_store(&stop, true);
	post(&kick_b);
	pthread_join(tb, NULL);
	if (chain)
		pthread_join(tc, NULL);
}

static void case_timer(void)
{
	run_wait_on_b(sleeper_b, false);
}

static void case_idle_waker(void)
{
	int a, b;

	usable_cpus(&a, &b);
	if (b < 0)
		skip("idle-waker needs two CPUs");
	pin_self(a);
	pin_b = b;
	run_wait_on_b(sleeper_b, false);
}

static void case_chain(void)
{
	run_wait_on_b(relay_b, true);
}

/* ------------------------------------------------------ CPU contention */

static int hog_cpu;

static void *hog(void *arg)
{
	volatile unsigned long x = 0;

	name_self("kw-hog");
	pin_self(hog_cpu);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		x++;
	return NULL;
}

/*
 * A real-time hog that sleeps 1 ms and spins 0.3 ms: its wakeups preempt A
 * at once, wherever A is. Tick preemption alone does not do it inside the
 * kernel: with "Dynamic Preempt: none" on 6.18, a fair task is switched out
 * on its way back to user space, seldom in the kernel's cond_resched().
 */
static void *rt_hog(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };

	name_self("kw-hog");
	pin_self(hog_cpu);
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		fprintf(stderr, "kwork: no SCHED_FIFO for the hog: its wakeups may not preempt\n");
	while (!atomic_load(&stop)) {
		long long end;

		sleep_ms(1);
		end = now_ns(CLOCK_MONOTONIC) + 300000;
		while (now_ns(CLOCK_MONOTONIC) < end)
			;
	}
	return NULL;
}

static void spin_user(void)
{
	long long end = now_ns(CLOCK_THREAD_CPUTIME_ID) + SPIN_CPU_MS * 1000000LL;
	volatile unsigned long x = 0;

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int k = 0; k < 100000; k++)
			x++;
}

static void spin_kernel(int fd, char *buf, size_t len)
{
	long long end = now_ns(CLOCK_THREAD_CPUTIME_ID) + SPIN_CPU_MS * 1000000LL;

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		if (read(fd, buf, len) < 0)
			die("/dev/zero: %s", strerror(errno));
}

static void case_cpu(bool kernel)
{
	size_t len = 1 << 20;
	char *buf = NULL;
	pthread_t hogs[2];
	int fd = -1, b;

	usable_cpus(&hog_cpu, &b);
	pin_self(hog_cpu);
	if (kernel) {
		fd = open("/dev/zero", O_RDONLY);
		buf = malloc(len);
		if (fd < 0 || !buf)
			die("/dev/zero: %s", strerror(errno));
		memset(buf, 1, len); /* no page faults inside the actions */
	}
	hogs[0] = spawn(hog, NULL);
	hogs[1] = spawn(rt_hog, NULL);
	for (int i = -1; i < reps; i++) {
		mark("begin", i);
		if (kernel)
			spin_kernel(fd, buf, len);
		else
			spin_user();
		mark("end", i);
	}
	atomic_store(&stop, true);
	for (int h = 0; h < 2; h++)
		pthread_join(hogs[h], NULL);
	free(buf);
	if (fd >= 0)
		close(fd);
}

/* --------------------------------------------------------------- futex */

static pthread_mutex_t held_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct chan held = CHAN_INIT;

static void *holder_b(void *arg)
{
	unsigned long seen = 0;

	name_self("kw-B");
	for (;;) {
		await(&kick_b, &seen);
		if (atomic_load(&stop))
			return NULL;
		pthread_mutex_lock(&held_mutex);
		post(&held);
		sleep_ms(SLEEP_MS);
		pthread_mutex_unlock(&held_mutex);
	}
}

static void case_futex(void)
{
	unsigned long seen = 0;
	pthread_t tb = spawn(holder_b, NULL);

	for (int i = -1; i < reps; i++) {
		mark("begin", i);
		post(&kick_b);
		await(&held, &seen);
		pthread_mutex_lock(&held_mutex);
		pthread_mutex_unlock(&held_mutex);
		mark("end", i);
	}
	atomic_store(&stop, true);
	post(&kick_b);
	pthread_join(tb, NULL);
}

/* ---------------------------------------------------------------- fork */

/* Fork a child named NAME that runs fn (or spins 2 ms and sleeps), and wait for it. */
static void fork_wait(const char *name, void (*fn)(void))
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		long long end = now_ns(CLOCK_MONOTONIC) + 2000000LL;

		name_self(name);
		if (fn) {
			fn();
			_exit(0);
		}
		while (now_ns(CLOCK_MONOTONIC) < end)
			;
		sleep_ms(SLEEP_MS);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid: %s", strerror(errno));
}

static void fork_grandchild(void)
{
	fork_wait("kw-grandchild", NULL);
}

static void case_fork(void)
{
	for (int i = -1; i < reps; i++) {
		mark("begin", i);
		fork_wait("kw-child", NULL);
		mark("end", i);
	}
}

static void case_fork_chain(void)
{
	for (int i = -1; i < reps; i++) {
		mark("begin", i);
		fork_wait("kw-child", fork_grandchild);
		mark("end", i);
	}
}

/* ----------------------------------------------------------- udp, tcp */

static int sock_b;

static void *sender_b(void *arg)
{
	unsigned long seen = 0;

	name_self("kw-B");
	for (;;) {
		await(&kick_b, &seen);
		if (atomic_load(&stop))
			return NULL;
		sleep_ms(SLEEP_MS);
		if (send(sock_b, "x", 1, 0) != 1)
			die("send: %s", strerror(errno));
	}
}

static void case_net(bool tcp)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	int type = tcp ? SOCK_STREAM : SOCK_DGRAM;
	int one = 1, lsock, sock_a;
	pthread_t tb;
	char c;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lsock = socket(AF_INET, type, 0);
	sock_b = socket(AF_INET, type, 0);
	if (lsock < 0 || sock_b < 0)
		die("socket: %s", strerror(errno));
	if (bind(lsock, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(lsock, (struct sockaddr *)&addr, &alen))
		die("bind: %s", strerror(errno));
	if (tcp && listen(lsock, 1))
		die("listen: %s", strerror(errno));
	if (connect(sock_b, (struct sockaddr *)&addr, sizeof(addr)))
		die("connect: %s", strerror(errno));
	if (tcp) {
		sock_a = accept(lsock, NULL, NULL);
		if (sock_a < 0)
			die("accept: %s", strerror(errno));
		setsockopt(sock_b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	} else {
		sock_a = lsock;
	}
	tb = spawn(sender_b, NULL);
	for (int i = -1; i < reps; i++) {
		mark("begin", i);
		post(&kick_b);
		if (recv(sock_a, &c, 1, 0) != 1)
			die("recv: %s", strerror(errno));
		mark("end", i);
	}
	atomic_store(&stop, true);
	post(&kick_b);
	pthread_join(tb, NULL);
	close(sock_b);
	if (sock_a != lsock)
		close(sock_a);
	close(lsock);
}

/* ---------------------------------------------------------------- disk */

/* Is DIR's file system on a physical disk (not tmpfs, loop, zram, dm...)? */
static void need_disk(const char *dir)
{
	char path[PATH_MAX + 32], real[PATH_MAX];
	struct stat st;

	if (stat(dir, &st))
		die("%s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!realpath(path, real))
		skip("%s is on device %u:%u, which is not a block device (tmpfs, btrfs, overlay?)",
		     dir, major(st.st_dev), minor(st.st_dev));
	snprintf(path, sizeof(path), "%s/partition", real);
	if (!access(path, F_OK)) {
		char *slash = strrchr(real, '/');

		if (slash)
			*slash = '\0'; /* the disk of the partition */
	}
	snprintf(path, sizeof(path), "%s/device", real);
	if (access(path, F_OK))
		skip("%s is on %s, a virtual block device (no device behind it)", dir,
		     strrchr(real, '/') ? strrchr(real, '/') + 1 : real);
}

static void case_disk(void)
{
	char path[PATH_MAX];
	void *buf;
	int fd, dfd;

	need_disk(disk_dir);
	snprintf(path, sizeof(path), "%s/kwork-disk.XXXXXX", disk_dir);
	fd = mkstemp(path);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	unlink(path);
	if (posix_memalign(&buf, DISK_BLOCK, 1 << 20))
		die("out of memory");
	srand((unsigned int)getpid());
	for (int off = 0; off < DISK_FILE_SIZE; off += 1 << 20) {
		for (int k = 0; k < (1 << 20) / (int)sizeof(int); k++)
			((int *)buf)[k] = rand();
		if (write(fd, buf, 1 << 20) != 1 << 20)
			die("write: %s", strerror(errno));
	}
	if (fsync(fd))
		die("fsync: %s", strerror(errno));
	/* The file is unlinked: open it again through /proc, with O_DIRECT. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dfd = open(path, O_RDONLY | O_DIRECT);
	if (dfd < 0)
		skip("O_DIRECT is refused in %s: %s", disk_dir, strerror(errno));
	close(fd);
	fd = dfd;
	for (int i = -1; i < reps; i++) {
		off_t off = (off_t)(rand() % (DISK_FILE_SIZE / DISK_BLOCK)) * DISK_BLOCK;

		mark("begin", i);
		if (pread(fd, buf, DISK_BLOCK, off) != DISK_BLOCK)
			die("pread: %s", strerror(errno));
		mark("end", i);
	}
	close(fd);
	free(buf);
}

/* ------------------------------------------------------------------- stack */

/*
 * At the entry of A's read() the kernel's user stack walk gives the IP in
 * libc's read(), then the return addresses in do_blocking_read() and
 * case_stack(), and on: each frame record of the chain holds the return
 * address into the caller of its function. read_config(), the direct caller
 * of libc's read(), is not in it: read() keeps no frame record, so the
 * return address into read_config() is on the stack but in no record.
 * Likewise B's stack names slow_path() and writer_b(), not nap(). The code
 * after each call keeps it a call (no tail call, whose caller would be gone
 * from the stack too).
 */
static int stack_pipe[2];
static struct chan kick_slow = CHAN_INIT;

__attribute__((noinline)) static void nap(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = SLEEP_MS * 1000000L };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

__attribute__((noinline)) static void slow_path(void)
{
	nap();
	if (write(stack_pipe[1], "x", 1) != 1)
		die("write: %s", strerror(errno));
}

static void *writer_b(void *arg)
{
	unsigned long seen = 0;

	name_self("kw-B");
	for (;;) {
		await(&kick_slow, &seen);
		if (atomic_load(&stop))
			return NULL;
		slow_path();
	}
}

__attribute__((noinline)) static char read_config(void)
{
	char c;
	ssize_t n = read(stack_pipe[0], &c, 1);

	if (n != 1)
		die("read: %s", n < 0 ? strerror(errno) : "end of file");
	return c;
}

__attribute__((noinline)) static void do_blocking_read(void)
{
	if (read_config() != 'x')
		die("read: not what B wrote");
}

__attribute__((noinline)) static void case_stack(void)
{
	pthread_t tb;

	if (pipe(stack_pipe))
		die("pipe: %s", strerror(errno));
	tb = spawn(writer_b, NULL);
	for (int i = -1; i < reps; i++) {
		mark("begin", i);
		post(&kick_slow);
		do_blocking_read();
		mark("end", i);
	}
	atomic_store(&stop, true);
	post(&kick_slow);
	pthread_join(tb, NULL);
	close(stack_pipe[0]);
	close(stack_pipe[1]);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} cases[] = {
		{ "timer", case_timer }, { "idle-waker", case_idle_waker },
		{ "chain", case_chain }, { "futex", case_futex },
		{ "fork", case_fork },	 { "fork-chain", case_fork_chain },
		{ "disk", case_disk },	 { "stack", case_stack },
	};
	const char *marker = getenv("KTRACE_MARKER");
	int opt;

	if (argc < 2) {
		fprintf(stderr, "usage: kwork CASE [-n REPS] [-d DIR]\n");
		return 2;
	}
	case_name = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "n:d:")) != -1) {
		switch (opt) {
		case 'n':
			reps = atoi(optarg);
			break;
		case 'd':
			disk_dir = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!marker)
		die("KTRACE_MARKER is not set (run under ktrace-record.sh)");
	marker_fd = open(marker, O_WRONLY | O_CLOEXEC);
	if (marker_fd < 0)
		die("%s: %s", marker, strerror(errno));
	name_self("kw-A");

	if (!strcmp(case_name, "cpu-user")) {
		case_cpu(false);
		return 0;
	}
	if (!strcmp(case_name, "cpu-kernel")) {
		case_cpu(true);
		return 0;
	}
	if (!strcmp(case_name, "udp") || !strcmp(case_name, "tcp")) {
		case_net(!strcmp(case_name, "tcp"));
		return 0;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!strcmp(case_name, cases[i].name)) {
			cases[i].run();
			return 0;
		}
	}
	die("unknown case %s", case_name);
}
