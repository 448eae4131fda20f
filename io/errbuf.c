/* SPDX-License-Identifier: MIT */
/* Error messages for the caller (see errbuf.h). */
#include <stdarg.h>
#include <stdio.h>
#include "errbuf.h"

void jank_errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}
