/* SPDX-License-Identifier: MIT */
/*
 * The worker's end of a channel to the supervisor that answers with a
 * descriptor (the binary opener's and the relayd broker's): a
 * SOCK_SEQPACKET socket at a fixed descriptor number, one fixed-size reply
 * per packet, at most one descriptor with it (SCM_RIGHTS).
 */
#ifndef JANK_FD_CHANNEL_H
#define JANK_FD_CHANNEL_H

#include <stddef.h>

/* fd if it is a SOCK_SEQPACKET socket (made close-on-exec), else -1. */
int jank_fd_channel_open(int fd);

/*
 * One reply of exactly `len` bytes from channel `ch`, without waiting:
 * 1 with *fd (-1: none came), 0 when nothing is there, -1 when the packet
 * is of another size, cut, or the channel is over (a descriptor that came
 * with it is closed).
 */
int jank_fd_channel_recv(int ch, void *rep, size_t len, int *fd);

#endif
