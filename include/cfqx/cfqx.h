/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cfqx ABI: the one header shared by the BPF programs (bpf/), the cfqx
 * elevator module (kmod/) and user space (user/, tests/).  Everything a
 * second party reads or writes lives here: the policy map's byte layout,
 * group keys, per-group statistics, event records, global counters, and
 * map and pin names.  All multi-byte fields are host-endian (little endian
 * on every machine cfqx runs on) and naturally aligned, with no implicit
 * padding, so `bpftool map update` can write them byte by byte.
 *
 * Pure CFQ v2 math (seek distances, decay, admission, budget) is in
 * cfqx/cfq.h, which includes this file.
 */
#ifndef CFQX_CFQX_H
#define CFQX_CFQX_H

#if defined(__VMLINUX_H__)
/* BPF: vmlinux.h already provides __u8 .. __u64 and bool. */
#elif defined(__KERNEL__)
#include <linux/types.h>
#else
#include <linux/types.h>
#include <stdbool.h>
#endif

/* Where cfqx lives in bpffs: maps in maps/, programs and links in progs/. */
#define CFQX_PIN_ROOT		"/sys/fs/bpf/cfqx"
#define CFQX_PIN_MAPS		CFQX_PIN_ROOT "/maps"
#define CFQX_PIN_PROGS		CFQX_PIN_ROOT "/progs"

/* ELF map names; bpftool's pinmaps pins each map under its name. */
#define CFQX_MAP_POLICY		"policy"
#define CFQX_MAP_GROUPS		"groups"
#define CFQX_MAP_EVENTS		"events"
#define CFQX_MAP_STATS		"stats"
#define CFQX_MAP_DEVICES	"devices"
#define CFQX_MAP_DEVSTATS	"devstats"
#define CFQX_MAP_GCOUNTS	"gcounts"
#define CFQX_MAP_DCOUNTS	"dcounts"
#define CFQX_MAP_GLOCKS		"glocks"
#define CFQX_MAP_GBASE		"gbase"

/* Most devices `cfqx load --dev` can restrict accounting to. */
#define CFQX_MAX_FILTER_DEVS	16

/* ------------------------------------------------------------------ */
/* Grouping key: what a "queue" is.  Values are the policy's group_by. */

enum cfqx_group_by {
	CFQX_BY_TGID	= 0,	/* thread group (process): 2.6.10 default */
	CFQX_BY_PGID	= 1,	/* process group */
	CFQX_BY_UID	= 2,	/* real user ID (2.6.10: current->uid) */
	CFQX_BY_GID	= 3,	/* real group ID */
	CFQX_BY_CGROUP	= 4,	/* cgroup v2 id: cfqx's addition */
	CFQX_BY_NR,
};

/*
 * The policy map: a BPF_MAP_TYPE_ARRAY with one entry (key 0, __u32).
 * Its value is exactly this struct, 48 bytes, every field a host-endian
 * __u32 at the offset shown.  The BPF programs read it on every request and
 * the cfqx elevator on every decision; a write takes effect on the next
 * request.  A value that fails cfqx_policy_check() is ignored (the previous
 * good policy stays in force) and counted in CFQX_STAT_BAD_POLICY.
 */
struct cfqx_policy {
	__u32 group_by;		/*  0: enum cfqx_group_by (tgid) */
	__u32 quantum;		/*  4: requests per dispatch round (4) */
	__u32 queued;		/*  8: requests a group may always hold (8) */
	__u32 max_queued;	/* 12: cap of a group's share (64) */
	__u32 fifo_expire_sync;	/* 16: ms, sync request deadline (500) */
	__u32 fifo_expire_async;/* 20: ms, async request deadline (5000) */
	__u32 fifo_batch_expire;/* 24: ms between FIFO checks (125) */
	__u32 back_seek_max;	/* 28: KiB, longest backward seek (16384) */
	__u32 back_seek_penalty;/* 32: backward distance multiplier (2) */
	__u32 max_depth;	/* 36: cfqx: most requests in flight at the device (1024) */
	__u32 slice_idle;	/* 40: cfqx: longest wait for a sync group, us (8000) */
	__u32 event_rate;	/* 44: events/s per device, group and kind (10) */
};

#define CFQX_POLICY_SIZE	48

/* 2.6.10 defaults, plus cfqx's own. */
#define CFQX_DEF_QUANTUM		4
#define CFQX_DEF_QUEUED			8
#define CFQX_DEF_MAX_QUEUED		64
#define CFQX_DEF_FIFO_EXPIRE_SYNC	500
#define CFQX_DEF_FIFO_EXPIRE_ASYNC	5000
#define CFQX_DEF_FIFO_BATCH_EXPIRE	125
#define CFQX_DEF_BACK_SEEK_MAX		16384
#define CFQX_DEF_BACK_SEEK_PENALTY	2
#define CFQX_DEF_MAX_DEPTH		1024	/* = the device's tags */
#define CFQX_DEF_SLICE_IDLE		8000	/* CFQ v3's 8 ms */
#define CFQX_DEF_EVENT_RATE		10
/* Creator records of requests neither issued nor completed where cfqx
 * could see them are retired at this age, s (`cfqx load --orphan-age`,
 * 1 to CFQX_ORPHAN_AGE_MAX_S). */
#define CFQX_DEF_ORPHAN_AGE_S		60
#define CFQX_ORPHAN_AGE_MAX_S		3600

#define CFQX_POLICY_DEFAULT {						\
	.group_by = CFQX_BY_TGID,					\
	.quantum = CFQX_DEF_QUANTUM,					\
	.queued = CFQX_DEF_QUEUED,					\
	.max_queued = CFQX_DEF_MAX_QUEUED,				\
	.fifo_expire_sync = CFQX_DEF_FIFO_EXPIRE_SYNC,			\
	.fifo_expire_async = CFQX_DEF_FIFO_EXPIRE_ASYNC,		\
	.fifo_batch_expire = CFQX_DEF_FIFO_BATCH_EXPIRE,		\
	.back_seek_max = CFQX_DEF_BACK_SEEK_MAX,			\
	.back_seek_penalty = CFQX_DEF_BACK_SEEK_PENALTY,		\
	.max_depth = CFQX_DEF_MAX_DEPTH,				\
	.slice_idle = CFQX_DEF_SLICE_IDLE,				\
	.event_rate = CFQX_DEF_EVENT_RATE,				\
}

/* Inclusive bounds of each policy field, checked by cfqx_policy_check(). */
#define CFQX_QUANTUM_MAX		64
#define CFQX_QUEUED_MAX			1024
#define CFQX_FIFO_EXPIRE_MAX		600000	/* ms: 10 minutes */
#define CFQX_BACK_SEEK_MAX_MAX		(1024 * 1024)	/* KiB: 1 GiB */
#define CFQX_BACK_SEEK_PENALTY_MAX	64
#define CFQX_MAX_DEPTH_MAX		1024
#define CFQX_SLICE_IDLE_MAX		100000	/* us */
#define CFQX_EVENT_RATE_MAX		1000000

/* ------------------------------------------------------------------ */
/* Groups: per device and group statistics, the "groups" hash map. */

/* cfqx_group_key.flags */
#define CFQX_GF_KTHREAD		0x1	/* submitted by a kernel thread with
					 * no better owner (flusher writeback):
					 * id is the kthread's tgid, shown as
					 * its own group, never charged to a
					 * user */
#define CFQX_GF_RETIRED		0x2	/* not a group: a device's retired
					 * bucket, the totals of groups that
					 * were recycled (idle, by age or
					 * under pressure), so that the sum
					 * over groups is still the device's */

struct cfqx_group_key {
	__u32 dev;		/* kernel dev_t: major << 20 | minor */
	__u16 group_by;		/* enum cfqx_group_by the id is under */
	__u16 flags;		/* CFQX_GF_* */
	__u64 id;		/* tgid, pgid, uid, gid or cgroup id */
};

#define CFQX_HIST_SLOTS		32	/* log2(us) buckets: 1us .. ~1h */

enum cfqx_dir { CFQX_READ = 0, CFQX_WRITE = 1, CFQX_DIRS };

enum cfqx_seek {
	CFQX_SEEK_FORWARD = 0,	/* s >= last */
	CFQX_SEEK_BACK_NEAR,	/* backward within back_seek_max */
	CFQX_SEEK_BACK_FAR,	/* backward beyond it: "wrapped" */
	CFQX_SEEKS,
};

/*
 * Per (device, group, kind) event rate limiter state, kept by the BPF
 * side in each group's value (CFQX_EV_NR_SLOTS of them, indexed by enum
 * cfqx_event_kind, which must stay below it); see cfqx_ratelimit_allow().
 */
#define CFQX_EV_NR_SLOTS	8

struct cfqx_ratelimit {
	__u64 window;			/* second the count is for */
	__u64 count;			/* events let through in it */
	__u64 suppressed;		/* dropped since the last one let through */
};

/*
 * Value of the "groups" array, open-addressed by cfqx_group_hash() of the
 * key (cfqx_group_probe()); entries with slot_hash 0 are free.  Counters
 * only grow (since load) except the gauges marked so.  The counters that
 * every request moves live per CPU in "gcounts" (struct
 * cfqx_group_counts, same index) and read 0 here: user space adds them in
 * (cfqx_group_counts_add()).  The rest is updated under the group's lock
 * or with atomics from any CPU.
 */
struct cfqx_group_stats {
	__u64 slot_hash;		/* cfqx_group_hash(&key); 0 = free */
	struct cfqx_group_key key;	/* whose entry this is */
	__u64 rqs[CFQX_DIRS];		/* completed requests */
	__u64 bytes[CFQX_DIRS];		/* completed bytes */
	__u64 errors;			/* completions with an error */
	__u64 requeues;
	__u64 merges;			/* bios merged into a request */
	__u64 issued;			/* dispatches (issue events, again
					 * after a requeue) */
	__u64 lost;			/* issued, completion never seen */
	__u64 qtime_hist[CFQX_HIST_SLOTS];	/* queue: submit->issue */
	__u64 stime_hist[CFQX_HIST_SLOTS];	/* service: issue->complete */
	__u64 qtime_sum_ns;		/* sum of the queue times counted in
					 * qtime_hist (a histogram's _sum) */
	__u64 stime_sum_ns;		/* sum of the service times counted
					 * in stime_hist */
	__u64 max_lat_ns;		/* worst submit->complete */
	__u64 service_used_ns;		/* CFQ v2, decayed >>3 per second */
	__u64 service_epoch;		/* second of the last decay */
	__u64 deadline_miss[CFQX_DIRS];	/* issued older than fifo_expire */
	__u64 seeks[CFQX_SEEKS];	/* cfq_choose_req classes at issue */
	__u64 entitled_milli;		/* fair dispatches, x1000 */
	__u64 starved;			/* times unserved > fifo_expire_sync */
	__u64 over_budget;		/* dispatches made while over its share,
					 * by a quantum, in a busy period */
	__u64 first_seen_ns;
	__u64 last_active_ns;		/* last submit, issue or complete */
	__u64 oldest_queued_ns;		/* gauge: submit time of a waiting rq */
	__u64 pending;			/* gauge (kept in "glocks", struct
					 * cfqx_group_lock, read 0 here):
					 * requests allocated and not
					 * completed; 0 = idle.  Derived:
					 * in_flight = issued - requeues -
					 * rqs[] - lost, queued = pending -
					 * in_flight (cfqx_group_in_flight) */
	__u64 busy_share_base;		/* device share_milli when it got busy */
	__u64 busy_issued;		/* dispatches in the current busy period */
	__u64 period_share_base;	/* device share_milli when it began */
	__u64 idle_at_ns;		/* when it last went idle; back within
					 * slice_idle continues the period */
	struct cfqx_ratelimit rl[CFQX_EV_NR_SLOTS]; /* per event kind */
	char comm[16];			/* command that last made it busy */
};

/*
 * Value of the "devstats" array: what a device did as a whole, counted
 * independently of the groups so that "sum over groups == device total"
 * is a real check.  The array is open-addressed by dev_t (see
 * cfqx_dev_slot()); entries with dev 0 are free.
 */
struct cfqx_dev_stats {
	__u64 dev;			/* kernel dev_t; 0 = free entry */
	__u64 rqs[CFQX_DIRS];		/* completed requests, tracked or not */
	__u64 bytes[CFQX_DIRS];		/* completed bytes, tracked or not */
	__u64 untracked_rqs;		/* completions with no group (issued
					 * before load, passthrough, ...) */
	__u64 last_end_sector;		/* end of the previous dispatch */
	__u64 share_milli;		/* sum over dispatches of 1000/busy:
					 * one busy group's entitlement */
	__u64 busy_groups;		/* gauge: groups with pending I/O */
};

/*
 * Value of the per-CPU arrays "gcounts" (index as in "groups") and
 * "dcounts" (index as in "devstats"): the counters every request moves,
 * each CPU adding to its own copy, summed over CPUs by user space into
 * the cfqx_group_stats / cfqx_dev_stats fields of the same names.
 * A group's copies are never cleared: when the entry is recycled, what
 * each CPU's copy gained since it was last claimed goes to the device's
 * retired bucket, and the copy's value is kept as its base in "gbase"
 * (same type and index).  A group's counters are gcounts - gbase.
 */
struct cfqx_group_counts {
	__u64 rqs[CFQX_DIRS];
	__u64 bytes[CFQX_DIRS];
	__u64 errors;
	__u64 requeues;
	__u64 issued;
	__u64 lost;
	__u64 qtime_hist[CFQX_HIST_SLOTS];
	__u64 stime_hist[CFQX_HIST_SLOTS];
	__u64 qtime_sum_ns;
	__u64 stime_sum_ns;
	__u64 deadline_miss[CFQX_DIRS];
	__u64 seeks[CFQX_SEEKS];
	__u64 starved;
	__u64 over_budget;
};

/*
 * Value of the "glocks" array (index as in "groups"): the group's lock
 * (a struct bpf_spin_lock on the BPF side) and beside it, on the same
 * cache line, its pending count, which user space copies into
 * cfqx_group_stats.pending.  One line per group.
 */
struct cfqx_group_lock {
	__u32 lock;
	__u32 folding;		/* counters on their way to retired */
	__u64 pending;
	__u32 dslot;		/* its device's index in "devstats" */
	__u32 pad32;
	__u64 pad[5];
};

struct cfqx_dev_counts {
	__u64 rqs[CFQX_DIRS];
	__u64 bytes[CFQX_DIRS];
	__u64 untracked_rqs;
};


/* ------------------------------------------------------------------ */
/* Events: records in the "events" BPF ring buffer. */

enum cfqx_event_kind {
	CFQX_EV_POLICY = 1,	/* policy switched: value = old, value2 = new
				 * group_by */
	CFQX_EV_BUSY,		/* group got its first queued request */
	CFQX_EV_IDLE,		/* group's last request completed */
	CFQX_EV_STARVED,	/* queued request unserved > fifo_expire_sync:
				 * value = ns waited */
	CFQX_EV_DEADLINE,	/* request issued past its FIFO deadline:
				 * value = ns late, value2 = dir */
	CFQX_EV_OVER_BUDGET,	/* group took more than its share by at least
				 * a quantum: value = dispatches x1000 over */
	CFQX_EV_NR,
};

struct cfqx_event {
	__u16 kind;		/* enum cfqx_event_kind */
	__u16 size;		/* sizeof(struct cfqx_event): record version */
	__u32 dev;		/* kernel dev_t */
	__u64 ts_ns;		/* bpf_ktime_get_ns() */
	__u32 group_by;		/* key of id */
	__u32 flags;		/* CFQX_GF_* */
	__u64 id;
	__u64 value;		/* kind specific, see above */
	__u64 value2;
	__u64 suppressed;	/* same dev/group/kind events dropped by the
				 * BPF rate limit since the previous one */
	char comm[16];
};

/* ------------------------------------------------------------------ */
/* Global counters: the "stats" per-CPU array, summed by user space. */

enum cfqx_stat {
	CFQX_STAT_EVENTS,		/* events written to the ring buffer */
	CFQX_STAT_RB_DROPS,		/* bpf_ringbuf_reserve() failures */
	CFQX_STAT_RATELIMITED,		/* events suppressed by event_rate */
	CFQX_STAT_GROUPS_FULL,		/* groups map full: request uncounted */
	CFQX_STAT_INFLIGHT_FULL,	/* in-flight map full */
	CFQX_STAT_UNMATCHED,		/* issue/complete of an unknown rq */
	CFQX_STAT_BAD_POLICY,		/* policy value rejected */
	CFQX_STAT_DEVICES_FULL,		/* devstats full: device uncounted */
	CFQX_STAT_BIOS_FULL,		/* creator record not stored (map
					 * full): request left untracked */
	CFQX_STAT_STALE,		/* records of requests that can never
					 * complete, retired (repaired) */
	CFQX_STAT_DEEP_WALK,		/* creator bio not found within the
					 * bio walk bound: untracked */
	CFQX_STAT_RECYCLED,		/* idle groups folded into their
					 * device's retired bucket and reused */
	CFQX_STAT_NO_REAPER,		/* no reaper (PREEMPT_RT refuses
					 * bpf_timer, or its timer did not
					 * start): stale records wait for
					 * their pointer to come back */
	CFQX_STAT_NR,
};

/* Kernel dev_t <-> major/minor, usable on all three sides. */
#define CFQX_MINORBITS		20
#define CFQX_MKDEV(ma, mi)	(((__u32)(ma) << CFQX_MINORBITS) | (__u32)(mi))
#define CFQX_MAJOR(dev)		((__u32)(dev) >> CFQX_MINORBITS)
#define CFQX_MINOR(dev)		((__u32)(dev) & ((1U << CFQX_MINORBITS) - 1))

#endif /* CFQX_CFQX_H */
