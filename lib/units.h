/* SPDX-License-Identifier: MIT */
/* The units users write in configs and on command lines, and read in outputs. */
#ifndef JANK_UNITS_H
#define JANK_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "16ms", "500us", "2s", "1.5s", "100ns", "1min", "1h". Returns 0 or -EINVAL. */
int jank_units_parse_duration(const char *s, int64_t *ns);
/* "256MiB", "2GiB", "64KiB", "1000000" (bytes), "10MB". Returns 0 or -EINVAL. */
int jank_units_parse_size(const char *s, uint64_t *bytes);
/* Human-readable duration: "2.10 ms", "40.3 s", "870 ns". Returns buf. */
const char *jank_units_duration(int64_t ns, char *buf, size_t len);
/* Human-readable size in powers of 1024: "512 B", "1.5 KiB", "2.0 GiB". Returns buf. */
const char *jank_units_size(uint64_t bytes, char *buf, size_t len);

#endif
