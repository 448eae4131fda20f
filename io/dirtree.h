/* SPDX-License-Identifier: MIT */
/*
 * Directory trees on disk, for the capture directory: make, measure,
 * remove, move. Trees are walked with the *at() calls and never follow a
 * symbolic link, so that a link planted in the capture dir cannot make jank
 * count, copy or delete anything outside it. Every function returns 0 or
 * -errno.
 */
#ifndef JANK_DIRTREE_H
#define JANK_DIRTREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JANK_DIRTREE_MODE 0750 /* the directories jank makes */

/* mkdir -p, mode JANK_DIRTREE_MODE. */
int jank_dirtree_make(const char *path);
/* buf = "DIR/NAME"; -ENAMETOOLONG when it does not fit. */
int jank_dirtree_join(char *buf, size_t len, const char *dir, const char *name);
/* Size on disk (allocated blocks) of a file or tree. */
int jank_dirtree_du(const char *path, uint64_t *bytes);
/* The same for `name` in the directory open as `dirfd`. */
int jank_dirtree_du_at(int dirfd, const char *name, uint64_t *bytes);
/* Remove a tree: what can be removed is, and the first error is returned. */
int jank_dirtree_remove(const char *path);
/*
 * Move FROM_DIR/NAME to TO_DIR/NAME: a rename, or across filesystems a copy
 * (regular files and directories) then a removal. A failed copy leaves
 * nothing at the destination.
 */
int jank_dirtree_move(const char *from_dir, const char *name, const char *to_dir);
/*
 * Write DIR/NAME whole through `fn` (0 or -errno): into DIR/.NAME.tmp,
 * renamed over DIR/NAME once complete, so that a reader never sees half a
 * file; removed on failure. Every file jank writes goes through here. DIR
 * is opened O_DIRECTORY|O_NOFOLLOW, the temporary file is created with
 * openat(O_CREAT|O_EXCL|O_NOFOLLOW) (a stale one, or a link planted in its
 * place, is unlinked first), and renamed within that directory: a link
 * planted at either name is replaced, never written through. NAME has no
 * '/' (-EINVAL).
 */
int jank_dirtree_write_file(const char *dir, const char *name, int (*fn)(FILE *f, void *data),
			    void *data);

#endif
