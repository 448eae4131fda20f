/* SPDX-License-Identifier: MIT */
/*
 * Inside jankd's main program: what jankd.c, jankd-options.c and
 * jankd-reload.c share. Not for use outside daemon/jankd*.c.
 */
#ifndef JANK_JANKD_INT_H
#define JANK_JANKD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "clock.h"
#include "capturer.h"
#include "jankd.h"
#include "json-util.h"
#include "journal.h"
#include "log.h"
#include "preflight.h"
#include "status.h"
#include "web.h"
#include "units.h"
#include "worker-launch.h"
#include "worker-proc.h"
#include "worker-spawner.h"
#include "worker.h"

#ifndef JANK_VERSION
#define JANK_VERSION "unknown"
#endif

#define TICK_NS	   100000000LL	/* rate-limit windows close this often */
#define STOP_NS	   5000000000LL /* workers have this long to stop */
#define DRAIN_NS   1000000000LL /* at exit, journald has this long to take what waits */
#define ERR_LEN	   1024
#define STATUS_LEN 512

#ifndef JANK_DEFAULT_CONFIG
#define JANK_DEFAULT_CONFIG "/etc/jankd/jankd.conf"
#endif

/* jankd.c */
void jankd_alert_config(const struct jankd *d, struct jank_alert_config *ac);
void jankd_comp_history_rules(struct jankd *d);
int jankd_add_timer(struct jankd *d, struct event **ev, int64_t ns, event_callback_fn fn);
void jankd_on_status(evutil_socket_t fd, short what, void *data);
void jankd_notify_status(struct jankd *d, bool ready);

/* jankd-options.c */
int jankd_load_config(struct jank_config *c, struct jank_config_sources *src, const char *path,
		      char *err, size_t len);
void jankd_parse_options(int argc, char **argv, struct jankd *d);
int jankd_check_only(struct jankd *d);
size_t jankd_preflight(const struct jankd *d, bool all, const char *prefix);

/* jankd-reload.c */
void jankd_reload(struct jankd *d);

#endif
