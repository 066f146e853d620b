// SPDX-License-Identifier: GPL-2.0
/*
 * cfqx: the CFQ v2 (Linux 2.6.10) fairness rules as a blk-mq elevator.
 *
 * Why this exists: none, mq-deadline and kyber order requests for the
 * device, not for the processes behind them, and bfq's budgets still let a
 * group that keeps 16 requests outstanding take ~75% of a device shared
 * with three one-at-a-time readers.  CFQ v2 divided bandwidth between the
 * contending processes; cfqx brings its rules back, under the same live
 * policy (struct cfqx_policy) that the cfqx BPF accounting uses, so what
 * the BPF side reports and what the elevator enforces cannot drift.  The
 * pure rules (backward-seek choice, decay, admission share, policy checks)
 * come from include/cfqx/cfq.h, shared with BPF and user space.
 *
 * What CFQ v2 alone lacks on blk-mq, and why cfqx adds it:
 *
 * - max_depth.  A blk-mq device accepts as many requests as it has tags
 *   (64 on the test null_blk).  Whatever the elevator orders, a group that
 *   keeps 16 requests queued gets 16 of them into the device, where order
 *   is FIFO and the greedy group wins.  Bounding the requests in flight at
 *   the device (4 by default) keeps the queue, and so the ordering
 *   decision, in the elevator.  Completions re-run the hardware queue.
 *
 * - slice_idle (anticipation).  A reader at depth 1 has no request queued
 *   while it thinks about the last one; a work-conserving scheduler hands
 *   its slot to the greedy group every time.  After a sync group's last
 *   request completes and its measured think time is below slice_idle,
 *   the group is "anticipated" for slice_idle.  While an anticipated group
 *   is owed service before the group dispatch would pick, it keeps one
 *   free device slot; the picked group may use the other slots, but no
 *   more than an equal share of max_depth among the contending groups,
 *   and none while it has used more device time than the waiting group
 *   and the device still has two requests to work on.  So a thinking
 *   reader costs its own slot, never the whole device, and a deep group
 *   cannot fill the device while readers think.  An hrtimer re-runs the
 *   queue when a window ends; has_work reports held work as no work (a
 *   NULL dispatch after a true has_work makes blk-mq postpone re-runs by
 *   3 ms).  A group that keeps missing its window stops being anticipated
 *   (its think-time average grows past slice_idle).
 *
 * - service ordering.  Busy groups are served in ascending decayed
 *   service_used (device time: completion - dispatch, >>3 per second),
 *   plus the time their in-flight requests are expected to take, so a
 *   group with many requests in flight is seen as having used that time
 *   already.  Within that order, 2.6.10's round robin: groups with nothing
 *   in flight first ("first pass"), then groups under `quantum` in flight,
 *   then the rest.
 *
 * Inside a group: two sector-sorted trees (sync, async; sync first) and two
 * FIFOs.  The next request is chosen around the last dispatched sector with
 * cfqx_choose_req() (short backward seeks at back_seek_penalty, long ones
 * wait for the next sweep).  Every fifo_batch_expire ms the oldest expired
 * FIFO head of any group (sync before async) jumps the order: deadlines
 * are fifo_expire_sync / fifo_expire_async, applied to the FIFO they name
 * (2.6.10 as shipped crossed them).
 *
 * Groups: one per key (tgid, pgid, uid, gid or cgroup v2 id of the
 * submitting task, computed at request allocation under the live policy,
 * so a policy switch regroups new requests at once).  Kernel threads (the
 * flusher writing back page cache) are their own group, flagged
 * CFQX_GF_KTHREAD, never charged to a user.  Each process's io_context
 * holds a reference on its group through the icq, so a group's service
 * history lives as long as the process, not just its requests.
 *
 * Admission: limit_depth lets a group allocate up to cfqx_queue_limit()
 * requests (nr_requests / busy groups, clamped to [queued, max_queued]);
 * beyond that its allocations are confined to a shallow tag depth, so it
 * waits for tags instead of crowding others out.
 *
 * Policy source: the sysfs tunables, or, once a map fd is written to
 * iosched/policy_map, the pinned cfqx policy BPF array map, read on every
 * decision.  A map value failing cfqx_policy_check() is ignored (the last
 * good policy stays) and counted.  While a map is attached, a tunable write
 * updates the map value, so BPF accounting and elevator stay together.
 *
 * Locking: one spinlock per elevator instance (cfqx_data.lock), taken with
 * interrupts disabled because finish_request runs in completion (irq)
 * context.  It protects the groups, their trees and FIFOs, the counters,
 * the local policy and the map pointer.  Lock order: q->queue_lock ->
 * ioc->lock -> cfqx_data.lock (exit_icq is called with the first two
 * held); cfqx never takes another lock while holding its own, except the
 * hrtimer base when arming the idle timer and RCU for the map value.  The
 * idle timer callback takes no lock; it only asks blk-mq to re-run the
 * queues asynchronously.  Nothing here sleeps with the lock held; group
 * allocation is GFP_ATOMIC with an always-present fallback group, counted.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/bpf.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/iocontext.h>
#include <linux/pid_namespace.h>
#include <linux/rbtree.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>
#include <linux/uidgid.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"

#include <cfqx/cfq.h>

#define CFQX_GROUP_HASH_BITS	6
#define CFQX_ASYNC		0
#define CFQX_SYNC		1

/* Request state kept in rq->elv.priv[1]. */
enum cfqx_rq_state {
	CFQX_RQ_ALLOCATED = 0,	/* prepared, not (yet) inserted */
	CFQX_RQ_QUEUED,		/* in a group's tree and FIFO */
	CFQX_RQ_LISTED,		/* on the plain dispatch list */
	CFQX_RQ_DISPATCHED,	/* handed to the driver, counted in flight */
};

struct cfqx_data;

struct cfqx_group {
	struct hlist_node hash_node;
	struct list_head active_node;	/* cd->active: busy or anticipated */
	bool on_active;
	bool fallback;			/* cd->fallback: never freed */
	u32 group_by;
	u32 flags;			/* CFQX_GF_* */
	u64 id;
	int ref;			/* icqs + requests holding it */

	struct rb_root sort[2];		/* by sector, [CFQX_ASYNC/SYNC] */
	struct list_head fifo[2];	/* by arrival */
	unsigned int queued[2];
	unsigned int allocated;		/* prepared, not finished */
	unsigned int in_flight;		/* dispatched, not finished */

	u64 service_used;		/* ns of device time, decayed */
	u64 service_epoch;		/* second of the last decay */
	u64 dispatched;
	u64 last_complete_ns;		/* went idle at (0: not idle) */
	u64 think_ns;			/* EWMA of idle -> next request */
	unsigned int think_samples;
	u64 anticipate_until;		/* 0: not anticipated */
};

struct cfqx_stats {
	u64 inserted;
	u64 dispatched;
	u64 merged_bio;
	u64 merged_rq;
	u64 fifo_expired;
	u64 depth_full;
	u64 idle_hold;
	u64 idle_hit;
	u64 idle_expired;
	u64 no_pick;
	u64 throttled;
	u64 requeued;
	u64 alloc_fail;
	u64 bad_policy;
	u64 groups_created;
	u64 groups_freed;
};

struct cfqx_data {
	spinlock_t lock;
	struct request_queue *q;
	struct cfqx_policy pol;		/* set through sysfs */
	struct cfqx_policy live;	/* in force: pol, or the map's last good */
	struct bpf_map *map;		/* attached policy map, or NULL */
	struct cfqx_policy bad_seen;	/* last rejected map value */

	DECLARE_HASHTABLE(groups, CFQX_GROUP_HASH_BITS);
	struct list_head active;
	struct cfqx_group fallback;	/* when a group cannot be allocated */
	unsigned int nr_groups;
	unsigned int nr_busy;		/* groups with queued requests */
	unsigned int nr_queued;
	unsigned int in_flight;
	unsigned int nr_flying;		/* groups with requests in flight */
	struct list_head dispatch;	/* at-head, flush and requeued rqs */

	sector_t last_sector;		/* end of the last dispatch */
	u64 next_fifo_check;
	u64 avg_service_ns;		/* EWMA of completion - dispatch */
	u64 hold_until;			/* anticipation hold ends (0: none) */
	struct hrtimer idle_timer;
	struct cfqx_stats st;
};

/* Per process (io_context) and queue: keeps its group alive. */
struct cfqx_icq {
	struct io_cq icq;
	struct cfqx_group *group;
};

static inline struct cfqx_icq *icq_to_cic(struct io_cq *icq)
{
	return container_of(icq, struct cfqx_icq, icq);
}

static inline struct cfqx_group *rq_group(struct request *rq)
{
	return rq->elv.priv[0];
}

static inline enum cfqx_rq_state rq_state(struct request *rq)
{
	return (enum cfqx_rq_state)(uintptr_t)rq->elv.priv[1];
}

static inline void rq_set_state(struct request *rq, enum cfqx_rq_state s)
{
	rq->elv.priv[1] = (void *)(uintptr_t)s;
}

/* ------------------------------------------------------------------ */
/* Policy */

/*
 * Refresh cd->live from the attached map.  Array map values are a plain
 * pointer into the map's value area; BPF programs and `bpftool map update`
 * may write it concurrently, so each field is read once and the copy is
 * validated as a whole.  Caller holds cd->lock.
 */
static const struct cfqx_policy *cfqx_policy(struct cfqx_data *cd)
{
	struct cfqx_policy v;
	const __u32 *src;
	__u32 *dst = (__u32 *)&v;
	u32 key = 0;
	void *val;
	int i, bad;

	if (!cd->map)
		return &cd->live;

	rcu_read_lock();
	val = cd->map->ops->map_lookup_elem(cd->map, &key);
	if (val) {
		src = val;
		for (i = 0; i < CFQX_POLICY_SIZE / 4; i++)
			dst[i] = READ_ONCE(src[i]);
	}
	rcu_read_unlock();
	if (!val)
		return &cd->live;

	bad = cfqx_policy_check(&v);
	if (!memchr_inv(&v, 0, sizeof(v))) {
		/* A map just created (all zero) means: defaults. */
		cd->live = (struct cfqx_policy)CFQX_POLICY_DEFAULT;
	} else if (!bad) {
		cd->live = v;
	} else if (memcmp(&v, &cd->bad_seen, sizeof(v))) {
		cd->bad_seen = v;
		cd->st.bad_policy++;
		pr_warn_ratelimited("cfqx: ignoring policy map value: bad %s\n",
				    cfqx_policy_field_names[bad - 1]);
	}
	return &cd->live;
}

/* ------------------------------------------------------------------ */
/* Groups */

static void cfqx_group_init(struct cfqx_group *g, u32 group_by, u32 flags,
			    u64 id)
{
	INIT_HLIST_NODE(&g->hash_node);
	INIT_LIST_HEAD(&g->active_node);
	g->group_by = group_by;
	g->flags = flags;
	g->id = id;
	g->sort[CFQX_ASYNC] = RB_ROOT;
	g->sort[CFQX_SYNC] = RB_ROOT;
	INIT_LIST_HEAD(&g->fifo[CFQX_ASYNC]);
	INIT_LIST_HEAD(&g->fifo[CFQX_SYNC]);
}

static u64 cfqx_key_hash(u32 group_by, u32 flags, u64 id)
{
	return id ^ ((u64)group_by << 56) ^ ((u64)flags << 48);
}

/* The key of the current task under @group_by. */
static void cfqx_current_key(u32 group_by, u32 *flags, u64 *id)
{
	*flags = 0;
	if (current->flags & PF_KTHREAD) {
		/* Flusher writeback and the like: its own group. */
		*flags = CFQX_GF_KTHREAD;
		*id = current->tgid;
		return;
	}
	switch (group_by) {
	case CFQX_BY_PGID:
		*id = task_pgrp_nr_ns(current, &init_pid_ns);
		break;
	case CFQX_BY_UID:
		*id = from_kuid_munged(&init_user_ns, current_uid());
		break;
	case CFQX_BY_GID:
		*id = from_kgid_munged(&init_user_ns, current_gid());
		break;
	case CFQX_BY_CGROUP:
		rcu_read_lock();
		*id = cgroup_id(task_dfl_cgroup(current));
		rcu_read_unlock();
		break;
	default:
		*id = current->tgid;
		break;
	}
}

static struct cfqx_group *cfqx_group_find(struct cfqx_data *cd, u32 group_by,
					  u32 flags, u64 id)
{
	struct cfqx_group *g;

	hash_for_each_possible(cd->groups, g, hash_node,
			       cfqx_key_hash(group_by, flags, id))
		if (g->id == id && g->group_by == group_by && g->flags == flags)
			return g;
	return NULL;
}

/* Find or create; never NULL (falls back to cd->fallback). Holds cd->lock. */
static struct cfqx_group *cfqx_group_get(struct cfqx_data *cd, u32 group_by,
					 u32 flags, u64 id)
{
	struct cfqx_group *g = cfqx_group_find(cd, group_by, flags, id);

	if (!g) {
		g = kzalloc_node(sizeof(*g), GFP_ATOMIC | __GFP_NOWARN,
				 cd->q->node);
		if (!g) {
			cd->st.alloc_fail++;
			return &cd->fallback;
		}
		cfqx_group_init(g, group_by, flags, id);
		hash_add(cd->groups, &g->hash_node,
			 cfqx_key_hash(group_by, flags, id));
		cd->nr_groups++;
		cd->st.groups_created++;
	}
	g->ref++;
	return g;
}

static void cfqx_group_free(struct cfqx_data *cd, struct cfqx_group *g)
{
	hash_del(&g->hash_node);
	if (g->on_active)
		list_del_init(&g->active_node);
	cd->nr_groups--;
	cd->st.groups_freed++;
	kfree(g);
}

static void cfqx_group_put(struct cfqx_data *cd, struct cfqx_group *g)
{
	if (!g || g->fallback)
		return;
	if (WARN_ON_ONCE(g->ref <= 0))
		return;
	if (--g->ref == 0)
		cfqx_group_free(cd, g);
}

static void cfqx_group_activate(struct cfqx_data *cd, struct cfqx_group *g)
{
	if (!g->on_active) {
		list_add_tail(&g->active_node, &cd->active);
		g->on_active = true;
	}
}

static void cfqx_group_deactivate(struct cfqx_group *g)
{
	if (g->on_active) {
		list_del_init(&g->active_node);
		g->on_active = false;
	}
}

static inline unsigned int group_queued(const struct cfqx_group *g)
{
	return g->queued[CFQX_ASYNC] + g->queued[CFQX_SYNC];
}

/* Service so far, decayed to now, plus what its in-flight requests cost. */
static u64 cfqx_group_cost(struct cfqx_data *cd, struct cfqx_group *g,
			   u64 now)
{
	u64 epoch = cfqx_epoch(now);

	g->service_used = cfqx_service_decay(g->service_used, g->service_epoch,
					     epoch);
	g->service_epoch = epoch;
	return g->service_used + (u64)g->in_flight * cd->avg_service_ns;
}

/* 2.6.10 round robin passes: nothing in flight, under quantum, the rest. */
static unsigned int cfqx_group_tier(const struct cfqx_group *g,
				    const struct cfqx_policy *p)
{
	if (!g->in_flight)
		return 0;
	return g->in_flight < p->quantum ? 1 : 2;
}

/* ------------------------------------------------------------------ */
/* Queueing */

static void cfqx_add_rq(struct cfqx_data *cd, struct request *rq,
			const struct cfqx_policy *p, u64 now)
{
	struct request_queue *q = cd->q;
	struct cfqx_group *g = rq_group(rq);
	int sync = rq_is_sync(rq) ? CFQX_SYNC : CFQX_ASYNC;

	if (!group_queued(g) && !g->in_flight) {
		if (g->last_complete_ns) {
			u64 think = now - g->last_complete_ns;

			g->think_ns = g->think_samples ?
				(g->think_ns * 7 + think) / 8 : think;
			g->think_samples++;
			g->last_complete_ns = 0;
		}
		if (g->anticipate_until) {
			if (now <= g->anticipate_until)
				cd->st.idle_hit++;
			g->anticipate_until = 0;
		}
	}
	if (!group_queued(g))
		cd->nr_busy++;

	elv_rb_add(&g->sort[sync], rq);
	if (rq_mergeable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	rq->fifo_time = now + cfqx_fifo_expire_ns(p, sync);
	list_add_tail(&rq->queuelist, &g->fifo[sync]);
	g->queued[sync]++;
	cd->nr_queued++;
	rq_set_state(rq, CFQX_RQ_QUEUED);
	cfqx_group_activate(cd, g);
	/* New work may end a hold: let dispatch decide again. */
	WRITE_ONCE(cd->hold_until, 0);
	cd->st.inserted++;
}

/* Take a queued request out of its group's tree, FIFO and the merge hash. */
static void cfqx_del_rq(struct cfqx_data *cd, struct request *rq)
{
	struct request_queue *q = cd->q;
	struct cfqx_group *g = rq_group(rq);
	int sync = rq_is_sync(rq) ? CFQX_SYNC : CFQX_ASYNC;

	elv_rb_del(&g->sort[sync], rq);
	list_del_init(&rq->queuelist);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
	g->queued[sync]--;
	cd->nr_queued--;
	if (!group_queued(g))
		cd->nr_busy--;
	rq_set_state(rq, CFQX_RQ_ALLOCATED);
}

static void cfqx_insert_requests(struct blk_mq_hw_ctx *hctx,
				 struct list_head *list, bool at_head)
{
	struct request_queue *q = hctx->queue;
	struct cfqx_data *cd = q->elevator->elevator_data;
	const struct cfqx_policy *p;
	unsigned long flags;
	LIST_HEAD(free);
	u64 now = ktime_get_ns();

	spin_lock_irqsave(&cd->lock, flags);
	p = cfqx_policy(cd);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);

		list_del_init(&rq->queuelist);
		if (at_head || !(rq->rq_flags & RQF_ELVPRIV)) {
			/* Flushes, passthrough and requeued heads: as is. */
			if (at_head)
				list_add(&rq->queuelist, &cd->dispatch);
			else
				list_add_tail(&rq->queuelist, &cd->dispatch);
			if (rq->rq_flags & RQF_ELVPRIV)
				rq_set_state(rq, CFQX_RQ_LISTED);
			continue;
		}
		if (blk_mq_sched_try_insert_merge(q, rq, &free))
			continue;
		cfqx_add_rq(cd, rq, p, now);
	}
	spin_unlock_irqrestore(&cd->lock, flags);
	blk_mq_free_requests(&free);
}

/* ------------------------------------------------------------------ */
/* Dispatch */

/* The group's next request around cd->last_sector (cfq_choose_req). */
static struct request *cfqx_group_next(struct cfqx_data *cd,
				       struct cfqx_group *g,
				       const struct cfqx_policy *p)
{
	int sync = g->queued[CFQX_SYNC] ? CFQX_SYNC : CFQX_ASYNC;
	struct rb_node *n = g->sort[sync].rb_node;
	struct request *ceil = NULL, *floor = NULL, *lowest, *best;
	u64 last = cd->last_sector, back = cfqx_back_max_sectors(p);

	while (n) {
		struct request *rq = rb_entry_rq(n);

		if (blk_rq_pos(rq) >= last) {
			ceil = rq;
			n = n->rb_left;
		} else {
			floor = rq;
			n = n->rb_right;
		}
	}
	lowest = rb_entry_rq(rb_first(&g->sort[sync]));
	best = ceil ? ceil : floor;
	if (floor && best != floor &&
	    cfqx_choose_req(last, blk_rq_pos(best), blk_rq_pos(floor), back,
			    p->back_seek_penalty) == 2)
		best = floor;
	if (lowest != best &&
	    cfqx_choose_req(last, blk_rq_pos(best), blk_rq_pos(lowest), back,
			    p->back_seek_penalty) == 2)
		best = lowest;
	return best;
}

/* The oldest expired FIFO head, sync first; checked once per batch. */
static struct request *cfqx_fifo_expired(struct cfqx_data *cd,
					 const struct cfqx_policy *p, u64 now)
{
	struct request *oldest = NULL;
	struct cfqx_group *g;
	int sync;

	if (now < cd->next_fifo_check)
		return NULL;
	cd->next_fifo_check = now + (u64)p->fifo_batch_expire *
		CFQX_NSEC_PER_MSEC;
	for (sync = CFQX_SYNC; sync >= CFQX_ASYNC && !oldest; sync--) {
		list_for_each_entry(g, &cd->active, active_node) {
			struct request *rq;

			if (list_empty(&g->fifo[sync]))
				continue;
			rq = list_first_entry(&g->fifo[sync], struct request,
					      queuelist);
			if (rq->fifo_time <= now &&
			    (!oldest || rq->fifo_time < oldest->fifo_time))
				oldest = rq;
		}
	}
	return oldest;
}

/*
 * Pick the busy group to serve, or NULL.  Sets *hold_until when an
 * anticipated (idle, sync) group is owed service before every busy one.
 */
static struct cfqx_group *cfqx_pick_group(struct cfqx_data *cd,
					  const struct cfqx_policy *p, u64 now,
					  u64 *hold_until)
{
	struct cfqx_group *g, *tmp, *best = NULL;
	unsigned int best_tier = 0, owed = 0, contenders = 0, share;
	u64 best_cost = 0, until = 0, cost;
	bool cheaper = false;

	*hold_until = 0;
	list_for_each_entry_safe(g, tmp, &cd->active, active_node) {
		unsigned int tier;

		if (!group_queued(g)) {
			if (!g->anticipate_until || now >= g->anticipate_until) {
				if (g->anticipate_until)
					cd->st.idle_expired++;
				g->anticipate_until = 0;
				cfqx_group_deactivate(g);
			}
			continue;
		}
		tier = cfqx_group_tier(g, p);
		cost = cfqx_group_cost(cd, g, now);
		if (!best || tier < best_tier ||
		    (tier == best_tier && (cost < best_cost ||
		     (cost == best_cost && g->in_flight < best->in_flight)))) {
			best = g;
			best_tier = tier;
			best_cost = cost;
		}
	}
	if (!best || !p->slice_idle)
		return best;

	/*
	 * Anticipated groups owed service before @best (an idle group is
	 * always tier 0: nothing in flight) each keep one free slot for
	 * their next request, and while any is waiting @best gets no more
	 * than an equal share of max_depth among the groups contending
	 * (queued, anticipated or in flight).  So a thinking reader costs
	 * its own slot, never the whole device, and a deep group cannot
	 * fill the device while readers think; nor may it run ahead of a
	 * waiting group that has used less device time, as long as the
	 * device is not left idle.
	 */
	list_for_each_entry(g, &cd->active, active_node) {
		if (!g->in_flight)
			contenders++;
		if (group_queued(g) || !g->anticipate_until)
			continue;
		cost = cfqx_group_cost(cd, g, now);
		if (best_tier > 0 || cost <= best_cost) {
			owed++;
			if (cost < best_cost)
				cheaper = true;
			if (!until || g->anticipate_until < until)
				until = g->anticipate_until;
		}
	}
	contenders += cd->nr_flying;
	share = max(1U, p->max_depth / max(1U, contenders));
	if (owed && (p->max_depth - cd->in_flight <= owed ||
		     best->in_flight >= share || (cheaper && cd->in_flight >= 2))) {
		*hold_until = until;
		return NULL;
	}
	return best;
}

static void cfqx_mark_dispatched(struct cfqx_data *cd, struct request *rq,
				 u64 now)
{
	struct cfqx_group *g = rq_group(rq);

	rq_set_state(rq, CFQX_RQ_DISPATCHED);
	rq->fifo_time = now;	/* from here on: dispatch time */
	if (!g->in_flight++)
		cd->nr_flying++;
	g->dispatched++;
	cd->in_flight++;
}

static struct request *cfqx_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct cfqx_data *cd = hctx->queue->elevator->elevator_data;
	const struct cfqx_policy *p;
	struct request *rq = NULL;
	struct cfqx_group *g;
	unsigned long flags;
	u64 now, hold_until;

	spin_lock_irqsave(&cd->lock, flags);
	now = ktime_get_ns();
	if (!list_empty(&cd->dispatch)) {
		rq = list_first_entry(&cd->dispatch, struct request, queuelist);
		list_del_init(&rq->queuelist);
		if (rq->rq_flags & RQF_ELVPRIV)
			cfqx_mark_dispatched(cd, rq, now);
		goto out;
	}
	if (!cd->nr_queued)
		goto out;
	p = cfqx_policy(cd);
	if (cd->in_flight >= p->max_depth) {
		cd->st.depth_full++;
		goto out;
	}
	rq = cfqx_fifo_expired(cd, p, now);
	if (rq) {
		cd->st.fifo_expired++;
	} else {
		g = cfqx_pick_group(cd, p, now, &hold_until);
		if (!g) {
			if (!hold_until)
				cd->st.no_pick++;
			if (hold_until) {
				cd->st.idle_hold++;
				WRITE_ONCE(cd->hold_until, hold_until);
				/* Re-arming costs a timer reprogram: only when
				 * the hold ends earlier than the armed one. */
				if (!hrtimer_active(&cd->idle_timer) ||
				    ktime_to_ns(hrtimer_get_expires(&cd->idle_timer)) >
				    hold_until)
					hrtimer_start(&cd->idle_timer,
						      ns_to_ktime(hold_until),
						      HRTIMER_MODE_ABS);
			}
			goto out;
		}
		rq = cfqx_group_next(cd, g, p);
	}
	cfqx_del_rq(cd, rq);
	cfqx_mark_dispatched(cd, rq, now);
	cd->last_sector = blk_rq_pos(rq) + blk_rq_sectors(rq);
	cd->st.dispatched++;
out:
	spin_unlock_irqrestore(&cd->lock, flags);
	return rq;
}

/*
 * Lockless and advisory.  It answers "would dispatch_request return a
 * request", not "is anything queued": blk-mq answers a NULL dispatch after
 * a true has_work with a 3 ms delayed re-run that also postpones an
 * already queued immediate one, which would stall a depth- or
 * anticipation-held queue.  Completions and the idle timer re-run the
 * queue when the answer changes.
 */
static bool cfqx_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct cfqx_data *cd = hctx->queue->elevator->elevator_data;
	u64 hold;

	if (!list_empty_careful(&cd->dispatch))
		return true;
	if (!READ_ONCE(cd->nr_queued))
		return false;
	if (READ_ONCE(cd->in_flight) >= READ_ONCE(cd->live.max_depth))
		return false;
	hold = READ_ONCE(cd->hold_until);
	return !hold || ktime_get_ns() >= hold;
}

static enum hrtimer_restart cfqx_idle_timer_fn(struct hrtimer *t)
{
	struct cfqx_data *cd = container_of(t, struct cfqx_data, idle_timer);

	WRITE_ONCE(cd->hold_until, 0);
	blk_mq_run_hw_queues(cd->q, true);
	return HRTIMER_NORESTART;
}

/* ------------------------------------------------------------------ */
/* Request life cycle */

static void cfqx_prepare_request(struct request *rq)
{
	struct request_queue *q = rq->q;
	struct cfqx_data *cd = q->elevator->elevator_data;
	struct io_cq *icq = ioc_find_get_icq(q);
	struct cfqx_group *g;
	unsigned long flags;
	u32 group_by, gflags;
	u64 id;

	rq->elv.icq = icq;
	spin_lock_irqsave(&cd->lock, flags);
	group_by = cfqx_policy(cd)->group_by;
	cfqx_current_key(group_by, &gflags, &id);
	g = cfqx_group_get(cd, group_by, gflags, id);
	g->allocated++;
	if (icq) {
		struct cfqx_icq *cic = icq_to_cic(icq);

		/* Re-key lazily: the process context follows the policy. */
		if (cic->group != g) {
			cfqx_group_put(cd, cic->group);
			g->ref++;
			cic->group = g;
		}
	}
	spin_unlock_irqrestore(&cd->lock, flags);
	rq->elv.priv[0] = g;
	rq_set_state(rq, CFQX_RQ_ALLOCATED);
}

static void cfqx_finish_request(struct request *rq)
{
	struct request_queue *q = rq->q;
	struct cfqx_data *cd = q->elevator->elevator_data;
	struct cfqx_group *g = rq_group(rq);
	const struct cfqx_policy *p;
	unsigned long flags;
	bool kick = false;
	u64 now;

	if (!g)
		return;
	spin_lock_irqsave(&cd->lock, flags);
	if (rq_state(rq) == CFQX_RQ_DISPATCHED) {
		u64 took;

		p = cfqx_policy(cd);
		now = ktime_get_ns();
		took = now > rq->fifo_time ? now - rq->fifo_time : 0;
		cfqx_group_cost(cd, g, now);	/* decay first */
		g->service_used += took;
		cd->avg_service_ns = cd->avg_service_ns ?
			(cd->avg_service_ns * 7 + took) / 8 : took;
		if (!--g->in_flight)
			cd->nr_flying--;
		cd->in_flight--;
		if (rq_is_sync(rq) && !group_queued(g) && !g->in_flight) {
			g->last_complete_ns = now;
			if (p->slice_idle && (g->think_samples < 2 ||
			    g->think_ns < (u64)p->slice_idle * NSEC_PER_USEC)) {
				g->anticipate_until = now +
					(u64)p->slice_idle * NSEC_PER_USEC;
				cfqx_group_activate(cd, g);
			}
		}
		kick = cd->nr_queued > 0;
	} else if (rq_state(rq) == CFQX_RQ_QUEUED) {
		/* Freed while queued (should not happen): keep counts right. */
		cfqx_del_rq(cd, rq);
	} else if (rq_state(rq) == CFQX_RQ_LISTED) {
		list_del_init(&rq->queuelist);
	}
	g->allocated--;
	cfqx_group_put(cd, g);
	rq->elv.priv[0] = NULL;
	spin_unlock_irqrestore(&cd->lock, flags);

	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
	/* A slot freed: the elevator holds the queue, so re-run it. */
	if (kick)
		blk_mq_run_hw_queues(q, true);
}

static void cfqx_requeue_request(struct request *rq)
{
	struct cfqx_data *cd = rq->q->elevator->elevator_data;
	struct cfqx_group *g = rq_group(rq);
	unsigned long flags;

	if (!g)
		return;
	spin_lock_irqsave(&cd->lock, flags);
	if (rq_state(rq) == CFQX_RQ_DISPATCHED) {
		if (!--g->in_flight)
			cd->nr_flying--;
		cd->in_flight--;
		rq_set_state(rq, CFQX_RQ_ALLOCATED);
		cd->st.requeued++;
	}
	spin_unlock_irqrestore(&cd->lock, flags);
}

/*
 * Admission, 2.6.10's cfq_may_queue: a group past its share waits for tags
 * in a shallow corner of the tag space instead of taking them all.
 */
static void cfqx_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct cfqx_data *cd = data->q->elevator->elevator_data;
	const struct cfqx_policy *p;
	struct cfqx_group *g;
	unsigned long flags;
	u32 gflags;
	u64 id;

	spin_lock_irqsave(&cd->lock, flags);
	p = cfqx_policy(cd);
	cfqx_current_key(p->group_by, &gflags, &id);
	g = cfqx_group_find(cd, p->group_by, gflags, id);
	if (g && g->allocated >= cfqx_queue_limit(data->q->nr_requests,
						  cd->nr_busy, p->queued,
						  p->max_queued)) {
		data->shallow_depth = 1;
		cd->st.throttled++;
	}
	spin_unlock_irqrestore(&cd->lock, flags);
}

/* ------------------------------------------------------------------ */
/* Merging */

static int cfqx_request_merge(struct request_queue *q, struct request **rq,
			      struct bio *bio)
{
	struct cfqx_data *cd = q->elevator->elevator_data;
	sector_t sector = bio_end_sector(bio);
	struct cfqx_group *g;
	struct request *__rq;
	u32 gflags;
	u64 id;

	/* Front merges within the submitter's own group. */
	cfqx_current_key(cd->live.group_by, &gflags, &id);
	g = cfqx_group_find(cd, cd->live.group_by, gflags, id);
	if (!g)
		return ELEVATOR_NO_MERGE;
	__rq = elv_rb_find(&g->sort[op_is_sync(bio->bi_opf) ? CFQX_SYNC :
				   CFQX_ASYNC], sector);
	if (__rq && elv_bio_merge_ok(__rq, bio)) {
		*rq = __rq;
		if (blk_discard_mergable(__rq))
			return ELEVATOR_DISCARD_MERGE;
		return ELEVATOR_FRONT_MERGE;
	}
	return ELEVATOR_NO_MERGE;
}

static void cfqx_request_merged(struct request_queue *q, struct request *rq,
				enum elv_merge type)
{
	struct cfqx_group *g = rq_group(rq);
	int sync = rq_is_sync(rq) ? CFQX_SYNC : CFQX_ASYNC;

	/* A front merge moved the start sector: re-sort. */
	if (type == ELEVATOR_FRONT_MERGE && g &&
	    rq_state(rq) == CFQX_RQ_QUEUED) {
		elv_rb_del(&g->sort[sync], rq);
		elv_rb_add(&g->sort[sync], rq);
	}
}

static void cfqx_requests_merged(struct request_queue *q, struct request *rq,
				 struct request *next)
{
	struct cfqx_data *cd = q->elevator->elevator_data;

	/* The merged request keeps the earlier deadline and FIFO place. */
	if (rq_state(rq) == CFQX_RQ_QUEUED && rq_state(next) == CFQX_RQ_QUEUED &&
	    rq_is_sync(rq) == rq_is_sync(next) &&
	    next->fifo_time < rq->fifo_time) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	if (rq_group(next) && rq_state(next) == CFQX_RQ_QUEUED)
		cfqx_del_rq(cd, next);
	cd->st.merged_rq++;
}

static bool cfqx_bio_merge(struct request_queue *q, struct bio *bio,
			   unsigned int nr_segs)
{
	struct cfqx_data *cd = q->elevator->elevator_data;
	struct request *free = NULL;
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&cd->lock, flags);
	cfqx_policy(cd);
	ret = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	if (ret)
		cd->st.merged_bio++;
	spin_unlock_irqrestore(&cd->lock, flags);
	if (free)
		blk_mq_free_request(free);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Process contexts */

static void cfqx_init_icq(struct io_cq *icq)
{
	icq_to_cic(icq)->group = NULL;	/* bound at the first request */
}

static void cfqx_exit_icq(struct io_cq *icq)
{
	struct cfqx_icq *cic = icq_to_cic(icq);
	struct cfqx_data *cd = icq->q->elevator->elevator_data;
	unsigned long flags;

	spin_lock_irqsave(&cd->lock, flags);
	cfqx_group_put(cd, cic->group);
	cic->group = NULL;
	spin_unlock_irqrestore(&cd->lock, flags);
}

/* ------------------------------------------------------------------ */
/* Set-up */

static void cfqx_detach_map(struct cfqx_data *cd)
{
	struct bpf_map *old;
	unsigned long flags;

	spin_lock_irqsave(&cd->lock, flags);
	old = cd->map;
	cd->map = NULL;
	cd->live = cd->pol;
	spin_unlock_irqrestore(&cd->lock, flags);
	if (old)
		bpf_map_put(old);
}

static int cfqx_init_sched(struct request_queue *q, struct elevator_type *e)
{
	const struct cfqx_policy def = CFQX_POLICY_DEFAULT;
	struct elevator_queue *eq;
	struct cfqx_data *cd;

	eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	cd = kzalloc_node(sizeof(*cd), GFP_KERNEL, q->node);
	if (!cd) {
		kobject_put(&eq->kobj);
		return -ENOMEM;
	}
	spin_lock_init(&cd->lock);
	cd->q = q;
	cd->pol = def;
	cd->live = def;
	hash_init(cd->groups);
	INIT_LIST_HEAD(&cd->active);
	INIT_LIST_HEAD(&cd->dispatch);
	cfqx_group_init(&cd->fallback, CFQX_BY_NR, 0, 0);
	cd->fallback.fallback = true;
	hrtimer_init(&cd->idle_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	cd->idle_timer.function = cfqx_idle_timer_fn;
	eq->elevator_data = cd;

	/* One elevator-wide order across hardware queues. */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	q->elevator = eq;
	return 0;
}

static void cfqx_exit_sched(struct elevator_queue *e)
{
	struct cfqx_data *cd = e->elevator_data;
	struct cfqx_group *g;
	struct hlist_node *tmp;
	int bkt;

	hrtimer_cancel(&cd->idle_timer);
	cfqx_detach_map(cd);
	WARN_ON_ONCE(cd->nr_queued || !list_empty(&cd->dispatch));
	/* icqs were cleared before; what is left is unreferenced history. */
	hash_for_each_safe(cd->groups, bkt, tmp, g, hash_node)
		cfqx_group_free(cd, g);
	kfree(cd);
}

/* ------------------------------------------------------------------ */
/* sysfs: iosched/ */

static ssize_t cfqx_group_by_show(struct elevator_queue *e, char *page)
{
	struct cfqx_data *cd = e->elevator_data;
	unsigned long flags;
	ssize_t len = 0;
	u32 cur;
	int i;

	spin_lock_irqsave(&cd->lock, flags);
	cur = cfqx_policy(cd)->group_by;
	spin_unlock_irqrestore(&cd->lock, flags);
	for (i = 0; i < CFQX_BY_NR; i++)
		len += sysfs_emit_at(page, len, i == cur ? "%s[%s]" : "%s%s",
				     i ? " " : "", cfqx_group_by_names[i]);
	len += sysfs_emit_at(page, len, "\n");
	return len;
}

/*
 * Apply a changed policy: validate it whole, keep it locally and, with a
 * map attached, write it to the map too (BPF side and elevator together).
 */
static ssize_t cfqx_policy_store(struct cfqx_data *cd,
				 void (*set)(struct cfqx_policy *, u32),
				 u32 val, size_t count)
{
	struct cfqx_policy np;
	struct bpf_map *map;
	unsigned long flags;
	u32 key = 0;
	int err = 0;

	spin_lock_irqsave(&cd->lock, flags);
	np = *cfqx_policy(cd);
	set(&np, val);
	if (cfqx_policy_check(&np)) {
		spin_unlock_irqrestore(&cd->lock, flags);
		return -EINVAL;
	}
	cd->pol = np;
	cd->live = np;
	map = cd->map;
	if (map)
		bpf_map_inc(map);
	spin_unlock_irqrestore(&cd->lock, flags);

	if (map) {
		rcu_read_lock();
		err = map->ops->map_update_elem(map, &key, &np, BPF_ANY);
		rcu_read_unlock();
		bpf_map_put(map);
	}
	return err ? err : count;
}

#define CFQX_TUNABLE(name)						\
static void cfqx_set_##name(struct cfqx_policy *p, u32 v)		\
{									\
	p->name = v;							\
}									\
static ssize_t cfqx_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	struct cfqx_data *cd = e->elevator_data;			\
	unsigned long flags;						\
	u32 v;								\
									\
	spin_lock_irqsave(&cd->lock, flags);				\
	v = cfqx_policy(cd)->name;					\
	spin_unlock_irqrestore(&cd->lock, flags);			\
	return sysfs_emit(page, "%u\n", v);				\
}									\
static ssize_t cfqx_##name##_store(struct elevator_queue *e,		\
				   const char *page, size_t count)	\
{									\
	u32 v;								\
									\
	if (kstrtou32(page, 10, &v))					\
		return -EINVAL;						\
	return cfqx_policy_store(e->elevator_data, cfqx_set_##name, v,	\
				 count);				\
}

CFQX_TUNABLE(quantum)
CFQX_TUNABLE(queued)
CFQX_TUNABLE(max_queued)
CFQX_TUNABLE(fifo_expire_sync)
CFQX_TUNABLE(fifo_expire_async)
CFQX_TUNABLE(fifo_batch_expire)
CFQX_TUNABLE(back_seek_max)
CFQX_TUNABLE(back_seek_penalty)
CFQX_TUNABLE(max_depth)
CFQX_TUNABLE(slice_idle)

static void cfqx_set_group_by(struct cfqx_policy *p, u32 v)
{
	p->group_by = v;
}

static ssize_t cfqx_group_by_store(struct elevator_queue *e, const char *page,
				   size_t count)
{
	size_t len = count;
	int v;

	if (len && page[len - 1] == '\n')
		len--;
	v = cfqx_group_by_parse(page, len);
	if (v < 0)
		return -EINVAL;
	return cfqx_policy_store(e->elevator_data, cfqx_set_group_by, v, count);
}

static ssize_t cfqx_policy_map_show(struct elevator_queue *e, char *page)
{
	struct cfqx_data *cd = e->elevator_data;
	unsigned long flags;
	u32 id = 0;
	bool on;

	spin_lock_irqsave(&cd->lock, flags);
	on = cd->map;
	if (on)
		id = cd->map->id;
	spin_unlock_irqrestore(&cd->lock, flags);
	if (!on)
		return sysfs_emit(page, "none\n");
	return sysfs_emit(page, "id %u\n", id);
}

/*
 * Write a file descriptor (of the writing process) of the cfqx policy map
 * to attach it; -1 or 0 detaches.  The map must match the ABI exactly.
 */
static ssize_t cfqx_policy_map_store(struct elevator_queue *e,
				     const char *page, size_t count)
{
	struct cfqx_data *cd = e->elevator_data;
	struct bpf_map *map, *old;
	unsigned long flags;
	int fd;

	if (kstrtoint(page, 10, &fd))
		return -EINVAL;
	if (fd <= 0) {
		if (fd < -1)
			return -EINVAL;
		cfqx_detach_map(cd);
		return count;
	}
	map = bpf_map_get(fd);
	if (IS_ERR(map))
		return -EINVAL;
	if (map->map_type != BPF_MAP_TYPE_ARRAY || map->key_size != 4 ||
	    map->value_size != sizeof(struct cfqx_policy) ||
	    map->max_entries < 1) {
		bpf_map_put(map);
		return -EINVAL;
	}
	spin_lock_irqsave(&cd->lock, flags);
	old = cd->map;
	cd->map = map;
	cfqx_policy(cd);
	spin_unlock_irqrestore(&cd->lock, flags);
	if (old)
		bpf_map_put(old);
	return count;
}

static ssize_t cfqx_stats_show(struct elevator_queue *e, char *page)
{
	struct cfqx_data *cd = e->elevator_data;
	struct cfqx_stats s;
	unsigned long flags;
	unsigned int groups, busy, queued, in_flight;

	spin_lock_irqsave(&cd->lock, flags);
	s = cd->st;
	groups = cd->nr_groups;
	busy = cd->nr_busy;
	queued = cd->nr_queued;
	in_flight = cd->in_flight;
	spin_unlock_irqrestore(&cd->lock, flags);
	return sysfs_emit(page,
		"groups %u\nbusy %u\nqueued %u\nin_flight %u\n"
		"inserted %llu\ndispatched %llu\nmerged_bio %llu\n"
		"merged_rq %llu\nfifo_expired %llu\ndepth_full %llu\n"
		"idle_hold %llu\nidle_hit %llu\nidle_expired %llu\nno_pick %llu\n"
		"throttled %llu\nrequeued %llu\nalloc_fail %llu\n"
		"bad_policy %llu\ngroups_created %llu\ngroups_freed %llu\n",
		groups, busy, queued, in_flight, s.inserted, s.dispatched,
		s.merged_bio, s.merged_rq, s.fifo_expired, s.depth_full,
		s.idle_hold, s.idle_hit, s.idle_expired, s.no_pick, s.throttled,
		s.requeued, s.alloc_fail, s.bad_policy, s.groups_created,
		s.groups_freed);
}

/* One line per group: key, queue state, service and think time. */
static ssize_t cfqx_groups_show(struct elevator_queue *e, char *page)
{
	struct cfqx_data *cd = e->elevator_data;
	struct cfqx_group *g;
	unsigned long flags;
	ssize_t len;
	int bkt;

	len = sysfs_emit(page,
			 "by id flags ref queued in_flight dispatched service_us think_us\n");
	spin_lock_irqsave(&cd->lock, flags);
	hash_for_each(cd->groups, bkt, g, hash_node) {
		if (len > PAGE_SIZE - 128)
			break;
		len += sysfs_emit_at(page, len,
				     "%s %llu %u %d %u %u %llu %llu %llu\n",
				     cfqx_group_by_names[g->group_by], g->id,
				     g->flags, g->ref, group_queued(g),
				     g->in_flight, g->dispatched,
				     g->service_used / 1000, g->think_ns / 1000);
	}
	spin_unlock_irqrestore(&cd->lock, flags);
	return len;
}

#define CFQX_ATTR(name) \
	__ATTR(name, 0644, cfqx_##name##_show, cfqx_##name##_store)

static struct elv_fs_entry cfqx_attrs[] = {
	CFQX_ATTR(group_by),
	CFQX_ATTR(quantum),
	CFQX_ATTR(queued),
	CFQX_ATTR(max_queued),
	CFQX_ATTR(fifo_expire_sync),
	CFQX_ATTR(fifo_expire_async),
	CFQX_ATTR(fifo_batch_expire),
	CFQX_ATTR(back_seek_max),
	CFQX_ATTR(back_seek_penalty),
	CFQX_ATTR(max_depth),
	CFQX_ATTR(slice_idle),
	CFQX_ATTR(policy_map),
	__ATTR(stats, 0444, cfqx_stats_show, NULL),
	__ATTR(groups, 0444, cfqx_groups_show, NULL),
	__ATTR_NULL
};

static struct elevator_type cfqx_iosched = {
	.ops = {
		.init_sched		= cfqx_init_sched,
		.exit_sched		= cfqx_exit_sched,
		.limit_depth		= cfqx_limit_depth,
		.bio_merge		= cfqx_bio_merge,
		.request_merge		= cfqx_request_merge,
		.request_merged		= cfqx_request_merged,
		.requests_merged	= cfqx_requests_merged,
		.prepare_request	= cfqx_prepare_request,
		.finish_request		= cfqx_finish_request,
		.requeue_request	= cfqx_requeue_request,
		.insert_requests	= cfqx_insert_requests,
		.dispatch_request	= cfqx_dispatch_request,
		.has_work		= cfqx_has_work,
		.next_request		= elv_rb_latter_request,
		.former_request		= elv_rb_former_request,
		.init_icq		= cfqx_init_icq,
		.exit_icq		= cfqx_exit_icq,
	},
	.icq_size = sizeof(struct cfqx_icq),
	.icq_align = __alignof__(struct cfqx_icq),
	.elevator_attrs = cfqx_attrs,
	.elevator_name = "cfqx",
	.elevator_owner = THIS_MODULE,
};

static int __init cfqx_init(void)
{
	BUILD_BUG_ON(sizeof(struct cfqx_policy) != CFQX_POLICY_SIZE);
	/* cfq.h's name tables must cover their enums (also marks them used). */
	BUILD_BUG_ON(ARRAY_SIZE(cfqx_event_names) != CFQX_EV_NR);
	BUILD_BUG_ON(ARRAY_SIZE(cfqx_group_by_names) != CFQX_BY_NR);
	return elv_register(&cfqx_iosched);
}

static void __exit cfqx_exit(void)
{
	elv_unregister(&cfqx_iosched);
}

module_init(cfqx_init);
module_exit(cfqx_exit);

MODULE_AUTHOR("cfqx authors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("cfqx: CFQ v2 fair queueing for blk-mq");
