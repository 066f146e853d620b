/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the cfqx elevator shared by its files: cfqx-iosched.c (the
 * elevator operations: groups, request life cycle, merging), cfqx-policy.c
 * (the policy: sysfs tunables and the attached BPF policy map) and
 * cfqx-debugfs.c (counters and groups under debugfs).  Every scheduling
 * decision is in the scheduling core, sched/cfqx-sched.c; this is glue.
 *
 * Locking: one spinlock per elevator instance, cfqx_data.lock, taken with
 * interrupts disabled (finish_request runs in completion context).  It
 * protects everything in struct cfqx_data and the groups: the scheduling
 * core (struct cfqx_sched and every group's and request's core state),
 * the group hash, the counters, the local policy and the map pointer.
 * Every core call is made with it held; helpers that need it say so with
 * lockdep_assert_held().  Lock order: q->queue_lock -> ioc->lock ->
 * cfqx_data.lock (exit_icq is called with the first two held).  cfqx takes
 * no other lock while holding its own, except the hrtimer base (arming
 * the idle timer) and RCU (reading the map value).  The lockless
 * readers are has_work (cfqx_sched_has_work() reads with READ_ONCE) and
 * limit_depth (admission: it finds the group under RCU, as the hash is
 * changed with the _rcu helpers and groups are freed with kfree_rcu, and
 * reads its counts and the policy in force without the lock).
 * Nothing sleeps under the lock; allocations are GFP_NOWAIT with a
 * counted fallback (a request the core cannot hold goes out unscheduled).
 */
#ifndef CFQX_IOSCHED_H
#define CFQX_IOSCHED_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <cfqx/cfq.h>
#include "elevator.h"
#include "blk-mq.h"
#include "blk-mq-debugfs.h"
#include "cfqx-sched.h"

#define CFQX_GROUP_HASH_BITS	6

/* A group: the core's queue plus its key and lifetime. */
struct cfqx_group {
	struct cfqx_sched_group sg;
	struct hlist_node hash_node;
	struct rcu_head rcu;
	u32 group_by;
	u32 flags;			/* CFQX_GF_* */
	u64 id;
	int ref;			/* icqs + requests holding it */
};

/* What only the glue counts; the core counts its own decisions. */
struct cfqx_glue_stats {
	u64 merged_bio;
	u64 merge_refused;		/* bio of another group: not merged */
	u64 throttled;
	u64 unscheduled;		/* no core request: went out as is */
	u64 alloc_fail;
	u64 bad_policy;
	u64 groups_created;
	u64 groups_freed;
	u64 timer_armed;		/* idle timer (re)started for a hold */
	u64 timer_fired;
	u64 stopped_seen;		/* hardware queue found stopped */
	u64 kicks;			/* completions that released held work */
	u64 inline_runs;		/* inserts that ran the queue themselves */
};

struct cfqx_data {
	spinlock_t lock;
	struct request_queue *q;
	struct cfqx_sched sched;
	struct cfqx_policy pol;		/* set through sysfs */
	struct cfqx_policy live;	/* in force: pol, or the map's last good */
	struct bpf_map *map;		/* attached policy map, or NULL */
	struct cfqx_policy bad_seen;	/* last rejected map value */

	DECLARE_HASHTABLE(groups, CFQX_GROUP_HASH_BITS);
	unsigned int nr_groups;
	struct list_head bypass;	/* flushes, passthrough: as they come */
	u64 armed_until;		/* idle timer expiry (0: not armed) */
	struct hrtimer idle_timer;
	struct work_struct run_work;	/* a queue run on this CPU's kblockd */
	struct cfqx_glue_stats st;
};

/* cfqx-policy.c */
const struct cfqx_policy *cfqx_policy(struct cfqx_data *cd);
void cfqx_detach_map(struct cfqx_data *cd);
extern struct elv_fs_entry cfqx_attrs[];

/* cfqx-debugfs.c */
extern const struct blk_mq_debugfs_attr cfqx_debugfs_attrs[];

#endif /* CFQX_IOSCHED_H */
