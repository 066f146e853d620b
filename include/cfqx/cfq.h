/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CFQ v2 (Linux 2.6.10) rules as pure functions.  The BPF programs, the
 * cfqx elevator and the Criterion tests all compile this same code, so the
 * accounting the BPF side reports and the ordering the module enforces
 * cannot drift apart.  No state, no allocation, no locks, bounded loops.
 */
#ifndef CFQX_CFQ_H
#define CFQX_CFQ_H

#include "cfqx.h"

#define CFQX_SECTOR_SHIFT	9
#define CFQX_NSEC_PER_MSEC	1000000ULL
#define CFQX_NSEC_PER_SEC	1000000000ULL

/* Service decay period: service_used is shifted right by 3 once a second. */
#define CFQX_DECAY_PERIOD_NS	CFQX_NSEC_PER_SEC
#define CFQX_DECAY_SHIFT	3

/*
 * Seek distance from @last (end sector of the previous dispatch) to a
 * request starting at @s, by 2.6.10's cfq_choose_req(): forward seeks cost
 * their length, backward seeks up to @back_max sectors cost
 * @penalty times theirs, longer backward seeks are "wrapped" (served on the
 * next sweep).  Returns the class; *dist is set for non-wrapped requests.
 */
static inline enum cfqx_seek cfqx_seek_class(__u64 last, __u64 s,
					     __u64 back_max, __u32 penalty,
					     __u64 *dist)
{
	if (s >= last) {
		*dist = s - last;
		return CFQX_SEEK_FORWARD;
	}
	if (s + back_max >= last) {
		*dist = (last - s) * penalty;
		return CFQX_SEEK_BACK_NEAR;
	}
	*dist = 0;
	return CFQX_SEEK_BACK_FAR;
}

/* back_seek_max (KiB) in 512-byte sectors. */
static inline __u64 cfqx_back_max_sectors(const struct cfqx_policy *p)
{
	return (__u64)p->back_seek_max * 2;
}

/*
 * cfq_choose_req(): which of two requests at sectors @s1 and @s2 to serve
 * next after @last.  Returns 1 for @s1, 2 for @s2.  Not wrapped beats
 * wrapped; of two wrapped the lower sector wins (it comes first on the next
 * sweep); otherwise the smaller distance wins; a tie goes to the higher
 * sector.
 */
static inline int cfqx_choose_req(__u64 last, __u64 s1, __u64 s2,
				  __u64 back_max, __u32 penalty)
{
	__u64 d1, d2;
	bool w1, w2;

	w1 = cfqx_seek_class(last, s1, back_max, penalty, &d1) ==
		CFQX_SEEK_BACK_FAR;
	w2 = cfqx_seek_class(last, s2, back_max, penalty, &d2) ==
		CFQX_SEEK_BACK_FAR;

	if (w1 != w2)
		return w1 ? 2 : 1;
	if (w1)
		return s1 <= s2 ? 1 : 2;
	if (d1 != d2)
		return d1 < d2 ? 1 : 2;
	return s1 >= s2 ? 1 : 2;
}

/*
 * Decayed service: @used as of second @epoch, seen at second @now_epoch.
 * Each whole period elapsed shifts it right by CFQX_DECAY_SHIFT.
 */
static inline __u64 cfqx_service_decay(__u64 used, __u64 epoch,
				       __u64 now_epoch)
{
	__u64 periods;

	if (now_epoch <= epoch)
		return used;
	periods = now_epoch - epoch;
	if (periods * CFQX_DECAY_SHIFT >= 64)
		return 0;
	return used >> (periods * CFQX_DECAY_SHIFT);
}

static inline __u64 cfqx_epoch(__u64 now_ns)
{
	return now_ns / CFQX_DECAY_PERIOD_NS;
}

/*
 * Admission (2.6.10 cfq_may_queue): how many requests a group may have
 * allocated when @holders groups (those holding requests, and the one
 * asking) share @nr_requests: an equal share, at least 1 and at most
 * @max_queued.  2.6.10 also let a queue below `queued` allocate past
 * nr_requests (ELV_MQUEUE_MUST); blk-mq's scheduler tags are a hard pool,
 * and a floor the pool cannot honour (15 groups x 8 > 64 tags) let deep
 * groups take every tag while a one-deep reader waited behind them for
 * one, so cfqx keeps no floor above the equal share.
 */
static inline __u32 cfqx_queue_limit(__u32 nr_requests, __u32 holders,
				     __u32 max_queued)
{
	__u32 limit;

	limit = holders ? nr_requests / holders : nr_requests;
	if (limit > max_queued)
		limit = max_queued;
	return limit ? limit : 1;
}

/*
 * Budget: of each round's @quantum dispatches, a busy group is entitled to
 * an equal share, in thousandths of a dispatch so shares stay exact enough
 * for any realistic group count.
 */
static inline __u64 cfqx_entitled_milli(__u32 quantum, __u32 busy)
{
	return busy ? (__u64)quantum * 1000 / busy : 0;
}

/*
 * A group is over budget when it has had at least a whole quantum more
 * dispatches than it was entitled to: 2.6.10 lets a queue take up to
 * quantum per round, so less than that is ordinary jitter.
 */
static inline bool cfqx_over_budget(__u64 got, __u64 entitled_milli,
				    __u32 quantum)
{
	return got * 1000 > entitled_milli + (__u64)quantum * 1000;
}

/*
 * The budget view as a virtual clock: each dispatch on a device entitles
 * every busy group to 1/busy of it (cfqx_entitled_milli() with a quantum
 * of one).  The device sums that in share_milli; a busy group's
 * entitlement is what it had banked plus how far the sum moved since it
 * became busy.
 */
static inline __u64 cfqx_dispatch_share_milli(__u32 busy)
{
	return cfqx_entitled_milli(1, busy);
}

static inline __u64 cfqx_group_entitled_milli(__u64 banked, __u64 busy_base,
					      __u64 dev_share, bool busy)
{
	if (!busy || dev_share < busy_base)
		return banked;
	return banked + (dev_share - busy_base);
}

/*
 * Entries probed for a group in the open-addressed groups array (a full
 * chain recycles its longest-idle group).  4 keeps cfqx_getrq within the
 * 6.1 verifier's budget of 10^6 instructions; 8 does not.
 */
#define CFQX_GROUP_PROBES	4

/*
 * Identity of a group in the groups array: a 64-bit mix of its key, never
 * 0 (0 marks a free entry).  Two keys sharing it would share an entry;
 * at 2^-64 per pair that is never.
 */
static inline __u64 cfqx_group_hash(const struct cfqx_group_key *k)
{
	__u64 h = k->id * 0x9e3779b97f4a7c15ULL;

	h ^= (((__u64)k->dev << 32) | ((__u64)k->group_by << 16) | k->flags) *
		0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return h ? h : 1;
}

/* Entry tried at @probe (0, 1, ...) for hash @h in an array of @n (2^k). */
static inline __u32 cfqx_group_probe(__u64 h, __u32 probe, __u32 n)
{
	return (__u32)(h + probe) & (n - 1);
}

/* Entries probed for a device in the open-addressed devstats array. */
#define CFQX_DEV_PROBES		4

/* Home slot of @dev in an open-addressed array of @n (a power of 2). */
static inline __u32 cfqx_dev_slot(__u32 dev, __u32 n)
{
	__u32 h = dev * 2654435761u;	/* Knuth's multiplicative hash */

	return (h >> 16) & (n - 1);
}

/*
 * A group's in-flight and queued requests, derived from counters the BPF
 * side keeps without extra atomics on the hot path.
 */
/*
 * One CPU's copy of a group's per-CPU counters (struct cfqx_group_counts)
 * into its stats view, @sign 1 for gcounts and -1 for its gbase: user
 * space calls it for every CPU, the bases first (a base is a past value
 * of its copy, so a later copy is never below it).
 */
static inline void cfqx_group_counts_add(struct cfqx_group_stats *g,
					 const struct cfqx_group_counts *c,
					 int sign)
{
	__u64 m = sign < 0 ? (__u64)-1 : 1;	/* wraps back: exact */
	int i;

	for (i = 0; i < CFQX_DIRS; i++) {
		g->rqs[i] += m * c->rqs[i];
		g->bytes[i] += m * c->bytes[i];
		g->deadline_miss[i] += m * c->deadline_miss[i];
	}
	g->errors += m * c->errors;
	g->requeues += m * c->requeues;
	g->issued += m * c->issued;
	g->lost += m * c->lost;
	for (i = 0; i < CFQX_HIST_SLOTS; i++) {
		g->qtime_hist[i] += m * c->qtime_hist[i];
		g->stime_hist[i] += m * c->stime_hist[i];
	}
	g->qtime_sum_ns += m * c->qtime_sum_ns;
	g->stime_sum_ns += m * c->stime_sum_ns;
	for (i = 0; i < CFQX_SEEKS; i++)
		g->seeks[i] += m * c->seeks[i];
	g->starved += m * c->starved;
	g->over_budget += m * c->over_budget;
}

static inline void cfqx_dev_counts_add(struct cfqx_dev_stats *d,
				       const struct cfqx_dev_counts *c)
{
	int i;

	for (i = 0; i < CFQX_DIRS; i++) {
		d->rqs[i] += c->rqs[i];
		d->bytes[i] += c->bytes[i];
	}
	d->untracked_rqs += c->untracked_rqs;
}

static inline __u64 cfqx_group_in_flight(const struct cfqx_group_stats *g)
{
	__u64 done = g->requeues + g->rqs[CFQX_READ] + g->rqs[CFQX_WRITE] +
		g->lost;

	return g->issued > done ? g->issued - done : 0;
}

static inline __u64 cfqx_group_queued(const struct cfqx_group_stats *g)
{
	__u64 in_flight = cfqx_group_in_flight(g);

	return g->pending > in_flight ? g->pending - in_flight : 0;
}

/*
 * A group that went idle at @idle_at_ns and has a request again at @now
 * continues its busy period when it was away at most @slice_idle_us: the
 * think time CFQ anticipates for a synchronous process.
 */
static inline bool cfqx_period_continues(__u64 idle_at_ns, __u64 now,
					 __u32 slice_idle_us)
{
	return idle_at_ns && now >= idle_at_ns &&
		now - idle_at_ns <= (__u64)slice_idle_us * 1000;
}

/*
 * Event rate limit: at most @rate events per second (per device, group
 * and kind).  Returns true when the event may go out; the caller then
 * reports and clears st->suppressed.  Otherwise the event is counted in
 * st->suppressed.
 */
static inline bool cfqx_ratelimit_allow(struct cfqx_ratelimit *st,
					__u64 now_ns, __u32 rate)
{
	__u64 start = st->window * CFQX_NSEC_PER_SEC, window;

	/* a divide only when the second may have changed */
	if (now_ns < start || now_ns - start >= CFQX_NSEC_PER_SEC) {
		window = now_ns / CFQX_NSEC_PER_SEC;
		if (st->window != window) {
			st->window = window;
			st->count = 0;
		}
	}
	if (st->count >= rate) {
		st->suppressed++;
		return false;
	}
	st->count++;
	return true;
}

/* An all-zero policy value (a map bpftool just created): use defaults. */
static inline bool cfqx_policy_is_zero(const struct cfqx_policy *p)
{
	return !(p->group_by | p->quantum | p->queued | p->max_queued |
		 p->fifo_expire_sync | p->fifo_expire_async |
		 p->fifo_batch_expire | p->back_seek_max |
		 p->back_seek_penalty | p->max_depth | p->slice_idle |
		 p->event_rate);
}

/* FIFO deadline of a request in ns: sync reads/writes vs async writes. */
static inline __u64 cfqx_fifo_expire_ns(const struct cfqx_policy *p,
					bool sync)
{
	return (__u64)(sync ? p->fifo_expire_sync : p->fifo_expire_async) *
		CFQX_NSEC_PER_MSEC;
}

/* log2 histogram slot of a duration in ns, bucketed by microseconds. */
static inline __u32 cfqx_hist_slot(__u64 ns)
{
	__u32 slot = 0, step;

	/*
	 * floor(log2(ns / 1000)), 0 below 2 us, capped: the largest slot
	 * with ns >= 1000 << slot, by binary search (no divide: BPF has no
	 * multiply-high, so a divide by a constant stays a divide).  @ns
	 * is shifted down by the slot found so far, so every compare is
	 * against a constant: ns >= 1000 << (slot + step) exactly when
	 * (ns >> slot) >= 1000 << step, as 1000 << (slot + step) is a
	 * multiple of 1 << slot.  16 + 8 + 4 + 2 + 1 = 31, the last slot.
	 */
	for (step = 16; step; step >>= 1) {
		if (ns >= (1000ULL << step)) {
			slot += step;
			ns >>= step;
		}
	}
	return slot;
}

/* Lower bound in ns of histogram slot @slot (slot 0 covers 0..2us). */
static inline __u64 cfqx_hist_slot_floor_ns(__u32 slot)
{
	return slot ? (1ULL << slot) * 1000 : 0;
}

/*
 * Percentile @pct (0..100) of a log2 histogram, as the upper bound in ns
 * of the slot it falls in (0 when the histogram is empty).
 */
static inline __u64 cfqx_hist_percentile_ns(const __u64 *hist, __u32 pct)
{
	__u64 total = 0, seen = 0, want;
	__u32 i;

	for (i = 0; i < CFQX_HIST_SLOTS; i++)
		total += hist[i];
	if (!total)
		return 0;
	want = (total * pct + 99) / 100;
	if (!want)
		want = 1;
	for (i = 0; i < CFQX_HIST_SLOTS; i++) {
		seen += hist[i];
		if (seen >= want)
			break;
	}
	if (i >= CFQX_HIST_SLOTS - 1)
		i = CFQX_HIST_SLOTS - 1;
	return cfqx_hist_slot_floor_ns(i + 1);
}

/*
 * Validate a policy value.  Returns 0 when every field is in range, else
 * 1 + the index (offset / 4) of the first bad field, so callers can name
 * it.  Used on map contents (BPF, module) and on user input alike.
 */
static inline int cfqx_policy_check(const struct cfqx_policy *p)
{
	if (p->group_by >= CFQX_BY_NR)
		return 1;
	if (p->quantum < 1 || p->quantum > CFQX_QUANTUM_MAX)
		return 2;
	if (p->queued < 1 || p->queued > CFQX_QUEUED_MAX)
		return 3;
	if (p->max_queued < p->queued || p->max_queued > CFQX_QUEUED_MAX)
		return 4;
	if (p->fifo_expire_sync < 1 ||
	    p->fifo_expire_sync > CFQX_FIFO_EXPIRE_MAX)
		return 5;
	if (p->fifo_expire_async < 1 ||
	    p->fifo_expire_async > CFQX_FIFO_EXPIRE_MAX)
		return 6;
	if (p->fifo_batch_expire < 1 ||
	    p->fifo_batch_expire > CFQX_FIFO_EXPIRE_MAX)
		return 7;
	if (p->back_seek_max > CFQX_BACK_SEEK_MAX_MAX)
		return 8;
	if (p->back_seek_penalty < 1 ||
	    p->back_seek_penalty > CFQX_BACK_SEEK_PENALTY_MAX)
		return 9;
	if (p->max_depth < 1 || p->max_depth > CFQX_MAX_DEPTH_MAX)
		return 10;
	if (p->slice_idle > CFQX_SLICE_IDLE_MAX)
		return 11;
	if (p->event_rate < 1 || p->event_rate > CFQX_EVENT_RATE_MAX)
		return 12;
	return 0;
}

#ifndef __VMLINUX_H__
/* Names, for sysfs and the command line (not needed by BPF). */
static const char *const cfqx_group_by_names[CFQX_BY_NR] __attribute__((unused)) = {
	[CFQX_BY_TGID] = "tgid",
	[CFQX_BY_PGID] = "pgid",
	[CFQX_BY_UID] = "uid",
	[CFQX_BY_GID] = "gid",
	[CFQX_BY_CGROUP] = "cgroup",
};

/* Policy field names in layout order: cfqx_policy_check() - 1 indexes it. */
static const char *const cfqx_policy_field_names[CFQX_POLICY_SIZE / 4] __attribute__((unused)) = {
	"group_by", "quantum", "queued", "max_queued",
	"fifo_expire_sync", "fifo_expire_async", "fifo_batch_expire",
	"back_seek_max", "back_seek_penalty", "max_depth", "slice_idle",
	"event_rate",
};

static const char *const cfqx_event_names[CFQX_EV_NR] __attribute__((unused)) = {
	[CFQX_EV_POLICY] = "policy",
	[CFQX_EV_BUSY] = "busy",
	[CFQX_EV_IDLE] = "idle",
	[CFQX_EV_STARVED] = "starved",
	[CFQX_EV_DEADLINE] = "deadline",
	[CFQX_EV_OVER_BUDGET] = "over_budget",
};

/* Parse a group_by name; returns the enum value or -1. */
static inline int cfqx_group_by_parse(const char *s, unsigned long len)
{
	int i;
	unsigned long j;

	for (i = 0; i < CFQX_BY_NR; i++) {
		const char *n = cfqx_group_by_names[i];

		for (j = 0; j < len && n[j] && n[j] == s[j]; j++)
			;
		if (j == len && !n[j])
			return i;
	}
	return -1;
}
#endif /* !__VMLINUX_H__ */

#endif /* CFQX_CFQ_H */
