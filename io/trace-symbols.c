/* SPDX-License-Identifier: MIT */
/*
 * The trace reader's part in symbolization: lttng-ust's statedump and
 * dynamic-loader events, decoded into the symbolizer's mappings
 * (symbols.h). A reader without a symbolizer (jank_reader_set_symbols(),
 * trace-reader.c) never looks at them. trace-decode.c calls this file, which
 * calls nothing of the decoder's.
 *
 * These events are few (a handful per library, when an application
 * registers or loads one), so their fields are found by name per event; the
 * hot path of every other event only tests one byte of its class's cache.
 * Their layout, in lttng-ust 2.13:
 *
 *   lttng_ust_statedump:start       (none): the process dumps afresh
 *   lttng_ust_statedump:bin_info    baddr, memsz, path, is_pic, has_build_id, has_debug_link
 *   lttng_ust_statedump:build_id    baddr, build_id (sequence of uint8)
 *   lttng_ust_statedump:debug_link  baddr, crc, filename
 *   lttng_ust_dl:dlopen, dlmopen    baddr, memsz, [nsid,] flags, path, has_build_id, ...
 *   lttng_ust_dl:build_id           baddr, build_id
 *   lttng_ust_dl:debug_link         baddr, crc, filename
 *   lttng_ust_dl:dlclose            baddr
 *
 * baddr is the run-time address of the binary's first PT_LOAD segment.
 * Every field is checked; a malformed event is ignored.
 */
#include <stdint.h>
#include <string.h>
#include <babeltrace2/babeltrace.h>
#include "symbols.h"
#include "trace-reader-int.h"

static const struct {
	const char *name;
	enum reader_sym_kind kind;
} sym_classes[] = {
	{ "lttng_ust_statedump:start", READER_SYM_START },
	{ "lttng_ust_statedump:bin_info", READER_SYM_BIN_INFO },
	{ "lttng_ust_statedump:build_id", READER_SYM_BUILD_ID },
	{ "lttng_ust_statedump:debug_link", READER_SYM_DEBUG_LINK },
	{ "lttng_ust_dl:dlopen", READER_SYM_DLOPEN },
	{ "lttng_ust_dl:dlmopen", READER_SYM_DLOPEN },
	{ "lttng_ust_dl:build_id", READER_SYM_BUILD_ID },
	{ "lttng_ust_dl:debug_link", READER_SYM_DEBUG_LINK },
	{ "lttng_ust_dl:dlclose", READER_SYM_DLCLOSE },
};

enum reader_sym_kind reader_symbols_kind(const char *name)
{
	if (strncmp(name, "lttng_ust_", 10) != 0)
		return READER_SYM_NONE;
	for (size_t i = 0; i < sizeof(sym_classes) / sizeof(sym_classes[0]); i++)
		if (strcmp(name, sym_classes[i].name) == 0)
			return sym_classes[i].kind;
	return READER_SYM_NONE;
}

static const bt_field *member(const bt_field *payload, const char *name)
{
	return payload ? bt_field_structure_borrow_member_field_by_name_const(payload, name) : NULL;
}

/* An integer field of either sign, as unsigned. */
static bool get_uint(const bt_field *payload, const char *name, uint64_t *v)
{
	const bt_field *f = member(payload, name);
	bt_field_class_type t;

	if (!f)
		return false;
	t = bt_field_get_class_type(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		*v = bt_field_integer_unsigned_get_value(f);
	else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		*v = (uint64_t)bt_field_integer_signed_get_value(f);
	else
		return false;
	return true;
}

static const char *get_string(const bt_field *payload, const char *name)
{
	const bt_field *f = member(payload, name);

	return f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRING
		       ? bt_field_string_get_value(f)
		       : NULL;
}

/* A sequence (or array) of bytes; false when it is not one or is too long. */
static bool get_bytes(const bt_field *payload, const char *name, uint8_t *out, size_t cap,
		      size_t *len)
{
	const bt_field *f = member(payload, name);
	uint64_t n;

	if (!f || !bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ARRAY))
		return false;
	n = bt_field_array_get_length(f);
	if (n > cap)
		return false;
	for (uint64_t i = 0; i < n; i++) {
		const bt_field *e = bt_field_array_borrow_element_field_by_index_const(f, i);

		if (!bt_field_class_type_is(bt_field_get_class_type(e),
					    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			return false;
		out[i] = (uint8_t)bt_field_integer_unsigned_get_value(e);
	}
	*len = (size_t)n;
	return true;
}

void reader_symbols_event(struct jank_reader *in, const bt_event *ev, enum reader_sym_kind kind,
			  int64_t vpid)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(ev);
	uint8_t id[JANK_SYMBOLS_MAX_BUILD_ID];
	uint64_t baddr = 0, memsz = 0, is_pic = 1;
	const char *s;
	size_t len;

	in->stats.symbol_events++;
	if (kind != READER_SYM_START && !get_uint(payload, "baddr", &baddr))
		return;
	switch (kind) {
	case READER_SYM_NONE:
		break;
	case READER_SYM_START:
		jank_symbols_forget_process(in->symbols, vpid);
		break;
	case READER_SYM_BIN_INFO:
	case READER_SYM_DLOPEN:
		s = get_string(payload, "path");
		if (!s || !get_uint(payload, "memsz", &memsz))
			return;
		/* dlopen has no is_pic: what dlopen loads is a shared object. */
		if (kind == READER_SYM_BIN_INFO && !get_uint(payload, "is_pic", &is_pic))
			return;
		jank_symbols_add_mapping(in->symbols, vpid, baddr, memsz, s, NULL, 0, NULL,
					 is_pic != 0);
		break;
	case READER_SYM_BUILD_ID:
		if (get_bytes(payload, "build_id", id, sizeof(id), &len))
			jank_symbols_set_build_id(in->symbols, vpid, baddr, id, len);
		break;
	case READER_SYM_DEBUG_LINK:
		s = get_string(payload, "filename");
		if (s)
			jank_symbols_set_debug_link(in->symbols, vpid, baddr, s);
		break;
	case READER_SYM_DLCLOSE:
		jank_symbols_remove_mapping(in->symbols, vpid, baddr);
		break;
	}
}
