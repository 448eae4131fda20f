/* SPDX-License-Identifier: MIT */
/*
 * daemon/log.c: jankd's diagnostics, to a sink (a worker's lines) or to
 * stderr as "jankd: ...", one line each; stderr is a temporary file here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(to_sink, teardown),
		cmocka_unit_test_teardown(sink_wins_over_journal, teardown),
		cmocka_unit_test_teardown(to_stderr, teardown),
		cmocka_unit_test_teardown(sink_removed, teardown),
		cmocka_unit_test_teardown(long_line, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
