/* SPDX-License-Identifier: MIT */
/*
 * fuzz-frames: the supervisor's reading of what a worker sends
 * (daemon/worker/worker-proto.c), on arbitrary bytes: a worker is not trusted.
 *
 * The input's first byte sets the size of the reads (1 to 256 bytes, as a
 * socket may deliver them); the rest is the stream. Each read is appended to
 * an evbuffer, as the supervisor's bufferevent does, and every whole frame
 * is taken (jank_worker_proto_read) until one is refused: the supervisor then
 * kills the worker, and reads no further. One reader serves every input, as
 * the supervisor keeps one for a worker and for the workers that replace it:
 * its parser, reused after any frame refused or taken, must read each as a
 * new one would. Each message goes where the
 * supervisor sends it by its type: a status's figures
 * (jank_worker_proto_figures_decode), a log line (jank_worker_proto_log_decode),
 * flow events (jank_worker_proto_flows_decode), a path's answer
 * (jank_worker_proto_path_decode), names that came late
 * (jank_worker_proto_names_decode). A
 * verdict's decoding is not fuzzed here: it is io/verdict-json.c's, which
 * has its own checks.
 *
 * Checked:
 *   - a frame is taken only whole, and at most JANK_PROTO_MAX_FRAME long;
 *     one announced longer is refused from its length alone; a taken frame
 *     leaves exactly what followed it; the buffer never holds more than one
 *     frame and a read (the read watermark);
 *   - what is taken is a JSON object, and put back as a frame, it is taken
 *     again equal to itself;
 *   - decoded figures are within their ranges (rules counted as their
 *     histograms, histograms' min <= max), and none are left on an error;
 *   - a log line is one line of printable text, its priority LOG_ERR to
 *     LOG_DEBUG;
 *   - flow events are at most JANK_PROTO_MAX_FLOWS, their names and keys
 *     fit the labels, none are left on an error;
 *   - names are at most JANK_PROTO_MAX_NAMES pairs of a frame BINARY+0xHEX
 *     and a name that is not one, both shorter than a frame's name, without
 *     control bytes; none on an error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <event2/buffer.h>
#include "fuzz-check.h"
#include "input-figures.h"
#include "worker-proto.h"

#define ERR_LEN 512

static void check_histogram(const struct jank_histogram *h)
{
	uint64_t n = 0;

	for (int i = 0; i < JANK_HIST_BUCKETS; i++) {
		FUZZ_ASSERT(n + h->buckets[i] >= n);
		n += h->buckets[i];
	}
	FUZZ_ASSERT(n == h->count);
	FUZZ_ASSERT(!h->count || h->min <= h->max);
}

static void status(struct json_object *msg)
{
	struct json_object *o;
	struct jank_input_figures f;
	char err[ERR_LEN];
	int r;

	if (!json_object_object_get_ex(msg, "input", &o))
		return; /* a heartbeat */
	jank_input_figures_init(&f);
	err[0] = '\0';
	r = jank_worker_proto_figures_decode(o, &f, err, sizeof(err));
	if (r < 0) {
		FUZZ_ASSERT(r == -EINVAL || r == -ENOMEM);
		FUZZ_ASSERT(err[0] && memchr(err, '\0', sizeof(err)));
		FUZZ_ASSERT(f.nrules == 0 && !f.reported);
	} else {
		FUZZ_ASSERT(f.reported);
		FUZZ_ASSERT(f.nrules <= JANK_FIGURES_MAX_RULES);
		for (size_t i = 0; i < f.nrules; i++) {
			FUZZ_ASSERT(f.rules[i].count == f.rules[i].hist.count);
			check_histogram(&f.rules[i].hist);
		}
	}
	jank_input_figures_fini(&f);
}

static void log_line(struct json_object *msg)
{
	char line[JANK_PROTO_LOG_LEN];
	int prio, r = jank_worker_proto_log_decode(msg, &prio, line, sizeof(line));

	FUZZ_ASSERT(r == 0 || r == -EINVAL);
	FUZZ_ASSERT(prio >= LOG_ERR && prio <= LOG_DEBUG);
	FUZZ_ASSERT(memchr(line, '\0', sizeof(line)));
	for (const char *c = line; *c; c++)
		FUZZ_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7f);
}

static void flows(struct json_object *msg)
{
	struct jank_worker_proto_flows f;
	char err[ERR_LEN];
	int r = jank_worker_proto_flows_decode(msg, &f, err, sizeof(err));

	FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r < 0)
		FUZZ_ASSERT(f.n == 0 && !f.v && err[0]);
	FUZZ_ASSERT(f.n <= JANK_PROTO_MAX_FLOWS);
	for (size_t i = 0; i < f.n; i++) {
		FUZZ_ASSERT(strlen(f.v[i].flow) < JANK_LABEL_NAME_LEN);
		FUZZ_ASSERT(strlen(f.v[i].key) < JANK_LABEL_KEY_LEN);
	}
	jank_worker_proto_flows_fini(&f);
}

static void path(struct json_object *msg)
{
	struct jank_verdict_decoded d;
	char err[ERR_LEN];
	bool answered = false;
	int64_t id = -1;
	int r = jank_worker_proto_path_decode(msg, &id, &answered, &d, err, sizeof(err));

	FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == 0)
		FUZZ_ASSERT(id >= 0 && (answered || d.path.n == 0));
	jank_verdict_decoded_fini(&d);
}

static void names(struct json_object *msg)
{
	static struct jank_worker_proto_names n;
	char err[ERR_LEN];
	int r = jank_worker_proto_names_decode(msg, &n, err, sizeof(err));

	FUZZ_ASSERT(r == 0 || r == -EINVAL);
	if (r < 0)
		FUZZ_ASSERT(n.n == 0 && err[0]);
	FUZZ_ASSERT(n.n <= JANK_PROTO_MAX_NAMES);
	for (size_t i = 0; i < n.n; i++) {
		FUZZ_ASSERT(strlen(n.v[i].frame) < JANK_FRAME_NAME_LEN);
		FUZZ_ASSERT(strlen(n.v[i].name) < JANK_FRAME_NAME_LEN && n.v[i].name[0]);
		FUZZ_ASSERT(jank_worker_proto_is_offset_frame(n.v[i].frame));
		FUZZ_ASSERT(!jank_worker_proto_is_offset_frame(n.v[i].name));
		for (const char *c = n.v[i].name; *c; c++)
			FUZZ_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7f);
	}
}

/* Put back as a frame, it comes out the same. */
static void round_trip(struct json_object *msg)
{
	struct evbuffer *b = evbuffer_new();
	struct json_object *again = NULL;
	int r;

	FUZZ_ASSERT(b);
	r = jank_worker_proto_put(b, msg);
	if (r == 0) {
		FUZZ_ASSERT(jank_worker_proto_take(b, &again) == 1);
		FUZZ_ASSERT(json_object_equal(msg, again));
		FUZZ_ASSERT(evbuffer_get_length(b) == 0);
		json_object_put(again);
	} else {
		FUZZ_ASSERT(r == -EMSGSIZE || r == -ENOMEM);
	}
	evbuffer_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct jank_worker_proto_reader rd;
	struct evbuffer *in;
	size_t chunk, at = 1;
	int r = 0;

	if (size < 1)
		return 0;
	chunk = (size_t)data[0] + 1;
	in = evbuffer_new();
	FUZZ_ASSERT(in);
	while (at < size && r >= 0) {
		size_t n = size - at < chunk ? size - at : chunk;
		struct json_object *msg;

		FUZZ_ASSERT(evbuffer_add(in, data + at, n) == 0);
		at += n;
		/* The watermark: one whole frame at most, and what a read added. */
		FUZZ_ASSERT(evbuffer_get_length(in) <= JANK_PROTO_HEAD + JANK_PROTO_MAX_FRAME + n);
		for (;;) {
			size_t before = evbuffer_get_length(in), len = 0;
			uint32_t head = 0;

			if (before >= sizeof(head)) {
				evbuffer_copyout(in, &head, sizeof(head));
				len = ntohl(head);
			}
			r = jank_worker_proto_read(&rd, in, &msg);
			if (r == 0) {
				FUZZ_ASSERT(!msg);
				FUZZ_ASSERT(before < sizeof(head) || before < sizeof(head) + len);
				FUZZ_ASSERT(evbuffer_get_length(in) == before);
				break;
			}
			if (r < 0) {
				FUZZ_ASSERT(!msg);
				FUZZ_ASSERT(r == -EPROTO || r == -EMSGSIZE);
				FUZZ_ASSERT((r == -EMSGSIZE) == (len > JANK_PROTO_MAX_FRAME));
				break; /* the supervisor kills the worker */
			}
			FUZZ_ASSERT(r == 1 && msg);
			FUZZ_ASSERT(len <= JANK_PROTO_MAX_FRAME);
			FUZZ_ASSERT(evbuffer_get_length(in) == before - sizeof(head) - len);
			FUZZ_ASSERT(json_object_is_type(msg, json_type_object));
			if (!strcmp(jank_worker_proto_type(msg), "status"))
				status(msg);
			else if (!strcmp(jank_worker_proto_type(msg), "log"))
				log_line(msg);
			else if (!strcmp(jank_worker_proto_type(msg), "flows"))
				flows(msg);
			else if (!strcmp(jank_worker_proto_type(msg), "path"))
				path(msg);
			else if (!strcmp(jank_worker_proto_type(msg), "names"))
				names(msg);
			round_trip(msg);
			json_object_put(msg);
		}
	}
	evbuffer_free(in);
	return 0;
}
