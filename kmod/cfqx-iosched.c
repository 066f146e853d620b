// SPDX-License-Identifier: GPL-2.0
/*
 * cfqx: the CFQ v2 (Linux 2.6.10) fairness rules as a blk-mq elevator.
 *
 * Why this exists: none, mq-deadline and kyber order requests for the
 * device, not for the processes behind them, and bfq's budgets still let a
 * group that keeps many requests outstanding take most of a device shared
 * with one-at-a-time readers.  CFQ v2 divided a device between the
 * contending processes (or users, process groups, groups; cfqx adds
 * cgroups); cfqx brings that back under the live policy the cfqx BPF
 * accounting uses (struct cfqx_policy), so what BPF reports and what the
 * elevator enforces cannot drift.
 *
 * What this file does: it is the glue around the scheduling core
 * (sched/cfqx-sched.c, where every decision is made and explained).  It
 * maps the submitting task to its group under the live policy (kernel
 * threads such as the flusher are their own group, flagged
 * CFQX_GF_KTHREAD, never charged to a user), keeps groups alive through
 * the process's io_context (a group's service history outlives its
 * requests, 2.6.10's fix for fork-heavy loads), gives each request a core
 * record, and turns blk-mq's callbacks into core calls: insert, dispatch,
 * completion, requeue, merges and admission (limit_depth).  An hrtimer
 * re-runs the queue when an anticipation window ends (contention may
 * drop) or the core's pace lets the next request go (armed from a refused
 * dispatch, an insert or a completion); a completion that releases work
 * the core held (the contended depth has room again) runs the queue.
 * Both runs go to kblockd on the CPU that asks (cfqx_run_work_fn()).  An
 * insert from a task that may sleep runs the queue itself, as blk-mq
 * does without an elevator (cfqx_may_run_inline()).
 * Completions while it still holds (for time: the pace, an anticipation
 * window; or for the order) do not: the run, a kblockd round trip, would
 * find nothing to dispatch.  An insert, a completion or the timer that
 * finds a hardware queue stopped (the driver turned work away: null_blk's
 * throttle, a full ring) tells the core, which paces dispatch while the
 * device does so.
 *
 * Merges stay within a group: allow_merge refuses a bio of another group,
 * back and front merge candidates come from the group's own queue (the
 * queue-wide request hash is not used), and a request merge of two groups
 * (which blk-mq should never offer) is counted and charged to the
 * survivor.
 *
 * Locking: see cfqx-iosched.h.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/bpf.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/iocontext.h>
#include <linux/lockdep.h>
#include <linux/pid_namespace.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>
#include <linux/uidgid.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "cfqx-iosched.h"
#include "cfqx-compat.h"

static struct kmem_cache *cfqx_rq_cache;

/* Per process (io_context) and queue: keeps its group alive. */
struct cfqx_icq {
	struct io_cq icq;
	struct cfqx_group *group;
};

static inline struct cfqx_icq *icq_to_cic(struct io_cq *icq)
{
	return container_of(icq, struct cfqx_icq, icq);
}

/* The core record of a request (NULL: the request is not scheduled). */
static inline struct cfqx_sched_rq *rq_srq(struct request *rq)
{
	return rq->elv.priv[0];
}

static inline struct cfqx_group *srq_group(struct cfqx_sched_rq *srq)
{
	return container_of(srq->group, struct cfqx_group, sg);
}

/* ------------------------------------------------------------------ */
/* Groups */

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

static u64 cfqx_key_hash(u32 group_by, u32 flags, u64 id)
{
	return id ^ ((u64)group_by << 56) ^ ((u64)flags << 48);
}

/* Under cd->lock, or under RCU for a look that takes no reference. */
static struct cfqx_group *cfqx_group_find(struct cfqx_data *cd, u32 group_by,
					  u32 flags, u64 id)
{
	struct cfqx_group *g;

	hash_for_each_possible_rcu(cd->groups, g, hash_node,
				   cfqx_key_hash(group_by, flags, id),
				   lockdep_is_held(&cd->lock))
		if (g->id == id && g->group_by == group_by && g->flags == flags)
			return g;
	return NULL;
}

/* The current task's group under the live policy, or NULL. */
static struct cfqx_group *cfqx_current_group(struct cfqx_data *cd)
{
	u32 group_by = cfqx_policy(cd)->group_by, gflags;
	u64 id;

	cfqx_current_key(group_by, &gflags, &id);
	return cfqx_group_find(cd, group_by, gflags, id);
}

/* Find or create, with a reference; NULL when out of memory (counted). */
static struct cfqx_group *cfqx_group_get(struct cfqx_data *cd, u32 group_by,
					 u32 flags, u64 id)
{
	struct cfqx_group *g = cfqx_group_find(cd, group_by, flags, id);

	if (!g) {
		g = kzalloc_node(sizeof(*g), GFP_NOWAIT | __GFP_NOWARN,
				 cd->q->node);
		if (!g) {
			cd->st.alloc_fail++;
			return NULL;
		}
		cfqx_sched_group_init(&g->sg);
		g->group_by = group_by;
		g->flags = flags;
		g->id = id;
		hash_add_rcu(cd->groups, &g->hash_node,
			     cfqx_key_hash(group_by, flags, id));
		cd->nr_groups++;
		cd->st.groups_created++;
	}
	g->ref++;
	return g;
}

static void cfqx_group_free(struct cfqx_data *cd, struct cfqx_group *g)
{
	lockdep_assert_held(&cd->lock);
	cfqx_sched_group_forget(&cd->sched, &g->sg);
	hash_del_rcu(&g->hash_node);
	cd->nr_groups--;
	cd->st.groups_freed++;
	kfree_rcu(g, rcu);	/* limit_depth may still be looking at it */
}

static void cfqx_group_put(struct cfqx_data *cd, struct cfqx_group *g)
{
	lockdep_assert_held(&cd->lock);
	if (!g || WARN_ON_ONCE(g->ref <= 0))
		return;
	if (--g->ref == 0)
		cfqx_group_free(cd, g);
}

/*
 * @rq leaves the elevator's queue (dispatched, merged away or freed):
 * blk-mq may have put it on the queue-wide merge hash (a back merge
 * repositions it there) or made it the last merge candidate.
 */
static void cfqx_rq_leaves(struct request_queue *q, struct request *rq)
{
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
}

/* ------------------------------------------------------------------ */
/* Request life cycle */

static void cfqx_prepare_request(struct request *rq)
{
	struct request_queue *q = rq->q;
	struct cfqx_data *cd = q->elevator->elevator_data;
	struct io_cq *icq = ioc_find_get_icq(q);
	struct cfqx_sched_rq *srq;
	struct cfqx_group *g = NULL;
	unsigned long flags;
	u32 group_by, gflags;
	u64 id;

	rq->elv.icq = icq;
	rq->elv.priv[0] = NULL;
	srq = kmem_cache_alloc_node(cfqx_rq_cache, GFP_NOWAIT | __GFP_NOWARN,
				    q->node);
	spin_lock_irqsave(&cd->lock, flags);
	if (srq) {
		group_by = cfqx_policy(cd)->group_by;
		cfqx_current_key(group_by, &gflags, &id);
		g = cfqx_group_get(cd, group_by, gflags, id);
	} else {
		cd->st.alloc_fail++;
	}
	if (g && icq) {
		struct cfqx_icq *cic = icq_to_cic(icq);

		/* Re-key lazily: the process context follows the policy. */
		if (cic->group != g) {
			if (cic->group)
				cfqx_group_put(cd, cic->group);
			g->ref++;
			cic->group = g;
		}
	}
	if (g) {
		cfqx_sched_rq_init(&cd->sched, srq, &g->sg, blk_rq_pos(rq), 0,
				   op_is_sync(rq->cmd_flags),
				   op_is_write(rq->cmd_flags), rq);
		rq->elv.priv[0] = srq;
	}
	spin_unlock_irqrestore(&cd->lock, flags);
	if (srq && !g)
		kmem_cache_free(cfqx_rq_cache, srq);
}

static void cfqx_arm_idle_timer(struct cfqx_data *cd, u64 until);

/*
 * Work the core holds (queued, or dispatched and not completed) never
 * waits longer than this for a queue run.  A request the driver refused
 * (BLK_STS_DEV_RESOURCE) waits on blk-mq's dispatch list for the driver
 * to run the queue again, and null_blk's throttle can lose that run: its
 * restart may run the queue before the refused request is back on the
 * list (seen in CI on 6.1 and 6.12: SCHED_RESTART, not stopped, one
 * request on the dispatch list, none in the device, for good).
 */
#define CFQX_RERUN_NS	(10 * NSEC_PER_MSEC)

/* Queued work the core holds for time alone (the pace, an anticipation
 * window) with nothing else to re-run the queue, or any work it holds
 * for CFQX_RERUN_NS: arm the timer. */
static void cfqx_arm_wake(struct cfqx_data *cd)
{
	u64 wake_at, rerun;

	lockdep_assert_held(&cd->lock);
	wake_at = cfqx_sched_wake_at(&cd->sched);
	if (cd->sched.nr_queued || cd->sched.in_flight) {
		rerun = cd->sched.last_now + CFQX_RERUN_NS;
		if (!wake_at || wake_at > rerun)
			wake_at = rerun;
	}
	if (wake_at)
		cfqx_arm_idle_timer(cd, wake_at);
}

/*
 * A driver that turns work away (a throttle's budget is spent, its ring is
 * full) stops its hardware queue until it can take more: the core paces
 * dispatch while the device does so (cfqx_sched_stopped()).
 */
static void cfqx_note_stopped(struct cfqx_data *cd, struct blk_mq_hw_ctx *hctx)
{
	lockdep_assert_held(&cd->lock);
	if (!blk_mq_hctx_stopped(hctx))
		return;
	cfqx_sched_stopped(&cd->sched);
	cd->st.stopped_seen++;
}

static void cfqx_finish_request(struct request *rq)
{
	struct cfqx_data *cd = rq->q->elevator->elevator_data;
	struct cfqx_sched_rq *srq = rq_srq(rq);
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;
	unsigned long flags;
	bool kick = false;

	if (!srq)
		return;
	spin_lock_irqsave(&cd->lock, flags);
	if (hctx)
		cfqx_note_stopped(cd, hctx);
	if (srq->state == CFQX_SRQ_DISPATCHED)
		kick = cfqx_sched_complete(&cd->sched, srq, cfqx_policy(cd),
					   ktime_get_ns());
	else
		cfqx_sched_remove(&cd->sched, srq);	/* freed unissued */
	cfqx_rq_leaves(rq->q, rq);
	cfqx_group_put(cd, srq_group(srq));
	cfqx_sched_release(&cd->sched, srq);
	cfqx_arm_wake(cd);
	/* This completion released work the core held: run the queue (from
	 * kblockd on this CPU, after blk-mq frees this request's tags). */
	if (kick)
		cd->st.kicks++;
	spin_unlock_irqrestore(&cd->lock, flags);
	rq->elv.priv[0] = NULL;
	kmem_cache_free(cfqx_rq_cache, srq);
	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
	if (kick)
		kblockd_schedule_work(&cd->run_work);
}

static void cfqx_requeue_request(struct request *rq)
{
	struct cfqx_data *cd = rq->q->elevator->elevator_data;
	struct cfqx_sched_rq *srq = rq_srq(rq);
	unsigned long flags;

	if (!srq)
		return;
	spin_lock_irqsave(&cd->lock, flags);
	cfqx_sched_requeue(&cd->sched, srq);
	spin_unlock_irqrestore(&cd->lock, flags);
}

/*
 * May the insert hook run the queue itself?  blk-mq follows an elevator's
 * insert of a bio submitted outside a plug with an asynchronous queue run
 * (kblockd, on the hardware queue's CPUs in turn; 6.1 does, 6.12 plugs
 * every submission and runs the queue at the plug's flush), where
 * without an elevator it issues the request from the submitter (6.1
 * submits a psync read, and a libaio io_submit() of up to two requests,
 * outside a plug).  A request the core would dispatch at once then
 * waits for a kworker, and in a VM on a busy host for a vCPU the host
 * has descheduled.  From a task that may sleep and is not on its way to
 * sleep (a plug flushed from schedule()), the hook runs the queue here
 * instead, as blk-mq itself does after a plug flush from a running task;
 * the asynchronous run that follows finds nothing to do.
 */
static bool cfqx_may_run_inline(void)
{
	return in_task() && preemptible() && task_is_running(current);
}

static void cfqx_insert_requests(struct blk_mq_hw_ctx *hctx,
				 struct list_head *list, cfqx_insert_t insert)
{
	bool at_head = cfqx_insert_at_head(insert);
	struct cfqx_data *cd = hctx->queue->elevator->elevator_data;
	const struct cfqx_policy *p;
	unsigned long flags;
	u64 now = ktime_get_ns();
	bool run = cfqx_may_run_inline();	/* before the lock disables irqs */

	spin_lock_irqsave(&cd->lock, flags);
	p = cfqx_policy(cd);
	cfqx_note_stopped(cd, hctx);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);
		struct cfqx_sched_rq *srq = rq_srq(rq);

		list_del_init(&rq->queuelist);
		if (!srq) {
			/* Flushes, passthrough, no memory: as they come. */
			if (at_head)
				list_add(&rq->queuelist, &cd->bypass);
			else
				list_add_tail(&rq->queuelist, &cd->bypass);
			cd->st.unscheduled++;
			continue;
		}
		cfqx_sched_resize(&cd->sched, srq, blk_rq_pos(rq),
				  blk_rq_sectors(rq));
		if (at_head)
			cfqx_sched_insert_head(&cd->sched, srq);
		else
			cfqx_sched_insert(&cd->sched, srq, p, now);
	}
	cfqx_arm_wake(cd);
	run = run && cfqx_sched_has_work(&cd->sched);
	if (run)
		cd->st.inline_runs++;
	spin_unlock_irqrestore(&cd->lock, flags);
	if (run)
		blk_mq_run_hw_queue(hctx, false);
}

/* ------------------------------------------------------------------ */
/* Dispatch */

/* Arm the idle timer for a hold ending at @until, unless armed earlier. */
static void cfqx_arm_idle_timer(struct cfqx_data *cd, u64 until)
{
	lockdep_assert_held(&cd->lock);
	if (cd->armed_until && cd->armed_until <= until)
		return;
	cd->armed_until = until;
	cd->st.timer_armed++;
	hrtimer_start(&cd->idle_timer, ns_to_ktime(until), HRTIMER_MODE_ABS);
}

static enum hrtimer_restart cfqx_idle_timer_fn(struct hrtimer *t)
{
	struct cfqx_data *cd = container_of(t, struct cfqx_data, idle_timer);
	struct blk_mq_hw_ctx *hctx;
	unsigned long flags, i;
	u64 due;

	/* An anticipation window ended or the pace lets a request go: the
	 * core decides again, then the queue runs.  Cleared under the lock:
	 * a later refusal, insert or completion re-arms. */
	spin_lock_irqsave(&cd->lock, flags);
	due = cd->armed_until;
	cd->armed_until = 0;
	cd->st.timer_fired++;
	queue_for_each_hw_ctx(cd->q, hctx, i)
		cfqx_note_stopped(cd, hctx);
	cfqx_sched_tick(&cd->sched, cfqx_policy(cd), ktime_get_ns(), due);
	/* Still held for time (the pace moved on): nothing else will run
	 * the queue, so wait again (hrtimer_start from the callback
	 * re-queues the timer; NORESTART then leaves it queued). */
	cfqx_arm_wake(cd);
	spin_unlock_irqrestore(&cd->lock, flags);
	kblockd_schedule_work(&cd->run_work);
	return HRTIMER_NORESTART;
}

/*
 * The queue runs that the core's releases ask for (the timer, a
 * completion that released held work) run on the CPU that asked, in
 * kblockd.  blk-mq's own asynchronous run picks the hardware queue's CPUs
 * in turn, and on a busy host (a VM whose vCPUs the host deschedules) a
 * run sent to another CPU waits until that CPU runs again, with the
 * device idle and the work it was to release held.
 */
static void cfqx_run_work_fn(struct work_struct *work)
{
	struct cfqx_data *cd = container_of(work, struct cfqx_data, run_work);

	blk_mq_run_hw_queues(cd->q, false);
}

static struct request *cfqx_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct cfqx_data *cd = hctx->queue->elevator->elevator_data;
	struct cfqx_sched_rq *srq;
	struct request *rq = NULL;
	unsigned long flags;
	u64 wake_at;

	spin_lock_irqsave(&cd->lock, flags);
	if (!list_empty(&cd->bypass)) {
		rq = list_first_entry(&cd->bypass, struct request, queuelist);
		list_del_init(&rq->queuelist);
		goto out;
	}
	srq = cfqx_sched_dispatch(&cd->sched, cfqx_policy(cd), ktime_get_ns(),
				  &wake_at);
	if (srq) {
		rq = srq->owner;
		cfqx_rq_leaves(hctx->queue, rq);
	} else if (cd->sched.nr_queued && wake_at) {
		/* Refused until a time: the timer re-runs it (a completion
		 * that releases it does too: finish_request). */
		cfqx_arm_idle_timer(cd, wake_at);
	}
out:
	spin_unlock_irqrestore(&cd->lock, flags);
	return rq;
}

/*
 * Lockless and advisory: "would dispatch_request return a request now".
 * blk-mq answers a NULL dispatch after a true has_work with a delayed
 * re-run, so a held queue must say no; a completion that releases held
 * work, new requests and the idle timer re-run it when the answer
 * changes.
 */
static bool cfqx_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct cfqx_data *cd = hctx->queue->elevator->elevator_data;

	return !list_empty_careful(&cd->bypass) ||
		cfqx_sched_has_work(&cd->sched);
}

/*
 * Admission, 2.6.10's may_queue: a group past its share of requests (per
 * direction) waits for tags in a shallow corner of the tag space instead
 * of taking them all.  Called for every allocation, so it takes no lock
 * unless it throttles: the group is found under RCU (groups are freed
 * after a grace period) and its counts, the busy groups and the policy in
 * force are read as they are.  A count a moment old lets one request more
 * or less through, as the next allocation corrects.
 */
static void cfqx_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct cfqx_data *cd = data->q->elevator->elevator_data;
	const struct cfqx_policy *p = &cd->live;
	u32 group_by = data_race(READ_ONCE(p->group_by)), gflags;
	struct cfqx_group *g;
	unsigned long flags;
	bool may = true;
	u64 id;

	rcu_read_lock();
	cfqx_current_key(group_by, &gflags, &id);
	g = cfqx_group_find(cd, group_by, gflags, id);
	if (g)
		may = data_race(cfqx_sched_may_queue(&cd->sched, &g->sg,
						     op_is_write(opf), p,
						     data->q->nr_requests));
	rcu_read_unlock();
	if (may)
		return;
	data->shallow_depth = 1;
	spin_lock_irqsave(&cd->lock, flags);
	cd->st.throttled++;
	spin_unlock_irqrestore(&cd->lock, flags);
}

/* Shallow allocations must still be woken: tell sbitmap how shallow. */
static void cfqx_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct cfqx_data *cd = hctx->queue->elevator->elevator_data;
	unsigned long flags;

	sbitmap_queue_min_shallow_depth(&hctx->sched_tags->bitmap_tags, 1);
	spin_lock_irqsave(&cd->lock, flags);
	cfqx_sched_set_tags(&cd->sched, hctx->queue->tag_set->queue_depth);
	spin_unlock_irqrestore(&cd->lock, flags);
}

static int cfqx_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	cfqx_depth_updated(hctx);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Merging: only within the submitter's own group */

/* Called from bio_merge (blk_mq_sched_try_merge) with cd->lock held. */
static bool cfqx_allow_merge(struct request_queue *q, struct request *rq,
			     struct bio *bio)
{
	struct cfqx_data *cd = q->elevator->elevator_data;
	struct cfqx_sched_rq *srq = rq_srq(rq);

	lockdep_assert_held(&cd->lock);
	if (srq && cfqx_current_group(cd) == srq_group(srq))
		return true;
	cd->st.merge_refused++;
	return false;
}

/* Called from bio_merge with cd->lock held. */
static int cfqx_request_merge(struct request_queue *q, struct request **rq,
			      struct bio *bio)
{
	struct cfqx_data *cd = q->elevator->elevator_data;
	bool sync = op_is_sync(bio->bi_opf);
	struct cfqx_sched_rq *srq;
	struct cfqx_group *g;

	lockdep_assert_held(&cd->lock);
	g = cfqx_current_group(cd);
	if (!g)
		return ELEVATOR_NO_MERGE;
	srq = cfqx_sched_find(&g->sg, sync, bio->bi_iter.bi_sector, true);
	if (srq && elv_bio_merge_ok(srq->owner, bio)) {
		*rq = srq->owner;
		return ELEVATOR_BACK_MERGE;
	}
	srq = cfqx_sched_find(&g->sg, sync, bio_end_sector(bio), false);
	if (srq && elv_bio_merge_ok(srq->owner, bio)) {
		*rq = srq->owner;
		if (blk_discard_mergable(*rq))
			return ELEVATOR_DISCARD_MERGE;
		return ELEVATOR_FRONT_MERGE;
	}
	return ELEVATOR_NO_MERGE;
}

/* A bio joined @rq: its extent changed, re-sort it.  cd->lock held. */
static void cfqx_request_merged(struct request_queue *q, struct request *rq,
				enum elv_merge type)
{
	struct cfqx_data *cd = q->elevator->elevator_data;
	struct cfqx_sched_rq *srq = rq_srq(rq);

	lockdep_assert_held(&cd->lock);
	if (srq)
		cfqx_sched_resize(&cd->sched, srq, blk_rq_pos(rq),
				  blk_rq_sectors(rq));
}

/* @next was merged into @rq and will be freed.  cd->lock held. */
static void cfqx_requests_merged(struct request_queue *q, struct request *rq,
				 struct request *next)
{
	struct cfqx_data *cd = q->elevator->elevator_data;
	struct cfqx_sched_rq *srq = rq_srq(rq), *snext = rq_srq(next);

	lockdep_assert_held(&cd->lock);
	if (srq)
		cfqx_sched_resize(&cd->sched, srq, blk_rq_pos(rq),
				  blk_rq_sectors(rq));
	if (srq && snext)
		cfqx_sched_merge(&cd->sched, srq, snext);
	else if (snext)
		cfqx_sched_remove(&cd->sched, snext);
	cfqx_rq_leaves(q, next);
}

/* Neighbours in the group's sector order (attempt_back/front_merge). */
static struct request *cfqx_next_request(struct request_queue *q,
					 struct request *rq)
{
	struct cfqx_sched_rq *srq = rq_srq(rq);

	srq = srq ? cfqx_sched_next(srq) : NULL;
	return srq ? srq->owner : NULL;
}

static struct request *cfqx_former_request(struct request_queue *q,
					   struct request *rq)
{
	struct cfqx_sched_rq *srq = rq_srq(rq);

	srq = srq ? cfqx_sched_prev(srq) : NULL;
	return srq ? srq->owner : NULL;
}

static bool cfqx_bio_merge(struct request_queue *q, struct bio *bio,
			   unsigned int nr_segs)
{
	struct cfqx_data *cd = q->elevator->elevator_data;
	struct request *free = NULL;
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&cd->lock, flags);
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
	if (cic->group)
		cfqx_group_put(cd, cic->group);
	cic->group = NULL;
	spin_unlock_irqrestore(&cd->lock, flags);
}

/* ------------------------------------------------------------------ */
/* Set-up */

static int cfqx_init_sched(struct request_queue *q, struct elevator_type *e)
{
	const struct cfqx_policy def = CFQX_POLICY_DEFAULT;
	struct cfqx_sched_device dev = {
		.tags = q->tag_set->queue_depth,
		.rotational = !blk_queue_nonrot(q),
	};
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
	INIT_LIST_HEAD(&cd->bypass);
	cfqx_sched_init(&cd->sched, &dev);
	hrtimer_init(&cd->idle_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	cd->idle_timer.function = cfqx_idle_timer_fn;
	INIT_WORK(&cd->run_work, cfqx_run_work_fn);
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
	unsigned long flags;
	int bkt;

	hrtimer_cancel(&cd->idle_timer);
	cancel_work_sync(&cd->run_work);
	cfqx_detach_map(cd);
	spin_lock_irqsave(&cd->lock, flags);
	WARN_ON_ONCE(cd->sched.nr_queued || !list_empty(&cd->bypass));
	/* icqs were cleared before; what is left is unreferenced history. */
	hash_for_each_safe(cd->groups, bkt, tmp, g, hash_node)
		cfqx_group_free(cd, g);
	spin_unlock_irqrestore(&cd->lock, flags);
	kfree(cd);
}

static struct elevator_type cfqx_iosched = {
	.ops = {
		.init_sched		= cfqx_init_sched,
		.exit_sched		= cfqx_exit_sched,
		.init_hctx		= cfqx_init_hctx,
		.depth_updated		= cfqx_depth_updated,
		.limit_depth		= cfqx_limit_depth,
		.allow_merge		= cfqx_allow_merge,
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
		.next_request		= cfqx_next_request,
		.former_request		= cfqx_former_request,
		.init_icq		= cfqx_init_icq,
		.exit_icq		= cfqx_exit_icq,
	},
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs = cfqx_debugfs_attrs,
#endif
	.icq_size = sizeof(struct cfqx_icq),
	.icq_align = __alignof__(struct cfqx_icq),
	.elevator_attrs = cfqx_attrs,
	.elevator_name = "cfqx",
	.elevator_owner = THIS_MODULE,
};

static int __init cfqx_init(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct cfqx_policy) != CFQX_POLICY_SIZE);
	/* cfq.h's name tables must cover their enums (also marks them used). */
	BUILD_BUG_ON(ARRAY_SIZE(cfqx_event_names) != CFQX_EV_NR);
	BUILD_BUG_ON(ARRAY_SIZE(cfqx_group_by_names) != CFQX_BY_NR);
	cfqx_rq_cache = KMEM_CACHE(cfqx_sched_rq, 0);
	if (!cfqx_rq_cache)
		return -ENOMEM;
	err = elv_register(&cfqx_iosched);
	if (err)
		kmem_cache_destroy(cfqx_rq_cache);
	return err;
}

static void __exit cfqx_exit(void)
{
	elv_unregister(&cfqx_iosched);
	kmem_cache_destroy(cfqx_rq_cache);
}

module_init(cfqx_init);
module_exit(cfqx_exit);

MODULE_AUTHOR("cfqx authors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("cfqx: CFQ v2 fair queueing for blk-mq");
CFQX_IMPORT_NS_BPF_INTERNAL();
