/* SPDX-License-Identifier: MIT */
/*
 * The "sessions" query of src.ctf.lttng-live: a list of maps with
 * "target-hostname" and "session-name" (and counts), one per live session
 * relayd serves.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <babeltrace2/babeltrace.h>
#include "relayd.h"

static bool entry_is(const bt_value *v, const char *key, const char *want, size_t len)
{
	const bt_value *s;

	if (bt_value_get_type(v) != BT_VALUE_TYPE_MAP)
		return false;
	s = bt_value_map_borrow_entry_value_const(v, key);
	return s && bt_value_get_type(s) == BT_VALUE_TYPE_STRING &&
	       strlen(bt_value_string_get(s)) == len && !strncmp(bt_value_string_get(s), want, len);
}

int jank_relayd_has_session(const char *url, char *err, size_t errlen)
{
	const char *host = strstr(url, "/host/"), *session;
	const bt_component_class_source *cls;
	const bt_plugin *plugin = NULL;
	bt_query_executor *q = NULL;
	const bt_value *result = NULL;
	bt_value *params = NULL;
	char relay[1024];
	int r = -EINVAL;

	if (!host || (size_t)(host - url) >= sizeof(relay) || !(session = strchr(host + 6, '/'))) {
		snprintf(err, errlen, "%s: not a live URL", url);
		return -EINVAL;
	}
	snprintf(relay, sizeof(relay), "%.*s", (int)(host - url), url);
	host += 6;
	session++;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &plugin) !=
		    BT_PLUGIN_FIND_STATUS_OK ||
	    !(cls = bt_plugin_borrow_source_component_class_by_name_const(plugin, "lttng-live"))) {
		bt_current_thread_clear_error();
		snprintf(err, errlen, "cannot load babeltrace2's lttng-live source");
		r = -ENOENT;
		goto end;
	}
	params = bt_value_map_create();
	if (!params || bt_value_map_insert_string_entry(params, "url", relay)) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto end;
	}
	q = bt_query_executor_create(bt_component_class_source_as_component_class_const(cls),
				     "sessions", params);
	if (!q) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto end;
	}
	bt_query_executor_set_logging_level(q, BT_LOGGING_LEVEL_NONE);
	if (bt_query_executor_query(q, &result) != BT_QUERY_EXECUTOR_QUERY_STATUS_OK ||
	    bt_value_get_type(result) != BT_VALUE_TYPE_ARRAY) {
		bt_current_thread_clear_error();
		snprintf(err, errlen, "%s: relayd does not answer", relay);
		r = -ECONNREFUSED;
		goto end;
	}
	r = 0;
	for (uint64_t i = 0; i < bt_value_array_get_length(result); i++) {
		const bt_value *v = bt_value_array_borrow_element_by_index_const(result, i);

		if (entry_is(v, "target-hostname", host, (size_t)(session - 1 - host)) &&
		    entry_is(v, "session-name", session, strlen(session)))
			r = 1;
	}
end:
	bt_value_put_ref(result);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	bt_plugin_put_ref(plugin);
	return r;
}
