/* SPDX-License-Identifier: MIT */
/*
 * The binary opener (daemon/binary-opener.c): what the supervisor opens for
 * a worker, and everything it refuses. A child process maps its own code, a
 * copy of it that is then replaced on disk (renamed over, as dpkg does), a
 * data file, a text file mapped executable, /dev/zero and anonymous memory;
 * the opener is asked for each; and, for a process gone, files by path:
 * only an executable ELF file of the build asked for. The opener's own
 * service (`jankd --binary-opener`, jankd-opener@.service) serves the
 * connection systemd passes it when its peer is root, and refuses any
 * other peer or descriptor. Opening /proc/PID/map_files needs root
 * (CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE): skipped without it.
 */
#define _GNU_SOURCE /* setresuid */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>
#include <cmocka.h>
#include <elfutils/libdwelf.h>
#include <event2/event.h>
#include <gelf.h>
#include "binary-opener.h"
#include "log.h"
#include "symbols.h"

enum {
	M_CODE,
	M_REPLACED,
	M_DATA,
	M_TEXT_EXEC,
	M_DEVICE,
	M_ANON,
	NMAPS
};

static char dir[] = "/tmp/jank-opener.XXXXXX";
static pid_t child;
static uint64_t addrs[NMAPS];
static struct stat replaced_st; /* the copy the child mapped, before the rename */

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static uint64_t map_file(const char *path, int prot)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0)
		return 0;
	p = mmap(NULL, 4096, prot, MAP_PRIVATE, fd, 0);
	close(fd);
	return p == MAP_FAILED ? 0 : (uint64_t)(uintptr_t)p;
}

/* The child: maps everything, says where, and waits to be killed. */
static void child_main(int out)
{
	char path[256];
	void *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t a[NMAPS];

	a[M_CODE] = (uint64_t)(uintptr_t)&child_main;
	path_of(path, sizeof(path), "prog");
	a[M_REPLACED] = map_file(path, PROT_READ | PROT_EXEC);
	path_of(path, sizeof(path), "data");
	a[M_DATA] = map_file(path, PROT_READ);
	path_of(path, sizeof(path), "text");
	a[M_TEXT_EXEC] = map_file(path, PROT_READ | PROT_EXEC);
	a[M_DEVICE] = map_file("/dev/zero", PROT_READ | PROT_EXEC);
	a[M_ANON] = anon == MAP_FAILED ? 0 : (uint64_t)(uintptr_t)anon;
	if (write(out, a, sizeof(a)) != sizeof(a))
		_exit(1);
	for (;;)
		pause();
}

static int setup(void **state)
{
	char path[256], other[256];
	int pfd[2];

	(void)state;
	if (geteuid() != 0)
		return 0;
	assert_non_null(mkdtemp(dir));
	path_of(path, sizeof(path), "prog");
	copy_file("/proc/self/exe", path);
	assert_int_equal(stat(path, &replaced_st), 0);
	path_of(path, sizeof(path), "data");
	copy_file("/proc/self/exe", path); /* ELF, but mapped as data */
	path_of(path, sizeof(path), "text");
	write_file(path, "not a binary\n");
	assert_int_equal(pipe(pfd), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(pfd[0]);
		child_main(pfd[1]);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], addrs, sizeof(addrs)), (ssize_t)sizeof(addrs));
	close(pfd[0]);
	/* Replaced while it runs: another file renamed over the path it mapped. */
	path_of(path, sizeof(path), "prog");
	path_of(other, sizeof(other), "prog.new");
	write_file(other, "\177ELF, but another build\n");
	assert_int_equal(rename(other, path), 0);
	return 0;
}

static int teardown(void **state)
{
	char path[256];

	(void)state;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (geteuid() != 0)
		return 0;
	for (const char *const *n = (const char *const[]){ "prog", "data", "text", NULL }; *n;
	     n++) {
		path_of(path, sizeof(path), *n);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}

static void skip_unless_root(void)
{
	if (geteuid() != 0)
		skip();
}

static int ask(int idx, char *why, size_t len)
{
	assert_true(addrs[idx] != 0);
	return jank_binary_opener_open(child, addrs[idx], why, len);
}

static void test_opens_code(void **state)
{
	struct stat a, b;
	char why[256];
	int fd;

	(void)state;
	skip_unless_root();
	fd = ask(M_CODE, why, sizeof(why));
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat("/proc/self/exe", &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	/* Read-only. */
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	close(fd);
	/*
	 * With the trace's pid_ns: the child's own namespace gives its file; another
	 * namespace's process of that pid (there is none here) is not the child.
	 */
	{
		char ns[64];
		struct stat st;

		snprintf(ns, sizeof(ns), "/proc/%d/ns/pid", (int)child);
		assert_int_equal(stat(ns, &st), 0);
		fd = jank_binary_opener_open_ns(child, (uint32_t)st.st_ino, addrs[M_CODE], why,
						sizeof(why));
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(jank_binary_opener_open_ns(child, (uint32_t)st.st_ino + 1,
							    addrs[M_CODE], why, sizeof(why)),
				 -ESRCH);
		assert_non_null(strstr(why, "in its PID namespace"));
	}
}

static void test_replaced_gives_the_mapped_file(void **state)
{
	char why[256], path[256];
	struct stat a, now;
	int fd;

	(void)state;
	skip_unless_root();
	path_of(path, sizeof(path), "prog");
	assert_int_equal(stat(path, &now), 0);
	assert_true(now.st_ino != replaced_st.st_ino);
	fd = ask(M_REPLACED, why, sizeof(why));
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_true(a.st_ino == replaced_st.st_ino); /* the file it runs, not the path's */
	close(fd);
}

static void expect_refused(int idx, int err, const char *what)
{
	char why[256] = "";
	int r = ask(idx, why, sizeof(why));

	if (r >= 0)
		close(r);
	print_message("# %s: %s\n", what, why);
	assert_int_equal(r, -err);
	assert_non_null(strstr(why, "pid "));
}

static void test_refuses_what_is_not_code(void **state)
{
	(void)state;
	skip_unless_root();
	expect_refused(M_DATA, EACCES, "an ELF file mapped as data");
	expect_refused(M_ANON, ENOENT, "anonymous memory");
	expect_refused(M_DEVICE, ENODEV, "/dev/zero mapped executable");
	if (addrs[M_TEXT_EXEC]) /* 0: /tmp is noexec here */
		expect_refused(M_TEXT_EXEC, ENOEXEC, "a text file mapped executable");
}

static void test_refuses_bad_pids(void **state)
{
	char why[256];
	pid_t gone;

	(void)state;
	assert_int_equal(jank_binary_opener_open(0, 0x1000, why, sizeof(why)), -EINVAL);
	assert_int_equal(jank_binary_opener_open(-1, 0x1000, why, sizeof(why)), -EINVAL);
	assert_int_equal(jank_binary_opener_open((int64_t)1 << 40, 0x1000, why, sizeof(why)),
			 -EINVAL);
	gone = fork();
	assert_true(gone >= 0);
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	assert_int_equal(jank_binary_opener_open(gone, 0x1000, why, sizeof(why)), -ESRCH);
	assert_non_null(strstr(why, "no such process"));
}

/* Without the capability (another user), nothing opens, even our own code. */
static void test_unprivileged_cannot(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	skip_unless_root();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char why[256];
		int r;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		r = jank_binary_opener_open(child, addrs[M_CODE], why, sizeof(why));
		_exit(r >= 0 ? 1 : jank_binary_opener_available() ? 3 : 0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_decode(void **state)
{
	struct jank_open_request r = { .magic = JANK_OPENER_MAGIC,
				       .seq = 7,
				       .kind = JANK_OPEN_BINARY,
				       .pid = 42,
				       .addr = 0x1000 },
				 out;
	char big[sizeof(r) + 8] = { 0 };

	(void)state;
	assert_int_equal(jank_binary_opener_decode(&r, sizeof(r), &out), 0);
	assert_int_equal(out.pid, 42);
	/* Kinds: BINARY and MAPS (without an address or a namespace) only. */
	r.kind = JANK_OPEN_MAPS;
	assert_int_equal(jank_binary_opener_decode(&r, sizeof(r), &out), -EPROTO);
	r.addr = 0;
	assert_int_equal(jank_binary_opener_decode(&r, sizeof(r), &out), 0);
	r.pid_ns = 4026531836u;
	assert_int_equal(jank_binary_opener_decode(&r, sizeof(r), &out), -EPROTO);
	r.kind = 0;
	assert_int_equal(jank_binary_opener_decode(&r, sizeof(r), &out), -EPROTO);
	r.kind = 3;
	assert_int_equal(jank_binary_opener_decode(&r, sizeof(r), &out), -EPROTO);
	r.kind = JANK_OPEN_BINARY;
	assert_int_equal(jank_binary_opener_decode(&r, sizeof(r), &out), 0);
	assert_int_equal(out.pid_ns, 4026531836u);
	r.pid_ns = 0;
	assert_int_equal(jank_binary_opener_decode(&r, sizeof(r) - 1, &out), -EPROTO);
	memcpy(big, &r, sizeof(r));
	assert_int_equal(jank_binary_opener_decode(big, sizeof(big), &out), -EPROTO);
	r.magic++;
	assert_int_equal(jank_binary_opener_decode(&r, sizeof(r), &out), -EPROTO);
	/* A path in place of a request is no request. */
	assert_int_equal(jank_binary_opener_decode("/etc/shadow", 12, &out), -EPROTO);
}

/* This program's own build-id, into id (at most 64 bytes); its length. */
static size_t own_build_id(uint8_t *id)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	const void *bits;
	ssize_t n;
	Elf *e;

	elf_version(EV_CURRENT);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	n = e ? dwelf_elf_gnu_build_id(e, &bits) : -1;
	assert_true(n >= 8 && n <= 64);
	memcpy(id, bits, (size_t)n);
	elf_end(e);
	close(fd);
	return (size_t)n;
}

static void expect_path_refused(const char *path, const uint8_t *id, size_t len, int err)
{
	char why[1024] = "";
	int r = jank_binary_opener_open_path(path, id, len, why, sizeof(why));

	if (r >= 0)
		close(r);
	print_message("# %s: %s\n", path, why);
	assert_int_equal(r, -err);
}

/* A process gone: the file at a path, only an executable ELF of that build. */
static void test_path(void **state)
{
	uint8_t id[64];
	char self[512], fifo[256], text[256];
	size_t len = own_build_id(id);
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int fd;

	(void)state;
	assert_true(k > 0);
	self[k] = '\0';
	fd = jank_binary_opener_open_path(self, id, len, text, sizeof(text));
	assert_true(fd >= 0);
	close(fd);
	id[len - 1] ^= 1;
	expect_path_refused(self, id, len, ESTALE);
	id[len - 1] ^= 1;
	expect_path_refused("/etc/passwd", id, len, EACCES);
	expect_path_refused("/dev/null", id, len, ENODEV);
	snprintf(fifo, sizeof(fifo), "%s/fifo", geteuid() == 0 ? dir : "/tmp");
	if (geteuid() == 0 && mkfifo(fifo, 0755) == 0) {
		expect_path_refused(fifo, id, len, ENODEV);
		unlink(fifo);
	}
	if (geteuid() == 0) {
		snprintf(text, sizeof(text), "%s/text", dir);
		chmod(text, 0755);
		expect_path_refused(text, id, len, ENOEXEC);
	}
	expect_path_refused("relative/prog", id, len, EINVAL);
	expect_path_refused(self, id, 4, EINVAL); /* a build-id too short to name a build */
	expect_path_refused("/nonexistent/prog", id, len, ENOENT);
}

static void test_decode_path(void **state)
{
	struct jank_open_path_request r = { .magic = JANK_OPENER_MAGIC,
					    .kind = JANK_OPEN_PATH,
					    .build_id_len = 20 },
				      out;

	(void)state;
	snprintf(r.path, sizeof(r.path), "/usr/bin/true");
	assert_int_equal(jank_binary_opener_decode_path(&r, sizeof(r), &out), 0);
	assert_int_equal(jank_binary_opener_decode_path(&r, sizeof(r) - 1, &out), -EPROTO);
	memset(r.path, 'a', sizeof(r.path)); /* no NUL */
	assert_int_equal(jank_binary_opener_decode_path(&r, sizeof(r), &out), -EPROTO);
	r.path[0] = '\0';
	r.build_id_len = 65;
	assert_int_equal(jank_binary_opener_decode_path(&r, sizeof(r), &out), -EPROTO);
	r.build_id_len = 20;
	r.kind = JANK_OPEN_BINARY;
	assert_int_equal(jank_binary_opener_decode_path(&r, sizeof(r), &out), -EPROTO);
}

/* The server's log lines, in the file `data` names, "PRIORITY LINE". */
static void log_to_file(int priority, const char *line, void *data)
{
	FILE *f = fopen(data, "a");

	if (f) {
		fprintf(f, "%d %s\n", priority, line);
		fclose(f);
	}
}

/*
 * Refusals are said at notice, at most 5 a minute per channel; the others
 * are counted, and said when the channel ends.
 */
static void test_refusals_said(void **state)
{
	struct jank_open_request req = { .magic = JANK_OPENER_MAGIC,
					 .kind = JANK_OPEN_BINARY,
					 .pid = -3 };
	char log[512], line[1024];
	unsigned notices = 0, refusals = 0, more = 0;
	pid_t server;
	int sv[2], st;
	FILE *f;

	(void)state;
	path_of(log, sizeof(log), "opener.log");
	unlink(log);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	server = fork();
	assert_true(server >= 0);
	if (server == 0) {
		struct event_base *base = event_base_new();

		close(sv[1]);
		jank_log_set_sink(log_to_file, log);
		if (!base || !jank_binary_opener_conn_new(base, sv[0], "w1"))
			_exit(1);
		event_base_dispatch(base); /* until the channel closes */
		_exit(0);
	}
	close(sv[0]);
	for (uint32_t i = 0; i < 8; i++) {
		struct jank_open_reply rep;

		req.seq = i;
		assert_int_equal(send(sv[1], &req, sizeof(req), 0), (ssize_t)sizeof(req));
		assert_int_equal(recv(sv[1], &rep, sizeof(rep), 0), (ssize_t)sizeof(rep));
		assert_int_equal(rep.seq, i);
		assert_int_equal(rep.error, EINVAL);
	}
	close(sv[1]);
	assert_int_equal(waitpid(server, &st, 0), server);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	f = fopen(log, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		notices += atoi(line) == LOG_NOTICE;
		refusals += strstr(line, "w1: binary opener: refused ") != NULL;
		more += strstr(line, "w1: binary opener: 3 more refused, not said") != NULL;
	}
	fclose(f);
	unlink(log);
	assert_int_equal(refusals, 5);
	assert_int_equal(more, 1);
	assert_int_equal(notices, 6);
}

/* The channel: the worker's side asks, a server process answers with a descriptor. */
static void test_channel(void **state)
{
	struct event_base *base;
	struct stat a, b;
	pid_t server;
	int sv[2], fd;

	(void)state;
	skip_unless_root();
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	server = fork();
	assert_true(server >= 0);
	if (server == 0) {
		close(sv[1]);
		base = event_base_new();
		if (!base || !jank_binary_opener_conn_new(base, sv[0], "test"))
			_exit(1);
		event_base_dispatch(base); /* until the channel closes */
		_exit(0);
	}
	close(sv[0]);
	assert_int_equal(dup2(sv[1], JANK_OPENER_FD), JANK_OPENER_FD);
	close(sv[1]);
	jank_binary_opener_client_init();
	assert_true(jank_binary_opener_client_ready());
	fd = jank_binary_opener_client_open(
		&(struct jank_symbols_open_req){ .vpid = child, .addr = addrs[M_CODE] }, NULL);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat("/proc/self/exe", &b), 0);
	assert_true(a.st_ino == b.st_ino);
	close(fd);
	assert_int_equal(
		jank_binary_opener_client_open(
			&(struct jank_symbols_open_req){ .vpid = child, .addr = addrs[M_DATA] },
			NULL),
		-EACCES);
	assert_int_equal(
		jank_binary_opener_client_open(&(struct jank_symbols_open_req){ .vpid = -3 }, NULL),
		-EINVAL);
	/* A process gone, its build-id known: the file at its path, if that build. */
	{
		uint8_t id[64];
		size_t len = own_build_id(id);
		char self[512];
		ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
		pid_t gone = fork();

		assert_true(k > 0 && gone >= 0);
		self[k] = '\0';
		if (gone == 0)
			_exit(0);
		waitpid(gone, NULL, 0);
		fd = jank_binary_opener_client_open(
			&(struct jank_symbols_open_req){ .vpid = gone,
							 .addr = addrs[M_CODE],
							 .path = self,
							 .build_id = id,
							 .build_id_len = len },
			NULL);
		assert_true(fd >= 0);
		close(fd);
		id[0] ^= 1;
		assert_int_equal(jank_binary_opener_client_open(
					 &(struct jank_symbols_open_req){ .vpid = gone,
									  .addr = addrs[M_CODE],
									  .path = self,
									  .build_id = id,
									  .build_id_len = len },
					 NULL),
				 -ESTALE);
	}
	/* The child's maps: its mappings, this program's path among them. */
	fd = jank_binary_opener_client_maps(child);
	assert_true(fd >= 0);
	{
		char text[65536], self[512];
		ssize_t n = read(fd, text, sizeof(text) - 1), k;

		assert_true(n > 0);
		text[n] = '\0';
		k = readlink("/proc/self/exe", self, sizeof(self) - 1);
		assert_true(k > 0);
		self[k] = '\0';
		assert_non_null(strstr(text, self));
	}
	close(fd);
	assert_int_equal(jank_binary_opener_client_maps(0), -EINVAL);
	/* A packet that is not a request: the server closes the channel. */
	assert_int_equal(send(JANK_OPENER_FD, "/etc/shadow", 12, 0), 12);
	assert_int_equal(
		jank_binary_opener_client_open(
			&(struct jank_symbols_open_req){ .vpid = child, .addr = addrs[M_CODE] },
			NULL),
		-ENOTCONN);
	assert_false(jank_binary_opener_client_ready());
	waitpid(server, NULL, 0);
}

/*
 * In a child: `fd` as the socket systemd passes (fd 3, LISTEN_FDS=1 and
 * LISTEN_PID), then the service's main; its exit status.
 */
static pid_t service_child(int fd, int uid)
{
	pid_t pid = fork();
	char pidstr[24];
	char arg0[] = "jankd", arg1[] = JANK_OPENER_ARG;
	char *argv[] = { arg0, arg1, NULL };

	assert_true(pid >= 0);
	if (pid > 0)
		return pid;
	if (uid >= 0) {
		int sv[2];

		/* Its peer is itself, as uid: a socketpair made after setresuid. */
		if (setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0 ||
		    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
			_exit(99);
		fd = sv[0];
	}
	if (fd != 3 && dup2(fd, 3) != 3)
		_exit(99);
	/* Nothing else: not the test's end of the connection (its close ends the service). */
	closefrom(4);
	snprintf(pidstr, sizeof(pidstr), "%ld", (long)getpid());
	setenv("LISTEN_FDS", "1", 1);
	setenv("LISTEN_PID", pidstr, 1);
	unsetenv("LISTEN_FDNAMES");
	_exit(jank_binary_opener_service_main(2, argv));
}

static int exit_status(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_service(void **state)
{
	char arg0[] = "jankd", arg1[] = JANK_OPENER_ARG, arg2[] = "x";
	char *argv[] = { arg0, arg1, arg2, NULL };
	struct stat a, b;
	pid_t server;
	int sv[2], fd;

	(void)state;
	skip_unless_root();
	/* Root's connection (jankd's): served until it closes, then exit 0. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	server = service_child(sv[0], -1);
	close(sv[0]);
	assert_int_equal(dup2(sv[1], JANK_OPENER_FD), JANK_OPENER_FD);
	close(sv[1]);
	jank_binary_opener_client_init();
	assert_true(jank_binary_opener_client_ready());
	fd = jank_binary_opener_client_open(
		&(struct jank_symbols_open_req){ .vpid = child, .addr = addrs[M_CODE] }, NULL);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat("/proc/self/exe", &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	close(fd);
	assert_int_equal(
		jank_binary_opener_client_open(
			&(struct jank_symbols_open_req){ .vpid = child, .addr = addrs[M_DATA] },
			NULL),
		-EACCES);
	fd = jank_binary_opener_client_maps(child);
	assert_true(fd >= 0);
	close(fd);
	/* Anything but a request closes it; the service then ends, 0. */
	assert_int_equal(send(JANK_OPENER_FD, "/etc/shadow", 12, 0), 12);
	assert_int_equal(
		jank_binary_opener_client_open(
			&(struct jank_symbols_open_req){ .vpid = child, .addr = addrs[M_CODE] },
			NULL),
		-ENOTCONN);
	assert_int_equal(exit_status(server), 0);
	/* Another user's connection: refused, exit 1. */
	assert_int_equal(exit_status(service_child(-1, 65534)), 1);
	/* Not a connected SOCK_SEQPACKET socket: exit 1. */
	fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(exit_status(service_child(fd, -1)), 1);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(exit_status(service_child(sv[0], -1)), 1);
	close(sv[0]);
	close(sv[1]);
	close(fd);
	/* No socket from systemd at all, or an argument: 1, 2. */
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_PID");
	server = fork();
	assert_true(server >= 0);
	if (server == 0)
		_exit(jank_binary_opener_service_main(2, argv));
	assert_int_equal(exit_status(server), 1);
	assert_int_equal(jank_binary_opener_service_main(3, argv), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opens_code),
		cmocka_unit_test(test_replaced_gives_the_mapped_file),
		cmocka_unit_test(test_refuses_what_is_not_code),
		cmocka_unit_test(test_refuses_bad_pids),
		cmocka_unit_test(test_unprivileged_cannot),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_decode_path),
		cmocka_unit_test(test_channel),
		cmocka_unit_test(test_refusals_said),
		cmocka_unit_test(test_service),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
