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
 * (struct request *, blk_status_t, unsigned int); and, in the object
 * `cfqx load` embeds, block_io_start (struct request *, 6.5+), chosen at
 * load time from BTF.  The programs are defined (and attached, by cfqx
 * load and by bpftool's autoattach, which go in object order) completion
 * first and the start hook last: a request whose start was seen is then
 * always seen issued and completed, and requests that started before the
 * load are untracked (counted), never left pending.
 *
 * Lifecycle of one request (started at getrq; with block_io_start the
 * record is the request's from its start, in state STARTED, issue finds
 * it by the request and nothing walks bios):
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
 *               last part the request, service time and latency.  A
 *               request the flush machinery sequences (PREFLUSH/FUA data
 *               on a write-back cache) completes twice: once for the data
 *               while rq->end_io is mq_flush_data_end_io (bytes only),
 *               then for good with 0 bytes.  One never issued (an empty
 *               flush: the machinery issues its own flush request; or
 *               ended on an error before dispatch) is found by its
 *               creator bio at completion and closed there.
 *
 * Every record that can never close (its request vanished without a
 * completion we could see) is retired when its slot or key is reused,
 * or by the reaper (a timer, once a second) when its request reads idle,
 * with the group's pending count given back, and counted (stale_retired,
 * the group's lost).  A group's pending count and its busy/idle edges
 * change under its spin lock, which shares a cache line with the count.
 * The counters every request moves are per CPU (gcounts, dcounts),
 * summed by user space; a recycled group's copies restart from a base
 * (gbase), so nothing is cleared under a CPU that counts.
 *
 * Records live in direct-mapped arrays indexed by a hash of the pointer,
 * claimed with a compare-and-swap (no locks, no allocation on the hot
 * path); a record whose slot is taken goes to a hash map instead (plain
 * hashes, never evicting a live record; overflow is counted).
 * block_bio_queue is not hooked: getrq sees every request's first bio in
 * the same context, one program run cheaper; queue time is therefore
 * measured from request allocation.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <cfqx/cfq.h>
#include "cfqx_shared.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define CFQX_MAX_GROUPS		8192
#define CFQX_MAX_BIOS		16384
#define CFQX_MAX_INFLIGHT	16384
#define CFQX_MAX_DEVICES	256
#define CFQX_BIO_WALK_INLINE	4	/* bios searched inline for the creator */
#define CFQX_BIO_WALK_MAX	65536	/* then with bpf_loop: > any request's
					 * bio count (nr_phys_segments is u16) */
#define CFQX_CAS_TRIES		16
#define CFQX_MAX_CPUS		8192	/* bound of the per-CPU fold loop */
#define CFQX_SHARE_TAB		64	/* 1000 / busy tabulated up to this */

#define PF_KTHREAD_FLAG		0x00200000	/* include/linux/sched.h */
#define EEXIST_ERRNO		17		/* include/uapi/asm-generic/errno-base.h */
#define REQ_OP_MASK_BITS	0xff		/* REQ_OP_BITS == 8 */
#define CLOCK_MONOTONIC		1		/* include/uapi/linux/time.h */

/*
 * The flush machinery's data completion handler: while rq->end_io is
 * this, a completion is the data part of a PREFLUSH/FUA sequence and the
 * request completes again later.  Resolved at load time from kallsyms; 0
 * (weak) where the kernel has no such function.
 */
extern const void mq_flush_data_end_io __ksym __weak;

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
 * Sizes set by `cfqx load` from its memory budget (the defaults are the
 * object's own, as bpftool loads it): the groups table has group_mask + 1
 * entries (a power of 2), then one retired bucket per devstats slot.
 */
const volatile __u32 group_mask = CFQX_MAX_GROUPS - 1;
/* An idle group older than this is recycled before a free entry is used. */
const volatile __u64 recycle_age_ns = 300 * CFQX_NSEC_PER_SEC;
/* A creator record this old, its request neither issued nor completed
 * where cfqx could see it, is retired by the reaper (`cfqx load
 * --orphan-age`). */
const volatile __u64 orphan_age_ns = CFQX_DEF_ORPHAN_AGE_S * CFQX_NSEC_PER_SEC;
/*
 * Which hook starts a request's record (`cfqx load` sets it from BTF, or
 * from --start-hook): 0, getrq (a creator record under the bio, carried
 * to the request at issue; every kernel, and bpftool's load); 1,
 * block_io_start (6.5+: the record is the request's from the start, in
 * the submitter's context, so issue finds it by the request and there is
 * no bio hop).  A constant: the verifier drops the other hook's paths.
 */
const volatile __u32 start_at_io_start = 0;

/*
 * Open-addressed by cfqx_group_hash() of the key (kept in the value):
 * found once per request at getrq, then reached by index, an inlined
 * array lookup.  A group keeps its history while it has I/O and for a
 * while after, like CFQ v2's per-process queues; an idle one is recycled
 * by age or when its probe chain is full, its totals folded into its
 * device's retired bucket (CFQX_GF_RETIRED) first.  A chain of busy
 * groups only is counted (groups_full), never fatal.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CFQX_MAX_GROUPS + CFQX_MAX_DEVICES);
	__type(key, __u32);
	__type(value, struct cfqx_group_stats);
} groups SEC(".maps");

/*
 * Per group (same index): the lock that its identity (slot_hash, key),
 * its pending count with the busy/idle bookkeeping, and its recycling
 * are changed under.  Counters of a group with pending requests are
 * plain atomics: it cannot be recycled then.
 */
struct group_lock {
	struct bpf_spin_lock lock;
	__u32 folding;		/* its counters go to the retired bucket */
	__u64 pending;		/* as struct cfqx_group_lock: beside its
				 * lock, so that getrq and completion
				 * (often on two CPUs) move one line */
	__u32 dslot;		/* its device's devstats slot */
	__u32 pad32;
	__u64 pad[5];		/* a line each: no false sharing */
};

_Static_assert(sizeof(struct group_lock) == sizeof(struct cfqx_group_lock) &&
	       __builtin_offsetof(struct group_lock, pending) ==
	       __builtin_offsetof(struct cfqx_group_lock, pending) &&
	       __builtin_offsetof(struct group_lock, folding) ==
	       __builtin_offsetof(struct cfqx_group_lock, folding) &&
	       __builtin_offsetof(struct group_lock, dslot) ==
	       __builtin_offsetof(struct cfqx_group_lock, dslot),
	       "struct group_lock is struct cfqx_group_lock");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CFQX_MAX_GROUPS + CFQX_MAX_DEVICES);
	__type(key, __u32);
	__type(value, struct group_lock);
} glocks SEC(".maps");

/*
 * The counters every request moves, per CPU (same index as "groups"),
 * summed by user space: no cache line is shared between CPUs on the hot
 * path.  Never cleared: a recycled group's counters restart from the
 * base in gbase (see fold_cpu()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CFQX_MAX_GROUPS + CFQX_MAX_DEVICES);
	__type(key, __u32);
	__type(value, struct cfqx_group_counts);
} gcounts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CFQX_MAX_GROUPS + CFQX_MAX_DEVICES);
	__type(key, __u32);
	__type(value, struct cfqx_group_counts);
} gbase SEC(".maps");

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

/* Per-CPU completion counters of each devstats entry (same index). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CFQX_MAX_DEVICES);
	__type(key, __u32);
	__type(value, struct cfqx_dev_counts);
} dcounts SEC(".maps");

/*
 * The last good policy (the defaults for an all-zero map value), written
 * whole under its lock where requests start (policy_sync()); issue and
 * completion read single fields of it without the lock.  gen counts its
 * changes (read without the lock by policy_sync()'s fast path).
 */
struct good_policy {
	struct bpf_spin_lock lock;
	__u32 valid;
	struct cfqx_policy pol;
	__u64 gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct good_policy);
} goodpol SEC(".maps");

/*
 * The last good policy and its gen as the programs read them: copies of
 * goodpol's, written under its lock, read without it (a global: no map
 * lookup).  Zero until the first request starts.
 */
struct cfqx_policy live_policy;
__u64 live_gen;

#define BIO_CREATOR	0x1	/* this bio started its request (getrq) */

struct bio_rec {
	struct cfqx_group_key key;
	__u64 submit_ns;
	__u32 flags;		/* BIO_* */
	__u32 sync;
	__u32 gidx;		/* index of the group in "groups" */
	__u32 dslot;		/* index of its device in "devstats" */
};

#define CFQX_SLOTS		4096	/* direct-mapped records */

/* A slot being written: published (its bio stored) only once its record
 * is complete, since the reaper reads slots from other CPUs. */
#define BIO_SLOT_CLAIMED	1

/* One cache line each: a record moves between CPUs as one line. */
struct bio_slot {
	__u64 bio;		/* owner; 0 = free, BIO_SLOT_CLAIMED */
	struct bio_rec rec;
	__u64 pad[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CFQX_SLOTS);
	__type(key, __u32);
	__type(value, struct bio_slot);
} bioslots SEC(".maps");

/*
 * Creator records whose slot was taken.  A plain hash: nothing live is
 * ever evicted; a stale record is retired when its bio pointer comes
 * back, and a full map is counted (bios_full).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CFQX_MAX_BIOS);
	__type(key, __u64);
	__type(value, struct bio_rec);
} bios SEC(".maps");

#define RQ_ISSUED	1
#define RQ_REQUEUED	2
#define RQ_STARTED	3	/* block_io_start seen, not issued yet */
#define RQ_REAPED	4	/* STARTED, being retired by age */

struct rq_rec {
	struct cfqx_group_key key;
	__u64 submit_ns;
	__u64 issue_ns;
	__u32 state;		/* RQ_* */
	__u32 dir;
	__u32 gidx;		/* index of the group in "groups" */
	__u32 dslot;		/* index of its device in "devstats" */
	__u64 idle_seen;	/* the reaper's walk that first found the
				 * request idle (0: not seen idle) */
};

/* As BIO_SLOT_CLAIMED: a request slot being written. */
#define RQ_SLOT_CLAIMED	1

struct rq_slot {
	__u64 rq;		/* owner; 0 = free, RQ_SLOT_CLAIMED */
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

/* The group_by last seen (+1; 0 = none yet). */
__u32 seen_group_by;
struct cfqx_ratelimit policy_rl;	/* policy events have no group */

/*
 * Which program is running: each has its own per-CPU scratch, as a
 * completion in an interrupt may nest on top of an issue on one CPU (the
 * kernel never nests a program on itself).  A program looks its scratch
 * up once per run and hands it down.
 */
enum prog_slot {
	P_COMPLETE, P_REQUEUE, P_RQ_MERGE, P_ISSUE, P_START, P_BIO_MERGE, P_NR,
};

typedef struct cfqx_policy policy_words __attribute__((aligned(8)));

struct prog_scratch {
	__u64 word;		/* ptr_num()'s */
	policy_words pol;	/* the policy map value this program
				 * last found valid (or all zero) on
				 * this CPU (pol_ok) */
	__u64 gen;		/* the last good policy's gen then */
	__u32 pol_ok;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, P_NR);
	__type(key, __u32);
	__type(value, struct prog_scratch);
} scratch SEC(".maps");

static __always_inline struct prog_scratch *scratch_of(__u32 who)
{
	return bpf_map_lookup_elem(&scratch, &who);
}

/* @v into *@p if larger, against concurrent writers (max only grows). */
static __always_inline void atomic_max(__u64 *p, __u64 v)
{
	__u64 cur = *p, old;
	int i;

	for (i = 0; i < CFQX_CAS_TRIES && v > cur; i++) {
		old = __sync_val_compare_and_swap(p, cur, v);
		if (old == cur)
			return;
		cur = old;
	}
}

/* Word by word (a policy is 6 words, CFQX_POLICY_SIZE): @a against the
 * live map value @p, each word read once. */
static __always_inline bool policy_live_same(const policy_words *a,
					     const struct cfqx_policy *p)
{
	const volatile __u64 *y = (const volatile __u64 *)p;
	const __u64 *x = (const __u64 *)a;
	int i;

	for (i = 0; i < CFQX_POLICY_SIZE / 8; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

static __always_inline bool policy_same(const struct cfqx_policy *a,
					const struct cfqx_policy *b)
{
	return a->group_by == b->group_by && a->quantum == b->quantum &&
		a->queued == b->queued && a->max_queued == b->max_queued &&
		a->fifo_expire_sync == b->fifo_expire_sync &&
		a->fifo_expire_async == b->fifo_expire_async &&
		a->fifo_batch_expire == b->fifo_batch_expire &&
		a->back_seek_max == b->back_seek_max &&
		a->back_seek_penalty == b->back_seek_penalty &&
		a->max_depth == b->max_depth &&
		a->slice_idle == b->slice_idle &&
		a->event_rate == b->event_rate;
}

/*
 * Bring the last good policy up to the live one and return it: the map
 * value copied once and checked as copied (a concurrent `bpftool map
 * update` cannot slip in between); an all-zero value (a map bpftool just
 * created) is the defaults; a bad value leaves the last good one in
 * force.  Called where a request starts (and by the merge programs);
 * issue and completion read the fields they need from the last good
 * policy as it stands (policy_in_force()), so a switch applies from the
 * next request on, one policy check per request.  A value equal word by
 * word to the one this program last found valid on this CPU (@ps),
 * while the last good one has not changed since, costs a compare in
 * place.  (Without the gen check, a CPU that saw A, then none of B,
 * then A again would leave B as the last good policy for a bad value
 * that follows.)  Returns live_policy; NULL only if the goodpol map has
 * no entry.
 */
static __always_inline struct cfqx_policy *policy_sync(struct prog_scratch *ps)
{
	struct cfqx_policy def = CFQX_POLICY_DEFAULT;
	struct good_policy *gp;
	struct cfqx_policy *p;
	policy_words raw, val;
	__u32 zero = 0;
	bool same;
	__u64 gen;

	p = bpf_map_lookup_elem(&policy, &zero);
	/* the fast path compares in place: a value read equal to the
	 * cached one is that value, however it was read */
	if (p && ps && ps->pol_ok &&
	    ps->gen == *(volatile __u64 *)&live_gen &&
	    policy_live_same(&ps->pol, p))
		return &live_policy;
	gp = bpf_map_lookup_elem(&goodpol, &zero);
	if (!gp)
		return NULL;
	if (p)
		raw = *(policy_words *)p;
	else
		raw = (policy_words){};
	val = raw;
	if (cfqx_policy_is_zero(&val)) {
		val = def;
	} else if (cfqx_policy_check(&val)) {
		stat_inc(CFQX_STAT_BAD_POLICY);
		bpf_spin_lock(&gp->lock);
		if (!gp->valid) {
			gp->pol = def;
			gp->valid = 1;
			gp->gen++;
			live_policy = def;
			live_gen = gp->gen;
		}
		bpf_spin_unlock(&gp->lock);
		return &live_policy;
	}
	bpf_spin_lock(&gp->lock);
	same = gp->valid && policy_same(&gp->pol, &val);
	if (!same) {
		gp->pol = val;
		gp->valid = 1;
		gp->gen++;
		live_policy = val;
		live_gen = gp->gen;
	}
	gen = gp->gen;
	bpf_spin_unlock(&gp->lock);
	if (ps) {
		ps->pol = raw;
		ps->gen = gen;
		ps->pol_ok = 1;
	}
	return &live_policy;
}

/*
 * The policy in force, for issue and completion: the last good one as
 * the request's start left it (policy_sync()).  Read field by field
 * without its lock: a field may be one policy's and the next field the
 * following one's, but every field read is a valid value.
 */
static __always_inline struct cfqx_policy *policy_in_force(void)
{
	return &live_policy;
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

/* The devstats entry of @dev (its index in *@slot when given). */
static __always_inline struct cfqx_dev_stats *get_dev_at(__u32 dev,
							 __u32 *slot)
{
	__u32 h = cfqx_dev_slot(dev, CFQX_MAX_DEVICES), idx, i;
	struct cfqx_dev_stats *d;

	for (i = 0; i < CFQX_DEV_PROBES; i++) {
		idx = (h + i) & (CFQX_MAX_DEVICES - 1);
		d = bpf_map_lookup_elem(&devstats, &idx);
		if (!d)
			return NULL;
		if (d->dev == dev ||
		    (!d->dev && (__sync_val_compare_and_swap(&d->dev, 0, dev) == 0 ||
				 d->dev == dev))) {
			if (slot)
				*slot = idx;
			return d;
		}
	}
	stat_inc(CFQX_STAT_DEVICES_FULL);
	return NULL;
}

/* The devstats entry at @dslot, as found at getrq: no probing. */
static __always_inline struct cfqx_dev_stats *dev_at(__u32 dslot)
{
	return bpf_map_lookup_elem(&devstats, &dslot);
}

static __always_inline struct cfqx_group_stats *group_at(__u32 idx)
{
	return bpf_map_lookup_elem(&groups, &idx);
}

/* This CPU's counters of group @idx. */
static __always_inline struct cfqx_group_counts *counts_at(__u32 idx)
{
	return bpf_map_lookup_elem(&gcounts, &idx);
}

/*
 * CADD: a counter that several programs write (one may nest on another
 * on this CPU, from an interrupt).  COWN: a counter that one program
 * alone writes; the kernel never nests a program on itself, so a plain
 * add is exact (a recycled group's counters are swapped out only while
 * the group is idle, when nothing writes them).
 */
#define CADD(c, f, v)	__sync_fetch_and_add(&(c)->f, (v))
#define COWN(c, f, v)	((c)->f += (v))

static __always_inline struct group_lock *lock_at(__u32 idx)
{
	return bpf_map_lookup_elem(&glocks, &idx);
}

/* The retired bucket of the device at devstats slot @dslot. */
static __always_inline struct cfqx_group_stats *retired_at(__u32 dev,
							   __u32 dslot,
							   __u32 *ridx)
{
	__u32 idx = group_mask + 1 + (dslot & (CFQX_MAX_DEVICES - 1));
	struct cfqx_group_stats *r = group_at(idx);

	*ridx = idx;
	if (r && !r->slot_hash) {
		/* same values from every CPU: plain stores are fine */
		r->key.dev = dev;
		r->key.group_by = 0;
		r->key.flags = CFQX_GF_RETIRED;
		r->key.id = 0;
		r->slot_hash = 1;	/* never probed: marks it in use */
	}
	return r;
}

#define FOLD(f)	__sync_fetch_and_add(&r->f, g->f)

/*
 * Fold the shared part of idle group @g into retired bucket @r and clear
 * it; under @g's lock, with no request of @g pending, so nothing else
 * writes @g.  Its per-CPU counters follow with fold_counts().
 */
static __always_inline void fold_and_clear(struct cfqx_group_stats *r,
					   struct cfqx_group_stats *g)
{
	__u64 *w = (__u64 *)g;
	int i;

	FOLD(merges);
	FOLD(entitled_milli);
	atomic_max(&r->max_lat_ns, g->max_lat_ns);
	for (i = 0; i < (int)(sizeof(*g) / sizeof(__u64)); i++)
		w[i] = 0;
}

struct fold_ctx {
	__u32 from, to;		/* gcounts indexes: group, retired bucket */
};

/*
 * What this copy gained since its base goes to the retired bucket; the
 * copy's value becomes the base.  The copy is only read: its CPU may
 * already count for the entry's new owner, with plain adds, and every
 * count lands on one side of the read.
 */
#define MOVE(f)	do {							\
	__u64 v_ = *(volatile __u64 *)&c->f;				\
									\
	__sync_fetch_and_add(&r->f, v_ - b->f);	/* no branch: fewer	\
						 * verifier states */	\
	b->f = v_;							\
} while (0)

static long fold_cpu(__u64 cpu, void *arg)
{
	struct cfqx_group_counts *c, *b, *r;
	struct fold_ctx *f = arg;
	int i;

	c = bpf_map_lookup_percpu_elem(&gcounts, &f->from, cpu);
	b = bpf_map_lookup_percpu_elem(&gbase, &f->from, cpu);
	r = bpf_map_lookup_percpu_elem(&gcounts, &f->to, cpu);
	if (!c || !b || !r)
		return 1;	/* past the last CPU */
	for (i = 0; i < CFQX_DIRS; i++) {
		MOVE(rqs[i]);
		MOVE(bytes[i]);
		MOVE(deadline_miss[i]);
	}
	MOVE(errors);
	MOVE(requeues);
	MOVE(issued);
	MOVE(lost);
	for (i = 0; i < CFQX_HIST_SLOTS; i++) {
		MOVE(qtime_hist[i]);
		MOVE(stime_hist[i]);
	}
	MOVE(qtime_sum_ns);
	MOVE(stime_sum_ns);
	for (i = 0; i < CFQX_SEEKS; i++)
		MOVE(seeks[i]);
	MOVE(starved);
	MOVE(over_budget);
	return 0;
}

/*
 * Move every CPU's counters of recycled group @from (lock @l) into
 * retired bucket @to.  After the claim, outside the lock (helpers
 * cannot run under it); @l's folding flag keeps the entry from being
 * recycled again meanwhile.
 */
static __always_inline void fold_counts(__u32 from, __u32 to,
					struct group_lock *l)
{
	struct fold_ctx f = { .from = from, .to = to };

	bpf_loop(CFQX_MAX_CPUS, fold_cpu, &f, 0);
	*(volatile __u32 *)&l->folding = 0;
}

/*
 * Find or claim the entry of @key (index in *@idx): an existing one in
 * its probe chain, else an idle one older than recycle_age_ns, else a
 * free one, else the idle one longest idle (recycled into @retired).
 * The entry may be recycled right after this returns: whoever uses it
 * takes its lock and checks slot_hash first (group_enter, count_merge).
 */
static __always_inline struct cfqx_group_stats *
get_group(struct cfqx_group_key *key, __u64 h, __u64 now, __u32 *idx,
	  __u32 dslot)
{
	__u64 sh, best_age = 0, age, vh = 0;
	__u32 i, at, victim = 0, free_at = 0, ridx = 0;
	struct cfqx_group_stats *retired = NULL;
	bool have_free = false, have_victim = false, ok;
	struct cfqx_group_stats *g;
	struct group_lock *l;

	for (i = 0; i < CFQX_GROUP_PROBES; i++) {
		at = cfqx_group_probe(h, i, group_mask + 1);
		g = group_at(at);
		if (!g)
			return NULL;
		sh = g->slot_hash;
		if (sh == h) {
			*idx = at;
			return g;
		}
		if (!sh) {
			if (!have_free)
				free_at = at;
			have_free = true;
			continue;
		}
		/*
		 * Busy: its pending count is in glocks, but oldest_queued_ns
		 * (set at the busy edge, 0 at the idle edge) says the same
		 * without a lookup per probe (6.1's verifier budget).  The
		 * claim below checks again, under the lock.
		 */
		if (g->oldest_queued_ns)
			continue;
		age = now > g->idle_at_ns ? now - g->idle_at_ns : 0;
		if (!have_victim || age > best_age) {
			victim = at;
			vh = sh;
			best_age = age;
			have_victim = true;
		}
	}
	if (have_victim && best_age > recycle_age_ns)
		have_free = false;	/* recycle the stale one instead */
	/* the device's retired bucket: only when a group is recycled */
	if (!have_free && have_victim && dslot < CFQX_MAX_DEVICES)
		retired = retired_at(key->dev, dslot, &ridx);
	at = have_free ? free_at : victim;
	if ((!have_free && (!have_victim || !retired))) {
		stat_inc(CFQX_STAT_GROUPS_FULL);
		return NULL;
	}
	g = group_at(at);
	l = lock_at(at);
	if (!g || !l)
		return NULL;
	bpf_spin_lock(&l->lock);
	sh = g->slot_hash;
	ok = sh == h;
	if (!ok && have_free && !sh) {
		g->slot_hash = h;
		ok = true;
	} else if (!ok && !have_free && retired && sh == vh &&
		   !(l->pending | l->folding)) {
		fold_and_clear(retired, g);
		l->folding = 1;
		g->slot_hash = h;
		have_victim = false;	/* now: "recycled" */
		ok = true;
	}
	if (ok && sh != h) {
		g->key = *key;
		g->first_seen_ns = now;
		g->idle_at_ns = now;
		l->dslot = dslot;
	}
	bpf_spin_unlock(&l->lock);
	if (!ok) {
		/* raced with another claim: the caller retries */
		return NULL;
	}
	if (!have_free && !have_victim) {
		fold_counts(at, ridx, l);
		stat_inc(CFQX_STAT_RECYCLED);
	}
	*idx = at;
	return g;
}

/* get_group(), once more when it raced with another claim. */
static __always_inline struct cfqx_group_stats *
find_group(struct cfqx_group_key *key, __u64 h, __u64 now, __u32 *idx,
	   __u32 dslot)
{
	struct cfqx_group_stats *g = get_group(key, h, now, idx, dslot);

	if (!g)
		g = get_group(key, h, now, idx, dslot);
	return g;
}

/*
 * May an event go out now?  Rate limited per (device, group, kind) by
 * @rl, the group's limiter for this kind (updates race benignly between
 * CPUs); a refusal is counted.
 */
static __always_inline bool may_emit(struct cfqx_ratelimit *rl, __u64 now,
				     __u32 rate)
{
	if (cfqx_ratelimit_allow(rl, now, rate))
		return true;
	stat_inc(CFQX_STAT_RATELIMITED);
	return false;
}

/* Send one event that may_emit() let through. */
static __always_inline void send_event(__u32 kind, struct cfqx_group_key *key,
				       struct cfqx_ratelimit *rl,
				       __u64 value, __u64 value2,
				       const char *comm, __u64 now)
{
	struct cfqx_event *e;
	__u64 suppressed;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		rl->suppressed++;	/* reported with the next one */
		stat_inc(CFQX_STAT_RB_DROPS);
		return;
	}
	suppressed = rl->suppressed;
	rl->suppressed = 0;
	cfqx_event_fill(e, kind, key->dev, key->group_by, key->flags, key->id,
			value, value2, suppressed, now);
	if (comm)
		__builtin_memcpy(e->comm, comm, sizeof(e->comm));
	else
		__builtin_memset(e->comm, 0, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
	stat_inc(CFQX_STAT_EVENTS);
}

/* One event, if its rate limit lets it through. */
static __always_inline void emit(__u32 kind, struct cfqx_group_key *key,
				 struct cfqx_ratelimit *rl,
				 __u64 value, __u64 value2, __u32 rate,
				 const char *comm, __u64 now)
{
	if (may_emit(rl, now, rate))
		send_event(kind, key, rl, value, value2, comm, now);
}

/* A policy switch is noticed by the first classification under it. */
static __always_inline void check_switch(__u32 group_by, __u32 rate,
					 __u64 now)
{
	__u32 want = group_by + 1, old = seen_group_by;
	struct cfqx_group_key none = {};

	if (old == want)
		return;
	if (__sync_val_compare_and_swap(&seen_group_by, old, want) != old)
		return;
	if (!old)
		return;		/* first request since load: no switch */
	emit(CFQX_EV_POLICY, &none, &policy_rl, old - 1, group_by, rate, NULL,
	     now);
}

/* The submitting task's group under @group_by; in submitter context only. */
static __always_inline void classify(__u32 group_by, __u32 dev,
				     struct cfqx_group_key *key)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pid *pgrp;

	key->dev = dev;
	key->group_by = group_by;
	key->flags = 0;
	if (task->flags & PF_KTHREAD_FLAG) {
		/* flusher writeback and other kernel threads: own group */
		key->flags = CFQX_GF_KTHREAD;
		key->id = task->tgid;
		return;
	}
	switch (group_by) {
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
		key->id = task->tgid;	/* no helper call */
		break;
	}
}

/*
 * The verifier forbids arithmetic on pointers; a pointer stored in a map
 * value (allowed for privileged programs) reads back as a number.  @ps
 * is the running program's own scratch.
 */
static __always_inline __u64 ptr_num(struct prog_scratch *ps, const void *p)
{
	volatile __u64 *w;

	if (!ps)
		return 0;
	w = &ps->word;
	*w = (__u64)p;
	return *w;
}

/* Slot of a pointer (as a number) in the direct-mapped arrays. */
static __always_inline __u32 ptr_slot(__u64 p)
{
	return ((p >> 6) ^ (p >> 18) ^ (p >> 30)) & (CFQX_SLOTS - 1);
}

/* ---- busy / idle edges ---------------------------------------------- */

__noinline int cfqx_give_back(__u32 gidx, __u32 dslot, __u64 now);

/*
 * One more pending request for group @g (getrq): false when the entry
 * is no longer @h's (recycled since it was found: look it up again).
 * On 0 -> 1 the busy-edge bookkeeping, in the same critical section.
 */
static __always_inline bool group_enter(struct cfqx_group_stats *g,
					__u32 gidx, __u64 h,
					struct cfqx_group_key *key,
					__u32 slice_idle, __u32 rate,
					struct cfqx_dev_stats *d, __u64 now)
{
	struct group_lock *l = lock_at(gidx);
	bool edge = false, named = true, send;
	__u64 share, p;
	char comm[16];	/* filled by the helper before any use */

	if (!l)
		return false;
	/*
	 * Not the first one: no edge, so no lock.  A group with pending
	 * requests is never recycled, so once ours is counted the entry
	 * stays whoever's it is now; if that is not @h's any more (it was
	 * recycled before), the count goes back to its owner.
	 */
	p = *(volatile __u64 *)&l->pending;
	if (p && __sync_val_compare_and_swap(&l->pending, p, p + 1) == p) {
		if (*(volatile __u64 *)&g->slot_hash == h) {
			g->last_active_ns = now;
			return true;
		}
		cfqx_give_back(gidx, *(volatile __u32 *)&l->dslot, now);
		return false;
	}
	bpf_spin_lock(&l->lock);
	if (g->slot_hash != h) {
		bpf_spin_unlock(&l->lock);
		return false;
	}
	g->last_active_ns = now;
	/* 0 cannot change under the lock: only locked paths leave or
	 * reach it */
	if (__sync_fetch_and_add(&l->pending, 1) == 0) {
		edge = true;
		share = d ? d->share_milli : 0;	/* only at the edge */
		g->oldest_queued_ns = now;
		g->busy_share_base = share;
		/* back within slice_idle: the same turn (CFQ anticipation) */
		if (!cfqx_period_continues(g->idle_at_ns, now, slice_idle)) {
			g->period_share_base = share;
			g->busy_issued = 0;
		}
		named = g->comm[0];
	}
	bpf_spin_unlock(&l->lock);
	if (!edge)
		return true;
	if (d)
		__sync_fetch_and_add(&d->busy_groups, 1);
	/*
	 * The group's name is the submitter that woke it up (getrq runs
	 * in its context), taken for a busy event that goes out or a group
	 * without a name yet: a busy edge per request (a one-deep reader)
	 * then costs no helper call.
	 */
	send = may_emit(&g->rl[CFQX_EV_BUSY], now, rate);
	if (send || !named) {
		bpf_get_current_comm(comm, sizeof(comm));
		bpf_spin_lock(&l->lock);
		if (g->slot_hash == h)
			__builtin_memcpy(g->comm, comm, sizeof(comm));
		bpf_spin_unlock(&l->lock);
	}
	if (send)
		send_event(CFQX_EV_BUSY, key, &g->rl[CFQX_EV_BUSY], 0, 0,
			   comm, now);
	return true;
}

/*
 * One pending request less for @g (it holds one, so @g is still its
 * group); on 1 -> 0 the idle-edge bookkeeping.
 */
static __always_inline void group_leave(struct cfqx_group_stats *g,
					__u32 gidx, __u32 dslot, __u64 now)
{
	struct group_lock *l = lock_at(gidx);
	struct cfqx_group_key key;
	struct cfqx_dev_stats *d;
	struct cfqx_policy *pol;
	__u64 share, p;
	bool edge = false;
	char comm[16];

	if (!l)
		return;
	/* not the last one: no edge, so no lock */
	p = *(volatile __u64 *)&l->pending;
	if (p >= 2 && __sync_val_compare_and_swap(&l->pending, p, p - 1) == p)
		return;
	d = dev_at(dslot);
	bpf_spin_lock(&l->lock);
	/* 0 cannot change under the lock: only locked paths leave or
	 * reach it */
	if (l->pending && __sync_fetch_and_add(&l->pending, -1) == 1) {
		edge = true;
		key = g->key;	/* the same while it had pending requests */
		g->oldest_queued_ns = 0;
		g->idle_at_ns = now;
		share = d ? d->share_milli : 0;	/* only at the edge */
		if (share > g->busy_share_base)
			g->entitled_milli += share - g->busy_share_base;
		__builtin_memcpy(comm, g->comm, sizeof(comm));
	}
	bpf_spin_unlock(&l->lock);
	if (!edge)
		return;
	if (d)
		__sync_fetch_and_add(&d->busy_groups, -1);
	pol = policy_in_force();
	emit(CFQX_EV_IDLE, &key, &g->rl[CFQX_EV_IDLE], 0, 0, pol->event_rate,
	     comm, now);
}

/*
 * A pending count taken on an entry recycled just before (group_enter()'s
 * lock-free path) goes back to the entry's owner: maybe its idle edge.
 * A global function, verified once on its own (6.1's verifier budget:
 * group_enter() is inlined on every path of the start programs).
 */
__noinline int cfqx_give_back(__u32 gidx, __u32 dslot, __u64 now)
{
	struct cfqx_group_stats *g = group_at(gidx);

	if (g)
		group_leave(g, gidx, dslot, now);
	return 0;
}

/* A bio of @key's group merged into a request. */
static __always_inline void count_merge(struct cfqx_group_stats *g,
					__u32 gidx, __u64 h)
{
	struct group_lock *l = lock_at(gidx);

	if (!l)
		return;
	bpf_spin_lock(&l->lock);
	if (g->slot_hash == h)
		g->merges++;
	bpf_spin_unlock(&l->lock);
}

/*
 * A record whose request can never complete (its pointer came back for a
 * new request, or it was issued again without a completion we saw):
 * give its pending count back and count it.  Counted as dispatched and
 * lost so that in_flight (issued - requeues - rqs - lost) stays exact.
 */
static __always_inline void retire(__u32 gidx, __u32 dslot,
				   bool was_issued, __u64 now)
{
	struct cfqx_group_stats *g = group_at(gidx);
	struct cfqx_group_counts *c = counts_at(gidx);

	stat_inc(CFQX_STAT_STALE);
	if (!g || !c)
		return;
	if (!was_issued)
		CADD(c, issued, 1);
	CADD(c, lost, 1);
	group_leave(g, gidx, dslot, now);
}

/* ---- creator (bio) records ------------------------------------------ */

/*
 * Remember @rec as the creator record of @bio; false when there is no
 * room (counted).  A record of this very pointer still there is stale
 * (that bio's request vanished unseen, then the bio was freed and
 * reused): it is retired, never silently overwritten.
 */
static __always_inline bool bio_store(__u64 bio, struct bio_rec *rec,
				      __u64 now)
{
	__u32 idx = ptr_slot(bio);
	struct bio_slot *s = bpf_map_lookup_elem(&bioslots, &idx);
	struct bio_rec *old, stale;
	long err;

	if (s) {
		/* a slot held by another bio is never taken over */
		if (__sync_val_compare_and_swap(&s->bio, 0,
						BIO_SLOT_CLAIMED) == 0) {
			s->rec = *rec;
			__sync_val_compare_and_swap(&s->bio, BIO_SLOT_CLAIMED,
						    bio);
			return true;
		}
		/* this pointer's old record, unless the reaper takes it */
		if (__sync_val_compare_and_swap(&s->bio, bio,
						BIO_SLOT_CLAIMED) == bio) {
			retire(s->rec.gidx, s->rec.dslot, false, now);
			s->rec = *rec;
			__sync_val_compare_and_swap(&s->bio, BIO_SLOT_CLAIMED,
						    bio);
			return true;
		}
	}
	err = bpf_map_update_elem(&bios, &bio, rec, BPF_NOEXIST);
	if (!err)
		return true;
	if (err == -EEXIST_ERRNO) {
		/* this pointer's old record: whoever deletes it (this, or
		 * the reaper) retires it, then the key is free */
		old = bpf_map_lookup_elem(&bios, &bio);
		if (old) {
			stale = *old;
			if (!bpf_map_delete_elem(&bios, &bio))
				retire(stale.gidx, stale.dslot, false, now);
		}
		err = bpf_map_update_elem(&bios, &bio, rec, BPF_NOEXIST);
		if (!err)
			return true;
	}
	stat_inc(CFQX_STAT_BIOS_FULL);
	return false;
}

/* Find @bio's creator record and forget it (false: none, or the reaper
 * retired it first). */
static __always_inline bool bio_take(__u64 bio, struct bio_rec *out)
{
	__u32 idx = ptr_slot(bio);
	struct bio_slot *s = bpf_map_lookup_elem(&bioslots, &idx);
	struct bio_rec *r;

	if (s && s->bio == bio) {
		*out = s->rec;
		return __sync_val_compare_and_swap(&s->bio, bio, 0) == bio;
	}
	r = bpf_map_lookup_elem(&bios, &bio);
	if (!r)
		return false;
	*out = *r;
	return bpf_map_delete_elem(&bios, &bio) == 0;
}

struct walk_ctx {
	__u64 bio;		/* next bio to look at, as a number */
	__u64 next_off;		/* offsetof(struct bio, bi_next) */
	struct bio_rec *out;
	bool found;
};

static long walk_step(__u64 i, void *arg)
{
	struct walk_ctx *c = arg;
	__u64 next = 0;

	if (!c->bio)
		return 1;
	if (bio_take(c->bio, c->out)) {
		c->found = true;
		return 1;
	}
	if (bpf_probe_read_kernel(&next, sizeof(next),
				  (void *)(c->bio + c->next_off)))
		return 1;
	c->bio = next;
	return 0;
}

/*
 * The creator of the request whose bio list starts at @bio: the bio that
 * got it at getrq, anywhere in the list (front merges put bios before
 * it).  Its record is taken.  The first bios inline, the rest with
 * bpf_loop; a list longer than that is counted (deep_walk).
 */
static __always_inline bool find_creator(struct bio *bio, struct bio_rec *out,
					 struct prog_scratch *ps)
{
	struct walk_ctx c = { .out = out };
	int i;

	for (i = 0; i < CFQX_BIO_WALK_INLINE; i++) {
		if (!bio)
			return false;
		if (bio_take(ptr_num(ps, bio), out))
			return true;
		bio = bio->bi_next;
	}
	if (!bio)
		return false;
	c.bio = ptr_num(ps, bio);
	c.next_off = bpf_core_field_offset(struct bio, bi_next);
	bpf_loop(CFQX_BIO_WALK_MAX, walk_step, &c, 0);
	if (c.found)
		return true;
	if (c.bio)
		stat_inc(CFQX_STAT_DEEP_WALK);
	return false;
}

/* ---- in-flight (request) records ------------------------------------ */

/*
 * Remember @rec as the in-flight record of @rq: 0 done, 1 a record of @rq
 * is there already (stale: retire it and retry), -1 no room.
 */
static __always_inline int rq_store(__u64 rq, struct rq_rec *rec)
{
	__u32 idx = ptr_slot(rq);
	struct rq_slot *s = bpf_map_lookup_elem(&rqslots, &idx);
	__u64 old;
	long err;

	if (s) {
		/* published only once written: the reaper reads slots */
		old = __sync_val_compare_and_swap(&s->rq, 0, RQ_SLOT_CLAIMED);
		if (old == 0) {
			s->rec = *rec;
			__sync_val_compare_and_swap(&s->rq, RQ_SLOT_CLAIMED, rq);
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

/*
 * The in-flight record of @rq, in place (slot or hash), or NULL; *@at is
 * its slot (NULL: hashed), for rq_forget_at().
 */
static __always_inline struct rq_rec *rq_find_at(__u64 rq, struct rq_slot **at)
{
	__u32 idx = ptr_slot(rq);
	struct rq_slot *s = bpf_map_lookup_elem(&rqslots, &idx);

	if (s && s->rq == rq) {
		*at = s;
		return &s->rec;
	}
	*at = NULL;
	return bpf_map_lookup_elem(&inflight, &rq);
}

static __always_inline struct rq_rec *rq_find(__u64 rq)
{
	struct rq_slot *at;

	return rq_find_at(rq, &at);
}

/* As rq_forget(), for a record rq_find_at() found at @at. */
static __always_inline bool rq_forget_at(__u64 rq, struct rq_slot *at)
{
	if (at)
		return __sync_val_compare_and_swap(&at->rq, rq, 0) == rq;
	return bpf_map_delete_elem(&inflight, &rq) == 0;
}

/* Forget @rq's record; true when this caller removed it (one wins). */
static __always_inline bool rq_forget(__u64 rq)
{
	__u32 idx = ptr_slot(rq);
	struct rq_slot *s = bpf_map_lookup_elem(&rqslots, &idx);

	if (s && s->rq == rq)
		return __sync_val_compare_and_swap(&s->rq, rq, 0) == rq;
	return bpf_map_delete_elem(&inflight, &rq) == 0;
}

/*
 * @rq starts again without a completion we saw: retire the old record
 * (unless the reaper just did).
 */
static __always_inline void drop_stale(__u64 rkey, __u64 now)
{
	struct rq_slot *at;
	struct rq_rec *old = rq_find_at(rkey, &at);
	struct rq_rec copy;

	if (!old)
		return;
	copy = *old;
	if (rq_forget_at(rkey, at))
		retire(copy.gidx, copy.dslot,
		       copy.state != RQ_STARTED && copy.state != RQ_REAPED,
		       now);
}

/*
 * Turn creator record @owner into the in-flight record of @rq; NULL (the
 * group's pending count given back, counted) when there is no room.
 */
static __always_inline bool adopt(struct request *rq, __u64 rkey,
				  struct bio_rec *owner,
				  struct cfqx_group_stats *g, __u64 now,
				  struct rq_rec *fresh)
{
	int ret;

	fresh->key = owner->key;
	fresh->gidx = owner->gidx;
	fresh->submit_ns = owner->submit_ns;
	fresh->issue_ns = now;
	fresh->state = RQ_ISSUED;
	fresh->dir = rq->cmd_flags & 1;	/* op_is_write() */
	fresh->dslot = owner->dslot;
	fresh->idle_seen = 0;
	ret = rq_store(rkey, fresh);
	if (ret > 0) {
		drop_stale(rkey, now);
		ret = rq_store(rkey, fresh);
	}
	if (ret) {
		stat_inc(CFQX_STAT_INFLIGHT_FULL);
		group_leave(g, owner->gidx, owner->dslot, now);
		return false;
	}
	return true;
}

/* getrq and the bio merges fire only on blk-mq devices: no queue check */
static __always_inline bool bio_wanted(struct bio *bio, __u32 *dev)
{
	*dev = bio_dev(bio);
	return dev_wanted(*dev);
}

/* 1000 / busy, CFQ's share of one dispatch; tabulated, no divide. */
#define SHARE(b)	(1000 / (b))
static const __u16 share_tab[CFQX_SHARE_TAB + 1] = {
	0, SHARE(1), SHARE(2), SHARE(3), SHARE(4), SHARE(5), SHARE(6),
	SHARE(7), SHARE(8), SHARE(9), SHARE(10), SHARE(11), SHARE(12),
	SHARE(13), SHARE(14), SHARE(15), SHARE(16), SHARE(17), SHARE(18),
	SHARE(19), SHARE(20), SHARE(21), SHARE(22), SHARE(23), SHARE(24),
	SHARE(25), SHARE(26), SHARE(27), SHARE(28), SHARE(29), SHARE(30),
	SHARE(31), SHARE(32), SHARE(33), SHARE(34), SHARE(35), SHARE(36),
	SHARE(37), SHARE(38), SHARE(39), SHARE(40), SHARE(41), SHARE(42),
	SHARE(43), SHARE(44), SHARE(45), SHARE(46), SHARE(47), SHARE(48),
	SHARE(49), SHARE(50), SHARE(51), SHARE(52), SHARE(53), SHARE(54),
	SHARE(55), SHARE(56), SHARE(57), SHARE(58), SHARE(59), SHARE(60),
	SHARE(61), SHARE(62), SHARE(63), SHARE(64),
};

static __always_inline __u64 share_milli(__u64 busy)
{
	if (busy <= CFQX_SHARE_TAB)
		return share_tab[busy];
	return cfqx_dispatch_share_milli(busy);
}

/* Charge a dispatch: queue time, deadline, starvation, seek, budget. */
static __always_inline void charge_issue(struct request *rq,
					 struct rq_rec *rec,
					 struct cfqx_group_stats *g,
					 struct cfqx_group_counts *c,
					 struct cfqx_policy *pol, bool sync,
					 __u64 now)
{
	struct cfqx_dev_stats *d = dev_at(rec->dslot);
	__u64 waited = now - rec->submit_ns, dist, sector, entitled;
	__u64 deadline = cfqx_fifo_expire_ns(pol, sync);
	__u64 busy, share, issued, one;
	enum cfqx_seek seek;
	__u32 slot;

	CADD(c, issued, 1);
	slot = cfqx_hist_slot(waited);
	if (slot < CFQX_HIST_SLOTS)
		COWN(c, qtime_hist[slot], 1);
	COWN(c, qtime_sum_ns, waited);

	if (waited > deadline) {
		COWN(c, deadline_miss[rec->dir & 1], 1);
		emit(CFQX_EV_DEADLINE, &rec->key, &g->rl[CFQX_EV_DEADLINE],
		     waited - deadline, rec->dir, pol->event_rate, g->comm,
		     now);
	}
	if (!d)
		return;

	busy = d->busy_groups;
	/* starved: waited past the sync deadline while others were busy */
	if (busy > 1 && waited > cfqx_fifo_expire_ns(pol, true)) {
		COWN(c, starved, 1);
		emit(CFQX_EV_STARVED, &rec->key, &g->rl[CFQX_EV_STARVED],
		     waited, busy, pol->event_rate, g->comm, now);
	}

	sector = rq->__sector;
	seek = cfqx_seek_class(d->last_end_sector, sector,
			       cfqx_back_max_sectors(pol),
			       pol->back_seek_penalty, &dist);
	if (seek < CFQX_SEEKS)
		COWN(c, seeks[seek], 1);
	d->last_end_sector = sector + (rq->__data_len >> CFQX_SECTOR_SHIFT);

	if (!busy)
		busy = 1;
	one = share_milli(busy);
	share = __sync_fetch_and_add(&d->share_milli, one) + one;
	/* within the current busy period: a CFQ queue's turn */
	issued = __sync_fetch_and_add(&g->busy_issued, 1) + 1;
	entitled = cfqx_group_entitled_milli(0, g->period_share_base, share,
					     true);
	if (cfqx_over_budget(issued, entitled, pol->quantum)) {
		COWN(c, over_budget, 1);
		emit(CFQX_EV_OVER_BUDGET, &rec->key,
		     &g->rl[CFQX_EV_OVER_BUDGET], issued * 1000 - entitled,
		     busy, pol->event_rate, g->comm, now);
	}
}

/* CFQ v2 service_used: decay whole periods (once, by one CPU), charge. */
static __always_inline void charge_service(struct cfqx_group_stats *g,
					   __u64 service, __u64 now)
{
	__u64 e = g->service_epoch, epoch, u, nu;
	int i;

	/* a multiply per I/O; the divide only once per period */
	if (now >= (e + 1) * CFQX_DECAY_PERIOD_NS &&
	    (epoch = cfqx_epoch(now)) > e &&
	    __sync_val_compare_and_swap(&g->service_epoch, e, epoch) == e) {
		for (i = 0; i < CFQX_CAS_TRIES; i++) {
			u = g->service_used_ns;
			nu = cfqx_service_decay(u, e, epoch);
			if (__sync_val_compare_and_swap(&g->service_used_ns,
							u, nu) == u)
				break;
		}
	}
	__sync_fetch_and_add(&g->service_used_ns, service);
}

/* ---- the reaper ------------------------------------------------------ */

/*
 * Some requests finish without a block_rq_complete event (on 6.18 a few
 * in 100000; bpftrace misses them too).  Their records would keep their
 * groups busy until the pointer comes back, maybe never on an idle
 * device.  So once a period a timer walks the in-flight records: one
 * issued more than a period ago whose struct request reads MQ_RQ_IDLE
 * (freed or not started again: the kernel sets it only after the
 * completion trace) at two walks in a row, with no sighting of it busy
 * between, is retired like any stale record.  Requeued records are left
 * alone (they wait idle by design).  The walk also retires a creator
 * record older than orphan_age_ns: its request was neither issued nor
 * completed where cfqx could see it, and its bio may be gone, so age is
 * all there is to go by (a request the age retired wrongly is counted
 * lost, and when it is issued after all, untracked: never twice).  The
 * timer is armed by the first issue and cancelled when the maps' last
 * user goes (cfqx unload).  A kernel without bpf_timer (PREEMPT_RT) has
 * no reaper: no_reaper says so.
 */
#define CFQX_REAP_PERIOD_NS	CFQX_NSEC_PER_SEC

struct reaper {
	struct bpf_timer timer;
	__u64 walks;		/* walks started, from 1 */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct reaper);
} reaper SEC(".maps");

__u32 reaper_armed;

struct reap_walk {
	__u64 now;
	__u64 walk;
};

/* Has @rec's request @rq been seen idle long enough to be retired? */
static __always_inline bool reap_due(__u64 rq, struct rq_rec *rec,
				     const struct reap_walk *w)
{
	struct request *r = (void *)rq;
	int state = -1;

	if (rec->state != RQ_ISSUED ||
	    w->now < rec->issue_ns + CFQX_REAP_PERIOD_NS)
		return false;
	if (bpf_core_read(&state, sizeof(state), &r->state) ||
	    state != MQ_RQ_IDLE) {
		rec->idle_seen = 0;
		return false;
	}
	if (!rec->idle_seen) {
		rec->idle_seen = w->walk;
		return false;
	}
	return rec->idle_seen < w->walk;
}

/*
 * Is @rec a record from block_io_start, never issued, older than the
 * orphan age?  Claimed by its state (STARTED -> REAPED) against the issue
 * (STARTED -> ISSUED); whoever then removes the record closes it.
 */
static __always_inline bool reap_started(struct rq_rec *rec,
					 const struct reap_walk *w)
{
	return start_at_io_start && rec->state == RQ_STARTED &&
		w->now >= rec->submit_ns + orphan_age_ns &&
		__sync_val_compare_and_swap(&rec->state, RQ_STARTED,
					    RQ_REAPED) == RQ_STARTED;
}

static long reap_slot(__u64 i, void *arg)
{
	struct reap_walk *w = arg;
	__u32 idx = i;
	struct rq_slot *s = bpf_map_lookup_elem(&rqslots, &idx);
	struct rq_rec copy;
	bool issued;
	__u64 rq;

	if (!s)
		return 1;
	rq = s->rq;
	if (rq <= RQ_SLOT_CLAIMED)
		return 0;
	if (reap_started(&s->rec, w))
		issued = false;
	else if (reap_due(rq, &s->rec, w))
		issued = true;
	else
		return 0;
	copy = s->rec;
	if (__sync_val_compare_and_swap(&s->rq, rq, 0) == rq)
		retire(copy.gidx, copy.dslot, issued, w->now);
	return 0;
}

static long reap_hashed(struct bpf_map *map, __u64 *rq, struct rq_rec *rec,
			struct reap_walk *w)
{
	struct rq_rec copy;
	bool issued;

	if (reap_started(rec, w))
		issued = false;
	else if (reap_due(*rq, rec, w))
		issued = true;
	else
		return 0;
	copy = *rec;
	if (bpf_map_delete_elem(&inflight, rq) == 0)
		retire(copy.gidx, copy.dslot, issued, w->now);
	return 0;
}

static long reap_bio_slot(__u64 i, void *arg)
{
	struct reap_walk *w = arg;
	__u32 idx = i;
	struct bio_slot *s = bpf_map_lookup_elem(&bioslots, &idx);
	struct bio_rec copy;
	__u64 bio;

	if (!s)
		return 1;
	bio = s->bio;
	if (bio <= BIO_SLOT_CLAIMED)
		return 0;
	copy = s->rec;
	if (w->now < copy.submit_ns + orphan_age_ns)
		return 0;
	if (__sync_val_compare_and_swap(&s->bio, bio, 0) == bio)
		retire(copy.gidx, copy.dslot, false, w->now);
	return 0;
}

static long reap_bio_hashed(struct bpf_map *map, __u64 *bio,
			    struct bio_rec *rec, struct reap_walk *w)
{
	struct bio_rec copy = *rec;

	if (w->now < copy.submit_ns + orphan_age_ns)
		return 0;
	if (bpf_map_delete_elem(&bios, bio) == 0)
		retire(copy.gidx, copy.dslot, false, w->now);
	return 0;
}

static int reap(void *map, __u32 *key, struct reaper *r)
{
	struct reap_walk w = { .now = bpf_ktime_get_ns(), .walk = ++r->walks };

	bpf_loop(CFQX_SLOTS, reap_slot, &w, 0);
	bpf_for_each_map_elem(&inflight, reap_hashed, &w, 0);
	if (!start_at_io_start) {
		bpf_loop(CFQX_SLOTS, reap_bio_slot, &w, 0);
		bpf_for_each_map_elem(&bios, reap_bio_hashed, &w, 0);
	}
	bpf_timer_start(&r->timer, CFQX_REAP_PERIOD_NS, 0);
	return 0;
}

/*
 * PREEMPT_RT kernels refuse bpf_timer (6.12's verifier: "bpf_timer cannot
 * be used for PREEMPT_RT").  Told from BTF at load time: there spinlock_t
 * is an rt_mutex ("lock"), elsewhere a raw spinlock ("rlock").  The check
 * is a constant to the verifier, so on RT the timer calls are dead code
 * it never looks at.
 */
struct spinlock___rt {
	struct rt_mutex_base lock;
};

/* Start the reaper once (the first issue after load). */
static __always_inline void reaper_arm(void)
{
	__u32 zero = 0;
	struct reaper *r;

	if (reaper_armed ||
	    __sync_val_compare_and_swap(&reaper_armed, 0, 1))
		return;
	if (bpf_core_field_exists(struct spinlock___rt, lock)) {
		stat_inc(CFQX_STAT_NO_REAPER);
		return;
	}
	r = bpf_map_lookup_elem(&reaper, &zero);
	if (!r || bpf_timer_init(&r->timer, &reaper, CLOCK_MONOTONIC) ||
	    bpf_timer_set_callback(&r->timer, reap) ||
	    bpf_timer_start(&r->timer, CFQX_REAP_PERIOD_NS, 0))
		stat_inc(CFQX_STAT_NO_REAPER);
}

/* ---- programs: defined (so attached) completion first, getrq last --- */

SEC("tp_btf/block_rq_complete")
int BPF_PROG(cfqx_rq_complete, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	struct prog_scratch *ps = scratch_of(P_COMPLETE);
	__u64 rkey = ptr_num(ps, rq), now = 0, service, lat;
	__u64 flush_data = (__u64)&mq_flush_data_end_io;
	struct cfqx_group_counts *c;
	struct cfqx_group_stats *g;
	struct cfqx_dev_counts *dc;
	struct rq_rec *found, rec;
	struct rq_slot *at = NULL;
	bool last, adopted = false;
	struct bio_rec owner;
	__u32 dev, dir, slot, dslot = 0;

	/*
	 * blk_update_request() traces before it consumes nr_bytes.  The
	 * data part of a flush sequence is not the end: the request comes
	 * back once more (0 bytes) when the sequence is done.
	 */
	last = nr_bytes >= rq->__data_len;
	if (last && flush_data &&
	    ptr_num(ps, rq->end_io) == flush_data)
		last = false;
	dir = rq->cmd_flags & 1;	/* op_is_write() */
	found = rq_find_at(rkey, &at);
	if (found) {
		rec = *found;
	} else {
		if (!rq->bio)
			return 0;	/* the flush machinery's own request,
					 * passthrough without data */
		dev = rq_dev(rq);
		if (!dev_wanted(dev))
			return 0;
		/* never issued (empty flush, error before dispatch) */
		if (!start_at_io_start && find_creator(rq->bio, &owner, ps)) {
			g = group_at(owner.gidx);
			c = counts_at(owner.gidx);
			now = bpf_ktime_get_ns();
			if (g && c &&
			    adopt(rq, rkey, &owner, g, now, &rec)) {
				CADD(c, issued, 1);
				found = &rec;
				adopted = true;
			}
		}
	}
	if (found)
		dslot = rec.dslot;	/* found at getrq */
	else if (!get_dev_at(dev, &dslot))
		dslot = CFQX_MAX_DEVICES;	/* none: no entry */
	dc = bpf_map_lookup_elem(&dcounts, &dslot);
	if (dc) {
		COWN(dc, bytes[dir], nr_bytes);
		if (last) {
			COWN(dc, rqs[dir], 1);
			if (!found)
				COWN(dc, untracked_rqs, 1);
		}
	}
	if (!found) {
		if (last)
			stat_inc(CFQX_STAT_UNMATCHED);
		return 0;
	}
	if (last && !(adopted ? rq_forget(rkey) : rq_forget_at(rkey, at)))
		return 0;	/* retired meanwhile: counted lost */
	g = group_at(rec.gidx);
	c = counts_at(rec.gidx);
	if (!g || !c)
		return 0;
	COWN(c, bytes[dir], nr_bytes);
	if (error)
		COWN(c, errors, 1);
	if (!last)
		return 0;

	if (!now)
		now = bpf_ktime_get_ns();
	if (rec.state == RQ_STARTED || rec.state == RQ_REAPED) {
		/* from block_io_start, never issued: as adopt() above */
		CADD(c, issued, 1);
		rec.issue_ns = now;
	}
	COWN(c, rqs[dir], 1);
	service = now - rec.issue_ns;
	slot = cfqx_hist_slot(service);
	if (slot < CFQX_HIST_SLOTS)
		COWN(c, stime_hist[slot], 1);
	COWN(c, stime_sum_ns, service);
	lat = now - rec.submit_ns;
	atomic_max(&g->max_lat_ns, lat);	/* stores only a new maximum */
	charge_service(g, service, now);
	group_leave(g, rec.gidx, rec.dslot, now);
	return 0;
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(cfqx_rq_requeue, struct request *rq)
{
	struct cfqx_group_counts *c;
	struct rq_rec *rec = rq_find(ptr_num(scratch_of(P_REQUEUE), rq));

	if (!rec || rec->state != RQ_ISSUED)
		return 0;	/* not issued yet: its creator bio is known */
	rec->state = RQ_REQUEUED;
	c = counts_at(rec->gidx);
	if (c)
		COWN(c, requeues, 1);
	return 0;
}

/*
 * @next is folded into another request and freed without being issued:
 * its creator (or, requeued, its in-flight record) gives up ownership;
 * its bytes complete with the request it joined.
 */
SEC("tp_btf/block_rq_merge")
int BPF_PROG(cfqx_rq_merge, struct request *next)
{
	struct prog_scratch *ps = scratch_of(P_RQ_MERGE);
	__u64 rkey = ptr_num(ps, next), now = bpf_ktime_get_ns();
	struct cfqx_group_counts *c;
	struct cfqx_group_stats *g;
	struct rq_rec *found;
	struct rq_slot *at;
	struct bio_rec rec;
	struct rq_rec copy;

	found = rq_find_at(rkey, &at);
	if (found) {
		copy = *found;
		if (!rq_forget_at(rkey, at))
			return 0;	/* retired meanwhile */
		g = group_at(copy.gidx);
		c = counts_at(copy.gidx);
		if (g && c) {
			/* dispatched once, then requeued: undo that */
			if (copy.state == RQ_ISSUED)
				CADD(c, lost, 1);
			__sync_fetch_and_add(&g->merges, 1);
			group_leave(g, copy.gidx, copy.dslot, now);
		}
		return 0;
	}
	if (start_at_io_start || !find_creator(next->bio, &rec, ps))
		return 0;
	g = group_at(rec.gidx);
	if (!g)
		return 0;
	__sync_fetch_and_add(&g->merges, 1);
	group_leave(g, rec.gidx, rec.dslot, now);
	return 0;
}

/* A request with no creator bio we know: requeued (same owner) or not
 * ours (allocated before load, passthrough). */
static __always_inline int reissue(struct rq_rec *rec)
{
	struct cfqx_group_counts *c;

	if (!rec || rec->state != RQ_REQUEUED) {
		stat_inc(CFQX_STAT_UNMATCHED);
		return 0;
	}
	rec->state = RQ_ISSUED;
	rec->issue_ns = bpf_ktime_get_ns();
	rec->idle_seen = 0;
	c = counts_at(rec->gidx);
	if (c)
		CADD(c, issued, 1);
	return 0;
}

/*
 * block_io_start mode: @rec is @rq's record from its start.  STARTED
 * becomes ISSUED (claimed against the reaper's age rule, which may have
 * taken it: then untracked, as a retired creator would be).
 */
static __always_inline int issue_started(struct request *rq,
					 struct rq_rec *rec)
{
	struct cfqx_group_counts *c;
	struct cfqx_group_stats *g;
	struct cfqx_policy *pol;
	__u64 now;

	if (!rec || rec->state != RQ_STARTED)
		return reissue(rec);
	now = bpf_ktime_get_ns();
	rec->issue_ns = now;	/* the reaper's age rule reads submit_ns */
	rec->idle_seen = 0;
	if (__sync_val_compare_and_swap(&rec->state, RQ_STARTED,
					RQ_ISSUED) != RQ_STARTED) {
		stat_inc(CFQX_STAT_UNMATCHED);
		return 0;
	}
	g = group_at(rec->gidx);
	c = counts_at(rec->gidx);
	if (!g || !c)
		return 0;
	pol = policy_in_force();
	reaper_arm();
	charge_issue(rq, rec, g, c, pol, opf_is_sync(rq->cmd_flags), now);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(cfqx_rq_issue, struct request *rq)
{
	struct prog_scratch *ps;
	__u64 rkey, now;
	struct rq_rec fresh;	/* adopt() fills every field */
	struct cfqx_group_counts *c;
	struct cfqx_group_stats *g;
	struct cfqx_policy *pol;
	struct rq_rec *found;
	struct bio_rec owner;

	if (!rq->bio)
		return 0;	/* no data: flush or passthrough */
	ps = scratch_of(P_ISSUE);
	rkey = ptr_num(ps, rq);
	if (start_at_io_start) {
		/* a record is only ever made for a wanted device */
		found = rq_find(rkey);
		if (!found && !dev_wanted(rq_dev(rq)))
			return 0;
		return issue_started(rq, found);
	}
	if (!dev_wanted(rq_dev(rq)))
		return 0;
	/* the owner is the bio that created the request (getrq) */
	if (!find_creator(rq->bio, &owner, ps))
		return reissue(rq_find(rkey));

	now = bpf_ktime_get_ns();
	g = group_at(owner.gidx);
	c = counts_at(owner.gidx);
	if (!g || !c)
		return 0;
	if (!adopt(rq, rkey, &owner, g, now, &fresh))
		return 0;
	pol = policy_in_force();
	reaper_arm();
	charge_issue(rq, &fresh, g, c, pol, owner.sync, now);
	return 0;
}

static __always_inline int bio_merged(struct bio *bio)
{
	struct cfqx_group_stats *g;
	struct cfqx_group_key key;
	struct cfqx_policy *pol;
	__u32 dev, idx, dslot;
	__u64 h;

	if (!bio_wanted(bio, &dev))
		return 0;
	pol = policy_sync(scratch_of(P_BIO_MERGE));
	if (!pol)
		return 0;
	classify(*(volatile __u32 *)&pol->group_by, dev, &key);
	if (!get_dev_at(dev, &dslot))
		dslot = CFQX_MAX_DEVICES;	/* none: no retired bucket */
	h = cfqx_group_hash(&key);
	g = find_group(&key, h, bpf_ktime_get_ns(), &idx, dslot);
	if (g)
		count_merge(g, idx, h);
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

/*
 * A request starts (getrq or block_io_start, in the submitter's context):
 * classify it by the live policy and give its group one more pending
 * request.  NULL when it cannot be counted (a full chain, counted).
 */
static __always_inline struct cfqx_group_stats *
start_request(__u32 dev, __u64 now, struct prog_scratch *ps,
	      struct cfqx_group_key *key, __u32 *gidx, __u32 *dslot)
{
	struct cfqx_group_stats *g = NULL;
	struct cfqx_dev_stats *d;
	struct cfqx_policy *pol;
	__u32 group_by, slice_idle, rate;
	bool recycled = false;
	__u64 h;
	int tries;

	pol = policy_sync(ps);
	if (!pol)
		return NULL;
	/* each field read once: a concurrent switch may change them */
	group_by = *(volatile __u32 *)&pol->group_by;
	slice_idle = *(volatile __u32 *)&pol->slice_idle;
	rate = *(volatile __u32 *)&pol->event_rate;
	check_switch(group_by, rate, now);
	classify(group_by, dev, key);
	h = cfqx_group_hash(key);
	d = get_dev_at(dev, dslot);
	if (!d)
		*dslot = CFQX_MAX_DEVICES;	/* none: no entry */
	/*
	 * A lost race (another CPU claimed the entry first, or recycled
	 * it under us) is tried once more.  Two tries, not more: each is
	 * verified as a whole on every path (6.1's verifier budget).
	 */
	for (tries = 0; tries < 2; tries++) {
		g = get_group(key, h, now, gidx, *dslot);
		if (!g)
			continue;	/* a full chain is counted there */
		if (group_enter(g, *gidx, h, key, slice_idle, rate, d, now))
			break;
		g = NULL;	/* recycled under us: look it up again */
		recycled = true;
	}
	if (!g && recycled)
		stat_inc(CFQX_STAT_GROUPS_FULL);
	return g;
}

SEC("tp_btf/block_getrq")
int BPF_PROG(cfqx_getrq, struct bio *bio)
{
	struct cfqx_group_stats *g;
	struct prog_scratch *ps;
	struct bio_rec rec;	/* every field is set below */
	__u32 dev;
	__u64 now;

	if (start_at_io_start || !bio_wanted(bio, &dev))
		return 0;
	now = bpf_ktime_get_ns();
	ps = scratch_of(P_START);
	g = start_request(dev, now, ps, &rec.key, &rec.gidx, &rec.dslot);
	if (!g)
		return 0;
	rec.submit_ns = now;
	rec.sync = opf_is_sync(bio->bi_opf);
	rec.flags = BIO_CREATOR;
	/* a request whose record cannot be kept is not pending */
	if (!bio_store(ptr_num(ps, bio), &rec, now))
		group_leave(g, rec.gidx, rec.dslot, now);
	return 0;
}

#ifdef CFQX_IO_START_HOOK
/*
 * 6.5+: the request's record from its start (blk_account_io_start, in
 * the submitter's context for every bio-based request, empty flushes
 * included).  Only in the object `cfqx load` embeds (bpf/bpf.mk), which
 * turns it on, and getrq off, where BTF has block_io_start; the object
 * bpftool loads (build/cfqx.bpf.o) starts records at getrq everywhere.
 */
SEC("tp_btf/block_io_start")
int BPF_PROG(cfqx_io_start, struct request *rq)
{
	struct cfqx_group_stats *g;
	struct prog_scratch *ps;
	struct rq_rec rec;	/* every field is set below */
	__u32 dev;
	__u64 now, rkey;
	int ret;

	if (!start_at_io_start ||
	    (rq->cmd_flags & REQ_OP_MASK_BITS) >=
	    bpf_core_enum_value(enum req_op, REQ_OP_DRV_IN))
		return 0;	/* passthrough: getrq never saw these */
	dev = rq_dev(rq);
	if (!dev_wanted(dev))
		return 0;
	/*
	 * The block layer stamped the request when it took it up (the
	 * same clock, cached per plug; 0 where it keeps no I/O statistics):
	 * queue time starts there, and this run saves a clock read.
	 */
	now = rq->start_time_ns;
	if (!now)
		now = bpf_ktime_get_ns();
	ps = scratch_of(P_START);
	g = start_request(dev, now, ps, &rec.key, &rec.gidx, &rec.dslot);
	if (!g)
		return 0;
	rec.submit_ns = now;
	rec.issue_ns = 0;
	rec.state = RQ_STARTED;
	rec.dir = rq->cmd_flags & 1;	/* op_is_write() */
	rec.idle_seen = 0;
	rkey = ptr_num(ps, rq);
	ret = rq_store(rkey, &rec);
	if (ret > 0) {
		drop_stale(rkey, now);
		ret = rq_store(rkey, &rec);
	}
	if (ret) {
		/* a request whose record cannot be kept is not pending */
		stat_inc(CFQX_STAT_INFLIGHT_FULL);
		group_leave(g, rec.gidx, rec.dslot, now);
	}
	return 0;
}
#endif /* CFQX_IO_START_HOOK */
