/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's debuginfod fetcher (fetcher.h): a queue of build-ids,
 * a thread that has them downloaded one at a time (a slow server delays the
 * next, never the loop), and a ring of the recent ones, which are not asked
 * for again. The download itself (libdebuginfod, libcurl: what a server
 * sends) runs in a process of its own, forked at the start, which drops to
 * its user and every capability before it reads anything; the thread asks
 * it over a socketpair and waits for its answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "clock.h"
#include "fetcher.h"
#include "log.h"

#define FETCH_MAGIC    0x6a6b6674u /* "jkft" */
#define FETCH_SOCK_FD  3
#define FETCH_SLACK_NS (10 * 1000000000LL) /* past the timeout, the process's answer waited for */

/* Supervisor to fetcher process: one build-id. */
struct fetch_req {
	uint32_t magic, seq;
	uint32_t len, pad;
	uint8_t id[JANK_DEBUGINFOD_MAX_BUILD_ID];
};

/* Fetcher process to supervisor: 0 (the file is in the cache) or an errno. */
struct fetch_rep {
	uint32_t magic, seq;
	int32_t error;
	uint32_t pad;
};

struct request {
	uint8_t id[JANK_DEBUGINFOD_MAX_BUILD_ID];
	size_t len;
	int64_t when; /* monotonic: asked, or answered */
	int result;   /* -EINPROGRESS while waiting; then 0 (in the cache) or -errno */
};

struct jank_fetcher {
	struct jank_debuginfod_config c;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct request queue[JANK_FETCHER_QUEUE];
	size_t head, n;
	struct request recent[JANK_FETCHER_RECENT]; /* a ring: asked, waiting or answered */
	size_t next_recent;
	struct jank_fetcher_stats st;
	/* The fetcher process: its pid, the supervisor's end of their socketpair. */
	pid_t pid;
	int sock;
	uint32_t seq;
	bool dead; /* it ended, or broke the protocol: downloads fail from then on */
	/* What it says, for the loop to log (jank_fetcher_flush_log): the log is the loop's. */
	char lines[JANK_FETCHER_LINES][640];
	size_t nlines;
};

int jank_fetcher_decode_hex(const char *hex, uint8_t *id, size_t idlen)
{
	size_t n = hex ? strlen(hex) : 0;

	if (n % 2 || n < 2 * JANK_DEBUGINFOD_MIN_BUILD_ID || n > 2 * JANK_DEBUGINFOD_MAX_BUILD_ID ||
	    n / 2 > idlen || strspn(hex, "0123456789abcdef") != n)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex[2 * i] <= '9' ? hex[2 * i] - '0' : hex[2 * i] - 'a' + 10;
		int lo = hex[2 * i + 1] <= '9' ? hex[2 * i + 1] - '0' : hex[2 * i + 1] - 'a' + 10;

		id[i] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(n / 2);
}

static bool same(const struct request *r, const uint8_t *id, size_t len)
{
	return r->len == len && memcmp(r->id, id, len) == 0;
}

/* Whether ID was asked for lately (waiting, or answered within JANK_FETCHER_FORGET_NS). */
static bool is_recent(const struct jank_fetcher *f, const uint8_t *id, size_t len, int64_t now)
{
	for (size_t i = 0; i < JANK_FETCHER_RECENT; i++)
		if (same(&f->recent[i], id, len) &&
		    now - f->recent[i].when < JANK_FETCHER_FORGET_NS)
			return true;
	return false;
}

int jank_fetcher_request(struct jank_fetcher *f, const uint8_t *id, size_t len)
{
	int64_t now = jank_clock_monotonic_ns();
	int r = 0;

	if (len > JANK_DEBUGINFOD_MAX_BUILD_ID)
		return -EINVAL;
	pthread_mutex_lock(&f->lock);
	f->st.requests++;
	if (is_recent(f, id, len, now)) {
		r = 0;
	} else if (f->n == JANK_FETCHER_QUEUE) {
		f->st.dropped++;
		r = -ENOSPC;
	} else {
		struct request *q = &f->queue[(f->head + f->n++) % JANK_FETCHER_QUEUE];

		memcpy(q->id, id, len);
		q->len = len;
		q->when = now;
		q->result = -EINPROGRESS;
		f->recent[f->next_recent] = *q;
		f->next_recent = (f->next_recent + 1) % JANK_FETCHER_RECENT;
		pthread_cond_signal(&f->cond);
	}
	pthread_mutex_unlock(&f->lock);
	return r;
}

/* The answer's time, so that a miss is asked for again after JANK_FETCHER_FORGET_NS. */
static void answered(struct jank_fetcher *f, const struct request *q, int fd)
{
	int64_t now = jank_clock_monotonic_ns();

	for (size_t i = 0; i < JANK_FETCHER_RECENT; i++)
		if (same(&f->recent[i], q->id, q->len)) {
			f->recent[i].when = now;
			f->recent[i].result = fd >= 0 ? 0 : fd;
		}
	if (fd >= 0)
		f->st.fetched++;
	else
		f->st.failed++;
}

/* ---- The fetcher process ---- */

static void child_fail(const char *what)
{
	/* Its stderr is jankd's: one line, then the supervisor says the process ended. */
	dprintf(2, "jankd: debuginfod fetcher: %s: %s\n", what, strerror(errno));
	_exit(1);
}

/* Become u (when not same), not dumpable, no capability, no_new_privs. */
static void child_drop(const struct jank_fetcher_user *u)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	bool any = false;

	for (int c = 0; c <= CAP_LAST_CAP; c++)
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1)
			prctl(PR_CAPBSET_DROP, c, 0, 0, 0); /* where CAP_SETPCAP allows it */
	if (!u->same) {
		uid_t r, e, sv;
		gid_t g = u->gid;

		if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 || setgroups(1, &g) < 0 ||
		    setresgid(g, g, g) < 0 || setresuid(u->uid, u->uid, u->uid) < 0)
			child_fail("cannot change user");
		if (getresuid(&r, &e, &sv) < 0 || r != u->uid || e != u->uid || sv != u->uid ||
		    (u->uid != 0 && setresuid(-1, 0, -1) == 0)) {
			errno = EPERM;
			child_fail("the user did not change");
		}
	}
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		child_fail("cannot make it non-dumpable");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		child_fail("cannot clear the ambient capabilities");
	if (syscall(SYS_capget, &h, d) < 0)
		child_fail("cannot read the capabilities");
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		any = any || d[i].effective || d[i].permitted || d[i].inheritable;
	memset(d, 0, sizeof(d));
	if (any && syscall(SYS_capset, &h, d) < 0)
		child_fail("cannot drop the capabilities");
	memset(d, 0xff, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		child_fail("cannot read the capabilities");
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable) {
			errno = EPERM;
			child_fail("capabilities are left");
		}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail("cannot set no_new_privs");
}

/* The process: each request downloaded into the cache (or found there), answered in turn. */
static void child_main(int sock, pid_t parent, const struct jank_debuginfod_config *c,
		       const struct jank_fetcher_user *u)
{
	struct fetch_req q;
	char path[4096];

	prctl(PR_SET_NAME, "jankd-fetcher", 0, 0, 0);
	/* Ends with the supervisor; the supervisor's descriptors are not its. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(1);
	if (dup2(sock, FETCH_SOCK_FD) < 0)
		child_fail("dup2");
	for (int fd = FETCH_SOCK_FD + 1; fd < 65536; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			close(fd);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	child_drop(u);
	for (;;) {
		ssize_t n = recv(FETCH_SOCK_FD, &q, sizeof(q), MSG_TRUNC);
		struct fetch_rep rep = { .magic = FETCH_MAGIC };
		int fd;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0); /* the supervisor closed its end */
		rep.seq = q.seq;
		if (n != (ssize_t)sizeof(q) || q.magic != FETCH_MAGIC ||
		    q.len < JANK_DEBUGINFOD_MIN_BUILD_ID || q.len > JANK_DEBUGINFOD_MAX_BUILD_ID) {
			rep.error = EINVAL;
		} else {
			fd = jank_debuginfod_fetch(c, q.id, q.len, path, sizeof(path));
			if (fd >= 0)
				close(fd);
			rep.error = fd >= 0 ? 0 : -fd;
		}
		if (send(FETCH_SOCK_FD, &rep, sizeof(rep), MSG_NOSIGNAL) != (ssize_t)sizeof(rep))
			_exit(0);
	}
}

/* The supervisor's side: ask the process for q, wait for its answer. 0, or -errno. */
static int ask_process(struct jank_fetcher *f, const struct request *q)
{
	struct fetch_req r = { .magic = FETCH_MAGIC, .len = (uint32_t)q->len };
	int64_t deadline = jank_clock_monotonic_ns() + f->c.timeout_ns + FETCH_SLACK_NS;

	if (f->dead)
		return -EPIPE;
	r.seq = ++f->seq;
	memcpy(r.id, q->id, q->len);
	if (send(f->sock, &r, sizeof(r), MSG_NOSIGNAL) != (ssize_t)sizeof(r)) {
		f->dead = true;
		return -EPIPE;
	}
	for (;;) {
		int64_t left = deadline - jank_clock_monotonic_ns();
		struct pollfd p = { .fd = f->sock, .events = POLLIN };
		struct fetch_rep rep;
		ssize_t n;

		if (left <= 0)
			return -ETIME; /* its answer, if it comes, has an old seq */
		if (poll(&p, 1, (int)(left / 1000000 + 1)) < 0) {
			if (errno == EINTR)
				continue;
			return -EIO;
		}
		if (!p.revents)
			continue;
		n = recv(f->sock, &rep, sizeof(rep), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		/* Less privileged: an answer that is not exactly one is the end of it. */
		if (n != (ssize_t)sizeof(rep) || rep.magic != FETCH_MAGIC || rep.pad != 0 ||
		    rep.error < 0 || rep.error > 4095) {
			f->dead = true;
			return -EPIPE;
		}
		if (rep.seq == r.seq)
			return -rep.error;
	}
}

static void *run(void *data)
{
	struct jank_fetcher *f = data;

	pthread_mutex_lock(&f->lock);
	while (!f->stop) {
		char hex[2 * JANK_DEBUGINFOD_MAX_BUILD_ID + 1], path[4096];
		struct request q;
		int fd;

		if (!f->n) {
			pthread_cond_wait(&f->cond, &f->lock);
			continue;
		}
		q = f->queue[f->head];
		f->head = (f->head + 1) % JANK_FETCHER_QUEUE;
		f->n--;
		pthread_mutex_unlock(&f->lock);
		fd = ask_process(f, &q);
		/* The file it left, opened as the workers will: read-only, checked. */
		if (fd == 0)
			fd = jank_debuginfod_open_cached(f->c.cache, q.id, q.len, path,
							 sizeof(path));
		jank_debuginfod_hex(hex, q.id, q.len);
		if (fd >= 0)
			close(fd);
		pthread_mutex_lock(&f->lock);
		if (f->nlines < JANK_FETCHER_LINES)
			snprintf(f->lines[f->nlines++], sizeof(f->lines[0]),
				 "debuginfod: build-id %s: %.400s", hex,
				 fd >= 0	? path
				 : fd == -ETIME ? "timed out"
				 : fd == -EPIPE ? "the fetcher process ended"
						: strerror(-fd));
		answered(f, &q, fd);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

/*
 * nftw: each entry of the cache becomes the fetcher's, never following a
 * link. Children first (FTW_DEPTH): every directory above the entry being
 * changed is still root's, so the fetcher's user cannot swap one for a link
 * during the walk and turn root's lchown onto a file elsewhere.
 */
static uid_t chown_uid;
static gid_t chown_gid;

static int chown_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)flag;
	(void)ftw;
	if ((st->st_uid != chown_uid || st->st_gid != chown_gid) &&
	    lchown(path, chown_uid, chown_gid) < 0)
		return -1;
	return 0;
}

int jank_fetcher_own_cache(const char *cache, const struct jank_fetcher_user *u)
{
	struct stat st;

	if (u->same)
		return 0;
	if (lstat(cache, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/*
	 * Already the fetcher's: its content is too (root does not walk a tree
	 * that another user may change under it). Else (a cache of an older
	 * jankd, root's), given over whole.
	 */
	if (st.st_uid == u->uid)
		return 0;
	chown_uid = u->uid;
	chown_gid = u->gid;
	return nftw(cache, chown_entry, 16, FTW_PHYS | FTW_MOUNT | FTW_DEPTH) == 0 ? 0 : -errno;
}

struct jank_fetcher *jank_fetcher_new(const struct jank_debuginfod_config *c,
				      const struct jank_fetcher_user *u)
{
	struct jank_fetcher *f = calloc(1, sizeof(*f));
	pid_t parent = getpid();
	int sv[2];

	if (!f)
		return NULL;
	f->c = *c;
	f->c.urls = strdup(c->urls);
	f->c.cache = strdup(c->cache);
	f->sock = -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	if (!f->c.urls || !f->c.cache ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		goto fail;
	f->pid = fork();
	if (f->pid == 0) {
		close(sv[0]);
		child_main(sv[1], parent, &f->c, u);
		_exit(0);
	}
	close(sv[1]);
	f->sock = sv[0];
	if (f->pid < 0 || pthread_create(&f->thread, NULL, run, f) != 0)
		goto fail;
	return f;
fail:
	if (f->sock >= 0)
		close(f->sock);
	if (f->pid > 0) {
		kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, 0);
	}
	free((char *)f->c.urls);
	free((char *)f->c.cache);
	free(f);
	return NULL;
}

pid_t jank_fetcher_pid(const struct jank_fetcher *f)
{
	return f->pid;
}

void jank_fetcher_free(struct jank_fetcher *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
	/* A download under way: the process ends now, and the thread's wait with it. */
	kill(f->pid, SIGKILL);
	pthread_join(f->thread, NULL);
	close(f->sock);
	waitpid(f->pid, NULL, 0);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free((char *)f->c.urls);
	free((char *)f->c.cache);
	free(f);
}

const struct jank_debuginfod_config *jank_fetcher_config(const struct jank_fetcher *f)
{
	return &f->c;
}

void jank_fetcher_flush_log(struct jank_fetcher *f)
{
	char lines[JANK_FETCHER_LINES][640];
	size_t n;

	pthread_mutex_lock(&f->lock);
	n = f->nlines;
	memcpy(lines, f->lines, n * sizeof(lines[0]));
	f->nlines = 0;
	pthread_mutex_unlock(&f->lock);
	for (size_t i = 0; i < n; i++)
		jank_log(LOG_INFO, "%s", lines[i]);
}

void jank_fetcher_get_stats(struct jank_fetcher *f, struct jank_fetcher_stats *out)
{
	pthread_mutex_lock(&f->lock);
	*out = f->st;
	pthread_mutex_unlock(&f->lock);
}

/* The state of build-id ID: 1 asked and waiting (or not asked), 0 in the cache, -errno: a miss. */
static int state_of(struct jank_fetcher *f, const uint8_t *id, size_t len)
{
	int r = 1;

	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < JANK_FETCHER_RECENT; i++)
		if (same(&f->recent[i], id, len) && f->recent[i].result != -EINPROGRESS)
			r = f->recent[i].result;
	pthread_mutex_unlock(&f->lock);
	return r;
}

int jank_fetcher_fetch_fn(const uint8_t *id, size_t len, char *path, size_t pathlen, void *data)
{
	struct jank_fetcher *f = data;
	int64_t deadline = jank_clock_monotonic_ns() + f->c.timeout_ns + FETCH_SLACK_NS;
	int fd, st;

	if (len < JANK_DEBUGINFOD_MIN_BUILD_ID || len > JANK_DEBUGINFOD_MAX_BUILD_ID)
		return -EINVAL;
	fd = jank_debuginfod_open_cached(f->c.cache, id, len, path, pathlen);
	if (fd >= 0)
		return fd;
	if (jank_fetcher_request(f, id, len) < 0)
		return -ENOENT;
	for (;;) {
		usleep(100000);
		fd = jank_debuginfod_open_cached(f->c.cache, id, len, path, pathlen);
		if (fd >= 0)
			return fd;
		st = state_of(f, id, len);
		if (st <= 0)
			return st < 0 ? st : -ENOENT;
		if (jank_clock_monotonic_ns() > deadline)
			return -ETIME;
	}
}
