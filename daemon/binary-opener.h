/* SPDX-License-Identifier: MIT */
/*
 * The binary opener: how an unprivileged worker gets the very file a local
 * traced process mapped, without the right to open it itself.
 *
 * A worker runs as jank-worker: it cannot open a binary under a 0700
 * directory, one replaced on disk since the process started (the path now
 * names another build), or one in another mount namespace (a container).
 * /proc/PID/map_files/START-END opens the file mapped there whatever its
 * path, but needs CAP_SYS_ADMIN (or CAP_CHECKPOINT_RESTORE) in the initial
 * user namespace. So the supervisor, when it runs as root and starts its
 * workers itself, keeps a second channel per worker of a live input on
 * this host (a SOCK_SEQPACKET socketpair, the worker's end on
 * JANK_OPENER_FD), and answers two questions only:
 *
 *   worker -> supervisor  struct jank_open_request {BINARY, pid, address}
 *                         or {MAPS, pid}, or struct jank_open_path_request
 *                         {PATH, build-id, path}
 *   supervisor -> worker  struct jank_open_reply {error}, and when error is
 *                         0 a read-only descriptor (SCM_RIGHTS): of the
 *                         file, or of /proc/PID/maps
 *
 * PATH is for a process that exited before its worker read its statedump
 * (a short-lived one: map_files needs the process): the supervisor opens
 * an absolute PATH only if the file there is a regular file, executable by
 * someone (a mode x bit), at most JANK_OPENER_MAX_SIZE bytes, ELF, and its
 * GNU build-id note (read by a small parser of its own, every offset
 * checked) is exactly BUILD_ID, at least JANK_OPENER_MIN_BUILD_ID bytes:
 * the very build the trace recorded, never another file.
 *
 * The maps are for a process whose statedump did not name its binary
 * (lttng-ust leaves out a binary it cannot open by its path: one replaced
 * since it started) and whose /proc/PID/maps the worker may not read
 * (another user's process): its mappings, addresses and paths, and no more
 * (the kernel checks the opener's right when the file is opened).
 *
 * The request names no path: the supervisor opens only a file that process
 * PID maps at ADDRESS, read from its /proc/PID/maps, and only if (1) the
 * process maps that file executable (code: not a data file, a secret it
 * mmapped, or a device), (2) it is a regular file (the descriptor's own
 * fstat, whose device and inode must be the mapping's; on overlayfs, whose
 * maps show the overlay's device and fstat the layer's, the inode), (3) at most
 * JANK_OPENER_MAX_SIZE bytes, (4) it begins with the ELF magic. It parses
 * nothing else of the file: the worker reads its build-id and uses it only
 * if it is the one the trace recorded. A packet that is not exactly one
 * request closes the channel. Inputs of other hosts get no channel (their
 * pids are not this host's).
 */
#ifndef JANK_BINARY_OPENER_H
#define JANK_BINARY_OPENER_H

#include <stdint.h>
#include <sys/types.h>
#include <event2/event.h>

#define JANK_OPENER_FD	     4		 /* the worker's end, beside JANK_WORKER_FD */
#define JANK_OPENER_MAGIC    0x6a6b6f70u /* "jkop" */
#define JANK_OPENER_MAX_SIZE ((uint64_t)4 << 30)
#define JANK_OPENER_REPLY_MS 1000 /* the worker's wait for one answer, at most */

enum jank_open_kind {
	JANK_OPEN_BINARY = 1, /* the file mapped at addr */
	JANK_OPEN_MAPS,	      /* /proc/PID/maps (addr 0) */
	JANK_OPEN_PATH,	      /* the file at path, of that build-id */
};

/* Host processes tried for a pid of another PID namespace (jank_binary_opener_open), at most. */
#define JANK_OPENER_NS_TRIES 64

#define JANK_OPENER_MIN_BUILD_ID 8
#define JANK_OPENER_MAX_BUILD_ID 64
#define JANK_OPENER_PATH_LEN	 1024

struct jank_open_request {
	uint32_t magic, seq;
	uint32_t kind;	 /* enum jank_open_kind */
	uint32_t pid_ns; /* BINARY: pid's PID namespace (its inode), 0: unknown */
	int64_t pid;
	uint64_t addr;
};

struct jank_open_path_request {
	uint32_t magic, seq;
	uint32_t kind, build_id_len; /* JANK_OPEN_PATH */
	uint8_t build_id[JANK_OPENER_MAX_BUILD_ID];
	char path[JANK_OPENER_PATH_LEN]; /* absolute, NUL-terminated */
};

struct jank_open_reply {
	uint32_t magic, seq;
	int32_t error; /* 0: a descriptor comes with it; else an errno */
	uint32_t pad;
};

/* ---- The supervisor's side ---- */

/*
 * The policy: a read-only descriptor of the file process PID maps at ADDR,
 * checked as above (PID is the trace's: when this host's process PID maps
 * no file there, or there is none, a process whose pid is PID in a PID
 * namespace of its own, a container's, is tried); or -errno: EINVAL (a bad pid), ESRCH (no such
 * process), ENOENT (no file mapped there), EACCES (not mapped executable),
 * ENODEV (not a regular file), EFBIG (too big), ENOEXEC (not ELF), ESTALE
 * (the mapping changed while it was opened), or what open(2) said (EPERM:
 * the capability is missing). `why` says it, naming the pid and address.
 */
int jank_binary_opener_open(int64_t pid, uint64_t addr, char *why, size_t len);
/*
 * The same for the process whose pid is PID in PID namespace PID_NS (the
 * inode of its /proc/P/ns/pid, as lttng-ust's pid_ns context gives it; 0:
 * unknown, as jank_binary_opener_open): only a host process of that
 * namespace is tried, so two containers' pid 1 are told apart.
 */
int jank_binary_opener_open_ns(int64_t pid, uint32_t pid_ns, uint64_t addr, char *why, size_t len);
/* /proc/PID/maps, read-only; or -errno (EINVAL, ESRCH, or what open(2) said). */
int jank_binary_opener_open_maps(int64_t pid, char *why, size_t len);
/*
 * The file at PATH, checked as above: a descriptor, or -errno: EINVAL (not
 * absolute, a build-id too short), ENODEV (not a regular file), EACCES (no x
 * bit), EFBIG, ENOEXEC (not ELF, or no build-id note), ESTALE (another
 * build), or what open(2) said.
 */
int jank_binary_opener_open_path(const char *path, const uint8_t *build_id, size_t len, char *why,
				 size_t whylen);
/* A PATH request packet of n bytes: 0 and *out, or -EPROTO. */
int jank_binary_opener_decode_path(const void *buf, size_t n, struct jank_open_path_request *out);

/* Whether this process can open other processes' map_files (root: a try on its own). */
int jank_binary_opener_available(void);

/*
 * A request packet of n bytes: 0 and *out, or -EPROTO (not exactly one
 * request with the magic, a known kind, addr 0 and pid_ns 0 for MAPS).
 */
int jank_binary_opener_decode(const void *buf, size_t n, struct jank_open_request *out);

struct jank_binary_opener_conn;
/* Serve requests on `fd` (taken: closed by _free) from the loop `base`. NULL: out of memory. */
struct jank_binary_opener_conn *jank_binary_opener_conn_new(struct event_base *base, int fd,
							    const char *name);
void jank_binary_opener_conn_free(struct jank_binary_opener_conn *c);

/* ---- Under systemd: the opener's own service (binary-opener-service.c) ---- */

/*
 * `jankd --binary-opener` (nothing else on the command line): serve the one
 * connection that jankd-opener.socket (Accept=yes) passes, if its peer is
 * JANK_OPENER_PEER_UID, until it closes. Returns the exit status.
 */
#define JANK_OPENER_ARG	     "--binary-opener"
#define JANK_OPENER_PEER_UID 0 /* jankd's user (jankd.service) */
int jank_binary_opener_service_main(int argc, char **argv);

/*
 * jankd's side: a new connection to the opener's socket at `path`, for one
 * worker (the spawner gives it to the worker as JANK_OPENER_FD); or -errno.
 */
int jank_binary_opener_service_connect(const char *path);

/* ---- The worker's side ---- */

/* Take JANK_OPENER_FD if the supervisor gave one; call first, before any other descriptor. */
void jank_binary_opener_client_init(void);
/* 1 when the worker has a channel to the opener. */
int jank_binary_opener_client_ready(void);
/*
 * Ask for the file process VPID maps at ADDR, and when the process is gone
 * and the build-id known, for the file at its path (a jank_symbols_open_fn):
 * a descriptor, or -errno (ETIMEDOUT: no answer in JANK_OPENER_REPLY_MS;
 * ENOTCONN: no channel, or it closed).
 */
struct jank_symbols_open_req;
int jank_binary_opener_client_open(const struct jank_symbols_open_req *r, void *data);
/* Ask for /proc/VPID/maps: a descriptor, or -errno as above. */
int jank_binary_opener_client_maps(int64_t vpid);

#endif
