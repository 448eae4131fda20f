/* SPDX-License-Identifier: MIT */
/*
 * jankd's web pages ([web] listen): read-only views of the recent janks,
 * served by the metrics server's machinery (metrics-server.h: connection
 * limit, deadlines, evictions) on jankd's loop.
 *
 *   /                        the recent janks, newest first; ?host=H&action=A filter them
 *   /jank/ID                 one jank: its path in words, suspects, capture files
 *   /jank/ID/states.svg      its path's time per state, as one stacked bar
 *   /composition.svg?action=A  the rule's slow critical-path time per interval over the
 *                            last minutes (comp-history.h), stacked by state; &by=on by
 *                            the thread waited on (its top names, the rest as "other")
 *   /capture/NAME/FILE       a capture's report.txt, report.json, critical-path.svg or
 *                            flame.svg, from [capture] dir/NAME (no link followed)
 *   /style.css               the pages' only style
 *
 * Everything shown comes from traced programs: it is escaped (io/html.h),
 * and every answer carries a Content-Security-Policy that allows no script,
 * no inline style and nothing from elsewhere, and X-Content-Type-Options:
 * nosniff. The pages work without JavaScript (they have none).
 */
#ifndef JANK_WEB_H
#define JANK_WEB_H

#include "metrics-server.h"

#define JANK_WEB_CSP                                                                               \
	"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "               \
	"frame-ancestors 'none'; base-uri 'none'"
/* A capture file larger than this is not served. */
#define JANK_WEB_MAX_FILE (64u << 20)

struct jankd;

/* The handler for jank_metrics_server_open_web(); data: the struct jankd. */
void jank_web_handle(struct evhttp_request *req, const char *path, void *data);

#endif
