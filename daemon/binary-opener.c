/* SPDX-License-Identifier: MIT */
/*
 * The binary opener (see binary-opener.h): the supervisor opens the file a
 * local process mapped, checks it, and passes the descriptor; the worker
 * asks and waits for one answer.
 *
 * The supervisor holds /proc/PID open as a directory while it reads maps
 * and opens map_files/START-END through it, so both name the same process
 * even if PID is reused meanwhile (the directory of a process that exited
 * answers ESRCH). Its checks use the opened descriptor's fstat, not a path.
 */
#define _GNU_SOURCE /* major, minor */
#include <elf.h>
#include <dirent.h>
#include <errno.h>
#include <link.h> /* ElfW */
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <linux/magic.h> /* OVERLAYFS_SUPER_MAGIC */
#include <unistd.h>
#include "binary-opener.h"
#include "clock.h"
#include "fd-channel.h"
#include "log.h"
#include "symbols.h"

#define PID_MAX 4194304 /* the kernel's PID_MAX_LIMIT */

/* ---- The policy ---- */

struct map_line {
	uint64_t start, end;
	unsigned maj, min;
	uint64_t inode;
	bool exec;
};

/* One line of /proc/PID/maps; false when it is not one. */
static bool parse_map_line(const char *line, struct map_line *m)
{
	char perms[8];
	unsigned long long start, end, inode;
	unsigned maj, min;

	if (sscanf(line, "%llx-%llx %7s %*x %x:%x %llu", &start, &end, perms, &maj, &min, &inode) !=
		    6 ||
	    end <= start || strlen(perms) != 4)
		return false;
	*m = (struct map_line){ .start = start,
				.end = end,
				.maj = maj,
				.min = min,
				.inode = inode,
				.exec = perms[2] == 'x' };
	return true;
}

/*
 * The mapping that holds addr (*at), and whether its file is mapped
 * executable anywhere in the process. -ENOENT: no file mapping there.
 */
static int find_mapping(int procdir, uint64_t addr, struct map_line *at, bool *exec)
{
	int fd = openat(procdir, "maps", O_RDONLY | O_CLOEXEC);
	struct map_line *v = NULL, m;
	size_t n = 0, cap = 0, linecap = 0;
	char *line = NULL;
	bool found = false;
	FILE *f;

	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	f = fdopen(fd, "re");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	*exec = false;
	while (getline(&line, &linecap, f) > 0) {
		if (!parse_map_line(line, &m) || m.inode == 0)
			continue;
		if (!found && m.start <= addr && addr < m.end) {
			*at = m;
			found = true;
		}
		if (!m.exec)
			continue;
		if (n == cap) {
			struct map_line *nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[n++] = m;
	}
	free(line);
	fclose(f);
	for (size_t i = 0; found && i < n; i++)
		*exec |= v[i].inode == at->inode && v[i].maj == at->maj && v[i].min == at->min;
	free(v);
	return found ? 0 : -ENOENT;
}

static int refuse(int r, char *why, size_t len, int64_t pid, uint64_t addr, const char *what)
{
	snprintf(why, len, "pid %" PRId64 " at 0x%" PRIx64 ": %s", pid, addr, what);
	return r;
}

/*
 * Whether the opened file is the mapping's: its inode, and its device. On
 * overlayfs (a container's root, as Docker and systemd-nspawn make it)
 * /proc/PID/maps shows the overlay's own device, and fstat the device of
 * the file's layer: there the inode only.
 */
static bool same_file(int fd, const struct stat *st, const struct map_line *m)
{
	struct statfs sfs;

	if (st->st_ino != m->inode)
		return false;
	if (major(st->st_dev) == m->maj && minor(st->st_dev) == m->min)
		return true;
	return fstatfs(fd, &sfs) == 0 && sfs.f_type == OVERLAYFS_SUPER_MAGIC;
}

/* The opened file is the mapping's, a regular file, not too big, ELF. */
static int check_file(int fd, const struct map_line *m, int64_t pid, uint64_t addr, char *why,
		      size_t len)
{
	unsigned char magic[4];
	struct stat st;

	if (fstat(fd, &st) < 0)
		return refuse(-errno, why, len, pid, addr, "cannot stat the mapped file");
	if (!S_ISREG(st.st_mode))
		return refuse(-ENODEV, why, len, pid, addr,
			      "the mapped file is not a regular file");
	if (!same_file(fd, &st, m))
		return refuse(-ESTALE, why, len, pid, addr, "the mapping changed meanwhile");
	if ((uint64_t)st.st_size > JANK_OPENER_MAX_SIZE)
		return refuse(-EFBIG, why, len, pid, addr, "the mapped file is too big");
	if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, "\177ELF", 4) != 0)
		return refuse(-ENOEXEC, why, len, pid, addr, "the mapped file is not ELF");
	return 0;
}

/* The file this host's process PID maps at ADDR, checked (no namespaces). */
static int open_at_pid(int64_t pid, uint64_t addr, char *why, size_t len)
{
	char name[64];
	struct map_line m = { 0 };
	bool exec = false;
	int dir, fd, r;

	snprintf(name, sizeof(name), "/proc/%" PRId64, pid);
	dir = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dir < 0)
		return refuse(errno == ENOENT ? -ESRCH : -errno, why, len, pid, addr,
			      "no such process");
	r = find_mapping(dir, addr, &m, &exec);
	if (r < 0) {
		close(dir);
		return refuse(r, why, len, pid, addr,
			      r == -ENOENT ? "no file is mapped there" : "cannot read its maps");
	}
	if (!exec) {
		close(dir);
		return refuse(-EACCES, why, len, pid, addr,
			      "the file mapped there is not mapped executable (not code)");
	}
	snprintf(name, sizeof(name), "map_files/%" PRIx64 "-%" PRIx64, m.start, m.end);
	fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	r = fd < 0 ? -errno : 0;
	close(dir);
	if (r < 0)
		return refuse(r == -ENOENT ? -ESRCH : r, why, len, pid, addr,
			      "cannot open the mapped file");
	r = check_file(fd, &m, pid, addr, why, len);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* Whether host process P is in PID namespace NS (0: any). */
static bool in_ns(long p, uint32_t ns)
{
	char name[64];
	struct stat st;

	if (!ns)
		return true;
	snprintf(name, sizeof(name), "/proc/%ld/ns/pid", p);
	return stat(name, &st) == 0 && st.st_ino == ns;
}

/* Whether host process P has the pid VPID in a PID namespace of its own (its NSpid, last). */
static bool nspid_is(long p, int64_t vpid)
{
	char name[64], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%ld/status", p);
	f = fopen(name, "re");
	if (!f)
		return false;
	while (getline(&line, &cap, f) > 0) {
		char *tok, *save = NULL;
		long last = -1;
		int n = 0;

		if (strncmp(line, "NSpid:", 6) != 0)
			continue;
		for (tok = strtok_r(line + 6, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save), n++)
			last = strtol(tok, NULL, 10);
		found = n >= 2 && last == vpid;
		break;
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * A process in a PID namespace of its own (a container): lttng-ust records
 * its pid there (vpid), which is not this host's. Each host process whose
 * innermost pid is VPID is tried, JANK_OPENER_NS_TRIES at most, with the
 * same checks; the first whose file mapped at ADDR passes them is the
 * answer. Two containers may both have a VPID that maps code at ADDR: the
 * worker uses a file only if it is the build the trace recorded, so either
 * answer names that build rightly, or is not used.
 */
static int open_in_namespaces(int64_t vpid, uint32_t ns, uint64_t addr)
{
	char why[256];
	struct dirent *de;
	int fd = -ESRCH, tries = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while (fd < 0 && tries < JANK_OPENER_NS_TRIES && (de = readdir(d))) {
		char *end;
		long p = strtol(de->d_name, &end, 10);

		if (*end || p <= 0 || p == vpid || !nspid_is(p, vpid) || !in_ns(p, ns))
			continue;
		tries++;
		fd = open_at_pid(p, addr, why, sizeof(why));
	}
	closedir(d);
	return fd;
}

int jank_binary_opener_open_ns(int64_t pid, uint32_t pid_ns, uint64_t addr, char *why, size_t len)
{
	int fd;

	if (pid <= 0 || pid > PID_MAX)
		return refuse(-EINVAL, why, len, pid, addr, "not a process id");
	/* This host's process PID, when it is in that namespace (or none was said). */
	if (in_ns(pid, pid_ns))
		fd = open_at_pid(pid, addr, why, len);
	else
		fd = refuse(-ESRCH, why, len, pid, addr, "no such process in its PID namespace");
	/* Not this host's process, nor its code there: a container's, maybe. */
	if (fd == -ESRCH || fd == -ENOENT) {
		int nfd = open_in_namespaces(pid, pid_ns, addr);

		if (nfd >= 0)
			return nfd;
	}
	return fd;
}

int jank_binary_opener_open(int64_t pid, uint64_t addr, char *why, size_t len)
{
	return jank_binary_opener_open_ns(pid, 0, addr, why, len);
}

int jank_binary_opener_open_maps(int64_t pid, char *why, size_t len)
{
	char name[64];
	int fd;

	if (pid <= 0 || pid > PID_MAX)
		return refuse(-EINVAL, why, len, pid, 0, "not a process id");
	snprintf(name, sizeof(name), "/proc/%" PRId64 "/maps", pid);
	fd = open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return refuse(errno == ENOENT ? -ESRCH : -errno, why, len, pid, 0,
			      "cannot open its maps");
	return fd;
}

/* ---- A path, of a given build ---- */

#define MAX_PHNUM     512
#define MAX_NOTE_SIZE (64u << 10)

/* n bytes at off of fd, all of them. */
static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* Whether the notes in buf (n bytes) hold the GNU build-id `id`. */
static bool notes_have(const uint8_t *buf, size_t n, const uint8_t *id, size_t id_len)
{
	size_t off = 0;

	while (n - off >= sizeof(ElfW(Nhdr))) {
		ElfW(Nhdr) nh;
		size_t name, desc;

		memcpy(&nh, buf + off, sizeof(nh));
		off += sizeof(nh);
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name > n - off || desc > n - off - name)
			return false;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(buf + off, "GNU", 4) == 0)
			return nh.n_descsz == id_len && memcmp(buf + off + name, id, id_len) == 0;
		off += name + desc;
	}
	return false;
}

/*
 * 1: the ELF file fd (size bytes) has the build-id `id` in a PT_NOTE
 * segment; 0: another, or none; -ENOEXEC: not an ELF file of this machine's
 * class. Every offset and size is checked against the file's size.
 */
static int has_build_id(int fd, uint64_t size, const uint8_t *id, size_t id_len)
{
	ElfW(Ehdr) eh;

	if (!read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum > MAX_PHNUM || eh.e_phoff > size ||
	    (uint64_t)eh.e_phnum * sizeof(ElfW(Phdr)) > size - eh.e_phoff)
		return -ENOEXEC;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		ElfW(Phdr) ph;
		uint8_t *buf;
		bool found;

		if (!read_at(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph)))
			return -ENOEXEC;
		if (ph.p_type != PT_NOTE || ph.p_filesz == 0 || ph.p_filesz > MAX_NOTE_SIZE ||
		    ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			continue;
		buf = malloc(ph.p_filesz);
		if (!buf)
			return -ENOMEM;
		found = read_at(fd, buf, ph.p_filesz, ph.p_offset) &&
			notes_have(buf, ph.p_filesz, id, id_len);
		free(buf);
		if (found)
			return 1;
	}
	return 0;
}

static int refuse_path(int r, char *why, size_t len, const char *path, const char *what)
{
	snprintf(why, len, "%.512s: %s", path, what);
	return r;
}

int jank_binary_opener_open_path(const char *path, const uint8_t *build_id, size_t len, char *why,
				 size_t whylen)
{
	struct stat st;
	int fd, r;

	if (path[0] != '/' || len < JANK_OPENER_MIN_BUILD_ID || len > JANK_OPENER_MAX_BUILD_ID)
		return refuse_path(-EINVAL, why, whylen, path,
				   "not an absolute path with a build-id");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return refuse_path(-errno, why, whylen, path, "cannot open it");
	r = fstat(fd, &st) < 0 ? -errno : 0;
	if (!r && !S_ISREG(st.st_mode))
		r = refuse_path(-ENODEV, why, whylen, path, "not a regular file");
	else if (!r && !(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
		r = refuse_path(-EACCES, why, whylen, path, "not executable (not code)");
	else if (!r && (uint64_t)st.st_size > JANK_OPENER_MAX_SIZE)
		r = refuse_path(-EFBIG, why, whylen, path, "too big");
	else if (!r && (r = has_build_id(fd, (uint64_t)st.st_size, build_id, len)) < 0)
		r = refuse_path(r, why, whylen, path, "not an ELF file");
	else if (r == 0)
		r = refuse_path(-ESTALE, why, whylen, path, "another build (its build-id differs)");
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int jank_binary_opener_decode_path(const void *buf, size_t n, struct jank_open_path_request *out)
{
	if (n != sizeof(*out))
		return -EPROTO;
	memcpy(out, buf, sizeof(*out));
	if (out->magic != JANK_OPENER_MAGIC || out->kind != JANK_OPEN_PATH ||
	    out->build_id_len > JANK_OPENER_MAX_BUILD_ID ||
	    !memchr(out->path, '\0', sizeof(out->path)))
		return -EPROTO;
	return 0;
}

int jank_binary_opener_available(void)
{
	char why[128];
	int fd;

	if (geteuid() != 0)
		return 0;
	/* Our own code: mapped executable, from a regular ELF file. */
	fd = jank_binary_opener_open(getpid(), (uint64_t)(uintptr_t)&jank_binary_opener_available,
				     why, sizeof(why));
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int jank_binary_opener_decode(const void *buf, size_t n, struct jank_open_request *out)
{
	if (n != sizeof(*out))
		return -EPROTO;
	memcpy(out, buf, sizeof(*out));
	if (out->magic != JANK_OPENER_MAGIC)
		return -EPROTO;
	if (out->kind == JANK_OPEN_BINARY ||
	    (out->kind == JANK_OPEN_MAPS && out->addr == 0 && out->pid_ns == 0))
		return 0;
	return -EPROTO;
}

/* ---- The supervisor's channel ---- */

/*
 * Refusals are said at notice: an operator must learn why a binary was not
 * named. At most OPENER_LOG_BURST lines per OPENER_LOG_PERIOD_NS and
 * channel (a worker asks once per binary, but a host of short-lived
 * processes has many); the others are counted, and the next line said, or
 * the channel's end, says how many.
 */
#define OPENER_LOG_BURST     5
#define OPENER_LOG_PERIOD_NS (60 * 1000000000LL)

struct jank_binary_opener_conn {
	int fd;
	struct event *ev;
	char *name;
	uint64_t opened, refused;
	int64_t window;	 /* monotonic: the current window's start */
	unsigned said;	 /* lines in it */
	uint64_t unsaid; /* refusals not said since the last line */
};

static int send_reply(int sock, uint32_t seq, int error, int fd)
{
	struct jank_open_reply rep = { .magic = JANK_OPENER_MAGIC, .seq = seq, .error = error };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(u.buf, 0, sizeof(u.buf));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(rep) ? 0 : -1;
}

static void say_unsaid(struct jank_binary_opener_conn *c)
{
	if (c->unsaid)
		jank_log(LOG_NOTICE, "%s: binary opener: %" PRIu64 " more refused, not said",
			 c->name, c->unsaid);
	c->unsaid = 0;
}

/* A refusal: counted, and said (WHY names the pid and address, or the path) within the limit. */
static void refused(struct jank_binary_opener_conn *c, const char *why)
{
	int64_t now = jank_clock_monotonic_ns();

	c->refused++;
	if (!c->window || now - c->window >= OPENER_LOG_PERIOD_NS) {
		c->window = now;
		c->said = 0;
	}
	if (c->said >= OPENER_LOG_BURST) {
		c->unsaid++;
		return;
	}
	c->said++;
	say_unsaid(c);
	jank_log(LOG_NOTICE, "%s: binary opener: refused %s", c->name, why);
}

static void conn_close(struct jank_binary_opener_conn *c, const char *why)
{
	say_unsaid(c);
	if (why)
		jank_log(LOG_WARNING, "%s: the binary opener's channel closed: %s", c->name, why);
	event_del(c->ev);
	close(c->fd);
	c->fd = -1;
}

static void serve_path(struct jank_binary_opener_conn *c, const struct jank_open_path_request *r)
{
	char why[768];
	int fd = jank_binary_opener_open_path(r->path, r->build_id, r->build_id_len, why,
					      sizeof(why));

	if (fd < 0) {
		refused(c, why);
	} else {
		c->opened++;
	}
	if (send_reply(c->fd, r->seq, fd < 0 ? -fd : 0, fd) < 0)
		conn_close(c, "the worker does not read its answers");
	if (fd >= 0)
		close(fd);
}

static void on_request(evutil_socket_t sock, short what, void *data)
{
	struct jank_binary_opener_conn *c = data;
	struct jank_open_path_request preq;
	struct jank_open_request req;
	char buf[sizeof(preq) + 1], why[768];
	ssize_t n = recv(sock, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
	int fd;

	(void)what;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == 0) {
		conn_close(c, NULL); /* the worker ended */
		return;
	}
	if (n == (ssize_t)sizeof(preq) &&
	    jank_binary_opener_decode_path(buf, (size_t)n, &preq) == 0) {
		serve_path(c, &preq);
		return;
	}
	if (n < 0 || jank_binary_opener_decode(buf, (size_t)n, &req) < 0) {
		conn_close(c, "a packet that is not a request");
		return;
	}
	if (req.kind == JANK_OPEN_MAPS)
		fd = jank_binary_opener_open_maps(req.pid, why, sizeof(why));
	else
		fd = jank_binary_opener_open_ns(req.pid, req.pid_ns, req.addr, why, sizeof(why));
	if (fd < 0) {
		refused(c, why);
	} else {
		c->opened++;
	}
	if (send_reply(c->fd, req.seq, fd < 0 ? -fd : 0, fd) < 0)
		conn_close(c, "the worker does not read its answers");
	if (fd >= 0)
		close(fd);
}

struct jank_binary_opener_conn *jank_binary_opener_conn_new(struct event_base *base, int fd,
							    const char *name)
{
	struct jank_binary_opener_conn *c = calloc(1, sizeof(*c));

	if (!c || !(c->name = strdup(name)) ||
	    !(c->ev = event_new(base, fd, EV_READ | EV_PERSIST, on_request, c)) ||
	    event_add(c->ev, NULL) < 0) {
		if (c && c->ev)
			event_free(c->ev);
		if (c)
			free(c->name);
		free(c);
		close(fd);
		return NULL;
	}
	c->fd = fd;
	return c;
}

void jank_binary_opener_conn_free(struct jank_binary_opener_conn *c)
{
	if (!c)
		return;
	say_unsaid(c);
	event_free(c->ev);
	if (c->fd >= 0)
		close(c->fd);
	free(c->name);
	free(c);
}

/* ---- The worker's side ---- */

static int client_fd = -1;
static uint32_t client_seq;

void jank_binary_opener_client_init(void)
{
	client_fd = jank_fd_channel_open(JANK_OPENER_FD);
}

int jank_binary_opener_client_ready(void)
{
	return client_fd >= 0;
}

static void client_close(void)
{
	close(client_fd);
	client_fd = -1;
}

/* One reply: 1 and *fd (-1: none came) and *rep; 0: nothing there; -1: the channel is over. */
static int client_recv(struct jank_open_reply *rep, int *fd)
{
	int r = jank_fd_channel_recv(client_fd, rep, sizeof(*rep), fd);

	if (r > 0 && rep->magic != JANK_OPENER_MAGIC) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -1;
	}
	return r;
}

/* Send a request of n bytes (its seq in *seq) and wait for its answer. */
static int client_ask(const void *req, size_t n, uint32_t seq)
{
	struct pollfd p = { .events = POLLIN };

	if (client_fd < 0)
		return -ENOTCONN;
	if (send(client_fd, req, n, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)n) {
		client_close();
		return -ENOTCONN;
	}
	p.fd = client_fd;
	for (;;) {
		struct jank_open_reply rep;
		int fd, r = poll(&p, 1, JANK_OPENER_REPLY_MS);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return -ETIMEDOUT;
		r = r < 0 ? -1 : client_recv(&rep, &fd);
		if (r < 0) {
			client_close();
			return -ENOTCONN;
		}
		if (r == 0 || rep.seq != seq) {
			if (r > 0 && fd >= 0)
				close(fd); /* the answer to a request that timed out */
			continue;
		}
		if (rep.error == 0 && fd >= 0)
			return fd;
		if (fd >= 0)
			close(fd);
		return rep.error > 0 ? -rep.error : -EPROTO;
	}
}

static int client_simple(uint32_t kind, int64_t vpid, uint32_t pid_ns, uint64_t addr)
{
	struct jank_open_request req = { .magic = JANK_OPENER_MAGIC,
					 .seq = ++client_seq,
					 .kind = kind,
					 .pid_ns = pid_ns,
					 .pid = vpid,
					 .addr = addr };

	return client_ask(&req, sizeof(req), req.seq);
}

static int client_path(const char *path, const uint8_t *id, size_t len)
{
	struct jank_open_path_request *req = calloc(1, sizeof(*req));
	int r;

	if (!req)
		return -ENOMEM;
	req->magic = JANK_OPENER_MAGIC;
	req->seq = ++client_seq;
	req->kind = JANK_OPEN_PATH;
	req->build_id_len = (uint32_t)len;
	memcpy(req->build_id, id, len);
	snprintf(req->path, sizeof(req->path), "%s", path);
	r = client_ask(req, sizeof(*req), req->seq);
	free(req);
	return r;
}

int jank_binary_opener_client_open(const struct jank_symbols_open_req *r, void *data)
{
	int fd = client_simple(JANK_OPEN_BINARY, r->vpid, r->pid_ns, r->addr);

	(void)data;
	/* The process is gone: the file at its path, if it is that very build. */
	if ((fd == -ESRCH || fd == -ENOENT) && r->path && r->path[0] == '/' &&
	    strlen(r->path) < JANK_OPENER_PATH_LEN && r->build_id_len >= JANK_OPENER_MIN_BUILD_ID &&
	    r->build_id_len <= JANK_OPENER_MAX_BUILD_ID)
		fd = client_path(r->path, r->build_id, r->build_id_len);
	return fd;
}

int jank_binary_opener_client_maps(int64_t vpid)
{
	return client_simple(JANK_OPEN_MAPS, vpid, 0, 0);
}
