/* SPDX-License-Identifier: MIT */
/*
 * The `jank` tracepoint provider proper: the probes that serialise events,
 * and the tracepoint definitions, compiled into libjank-ust.
 *
 * With both in the same object as the call sites, an application linked to
 * libjank-ust is traceable as soon as it starts: no LD_PRELOAD, no dlopen().
 * The probes register with liblttng-ust from a constructor.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "jank-tp.h"
