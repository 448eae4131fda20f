/* SPDX-License-Identifier: MIT */
/*
 * The program's PID namespace: the inode of /proc/self/ns/pid, which is
 * what lttng-ust's pid_ns context records for a process of that namespace.
 * Read once at the start, before a worker's sandbox closes /proc.
 */
#include <stdint.h>
#include <sys/stat.h>
#include "pidns-home.h"
#include "pidns.h"

void jank_pidns_home_init(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) == 0 && st.st_ino <= UINT32_MAX)
		jank_pidns_set_home((uint32_t)st.st_ino);
}
