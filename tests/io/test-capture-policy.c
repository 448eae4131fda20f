/* SPDX-License-Identifier: MIT */
/*
 * io/capture-policy.c: the capture policy with a fake clock, a fake statvfs and
 * a temporary capture dir.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "capture-policy.h"
#include "dirtree.h"
#include "config-file.h"

#define MS  1000000LL
#define S   1000000000LL
#define KiB 1024ull
#define MiB (1024ull * 1024)
/* snprintf into a path buffer, failing the test on truncation. */
#define PATHF(buf, ...) assert_true(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))
/* 2024-05-01T12:00:00Z */
#define T0 (1714564800LL * S)

struct fs {
	uint64_t avail;
	uint64_t size;
	int calls;
};

static int fake_statfs(const char *path, uint64_t *avail, uint64_t *size, void *data)
{
	struct fs *fs = data;

	(void)path;
	fs->calls++;
	*avail = fs->avail;
	*size = fs->size;
	return 0;
}

struct fixture {
	char tmp[PATH_MAX];
	char dir[PATH_MAX];
	struct jank_capture_settings policy;
	struct jank_capture_policy *c;
	struct fs fs;
	struct jank_rule frame, io;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	PATHF(f->tmp, "/tmp/jank-test-capture-XXXXXX");
	if (!mkdtemp(f->tmp))
		return -1;
	PATHF(f->dir, "%s/captures", f->tmp);
	f->policy = (struct jank_capture_settings){
		.mode = JANK_CAPTURE_SNAPSHOT,
		.dir = f->dir,
		.cooldown_ns = 30 * S,
		.max_per_hour = 0,
		.quota = 1024 * MiB,
		.min_free_percent = 5,
		.session = "jankd-capture",
	};
	f->fs = (struct fs){ .avail = 50 * 1024 * MiB, .size = 100 * 1024 * MiB };
	jank_rule_init(&f->frame);
	f->frame.name = "frame";
	f->frame.begin_event = "jank:action_begin";
	f->frame.end_event = "jank:action_end";
	f->frame.capture = true;
	jank_rule_init(&f->io);
	f->io.name = "io";
	f->io.begin_event = "syscall_entry_read";
	f->io.end_event = "syscall_exit_read";
	f->io.capture = true;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	jank_capture_policy_free(f->c);
	jank_dirtree_remove(f->tmp);
	free(f);
	return 0;
}

static struct jank_capture_policy *new_capture(struct fixture *f)
{
	f->c = jank_capture_policy_new(&f->policy);
	assert_non_null(f->c);
	jank_capture_policy_set_statfs(f->c, fake_statfs, &f->fs);
	jank_capture_policy_set_version(f->c, "test");
	return f->c;
}

static enum jank_capture_decision jank(struct fixture *f, const struct jank_rule *rule, int64_t now,
				       struct jank_capture_answer *v)
{
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = rule,
		.key = "name=frame,id=3",
		.begin = 1000 * MS,
		.end = 1045 * MS,
		.duration = 45 * MS,
		.threshold = 16 * MS,
		.over_threshold = true,
		.tid = 4312,
		.pid = 4300,
		.comm = "worker",
	};

	return jank_capture_policy_decide(f->c, &r, now, v);
}

static void done(struct fixture *f, const char *dir, bool ok)
{
	struct jank_capture_outcome o;

	assert_int_equal(
		jank_capture_policy_done(f->c, dir, ok, ok ? NULL : "No space left on device", &o),
		0);
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* A file of `bytes` real (not sparse) bytes. */
static void write_file(const char *dir, const char *name, size_t bytes)
{
	char path[PATH_MAX], buf[4096];
	int fd;

	memset(buf, 'x', sizeof(buf));
	PATHF(path, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	for (size_t n = 0; n < bytes; n += sizeof(buf))
		assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
}

static struct json_object *read_meta(const char *dir)
{
	char path[PATH_MAX];
	struct json_object *o;

	PATHF(path, "%s/capture.json", dir);
	o = json_object_from_file(path);
	assert_non_null(o);
	return o;
}

static const char *get_str(struct json_object *o, const char *a, const char *b)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, a, &v));
	if (b)
		assert_true(json_object_object_get_ex(v, b, &v));
	return json_object_get_string(v);
}

/* The first jank starts a capture: its dir is named for the time, the action and the tid. */
static void start_names_and_describes(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct json_object *m, *key;
	char want[PATH_MAX];

	new_capture(f);
	assert_int_equal(jank(f, &f->frame, T0, &v), JANK_CAPTURE_START);
	PATHF(want, "%s/20240501T120000Z-frame-4312", f->dir);
	assert_string_equal(v.dir, want);
	assert_true(v.log);
	assert_non_null(strstr(v.message, "capture started: "));
	assert_string_equal(jank_capture_policy_in_flight(f->c), want);
	m = read_meta(v.dir);
	assert_string_equal(get_str(m, "format", NULL), JANK_CAPTURE_FORMAT);
	assert_string_equal(get_str(m, "name", NULL), "20240501T120000Z-frame-4312");
	assert_string_equal(get_str(m, "mode", NULL), "snapshot");
	assert_string_equal(get_str(m, "state", NULL), "recording");
	assert_string_equal(get_str(m, "time", NULL), "2024-05-01T12:00:00Z");
	assert_string_equal(get_str(m, "session", NULL), "jankd-capture");
	assert_string_equal(get_str(m, "jankd_version", NULL), "test");
	assert_string_equal(get_str(m, "rule", "name"), "frame");
	assert_string_equal(get_str(m, "rule", "begin"), "jank:action_begin");
	assert_string_equal(get_str(m, "action", "key"), "name=frame,id=3");
	assert_string_equal(get_str(m, "action", "comm"), "worker");
	assert_string_equal(get_str(m, "action", "duration_ns"), "45000000");
	assert_true(json_object_object_get_ex(json_object_object_get(m, "rule"), "key", &key));
	json_object_put(m);
	done(f, v.dir, true);
	m = read_meta(want);
	assert_string_equal(get_str(m, "state", NULL), "complete");
	json_object_put(m);
	assert_null(jank_capture_policy_in_flight(f->c));
}

/*
 * A jank whose path jankd joined across hosts: live-path.json beside
 * capture.json holds that path, each segment with its host (the report
 * splices the other hosts' part in). A path of one host writes none.
 */
static void live_path_of_crossed_path(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_path p;
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = &f->frame,
		.key = "name=frame,id=3",
		.begin = 1000 * MS,
		.end = 1045 * MS,
		.duration = 45 * MS,
		.threshold = 16 * MS,
		.over_threshold = true,
		.tid = 4312,
		.pid = 4300,
		.comm = "worker",
		.path = &p,
	};
	struct jank_segment segs[3] = {
		{ .tid = 4312, .state = JANK_STATE_RUNNING, .begin = 1000 * MS, .end = 1001 * MS },
		{ .tid = 4312, .state = JANK_STATE_RUNNING, .begin = 1001 * MS, .end = 1044 * MS },
		{ .tid = 4312, .state = JANK_STATE_BLOCKED, .begin = 1044 * MS, .end = 1045 * MS },
	};
	struct json_object *o, *cp;
	char path[PATH_MAX];

	new_capture(f);
	jank_path_init(&p);
	p.segs = segs;
	p.n = 3;
	p.tid = 4312;
	p.begin = 1000 * MS;
	p.end = 1045 * MS;
	/* One host: no live-path.json. */
	assert_int_equal(jank_capture_policy_decide(f->c, &r, T0, &v), JANK_CAPTURE_START);
	PATHF(path, "%s/live-path.json", v.dir);
	assert_false(exists(path));
	done(f, v.dir, true);
	/* Two (the same tid on each): written, the hosts named. */
	segs[0].host = jank_path_host(&p, "alpha");
	segs[1].host = jank_path_host(&p, "beta");
	segs[2].host = segs[0].host;
	assert_true(segs[0].host && segs[1].host);
	assert_int_equal(jank_capture_policy_decide(f->c, &r, T0 + 60 * S, &v), JANK_CAPTURE_START);
	PATHF(path, "%s/live-path.json", v.dir);
	o = json_object_from_file(path);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "critical_path", &cp));
	assert_int_equal(json_object_array_length(cp), 3);
	assert_string_equal(json_object_get_string(json_object_object_get(
				    json_object_array_get_idx(cp, 1), "host")),
			    "beta");
	json_object_put(o);
	done(f, v.dir, true);
	p.segs = NULL; /* on the stack */
	p.n = 0;
	jank_path_fini(&p);
}

/* A jank while a capture is in flight joins it: no second capture, no cooldown. */
static void join_in_flight(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v, w;
	struct jank_capture_stats st;
	struct json_object *m, *joined;

	new_capture(f);
	assert_int_equal(jank(f, &f->frame, T0, &v), JANK_CAPTURE_START);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(jank(f, i % 2 ? &f->io : &f->frame, T0 + i * MS, &w),
				 JANK_CAPTURE_JOIN);
		assert_string_equal(w.dir, v.dir);
		assert_false(w.log);
	}
	jank_capture_policy_get_stats(f->c, &st);
	assert_int_equal(st.started, 1);
	assert_int_equal(st.joined, 100);
	assert_int_equal(st.refused[JANK_CAPTURE_REASON_COOLDOWN], 0);
	assert_true(st.in_flight);
	m = read_meta(v.dir);
	joined = json_object_object_get(m, "joined");
	assert_int_equal(json_object_array_length(joined), JANK_CAPTURE_JOINED_MAX);
	assert_int_equal(json_object_get_int(json_object_object_get(m, "joined_more")),
			 100 - JANK_CAPTURE_JOINED_MAX);
	json_object_put(m);
	done(f, v.dir, true);
	jank_capture_policy_get_stats(f->c, &st);
	assert_false(st.in_flight);
	assert_int_equal(st.completed, 1);
}

/* Cooldown per rule; a storm of refusals is logged once and counted. */
static void cooldown_per_rule(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_stats st;

	new_capture(f);
	assert_int_equal(jank(f, &f->frame, T0, &v), JANK_CAPTURE_START);
	done(f, v.dir, true);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(jank(f, &f->frame, T0 + 1 * S + i * 10 * MS, &v),
				 JANK_CAPTURE_REFUSED);
		assert_int_equal(v.reason, JANK_CAPTURE_REASON_COOLDOWN);
		assert_int_equal(v.log, i == 0);
	}
	assert_non_null(strstr(v.message, "cooldown"));
	/* Another rule is not in frame's cooldown. */
	assert_int_equal(jank(f, &f->io, T0 + 3 * S, &v), JANK_CAPTURE_START);
	done(f, v.dir, true);
	/* Still in frame's cooldown: the same episode, not logged again. */
	assert_int_equal(jank(f, &f->frame, T0 + 4 * S, &v), JANK_CAPTURE_REFUSED);
	assert_false(v.log);
	jank_capture_policy_get_stats(f->c, &st);
	assert_int_equal(st.refused[JANK_CAPTURE_REASON_COOLDOWN], 101);
	assert_int_equal(st.episodes[JANK_CAPTURE_REASON_COOLDOWN], 1);
	/* After 30 s, frame captures again; its next cooldown is a new episode. */
	assert_int_equal(jank(f, &f->frame, T0 + 30 * S, &v), JANK_CAPTURE_START);
	assert_non_null(strstr(v.message, "1 janks got no capture since the last one: 1 cooldown"));
	done(f, v.dir, true);
	assert_int_equal(jank(f, &f->frame, T0 + 31 * S, &v), JANK_CAPTURE_REFUSED);
	assert_true(v.log);
	jank_capture_policy_get_stats(f->c, &st);
	assert_int_equal(st.episodes[JANK_CAPTURE_REASON_COOLDOWN], 2);
	assert_int_equal(st.started, 3);
	/* A clock stepped back does not freeze the cooldown for the size of the step. */
	assert_int_equal(jank(f, &f->frame, T0 - 3600 * S, &v), JANK_CAPTURE_REFUSED);
	assert_int_equal(jank(f, &f->frame, T0 - 3600 * S + 30 * S, &v), JANK_CAPTURE_START);
}

/* At most max-per-hour starts in any rolling hour, over all rules. */
static void max_per_hour(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_stats st;

	f->policy.cooldown_ns = 0;
	f->policy.max_per_hour = 3;
	new_capture(f);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(jank(f, i % 2 ? &f->io : &f->frame, T0 + i * 60 * S, &v),
				 JANK_CAPTURE_START);
		done(f, v.dir, true);
	}
	for (int i = 0; i < 50; i++) {
		assert_int_equal(jank(f, &f->frame, T0 + 600 * S + i * S, &v),
				 JANK_CAPTURE_REFUSED);
		assert_int_equal(v.reason, JANK_CAPTURE_REASON_HOURLY);
		assert_int_equal(v.log, i == 0);
	}
	assert_non_null(strstr(v.message, "max-per-hour = 3"));
	/* The first start leaves the window an hour later. */
	assert_int_equal(jank(f, &f->frame, T0 + 3600 * S - 1, &v), JANK_CAPTURE_REFUSED);
	assert_int_equal(jank(f, &f->frame, T0 + 3600 * S, &v), JANK_CAPTURE_START);
	done(f, v.dir, true);
	assert_int_equal(jank(f, &f->frame, T0 + 3601 * S, &v), JANK_CAPTURE_REFUSED);
	assert_true(v.log); /* a new episode */
	jank_capture_policy_get_stats(f->c, &st);
	assert_int_equal(st.refused[JANK_CAPTURE_REASON_HOURLY], 52);
	assert_int_equal(st.episodes[JANK_CAPTURE_REASON_HOURLY], 2);
	assert_int_equal(st.started, 4);
}

/* Below min-free, captures are refused: logged once per episode. */
static void min_free(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_stats st;

	f->policy.cooldown_ns = 0;
	new_capture(f);
	f->fs.avail = 4 * 1024 * MiB; /* 4% of 100 GiB: under 5% */
	for (int i = 0; i < 10; i++) {
		assert_int_equal(jank(f, &f->frame, T0 + i * S, &v), JANK_CAPTURE_REFUSED);
		assert_int_equal(v.reason, JANK_CAPTURE_REASON_DISK_FULL);
		assert_int_equal(v.log, i == 0);
	}
	assert_non_null(strstr(v.message, "under min-free (5.0 GiB)"));
	assert_false(exists(f->dir) && jank_capture_policy_in_flight(f->c));
	f->fs.avail = 6 * 1024 * MiB;
	assert_int_equal(jank(f, &f->frame, T0 + 20 * S, &v), JANK_CAPTURE_START);
	done(f, v.dir, true);
	f->fs.avail = 1 * MiB;
	assert_int_equal(jank(f, &f->frame, T0 + 30 * S, &v), JANK_CAPTURE_REFUSED);
	assert_true(v.log);
	jank_capture_policy_get_stats(f->c, &st);
	assert_int_equal(st.refused[JANK_CAPTURE_REASON_DISK_FULL], 11);
	assert_int_equal(st.episodes[JANK_CAPTURE_REASON_DISK_FULL], 2);

	/* A size instead of a percentage. */
	f->policy.min_free = 8 * 1024 * MiB;
	f->policy.min_free_percent = 0;
	assert_int_equal(jank_capture_policy_set_settings(f->c, &f->policy), 0);
	f->fs.avail = 7 * 1024 * MiB;
	assert_int_equal(jank(f, &f->frame, T0 + 40 * S, &v), JANK_CAPTURE_REFUSED);
	assert_int_equal(v.reason, JANK_CAPTURE_REASON_DISK_FULL);
	f->fs.avail = 9 * 1024 * MiB;
	assert_int_equal(jank(f, &f->frame, T0 + 50 * S, &v), JANK_CAPTURE_START);
}

/*
 * A capture that fails loses its trace but keeps its directory, whose
 * capture.json says "failed" and why; failures are logged once until one
 * succeeds.
 */
static void failures(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_outcome o;
	struct jank_capture_stats st;
	struct json_object *m;
	char path[PATH_MAX];

	f->policy.cooldown_ns = 0;
	new_capture(f);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(jank(f, &f->frame, T0 + i * S, &v), JANK_CAPTURE_START);
		write_file(v.dir, "partial", 8192);
		PATHF(path, "%s/kernel", v.dir);
		assert_int_equal(mkdir(path, 0755), 0);
		write_file(path, "stream_0", 4096);
		assert_int_equal(
			jank_capture_policy_done(f->c, v.dir, false, "No space left on device", &o),
			0);
		assert_int_equal(o.log, i == 0);
		assert_non_null(strstr(o.message, "No space left on device"));
		assert_true(exists(v.dir));
		PATHF(path, "%s/partial", v.dir);
		assert_false(exists(path));
		PATHF(path, "%s/kernel", v.dir);
		assert_false(exists(path));
		m = read_meta(v.dir);
		assert_string_equal(get_str(m, "state", NULL), "failed");
		assert_string_equal(get_str(m, "error", NULL), "No space left on device");
		json_object_put(m);
	}
	assert_int_equal(jank(f, &f->frame, T0 + 10 * S, &v), JANK_CAPTURE_START);
	done(f, v.dir, true);
	assert_true(exists(v.dir));
	assert_int_equal(jank(f, &f->frame, T0 + 20 * S, &v), JANK_CAPTURE_START);
	assert_int_equal(jank_capture_policy_done(f->c, v.dir, false, "lttng: error", &o), 0);
	assert_true(o.log);
	jank_capture_policy_get_stats(f->c, &st);
	assert_int_equal(st.failed, 4);
	assert_int_equal(st.failure_episodes, 2);
	assert_int_equal(st.completed, 1);
	/* done() of a capture that is not in flight. */
	assert_int_equal(jank_capture_policy_done(f->c, v.dir, true, NULL, &o), -ENOENT);
}

/*
 * Names are never given twice: not to a capture in the same second of the
 * same action and thread, nor after the capture that had the name is gone.
 */
static void unique_names(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	char base[PATH_MAX], want[PATH_MAX];

	f->policy.cooldown_ns = 0;
	new_capture(f);
	PATHF(base, "%s/20240501T120000Z-frame-4312", f->dir);
	assert_int_equal(jank(f, &f->frame, T0, &v), JANK_CAPTURE_START);
	assert_string_equal(v.dir, base);
	done(f, v.dir, false);
	/* The failed capture is deleted (as the quota would): its name stays given. */
	assert_int_equal(jank_dirtree_remove(base), 0);
	assert_int_equal(jank(f, &f->frame, T0 + 100 * MS, &v), JANK_CAPTURE_START);
	PATHF(want, "%s.2", base);
	assert_string_equal(v.dir, want);
	done(f, v.dir, true);
	assert_int_equal(jank(f, &f->frame, T0 + 200 * MS, &v), JANK_CAPTURE_START);
	PATHF(want, "%s.3", base);
	assert_string_equal(v.dir, want);
	done(f, v.dir, true);
	/* Another second: its own name. */
	assert_int_equal(jank(f, &f->frame, T0 + S, &v), JANK_CAPTURE_START);
	PATHF(want, "%s/20240501T120001Z-frame-4312", f->dir);
	assert_string_equal(v.dir, want);
	done(f, v.dir, true);
	/* Back in the first second (the clock stepped back): a name not given yet there. */
	assert_int_equal(jank(f, &f->frame, T0 + 300 * MS, &v), JANK_CAPTURE_START);
	PATHF(want, "%s.4", base);
	assert_string_equal(v.dir, want);
	done(f, v.dir, true);
}

static void make_old_capture(struct fixture *f, const char *name, size_t bytes)
{
	char path[PATH_MAX];

	PATHF(path, "%s/%s", f->dir, name);
	assert_int_equal(mkdir(path, 0755), 0);
	write_file(path, "trace", bytes);
}

static bool capture_exists(struct fixture *f, const char *name)
{
	char path[PATH_MAX];

	PATHF(path, "%s/%s", f->dir, name);
	return exists(path);
}

/* The quota deletes the oldest captures first, never the one in flight, never foreign files. */
static void quota_oldest_first(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_stats st;
	char first[PATH_MAX];
	uint64_t used, freed;

	f->policy.cooldown_ns = 0;
	f->policy.quota = 1 * MiB;
	assert_int_equal(mkdir(f->dir, 0755), 0);
	make_old_capture(f, "20240101T000000Z-frame-1", 350 * KiB);
	make_old_capture(f, "20240301T000000Z-frame-3", 350 * KiB);
	make_old_capture(f, "20240201T000000Z-frame-2", 350 * KiB);
	write_file(f->dir, "notes.txt", 64 * KiB); /* not a capture: never deleted */
	new_capture(f);

	/* Over the quota: the oldest capture makes room for the new one. */
	assert_int_equal(jank(f, &f->frame, T0, &v), JANK_CAPTURE_START);
	PATHF(first, "%s", v.dir);
	assert_false(capture_exists(f, "20240101T000000Z-frame-1"));
	assert_true(capture_exists(f, "20240201T000000Z-frame-2"));
	assert_true(capture_exists(f, "20240301T000000Z-frame-3"));

	/* The snapshot brings it over again: completion deletes the next oldest, not it. */
	write_file(v.dir, "trace", 300 * KiB);
	done(f, v.dir, true);
	assert_true(exists(first));
	assert_false(capture_exists(f, "20240201T000000Z-frame-2"));
	assert_true(capture_exists(f, "20240301T000000Z-frame-3"));
	assert_int_equal(jank_dirtree_du(f->dir, &used), 0);
	assert_true(used <= f->policy.quota);

	/* A capture in flight is never deleted, even alone over the quota. */
	assert_int_equal(jank(f, &f->frame, T0 + 60 * S, &v), JANK_CAPTURE_START);
	write_file(v.dir, "trace", 2 * MiB);
	assert_int_equal(jank_capture_policy_prune(f->c, NULL, &freed), 2);
	assert_true(freed > 600 * KiB);
	assert_true(exists(v.dir));
	assert_false(exists(first));
	assert_false(capture_exists(f, "20240301T000000Z-frame-3"));
	assert_true(capture_exists(f, "notes.txt"));
	done(f, v.dir, true);
	assert_true(exists(v.dir)); /* the newest stays, even over the quota */
	jank_capture_policy_get_stats(f->c, &st);
	assert_int_equal(st.deleted, 4);
}

/* Foreign files alone over the quota: refused, logged once; nothing of theirs deleted. */
static void quota_foreign_files(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;

	f->policy.cooldown_ns = 0;
	f->policy.quota = 256 * KiB;
	assert_int_equal(mkdir(f->dir, 0755), 0);
	write_file(f->dir, "big.img", 512 * KiB);
	new_capture(f);
	assert_int_equal(jank(f, &f->frame, T0, &v), JANK_CAPTURE_REFUSED);
	assert_int_equal(v.reason, JANK_CAPTURE_REASON_QUOTA);
	assert_true(v.log);
	assert_int_equal(jank(f, &f->frame, T0 + S, &v), JANK_CAPTURE_REFUSED);
	assert_false(v.log);
	assert_true(capture_exists(f, "big.img"));
}

/* Mode none and capture = no: refused quietly. An unwritable dir: logged once. */
static void disabled_and_errors(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_stats st;
	char file[PATH_MAX];

	f->frame.capture = false;
	new_capture(f);
	assert_int_equal(jank(f, &f->frame, T0, &v), JANK_CAPTURE_REFUSED);
	assert_int_equal(v.reason, JANK_CAPTURE_REASON_DISABLED);
	assert_false(v.log);
	f->policy.mode = JANK_CAPTURE_NONE;
	assert_int_equal(jank_capture_policy_set_settings(f->c, &f->policy), 0);
	assert_int_equal(jank(f, &f->io, T0, &v), JANK_CAPTURE_REFUSED);
	assert_int_equal(v.reason, JANK_CAPTURE_REASON_DISABLED);
	assert_false(v.log);
	assert_false(exists(f->dir));

	/* The capture dir under a regular file cannot be created. */
	PATHF(file, "%s/file", f->tmp);
	write_file(f->tmp, "file", 4096);
	PATHF(f->dir, "%s/file/captures", f->tmp);
	f->policy.mode = JANK_CAPTURE_SNAPSHOT;
	f->policy.cooldown_ns = 0;
	assert_int_equal(jank_capture_policy_set_settings(f->c, &f->policy), 0);
	assert_int_equal(jank(f, &f->io, T0, &v), JANK_CAPTURE_REFUSED);
	assert_int_equal(v.reason, JANK_CAPTURE_REASON_ERROR);
	assert_true(v.log);
	assert_non_null(strstr(v.message, "cannot create"));
	assert_int_equal(jank(f, &f->io, T0 + S, &v), JANK_CAPTURE_REFUSED);
	assert_false(v.log);
	jank_capture_policy_get_stats(f->c, &st);
	assert_int_equal(st.refused[JANK_CAPTURE_REASON_DISABLED], 2);
	assert_int_equal(st.episodes[JANK_CAPTURE_REASON_DISABLED], 0);
	assert_int_equal(st.episodes[JANK_CAPTURE_REASON_ERROR], 1);
}

/* Kept chunks move into the capture, and capture.json lists them. */
static void keep_chunks(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_chunk *chunks;
	char archives[PATH_MAX], path[PATH_MAX];
	struct json_object *m, *list;
	const char *names[] = { "20240501T115950+0000-20240501T120000+0000-1",
				"20240501T120000+0000-20240501T120010+0000-2", "not-a-chunk" };
	int n;

	f->policy.mode = JANK_CAPTURE_ROTATION;
	new_capture(f);
	PATHF(archives, "%s/session/archives", f->tmp);
	for (size_t i = 0; i < 3; i++) {
		PATHF(path, "%s/session", f->tmp);
		mkdir(path, 0755);
		mkdir(archives, 0755);
		PATHF(path, "%s/%s", archives, names[i]);
		assert_int_equal(mkdir(path, 0755), 0);
		PATHF(path, "%s/%s/kernel", archives, names[i]);
		assert_int_equal(mkdir(path, 0755), 0);
		write_file(path, "metadata", 4096);
	}
	n = jank_capture_chunks_scan(archives, &chunks);
	assert_int_equal(n, 2);
	assert_int_equal(chunks[0].index, 1);
	assert_int_equal(chunks[1].index, 2);
	assert_int_equal(jank(f, &f->frame, T0 + 5 * S, &v), JANK_CAPTURE_START);
	assert_int_equal(jank_capture_policy_keep_chunk(f->c, archives, &chunks[1], v.dir), 0);
	PATHF(path, "%s/chunks/%s/kernel/metadata", v.dir, names[1]);
	assert_true(exists(path));
	PATHF(path, "%s/%s", archives, names[1]);
	assert_false(exists(path));
	m = read_meta(v.dir);
	assert_string_equal(get_str(m, "mode", NULL), "rotation");
	list = json_object_object_get(m, "chunks");
	assert_int_equal(json_object_array_length(list), 1);
	assert_string_equal(get_str(json_object_array_get_idx(list, 0), "name", NULL), names[1]);
	json_object_put(m);
	free(chunks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(start_names_and_describes, setup, teardown),
		cmocka_unit_test_setup_teardown(live_path_of_crossed_path, setup, teardown),
		cmocka_unit_test_setup_teardown(join_in_flight, setup, teardown),
		cmocka_unit_test_setup_teardown(cooldown_per_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(max_per_hour, setup, teardown),
		cmocka_unit_test_setup_teardown(min_free, setup, teardown),
		cmocka_unit_test_setup_teardown(failures, setup, teardown),
		cmocka_unit_test_setup_teardown(unique_names, setup, teardown),
		cmocka_unit_test_setup_teardown(quota_oldest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(quota_foreign_files, setup, teardown),
		cmocka_unit_test_setup_teardown(disabled_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(keep_chunks, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
