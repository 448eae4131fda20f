/* SPDX-License-Identifier: MIT */
/*
 * Inside the critical-path picture: its state and what its files
 * (critpath-svg.c, critpath-svg-steps.c) share. Not for use outside them.
 */
#ifndef JANK_CRITPATH_SVG_INT_H
#define JANK_CRITPATH_SVG_INT_H

#include "array.h"
#include "critpath-svg.h"
#include "svg.h"
#include "units.h"

#define WIDTH		   1200
#define MARGIN		   16
#define PLOT_X0		   232
#define PLOT_X1		   (WIDTH - 32)
#define TITLE_Y		   30
#define SUB_Y		   52
#define MARK_Y		   84 /* baseline of the marker labels */
#define LANES_Y		   94
#define LANE_H		   48
#define BAR_Y		   11 /* bar top, within a lane */
#define BAR_H		   26
#define MIN_SEG_W	   3.0
#define MAX_LANES	   20 /* thread lanes; the rest share the last one */
#define FN_MIN_CHARS	   4  /* a function cut to fewer characters is left out */
#define STACK_TITLE_FRAMES 64 /* the most frames of a stack in a tooltip */
#define LANE_FUNCTIONS	   3  /* functions named in a lane's tooltip */

struct step {
	int32_t tid;
	uint8_t state;
	int64_t begin, end;
	const char *comm;
	uint32_t stack; /* the thread's call stack (jank_path_stack_of), 0 when unknown */
	bool wakeup;	/* the path reached this step through a wakeup of its thread */
	uint32_t host;	/* its host's label when the path crosses hosts, 0: the one host */
};

struct lane {
	int32_t tid; /* -1: the lane of the other threads */
	const char *comm;
	int64_t ns;	 /* time on the path */
	size_t first;	 /* first segment on the lane: lanes read in order of appearance */
	size_t nthreads; /* the other threads' lane: how many */
	bool action;	 /* the action's thread: first, and always drawn */
	uint32_t host;	 /* as steps' */
	size_t group;	 /* its host's place: the action's host first, then by appearance */
};

/* Where a thread is drawn; sorted by tid for bsearch. */
struct lane_ref {
	int32_t tid;
	size_t lane;
	uint32_t host; /* tids of two hosts collide */
};

struct picture {
	const struct jank_verdict *r;
	const struct jank_path *p;
	struct step *steps;
	size_t nsteps;
	struct lane *lanes;
	size_t nlanes;
	struct lane_ref *refs;
	size_t nrefs;
	/* Device lanes, under the threads: the sources of waits ended from interrupts. */
	uint8_t devices[JANK_STATE_COUNT];
	size_t ndevices;
	int64_t t0, t1; /* the visible time range */
	double lanes_bottom;
};

/* critpath-svg-steps.c */
size_t critpath_svg_lane_of(const struct picture *pic, uint32_t host, int32_t tid);
const char *critpath_svg_host_name(const struct picture *pic, uint32_t host);
bool critpath_svg_device_state(enum jank_state s, const char **name, const char **what);
size_t critpath_svg_device_lane(const struct picture *pic, uint8_t state);
int64_t critpath_svg_step_thread(const struct step *s);
int critpath_svg_build(struct picture *pic, const struct jank_verdict *r);
void critpath_svg_find_wakeups(struct picture *pic, const struct jank_graph *g);
void critpath_svg_find_devices(struct picture *pic);

#endif
