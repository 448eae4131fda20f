/* SPDX-License-Identifier: MIT */
/*
 * What a worker process (worker.h) may do: it parses what a remote host
 * sends (CTF metadata and packets, through babeltrace2), so it runs as if a
 * parser bug had already been exploited.
 *
 * Before it reads anything, the worker
 *   - becomes the worker user: supplementary groups, gid and uid (all of
 *     real, effective, saved) of [daemon] worker-user, which the supervisor
 *     resolved (the worker needs no NSS); getting root back must then fail;
 *   - is not dumpable: no other process of its user may read its memory
 *     (/proc/PID/mem, ptrace), whatever other host's trace it reads;
 *   - has no capability: effective, permitted, inheritable and ambient sets
 *     empty, the bounding set emptied as far as it may be (CAP_SETPCAP);
 *   - sets no_new_privs: no exec can give anything back;
 *   - limits its memory: RLIMIT_AS and RLIMIT_DATA (both soft and hard) to
 *     JANK_WORKER_MEMORY_MAX bytes, or what the variable of that name says
 *     in the launcher's environment (jankd's, or the spawner's unit), so
 *     that a crafted input cannot take the host's memory: an allocation
 *     past it fails (glib aborts), the worker dies and is restarted as any
 *     crash is, the restart saying what was skipped; the filter refuses
 *     setrlimit, so the limit stays;
 *   - installs a seccomp filter (libseccomp) that allows the system calls
 *     babeltrace2, glib, libevent, json-c, libdw and the worker make, and
 *     kills the whole process (SIGSYS) on any other one.
 *
 * Killing, rather than failing the call with EPERM: a call outside the list
 * is either an attack or a path of the libraries that the list missed; an
 * error code would let a library go on in a state nobody tested, and hide
 * both. The supervisor logs a worker killed by SIGSYS as such, and starts it
 * again with its usual back-off. A few calls that libraries make and cope
 * without are refused with an error rather than killed (see worker-sandbox.c).
 *
 * JANK_WORKER_SECCOMP=log in jankd's environment makes a call outside the
 * list logged by the kernel (audit) and allowed instead: for finding what a
 * new library version calls.
 */
#ifndef JANK_WORKER_SANDBOX_H
#define JANK_WORKER_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A worker's memory ceiling (address space): far above what one needs (about 50 MiB idle). */
#define JANK_WORKER_MEMORY_MAX (2ull << 30)
#define JANK_WORKER_MEMORY_MIN (16ull << 20)

/*
 * The ceiling: JANK_WORKER_MEMORY_MAX in the environment (bytes, or MiB
 * with "M"; at least 16 MiB), else the default. 0, or -EINVAL.
 */
int jank_worker_memory_max(uint64_t *out);

/* Who a worker runs as: resolved by the supervisor, given to the worker on its command line. */
struct jank_worker_user {
	uid_t uid;
	gid_t gid;
	bool same; /* stay the user jankd runs as (jankd is not root) */
};

/* "UID:GID", or "-" for same; the worker reads it back. Returns 0 or -EINVAL. */
int jank_worker_user_format(const struct jank_worker_user *u, char *buf, size_t len);
int jank_worker_user_parse(const char *s, struct jank_worker_user *u);

/*
 * In the worker: become `u`, drop every capability, no_new_privs, then the
 * seccomp filter. Returns 0, or -errno and what failed in `err`; the worker
 * must then exit (it may be half-way).
 */
int jank_worker_sandbox_enter(const struct jank_worker_user *u, char *err, size_t len);

/* The exit status of a worker that could not enter its sandbox. */
#define JANK_WORKER_EXIT_SANDBOX 4
/* The exit status of a worker whose allocation failed (its memory limit, most likely). */
#define JANK_WORKER_EXIT_MEMORY 5

/*
 * In the worker: an allocation glib cannot make (babeltrace2 allocates
 * through it, and glib ends the process then) ends the worker with
 * JANK_WORKER_EXIT_MEMORY, after glib's message, instead of a SIGTRAP that
 * says nothing of memory: the supervisor then says it ran out of memory.
 */
void jank_worker_catch_oom(void);

#endif
