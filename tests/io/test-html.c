/* SPDX-License-Identifier: MIT */
/* io/html.c: HTML escaping of untrusted strings, URL encoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "html.h"

static void check(void (*fn)(FILE *, const char *), const char *s, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, s);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, want);
	free(buf);
}

#define FFFD "\xef\xbf\xbd"

static void markup(void **state)
{
	(void)state;
	check(jank_html_escape, "plain frame 12", "plain frame 12");
	check(jank_html_escape, "<script>x</script>\"q'&",
	      "&lt;script&gt;x&lt;/script&gt;&quot;q&#39;&amp;");
	check(jank_html_escape, "a=\"b\" onload='c'", "a=&quot;b&quot; onload=&#39;c&#39;");
	check(jank_html_escape, "&lt;", "&amp;lt;");
	check(jank_html_escape, "", "");
	check(jank_html_escape, NULL, "");
}

static void utf8(void **state)
{
	(void)state;
	check(jank_html_escape, "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\xa2",
	      "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\xa2");
	check(jank_html_escape,
	      "a\xff"
	      "b",
	      "a" FFFD "b");
	/* overlong '<' must not become a tag */
	check(jank_html_escape,
	      "\xc0\xbc"
	      "b",
	      FFFD FFFD "b");
	check(jank_html_escape, "\xe0\x80\xbc", FFFD FFFD FFFD);
	check(jank_html_escape, "\xed\xa0\x80", FFFD FFFD FFFD);	  /* a surrogate */
	check(jank_html_escape, "\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD); /* past U+10FFFF */
	check(jank_html_escape, "cut\xe2\x86", "cut" FFFD FFFD);
	check(jank_html_escape, "\xc2\x85", FFFD); /* a C1 control: one character */
	/* What XML 1.0 cannot carry: U+FFFE, U+FFFF. U+FFFD and U+10FFFF it can. */
	check(jank_html_escape,
	      "a\xef\xbf\xbf"
	      "b\xef\xbf\xbe",
	      "a" FFFD "b" FFFD);
	check(jank_html_escape, FFFD "\xf4\x8f\xbf\xbf", FFFD "\xf4\x8f\xbf\xbf");
	check(jank_html_escape, "bell\a\x1b[31m\x7f", "bell" FFFD FFFD "[31m" FFFD);
	check(jank_html_escape, "tab\tnl\n", "tab\tnl\n");
}

static void url(void **state)
{
	(void)state;
	check(jank_html_url_encode, "frame-1.x_y~", "frame-1.x_y~");
	check(jank_html_url_encode, "a b&c=d/\"<>'%", "a%20b%26c%3Dd%2F%22%3C%3E%27%25");
	check(jank_html_url_encode, "\xc3\xa9\xff", "%C3%A9%FF");
	check(jank_html_url_encode, NULL, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(markup),
		cmocka_unit_test(utf8),
		cmocka_unit_test(url),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
