/* SPDX-License-Identifier: MIT */
/*
 * fuzz-config: the config file parser on arbitrary bytes.
 *
 * The bytes are parsed twice, the two ways jankd and jankctl read a config:
 * from a file (jank_config_load, on a memfd) and from a string
 * (jank_config_load_string, which stops at a NUL byte). Checked: without a
 * NUL byte both give the same result and the same message; a message is one
 * line that names the file; what loads passes or fails jank_config_check()
 * with a message that names the file; its rules go into an engine (as
 * `jankctl analyze` does) that then sees a few actions of each rule, so that
 * keys, matches and thresholds (adaptive ones too) are computed for real.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "config-file.h"
#include "format.h"
#include "fuzz-check.h"

#define ERR_LEN 1024

static int memfd = -1;
static char path[64];
static FILE *devnull;

/* A message: one line, that names the config. */
static void check_message(const char *err, const char *name)
{
	FUZZ_ASSERT(memchr(err, '\0', ERR_LEN));
	FUZZ_ASSERT(err[0]);
	FUZZ_ASSERT(!strchr(err, '\n'));
	FUZZ_ASSERT(!strncmp(err, name, strlen(name)));
}

static void on_verdict(const struct jank_verdict *r, void *data)
{
	fuzz_check_verdict(data, r);
	jank_format_verdict_text(devnull, r);
}

/* The value of field `name` in action k of a rule: its match value when it has one. */
static void field_value(const struct jank_rule *rule, const char *name, int k, char *buf,
			struct jank_value *v)
{
	if (rule->match_field && !strcmp(name, rule->match_field)) {
		*v = rule->match_value;
		return;
	}
	if (k & 1) {
		snprintf(buf, 16, "v%d", k);
		v->type = JANK_VALUE_STR;
		v->s = buf;
	} else {
		v->type = JANK_VALUE_INT;
		v->i = k;
	}
}

static void send_event(struct jank_engine *e, const struct jank_rule *rule, const char *event,
		       int k, int64_t ts)
{
	enum jank_domain d = strchr(event, ':') ? JANK_DOMAIN_UST : JANK_DOMAIN_KERNEL;
	char bufs[JANK_EVENT_MAX_FIELDS][16];
	const char *const *fields;
	struct jank_event ev;
	unsigned n;

	memset(&ev, 0, sizeof(ev));
	ev.class_id = jank_engine_resolve_class(e, d, event, &fields, &n);
	FUZZ_ASSERT(ev.class_id != JANK_CLASS_INVALID && n <= JANK_EVENT_MAX_FIELDS);
	ev.ts = ts;
	ev.cpu = 0;
	ev.tid = 100 + k % 3;
	ev.pid = 100;
	ev.comm = "app";
	ev.nfields = n;
	for (unsigned i = 0; i < n; i++)
		field_value(rule, fields[i], k, bufs[i], &ev.fields[i]);
	jank_engine_process(e, &ev);
}

/* What `jankctl analyze` does with a config, on a few synthetic actions of each rule. */
static void run_engine(const struct jank_config *conf)
{
	struct jank_engine_config ec;
	struct jank_engine *e;
	int64_t ts = 1000000000;
	char err[512];

	jank_engine_config_defaults(&ec);
	jank_config_apply_engine(conf, &ec);
	ec.report_all = true;
	e = jank_engine_new(&ec);
	FUZZ_ASSERT(e);
	jank_engine_set_verdict_cb(e, on_verdict, e);
	/* jank_config_load() checks what the engine needs of its rules. */
	FUZZ_ASSERT(jank_config_add_rules(conf, e, err, sizeof(err)) == 0);
	FUZZ_ASSERT(jank_engine_rule_count(e) == conf->nrules);
	FUZZ_ASSERT(jank_engine_flow_count(e) == conf->nflows);
	for (int k = 0; k < 6; k++) {
		for (size_t i = 0; i < conf->nrules && i < 16; i++) {
			const struct jank_rule *r = &conf->rules[i];

			send_event(e, r, r->begin_event, k, ts);
			send_event(e, r, r->end_event, k, ts + (k + 1) * 1000000LL);
		}
		ts += 10000000;
	}
	jank_engine_finish(e);
	jank_format_summary_text(devnull, e);
	for (size_t i = 0; i < jank_engine_rule_count(e); i++)
		jank_format_json_print(devnull, jank_format_summary_json(e, i));
	jank_engine_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err_file[ERR_LEN] = "", err_str[ERR_LEN] = "";
	struct jank_config cf, cs;
	char *text;
	int rf, rs;

	if (memfd < 0) {
		memfd = memfd_create("fuzz.conf", MFD_CLOEXEC);
		FUZZ_ASSERT(memfd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
		devnull = fopen("/dev/null", "w");
		FUZZ_ASSERT(devnull);
	}
	text = malloc(size + 1);
	FUZZ_ASSERT(text);
	memcpy(text, data, size);
	text[size] = '\0';
	FUZZ_ASSERT(ftruncate(memfd, 0) == 0);
	FUZZ_ASSERT(pwrite(memfd, data, size, 0) == (ssize_t)size);

	rf = jank_config_load(&cf, path, err_file, sizeof(err_file));
	rs = jank_config_load_string(&cs, path, text, err_str, sizeof(err_str));
	if (rf < 0)
		check_message(err_file, path);
	if (rs < 0)
		check_message(err_str, path);
	if (!memchr(data, '\0', size)) {
		FUZZ_ASSERT(rf == rs);
		FUZZ_ASSERT(rf == 0 || !strcmp(err_file, err_str));
		FUZZ_ASSERT(cf.nrules == cs.nrules);
		FUZZ_ASSERT(cf.graph.memory_limit == cs.graph.memory_limit);
		FUZZ_ASSERT(cf.graph.retention_ns == cs.graph.retention_ns);
	}
	if (rs == 0) {
		err_str[0] = '\0';
		if (jank_config_check(&cs, err_str, sizeof(err_str)) < 0)
			check_message(err_str, path);
		else
			run_engine(&cs);
	}
	jank_config_fini(&cf);
	jank_config_fini(&cs);
	free(text);
	return 0;
}
