/* SPDX-License-Identifier: MIT */
/*
 * binaries.json of a capture report (see capture-binaries.h): the binaries
 * are listed in the order the path's frames first fall in them, each
 * process's mapping of one once per (process, base).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "capture-binaries.h"
#include "json-util.h"

/* A binary of binaries.json being built, and the processes that map it. */
struct bin_entry {
	const char *path;
	const uint8_t *build_id;
	size_t build_id_len;
	struct json_object *mappings, *frames;
};

struct bin_mapping {
	size_t entry;
	int32_t pid;
	uint64_t base;
};

struct bin_list {
	struct bin_entry *v;
	size_t n, cap;
	struct bin_mapping *maps;
	size_t nmaps, maps_cap;
};

/* Appends v to array a (v NULL: out of memory). 0 or -ENOMEM. */
static int append(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(a, v) != 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static struct json_object *hex_json(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_object_new_string(buf);
}

static struct json_object *build_id_json(const uint8_t *id, size_t len)
{
	char buf[2 * JANK_SYMBOLS_MAX_BUILD_ID + 1];

	if (!id || !len)
		return NULL;
	for (size_t i = 0; i < len && i < JANK_SYMBOLS_MAX_BUILD_ID; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
	return json_object_new_string(buf);
}

/* The entry of the binary at pl, added to `all` when new; NULL when out of memory. */
static struct bin_entry *bin_entry(struct bin_list *l, struct json_object *all,
				   const struct jank_symbols_place *pl)
{
	struct json_object *o;
	struct bin_entry *e;
	int err = 0;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].path, pl->path) && l->v[i].build_id_len == pl->build_id_len &&
		    (!pl->build_id_len ||
		     !memcmp(l->v[i].build_id, pl->build_id, pl->build_id_len)))
			return &l->v[i];
	if (l->n == l->cap) {
		size_t cap = jank_array_grow(&l->v, sizeof(*l->v), l->cap, 8);

		if (!cap)
			return NULL;
		l->cap = cap;
	}
	if (!(o = json_object_new_object()) || append(all, o) < 0)
		return NULL;
	e = &l->v[l->n];
	*e = (struct bin_entry){ pl->path, pl->build_id, pl->build_id_len, json_object_new_array(),
				 json_object_new_array() };
	err |= jank_json_add(o, "path", jank_json_new_untrusted_string(pl->path));
	if (pl->build_id_len) {
		err |= jank_json_add(o, "build_id", build_id_json(pl->build_id, pl->build_id_len));
		err |= jank_json_add_str(o, "build_id_from",
					 pl->build_id_from_file ? "file" : "trace");
	} else {
		err |= json_object_object_add(o, "build_id", NULL) ? -ENOMEM : 0;
	}
	if (pl->debug_link)
		err |= jank_json_add(o, "debug_link",
				     jank_json_new_untrusted_string(pl->debug_link));
	if (pl->symbol_file)
		err |= jank_json_add(o, "symbol_file",
				     jank_json_new_untrusted_string(pl->symbol_file));
	else
		err |= json_object_object_add(o, "symbol_file", NULL) ? -ENOMEM : 0;
	if (pl->vaddr_known)
		err |= jank_json_add(o, "first_load_vaddr", hex_json(pl->first_vaddr));
	err |= jank_json_add(o, "mappings", json_object_get(e->mappings));
	err |= jank_json_add(o, "frames", json_object_get(e->frames));
	json_object_put(e->mappings); /* o holds them */
	json_object_put(e->frames);
	if (err || !e->mappings || !e->frames)
		return NULL;
	l->n++;
	return e;
}

/* A mapping of the binary at pl, listed once per (process, base). */
static int bin_mapping(struct bin_list *l, size_t entry, int32_t pid,
		       const struct jank_symbols_place *pl)
{
	struct json_object *m;
	int err = 0;

	for (size_t i = 0; i < l->nmaps; i++)
		if (l->maps[i].entry == entry && l->maps[i].pid == pid &&
		    l->maps[i].base == pl->base)
			return 0;
	if (l->nmaps == l->maps_cap) {
		size_t cap = jank_array_grow(&l->maps, sizeof(*l->maps), l->maps_cap, 8);

		if (!cap)
			return -ENOMEM;
		l->maps_cap = cap;
	}
	l->maps[l->nmaps++] = (struct bin_mapping){ entry, pid, pl->base };
	if (!(m = json_object_new_object()) || append(l->v[entry].mappings, m) < 0)
		return -ENOMEM;
	err |= jank_json_add(m, "pid", json_object_new_int64(pid));
	err |= jank_json_add(m, "base", hex_json(pl->base));
	if (pl->memsz)
		err |= jank_json_add(m, "size", hex_json(pl->memsz));
	err |= jank_json_add(m, "pic", json_object_new_boolean(pl->is_pic));
	return err ? -ENOMEM : 0;
}

static struct json_object *frame_json(const struct jank_frame *fr,
				      const struct jank_symbols_place *pl)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= jank_json_add(o, "pid", json_object_new_int64(fr->pid));
	err |= jank_json_add(o, "address", hex_json(fr->addr));
	if (pl)
		err |= jank_json_add(o, "offset", hex_json(pl->offset));
	err |= jank_json_add(o, "name", jank_json_new_untrusted_string(fr->name));
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *jank_capture_binaries_json(const struct jank_path *p,
					       const struct jank_symbols *sym)
{
	struct json_object *root = json_object_new_object(), *all = json_object_new_array(),
			   *unmapped = json_object_new_array();
	struct bin_list l = { 0 };
	int err = 0;

	err |= jank_json_add(root, "format", json_object_new_string("jank-binaries/1"));
	err |= jank_json_add(root, "binaries", json_object_get(all));
	err |= jank_json_add(root, "unmapped", json_object_get(unmapped));
	for (size_t i = 0; !err && i < p->nframes; i++) {
		const struct jank_frame *fr = &p->frames[i];
		struct jank_symbols_place pl;
		struct bin_entry *e;

		if (fr->kernel || !fr->addr)
			continue;
		if (!sym || jank_symbols_where(sym, fr->pid, fr->addr, &pl) < 0) {
			err |= append(unmapped, frame_json(fr, NULL));
			continue;
		}
		e = bin_entry(&l, all, &pl);
		err |= !e || bin_mapping(&l, (size_t)(e - l.v), fr->pid, &pl) < 0 ||
		       append(e->frames, frame_json(fr, &pl)) < 0;
	}
	json_object_put(all);
	json_object_put(unmapped);
	free(l.v);
	free(l.maps);
	if (err) {
		json_object_put(root);
		return NULL;
	}
	return root;
}
