/* SPDX-License-Identifier: MIT */
/*
 * The baselines of jankd's inputs kept across restarts: a state file per
 * input in [daemon] state-dir, written when its worker sends its baselines,
 * read back for the next worker of the input (see fleet.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fleet-int.h"

/*
 * The state file of an input: "baselines-" then the URL's letters, digits,
 * dots and dashes (the others as '_', at most 96 of them), then a hash of
 * the whole URL (two URLs that read the same still differ), ".json".
 */
static void state_name(const char *url, char *buf, size_t len)
{
	char safe[97];
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n = 0;

	for (const char *c = url; *c; c++) {
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		if (n < sizeof(safe) - 1)
			safe[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
						    (*c >= '0' && *c <= '9') || *c == '.' ||
						    *c == '-'
					    ? *c
					    : '_';
	}
	safe[n] = '\0';
	snprintf(buf, len, "baselines-%s-%016" PRIx64 ".json", safe, h);
}

/*
 * The baselines saved for an input: NULL when there are none, or they
 * cannot be read (then one log line). Never through a link, at most
 * JANK_BASELINES_MAX_BYTES; the worker checks the rest.
 */
struct json_object *fleet_state_read(const struct jank_fleet *f, const char *url)
{
	char name[160], path[4096];
	struct json_object *doc = NULL;
	struct stat st;
	char *text = NULL;
	ssize_t got = 0;
	int fd;

	if (!f->state_dir)
		return NULL;
	state_name(url, name, sizeof(name));
	if (jank_dirtree_join(path, sizeof(path), f->state_dir, name) < 0)
		return NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT)
			jank_log(LOG_WARNING, "%s: the saved baselines are ignored: %s: %s", url,
				 path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size <= JANK_BASELINES_MAX_BYTES &&
	    (text = malloc((size_t)st.st_size + 1)))
		got = read(fd, text, (size_t)st.st_size);
	close(fd);
	if (text && got == st.st_size) {
		text[got] = '\0';
		doc = json_tokener_parse(text);
	}
	free(text);
	if (doc && !json_object_is_type(doc, json_type_object)) {
		json_object_put(doc);
		doc = NULL;
	}
	if (!doc)
		jank_log(LOG_WARNING,
			 "%s: the saved baselines are ignored: %s is not a JSON object of at "
			 "most %u bytes",
			 url, path, JANK_BASELINES_MAX_BYTES);
	return doc;
}

static int write_text(FILE *out, void *data)
{
	return fputs(data, out) < 0 || fputc('\n', out) == EOF ? -EIO : 0;
}

/* A worker's baselines into the state file of its input (the previous one replaced). */
void fleet_on_baselines(struct jank_fleet_input *in, struct json_object *msg)
{
	struct jank_fleet *f = in->fleet;
	struct json_object *doc;
	const char *format, *text;
	struct jank_jr jr;
	char name[160], err[256];
	int r;

	/* The worker reads them back (checked there); here, their kind and size. */
	jank_json_read_init(&jr);
	if (jank_json_read_member(&jr, msg, "baselines", json_type_object, true, &doc) < 0 ||
	    jank_json_read_str(&jr, doc, "format", true, 64, &format) < 0 ||
	    (strcmp(format, JANK_BASELINES_FORMAT) != 0 &&
	     jank_json_read_fail(&jr, "baselines.format", "not " JANK_BASELINES_FORMAT) < 0)) {
		fleet_refuse(in->proc, "baselines", jank_json_read_error(&jr, err, sizeof(err)));
		return;
	}
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
	if (!text)
		return;
	/* Written again by json-c, it may be longer than the frame was: not saved, no fault. */
	if (strlen(text) >= JANK_BASELINES_MAX_BYTES)
		return;
	if (!f->state_dir)
		return;
	state_name(in->url, name, sizeof(name));
	r = jank_dirtree_make(f->state_dir);
	if (r == 0)
		r = jank_dirtree_write_file(f->state_dir, name, write_text, (void *)text);
	if (r < 0 && !f->state_failed)
		jank_log(LOG_WARNING, "cannot save the baselines in %s: %s (said once)",
			 f->state_dir, strerror(-r));
	f->state_failed |= r < 0;
}
