/* SPDX-License-Identifier: MIT */
/*
 * The engine's event classes: each resolved once, with the roles its events
 * play in the rules and flows (an action's begin or end, a flow's from or
 * to) and the positions of the fields their keys and matches read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine-int.h"

void engine_forget_classes(struct jank_engine *e)
{
	for (size_t i = 0; i < e->nclasses; i++)
		free(e->classes[i].name);
	e->nclasses = 0;
	e->generation++;
}

/* Rules are frozen once events flow: the tables are sized for them. */
int engine_start(struct jank_engine *e)
{
	if (e->started)
		return 0;
	e->actions = engine_new_action_table(e, e->nrules);
	e->pending = jank_action_table_new((uint32_t)e->nflows);
	if (!e->actions || !e->pending) {
		jank_action_table_free(e->actions);
		jank_action_table_free(e->pending);
		e->actions = e->pending = NULL;
		return -ENOMEM;
	}
	e->started = true;
	return 0;
}

/* Position of a field in the class's field list, adding it when absent. */
static int field_pos(struct class_info *ci, const char *name)
{
	if (strcmp(name, "tid") == 0)
		return POS_TID;
	for (unsigned i = 0; i < ci->nfields; i++)
		if (strcmp(ci->fields[i], name) == 0)
			return (int)i;
	if (ci->nfields >= JANK_EVENT_MAX_FIELDS)
		return POS_NONE;
	ci->fields[ci->nfields] = name;
	ci->fields[ci->nfields + 1] = NULL;
	return (int)ci->nfields++;
}

/*
 * The text of a role's key before each value, as format_key() writes it:
 * "name=", ",id=" of the key's names (`names`: a flow's `to` reads its own
 * fields, but its key text has the `from`'s names), "tid=" for the default
 * key. A length of 0 where it does not fit.
 */
static void key_prefixes(struct class_role *role, char (*pre)[KEY_PRE_LEN], char *const *names,
			 unsigned nkeys)
{
	for (unsigned k = 0; k < JANK_RULE_MAX_KEYS; k++) {
		const char *name = nkeys ? (k < nkeys ? names[k] : NULL) : (k ? NULL : "tid");
		size_t n = name ? strlen(name) : 0;

		role->pre_len[k] = 0;
		memset(pre[k], 0, KEY_PRE_LEN);
		if (!name || n + 2 > KEY_PRE_LEN)
			continue;
		pre[k][0] = ',';
		memcpy(pre[k] + !!k, name, n);
		pre[k][!!k + n] = '=';
		role->pre_len[k] = (uint8_t)(!!k + n + 1);
	}
}

/*
 * A key value that is the match's field, when the match is a string: the
 * string goes after its name in the role's prefix, when it fits (role's
 * fold_len).
 */
static void key_fold(struct class_role *role, char (*pre)[KEY_PRE_LEN])
{
	size_t m;

	memset(role->fold_len, 0, sizeof(role->fold_len));
	if (role->match_pos < 0 || role->match.type != JANK_VALUE_STR || !role->match.s)
		return;
	m = strlen(role->match.s);
	for (unsigned k = 0; k < JANK_RULE_MAX_KEYS; k++) {
		if (role->key_pos[k] != role->match_pos || !role->pre_len[k] ||
		    role->pre_len[k] + m > KEY_PRE_LEN)
			continue;
		memcpy(pre[k] + role->pre_len[k], role->match.s, m);
		role->fold_len[k] = (uint8_t)(role->pre_len[k] + m);
	}
}

/* The role of a rule (an action's begin or end, a flow's from or to) on the class. */
static void add_role(struct class_info *ci, uint32_t index, bool flow, bool end, char *const *keys,
		     char *const *names, unsigned nkeys, const char *match_field,
		     const struct jank_value *match)
{
	struct class_role *role;

	if (ci->nroles == JANK_MAX_RULES_PER_EVENT)
		return;
	key_prefixes(&ci->roles[ci->nroles], ci->key_pre[ci->nroles], names, nkeys);
	role = &ci->roles[ci->nroles++];
	role->rule = index;
	role->flow = flow;
	role->end = end;
	for (unsigned k = 0; k < JANK_RULE_MAX_KEYS; k++)
		role->key_pos[k] = POS_NONE;
	if (nkeys == 0)
		role->key_pos[0] = POS_TID;
	for (unsigned k = 0; k < nkeys; k++)
		role->key_pos[k] = (int8_t)field_pos(ci, keys[k]);
	role->match_pos = match_field ? (int8_t)field_pos(ci, match_field) : POS_NONE;
	role->match = *match;
	key_fold(role, ci->key_pre[ci->nroles - 1]);
}

static void add_roles(struct jank_engine *e, struct class_info *ci)
{
	for (size_t r = 0; r < e->nrules; r++) {
		const struct jank_rule *rule = &e->rules[r].rule;

		for (int end = 0; end < 2; end++)
			if (strcmp(end ? rule->end_event : rule->begin_event, ci->name) == 0)
				add_role(ci, (uint32_t)r, false, end, rule->keys, rule->keys,
					 rule->nkeys, rule->match_field, &rule->match_value);
	}
	for (size_t f = 0; f < e->nflows; f++) {
		const struct jank_flow_rule *flow = &e->flows[f].rule;

		for (int to = 0; to < 2; to++)
			if (strcmp(to ? flow->to_event : flow->from_event, ci->name) == 0)
				add_role(ci, (uint32_t)f, true, to, jank_flow_rule_keys(flow, to),
					 flow->keys, flow->nkeys, flow->match_field,
					 &flow->match_value);
	}
}

uint32_t jank_engine_resolve_class(struct jank_engine *e, enum jank_domain domain, const char *name,
				   const char *const **fields, unsigned *nfields)
{
	struct class_info *ci;
	const char *const *tf;

	if (engine_start(e) < 0)
		return JANK_CLASS_INVALID;
	if (domain == JANK_DOMAIN_KERNEL)
		jank_layout_observe(&e->layout, name);
	/* Resolving again (a reconnected input, another stream class) gives the same id. */
	for (size_t i = 0; i < e->nclasses; i++) {
		ci = &e->classes[i];
		if (ci->domain == domain && strcmp(ci->name, name) == 0) {
			*fields = ci->fields;
			*nfields = ci->nfields;
			return (uint32_t)i;
		}
	}
	if (e->nclasses == e->classes_cap) {
		size_t ncap = jank_array_grow(&e->classes, sizeof(*e->classes), e->classes_cap, 64);

		if (!ncap)
			return JANK_CLASS_INVALID;
		e->classes_cap = ncap;
	}
	ci = &e->classes[e->nclasses];
	memset(ci, 0, sizeof(*ci));
	ci->name = strdup(name);
	if (!ci->name)
		return JANK_CLASS_INVALID;
	ci->domain = domain;
	ci->type = jank_layout_classify(&e->layout, domain, name);
	for (tf = jank_layout_fields(ci->type); *tf; tf++)
		ci->fields[ci->nfields++] = *tf;
	add_roles(e, ci);
	/* Any kernel event may carry the thread's call stacks (lttng add-context). */
	ci->cs_user = ci->cs_kernel = POS_NONE;
	if (domain == JANK_DOMAIN_KERNEL) {
		ci->cs_user = (int8_t)field_pos(ci, "callstack_user");
		ci->cs_kernel = (int8_t)field_pos(ci, "callstack_kernel");
	}
	/* System calls tell the model whether a thread is in user mode (model.c). */
	ci->wanted = ci->nroles > 0 || ci->type != JANK_EVENT_USER;
	/*
	 * What an event can free, outside engine_maintain(): an action's or a flow's
	 * record and its span (its roles), a lock record (the mutex events).
	 * Everything else an event does only grows memory (rings, thread
	 * records, tables, stacks, span lists: they shrink in GC only).
	 */
	ci->may_free = ci->nroles > 0 || ci->type == JANK_EVENT_MUTEX_REQ ||
		       ci->type == JANK_EVENT_MUTEX_ACQ || ci->type == JANK_EVENT_MUTEX_UNLOCK ||
		       ci->type == JANK_EVENT_MUTEX_TRYLOCK;
	*fields = ci->fields;
	*nfields = ci->nfields;
	return (uint32_t)e->nclasses++;
}

int jank_engine_field_missing(struct jank_engine *e, uint32_t class_id, unsigned index,
			      const char *available, char *msg, size_t len)
{
	struct class_info *ci;
	int said = 0;

	if (class_id >= e->nclasses)
		return 0;
	ci = &e->classes[class_id];
	if (index >= ci->nfields)
		return 0;
	for (unsigned i = 0; i < ci->nroles; i++) {
		struct class_role *role = &ci->roles[i];
		const char *name = role->flow ? e->flows[role->rule].rule.name
					      : e->rules[role->rule].rule.name;
		bool keyed = false;

		for (unsigned k = 0; k < JANK_RULE_MAX_KEYS; k++)
			keyed |= role->key_pos[k] == (int8_t)index;
		if (role->unusable || (!keyed && role->match_pos != (int8_t)index))
			continue;
		role->unusable = true;
		e->stats.rules_unusable++;
		if (!said && msg && len)
			snprintf(msg, len,
				 "[%s %s]: event '%s' has no field '%s' (its fields: %s): the "
				 "rule's %s cannot apply, so it ignores that event",
				 role->flow ? "flow" : "action", name, ci->name, ci->fields[index],
				 available && *available ? available : "none",
				 keyed ? "key" : "match");
		said = 1;
	}
	return said;
}

bool jank_engine_class_wanted(const struct jank_engine *e, uint32_t class_id)
{
	return class_id < e->nclasses && e->classes[class_id].wanted;
}

const char *jank_engine_class_name(const struct jank_engine *e, uint32_t class_id)
{
	return class_id < e->nclasses ? e->classes[class_id].name : NULL;
}
