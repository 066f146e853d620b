// SPDX-License-Identifier: GPL-2.0
/*
 * cfqx BPF accounting: classifies every block request to a CFQ v2 group in
 * the submitter's context (bio level), carries the group to the request,
 * and charges it per device and group at issue and completion, with the
 * CFQ v2 budget view, FIFO deadlines, seeks, starvation and events.
 *
 * Only tp_btf hooks whose prototypes are the same on 6.1 and today's
 * kernels: block_getrq, block_bio_{back,front}merge (struct bio *),
 * block_rq_{merge,issue,requeue} (struct request *), block_rq_complete
 * (struct request *, blk_status_t, unsigned int).
 *
 * Lifecycle of one request:
 *   getrq       a bio starts a new request, in the submitter's context:
 *               classify it by the live policy (a switch applies to the
 *               next request), remember it as the request's creator; its
 *               group gets one more pending request (maybe "busy")
 *   bio merges  a bio joins an existing request; its group is counted a
 *               merge, the creator stays the owner (bios merged from other
 *               groups ride along: CFQ charges requests to queues)
 *   rq_merge    a whole request is folded into another: its creator bio
 *               gives up ownership
 *   rq_issue    walk rq->bio..bi_next for the creator bio, turn it into
 *               the in-flight record of the struct request *, charge issue
 *   rq_requeue  back to queued; the next issue reuses the record
 *   rq_complete charge bytes (partial completions add up), and on the
 *               last part the request, service time and latency
 *
 * Records live in direct-mapped arrays indexed by a hash of the pointer,
 * claimed with a compare-and-swap (no locks, no allocation on the hot
 * path); a record whose slot is taken goes to a hash map instead (LRU for
 * bios, which may never become requests; a plain hash for requests, whose
 * overflow is counted).  block_bio_queue is not hooked: getrq sees every
 * request's first bio in the same context, one program run cheaper; queue
 * time is therefore measured from request allocation.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <cfqx/cfq.h>

char LICENSE[] SEC("license") = "GPL";

#define CFQX_MAX_GROUPS		8192
#define CFQX_MAX_BIOS		16384
#define CFQX_MAX_INFLIGHT	16384
#define CFQX_MAX_DEVICES	256
#define CFQX_MAX_BIO_WALK	32	/* bios searched for the creator */
#define CFQX_RINGBUF_SIZE	(1 << 20)

#define PF_KTHREAD_FLAG		0x00200000	/* include/linux/sched.h */
#define EEXIST_ERRNO		17		/* include/uapi/asm-generic/errno-base.h */
#define REQ_OP_MASK_BITS	0xff		/* REQ_OP_BITS == 8 */

/*
 * Set by `cfqx load --dev` before loading (constants to the verifier, so
 * the check costs a few compares); zero (all devices) when bpftool loads
 * us.  The "devices" map holds the same list for user space.
 */
const volatile __u32 nr_filter_devs = 0;
const volatile __u32 filter_devs[CFQX_MAX_FILTER_DEVS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cfqx_policy);
} policy SEC(".maps");

/*
 * Open-addressed by cfqx_group_hash() of the key (kept in the value):
 * found once per request at getrq, then reached by index, an inlined
 * array lookup.  Groups live since load, like CFQ v2's per-process
 * history; a full table is counted (groups_full), never fatal.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CFQX_MAX_GROUPS);
	__type(key, __u32);
	__type(value, struct cfqx_group_stats);
} groups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CFQX_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CFQX_MAX_DEVICES);
	__type(key, __u32);
	__type(value, __u32);
} devices SEC(".maps");

/* Direct-mapped by dev_t (open addressing): an inlined array lookup. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CFQX_MAX_DEVICES);
	__type(key, __u32);
	__type(value, struct cfqx_dev_stats);
} devstats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, CFQX_RINGBUF_SIZE);
} events SEC(".maps");

#define BIO_CREATOR	0x1	/* this bio started its request (getrq) */

struct bio_rec {
	struct cfqx_group_key key;
	__u64 submit_ns;
	__u32 flags;		/* BIO_* */
	__u32 sync;
	__u32 gidx;		/* index of the group in "groups" */
	__u32 pad;
};

#define CFQX_SLOTS		4096	/* direct-mapped records */

struct bio_slot {
	__u64 bio;		/* owner; 0 = free */
	struct bio_rec rec;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CFQX_SLOTS);
	__type(key, __u32);
	__type(value, struct bio_slot);
} bioslots SEC(".maps");

/* Bios whose slot was taken; LRU as a bio may never become a request. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(map_flags, BPF_F_NO_COMMON_LRU);	/* no global LRU lock */
	__uint(max_entries, CFQX_MAX_BIOS);
	__type(key, __u64);
	__type(value, struct bio_rec);
} bios SEC(".maps");

#define RQ_ISSUED	1
#define RQ_REQUEUED	2

struct rq_rec {
	struct cfqx_group_key key;
	__u64 submit_ns;
	__u64 issue_ns;
	__u32 state;		/* RQ_* */
	__u32 dir;
	__u32 gidx;		/* index of the group in "groups" */
	__u32 pad;
};

struct rq_slot {
	__u64 rq;		/* owner; 0 = free */
	struct rq_rec rec;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CFQX_SLOTS);
	__type(key, __u32);
	__type(value, struct rq_slot);
} rqslots SEC(".maps");

/* Requests whose slot was taken: never evicted, overflow is counted. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CFQX_MAX_INFLIGHT);
	__type(key, __u64);
	__type(value, struct rq_rec);
} inflight SEC(".maps");

/* Last good policy and the group_by last seen (+1; 0 = none yet). */
struct cfqx_policy last_good_policy = CFQX_POLICY_DEFAULT;
__u32 seen_group_by;
struct cfqx_ratelimit policy_rl;	/* policy events have no group */


static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += 1;	/* per-CPU: no atomics needed */
}

static __always_inline void read_policy(struct cfqx_policy *out)
{
	__u32 zero = 0;
	struct cfqx_policy *p = bpf_map_lookup_elem(&policy, &zero);

	if (!p || cfqx_policy_is_zero(p)) {
		struct cfqx_policy def = CFQX_POLICY_DEFAULT;

		*out = def;
		return;
	}
	if (cfqx_policy_check(p)) {
		stat_inc(CFQX_STAT_BAD_POLICY);
		*out = last_good_policy;
		return;
	}
	*out = *p;
	if (last_good_policy.group_by != p->group_by ||
	    last_good_policy.quantum != p->quantum ||
	    last_good_policy.fifo_expire_sync != p->fifo_expire_sync ||
	    last_good_policy.fifo_expire_async != p->fifo_expire_async ||
	    last_good_policy.back_seek_max != p->back_seek_max ||
	    last_good_policy.back_seek_penalty != p->back_seek_penalty ||
	    last_good_policy.event_rate != p->event_rate)
		last_good_policy = *p;
}

static __always_inline bool dev_wanted(__u32 dev)
{
	int i;

	if (!nr_filter_devs)
		return true;
	for (i = 0; i < CFQX_MAX_FILTER_DEVS; i++) {
		if (i >= nr_filter_devs)
			break;
		if (filter_devs[i] == dev)
			return true;
	}
	return false;
}

static __always_inline __u32 disk_dev(struct gendisk *disk)
{
	if (!disk)
		return 0;
	return CFQX_MKDEV(disk->major, disk->first_minor);
}

static __always_inline __u32 bio_dev(struct bio *bio)
{
	return disk_dev(bio->bi_bdev->bd_disk);
}

static __always_inline __u32 rq_dev(struct request *rq)
{
	return disk_dev(rq->q->disk);
}

static __always_inline bool opf_is_sync(__u32 opf)
{
	__u32 sync_bits;

	if ((opf & REQ_OP_MASK_BITS) == 0)	/* REQ_OP_READ */
		return true;
	sync_bits = (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)) |
		(1U << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)) |
		(1U << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH));
	return opf & sync_bits;
}

static __always_inline struct cfqx_dev_stats *get_dev(__u32 dev)
{
	__u32 h = cfqx_dev_slot(dev, CFQX_MAX_DEVICES), idx, i;
	struct cfqx_dev_stats *d;

	for (i = 0; i < CFQX_DEV_PROBES; i++) {
		idx = (h + i) & (CFQX_MAX_DEVICES - 1);
		d = bpf_map_lookup_elem(&devstats, &idx);
		if (!d)
			return NULL;
		if (d->dev == dev)
			return d;
		if (!d->dev && (__sync_val_compare_and_swap(&d->dev, 0, dev) == 0 ||
				d->dev == dev))
			return d;
	}
	stat_inc(CFQX_STAT_DEVICES_FULL);
	return NULL;
}
static __always_inline struct cfqx_group_stats *group_at(__u32 idx)
{
	return bpf_map_lookup_elem(&groups, &idx);
}

/* Find or claim the entry of @key; its index goes to *@idx. */
static __always_inline struct cfqx_group_stats *
get_group(struct cfqx_group_key *key, __u64 now, __u32 *idx)
{
	__u64 h = cfqx_group_hash(key), old;
	struct cfqx_group_stats *g;
	__u32 i, at;

	for (i = 0; i < CFQX_GROUP_PROBES; i++) {
		at = cfqx_group_probe(h, i, CFQX_MAX_GROUPS);
		g = group_at(at);
		if (!g)
			return NULL;
		if (g->slot_hash == h)
			goto found;
		if (g->slot_hash)
			continue;
		old = __sync_val_compare_and_swap(&g->slot_hash, 0, h);
		if (old == 0) {
			g->key = *key;
			g->first_seen_ns = now;
			goto found;
		}
		if (old == h)
			goto found;
	}
	stat_inc(CFQX_STAT_GROUPS_FULL);
	return NULL;
found:
	*idx = at;
	return g;
}

/*
 * Emit one event, rate limited per (device, group, kind) by @rl, the
 * group's limiter for this kind (updates race benignly between CPUs).
 */
static __always_inline void emit(__u32 kind, struct cfqx_group_key *key,
				 struct cfqx_ratelimit *rl,
				 __u64 value, __u64 value2, __u32 rate,
				 const char *comm, __u64 now)
{
	struct cfqx_event *e;
	__u64 suppressed;

	if (!cfqx_ratelimit_allow(rl, now, rate)) {
		stat_inc(CFQX_STAT_RATELIMITED);
		return;
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		rl->suppressed++;	/* reported with the next one */
		stat_inc(CFQX_STAT_RB_DROPS);
		return;
	}
	suppressed = rl->suppressed;
	rl->suppressed = 0;
	e->kind = kind;
	e->size = sizeof(*e);
	e->dev = key->dev;
	e->ts_ns = now;
	e->group_by = key->group_by;
	e->flags = key->flags;
	e->id = key->id;
	e->value = value;
	e->value2 = value2;
	e->suppressed = suppressed;
	if (comm)
		__builtin_memcpy(e->comm, comm, sizeof(e->comm));
	else
		__builtin_memset(e->comm, 0, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
	stat_inc(CFQX_STAT_EVENTS);
}

/* A policy switch is noticed by the first classification under it. */
static __always_inline void check_switch(struct cfqx_policy *pol, __u64 now)
{
	__u32 want = pol->group_by + 1, old = seen_group_by;
	struct cfqx_group_key none = {};

	if (old == want)
		return;
	if (__sync_val_compare_and_swap(&seen_group_by, old, want) != old)
		return;
	if (!old)
		return;		/* first request since load: no switch */
	emit(CFQX_EV_POLICY, &none, &policy_rl, old - 1, pol->group_by,
	     pol->event_rate, NULL, now);
}

/* The submitting task's group under @pol; in submitter context only. */
static __always_inline void classify(struct cfqx_policy *pol, __u32 dev,
				     struct cfqx_group_key *key)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pid *pgrp;

	key->dev = dev;
	key->group_by = pol->group_by;
	key->flags = 0;
	if (task->flags & PF_KTHREAD_FLAG) {
		/* flusher writeback and other kernel threads: own group */
		key->flags = CFQX_GF_KTHREAD;
		key->id = bpf_get_current_pid_tgid() >> 32;
		return;
	}
	switch (pol->group_by) {
	case CFQX_BY_PGID:
		pgrp = BPF_CORE_READ(task, signal, pids[bpf_core_enum_value(
			enum pid_type, PIDTYPE_PGID)]);
		key->id = pgrp ? BPF_CORE_READ(pgrp, numbers[0].nr) : 0;
		break;
	case CFQX_BY_UID:
		key->id = (__u32)bpf_get_current_uid_gid();
		break;
	case CFQX_BY_GID:
		key->id = bpf_get_current_uid_gid() >> 32;
		break;
	case CFQX_BY_CGROUP:
		key->id = bpf_get_current_cgroup_id();
		break;
	default:
		key->id = bpf_get_current_pid_tgid() >> 32;
		break;
	}
}

/* Scratch word to turn a kernel pointer into a plain number. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} scratch SEC(".maps");

/*
 * The verifier forbids arithmetic on pointers; a pointer stored in a map
 * value (allowed for privileged programs) reads back as a number.
 */
static __always_inline __u64 ptr_num(const void *p)
{
	__u32 zero = 0;
	volatile __u64 *w = bpf_map_lookup_elem(&scratch, &zero);

	if (!w)
		return 0;
	*w = (__u64)p;
	return *w;
}

/* Slot of a pointer (as a number) in the direct-mapped arrays. */
static __always_inline __u32 ptr_slot(__u64 p)
{
	return ((p >> 6) ^ (p >> 18) ^ (p >> 30)) & (CFQX_SLOTS - 1);
}

/* Remember @rec as the creator record of @bio. */
static __always_inline void bio_store(__u64 bio, struct bio_rec *rec)
{
	__u32 idx = ptr_slot(bio);
	struct bio_slot *s = bpf_map_lookup_elem(&bioslots, &idx);

	__u64 old;

	if (s) {
		/*
		 * Free, or a stale record of this very pointer (a bio never
		 * issued, then reused): ours.  A slot held by another bio is
		 * never taken over: its owner may be writing it right now.
		 */
		old = __sync_val_compare_and_swap(&s->bio, 0, bio);
		if (old == 0 || old == bio) {
			s->rec = *rec;
			return;
		}
	}
	bpf_map_update_elem(&bios, &bio, rec, BPF_ANY);
}

/* Find @bio's creator record; with @take, also forget it. */
static __always_inline bool bio_find(__u64 bio, struct bio_rec *out,
				     bool take)
{
	__u32 idx = ptr_slot(bio);
	struct bio_slot *s = bpf_map_lookup_elem(&bioslots, &idx);
	struct bio_rec *r;

	if (s && s->bio == bio) {
		*out = s->rec;
		if (take)
			__sync_val_compare_and_swap(&s->bio, bio, 0);
		return true;
	}
	r = bpf_map_lookup_elem(&bios, &bio);
	if (!r)
		return false;
	*out = *r;
	if (take)
		bpf_map_delete_elem(&bios, &bio);
	return true;
}

/*
 * Remember @rec as the in-flight record of @rq: 0 done, 1 a record of @rq
 * is there already (stale: drop it and retry), -1 no room.
 */
static __always_inline int rq_store(__u64 rq, struct rq_rec *rec)
{
	__u32 idx = ptr_slot(rq);
	struct rq_slot *s = bpf_map_lookup_elem(&rqslots, &idx);
	__u64 old;
	long err;

	if (s) {
		old = __sync_val_compare_and_swap(&s->rq, 0, rq);
		if (old == 0) {
			s->rec = *rec;
			return 0;
		}
		if (old == rq)
			return 1;	/* a stale record of this request */
	}
	err = bpf_map_update_elem(&inflight, &rq, rec, BPF_NOEXIST);
	if (!err)
		return 0;
	return err == -EEXIST_ERRNO ? 1 : -1;
}

/* The in-flight record of @rq, in place (slot or hash), or NULL. */
static __always_inline struct rq_rec *rq_find(__u64 rq)
{
	__u32 idx = ptr_slot(rq);
	struct rq_slot *s = bpf_map_lookup_elem(&rqslots, &idx);

	if (s && s->rq == rq)
		return &s->rec;
	return bpf_map_lookup_elem(&inflight, &rq);
}

static __always_inline void rq_forget(__u64 rq)
{
	__u32 idx = ptr_slot(rq);
	struct rq_slot *s = bpf_map_lookup_elem(&rqslots, &idx);

	if (s && s->rq == rq) {
		__sync_val_compare_and_swap(&s->rq, rq, 0);
		return;
	}
	bpf_map_delete_elem(&inflight, &rq);
}

/* getrq and the bio merges fire only on blk-mq devices: no queue check */
static __always_inline bool bio_wanted(struct bio *bio, __u32 *dev)
{
	*dev = bio_dev(bio);
	return dev_wanted(*dev);
}

/* The group got one more pending request: maybe it became busy. */
static __always_inline void group_busy(struct cfqx_group_stats *g,
				       struct cfqx_group_key *key,
				       struct cfqx_policy *pol, __u64 submit_ns,
				       __u64 now)
{
	struct cfqx_dev_stats *d;

	if (__sync_fetch_and_add(&g->pending, 1) != 0)
		return;
	g->oldest_queued_ns = submit_ns;
	/* the submitter that woke the group up (getrq runs in its context) */
	bpf_get_current_comm(g->comm, sizeof(g->comm));
	d = get_dev(key->dev);
	if (d) {
		g->busy_share_base = d->share_milli;
		/* back within slice_idle: the same turn (CFQ anticipation) */
		if (!cfqx_period_continues(g->idle_at_ns, now,
					   pol->slice_idle)) {
			g->period_share_base = d->share_milli;
			g->busy_issued = 0;
		}
		__sync_fetch_and_add(&d->busy_groups, 1);
	}
	emit(CFQX_EV_BUSY, key, &g->rl[CFQX_EV_BUSY], 0, 0, pol->event_rate,
	     g->comm, now);
}

/* The group has one pending request less: maybe it became idle. */
static __always_inline void group_unbusy(struct cfqx_group_stats *g,
					 struct cfqx_group_key *key, __u64 now)
{
	struct cfqx_dev_stats *d;
	struct cfqx_policy pol;
	__u64 share;

	if (__sync_fetch_and_add(&g->pending, -1) != 1)
		return;
	read_policy(&pol);
	g->oldest_queued_ns = 0;
	g->idle_at_ns = now;
	d = get_dev(key->dev);
	if (d) {
		share = d->share_milli;
		if (share > g->busy_share_base)
			__sync_fetch_and_add(&g->entitled_milli,
					     share - g->busy_share_base);
		if (d->busy_groups)
			__sync_fetch_and_add(&d->busy_groups, -1);
	}
	emit(CFQX_EV_IDLE, key, &g->rl[CFQX_EV_IDLE], 0, 0, pol.event_rate,
	     g->comm, now);
}

SEC("tp_btf/block_getrq")
int BPF_PROG(cfqx_getrq, struct bio *bio)
{
	struct cfqx_group_stats *g;
	struct bio_rec rec = {};
	struct cfqx_policy pol;
	__u32 dev;
	__u64 now;

	if (!bio_wanted(bio, &dev))
		return 0;
	now = bpf_ktime_get_ns();
	read_policy(&pol);
	check_switch(&pol, now);
	classify(&pol, dev, &rec.key);
	rec.submit_ns = now;
	rec.sync = opf_is_sync(bio->bi_opf);
	rec.flags = BIO_CREATOR;
	g = get_group(&rec.key, now, &rec.gidx);
	if (!g)
		return 0;
	g->last_active_ns = now;
	bio_store(ptr_num(bio), &rec);
	group_busy(g, &rec.key, &pol, now, now);
	return 0;
}

static __always_inline int bio_merged(struct bio *bio)
{
	struct cfqx_group_key key;
	struct cfqx_group_stats *g;
	struct cfqx_policy pol;
	__u32 dev, idx;

	if (!bio_wanted(bio, &dev))
		return 0;
	read_policy(&pol);
	classify(&pol, dev, &key);
	g = get_group(&key, bpf_ktime_get_ns(), &idx);
	if (g)
		__sync_fetch_and_add(&g->merges, 1);
	return 0;
}

SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(cfqx_bio_backmerge, struct bio *bio)
{
	return bio_merged(bio);
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(cfqx_bio_frontmerge, struct bio *bio)
{
	return bio_merged(bio);
}

/* @next is folded into another request and freed without being issued. */
SEC("tp_btf/block_rq_merge")
int BPF_PROG(cfqx_rq_merge, struct request *next)
{
	struct bio *bio = next->bio;
	struct cfqx_group_stats *g;
	struct bio_rec rec;
	int i;

	for (i = 0; i < CFQX_MAX_BIO_WALK && bio; i++) {
		if (bio_find(ptr_num(bio), &rec, true)) {
			g = group_at(rec.gidx);
			if (!g)
				return 0;
			__sync_fetch_and_add(&g->merges, 1);
			group_unbusy(g, &rec.key, bpf_ktime_get_ns());
			return 0;
		}
		bio = bio->bi_next;
	}
	return 0;
}

/* Charge a dispatch: queue time, deadline, starvation, seek, budget. */
static __always_inline void charge_issue(struct request *rq,
					 struct rq_rec *rec,
					 struct cfqx_group_stats *g,
					 struct cfqx_policy *pol, bool sync,
					 __u64 now)
{
	struct cfqx_dev_stats *d = get_dev(rec->key.dev);
	__u64 waited = now - rec->submit_ns, dist, sector, entitled;
	__u64 deadline = cfqx_fifo_expire_ns(pol, sync);
	__u64 busy, share, issued;
	enum cfqx_seek seek;
	__u32 slot;

	__sync_fetch_and_add(&g->issued, 1);
	slot = cfqx_hist_slot(waited);
	if (slot < CFQX_HIST_SLOTS)
		__sync_fetch_and_add(&g->qtime_hist[slot], 1);
	__sync_fetch_and_add(&g->qtime_sum_ns, waited);

	if (waited > deadline) {
		__sync_fetch_and_add(&g->deadline_miss[rec->dir & 1], 1);
		emit(CFQX_EV_DEADLINE, &rec->key, &g->rl[CFQX_EV_DEADLINE],
		     waited - deadline, rec->dir, pol->event_rate, g->comm,
		     now);
	}
	if (!d)
		return;

	busy = d->busy_groups;
	/* starved: waited past the sync deadline while others were busy */
	if (busy > 1 && waited > cfqx_fifo_expire_ns(pol, true)) {
		__sync_fetch_and_add(&g->starved, 1);
		emit(CFQX_EV_STARVED, &rec->key, &g->rl[CFQX_EV_STARVED],
		     waited, busy, pol->event_rate, g->comm, now);
	}

	sector = rq->__sector;
	seek = cfqx_seek_class(d->last_end_sector, sector,
			       cfqx_back_max_sectors(pol),
			       pol->back_seek_penalty, &dist);
	if (seek < CFQX_SEEKS)
		__sync_fetch_and_add(&g->seeks[seek], 1);
	d->last_end_sector = sector + (rq->__data_len >> CFQX_SECTOR_SHIFT);

	if (!busy)
		busy = 1;
	share = __sync_fetch_and_add(&d->share_milli,
				     cfqx_dispatch_share_milli(busy)) +
		cfqx_dispatch_share_milli(busy);
	/* within the current busy period: a CFQ queue's turn */
	issued = __sync_fetch_and_add(&g->busy_issued, 1) + 1;
	entitled = cfqx_group_entitled_milli(0, g->period_share_base, share,
					     true);
	if (cfqx_over_budget(issued, entitled, pol->quantum)) {
		__sync_fetch_and_add(&g->over_budget, 1);
		emit(CFQX_EV_OVER_BUDGET, &rec->key,
		     &g->rl[CFQX_EV_OVER_BUDGET], issued * 1000 - entitled,
		     busy, pol->event_rate, g->comm, now);
	}
}

/* A request with no creator bio we know: requeued (same owner) or not
 * ours (allocated before load, passthrough). */
static __always_inline int reissue(__u64 rkey)
{
	struct cfqx_group_stats *g;
	struct rq_rec *rec = rq_find(rkey);

	if (!rec || rec->state != RQ_REQUEUED) {
		stat_inc(CFQX_STAT_UNMATCHED);
		return 0;
	}
	rec->state = RQ_ISSUED;
	rec->issue_ns = bpf_ktime_get_ns();
	g = group_at(rec->gidx);
	if (g)
		__sync_fetch_and_add(&g->issued, 1);
	return 0;
}

/* @rq is issued again without a completion we saw: drop the old record. */
static __always_inline void drop_stale(__u64 rkey, __u64 now)
{
	struct cfqx_group_stats *og;
	struct rq_rec *old = rq_find(rkey);

	if (!old)
		return;
	stat_inc(CFQX_STAT_UNMATCHED);
	og = group_at(old->gidx);
	if (og) {
		__sync_fetch_and_add(&og->lost, 1);
		group_unbusy(og, &old->key, now);
	}
	rq_forget(rkey);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(cfqx_rq_issue, struct request *rq)
{
	struct bio *bio = rq->bio;
	__u64 rkey = ptr_num(rq), now;
	struct rq_rec fresh = {};
	struct cfqx_group_stats *g;
	struct cfqx_policy pol;
	struct bio_rec owner;
	bool found = false;
	int i, ret;

	if (!bio)
		return 0;	/* no data: flush or passthrough */
	if (!dev_wanted(rq_dev(rq)))
		return 0;

	/* the owner is the bio that created the request (getrq) */
	for (i = 0; i < CFQX_MAX_BIO_WALK && bio; i++) {
		if (bio_find(ptr_num(bio), &owner, true)) {
			found = true;
			break;
		}
		bio = bio->bi_next;
	}
	if (!found)
		return reissue(rkey);

	now = bpf_ktime_get_ns();
	read_policy(&pol);
	g = group_at(owner.gidx);
	if (!g)
		return 0;
	fresh.key = owner.key;
	fresh.gidx = owner.gidx;
	fresh.submit_ns = owner.submit_ns;
	fresh.issue_ns = now;
	fresh.state = RQ_ISSUED;
	fresh.dir = rq->cmd_flags & 1;	/* op_is_write() */
	ret = rq_store(rkey, &fresh);
	if (ret > 0) {
		drop_stale(rkey, now);
		ret = rq_store(rkey, &fresh);
	}
	if (ret) {
		stat_inc(CFQX_STAT_INFLIGHT_FULL);
		group_unbusy(g, &fresh.key, now);
		return 0;
	}
	charge_issue(rq, &fresh, g, &pol, owner.sync, now);
	return 0;
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(cfqx_rq_requeue, struct request *rq)
{
	struct cfqx_group_stats *g;
	struct rq_rec *rec = rq_find(ptr_num(rq));

	if (!rec || rec->state != RQ_ISSUED)
		return 0;	/* not issued yet: its creator bio is known */
	rec->state = RQ_REQUEUED;
	g = group_at(rec->gidx);
	if (g)
		__sync_fetch_and_add(&g->requeues, 1);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(cfqx_rq_complete, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	__u64 rkey = ptr_num(rq), now, service, lat, epoch;
	struct cfqx_group_stats *g;
	struct cfqx_dev_stats *d;
	struct rq_rec *found, rec;
	bool last;
	__u32 dev, dir, slot;

	/* blk_update_request() traces before it consumes nr_bytes */
	last = nr_bytes >= rq->__data_len;
	dir = rq->cmd_flags & 1;	/* op_is_write() */
	found = rq_find(rkey);
	if (found) {
		rec = *found;
		dev = rec.key.dev;
	} else {
		if (!rq->bio && !nr_bytes)
			return 0;	/* flush machinery, not data */
		dev = rq_dev(rq);
		if (!dev_wanted(dev))
			return 0;
	}
	d = get_dev(dev);
	if (d) {
		__sync_fetch_and_add(&d->bytes[dir], nr_bytes);
		if (last) {
			__sync_fetch_and_add(&d->rqs[dir], 1);
			if (!found)
				__sync_fetch_and_add(&d->untracked_rqs, 1);
		}
	}
	if (!found) {
		if (last)
			stat_inc(CFQX_STAT_UNMATCHED);
		return 0;
	}
	if (last)
		rq_forget(rkey);
	g = group_at(rec.gidx);
	if (!g)
		return 0;
	__sync_fetch_and_add(&g->bytes[dir], nr_bytes);
	if (error)
		__sync_fetch_and_add(&g->errors, 1);
	if (!last)
		return 0;

	now = bpf_ktime_get_ns();
	__sync_fetch_and_add(&g->rqs[dir], 1);
	service = now - rec.issue_ns;
	slot = cfqx_hist_slot(service);
	if (slot < CFQX_HIST_SLOTS)
		__sync_fetch_and_add(&g->stime_hist[slot], 1);
	__sync_fetch_and_add(&g->stime_sum_ns, service);
	lat = now - rec.submit_ns;
	if (lat > g->max_lat_ns)
		g->max_lat_ns = lat;
	/* CFQ v2 service_used: decay whole periods, then charge */
	epoch = cfqx_epoch(now);
	if (g->service_epoch != epoch) {
		g->service_used_ns = cfqx_service_decay(g->service_used_ns,
							g->service_epoch,
							epoch);
		g->service_epoch = epoch;
	}
	__sync_fetch_and_add(&g->service_used_ns, service);
	group_unbusy(g, &rec.key, now);
	return 0;
}
