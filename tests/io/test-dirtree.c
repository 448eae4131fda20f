/* SPDX-License-Identifier: MIT */
/*
 * io/dirtree.c: making, measuring, removing, moving and writing in a
 * temporary directory, and never following a symbolic link out of a tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "dirtree.h"

static char root[] = "/tmp/jank-test-dirtree-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return jank_dirtree_remove(root);
}

/* root/REL */
static const char *at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", root, rel);
	return buf[i];
}

static void put(const char *rel, size_t bytes)
{
	FILE *f = fopen(at(rel), "w");

	assert_non_null(f);
	for (size_t i = 0; i < bytes; i++)
		fputc('a' + (int)(i % 26), f);
	assert_int_equal(fclose(f), 0);
}

static uint64_t blocks(const char *rel)
{
	struct stat st;

	assert_int_equal(lstat(at(rel), &st), 0);
	return (uint64_t)st.st_blocks * 512;
}

static bool exists(const char *rel)
{
	struct stat st;

	return lstat(at(rel), &st) == 0;
}

static void make(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(jank_dirtree_make(at("m/a/b/c")), 0);
	assert_int_equal(stat(at("m/a/b/c"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777 & ~JANK_DIRTREE_MODE, 0);
	assert_int_equal(jank_dirtree_make(at("m/a/b/c")), 0); /* already there */
	assert_int_equal(jank_dirtree_make(at("m/a/b/d/")), 0);
	assert_int_equal(stat(at("m/a/b/d"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(jank_dirtree_make(""), -ENAMETOOLONG);
	/* A file in the way. */
	put("m/file", 1);
	assert_int_equal(jank_dirtree_make(at("m/file/sub")), -ENOTDIR);
	assert_int_equal(jank_dirtree_make(at("m/file")), -EEXIST);
	assert_int_equal(jank_dirtree_remove(at("m")), 0);
}

static void join(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(jank_dirtree_join(buf, sizeof(buf), "abc", "def"), 0);
	assert_string_equal(buf, "abc/def");
	assert_int_equal(jank_dirtree_join(buf, sizeof(buf), "abc", "defg"), -ENAMETOOLONG);
	assert_int_equal(jank_dirtree_join(buf, sizeof(buf), "", ""), 0);
	assert_string_equal(buf, "/");
	assert_int_equal(jank_dirtree_join(buf, 1, "", ""), -ENAMETOOLONG);
	assert_int_equal(jank_dirtree_join(NULL, 0, "a", "b"), -ENAMETOOLONG);
}

static void du(void **state)
{
	uint64_t bytes = 1, want;
	int dfd;

	(void)state;
	assert_int_equal(jank_dirtree_make(at("du/sub")), 0);
	put("du/a", 70000);
	put("du/sub/b", 5000);
	put("du/empty", 0);
	put("big", 1 << 20);
	assert_int_equal(symlink(at("big"), at("du/link")), 0);
	want = blocks("du") + blocks("du/sub") + blocks("du/a") + blocks("du/sub/b") +
	       blocks("du/empty") + blocks("du/link");
	assert_true(want >= 75000);
	assert_int_equal(jank_dirtree_du(at("du"), &bytes), 0);
	assert_int_equal(bytes, want); /* the link, not the megabyte it points to */
	assert_int_equal(jank_dirtree_du(at("du/a"), &bytes), 0);
	assert_int_equal(bytes, blocks("du/a"));
	assert_int_equal(jank_dirtree_du(at("du/link"), &bytes), 0);
	assert_int_equal(bytes, blocks("du/link"));
	assert_int_equal(jank_dirtree_du(at("du/empty"), &bytes), 0);
	assert_int_equal(bytes, 0);
	dfd = open(at("du"), O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(jank_dirtree_du_at(dfd, "sub", &bytes), 0);
	assert_int_equal(bytes, blocks("du/sub") + blocks("du/sub/b"));
	close(dfd);
	/* Gone: nothing to count. */
	bytes = 7;
	assert_int_equal(jank_dirtree_du(at("du/none"), &bytes), 0);
	assert_int_equal(bytes, 0);
	assert_int_equal(jank_dirtree_remove(at("du")), 0);
	assert_true(exists("big"));
	assert_int_equal(unlink(at("big")), 0);
}

static void remove_tree(void **state)
{
	(void)state;
	assert_int_equal(jank_dirtree_make(at("rm/a/b")), 0);
	assert_int_equal(jank_dirtree_make(at("outside/keep")), 0);
	put("rm/a/b/f", 10);
	put("rm/g", 10);
	put("outside/keep/precious", 10);
	assert_int_equal(symlink(at("outside"), at("rm/a/dirlink")), 0);
	assert_int_equal(symlink(at("outside/keep/precious"), at("rm/filelink")), 0);
	assert_int_equal(jank_dirtree_remove(at("rm")), 0);
	assert_false(exists("rm"));
	assert_true(exists("outside/keep/precious"));
	assert_int_equal(jank_dirtree_remove(at("rm")), 0); /* already gone */
	/* A single file, and a link itself. */
	assert_int_equal(symlink(at("outside"), at("lnk")), 0);
	assert_int_equal(jank_dirtree_remove(at("lnk")), 0);
	assert_false(exists("lnk"));
	assert_true(exists("outside/keep"));
	assert_int_equal(jank_dirtree_remove(at("outside/keep/precious")), 0);
	assert_false(exists("outside/keep/precious"));
	assert_int_equal(jank_dirtree_remove(at("outside")), 0);
	assert_int_equal(jank_dirtree_remove(at("file/in/nothing")), 0);
}

static void move(void **state)
{
	(void)state;
	assert_int_equal(jank_dirtree_make(at("from/cap/sub")), 0);
	assert_int_equal(jank_dirtree_make(at("to")), 0);
	put("from/cap/sub/x", 100);
	assert_int_equal(jank_dirtree_move(at("from"), "cap", at("to")), 0);
	assert_false(exists("from/cap"));
	assert_true(exists("to/cap/sub/x"));
	assert_int_equal(jank_dirtree_move(at("from"), "cap", at("to")), -ENOENT);
	assert_int_equal(jank_dirtree_move(at("to"), "cap", at("nowhere")), -ENOENT);
	assert_true(exists("to/cap/sub/x"));
	/* Onto a non-empty directory of that name: refused, both kept. */
	assert_int_equal(jank_dirtree_make(at("from/cap")), 0);
	put("from/cap/y", 1);
	assert_true(jank_dirtree_move(at("from"), "cap", at("to")) < 0);
	assert_true(exists("from/cap/y"));
	assert_true(exists("to/cap/sub/x"));
	assert_int_equal(jank_dirtree_remove(at("from")), 0);
	assert_int_equal(jank_dirtree_remove(at("to")), 0);
}

static int write_hello(FILE *f, void *data)
{
	fputs((const char *)data, f);
	return 0;
}

static int write_fail(FILE *f, void *data)
{
	(void)data;
	fputs("half", f);
	return -EINVAL;
}

static void read_back(const char *rel, const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(at(rel), "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, want);
}

static void write_file(void **state)
{
	char name[PATH_MAX];

	(void)state;
	assert_int_equal(jank_dirtree_write_file(root, "w.json", write_hello, "hello\n"), 0);
	read_back("w.json", "hello\n");
	assert_false(exists(".w.json.tmp"));
	assert_int_equal(jank_dirtree_write_file(root, "w.json", write_hello, ""), 0);
	read_back("w.json", "");
	assert_int_equal(jank_dirtree_write_file(root, "w.json", write_hello, "again"), 0);
	/* A failed write leaves the old file whole and no temporary. */
	assert_int_equal(jank_dirtree_write_file(root, "w.json", write_fail, NULL), -EINVAL);
	read_back("w.json", "again");
	assert_false(exists(".w.json.tmp"));
	assert_int_equal(jank_dirtree_write_file(root, "new", write_fail, NULL), -EINVAL);
	assert_false(exists("new"));
	assert_false(exists(".new.tmp"));
	assert_int_equal(jank_dirtree_write_file(at("nodir"), "x", write_hello, "x"), -ENOENT);
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(jank_dirtree_write_file(root, name, write_hello, "x"), -ENAMETOOLONG);
	assert_int_equal(unlink(at("w.json")), 0);
}

/*
 * Links planted where the file and its temporary go (by whoever can write
 * the directory) are replaced, never written through; a directory that is
 * a link is refused.
 */
static void write_file_links(void **state)
{
	struct stat st;

	(void)state;
	put("victim", 0);
	assert_int_equal(jank_dirtree_write_file(root, "victim", write_hello, "secret"), 0);
	assert_int_equal(symlink(at("victim"), at(".r.json.tmp")), 0);
	assert_int_equal(symlink(at("victim"), at("r.json")), 0);
	assert_int_equal(jank_dirtree_write_file(root, "r.json", write_hello, "report"), 0);
	read_back("victim", "secret");
	assert_int_equal(lstat(at("r.json"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	read_back("r.json", "report");
	assert_false(exists(".r.json.tmp"));
	assert_int_equal(symlink(root, at("linkdir")), 0);
	assert_true(jank_dirtree_write_file(at("linkdir"), "victim", write_hello, "x") < 0);
	read_back("victim", "secret");
	assert_int_equal(jank_dirtree_write_file(root, "a/b", write_hello, "x"), -EINVAL);
	unlink(at("linkdir"));
	unlink(at("r.json"));
	unlink(at("victim"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(make),
		cmocka_unit_test(join),
		cmocka_unit_test(du),
		cmocka_unit_test(remove_tree),
		cmocka_unit_test(move),
		cmocka_unit_test(write_file),
		cmocka_unit_test(write_file_links),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
