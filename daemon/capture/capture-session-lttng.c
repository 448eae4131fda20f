/* SPDX-License-Identifier: MIT */
/* The capture session's lttng-ctl: daemon/lttng/lttng-session.c (see capture-session.h). */
#include "capture-session.h"
#include "lttng-session.h"

static int create(const struct jank_lttng_session_spec *spec, const char *output,
		  uint64_t period_us, uint64_t size, bool *kernel_ok, char *err, size_t len)
{
	if (output)
		return jank_lttng_session_create_rotating(spec, output, period_us, size, kernel_ok,
							  err, len);
	return jank_lttng_session_create_snapshot(spec, NULL, kernel_ok, err, len);
}

static int rotate(const char *name, bool (*covered)(void *arg), void *arg, char *err, size_t len)
{
	return jank_lttng_session_rotate(name, covered, arg, NULL, 0, err, len);
}

const struct jank_capture_session_ops jank_capture_session_lttng_ops = {
	.create = create,
	.destroy = jank_lttng_session_destroy,
	.exists = jank_lttng_session_exists,
	.snapshot_record = jank_lttng_session_snapshot_record,
	.rotate = rotate,
	.answers = jank_lttng_sessiond_answers,
};
