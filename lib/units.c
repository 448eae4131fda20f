/* SPDX-License-Identifier: MIT */
/* Durations and sizes as users write them, and durations as users read them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "units.h"

struct unit {
	const char *suffix;
	double mult;
};

static int parse_with_units(const char *s, const struct unit *units, double *out)
{
	char *endp;
	double v;

	if (!s)
		return -EINVAL;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0' || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &endp);
	if (errno || endp == s || !isfinite(v) || v < 0)
		return -EINVAL;
	while (*endp == ' ')
		endp++;
	for (const struct unit *u = units; u->suffix; u++) {
		size_t n = strlen(u->suffix);

		if (strncasecmp(endp, u->suffix, n) != 0)
			continue;
		const char *rest = endp + n;

		while (*rest == ' ' || *rest == '\t')
			rest++;
		if (*rest != '\0')
			continue;
		*out = v * u->mult;
		return 0;
	}
	return -EINVAL;
}

int jank_units_parse_duration(const char *s, int64_t *ns)
{
	/* Longest suffixes first so that "ms" is not read as "m" + "s". */
	static const struct unit units[] = {
		{ "ns", 1 },	 { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 },	{ "sec", 1e9 },
		{ "min", 60e9 }, { "s", 1e9 },	{ "m", 60e9 }, { "h", 3600e9 }, { NULL, 0 },
	};
	double v;

	if (parse_with_units(s, units, &v) < 0 || v >= 9.2e18)
		return -EINVAL;
	*ns = (int64_t)llround(v);
	return 0;
}

int jank_units_parse_size(const char *s, uint64_t *bytes)
{
	static const struct unit units[] = {
		{ "KiB", 1024.0 },
		{ "MiB", 1048576.0 },
		{ "GiB", 1073741824.0 },
		{ "TiB", 1099511627776.0 },
		{ "KB", 1e3 },
		{ "MB", 1e6 },
		{ "GB", 1e9 },
		{ "TB", 1e12 },
		{ "K", 1024.0 },
		{ "M", 1048576.0 },
		{ "G", 1073741824.0 },
		{ "B", 1 },
		{ "", 1 },
		{ NULL, 0 },
	};
	double v;

	if (parse_with_units(s, units, &v) < 0 || v >= 1.8e19)
		return -EINVAL;
	*bytes = (uint64_t)llround(v);
	return 0;
}

const char *jank_units_duration(int64_t ns, char *buf, size_t len)
{
	double a = fabs((double)ns);

	if (a < 1e3)
		snprintf(buf, len, "%lld ns", (long long)ns);
	else if (a < 1e6)
		snprintf(buf, len, "%.*f us", a < 1e4 ? 2 : a < 1e5 ? 1 : 0, ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.*f ms", a < 1e7 ? 2 : a < 1e8 ? 1 : 0, ns / 1e6);
	else
		snprintf(buf, len, "%.*f s", a < 1e10 ? 2 : a < 1e11 ? 1 : 0, ns / 1e9);
	return buf;
}

const char *jank_units_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}
