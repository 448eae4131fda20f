/* SPDX-License-Identifier: MIT */
/*
 * binaries.json, a file of a capture report (capture-report.h): each binary
 * the path's user-space addresses fell in (path, build-id, where each
 * process mapped it, the file its symbols came from), with those addresses
 * in the binary's own terms and the names they got; then the addresses no
 * known mapping held. Enough to name them again on another host with the
 * same builds (addr2line -e BINARY OFFSET).
 *
 *   {"format":"jank-binaries/1","binaries":[{"path","build_id",
 *    "build_id_from"?,"debug_link"?,"symbol_file","first_load_vaddr"?,
 *    "mappings":[{"pid","base","size"?,"pic"}],"frames":[{"pid","address",
 *    "offset","name"}]}],"unmapped":[{"pid","address","name"}]}
 */
#ifndef JANK_CAPTURE_BINARIES_H
#define JANK_CAPTURE_BINARIES_H

#include <json-c/json.h>
#include "critpath.h"
#include "symbols.h"

/* A new object (put it) for path `p` as `sym` (may be NULL) maps it now; NULL when out of memory.
 */
struct json_object *jank_capture_binaries_json(const struct jank_path *p,
					       const struct jank_symbols *sym);

#endif
