/* SPDX-License-Identifier: MIT */
/*
 * The figures of one live input (input-figures.h), as its worker process
 * reads them from its live input and engine, and sends them to the
 * supervisor with each heartbeat (worker-proto.h).
 */
#ifndef JANK_INPUT_STATUS_H
#define JANK_INPUT_STATUS_H

#include <json-c/json.h>
#include "input-figures.h"
#include "live-input.h"

/* Fill `f` (initialized). Returns 0 or -ENOMEM. */
int jank_input_status_figures(const struct jank_live_input *w, struct jank_input_figures *f);
/* Their JSON form (jank_input_figures_json()): a new object (put it), NULL on allocation failure.
 */
struct json_object *jank_input_status_json(const struct jank_live_input *w);

#endif
