/* SPDX-License-Identifier: MIT */
/*
 * daemon/log.c: jankd's diagnostics, to a sink (a worker's lines) or to
 * stderr as "jankd: ...", one line each; stderr is a temporary file here.
 */
#define _XOPEN_SOURCE 600 /* posix_openpt */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "log.h"

struct lines {
	unsigned n;
	int priority; /* of the last */
	char line[2048];
	void *data;
};

static void sink(int priority, const char *line, void *data)
{
	struct lines *l = data;

	l->n++;
	l->priority = priority;
	l->data = data;
	snprintf(l->line, sizeof(l->line), "%s", line);
}

/* Run jank_log's to stderr into `out`: stderr is a temporary file meanwhile. */
struct capture {
	FILE *tmp;
	int saved;
};

static void capture_begin(struct capture *c)
{
	fflush(stderr);
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	c->saved = dup(STDERR_FILENO);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->tmp), STDERR_FILENO) >= 0);
}

static size_t capture_end(struct capture *c, char *out, size_t len)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(c->saved, STDERR_FILENO) >= 0);
	close(c->saved);
	rewind(c->tmp);
	n = fread(out, 1, len - 1, c->tmp);
	out[n] = '\0';
	fclose(c->tmp);
	return n;
}

static int teardown(void **state)
{
	(void)state;
	jank_log_set_sink(NULL, NULL);
	jank_log_set_journal(false);
	return 0;
}

static void to_sink(void **state)
{
	struct lines l = { 0 };

	(void)state;
	jank_log_set_sink(sink, &l);
	jank_log(LOG_WARNING, "%s: %d restarts", "net://x/host/h/s", 3);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.priority, LOG_WARNING);
	assert_ptr_equal(l.data, &l);
	/* The sink gets the message alone: no "jankd: ", no newline. */
	assert_string_equal(l.line, "net://x/host/h/s: 3 restarts");
	jank_log(LOG_DEBUG, "second");
	assert_int_equal(l.n, 2);
	assert_int_equal(l.priority, LOG_DEBUG);
	assert_string_equal(l.line, "second");
}

static void sink_wins_over_journal(void **state)
{
	struct lines l = { 0 };
	struct capture c;
	char out[256];

	(void)state;
	jank_log_set_journal(true);
	jank_log_set_sink(sink, &l);
	capture_begin(&c);
	jank_log(LOG_ERR, "to the supervisor");
	assert_int_equal(capture_end(&c, out, sizeof(out)), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.priority, LOG_ERR);
	assert_string_equal(l.line, "to the supervisor");
}

static void to_stderr(void **state)
{
	struct capture c;
	char out[256];

	(void)state;
	capture_begin(&c);
	jank_log(LOG_INFO, "started, %u inputs", 2u);
	jank_log(LOG_ERR, "%s", "second line");
	capture_end(&c, out, sizeof(out));
	assert_string_equal(out, "jankd: started, 2 inputs\njankd: second line\n");
}

static void sink_removed(void **state)
{
	struct lines l = { 0 };
	struct capture c;
	char out[256];

	(void)state;
	jank_log_set_sink(sink, &l);
	jank_log_set_sink(NULL, NULL);
	capture_begin(&c);
	jank_log(LOG_NOTICE, "back to stderr");
	capture_end(&c, out, sizeof(out));
	assert_int_equal(l.n, 0);
	assert_string_equal(out, "jankd: back to stderr\n");
}

/* A line longer than the buffer is cut, not overflowed, and still ends the line. */
static void long_line(void **state)
{
	struct lines l = { 0 };
	struct capture c;
	char *big = malloc(4000), out[4096];
	size_t n;

	(void)state;
	assert_non_null(big);
	memset(big, 'x', 3999);
	big[3999] = '\0';
	jank_log_set_sink(sink, &l);
	jank_log(LOG_INFO, "%s", big);
	assert_int_equal(strlen(l.line), 1023);
	assert_int_equal(strspn(l.line, "x"), 1023);
	jank_log_set_sink(NULL, NULL);
	capture_begin(&c);
	jank_log(LOG_INFO, "%s", big);
	n = capture_end(&c, out, sizeof(out));
	assert_int_equal(n, strlen("jankd: ") + 1023 + 1);
	assert_memory_equal(out, "jankd: x", 8);
	assert_int_equal(out[n - 1], '\n');
	assert_int_equal(out[n - 2], 'x');
	free(big);
}

/* stderr on `fd` for fn(); the real one back after. */
static bool with_stderr(int fd, bool (*fn)(void))
{
	int saved = dup(STDERR_FILENO);
	bool r;

	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	r = fn();
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	return r;
}

/* --log-target=auto: stderr in a terminal, unless systemd runs jankd. */
static void auto_target(void **state)
{
	int pty = posix_openpt(O_RDWR | O_NOCTTY), tty, file;
	char js[64];
	struct stat st;

	(void)state;
	assert_true(pty >= 0);
	assert_int_equal(grantpt(pty), 0);
	assert_int_equal(unlockpt(pty), 0);
	tty = open(ptsname(pty), O_RDWR | O_NOCTTY);
	assert_true(tty >= 0);
	file = open("/dev/null", O_WRONLY);
	assert_true(file >= 0);
	unsetenv("INVOCATION_ID");
	unsetenv("JOURNAL_STREAM");
	/* A terminal: stderr. */
	assert_true(with_stderr(tty, jank_log_on_terminal));
	/* Not a terminal (a pipe, a file, systemd's stream): the journal. */
	assert_false(with_stderr(file, jank_log_on_terminal));
	/* A terminal, but a unit of systemd's (INVOCATION_ID): the journal. */
	setenv("INVOCATION_ID", "0123456789abcdef0123456789abcdef", 1);
	assert_false(with_stderr(tty, jank_log_on_terminal));
	setenv("INVOCATION_ID", "", 1);
	assert_true(with_stderr(tty, jank_log_on_terminal));
	unsetenv("INVOCATION_ID");
	/* JOURNAL_STREAM naming this very stderr: the journal; another stream's: stderr. */
	assert_int_equal(fstat(tty, &st), 0);
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", js, 1);
	assert_false(with_stderr(tty, jank_log_on_terminal));
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", js, 1);
	assert_true(with_stderr(tty, jank_log_on_terminal));
	setenv("JOURNAL_STREAM", "garbage", 1);
	assert_true(with_stderr(tty, jank_log_on_terminal));
	unsetenv("JOURNAL_STREAM");
	close(file);
	close(tty);
	close(pty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(to_sink, teardown),
		cmocka_unit_test_teardown(sink_wins_over_journal, teardown),
		cmocka_unit_test_teardown(to_stderr, teardown),
		cmocka_unit_test_teardown(sink_removed, teardown),
		cmocka_unit_test_teardown(long_line, teardown),
		cmocka_unit_test(auto_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
