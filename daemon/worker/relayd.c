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

static const char *entry_str(const bt_value *v, const char *key)
{
	const bt_value *s;

	if (bt_value_get_type(v) != BT_VALUE_TYPE_MAP)
		return NULL;
	s = bt_value_map_borrow_entry_value_const(v, key);
	return s && bt_value_get_type(s) == BT_VALUE_TYPE_STRING ? bt_value_string_get(s) : NULL;
}

/*
 * babeltrace2's ctf plugin, found once: finding it loads every plugin file
 * again, and an idle input asks relayd every second or so.
 */
static const bt_plugin *ctf_plugin(void)
{
	static const bt_plugin *plugin;

	if (!plugin && bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
				      &plugin) != BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		plugin = NULL;
	}
	return plugin;
}

/* The query's result, a new reference; NULL with a message and *r set. */
static const bt_value *query_sessions(const char *relay, int *r, char *err, size_t errlen)
{
	const bt_plugin *plugin = ctf_plugin();
	const bt_component_class_source *cls;
	bt_query_executor *q = NULL;
	const bt_value *result = NULL;
	bt_value *params = NULL;

	if (!plugin ||
	    !(cls = bt_plugin_borrow_source_component_class_by_name_const(plugin, "lttng-live"))) {
		snprintf(err, errlen, "cannot load babeltrace2's lttng-live source");
		*r = -ENOENT;
		goto end;
	}
	params = bt_value_map_create();
	q = params && !bt_value_map_insert_string_entry(params, "url", relay)
		    ? bt_query_executor_create(
			      bt_component_class_source_as_component_class_const(cls), "sessions",
			      params)
		    : NULL;
	if (!q) {
		*r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto end;
	}
	bt_query_executor_set_logging_level(q, BT_LOGGING_LEVEL_NONE);
	if (bt_query_executor_query(q, &result) != BT_QUERY_EXECUTOR_QUERY_STATUS_OK ||
	    bt_value_get_type(result) != BT_VALUE_TYPE_ARRAY) {
		bt_current_thread_clear_error();
		snprintf(err, errlen, "%s: relayd does not answer", relay);
		*r = -ECONNREFUSED;
		bt_value_put_ref(result);
		result = NULL;
	}
end:
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	return result;
}

int jank_relayd_list_sessions(const char *relay, jank_relayd_session_fn fn, void *data, char *err,
			      size_t errlen)
{
	int r = 0;
	const bt_value *result = query_sessions(relay, &r, err, errlen);

	if (!result)
		return r;
	for (uint64_t i = 0; i < bt_value_array_get_length(result); i++) {
		const bt_value *v = bt_value_array_borrow_element_by_index_const(result, i);
		const char *host = entry_str(v, "target-hostname");
		const char *session = entry_str(v, "session-name");

		if (host && session)
			fn(host, session, data);
	}
	bt_value_put_ref(result);
	return 0;
}

struct wanted {
	const char *host;
	size_t host_len;
	const char *session;
	bool found;
};

static void compare(const char *host, const char *session, void *data)
{
	struct wanted *w = data;

	if (strlen(host) == w->host_len && !strncmp(host, w->host, w->host_len) &&
	    !strcmp(session, w->session))
		w->found = true;
}

bool jank_relayd_url_on_host(const char *url, const char *hostname)
{
	const char *host = strstr(url, "/host/"), *end;

	if (!host || !(end = strchr(host + 6, '/')))
		return false;
	host += 6;
	return (size_t)(end - host) == strlen(hostname) &&
	       !strncmp(host, hostname, strlen(hostname));
}

int jank_relayd_has_session(const char *url, char *err, size_t errlen)
{
	const char *host = strstr(url, "/host/"), *session;
	struct wanted w = { 0 };
	char relay[1024];
	int r;

	if (!host || (size_t)(host - url) >= sizeof(relay) || !(session = strchr(host + 6, '/'))) {
		snprintf(err, errlen, "%s: not a live URL", url);
		return -EINVAL;
	}
	snprintf(relay, sizeof(relay), "%.*s", (int)(host - url), url);
	w.host = host + 6;
	w.host_len = (size_t)(session - w.host);
	w.session = session + 1;
	r = jank_relayd_list_sessions(relay, compare, &w, err, errlen);
	return r < 0 ? r : w.found;
}
