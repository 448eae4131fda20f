/* SPDX-License-Identifier: MIT */
/* Directory trees on disk (see dirtree.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dirtree.h"

int jank_dirtree_make(const char *path)
{
	char tmp[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, n + 1);
	for (char *s = tmp + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(tmp, JANK_DIRTREE_MODE) != 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(tmp, JANK_DIRTREE_MODE) != 0) {
		struct stat st;

		if (errno != EEXIST)
			return -errno;
		/* As mkdir -p: what is there must be a directory. */
		if (stat(tmp, &st) != 0)
			return -errno;
		if (!S_ISDIR(st.st_mode))
			return -EEXIST;
	}
	return 0;
}

int jank_dirtree_join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int du_at(int dirfd, const char *name, uint64_t *bytes, int depth)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, r = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -errno; /* gone meanwhile */
	*bytes += (uint64_t)st.st_blocks * 512;
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (depth > 64)
		return -ELOOP;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while (r == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = du_at(fd, de->d_name, bytes, depth + 1);
	}
	closedir(d);
	return r;
}

int jank_dirtree_du_at(int dirfd, const char *name, uint64_t *bytes)
{
	*bytes = 0;
	return du_at(dirfd, name, bytes, 0);
}

int jank_dirtree_du(const char *path, uint64_t *bytes)
{
	return jank_dirtree_du_at(AT_FDCWD, path, bytes);
}

static int rm_at(int dirfd, const char *name, int depth)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, r = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) == 0 || errno == ENOENT ? 0 : -errno;
	if (depth > 64)
		return -ELOOP;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		int e;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		e = rm_at(fd, de->d_name, depth + 1);
		if (e < 0 && r == 0)
			r = e; /* remove what can be removed; report the first error */
	}
	closedir(d);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

int jank_dirtree_remove(const char *path)
{
	return rm_at(AT_FDCWD, path, 0);
}

static int copy_file_at(int sfd, const char *name, int dfd, mode_t mode)
{
	char buf[65536];
	int in, out, r = 0;
	ssize_t n;

	in = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0) {
				r = -errno;
				goto end;
			}
			off += w;
		}
	}
	if (n < 0)
		r = -errno;
end:
	if (close(out) != 0 && r == 0)
		r = -errno;
	close(in);
	return r;
}

static int copy_at(int sfd, const char *name, int dfd, int depth)
{
	struct dirent *de;
	struct stat st;
	int s, d, r = 0;
	DIR *dir;

	if (fstatat(sfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	if (S_ISREG(st.st_mode))
		return copy_file_at(sfd, name, dfd, st.st_mode);
	if (!S_ISDIR(st.st_mode))
		return 0; /* a trace holds files and directories only */
	if (depth > 64)
		return -ELOOP;
	if (mkdirat(dfd, name, JANK_DIRTREE_MODE) != 0)
		return -errno;
	s = openat(sfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s < 0)
		return -errno;
	d = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0) {
		r = -errno;
		close(s);
		return r;
	}
	dir = fdopendir(s);
	if (!dir) {
		r = -errno;
		close(s);
		close(d);
		return r;
	}
	while (r == 0 && (de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = copy_at(s, de->d_name, d, depth + 1);
	}
	closedir(dir);
	close(d);
	return r;
}

int jank_dirtree_move(const char *from_dir, const char *name, const char *to_dir)
{
	char src[PATH_MAX], dst[PATH_MAX];
	int sfd, dfd, r;

	if (jank_dirtree_join(src, sizeof(src), from_dir, name) < 0 ||
	    jank_dirtree_join(dst, sizeof(dst), to_dir, name) < 0)
		return -ENAMETOOLONG;
	if (rename(src, dst) == 0)
		return 0;
	if (errno != EXDEV)
		return -errno;
	sfd = open(from_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dfd = open(to_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = sfd < 0 || dfd < 0 ? -errno : copy_at(sfd, name, dfd, 0);
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	if (r < 0) {
		jank_dirtree_remove(dst);
		return r;
	}
	return jank_dirtree_remove(src);
}

/*
 * Create NAME in the directory dfd, never through a link: O_EXCL makes a
 * new file (a leftover of the same name, be it a link planted there, is
 * removed first: unlinkat removes the link itself, never what it points at),
 * and O_NOFOLLOW refuses a link that appears in between.
 */
static FILE *create_at(int dfd, const char *name, mode_t mode)
{
	int fd;
	FILE *f;

	if (unlinkat(dfd, name, 0) != 0 && errno != ENOENT)
		return NULL;
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "we");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

int jank_dirtree_write_file(const char *dir, const char *name, int (*fn)(FILE *f, void *data),
			    void *data)
{
	char tmp[NAME_MAX + 1];
	int dfd, r;
	FILE *f;

	if (strchr(name, '/'))
		return -EINVAL;
	if (snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	f = create_at(dfd, tmp, 0644);
	if (!f) {
		r = -errno;
		close(dfd);
		return r;
	}
	r = fn(f, data);
	if (fflush(f) != 0 && r == 0)
		r = -errno;
	if (ferror(f) && r == 0)
		r = -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	/* Within the directory: a link named NAME is replaced, not followed. */
	if (r == 0 && renameat(dfd, tmp, dfd, name) != 0)
		r = -errno;
	if (r < 0)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	return r;
}
