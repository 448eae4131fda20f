/* SPDX-License-Identifier: MIT */
/*
 * The figures of one live input, as `jankctl status` shows them under
 * "inputs": its state and counters, its engine's (actions, graph, memory),
 * and per rule the counts and latency percentiles. A worker process builds
 * it, and sends it to the supervisor with each heartbeat (worker-proto.h).
 */
#ifndef JANK_INPUT_STATUS_H
#define JANK_INPUT_STATUS_H

#include <json-c/json.h>
#include "live-input.h"

/* A new object (put it), NULL on allocation failure. */
struct json_object *jank_input_status_json(const struct jank_live_input *w);

#endif
