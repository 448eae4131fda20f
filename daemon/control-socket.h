/* SPDX-License-Identifier: MIT */
/*
 * The control socket of jankd: a unix stream socket, mode 0660 root:jank
 * (0600 when there is no group jank): root and the group's members.
 *
 * Protocol: the client sends one request line ("status" or "status json"),
 * jankd sends the reply and closes. An error reply is one line that starts
 * with "error: ". Peers that are neither root nor members of jank
 * (SO_PEERCRED, SO_PEERGROUPS) get such an error. Every request is
 * read-only: one that changed anything would have to be root's only.
 */
#ifndef JANK_CONTROL_SOCKET_H
#define JANK_CONTROL_SOCKET_H

#include <stddef.h>
#include <event2/event.h>

#define JANK_CONTROL_DEFAULT_PATH "/run/jankd/control"
#define JANK_CONTROL_MAX_REQUEST  256
/* Its members may read status without root (every request is read-only). */
#define JANK_CONTROL_GROUP "jank"

/* Answer one request: a malloc'ed reply (ending with a newline), or NULL (out of memory). */
typedef char *(*jank_control_socket_fn)(const char *request, void *data);

struct jank_control;

/*
 * Listen on `path` (its parent directory is created 0755 when missing; a
 * stale socket is replaced, a live one is an error). NULL and a message in
 * err on failure.
 */
struct jank_control *jank_control_socket_open(struct event_base *base, const char *path,
					      jank_control_socket_fn fn, void *data, char *err,
					      size_t errlen);
/* Close every connection, stop listening and remove the socket. */
void jank_control_socket_close(struct jank_control *c);

#endif
