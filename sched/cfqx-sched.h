/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The cfqx scheduling core: every decision the cfqx elevator makes, as
 * plain C with no kernel or libc dependency, compiled unchanged into the
 * module (kmod/) and into the deterministic simulator (`cfqx sim`, user/sim*)
 * and the unit tests.  The caller owns the locking (one lock around every
 * call for a device), the clock (`now` in ns, any monotonic origin), the
 * memory (groups and requests are embedded in the caller's objects) and the
 * mapping from its requests and processes to the core's.
 *
 * What the core decides (see cfqx-sched.c for the rules and their why):
 *
 *   insert      a request joins its group's sector-sorted queue and FIFO;
 *   dispatch    which request goes to the device next, or none now (and
 *               until when), from: FIFO expiry, the group order (virtual
 *               service), the contended dispatch depth, anticipation, and
 *               the one-way elevator with small backward seeks inside the
 *               chosen group;
 *   complete    charges the group, learns the device (latency, rate,
 *               capacity, the knee of its depth, its pace when it
 *               throttles) and the group (think time), and opens an
 *               anticipation window;
 *   admission   how many requests a group may allocate (2.6.10 may_queue).
 *
 * Units: sectors are 512 bytes; times are ns.
 */
#ifndef CFQX_SCHED_H
#define CFQX_SCHED_H

#include "cfqx-sched-env.h"
#include <cfqx/cfq.h>

/* Intrusive doubly linked list (circular, with a head node). */
struct cfqx_link {
	struct cfqx_link *next, *prev;
};

enum cfqx_sched_dir { CFQX_SCHED_ASYNC = 0, CFQX_SCHED_SYNC = 1 };

/* Where a request is, from the core's point of view. */
enum cfqx_sched_rq_state {
	CFQX_SRQ_IDLE = 0,	/* known to the core, not queued */
	CFQX_SRQ_QUEUED,	/* in its group's sort queue and FIFO */
	CFQX_SRQ_DISPATCHED,	/* handed to the device, in flight */
};

struct cfqx_sched_group;

/* One request.  The caller fills it with cfqx_sched_rq_init(). */
struct cfqx_sched_rq {
	struct cfqx_link sort;		/* group's queue, ascending sector */
	struct cfqx_link fifo;		/* group's FIFO, arrival order */
	struct cfqx_sched_group *group;
	void *owner;			/* the caller's request */
	u64 sector;			/* first sector */
	u32 sectors;			/* length in sectors */
	u8 sync;			/* CFQX_SCHED_SYNC / _ASYNC */
	u8 write;			/* admission direction: 0 read, 1 write */
	u8 state;			/* enum cfqx_sched_rq_state */
	u8 head;			/* on sched->head (requeued at head) */
	u8 alone;			/* dispatched to an idle device */
	u8 pad[7];
	u64 insert_ns;			/* when inserted */
	u64 deadline_ns;		/* FIFO expiry (queued) */
	u64 dispatch_ns;		/* when dispatched */
	u64 charge;			/* cost charged at dispatch */
};

/* One group (queue): a process, process group, user, group or cgroup. */
struct cfqx_sched_group {
	struct cfqx_link active;	/* sched->active while active */
	struct cfqx_link sort[2];	/* by sector, [CFQX_SCHED_ASYNC/SYNC] */
	struct cfqx_link fifo[2];	/* by arrival */
	u32 queued[2];
	u32 queued_head;		/* its requests on sched->head */
	u32 in_flight;
	u32 allocated[2];		/* held by the caller, [0 read, 1 write] */
	u8 on_active;
	u8 last_sync;			/* direction of its last request */
	u8 backlogged;			/* choose()'s last backlogged() answer */
	u8 pad;

	u64 vtime;			/* virtual service, cost units x 256 */
	u64 service_ns;			/* 2.6.10 service_used (decayed) */
	u64 service_epoch;		/* second of the last decay */
	u64 dispatched;			/* requests, since init */
	u64 charged;			/* cost units, since init */

	u64 idle_since;			/* went empty at (0: not empty) */
	u64 think_ns;			/* EWMA of empty -> next request, x16 */
	u64 think_dev;			/* EWMA of |sample - think|, x16 */
	u64 think_min;			/* its forgetting minimum, ns */
	u64 avg_sectors;		/* EWMA of its request size, x16 */
	u64 wait_ns;			/* EWMA of insert -> dispatch, x16 */
	u64 lat_ns;			/* EWMA of dispatch -> complete, x16 */
	u32 think_samples;
	u32 pad2;
	u64 anticipate_until;		/* 0: not anticipated */
	u64 seeks;			/* share of its requests that seek */
	u64 insert_end;			/* end of the last one inserted */
	u64 last_sector;		/* end of its last dispatch: its sweep */
	u64 fifo_check_at;		/* its FIFO may be served again at */
};

/* What the caller tells the core about the device. */
struct cfqx_sched_device {
	u32 tags;			/* requests the device takes at once */
	u8 rotational;			/* cost in device time, not bytes */
};

/* Why queued work is not on the device. */
enum cfqx_sched_hold {
	CFQX_HOLD_NOTHING = 0,	/* nothing is queued */
	CFQX_HOLD_READY,	/* the core would dispatch: blk-mq did not ask */
	CFQX_HOLD_ORDER,	/* every queued group is a round ahead of V, or
				 * a disk waits for the group it serves */
	CFQX_HOLD_DEPTH,	/* the contended depth (or the tags) is full */
	CFQX_HOLD_PACE,		/* the pace */
	CFQX_HOLD_CAUSES
};

struct cfqx_sched_stats {
	u64 inserted;
	u64 dispatched;
	u64 fifo_expired;
	u64 depth_full;			/* dispatch refused (depth, pace, order) */
	u64 pace_refused;		/* ... of those, for the pace */
	u64 paced;			/* dispatched while the pace was on */
	u64 late_wakes;			/* tick() came a latency past its time */
	u64 idle_hit;			/* anticipated group came back in time */
	u64 idle_expired;		/* ... or did not */
	u64 requeued;
	u64 completed;
	u64 merged;			/* requests merged into another */
	u64 merged_cross;		/* ... of another group (charged to it) */
	/* Time work sat queued, by why (enum cfqx_sched_hold), and of the
	 * time it was held, how much with nothing in flight. */
	u64 held_ns[CFQX_HOLD_CAUSES];
	u64 held_idle_ns;
};


/* One device's scheduler state. */
struct cfqx_sched {
	struct cfqx_link active;	/* groups queued, in flight or anticipated */
	struct cfqx_link head;		/* requeued at-head requests, first out */
	struct cfqx_sched_device dev;
	u32 nr_active;
	u32 nr_busy;			/* groups with queued requests */
	u32 nr_queued;
	u32 in_flight;
	u32 depth;			/* contended depth, learned */
	u32 nr_head;
	u32 nr_backlogged;		/* groups queued or in flight */
	u32 window_rqs;			/* completions in the measuring window */
	u32 depth_base;			/* the depth the probes start from */
	u8 can_dispatch;		/* what has_work() answers */
	u8 win_full;			/* the depth held work back this window */
	s8 probe;			/* depth probe: +1 up, -1 down, 0 none */
	s8 next_probe;			/* direction of the next probe */
	u8 probe_wait;			/* windows at depth_base before it */
	u8 pad[2];
	u64 next_fifo_check;
	u64 next_wake;			/* earliest anticipation window end */
	u64 vclock;			/* virtual time V (cost units x 256) */
	u64 vmin;			/* least backlogged vtime (0: none) */

	/* Device model, learned from completions (see cfqx-sched.c). */
	u64 lat_min_ns;			/* least dispatch->complete (learn_device) */
	u64 lat_min_next;		/* ... in the current window */
	u64 win_sectors;		/* completed in the window */
	u64 win_busy_ns;		/* time with requests in flight */
	u64 busy_since;			/* device busy since (in_flight > 0) */
	u64 avg_sectors;		/* EWMA request size, sectors x 16 */
	u64 rate;			/* sectors per busy ns, x 2^24 */
	u64 rate_base;			/* ... at depth_base */
	const struct cfqx_policy *policy;	/* the last one passed in */
	struct cfqx_sched_group *last_group;	/* of the last dispatch */
	struct cfqx_sched_group *last_done;	/* of the last completion */
	u64 turn_since;			/* a disk serves last_group since */
	u64 switch_cost;		/* EWMA device time after a group switch */
	u64 last_now;			/* and the clock then */
	u64 avg_cost;			/* EWMA charge per request, x 16 */
	u64 last_complete_ns;		/* for exclusive device time */
	u64 pace_rate;			/* dispatch pace, sectors/ns x 2^24 */
	u64 pace_free;			/* the paced device is free at */
	u64 pace_late_ns;		/* a late wake's time, to catch up on */
	u64 pace_win_start;		/* this pace window began at */
	u64 pace_win_sectors;		/* completed in it */
	u64 pace_win_lost_ns;		/* ... of it the host stood still */
	u64 rate_max_cur;		/* most delivered in a window, this cycle */
	u64 rate_max_prev;		/* ... and the last one */
	u64 cap_max_cur;		/* as rate_max, and the order's holds
					 * counted above it: capacity() */
	u64 cap_max_prev;		/* ... and the last cycle's */
	u32 pace_trim;			/* 64ths of the rate the cruise pace
					 * is lowered by (learn_pace()) */
	u8 pace_phase;			/* window of the pace cycle */
	u8 stalled_cur;			/* the device stopped this cycle */
	u8 stalled_prev;		/* ... or the last one */
	u8 win_stalled;			/* ... or this pace window */
	u8 pace_held;			/* the pace held work in this window */
	u8 cap_held;			/* ... or the order, with room */
	u8 pace_refusing;		/* choose() found none but for the pace */
	u8 lat_alone;			/* the window saw a request found it idle */
	u8 hold;			/* enum cfqx_sched_hold, since last_now */
	u8 hold_why;			/* what choose() last found held work */
	u8 pad4[2];
	u32 in_flight_then;		/* in_flight at last_now */
	u32 nr_allocated;		/* requests the caller holds */

	struct cfqx_sched_stats st;
};

/* Set-up. */
void cfqx_sched_init(struct cfqx_sched *s, const struct cfqx_sched_device *d);
void cfqx_sched_set_tags(struct cfqx_sched *s, u32 tags);
void cfqx_sched_group_init(struct cfqx_sched_group *g);
void cfqx_sched_rq_init(struct cfqx_sched *s, struct cfqx_sched_rq *r,
			struct cfqx_sched_group *g, u64 sector, u32 sectors,
			bool sync, bool write, void *owner);

/* A group the caller may free: nothing queued, in flight or anticipated. */
bool cfqx_sched_group_idle(const struct cfqx_sched_group *g);
/* Drop a group from the core's lists (before the caller frees it). */
void cfqx_sched_group_forget(struct cfqx_sched *s, struct cfqx_sched_group *g);

/* Queueing. */
void cfqx_sched_insert(struct cfqx_sched *s, struct cfqx_sched_rq *r,
		       const struct cfqx_policy *p, u64 now);
/* A requeued request that must go out before anything else. */
void cfqx_sched_insert_head(struct cfqx_sched *s, struct cfqx_sched_rq *r);
void cfqx_sched_remove(struct cfqx_sched *s, struct cfqx_sched_rq *r);
/* r's extent changed (a bio merged into it): re-sort it. */
void cfqx_sched_resize(struct cfqx_sched *s, struct cfqx_sched_rq *r,
		       u64 sector, u32 sectors);
/* r absorbed next (same group, both queued): next leaves, r keeps the
 * earlier deadline and FIFO place. */
void cfqx_sched_merge(struct cfqx_sched *s, struct cfqx_sched_rq *r,
		      struct cfqx_sched_rq *next);
/* A queued request of @g, direction @sync, starting at @sector (front
 * merge) or, with @end, ending at @sector (back merge). */
struct cfqx_sched_rq *cfqx_sched_find(struct cfqx_sched_group *g, bool sync,
				      u64 sector, bool end);
/* The queued request after / before @r in its group's sector order. */
struct cfqx_sched_rq *cfqx_sched_next(struct cfqx_sched_rq *r);
struct cfqx_sched_rq *cfqx_sched_prev(struct cfqx_sched_rq *r);

/*
 * Dispatch: the next request (removed from its queue, counted in flight),
 * or NULL.  On NULL, *wake_at is when the answer may change without a new
 * request or completion (an anticipation window ends: call
 * cfqx_sched_tick() then), else 0.
 */
struct cfqx_sched_rq *cfqx_sched_dispatch(struct cfqx_sched *s,
					  const struct cfqx_policy *p, u64 now,
					  u64 *wake_at);
/* Would cfqx_sched_dispatch() return a request?  Lockless, one load: the
 * answer is recomputed by every other call. */
bool cfqx_sched_has_work(const struct cfqx_sched *s);
/* For the caller's statistics: the device's capacity as the core sees it,
 * and the pace (0 while dispatch is not paced), in KiB/s. */
u64 cfqx_sched_capacity_kib_s(const struct cfqx_sched *s);
u64 cfqx_sched_pace_kib_s(const struct cfqx_sched *s);
/* One round of credit, in the core's cost unit (ns on a disk, sectors
 * otherwise): what a group may run ahead of V. */
u64 cfqx_sched_round(const struct cfqx_sched *s, const struct cfqx_policy *p);
/* When the caller must call cfqx_sched_tick() for queued work that waits
 * for time alone (an anticipation window, the pace), else 0.  Under the
 * caller's lock, after an insert or a completion. */
u64 cfqx_sched_wake_at(const struct cfqx_sched *s);
/* Time passed (a window may have ended): recompute; returns the next
 * window end (0: none).  @due is when the caller's timer was set to fire
 * (0: not from a timer): one that fires late says the host stood still. */
u64 cfqx_sched_tick(struct cfqx_sched *s, const struct cfqx_policy *p, u64 now,
		    u64 due);

/*
 * Completion of a dispatched request (whole request, success or error).
 * Returns true when it released work the core held (queued work it would
 * not dispatch before and would now): the caller runs its queue.
 * Completions while the core still holds return false.
 */
bool cfqx_sched_complete(struct cfqx_sched *s, struct cfqx_sched_rq *r,
			 const struct cfqx_policy *p, u64 now);
/* The caller found the device's queue stopped: its driver turned work
 * away (a throttle's budget is spent, a ring is full).  Under the
 * caller's lock; where it looks: at an insert, a completion and its
 * timer. */
void cfqx_sched_stopped(struct cfqx_sched *s);
/* The caller is done with @r (freed): admission slot returned. */
void cfqx_sched_release(struct cfqx_sched *s, struct cfqx_sched_rq *r);
/* A dispatched request came back undone: idle again (re-insert it). */
void cfqx_sched_requeue(struct cfqx_sched *s, struct cfqx_sched_rq *r);

/* Admission: may @g allocate one more request now (2.6.10 may_queue)? */
bool cfqx_sched_may_queue(const struct cfqx_sched *s,
			  const struct cfqx_sched_group *g, bool write,
			  const struct cfqx_policy *p, u32 nr_requests);

/* The contended dispatch depth the core would apply now (for display). */
u32 cfqx_sched_depth(const struct cfqx_sched *s, const struct cfqx_policy *p);
/* Decayed 2.6.10 service_used of @g at @now (ns of device time). */
u64 cfqx_sched_service(struct cfqx_sched_group *g, u64 now);

#endif /* CFQX_SCHED_H */
