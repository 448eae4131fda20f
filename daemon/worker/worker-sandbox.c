/* SPDX-License-Identifier: MIT */
/*
 * The worker's privileges, dropped (see worker-sandbox.h).
 *
 * The allowlist is what `strace -f` saw workers call in the live tests
 * (alerts, functions, flows, reconnections, discovery), grouped by who
 * calls it, plus what those libraries call on their error paths (abort's
 * tgkill, glib's thread creation). Calls jank's worker has no business with
 * (execve, ptrace, mount, setuid, bpf, keyctl, kexec, module loading...)
 * are not in it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "worker-sandbox.h"

int jank_worker_user_format(const struct jank_worker_user *u, char *buf, size_t len)
{
	int w = u->same ? snprintf(buf, len, "-")
			: snprintf(buf, len, "%lu:%lu", (unsigned long)u->uid,
				   (unsigned long)u->gid);

	return w < 0 || (size_t)w >= len ? -EINVAL : 0;
}

int jank_worker_user_parse(const char *s, struct jank_worker_user *u)
{
	unsigned long uid, gid;
	char *end;

	memset(u, 0, sizeof(*u));
	if (!strcmp(s, "-")) {
		u->same = true;
		return 0;
	}
	errno = 0;
	uid = strtoul(s, &end, 10);
	if (errno || end == s || *end != ':' || uid >= (uid_t)-1)
		return -EINVAL;
	s = end + 1;
	gid = strtoul(s, &end, 10);
	if (errno || end == s || *end || gid >= (gid_t)-1)
		return -EINVAL;
	u->uid = (uid_t)uid;
	u->gid = (gid_t)gid;
	return 0;
}

static int fail(char *err, size_t len, int e, const char *what)
{
	snprintf(err, len, "%s: %s", what, strerror(e));
	return -e;
}

/*
 * The bounding set, while CAP_SETPCAP may still be there (jankd as root
 * outside systemd): without it (under jankd.service) the set stays, and
 * no_new_privs makes it moot.
 */
static void drop_bounding(void)
{
	for (int c = 0; c <= CAP_LAST_CAP; c++)
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1)
			prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
}

/* No capability left in the effective, permitted, inheritable and ambient sets. */
static int drop_caps(char *err, size_t len)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	bool any = false;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return fail(err, len, errno, "cannot clear the ambient capabilities");
	/*
	 * capset only when there is something to drop: the spawner's workers
	 * have nothing, and jankd-workers.service refuses capset (@privileged).
	 */
	if (syscall(SYS_capget, &h, d) < 0)
		return fail(err, len, errno, "cannot read the capabilities");
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		any = any || d[i].effective || d[i].permitted || d[i].inheritable;
	memset(d, 0, sizeof(d));
	if (any && syscall(SYS_capset, &h, d) < 0)
		return fail(err, len, errno, "cannot drop the capabilities");
	/* Check what the kernel says, not what was asked. */
	memset(d, 0xff, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return fail(err, len, errno, "cannot read the capabilities");
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return fail(err, len, EPERM, "capabilities are left after dropping them");
	return 0;
}

static int become(const struct jank_worker_user *u, char *err, size_t len)
{
	uid_t r, e, s;
	gid_t g = u->gid;

	if (u->same)
		return 0;
	/* Capabilities must not survive the change of uid. */
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		return fail(err, len, errno, "cannot clear PR_SET_KEEPCAPS");
	if (setgroups(1, &g) < 0)
		return fail(err, len, errno, "cannot set the supplementary groups");
	if (setresgid(g, g, g) < 0)
		return fail(err, len, errno, "cannot change group");
	if (setresuid(u->uid, u->uid, u->uid) < 0)
		return fail(err, len, errno, "cannot change user");
	if (getresuid(&r, &e, &s) < 0 || r != u->uid || e != u->uid || s != u->uid)
		return fail(err, len, EPERM, "the user did not change");
	/* A non-root user must not get root back. */
	if (u->uid != 0 && (setresuid(0, 0, 0) == 0 || setresuid(-1, 0, -1) == 0))
		return fail(err, len, EPERM, "root could be had back after changing user");
	return 0;
}

/* ---- The seccomp filter ---- */

#define ALLOW(name) SCMP_SYS(name)

/* Allowed whatever their arguments. */
static const int allowed[] = {
	/* Memory: malloc, glib's slices, dlopen of babeltrace2's plugins and NSS. */
	ALLOW(brk),
	ALLOW(mmap),
	ALLOW(munmap),
	ALLOW(mremap),
	ALLOW(mprotect),
	ALLOW(madvise),
	ALLOW(mincore),
	/* Files: the plugins, /proc/PID/maps and binaries for the symbolizer, NSS's files. */
	ALLOW(read),
	ALLOW(pread64),
	ALLOW(readv),
	ALLOW(preadv),
	ALLOW(write),
	ALLOW(writev),
	ALLOW(pwrite64),
	ALLOW(close),
	ALLOW(close_range),
	ALLOW(lseek),
	ALLOW(fstat),
	ALLOW(newfstatat),
	ALLOW(stat),
	ALLOW(lstat),
	ALLOW(statx),
	ALLOW(statfs),
	ALLOW(fstatfs),
	ALLOW(getdents64),
	ALLOW(readlink),
	ALLOW(readlinkat),
	ALLOW(access),
	ALLOW(faccessat),
	ALLOW(faccessat2),
	ALLOW(getcwd),
	ALLOW(dup),
	ALLOW(dup2),
	ALLOW(dup3),
	ALLOW(fcntl),
	ALLOW(flock),
	ALLOW(fadvise64),
	ALLOW(pipe2),
	ALLOW(umask),
	/*
	 * Sockets it was given, never one it makes: the supervisor's socketpair,
	 * the binary opener's and the relayd broker's channels, and relayd's TCP
	 * connection, which the broker makes (relayd-broker.h). socket, connect,
	 * bind, listen, accept, socketpair are not here: they kill it.
	 */
	ALLOW(sendto),
	ALLOW(recvfrom),
	ALLOW(sendmsg),
	ALLOW(recvmsg),
	ALLOW(sendmmsg),
	ALLOW(recvmmsg),
	ALLOW(shutdown),
	ALLOW(getsockopt),
	ALLOW(setsockopt),
	ALLOW(getsockname),
	ALLOW(getpeername),
	/* The event loop (libevent's epoll), glib's wakeups. */
	ALLOW(epoll_create1),
	ALLOW(epoll_ctl),
	ALLOW(epoll_wait),
	ALLOW(epoll_pwait),
	ALLOW(poll),
	ALLOW(ppoll),
	ALLOW(select),
	ALLOW(pselect6),
	ALLOW(eventfd2),
	/* Time. */
	ALLOW(clock_gettime),
	ALLOW(clock_getres),
	ALLOW(gettimeofday),
	ALLOW(nanosleep),
	ALLOW(clock_nanosleep),
	/* Threads (glib may start some), futexes, signals. */
	ALLOW(futex),
	ALLOW(set_robust_list),
	ALLOW(get_robust_list),
	ALLOW(set_tid_address),
	ALLOW(rseq),
	ALLOW(sched_yield),
	ALLOW(sched_getaffinity),
	ALLOW(membarrier),
	ALLOW(rt_sigaction),
	ALLOW(rt_sigprocmask),
	ALLOW(rt_sigreturn),
	ALLOW(sigaltstack),
	ALLOW(restart_syscall),
	ALLOW(exit),
	ALLOW(exit_group),
	/* Who and where. */
	ALLOW(getpid),
	ALLOW(gettid),
	ALLOW(getppid),
	ALLOW(getuid),
	ALLOW(geteuid),
	ALLOW(getgid),
	ALLOW(getegid),
	ALLOW(getresuid),
	ALLOW(getresgid),
	ALLOW(getgroups),
	ALLOW(uname),
	ALLOW(sysinfo),
	ALLOW(getrandom),
	ALLOW(getrusage),
	ALLOW(getpriority),
	ALLOW(arch_prctl),
};

static int add(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned narg,
	       const struct scmp_arg_cmp *arg)
{
	if (nr == __NR_SCMP_ERROR) /* a call this architecture lacks */
		return 0;
	return narg ? seccomp_rule_add_exact_array(ctx, action, nr, narg, arg)
		    : seccomp_rule_add_exact(ctx, action, nr, 0);
}

static int build(scmp_filter_ctx ctx)
{
	/* Opening: read only, never creating (the worker writes no file). */
	const struct scmp_arg_cmp rdonly_at =
		SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY);
	const struct scmp_arg_cmp rdonly =
		SCMP_A1(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY);
	const struct scmp_arg_cmp self = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid());
	/*
	 * Refused, not killed, and no socket made: glibc's own lookups try
	 * these inside libc, where no interposition reaches, and cope with a
	 * refusal (getaddrinfo's netlink; NSS's nscd and systemd-userdb unix
	 * sockets). Any other family (AF_INET, AF_INET6...) kills it.
	 */
	const struct scmp_arg_cmp unix_ = SCMP_A0(SCMP_CMP_EQ, AF_UNIX);
	const struct scmp_arg_cmp netlink = SCMP_A0(SCMP_CMP_EQ, AF_NETLINK);
	const struct scmp_arg_cmp prctls[] = {
		SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME), /* glib names its threads */
		SCMP_A0(SCMP_CMP_EQ, PR_GET_NAME), SCMP_A0(SCMP_CMP_EQ, PR_GET_DUMPABLE),
		SCMP_A0(SCMP_CMP_EQ, PR_SET_PDEATHSIG), /* the worker's own, after the filter */
	};
	/* ioctl: isatty() (TCGETS), libevent's FIONREAD; any other fails as a device's would. */
	const struct scmp_arg_cmp ioctls[] = {
		SCMP_A1(SCMP_CMP_EQ, TCGETS),
		SCMP_A1(SCMP_CMP_EQ, FIONREAD),
	};
	/* glibc's getrlimit; setting one is refused. */
	const struct scmp_arg_cmp get_only = SCMP_A2(SCMP_CMP_EQ, 0);
	/* Threads only: a new process (CLONE_VM clear) is no worker's business. */
	const struct scmp_arg_cmp thread = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD);
	int r = 0;

	for (size_t i = 0; r == 0 && i < sizeof(allowed) / sizeof(allowed[0]); i++)
		r = add(ctx, SCMP_ACT_ALLOW, allowed[i], 0, NULL);
	if (r == 0)
		r = add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, &rdonly_at);
	if (r == 0)
		r = add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1, &rdonly);
	if (r == 0)
		r = add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1, &unix_);
	if (r == 0)
		r = add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1, &netlink);
	for (size_t i = 0; r == 0 && i < 4; i++)
		r = add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, &prctls[i]);
	for (size_t i = 0; r == 0 && i < 2; i++)
		r = add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, &ioctls[i]);
	if (r == 0)
		r = add(ctx, SCMP_ACT_ERRNO(ENOTTY), SCMP_SYS(ioctl), 0, NULL);
	if (r == 0)
		r = add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, &get_only);
	if (r == 0)
		r = add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, &thread);
	/* clone3's flags are behind a pointer: ENOSYS makes glibc fall back to clone. */
	if (r == 0)
		r = add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, NULL);
	/* Signals to itself only: abort(), raise(). */
	if (r == 0)
		r = add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, &self);
	if (r == 0)
		r = add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, &self);
	return r;
}

static int seccomp_enter(char *err, size_t len)
{
	const char *mode = getenv("JANK_WORKER_SECCOMP");
	uint32_t deflt = mode && !strcmp(mode, "log") ? SCMP_ACT_LOG : SCMP_ACT_KILL_PROCESS;
	scmp_filter_ctx ctx = seccomp_init(deflt);
	int r;

	if (!ctx)
		return fail(err, len, ENOMEM, "cannot make the seccomp filter");
	/* no_new_privs is set already, and must stay: the filter must not set it itself. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (r == 0)
		r = build(ctx);
	if (r < 0) {
		seccomp_release(ctx);
		return fail(err, len, -r, "cannot make the seccomp filter");
	}
	r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0)
		return fail(err, len, -r, "cannot install the seccomp filter");
	return 0;
}

int jank_worker_memory_max(uint64_t *out)
{
	const char *env = getenv("JANK_WORKER_MEMORY_MAX");
	unsigned long long v;
	char *end;

	*out = JANK_WORKER_MEMORY_MAX;
	if (!env)
		return 0;
	errno = 0;
	v = strtoull(env, &end, 10);
	if (errno || end == env || (*end && strcmp(end, "M") != 0))
		return -EINVAL;
	if (*end == 'M') {
		if (v > UINT64_MAX >> 20)
			return -EINVAL;
		v <<= 20;
	}
	if (v < JANK_WORKER_MEMORY_MIN)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Its address space and data at most `max` bytes: the seccomp filter then keeps them so. */
static int limit_memory(char *err, size_t len)
{
	struct rlimit rl;
	uint64_t max;

	if (jank_worker_memory_max(&max) < 0)
		return fail(err, len, EINVAL,
			    "bad JANK_WORKER_MEMORY_MAX (bytes, or MiB with M; at least 16M)");
	rl.rlim_cur = rl.rlim_max = (rlim_t)max;
	if (setrlimit(RLIMIT_AS, &rl) < 0 || setrlimit(RLIMIT_DATA, &rl) < 0)
		return fail(err, len, errno,
			    "cannot set its memory limits (RLIMIT_AS, RLIMIT_DATA)");
	return 0;
}

/*
 * glib's structured logging, declared here: glib comes with babeltrace2,
 * which jank builds against without glib's headers, and is found in the
 * process (dlsym) rather than linked. These are glib's stable ABI (2.50).
 */
struct glib_log_field {
	const char *key;
	const void *value;
	ssize_t length;
};
typedef int (*glib_writer_fn)(int level, const struct glib_log_field *fields, size_t n, void *data);
#define GLIB_LOG_LEVEL_ERROR 4 /* G_LOG_LEVEL_ERROR: g_error(), fatal */

static glib_writer_fn glib_default_writer;

static bool is_oom(const struct glib_log_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(fields[i].key, "MESSAGE") && fields[i].length < 0 && fields[i].value &&
		    strstr(fields[i].value, "failed to allocate"))
			return true;
	return false;
}

static int glib_writer(int level, const struct glib_log_field *fields, size_t n, void *data)
{
	int r = glib_default_writer(level, fields, n, data);

	if ((level & GLIB_LOG_LEVEL_ERROR) && is_oom(fields, n))
		_exit(JANK_WORKER_EXIT_MEMORY);
	return r;
}

void jank_worker_catch_oom(void)
{
	void (*set)(glib_writer_fn, void *, void (*)(void *));

	*(void **)&set = dlsym(RTLD_DEFAULT, "g_log_set_writer_func");
	*(void **)&glib_default_writer = dlsym(RTLD_DEFAULT, "g_log_writer_default");
	if (set && glib_default_writer)
		set(glib_writer, NULL, NULL);
}

int jank_worker_sandbox_enter(const struct jank_worker_user *u, char *err, size_t len)
{
	int r;

	drop_bounding();
	r = become(u, err, len);
	/*
	 * Not dumpable: another process of the same user (another worker, of
	 * another host) cannot read this one's memory through /proc/PID/mem or
	 * ptrace. A change of user sets this already; a spawner's worker has
	 * its user from the start.
	 */
	if (r == 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		r = fail(err, len, errno, "cannot make the worker non-dumpable");
	if (r == 0)
		r = drop_caps(err, len);
	if (r == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		r = fail(err, len, errno, "cannot set no_new_privs");
	if (r == 0)
		r = limit_memory(err, len);
	if (r == 0)
		r = seccomp_enter(err, len);
	return r;
}
