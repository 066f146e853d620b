// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cfqx scheduling core (API and data in cfqx-sched.h): CFQ v2's rules
 * for dividing a device between groups, made to hold on blk-mq devices
 * that take many requests at once, and on slow or busy hosts.
 *
 * Fair share.  Each group has a virtual service clock, vtime, charged at
 * dispatch with the request's cost: its size in sectors on a
 * non-rotational device (bandwidth is the shared resource), its exclusive
 * device time on a rotational one (2.6.10's service_used is time: the
 * charge is an estimate at dispatch, corrected to the time between this
 * completion and the later of its dispatch and the previous completion).
 * A virtual clock V advances with every dispatch by its cost divided by
 * the number of backlogged groups: the service each of them is owed.  A
 * group may dispatch while it is at most one round (`quantum` requests
 * of the device's average cost) ahead of V; of those, the least vtime
 * goes first (2.6.10 served ascending service_used), ties to fewer in
 * flight, then to the one served longest ago.  V never trails the least
 * backlogged vtime by more than a round, and no group trails V by more
 * than a round when it wakes from idle (four while it thinks): unused
 * service is not banked (2.6.10 decayed history by >>3 a second).  Nor
 * does V run more than four rounds ahead of a group the pace keeps from
 * its turn (its large request does not fit the budget yet, and smaller
 * ones of groups ahead of it do): the others' dispatches move V, and
 * without the bound the order would hold nobody for it.  A group
 * that wants less than an equal split gets all it asks, and the groups
 * that want more split the rest: max-min fairness.
 *
 * Contended depth.  A device that takes 64 requests serves them in its own
 * order, so whoever fills it wins.  While two or more groups are active
 * (queued, in flight or thinking) the core keeps the device no deeper
 * than its knee: the least depth past which more requests in flight no
 * longer raise its rate, found by probing (probe_depth()).  A formula from
 * the least latency (bandwidth x delay) under-fills a device whose
 * requests differ in latency or collide inside it (an SSD's channels), so
 * the core measures instead of predicting.  On a throttling device the
 * rate is known (the pace's), and a depth-limited window short of it
 * steps the depth up without a probe.  A group with nothing in
 * flight may still dispatch (2.6.10's first pass), so a one-deep reader
 * never waits for a slot.  A lone group gets every tag.
 *
 * Pace.  A device that throttles with a budget per tick (null_blk's mbps:
 * 20 ms ticks) serves whoever comes first in the tick and makes the rest
 * wait for the next one, so a light group that arrives late in a tick
 * waits a whole tick per request behind a greedy one, whatever the order.
 * Such a device turns work away: its driver stops its queue until the
 * budget refills, which the caller sees and reports
 * (cfqx_sched_stopped()).  On a non-rotational device that did so in
 * this pace cycle or the last, the core therefore paces dispatch at 31/32
 * of the device's rate, less a trim while the device still turns work
 * away (learn_pace()), one group active or many: a token
 * bucket (pace_due()) lets a request go while the work ahead of a virtual
 * device that serves at that pace, its own included, fits a latency or a
 * few requests of the device's average size, one more for a one-deep
 * group's (2.6.10's first pass).  Small requests slip in
 * between large ones, the budget lasts the tick, and the queue, and with
 * it the order, stays in the core.  The rate is learned from
 * windows in which the device, not the pace, held work back, so the pace
 * cannot talk itself down.  A timer that fires late (tick()'s @due) says
 * the host stood the guest, and with it the device, still: the pace
 * catches up on that time, which the device did not use.  There the
 * budget, not the queue, is what the order divides: a group the order
 * holds is held while the pace keeps the time as credit, whatever is in
 * flight, and goes (least vtime first) once holding on would lose budget.
 *
 * Disks.  On a rotational device a switch between groups costs a seek, so
 * the core stays on the group it serves while that group is within its
 * round, and a round of credit is at least CFQX_ROUND_SWITCHES times the
 * measured cost of a switch (the device time of the first request after
 * one): switches then take at most about a ninth of the disk, as CFQ v3's
 * time slices meant to.  Within its round the group keeps the disk while
 * it has requests queued or in flight, and while it thinks within its
 * window (below) the disk waits for it (CFQ v3's slice_idle): a one-deep
 * sequential reader that lost the disk at every request paid a seek and a
 * turn for each one, and a round of every other group's.  Not for a seeky
 * group (more than one request in eight starts over 64 KiB from where its
 * last one inserted ended: several streams, or random): its next request
 * seeks anyway.  On a disk the window may reach two switches' cost, past
 * slice_idle: leaving costs a seek and a turn now and the same back.  The
 * time the disk waits is not charged to it (its service is the device's
 * busy time, as BFQ charges sectors, not idling); instead a turn lasts at
 * most twice its round in wall time (BFQ's slice timeout), so the waits
 * at most double it.  The turn ends early for an expired FIFO, and for a
 * group more than a round behind the served one (it wants less than its
 * share: the vtime order is max-min).  Only a group whose whole backlog
 * (queued and in flight) fits one round of `quantum` requests has its
 * expired FIFO head jump the order: a deeper group's requests wait in its
 * own queue (Little's law), and jumping for them handed it the turns of
 * the groups it passed; its FIFO is checked in its own turn (2.6.10's
 * rule).
 *
 * Think time.  A sync group with one request at a time has nothing queued
 * while it thinks.  When such a group empties and its think time (EWMA of
 * empty -> next request) is within slice_idle, it stays active for a
 * window of its think time plus four mean deviations of it (Jacobson's
 * retransmission timeout, at least twice the mean), plus the device's
 * latency, capped at slice_idle (the full slice_idle before it has two
 * samples): on a busy host one wake in a few waits for a CPU several
 * times the mean, and a window that ends before it gives the group's turn
 * away.  In flight or thinking, it counts as backlogged, and so holds
 * the others to its pace, only if that pace (its requests in flight,
 * each taking a latency plus its think time) would use at least a fair
 * share of the device's capacity; a slower one is demand-limited and the
 * others use its slack.
 * The capacity is the most the device delivered in a recent window; a
 * window in which the order held work back for such a group while the
 * device had room and did not turn work away counts a sixteenth above
 * it, so holding the device cannot make it look slower than it is (a
 * throttling device too: one that did not throttle in that window was
 * not at its rate).  The pace keeps the rate the device delivered: the
 * order's holds never raise it.
 * Apart from a disk's wait for its served group, the device is never
 * idled: with nothing in flight (paced: with budget about to be lost),
 * dispatch goes on.  The window and the test follow
 * the measured think time and device rate, so a slowed clock (a VM, a
 * busy host) moves them instead of flipping them.
 *
 * Inside a group (2.6.10): two sector-sorted queues (sync first) and two
 * FIFOs.  On a disk the next request is chosen around the end of the
 * group's own last dispatch with cfqx_choose_req() (forward, short
 * backward seeks at back_seek_penalty; long ones wait for the next
 * sweep); on a device without seeks it is the oldest (group_next()).
 * The oldest expired FIFO head of any group (sync, then async) goes
 * first, at most once per fifo_batch_expire per group (2.6.10 kept that
 * time per queue): deadlines fifo_expire_sync / _async on the FIFO they
 * name (2.6.10 as shipped crossed them).
 *
 * Admission (2.6.10 may_queue): a group may hold cfqx_queue_limit()
 * requests per direction, an equal share of nr_requests among the active
 * groups and the asker, at most max_queued; and more, up to max_queued,
 * while the pool keeps one free for each of those groups.  blk-mq's tags
 * are a hard pool: 2.6.10's floor of `queued` (which it honoured by
 * allocating past nr_requests) let deep groups hold every tag, and a
 * one-deep reader waited behind them for one.
 *
 * Where cfqx differs from 2.6.10, and why: blk-mq asks for one request at
 * a time when the driver can take one, so there is no dispatch round of
 * `quantum` requests and no one-way sort of a driver list: quantum sizes
 * the credit above (on a disk, with the switch cost), and the contended
 * depth bounds how far the device runs ahead of the order.  The FIFO
 * check looks at every group, not only the chosen one, so a deadline
 * holds whoever is being served.  A device without seeks serves a group
 * in arrival order, not by sector: there the sort buys nothing, and a
 * sequential stream that refills in time would hold the group's other
 * streams to their deadlines.  "Tagged" charging per request is
 * replaced by the exclusive-time charge, which splits a queueing device's
 * busy time exactly between its completions.
 *
 * No locks, no allocation, no clock: the caller serialises all calls for a
 * device and passes `now`.  Every call ends by recomputing what
 * has_work() answers, so has_work() is one load, for lockless callers.
 */
#include "cfqx-sched.h"

#define container_of_rq(ptr, member) \
	((struct cfqx_sched_rq *)((char *)(ptr) - \
				  offsetof(struct cfqx_sched_rq, member)))
#define container_of_group(ptr) \
	((struct cfqx_sched_group *)((char *)(ptr) - \
				     offsetof(struct cfqx_sched_group, active)))

/* Rounds of credit an anticipated group keeps while it thinks. */
#define CFQX_THINK_ROUNDS	4
/* The device's rate is kept in sectors per ns x 2^CFQX_RATE_SHIFT. */
#define CFQX_RATE_SHIFT		24
/* Completions per measuring window of the device model. */
#define CFQX_WINDOW_RQS		64
/* Depth before the first window is measured. */
#define CFQX_INITIAL_DEPTH	4
/* Windows at the depth a refused probe went back to, before the next. */
#define CFQX_PROBE_WAIT		8
/* The pace is learned over windows of 64 ms (three of null_blk's 20 ms
 * throttle ticks), in cycles of 8 windows. */
#define CFQX_PACE_WINDOW_NS	(64 * CFQX_NSEC_PER_MSEC)
#define CFQX_PACE_CYCLE		8
/* A pace that fell behind (a late timer, a stalled CPU) catches up on at
 * most this much time. */
#define CFQX_PACE_CREDIT_NS	(2 * CFQX_NSEC_PER_MSEC)
/* The cruise pace comes down at most this many 64ths of the device's
 * rate below 31/32 of it for windows in which the device refused work. */
#define CFQX_PACE_TRIM		3
/* A disk's round is at least this many group switches' worth of time. */
#define CFQX_ROUND_SWITCHES	8
/* A request within this many sectors (64 KiB) of where its group's last
 * one inserted ended is near: a disk's read-ahead has it, or a short skip
 * forward costs less than a seek and a turn. */
#define CFQX_SEEK_NEAR		128
/* g->seeks: the share of its requests that were not near, x256 (an EWMA
 * weighing a new one 1/8); above 1/8 the group is seeky. */
#define CFQX_SEEK_ONE		256
/* EWMAs are kept x16 (4 fractional bits) and weigh a new sample 1/8. */
#define CFQX_EWMA_SHIFT		4

/* ------------------------------------------------------------------ */
/* Lists */

static void link_init(struct cfqx_link *l)
{
	l->next = l;
	l->prev = l;
}

static bool link_empty(const struct cfqx_link *l)
{
	return l->next == l;
}

/* Insert @n before @at (at the tail when @at is the head). */
static void link_add_before(struct cfqx_link *n, struct cfqx_link *at)
{
	n->prev = at->prev;
	n->next = at;
	at->prev->next = n;
	at->prev = n;
}

static void link_del(struct cfqx_link *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	link_init(n);
}

static u64 ewma(u64 avg, u64 sample)
{
	sample <<= CFQX_EWMA_SHIFT;
	if (!avg)
		return sample;
	return avg - (avg >> 3) + (sample >> 3);
}

static u64 max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

static u64 min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static void refresh_again(struct cfqx_sched *s);

/* ------------------------------------------------------------------ */
/* Set-up */

void cfqx_sched_init(struct cfqx_sched *s, const struct cfqx_sched_device *d)
{
	*s = (struct cfqx_sched){ .dev = *d };
	link_init(&s->active);
	link_init(&s->head);
	if (!s->dev.tags)
		s->dev.tags = 1;
	s->depth = CFQX_INITIAL_DEPTH;
	s->depth_base = CFQX_INITIAL_DEPTH;
	s->next_probe = 1;
}

void cfqx_sched_set_tags(struct cfqx_sched *s, u32 tags)
{
	s->dev.tags = tags ? tags : 1;
}

void cfqx_sched_group_init(struct cfqx_sched_group *g)
{
	*g = (struct cfqx_sched_group){ 0 };
	link_init(&g->active);
	link_init(&g->sort[0]);
	link_init(&g->sort[1]);
	link_init(&g->fifo[0]);
	link_init(&g->fifo[1]);
}

void cfqx_sched_rq_init(struct cfqx_sched *s, struct cfqx_sched_rq *r,
			struct cfqx_sched_group *g, u64 sector, u32 sectors,
			bool sync, bool write, void *owner)
{
	*r = (struct cfqx_sched_rq){
		.group = g, .owner = owner, .sector = sector,
		.sectors = sectors, .sync = sync, .write = write,
	};
	link_init(&r->sort);
	link_init(&r->fifo);
	g->allocated[r->write]++;
	s->nr_allocated++;
}

void cfqx_sched_release(struct cfqx_sched *s, struct cfqx_sched_rq *r)
{
	struct cfqx_sched_group *g = r->group;

	if (g && g->allocated[r->write]) {
		g->allocated[r->write]--;
		s->nr_allocated--;
	}
	r->group = NULL;
}

/* Requests in the group's own queues (what choose() can serve). */
static u32 group_queued(const struct cfqx_sched_group *g)
{
	return g->queued[0] + g->queued[1];
}

/* Anything queued (own queues or the head list) or in flight. */
static bool group_busy(const struct cfqx_sched_group *g)
{
	return group_queued(g) || g->queued_head || g->in_flight;
}

bool cfqx_sched_group_idle(const struct cfqx_sched_group *g)
{
	return !group_busy(g) && !g->on_active;
}

static void group_activate(struct cfqx_sched *s, struct cfqx_sched_group *g)
{
	if (g->on_active)
		return;
	link_add_before(&g->active, &s->active);
	g->on_active = 1;
	s->nr_active++;
}

static void group_deactivate(struct cfqx_sched *s, struct cfqx_sched_group *g)
{
	if (!g->on_active)
		return;
	link_del(&g->active);
	g->on_active = 0;
	s->nr_active--;
}

void cfqx_sched_group_forget(struct cfqx_sched *s, struct cfqx_sched_group *g)
{
	if (s->last_group == g)
		s->last_group = NULL;
	if (s->last_done == g)
		s->last_done = NULL;
	g->anticipate_until = 0;
	group_deactivate(s, g);
	refresh_again(s);
}

/* ------------------------------------------------------------------ */
/* Cost and credit */

/* Estimated cost of @r at dispatch, in the device's unit. */
static u64 rq_cost(const struct cfqx_sched *s, const struct cfqx_sched_rq *r)
{
	if (!s->dev.rotational)
		return r->sectors ? r->sectors : 1;
	/* Device time: what requests have taken lately, 1 ms at first. */
	return s->avg_cost ? s->avg_cost >> CFQX_EWMA_SHIFT : 1000000;
}

/* Virtual time is kept in cost units x 2^CFQX_VSHIFT (V advances by
 * fractions of a request). */
#define CFQX_VSHIFT	8

/* One 2.6.10 round, `quantum` requests of the device's average cost, in
 * virtual time. */
static u64 credit(const struct cfqx_sched *s, const struct cfqx_policy *p)
{
	u64 avg = s->avg_cost >> CFQX_EWMA_SHIFT;

	if (!avg)
		avg = s->dev.rotational ? 1000000 : 128;
	if (s->dev.rotational)
		return max_u64(avg * p->quantum,
			       (s->switch_cost >> CFQX_EWMA_SHIFT) *
			       CFQX_ROUND_SWITCHES) << CFQX_VSHIFT;
	return (avg * p->quantum) << CFQX_VSHIFT;
}

/* No group lags the virtual clock, or the least backlogged group when
 * V trails that, by more than @rounds rounds. */
static void clamp_lag(struct cfqx_sched *s, struct cfqx_sched_group *g,
		      const struct cfqx_policy *p, u32 rounds)
{
	u64 c = credit(s, p) * rounds, v = max_u64(s->vclock, s->vmin);

	if (v > c && g->vtime < v - c)
		g->vtime = v - c;
}

/* ------------------------------------------------------------------ */
/* Queueing */

static void refresh(struct cfqx_sched *s, const struct cfqx_policy *p,
		    u64 now);

static void sort_add(struct cfqx_sched_group *g, struct cfqx_sched_rq *r)
{
	struct cfqx_link *head = &g->sort[r->sync], *at;

	/* From the tail: sequential streams append in O(1). */
	for (at = head->prev; at != head; at = at->prev)
		if (container_of_rq(at, sort)->sector <= r->sector)
			break;
	link_add_before(&r->sort, at->next);
}

/* A group getting its first request after being empty. */
static void group_wakes(struct cfqx_sched *s, struct cfqx_sched_group *g,
			const struct cfqx_policy *p, u64 now)
{
	if (g->idle_since) {
		u64 think = now > g->idle_since ? now - g->idle_since : 0;
		u64 mean = g->think_ns >> CFQX_EWMA_SHIFT;

		/* Mean and mean deviation (Jacobson's RTT estimator): the
		 * deviation says how far past its mean a group that thinks
		 * on a busy host may still come back. */
		if (g->think_samples)
			g->think_dev = ewma(g->think_dev, think > mean ?
					    think - mean : mean - think);
		g->think_ns = ewma(g->think_ns, think);
		/* A minimum that forgets: +1/8 + 1 us a sample. */
		g->think_min = !g->think_samples ? think :
			min_u64(think, g->think_min + g->think_min / 8 + 1000);
		g->think_samples++;
		g->idle_since = 0;
	}
	if (g->anticipate_until) {
		if (now <= g->anticipate_until)
			s->st.idle_hit++;
		else
			s->st.idle_expired++;
		g->anticipate_until = 0;
	}
	/* Idle time banks at most one round of credit. */
	if (!g->on_active)
		clamp_lag(s, g, p, 1);
}

void cfqx_sched_insert(struct cfqx_sched *s, struct cfqx_sched_rq *r,
		       const struct cfqx_policy *p, u64 now)
{
	struct cfqx_sched_group *g = r->group;

	if (!group_queued(g)) {
		if (!g->in_flight)
			group_wakes(s, g, p, now);
		s->nr_busy++;
	}
	if (g->insert_end) {
		u64 d = r->sector > g->insert_end ?
			r->sector - g->insert_end : g->insert_end - r->sector;

		g->seeks = g->seeks - (g->seeks >> 3) +
			(d > CFQX_SEEK_NEAR ? CFQX_SEEK_ONE >> 3 : 0);
	}
	g->insert_end = r->sector + r->sectors;
	sort_add(g, r);
	r->insert_ns = now;
	r->deadline_ns = now + cfqx_fifo_expire_ns(p, r->sync);
	s->next_fifo_check = min_u64(s->next_fifo_check, r->deadline_ns);
	link_add_before(&r->fifo, &g->fifo[r->sync]);
	g->queued[r->sync]++;
	g->last_sync = r->sync;
	s->nr_queued++;
	r->state = CFQX_SRQ_QUEUED;
	r->head = 0;
	group_activate(s, g);
	s->st.inserted++;
	refresh(s, p, now);
}

void cfqx_sched_insert_head(struct cfqx_sched *s, struct cfqx_sched_rq *r)
{
	link_add_before(&r->fifo, s->head.next);
	r->state = CFQX_SRQ_QUEUED;
	r->head = 1;
	r->group->queued_head++;
	s->nr_head++;
	s->nr_queued++;
	group_activate(s, r->group);
	WRITE_ONCE(s->can_dispatch, 1);
	s->st.inserted++;
}

/* Take a queued request out of the queues (no refresh: callers do). */
static void unqueue(struct cfqx_sched *s, struct cfqx_sched_rq *r)
{
	struct cfqx_sched_group *g = r->group;

	if (r->state != CFQX_SRQ_QUEUED)
		return;
	link_del(&r->fifo);
	if (!--s->nr_queued)
		WRITE_ONCE(s->can_dispatch, 0);
	r->state = CFQX_SRQ_IDLE;
	if (r->head) {
		r->head = 0;
		g->queued_head--;
		s->nr_head--;
		return;
	}
	link_del(&r->sort);
	g->queued[r->sync]--;
	if (!group_queued(g))
		s->nr_busy--;
}

void cfqx_sched_remove(struct cfqx_sched *s, struct cfqx_sched_rq *r)
{
	if (r->state != CFQX_SRQ_QUEUED)
		return;
	unqueue(s, r);
	refresh_again(s);
}

void cfqx_sched_resize(struct cfqx_sched *s, struct cfqx_sched_rq *r,
		       u64 sector, u32 sectors)
{
	struct cfqx_sched_group *g = r->group;

	(void)s;
	/* A bio merged at the back of its group's latest request: the
	 * stream goes on from the new end. */
	if (g && r->state == CFQX_SRQ_QUEUED &&
	    g->insert_end == r->sector + r->sectors)
		g->insert_end = sector + sectors;
	r->sectors = sectors;
	if (r->sector == sector || r->state != CFQX_SRQ_QUEUED || r->head) {
		r->sector = sector;
		return;
	}
	link_del(&r->sort);
	r->sector = sector;
	sort_add(r->group, r);
}

void cfqx_sched_merge(struct cfqx_sched *s, struct cfqx_sched_rq *r,
		      struct cfqx_sched_rq *next)
{
	if (r->group != next->group)
		s->st.merged_cross++;
	if (r->state == CFQX_SRQ_QUEUED && next->state == CFQX_SRQ_QUEUED &&
	    !r->head && !next->head && r->group == next->group &&
	    r->sync == next->sync && next->deadline_ns < r->deadline_ns) {
		/* Take next's FIFO place and deadline. */
		link_del(&r->fifo);
		link_add_before(&r->fifo, &next->fifo);
		r->deadline_ns = next->deadline_ns;
	}
	cfqx_sched_remove(s, next);
	s->st.merged++;
}

struct cfqx_sched_rq *cfqx_sched_find(struct cfqx_sched_group *g, bool sync,
				      u64 sector, bool end)
{
	struct cfqx_link *head = &g->sort[sync], *at;

	for (at = head->prev; at != head; at = at->prev) {
		struct cfqx_sched_rq *r = container_of_rq(at, sort);

		if (end ? r->sector + r->sectors == sector : r->sector == sector)
			return r;
		if (!end && r->sector < sector)
			break;	/* descending starts: none further */
	}
	return NULL;
}

static struct cfqx_sched_rq *sort_neighbour(struct cfqx_sched_rq *r, bool next)
{
	struct cfqx_link *head, *n;

	if (r->state != CFQX_SRQ_QUEUED || r->head || !r->group)
		return NULL;
	head = &r->group->sort[r->sync];
	n = next ? r->sort.next : r->sort.prev;
	return n == head ? NULL : container_of_rq(n, sort);
}

struct cfqx_sched_rq *cfqx_sched_next(struct cfqx_sched_rq *r)
{
	return sort_neighbour(r, true);
}

struct cfqx_sched_rq *cfqx_sched_prev(struct cfqx_sched_rq *r)
{
	return sort_neighbour(r, false);
}

/* ------------------------------------------------------------------ */
/* Dispatch */

static bool contended(const struct cfqx_sched *s)
{
	return s->nr_active >= 2;
}

/* Dispatch is paced on a non-rotational device that throttles (it
 * stopped taking work in this pace cycle or the last one) and whose rate
 * and latency are known, with one group active too: a lone group's burst
 * would spend the tick's budget before a group that comes back in the
 * tick.  Observed, not inferred from completion gaps: completions that a
 * busy CPU handles late leave gaps like a throttle's, on any device, and
 * pacing a device that does not throttle only holds its work back. */
static bool paced(const struct cfqx_sched *s)
{
	return s->pace_rate && s->lat_min_ns &&
		!s->dev.rotational && (s->stalled_cur || s->stalled_prev);
}

/* Pace time of @sectors, ns. */
static u64 pace_ns(const struct cfqx_sched *s, u64 sectors)
{
	return (sectors << CFQX_RATE_SHIFT) / s->pace_rate;
}

/* How far the pace may trail the clock: its credit, plus the time a
 * late wake lost until it has caught up on that. */
static u64 pace_lag(const struct cfqx_sched *s)
{
	return CFQX_PACE_CREDIT_NS + s->pace_late_ns;
}

/*
 * The pace is a token bucket on the virtual device that serves at the
 * pace: a request may go while the work that device has ahead of the
 * clock, its own included, fits the bucket.  The bucket holds one
 * latency or two requests of the device's average size, whichever takes
 * longer, plus one more average request; so a request of average size
 * goes once no more than the first part is ahead, and a small one (a
 * reader's, beside bulk writes) goes well before a large one could: the
 * large one no longer takes the slot the reader is owed as soon as it
 * opens.  A request whose pace time is longer than the pace may trail
 * the clock (pace_lag()) counts as that long: otherwise it could go only
 * once the pace had trailed by more than it may, which any other
 * group's dispatch prevents, and a 1 MiB reader beside a one-deep 8 KiB
 * one waited for gaps in the other's stream.  It goes once the credit is
 * full, and its whole pace time then holds the rest.  A one-deep group
 * (@first_pass: one request queued, none in flight) whose requests are no
 * larger than the device's average may fill the bucket by one more such
 * request: 2.6.10's first pass, for the pace.  Otherwise a greedy group
 * keeps the bucket full, and a reader back from thinking waits for the
 * next slot to drain, however little it has used.  Returns when a
 * request of @sectors may go (<= now: now).
 */
static u64 pace_due(const struct cfqx_sched *s, u64 sectors, bool first_pass)
{
	u64 avg = pace_ns(s, s->avg_sectors >> CFQX_EWMA_SHIFT);
	u64 bucket = max_u64(s->lat_min_ns, 2 * avg) +
		(first_pass ? 2 * avg : avg);
	u64 need = s->pace_free + min_u64(pace_ns(s, sectors), pace_lag(s));

	return need > bucket ? need - bucket : 0;
}

/* The size the pace weighs a group's next request at: its average. */
static u64 pace_sectors(const struct cfqx_sched *s,
			const struct cfqx_sched_group *g)
{
	return (g->avg_sectors ? g->avg_sectors : s->avg_sectors) >>
		CFQX_EWMA_SHIFT;
}

/*
 * Requests the device may have in flight now: max_depth and the tags
 * always; while groups contend, also the learned depth (at least 2).
 */
u32 cfqx_sched_depth(const struct cfqx_sched *s, const struct cfqx_policy *p)
{
	u32 d = s->dev.tags;

	if (contended(s) && s->depth < d)
		d = s->depth < 2 ? 2 : s->depth;
	if (d > p->max_depth)
		d = p->max_depth;
	return d;
}

/*
 * The group's next request.  On a disk, around the end of its own last
 * dispatch (cfq_choose_req).  2.6.10 swept from the device's last sector;
 * with other groups' dispatches in between, that position lies in their
 * regions, every request of this group is "wrapped" there and the lowest
 * always wins, so its highest requests wait for the FIFO, one per batch,
 * and wait on without bound.  The group's own position keeps its sweep
 * one-way.  A sequential stream that sends its next request before the
 * group's next turn still keeps the sweep on it, and the group's other
 * streams wait for their FIFO deadline: on a disk that is the price of
 * streaming without seeks.  A device without seeks gains nothing from the
 * sweep, so there the group's requests go in arrival order (its FIFO) and
 * its streams take turns.
 */
static struct cfqx_sched_rq *group_next(const struct cfqx_sched *s,
					struct cfqx_sched_group *g,
					const struct cfqx_policy *p)
{
	int dir = g->queued[CFQX_SCHED_SYNC] ? CFQX_SCHED_SYNC :
		CFQX_SCHED_ASYNC;
	struct cfqx_link *head = &g->sort[dir], *at;
	struct cfqx_sched_rq *ceil = NULL, *floor = NULL, *lowest, *best;
	u64 last = g->last_sector, back = cfqx_back_max_sectors(p);

	if (!s->dev.rotational)
		return container_of_rq(g->fifo[dir].next, fifo);
	/* Ascending list: floor is the last below last, ceil the first at
	 * or above it (from the tail, the common sequential case is near). */
	for (at = head->prev; at != head; at = at->prev) {
		struct cfqx_sched_rq *r = container_of_rq(at, sort);

		if (r->sector >= last) {
			ceil = r;
		} else {
			floor = r;
			break;
		}
	}
	lowest = container_of_rq(head->next, sort);
	best = ceil ? ceil : floor;
	if (floor && best != floor &&
	    cfqx_choose_req(last, best->sector, floor->sector, back,
			    p->back_seek_penalty) == 2)
		best = floor;
	if (lowest != best &&
	    cfqx_choose_req(last, best->sector, lowest->sector, back,
			    p->back_seek_penalty) == 2)
		best = lowest;
	return best;
}

/*
 * May the group's expired FIFO head go before the order's choice?  On a
 * disk only the served group's (2.6.10 checked the FIFO of the queue it
 * served), or a group's whose whole backlog fits one round of `quantum`
 * requests: a deeper group's head waited in its own queue, not for the
 * order (see "Disks" above).
 */
static bool fifo_may_jump(const struct cfqx_sched *s,
			  const struct cfqx_policy *p,
			  const struct cfqx_sched_group *g,
			  const struct cfqx_sched_group *served)
{
	return !s->dev.rotational || g == served ||
		group_queued(g) + g->in_flight <= p->quantum;
}

/*
 * The oldest expired FIFO head, sync first, of a group whose FIFO was not
 * served within the last fifo_batch_expire (2.6.10 kept that time per
 * queue: groups do not wait for each other's batches) and that may jump
 * the order (@served: the group the order serves).  The scan is skipped
 * until s->next_fifo_check, the earliest time a scan could find one: a
 * head's deadline only grows as its FIFO moves, and insert lowers the
 * bound for a new head.  A head that may not jump now keeps the scan
 * going: its group's backlog or the served group can change.
 */
static struct cfqx_sched_rq *fifo_expired(struct cfqx_sched *s,
					  const struct cfqx_policy *p, u64 now,
					  bool take,
					  const struct cfqx_sched_group *served)
{
	struct cfqx_sched_rq *oldest = NULL;
	u64 next = ~0ULL;
	struct cfqx_link *at;
	int dir;

	if (now < s->next_fifo_check)
		return NULL;
	for (at = s->active.next; at != &s->active; at = at->next) {
		struct cfqx_sched_group *g = container_of_group(at);

		for (dir = CFQX_SCHED_SYNC; dir >= CFQX_SCHED_ASYNC; dir--) {
			struct cfqx_sched_rq *r;
			u64 t;

			if (link_empty(&g->fifo[dir]))
				continue;
			r = container_of_rq(g->fifo[dir].next, fifo);
			t = max_u64(r->deadline_ns, g->fifo_check_at);
			if (t > now || !fifo_may_jump(s, p, g, served)) {
				next = min_u64(next, t);
				continue;
			}
			if (!oldest || r->sync > oldest->sync ||
			    (r->sync == oldest->sync &&
			     r->deadline_ns < oldest->deadline_ns))
				oldest = r;
		}
	}
	if (!oldest) {
		s->next_fifo_check = next;
		return NULL;
	}
	if (!take)
		return oldest;
	oldest->group->fifo_check_at = now + (u64)p->fifo_batch_expire *
		CFQX_NSEC_PER_MSEC;
	s->next_fifo_check = 0;		/* others may have expired too */
	return oldest;
}

/* Do the group's requests often start away from where its last one
 * ended?  Then waiting for its next one saves no seek. */
static bool seeky(const struct cfqx_sched_group *g)
{
	return g->seeks > CFQX_SEEK_ONE / 8;
}

/* An anticipated group whose window has ended stops being active. */
static void window_over(struct cfqx_sched *s, struct cfqx_sched_group *g,
			u64 now)
{
	if (group_busy(g))
		return;
	if (g->anticipate_until && now < g->anticipate_until)
		return;
	if (g->anticipate_until)
		s->st.idle_expired++;
	g->anticipate_until = 0;
	group_deactivate(s, g);
}

/*
 * The device's capacity, sectors per ns x 2^CFQX_RATE_SHIFT: the most it
 * delivered in a pace window over the last two cycles (a window in which
 * the order held it back counted above, learn_pace()), not its rate now,
 * which holding the device for a group that does not use it lowers.
 */
static u64 capacity(const struct cfqx_sched *s)
{
	u64 c = max_u64(s->cap_max_cur, s->cap_max_prev);

	return c ? c : s->rate;
}

/*
 * Is the group backlogged, one V is divided between?  A group with
 * requests queued is.  One with only requests in flight, or anticipated
 * while it thinks, is while its own pace would use at least a fair share
 * of the device: its requests in flight (one while it thinks), each served
 * within the device's least latency plus its think time, would move at
 * least rate / active groups.  The think time is its recent minimum (none
 * before it was seen to think): what it takes when it is not itself kept
 * waiting (for a CPU the others keep busy, say), so the test does not
 * condemn a group for the delays the others cause.  Then the others cannot
 * run ahead of it.  A slower one, a few one-deep readers on a fast device
 * say, is demand-limited: it keeps its right of way (least vtime, first
 * pass), but the others use its slack and it banks nothing.
 */
static bool backlogged(const struct cfqx_sched *s,
		       const struct cfqx_sched_group *g)
{
	u64 pace, n = g->in_flight ? g->in_flight : 1;

	if (group_queued(g) || g->queued_head)
		return true;
	if (!g->in_flight && !g->anticipate_until)
		return false;
	if (!s->rate || !s->lat_min_ns || !g->avg_sectors)
		return g->in_flight;
	pace = s->lat_min_ns + (g->think_samples ? g->think_min : 0);
	return n * (g->avg_sectors >> CFQX_EWMA_SHIFT << CFQX_RATE_SHIFT) *
		s->nr_active >= capacity(s) * pace;
}

/*
 * The group to serve now, or NULL when every busy group must wait for a
 * completion.  Ends anticipation windows that are over (s->next_wake: the
 * earliest one still open); counts the backlogged groups
 * (s->nr_backlogged) and moves V up to one round below the least
 * backlogged vtime, and down to CFQX_THINK_ROUNDS above the least vtime
 * the pace holds; keeps the other active groups within CFQX_THINK_ROUNDS
 * of V.  A busy group may dispatch when it is no more than one round
 * ahead of V and, while groups contend, the device is below the contended
 * depth or the group has nothing in flight (2.6.10's first pass).  Of
 * those the least vtime wins, then fewer in flight, then the
 * one served longest ago (the active list is in service order).  When
 * none may, the least vtime busy group goes anyway once the device would
 * otherwise idle: nothing in flight, or on a paced device, holding on
 * would lose budget.
 */
static struct cfqx_sched_group *choose(struct cfqx_sched *s,
				       const struct cfqx_policy *p, u64 now)
{
	struct cfqx_sched_group *best = NULL, *least = NULL;
	struct cfqx_link *at, *next;
	u64 c = credit(s, p), vmin = ~0ULL, pace_at = ~0ULL, vpaced = ~0ULL;
	u32 busy = 0;
	/* thin: the least served backlogged group has nothing queued */
	bool below, paced_now, thin = false;
	u8 hold = CFQX_HOLD_NOTHING;

	s->next_wake = 0;
	for (at = s->active.next; at != &s->active; at = next) {
		struct cfqx_sched_group *g = container_of_group(at);

		next = at->next;
		window_over(s, g, now);
		if (!g->on_active)
			continue;
		/* Nothing below changes what backlogged() reads. */
		g->backlogged = backlogged(s, g);
		if (g->backlogged) {
			busy++;
			if (g->vtime < vmin) {
				vmin = g->vtime;
				thin = !group_queued(g) && !g->queued_head;
			}
		}
		/* A busy group's window may be over: only open ones wake. */
		if (g->anticipate_until > now &&
		    (!s->next_wake || g->anticipate_until < s->next_wake))
			s->next_wake = g->anticipate_until;
	}
	s->nr_backlogged = busy;
	s->vmin = busy ? vmin : 0;
	if (busy && vmin > c && s->vclock < vmin - c)
		s->vclock = vmin - c;
	below = !contended(s) || s->in_flight < cfqx_sched_depth(s, p);
	paced_now = paced(s);
	s->pace_refusing = 0;
	for (at = s->active.next; at != &s->active; at = at->next) {
		struct cfqx_sched_group *g = container_of_group(at);

		/* A group that is not backlogged keeps a few rounds. */
		if (!g->backlogged)
			clamp_lag(s, g, p, CFQX_THINK_ROUNDS);
		if (!group_queued(g))
			continue;
		if (!least || g->vtime < least->vtime)
			least = g;
		if (g->vtime > s->vclock + c) {
			/* Held for the least served backlogged group, which
			 * has nothing queued, with the device below its
			 * depth: what the device delivers now is less than it
			 * could. */
			if (thin && below)
				s->cap_held = 1;
			if (!hold)
				hold = CFQX_HOLD_ORDER;
			continue;
		}
		if (!below && g->in_flight) {
			s->win_full = 1;
			hold = CFQX_HOLD_DEPTH;
			continue;
		}
		/* The pace holds every group here (a queued group is
		 * backlogged): exempting one-deep readers back from thinking
		 * gives the tick's budget to whoever comes first again.  They
		 * get one more request's room in the pace's bucket instead. */
		if (paced_now) {
			bool first_pass = !g->in_flight &&
				group_queued(g) == 1 &&
				g->avg_sectors <= s->avg_sectors;
			u64 t = pace_due(s, pace_sectors(s, g), first_pass);

			if (t > now) {
				s->pace_held = 1;
				hold = CFQX_HOLD_PACE;
				pace_at = min_u64(pace_at, t);
				vpaced = min_u64(vpaced, g->vtime);
				continue;
			}
		}
		if (!best || g->vtime < best->vtime ||
		    (g->vtime == best->vtime && g->in_flight < best->in_flight))
			best = g;
	}
	/* A group the pace holds falls behind V while the others' smaller
	 * requests fit the budget and move V: within a few rounds of it,
	 * the order holds them until its request fits. */
	if (vpaced != ~0ULL && s->vclock > vpaced + CFQX_THINK_ROUNDS * c)
		s->vclock = vpaced + CFQX_THINK_ROUNDS * c;
	/* A disk: keep serving the group it is on while it may (a seek
	 * to another group's region per request wastes the disk), and
	 * while its requests are in flight, or it thinks within its
	 * window and is not seeky, wait for its next one (CFQ v3's
	 * slice_idle), uncharged, for at most twice its round in wall time
	 * since its turn began.  Not past an expired FIFO, nor while a group
	 * more than a round behind it waits. */
	s->hold_why = hold;
	if (s->dev.rotational && s->last_group &&
	    s->last_group->on_active &&
	    s->last_group->vtime <= s->vclock + c &&
	    !(best && best->vtime + c < s->last_group->vtime) &&
	    now - s->turn_since <= 2 * (c >> CFQX_VSHIFT) &&
	    !fifo_expired(s, p, now, false, s->last_group)) {
		struct cfqx_sched_group *g = s->last_group;

		if (group_queued(g)) {
			if (below)
				return g;
			s->hold_why = CFQX_HOLD_DEPTH;
			return NULL;
		}
		if (g->in_flight || (g->anticipate_until > now &&
				     !seeky(g))) {
			s->hold_why = CFQX_HOLD_ORDER;
			return NULL;
		}
	}
	/* Otherwise the device is never idled: with nothing in flight, the
	 * least served queued group goes.  A paced device's budget, not its
	 * queue, is what the order divides, whatever is in flight: the
	 * least served queued group goes once holding on would lose budget
	 * (the pace would trail the clock by more than its credit), and
	 * until then the pace holds it. */
	if (!best && least && pace_at == ~0ULL) {
		if (!paced_now) {
			if (!s->in_flight)
				best = least;
		} else if (s->pace_free + pace_lag(s) <= now) {
			best = least;
		} else {
			pace_at = s->pace_free + pace_lag(s);
		}
	}
	/* Held for the pace: a timer asks again, even with requests in
	 * flight (one the driver refused waits on blk-mq's dispatch list,
	 * and only a queue run retries it: a completion may never come). */
	if (!best && pace_at != ~0ULL) {
		if (!s->next_wake || pace_at < s->next_wake)
			s->next_wake = pace_at;
		s->pace_refusing = 1;
		return NULL;
	}
	return best;
}

/* Requests the device may have in flight whoever asks. */
static u32 hard_cap(const struct cfqx_sched *s, const struct cfqx_policy *p)
{
	return s->dev.tags < p->max_depth ? s->dev.tags : p->max_depth;
}

/*
 * Recompute what has_work() answers, after any change (choose() also ends
 * the windows that are over).  The policy is remembered for the calls
 * that do not take one (remove, merge, requeue, forget).  The time since
 * the last call is counted by why queued work waited in it (st.held_ns:
 * the order, the depth or the pace held it, or the core was ready and
 * nobody asked), so a device that delivers less than it could says why.
 */
static void refresh(struct cfqx_sched *s, const struct cfqx_policy *p, u64 now)
{
	struct cfqx_sched_group *g = NULL;
	bool can;

	/* The time since the last call passed in the state it left. */
	if (s->hold && now > s->last_now) {
		s->st.held_ns[s->hold] += now - s->last_now;
		if (s->hold > CFQX_HOLD_READY && !s->in_flight_then)
			s->st.held_idle_ns += now - s->last_now;
	}
	s->policy = p;
	s->last_now = now;
	s->hold_why = CFQX_HOLD_NOTHING;
	/* With nothing queued there is nothing to choose (has_work() is
	 * false): choose() runs again before any dispatch decision. */
	if (s->nr_active && s->nr_queued)
		g = choose(s, p, now);
	can = s->nr_head ||
		(s->nr_queued && s->in_flight < hard_cap(s, p) && g);
	if (!s->nr_queued && !s->nr_head)
		s->hold = CFQX_HOLD_NOTHING;
	else if (can)
		s->hold = CFQX_HOLD_READY;
	else if (s->hold_why)
		s->hold = s->hold_why;
	else
		s->hold = CFQX_HOLD_DEPTH;	/* the hard cap */
	s->in_flight_then = s->in_flight;
	WRITE_ONCE(s->can_dispatch, can);
}

/* After a call without a policy: refresh with the last one seen. */
static void refresh_again(struct cfqx_sched *s)
{
	if (s->policy)
		refresh(s, s->policy, s->last_now);
}

u64 cfqx_sched_tick(struct cfqx_sched *s, const struct cfqx_policy *p, u64 now,
		    u64 due)
{
	/* The timer fired more than a device latency late: the host stood
	 * the guest still, and with it the device (a busy host, a VM).
	 * That time is not the device's: the pace may catch up on it, up
	 * to a window. */
	if (due && s->lat_min_ns && now > due + s->lat_min_ns) {
		s->pace_late_ns = max_u64(s->pace_late_ns,
					  min_u64(now - due,
						  CFQX_PACE_WINDOW_NS));
		s->st.late_wakes++;
		s->pace_win_lost_ns += now - due;	/* not the device's */
	}
	refresh(s, p, now);
	return s->next_wake > now ? s->next_wake : 0;
}

static void mark_dispatched(struct cfqx_sched *s, struct cfqx_sched_rq *r,
			    u64 now)
{
	struct cfqx_sched_group *g = r->group;

	if (!r->head)
		g->wait_ns = ewma(g->wait_ns, now > r->insert_ns ?
				  now - r->insert_ns : 0);
	unqueue(s, r);
	r->state = CFQX_SRQ_DISPATCHED;
	r->dispatch_ns = now;
	r->charge = rq_cost(s, r);
	/* V advances at the rate each backlogged group is entitled to. */
	s->vclock += (r->charge << CFQX_VSHIFT) /
		(s->nr_backlogged ? s->nr_backlogged : 1);
	g->vtime += r->charge << CFQX_VSHIFT;
	g->charged += r->charge;
	g->dispatched++;
	g->avg_sectors = ewma(g->avg_sectors, r->sectors);
	g->in_flight++;
	/* One request never holds the pace for more than a window.  The
	 * pace trails the clock by at most the credit, plus the time a late
	 * wake lost, until it has caught up on that. */
	if (paced(s)) {
		u64 lag = pace_lag(s);

		s->pace_free = max_u64(s->pace_free + lag, now) - lag +
			min_u64(pace_ns(s, r->sectors), CFQX_PACE_WINDOW_NS);
		if (s->pace_free + CFQX_PACE_CREDIT_NS >= now)
			s->pace_late_ns = 0;
		s->st.paced++;
	} else {
		s->pace_late_ns = 0;
	}
	r->alone = !s->in_flight;
	if (!s->in_flight++)
		s->busy_since = now;
	g->last_sector = r->sector + r->sectors;
	if (s->last_group != g)
		s->turn_since = now;
	s->last_group = g;
	/* Served: to the back of the round robin. */
	group_deactivate(s, g);
	group_activate(s, g);
	s->st.dispatched++;
}

struct cfqx_sched_rq *cfqx_sched_dispatch(struct cfqx_sched *s,
					  const struct cfqx_policy *p, u64 now,
					  u64 *wake_at)
{
	struct cfqx_sched_group *g = NULL;
	struct cfqx_sched_rq *r;

	*wake_at = 0;
	if (!s->nr_queued) {
		WRITE_ONCE(s->can_dispatch, 0);
		return NULL;
	}
	if (s->nr_head) {
		r = container_of_rq(s->head.next, fifo);
		goto out;
	}
	if (s->in_flight < hard_cap(s, p))
		g = choose(s, p, now);
	if (!g) {
		s->st.depth_full++;
		if (s->pace_refusing)
			s->st.pace_refused++;
		*wake_at = s->next_wake > now ? s->next_wake : 0;
		refresh(s, p, now);
		return NULL;
	}
	r = fifo_expired(s, p, now, true, g);
	if (r)
		s->st.fifo_expired++;
	else
		r = group_next(s, g, p);
out:
	mark_dispatched(s, r, now);
	refresh(s, p, now);
	return r;
}

bool cfqx_sched_has_work(const struct cfqx_sched *s)
{
	return READ_ONCE(s->can_dispatch);
}

/* Sectors per ns x 2^CFQX_RATE_SHIFT, in KiB/s. */
static u64 rate_kib_s(u64 rate)
{
	return (rate * 1000000000ULL) >> (CFQX_RATE_SHIFT + 1);
}

u64 cfqx_sched_capacity_kib_s(const struct cfqx_sched *s)
{
	return rate_kib_s(capacity(s));
}

u64 cfqx_sched_round(const struct cfqx_sched *s, const struct cfqx_policy *p)
{
	return credit(s, p) >> CFQX_VSHIFT;
}

u64 cfqx_sched_pace_kib_s(const struct cfqx_sched *s)
{
	return paced(s) ? rate_kib_s(s->pace_rate) : 0;
}

u64 cfqx_sched_wake_at(const struct cfqx_sched *s)
{
	return s->nr_queued && !s->can_dispatch &&
		s->next_wake > s->last_now ? s->next_wake : 0;
}

/* ------------------------------------------------------------------ */
/* Completion */

/*
 * The contended depth, probed: the least depth past which more requests
 * in flight no longer raise the device's rate.  Each window in which the
 * depth held work back (a queued group was refused for it) is one
 * measurement.  From depth_base the core tries a quarter more (or less)
 * for one window: up is kept when the rate grew by at least a quarter
 * of the depth's growth (the device still turns depth into bandwidth),
 * down when the rate fell by less than an eighth of the cut (the device
 * did not need it); a kept step probes on in the same direction, a
 * refused one goes back to depth_base and waits CFQX_PROBE_WAIT windows,
 * then probes the other way.  So the depth follows the device's knee
 * whatever its parallelism (a striped SSD, a throttled null_blk, a disk
 * that serves one at a time) and whatever the latency of its requests.
 */
static void probe_depth(struct cfqx_sched *s, u64 rate)
{
	u32 base = s->depth_base, step = base / 4 ? base / 4 : 1;

	/* A throttling device's rate is known (the pace's).  A window in
	 * which the depth held work back and the device delivered less than
	 * 7/8 of it: the depth, not the device, set the rate (on a busy
	 * host completions that wait for a CPU hold their requests in
	 * flight), so the base steps up at once.  A probe's comparison of
	 * two windows could not tell: the host's noise decides it. */
	if (paced(s) && s->win_full && !s->probe && base < s->dev.tags &&
	    rate * 8 < max_u64(s->rate_max_cur, s->rate_max_prev) * 7) {
		s->depth_base = (u32)min_u64(base + step, s->dev.tags);
		s->depth = s->depth_base;
		s->rate_base = rate;
		s->probe_wait = 0;
		s->next_probe = 1;
		return;
	}
	if (s->depth > base)
		step = s->depth - base;
	else if (s->depth < base)
		step = base - s->depth;
	if (s->probe) {
		/* up: rate / base_rate >= 1 + step / (4 base);
		 * down: rate / base_rate >= 1 - step / (8 base) */
		bool kept = s->probe > 0 ?
			rate * 4 * base >= s->rate_base * (4 * base + step) :
			rate * 8 * base >= s->rate_base * (8 * base - step);

		if (kept) {
			s->depth_base = s->depth;
			s->rate_base = rate;
			s->probe_wait = 0;
			s->next_probe = s->probe;
		} else {
			s->probe_wait = CFQX_PROBE_WAIT;
			s->next_probe = -s->probe;
		}
	} else {
		s->rate_base = rate;
	}
	s->probe = 0;
	s->depth = s->depth_base;
	if (s->probe_wait) {
		s->probe_wait--;
		return;
	}
	base = s->depth_base;
	step = base / 4 ? base / 4 : 1;
	if (s->next_probe < 0 && base < 2 + step)
		s->next_probe = 1;
	if (s->next_probe > 0 && base >= s->dev.tags) {
		if (base < 2 + step)
			return;
		s->next_probe = -1;
	}
	s->probe = s->next_probe;
	if (s->probe > 0)
		s->depth = (u32)min_u64(base + step, s->dev.tags);
	else
		s->depth = base - step;
}

/*
 * The pace, learned per window of CFQX_PACE_WINDOW_NS (BBR's pacing
 * gain cycle, on a block device): the device's rate is the most it
 * delivered in a window over the last two cycles of CFQX_PACE_CYCLE
 * windows; the pace is 31/32 of it, so that the device's own queue
 * drains and the order stays in the core, except for one window a cycle
 * at 5/4 (will the device take more?) and the next at 3/4 (drain what
 * that queued).  A window in which the pace, not the device, held work
 * back counts as 1/16 above the pace, so the pace cannot spiral down.
 * A window is a few of a throttle's ticks long, and which ticks' refills
 * it catches can make it read above the device's rate, which the
 * maximum keeps: a cruise window in which the device still turned work
 * away trims the cruise pace (pace_trim), one in which the pace held
 * work and the device took it all undoes a step.
 * Time the host stood the guest still (a late timer, tick()'s @due) is
 * not in the window: the device delivered nothing then because the
 * guest did not run, and counting it would talk the pace down to what a
 * busy host leaves.
 */
static void learn_pace(struct cfqx_sched *s, const struct cfqx_sched_rq *r,
		       u64 now)
{
	u64 span, rate, cap, dev;

	if (!s->pace_win_start) {
		s->pace_win_start = now;
		return;
	}
	s->pace_win_sectors += r->sectors;
	span = now - s->pace_win_start;
	if (span < CFQX_PACE_WINDOW_NS)
		return;
	/* At most half: the window still measures the device. */
	span -= min_u64(s->pace_win_lost_ns, span / 2);
	rate = (s->pace_win_sectors << CFQX_RATE_SHIFT) / span;
	/* The pace held work back and the device never stopped: the pace,
	 * not the device, set what it delivered, so it may take a sixteenth
	 * more (a lull, or a guest that stood still, cannot talk it down
	 * for good). */
	if (s->pace_held && !s->win_stalled)
		rate = max_u64(rate, s->pace_rate + s->pace_rate / 16);
	/* Likewise when the order held work back for a group that had
	 * nothing queued while the device had room and did not throttle in
	 * this window: the capacity that decides who is backlogged cannot
	 * talk itself down either.  (A device that throttled in the window
	 * was at its rate; a disk's rate in bytes follows its seeks, not
	 * the order.)  Only that capacity: the pace stays at what the
	 * device delivered, below its throttle. */
	cap = rate;
	if (s->cap_held && !s->dev.rotational && !s->win_stalled)
		cap = max_u64(rate, capacity(s) + capacity(s) / 16);
	/* A cruise window (the pace below the device's rate) in which the
	 * device still turned work away: the rate read too high, so the
	 * cruise pace comes down a 64th of it, at most CFQX_PACE_TRIM of
	 * them; one in which the pace held work and the device took it all
	 * takes a 64th back. */
	if (s->pace_phase >= 2 && paced(s)) {
		if (s->win_stalled && s->pace_trim < CFQX_PACE_TRIM)
			s->pace_trim++;
		else if (!s->win_stalled && s->pace_held && s->pace_trim)
			s->pace_trim--;
	}
	s->pace_held = 0;
	s->cap_held = 0;
	s->win_stalled = 0;
	s->pace_win_start = now;
	s->pace_win_sectors = 0;
	s->pace_win_lost_ns = 0;
	if (rate > s->rate_max_cur)
		s->rate_max_cur = rate;
	if (cap > s->cap_max_cur)
		s->cap_max_cur = cap;
	if (++s->pace_phase >= CFQX_PACE_CYCLE) {
		s->pace_phase = 0;
		s->rate_max_prev = s->rate_max_cur;
		s->rate_max_cur = 0;
		s->cap_max_prev = s->cap_max_cur;
		s->cap_max_cur = 0;
		s->stalled_prev = s->stalled_cur;
		s->stalled_cur = 0;
	}
	dev = max_u64(s->rate_max_cur, s->rate_max_prev);
	switch (s->pace_phase) {
	case 0:
		s->pace_rate = dev + dev / 4;
		break;
	case 1:
		s->pace_rate = dev - dev / 4;
		break;
	default:
		s->pace_rate = dev - dev / 32 - dev / 64 * s->pace_trim;
	}
}

/* Learn the device: its rate and latency, and the depth, per window. */
static void learn_device(struct cfqx_sched *s, const struct cfqx_sched_rq *r,
			 u64 lat, u64 now)
{
	/* Every latency bounds the device's own from above (one that queued
	 * behind others took longer), so the least of a window is kept.
	 * Only a window in which a request found the device idle may raise
	 * it: without one, every request queued, and their latencies say
	 * how deep the device was kept, not how fast it is.  (Large
	 * requests alone and small ones queued behind them: the small ones
	 * are the bound.) */
	if (!s->lat_min_next || lat < s->lat_min_next)
		s->lat_min_next = lat;
	s->lat_alone |= r->alone;
	s->win_sectors += r->sectors;
	s->avg_sectors = ewma(s->avg_sectors, r->sectors ? r->sectors : 1);
	learn_pace(s, r, now);
	if (!s->in_flight) {
		s->win_busy_ns += now - s->busy_since;
		s->busy_since = now;
	}
	if (++s->window_rqs < CFQX_WINDOW_RQS)
		return;
	if (s->in_flight) {
		s->win_busy_ns += now - s->busy_since;
		s->busy_since = now;
	}
	if (s->win_busy_ns) {
		s->rate = (s->win_sectors << CFQX_RATE_SHIFT) / s->win_busy_ns;
		if (s->win_full || s->probe)
			probe_depth(s, s->rate);
	}
	if (s->lat_min_next && (s->lat_alone || !s->lat_min_ns ||
				s->lat_min_next < s->lat_min_ns))
		s->lat_min_ns = s->lat_min_next;
	s->lat_min_next = 0;
	s->lat_alone = 0;
	s->window_rqs = 0;
	s->win_sectors = 0;
	s->win_busy_ns = 0;
	s->win_full = 0;
}

u64 cfqx_sched_service(struct cfqx_sched_group *g, u64 now)
{
	u64 epoch = cfqx_epoch(now);

	g->service_ns = cfqx_service_decay(g->service_ns, g->service_epoch,
					   epoch);
	g->service_epoch = epoch;
	return g->service_ns;
}

/* A sync group just emptied: anticipate it for about its think time, up
 * to slice_idle; on a disk up to two switches' cost, what leaving and
 * coming back would cost. */
static void anticipate(struct cfqx_sched *s, struct cfqx_sched_group *g,
		       const struct cfqx_policy *p, u64 now)
{
	u64 max = (u64)p->slice_idle * 1000, think, window;

	g->idle_since = now;
	if (!max || !g->last_sync)
		return;
	if (s->dev.rotational)
		max = max_u64(max, 2 * (s->switch_cost >> CFQX_EWMA_SHIFT));
	if (g->think_samples < 2) {
		window = max;
	} else {
		think = g->think_ns >> CFQX_EWMA_SHIFT;
		if (think > max)
			return;
		window = max_u64(2 * think, think + 4 * (g->think_dev >>
							 CFQX_EWMA_SHIFT));
		window = min_u64(max, window + s->lat_min_ns);
	}
	g->anticipate_until = now + window;
}

bool cfqx_sched_complete(struct cfqx_sched *s, struct cfqx_sched_rq *r,
			 const struct cfqx_policy *p, u64 now)
{
	struct cfqx_sched_group *g = r->group;
	/* Queued work the core would not dispatch before this completion. */
	bool held = s->nr_queued && !s->can_dispatch;
	u64 lat, took, start;

	if (r->state != CFQX_SRQ_DISPATCHED)
		return false;
	r->state = CFQX_SRQ_IDLE;
	lat = now > r->dispatch_ns ? now - r->dispatch_ns : 0;
	g->lat_ns = ewma(g->lat_ns, lat);
	/* Exclusive device time: since the later of dispatch and the
	 * previous completion. */
	start = max_u64(r->dispatch_ns, s->last_complete_ns);
	took = now > start ? now - start : 0;
	s->last_complete_ns = now;
	if (s->dev.rotational) {
		g->vtime += took << CFQX_VSHIFT;
		g->vtime -= min_u64(g->vtime, r->charge << CFQX_VSHIFT);
		g->charged += took;
		g->charged -= min_u64(g->charged, r->charge);
		s->avg_cost = ewma(s->avg_cost, took);
		if (g != s->last_done)
			s->switch_cost = ewma(s->switch_cost, took);
		s->last_done = g;
	} else {
		s->avg_cost = ewma(s->avg_cost, r->charge);
	}
	cfqx_sched_service(g, now);
	g->service_ns += took;
	g->in_flight--;
	s->in_flight--;
	learn_device(s, r, lat, now);
	if (!group_busy(g)) {
		anticipate(s, g, p, now);
		if (!g->anticipate_until)
			group_deactivate(s, g);
	}
	s->st.completed++;
	refresh(s, p, now);
	return held && s->can_dispatch;
}

void cfqx_sched_stopped(struct cfqx_sched *s)
{
	s->stalled_cur = 1;
	s->win_stalled = 1;
}

void cfqx_sched_requeue(struct cfqx_sched *s, struct cfqx_sched_rq *r)
{
	struct cfqx_sched_group *g = r->group;

	if (r->state != CFQX_SRQ_DISPATCHED)
		return;
	r->state = CFQX_SRQ_IDLE;
	/* Not served after all: give the charge back. */
	g->vtime -= min_u64(g->vtime, r->charge << CFQX_VSHIFT);
	g->charged -= min_u64(g->charged, r->charge);
	g->in_flight--;
	s->in_flight--;
	s->st.requeued++;
	refresh_again(s);
}

/* ------------------------------------------------------------------ */
/* Admission */

bool cfqx_sched_may_queue(const struct cfqx_sched *s,
			  const struct cfqx_sched_group *g, bool write,
			  const struct cfqx_policy *p, u32 nr_requests)
{
	/* The groups holding requests are the active ones (queued, in
	 * flight, or thinking and about to come back), and the asker. */
	u32 holders = s->nr_active + !g->on_active;

	if (g->allocated[write] < cfqx_queue_limit(nr_requests, holders,
						   p->max_queued))
		return true;
	/* Past its share while the pool keeps a request for each holder:
	 * a share another group leaves unused is not wasted. */
	return g->allocated[write] < p->max_queued &&
		s->nr_allocated + holders < nr_requests;
}
