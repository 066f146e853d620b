// SPDX-License-Identifier: GPL-2.0
/*
 * The cfqx elevator's counters and groups, one value per line, under
 * /sys/kernel/debug/block/DEV/sched/ (blk-mq's debugfs directory for the
 * elevator): `stats` (the core's decision counters, the glue's counters
 * and the device model the core has learned) and `groups` (one line per
 * group, however many: seq_file has no page limit).
 * Locking: see cfqx-iosched.h.
 */
#include <linux/seq_file.h>

#include "cfqx-iosched.h"

static int cfqx_stats_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfqx_data *cd = q->elevator->elevator_data;
	struct cfqx_sched_stats c;
	struct cfqx_glue_stats g;
	unsigned int groups, active, busy, queued, in_flight, depth;
	u64 lat, avg_sectors, capacity, pace;
	unsigned long flags;

	spin_lock_irqsave(&cd->lock, flags);
	c = cd->sched.st;
	g = cd->st;
	groups = cd->nr_groups;
	active = cd->sched.nr_active;
	busy = cd->sched.nr_busy;
	queued = cd->sched.nr_queued;
	in_flight = cd->sched.in_flight;
	depth = cfqx_sched_depth(&cd->sched, cfqx_policy(cd));
	lat = cd->sched.lat_min_ns;
	avg_sectors = cd->sched.avg_sectors >> 4;
	capacity = cfqx_sched_capacity_kib_s(&cd->sched);
	pace = cfqx_sched_pace_kib_s(&cd->sched);
	spin_unlock_irqrestore(&cd->lock, flags);

	seq_printf(m, "groups %u\nactive %u\nbusy %u\nqueued %u\nin_flight %u\n",
		   groups, active, busy, queued, in_flight);
	seq_printf(m, "depth %u\nlat_min_us %llu\navg_rq_kib %llu\n", depth,
		   lat / 1000, avg_sectors / 2);
	seq_printf(m, "capacity_kib_s %llu\npace_kib_s %llu\n", capacity,
		   pace);
	seq_printf(m, "inserted %llu\ndispatched %llu\ncompleted %llu\n"
		   "requeued %llu\nfifo_expired %llu\ndepth_full %llu\n"
		   "pace_refused %llu\npaced %llu\nlate_wakes %llu\n"
		   "idle_hit %llu\nidle_expired %llu\n"
		   "merged_rq %llu\nmerged_cross %llu\n",
		   c.inserted, c.dispatched, c.completed, c.requeued,
		   c.fifo_expired, c.depth_full, c.pace_refused, c.paced,
		   c.late_wakes, c.idle_hit, c.idle_expired, c.merged, c.merged_cross);
	seq_printf(m, "merged_bio %llu\nmerge_refused %llu\nthrottled %llu\n"
		   "unscheduled %llu\nalloc_fail %llu\nbad_policy %llu\n"
		   "groups_created %llu\ngroups_freed %llu\n"
		   "timer_armed %llu\ntimer_fired %llu\nstopped_seen %llu\n"
		   "kicks %llu\ninline_runs %llu\n",
		   g.merged_bio, g.merge_refused, g.throttled, g.unscheduled,
		   g.alloc_fail, g.bad_policy, g.groups_created,
		   g.groups_freed, g.timer_armed, g.timer_fired,
		   g.stopped_seen, g.kicks, g.inline_runs);
	seq_printf(m, "ready_us %llu\nheld_order_us %llu\nheld_depth_us %llu\n"
		   "held_pace_us %llu\nheld_idle_us %llu\n",
		   c.held_ns[CFQX_HOLD_READY] / 1000,
		   c.held_ns[CFQX_HOLD_ORDER] / 1000,
		   c.held_ns[CFQX_HOLD_DEPTH] / 1000,
		   c.held_ns[CFQX_HOLD_PACE] / 1000, c.held_idle_ns / 1000);
	return 0;
}

/* One line per group (seq_file grows its buffer: no page limit). */
static int cfqx_groups_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfqx_data *cd = q->elevator->elevator_data;
	struct cfqx_group *g;
	unsigned long flags;
	u64 now = ktime_get_ns();
	int bkt;

	seq_puts(m, "by id flags ref queued in_flight dispatched vtime service_us think_us wait_us lat_us\n");
	spin_lock_irqsave(&cd->lock, flags);
	hash_for_each(cd->groups, bkt, g, hash_node) {
		struct cfqx_sched_group *sg = &g->sg;

		seq_printf(m, "%s %llu %u %d %u %u %llu %llu %llu %llu %llu %llu\n",
			   g->group_by < CFQX_BY_NR ?
			   cfqx_group_by_names[g->group_by] : "fallback",
			   g->id, g->flags, g->ref,
			   sg->queued[0] + sg->queued[1], sg->in_flight,
			   sg->dispatched, sg->vtime,
			   cfqx_sched_service(sg, now) / 1000,
			   (sg->think_ns >> 4) / 1000,
			   (sg->wait_ns >> 4) / 1000, (sg->lat_ns >> 4) / 1000);
	}
	spin_unlock_irqrestore(&cd->lock, flags);
	return 0;
}

const struct blk_mq_debugfs_attr cfqx_debugfs_attrs[] = {
	{ "stats", 0400, cfqx_stats_show },
	{ "groups", 0400, cfqx_groups_show },
	{},
};
