/* SPDX-License-Identifier: MIT */
/* Parsing of the units users write in configs and on command lines. */
#ifndef JANK_UNITS_H
#define JANK_UNITS_H

#include <stdint.h>

/* "16ms", "500us", "2s", "1.5s", "100ns", "1min", "1h". Returns 0 or -EINVAL. */
int jank_parse_duration(const char *s, int64_t *ns);
/* "256MiB", "2GiB", "64KiB", "1000000" (bytes), "10MB". Returns 0 or -EINVAL. */
int jank_parse_size(const char *s, uint64_t *bytes);
/* Human-readable duration: "2.10 ms", "40.3 s", "870 ns". Returns buf. */
const char *jank_format_duration(int64_t ns, char *buf, unsigned len);

#endif
