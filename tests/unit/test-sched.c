// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the scheduling core (sched/cfqx-sched.c), the code that
 * makes every decision of the cfqx elevator and of `cfqx sim`.  The tests
 * call the core directly in user space with a synthetic clock: no threads,
 * no sleeps, the same result on every run and every machine.
 *
 * Each suite proves one rule of the core's header comment: request
 * bookkeeping (insert, dispatch, complete, requeue, remove, merge, merge
 * candidates), the order inside a group (one-way elevator with 2.6.10's
 * small backward seeks, sync before async), FIFO expiry, the group order
 * (virtual service, bounded idle credit), the contended dispatch depth
 * learned from the device (gated and internally queueing), think-time
 * anticipation (a thinker stays active and is counted backlogged only
 * while its pace would use a fair share; the device is never idled),
 * the pace (only while the device turns work away, not for late
 * completions),
 * admission, a seeded property test that has_work() agrees with
 * dispatch() both ways under random operations (requeues at head, groups
 * freed, the glue's timer calling tick()), and fairness on a small
 * bandwidth-limited device model written here (independent of the
 * simulator's models, so a fault in one cannot hide in the other).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfqx-sched.h"

#define US 1000ULL
#define MS 1000000ULL
#define SEC 1000000000ULL
/* The clock's origin: the core reads a zero time stamp as "not set". */
#define T0 SEC

/* Fail with a message, without a Criterion report for every passing check
 * (the property test checks hundreds of thousands of facts). */
#define REQUIRE(cond, ...)                                                  \
	do {                                                                \
		if (!(cond))                                                \
			cr_assert_fail(__VA_ARGS__);                        \
	} while (0)

#define RQ_OF(l, m) \
	((struct cfqx_sched_rq *)((char *)(l) - \
				  offsetof(struct cfqx_sched_rq, m)))

/* One device's core, its policy and the clock. */
struct rig {
	struct cfqx_sched s;
	struct cfqx_policy p;
	u64 now;
};

static void rig_init_dev(struct rig *t, u32 tags, bool rotational)
{
	const struct cfqx_policy p = CFQX_POLICY_DEFAULT;
	const struct cfqx_sched_device d = { .tags = tags,
					     .rotational = rotational };

	t->p = p;
	cfqx_sched_init(&t->s, &d);
	t->now = T0;
}

static void rig_init(struct rig *t, u32 tags)
{
	rig_init_dev(t, tags, false);
}

/* A disk: the order inside a group is by sector (a seek costs). */
static void rig_init_disk(struct rig *t, u32 tags)
{
	rig_init_dev(t, tags, true);
}

/* What the elevator's prepare + insert do.  Sync requests are reads. */
static void rq_add(struct rig *t, struct cfqx_sched_rq *r,
		   struct cfqx_sched_group *g, u64 sector, u32 sectors,
		   bool sync)
{
	cfqx_sched_rq_init(&t->s, r, g, sector, sectors, sync, !sync, r);
	cfqx_sched_insert(&t->s, r, &t->p, t->now);
}

static struct cfqx_sched_rq *rq_next(struct rig *t, u64 *wake_at)
{
	u64 w;

	return cfqx_sched_dispatch(&t->s, &t->p, t->now,
				   wake_at ? wake_at : &w);
}

/* Completion and free, as the elevator's finish_request. */
static bool rq_done(struct rig *t, struct cfqx_sched_rq *r)
{
	bool kick = cfqx_sched_complete(&t->s, r, &t->p, t->now);

	cfqx_sched_release(&t->s, r);
	return kick;
}

static u32 list_len(const struct cfqx_link *h)
{
	const struct cfqx_link *l;
	u32 n = 0;

	for (l = h->next; l != h; l = l->next)
		n++;
	return n;
}

static bool on_list(const struct cfqx_link *h, const struct cfqx_link *n)
{
	const struct cfqx_link *l;

	for (l = h->next; l != h; l = l->next)
		if (l == n)
			return true;
	return false;
}

/*
 * Every structural invariant of the core over the groups @gs: list
 * lengths equal the counters, sort queues ascend, FIFOs are in deadline
 * order, a group with work is active, the device counters are the sums.
 */
static void check_invariants(const struct cfqx_sched *s,
			     struct cfqx_sched_group *const *gs, int ng)
{
	u32 queued = 0, busy = 0, in_flight = 0, active = 0;
	const struct cfqx_link *l;
	int i, dir;

	for (i = 0; i < ng; i++) {
		const struct cfqx_sched_group *g = gs[i];

		for (dir = 0; dir < 2; dir++) {
			u64 prev = 0;

			REQUIRE(list_len(&g->sort[dir]) == g->queued[dir],
				"group %d dir %d: sort list %u, queued %u", i,
				dir, list_len(&g->sort[dir]), g->queued[dir]);
			REQUIRE(list_len(&g->fifo[dir]) == g->queued[dir],
				"group %d dir %d: fifo %u, queued %u", i, dir,
				list_len(&g->fifo[dir]), g->queued[dir]);
			for (l = g->sort[dir].next; l != &g->sort[dir];
			     l = l->next) {
				const struct cfqx_sched_rq *r = RQ_OF(l, sort);

				REQUIRE(r->group == g && r->sync == dir &&
					r->state == CFQX_SRQ_QUEUED && !r->head,
					"group %d: foreign or stale request "
					"in its sort queue", i);
				REQUIRE(r->sector >= prev,
					"group %d dir %d: sort queue not "
					"ascending (%llu after %llu)", i, dir,
					(unsigned long long)r->sector,
					(unsigned long long)prev);
				prev = r->sector;
			}
			prev = 0;
			for (l = g->fifo[dir].next; l != &g->fifo[dir];
			     l = l->next) {
				const struct cfqx_sched_rq *r = RQ_OF(l, fifo);

				REQUIRE(r->group == g &&
					r->state == CFQX_SRQ_QUEUED,
					"group %d: stale request in its FIFO",
					i);
				REQUIRE(r->deadline_ns >= prev,
					"group %d dir %d: FIFO out of "
					"deadline order", i, dir);
				prev = r->deadline_ns;
			}
		}
		queued += g->queued[0] + g->queued[1];
		busy += g->queued[0] + g->queued[1] > 0;
		in_flight += g->in_flight;
		active += g->on_active;
		REQUIRE(g->on_active == on_list(&s->active, &g->active),
			"group %d: on_active %u but %s the active list", i,
			g->on_active,
			on_list(&s->active, &g->active) ? "on" : "not on");
		if (g->queued[0] + g->queued[1] || g->in_flight)
			REQUIRE(g->on_active,
				"group %d has work but is not active", i);
	}
	REQUIRE(list_len(&s->head) == s->nr_head, "head list %u, nr_head %u",
		list_len(&s->head), s->nr_head);
	for (l = s->head.next; l != &s->head; l = l->next)
		REQUIRE(RQ_OF(l, fifo)->head &&
			RQ_OF(l, fifo)->state == CFQX_SRQ_QUEUED,
			"stale request on the head list");
	REQUIRE(queued + s->nr_head == s->nr_queued,
		"nr_queued %u, groups %u + head %u", s->nr_queued, queued,
		s->nr_head);
	REQUIRE(busy == s->nr_busy, "nr_busy %u, busy groups %u", s->nr_busy,
		busy);
	REQUIRE(in_flight == s->in_flight, "in_flight %u, groups' sum %u",
		s->in_flight, in_flight);
	REQUIRE(active == s->nr_active && list_len(&s->active) == active,
		"nr_active %u, active groups %u, list %u", s->nr_active,
		active, list_len(&s->active));
}

/* ------------------------------------------------------------------ */
/* Bookkeeping */

/* Two groups, no anticipation: a queues three 8-sector sync reads, b two
 * async writes far from them (r[0..2] a's, r[3..4] b's). */
static void two_groups_queued(struct rig *t, struct cfqx_sched_group *a,
			      struct cfqx_sched_group *b,
			      struct cfqx_sched_rq r[5])
{
	int i;

	rig_init(t, 64);
	t->p.slice_idle = 0;
	cfqx_sched_group_init(a);
	cfqx_sched_group_init(b);
	for (i = 0; i < 3; i++)
		rq_add(t, &r[i], a, 1000 + 8 * (u64)i, 8, true);
	for (i = 3; i < 5; i++)
		rq_add(t, &r[i], b, 90000 + 8 * (u64)i, 8, false);
}

Test(sched_book, insert_dispatch_complete_back_to_zero)
{
	struct cfqx_sched_group a, b, *gs[] = { &a, &b };
	struct cfqx_sched_rq r[5], *x, *out[5];
	struct rig t;
	int i, n = 0;

	two_groups_queued(&t, &a, &b, r);
	check_invariants(&t.s, gs, 2);
	cr_assert_eq(t.s.nr_queued, 5);
	cr_assert_eq(t.s.nr_busy, 2);
	cr_assert_eq(t.s.nr_active, 2);
	cr_assert_eq(a.queued[CFQX_SCHED_SYNC], 3);
	cr_assert_eq(b.queued[CFQX_SCHED_ASYNC], 2);
	cr_assert_eq(a.allocated[0], 3);	/* reads */
	cr_assert_eq(b.allocated[1], 2);	/* writes */
	cr_assert(cfqx_sched_has_work(&t.s));

	/* Two groups contend: the depth before any measurement is 4. */
	while ((x = rq_next(&t, NULL)))
		out[n++] = x;
	cr_assert_eq(n, 4);
	cr_assert_eq(t.s.in_flight, 4);
	cr_assert_eq(t.s.st.depth_full, 1);
	cr_assert_not(cfqx_sched_has_work(&t.s));
	check_invariants(&t.s, gs, 2);

	t.now += 100 * US;
	cr_assert(rq_done(&t, out[0]), "a refused dispatch asks for a kick");
	out[n++] = rq_next(&t, NULL);
	cr_assert_not_null(out[4]);
	for (i = 1; i < 5; i++) {
		t.now += 10 * US;
		rq_done(&t, out[i]);
		check_invariants(&t.s, gs, 2);
	}
	cr_assert_eq(t.s.nr_queued, 0);
	cr_assert_eq(t.s.in_flight, 0);
	cr_assert_eq(t.s.nr_busy, 0);
	cr_assert_eq(t.s.nr_active, 0);
	cr_assert(cfqx_sched_group_idle(&a) && cfqx_sched_group_idle(&b));
	cr_assert_eq(a.allocated[0] + b.allocated[1], 0);
	cr_assert_eq(t.s.st.inserted, 5);
	cr_assert_eq(t.s.st.dispatched, 5);
	cr_assert_eq(t.s.st.completed, 5);
	cr_assert_eq(a.dispatched, 3);
	cr_assert_eq(b.dispatched, 2);
	cr_assert_eq(a.charged, 24);	/* sectors, non-rotational */
	cr_assert_eq(b.charged, 16);
	cr_assert_not(cfqx_sched_has_work(&t.s));
	cr_assert_null(rq_next(&t, NULL));
}

/* The group's wait in the core and latency on the device (debugfs
 * groups): EWMAs of insert -> dispatch and dispatch -> completion. */
Test(sched_book, a_groups_wait_and_device_latency_are_measured)
{
	struct cfqx_sched_group g;
	struct cfqx_sched_rq r[2], *x;
	struct rig t;

	rig_init(&t, 32);
	cfqx_sched_group_init(&g);
	rq_add(&t, &r[0], &g, 0, 8, true);
	t.now += 100 * US;
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &r[0]);
	t.now += 300 * US;
	rq_done(&t, x);
	/* The first sample is the EWMA (x16). */
	cr_assert_eq(g.wait_ns >> 4, 100 * US);
	cr_assert_eq(g.lat_ns >> 4, 300 * US);
	/* The next moves it an eighth of the way. */
	rq_add(&t, &r[1], &g, 8, 8, true);
	x = rq_next(&t, NULL);
	t.now += 1100 * US;
	rq_done(&t, x);
	cr_assert_eq(g.wait_ns >> 4, 100 * US - 100 * US / 8);
	cr_assert_eq(g.lat_ns >> 4, 300 * US + 100 * US);
}

Test(sched_book, requeue_gives_charge_back_and_goes_first)
{
	struct cfqx_sched_group a, b, *gs[] = { &a, &b };
	struct cfqx_sched_rq ra, rb[3], *x;
	struct rig t;
	u64 vt, ch;
	int i;

	rig_init(&t, 64);
	t.p.max_depth = 1;
	cfqx_sched_group_init(&a);
	cfqx_sched_group_init(&b);
	rq_add(&t, &ra, &a, 5000, 64, true);
	vt = a.vtime;
	ch = a.charged;
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &ra);
	cr_assert_eq(a.vtime, vt + (64 << 8), "vtime: sectors x 256");
	cr_assert_eq(a.in_flight, 1);
	for (i = 0; i < 3; i++)
		rq_add(&t, &rb[i], &b, 6000 + 8 * i, 8, true);
	cr_assert_null(rq_next(&t, NULL), "depth 1 is full");

	cfqx_sched_requeue(&t.s, &ra);
	cr_assert_eq(ra.state, CFQX_SRQ_IDLE);
	cr_assert_eq(a.vtime, vt, "requeue returns the charge to vtime");
	cr_assert_eq(a.charged, ch);
	cr_assert_eq(a.in_flight, 0);
	cr_assert_eq(t.s.in_flight, 0);
	cr_assert_eq(t.s.st.requeued, 1);
	check_invariants(&t.s, gs, 2);

	/* At head: out before b's queued requests, and counted as queued. */
	cfqx_sched_insert_head(&t.s, &ra);
	cr_assert_eq(t.s.nr_head, 1);
	cr_assert_eq(t.s.nr_queued, 4);
	check_invariants(&t.s, gs, 2);
	cr_assert(cfqx_sched_has_work(&t.s));
	cr_assert_eq(rq_next(&t, NULL), &ra);
	cr_assert_eq(t.s.nr_head, 0);
	cr_assert_eq(a.vtime, vt + (64 << 8));
	t.now += 50 * US;
	rq_done(&t, &ra);
	for (i = 0; i < 3; i++) {
		x = rq_next(&t, NULL);
		cr_assert_eq(x, &rb[i]);
		t.now += 50 * US;
		rq_done(&t, x);
	}
	check_invariants(&t.s, gs, 2);
	cr_assert_eq(t.s.nr_queued + t.s.in_flight + t.s.nr_busy, 0);
	/* A requeued request completes once. */
	cr_assert_eq(t.s.st.completed, 4);
}

Test(sched_book, remove_and_merge_keep_earlier_deadline)
{
	struct cfqx_sched_group a, *gs[] = { &a };
	struct cfqx_sched_rq old, young, r3, *x;
	struct rig t;
	u64 old_deadline;

	rig_init(&t, 64);
	t.p.max_depth = 1;
	cfqx_sched_group_init(&a);
	rq_add(&t, &old, &a, 108, 8, true);
	old_deadline = old.deadline_ns;
	t.now += 10 * MS;
	rq_add(&t, &young, &a, 100, 8, true);
	rq_add(&t, &r3, &a, 900000, 8, true);
	cr_assert_gt(young.deadline_ns, old_deadline);

	/* young absorbs old (a front merge): young takes its deadline and
	 * FIFO place. */
	cfqx_sched_resize(&t.s, &young, 100, 16);
	cfqx_sched_merge(&t.s, &young, &old);
	cfqx_sched_release(&t.s, &old);
	cr_assert_eq(young.deadline_ns, old_deadline);
	cr_assert_eq(a.fifo[CFQX_SCHED_SYNC].next, &young.fifo);
	cr_assert_eq(old.state, CFQX_SRQ_IDLE);
	cr_assert_eq(a.queued[CFQX_SCHED_SYNC], 2);
	cr_assert_eq(t.s.nr_queued, 2);
	cr_assert_eq(t.s.st.merged, 1);
	cr_assert_eq(t.s.st.merged_cross, 0);
	cr_assert_eq(a.allocated[0], 2);
	check_invariants(&t.s, gs, 1);

	/* The other way: r keeps its own, earlier, deadline. */
	{
		struct cfqx_sched_rq late;
		u64 mine = young.deadline_ns;

		t.now += MS;
		rq_add(&t, &late, &a, 116, 8, true);
		cfqx_sched_resize(&t.s, &young, 100, 24);
		cfqx_sched_merge(&t.s, &young, &late);
		cfqx_sched_release(&t.s, &late);
		cr_assert_eq(young.deadline_ns, mine);
		check_invariants(&t.s, gs, 1);
	}

	/* The inherited deadline holds: at old's deadline the FIFO serves
	 * young even though the elevator would pick r3 (from last 899000). */
	a.last_sector = 899000;
	t.now = old_deadline;
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &young);
	cr_assert_eq(t.s.st.fifo_expired, 1);
	rq_done(&t, x);

	/* Remove: the last queued request of the group. */
	cfqx_sched_remove(&t.s, &r3);
	cfqx_sched_release(&t.s, &r3);
	cr_assert_eq(r3.state, CFQX_SRQ_IDLE);
	cr_assert_eq(t.s.nr_queued, 0);
	cr_assert_eq(t.s.nr_busy, 0);
	cr_assert_eq(a.allocated[0], 0);
	check_invariants(&t.s, gs, 1);
	/* Removing what is not queued changes nothing. */
	cfqx_sched_remove(&t.s, &r3);
	cr_assert_eq(t.s.nr_queued, 0);
	cr_assert_null(rq_next(&t, NULL));
}

Test(sched_book, cross_group_merge_counted_and_consistent)
{
	struct cfqx_sched_group a, b, *gs[] = { &a, &b };
	struct cfqx_sched_rq ra, rb, rb2, *x;
	struct rig t;

	rig_init(&t, 64);
	t.p.slice_idle = 0;
	cfqx_sched_group_init(&a);
	cfqx_sched_group_init(&b);
	rq_add(&t, &ra, &a, 800, 8, true);
	rq_add(&t, &rb, &b, 808, 8, true);
	cfqx_sched_resize(&t.s, &ra, 800, 16);
	cfqx_sched_merge(&t.s, &ra, &rb);
	cfqx_sched_release(&t.s, &rb);
	cr_assert_eq(t.s.st.merged, 1);
	cr_assert_eq(t.s.st.merged_cross, 1);
	cr_assert_eq(b.queued[0] + b.queued[1], 0);
	cr_assert_eq(b.allocated[0], 0);
	cr_assert_eq(a.queued[CFQX_SCHED_SYNC], 1);
	cr_assert_eq(t.s.nr_busy, 1);
	cr_assert_eq(t.s.nr_queued, 1);
	cr_assert_eq(ra.deadline_ns, rb.deadline_ns, "same instant");
	check_invariants(&t.s, gs, 2);

	/* The survivor is charged to its own group, for both extents. */
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &ra);
	cr_assert_eq(a.charged, 16);
	cr_assert_eq(b.charged, 0);
	cr_assert_eq(b.dispatched, 0);
	check_invariants(&t.s, gs, 2);
	t.now += 100 * US;
	rq_done(&t, x);
	check_invariants(&t.s, gs, 2);
	cr_assert(cfqx_sched_group_idle(&a));
	cr_assert(cfqx_sched_group_idle(&b));
	cr_assert_eq(t.s.nr_active, 0);

	/* b still works afterwards. */
	rq_add(&t, &rb2, &b, 4000, 8, true);
	cr_assert_eq(rq_next(&t, NULL), &rb2);
	t.now += 100 * US;
	rq_done(&t, &rb2);
	check_invariants(&t.s, gs, 2);
	cr_assert_eq(t.s.nr_queued + t.s.in_flight + t.s.nr_active, 0);
}

Test(sched_book, find_and_neighbours)
{
	struct cfqx_sched_group a, *gs[] = { &a };
	struct cfqx_sched_rq r100, r200, r300, w100, *x;
	struct rig t;

	rig_init_disk(&t, 64);
	cfqx_sched_group_init(&a);
	rq_add(&t, &r300, &a, 300, 8, true);
	rq_add(&t, &r100, &a, 100, 8, true);
	rq_add(&t, &r200, &a, 200, 16, true);
	rq_add(&t, &w100, &a, 100, 8, false);
	check_invariants(&t.s, gs, 1);

	/* Front merge candidates: a request starting at the sector. */
	cr_assert_eq(cfqx_sched_find(&a, true, 100, false), &r100);
	cr_assert_eq(cfqx_sched_find(&a, true, 300, false), &r300);
	cr_assert_null(cfqx_sched_find(&a, true, 150, false));
	cr_assert_null(cfqx_sched_find(&a, true, 108, false));
	/* Back merge candidates: a request ending at the sector. */
	cr_assert_eq(cfqx_sched_find(&a, true, 108, true), &r100);
	cr_assert_eq(cfqx_sched_find(&a, true, 216, true), &r200);
	cr_assert_null(cfqx_sched_find(&a, true, 200, true));
	/* Per direction. */
	cr_assert_eq(cfqx_sched_find(&a, false, 100, false), &w100);
	cr_assert_eq(cfqx_sched_find(&a, false, 108, true), &w100);
	cr_assert_null(cfqx_sched_find(&a, false, 300, false));

	cr_assert_eq(cfqx_sched_next(&r100), &r200);
	cr_assert_eq(cfqx_sched_next(&r200), &r300);
	cr_assert_null(cfqx_sched_next(&r300));
	cr_assert_null(cfqx_sched_prev(&r100));
	cr_assert_eq(cfqx_sched_prev(&r300), &r200);
	cr_assert_null(cfqx_sched_next(&w100), "the other direction");
	cr_assert_null(cfqx_sched_prev(&w100));

	/* A resize re-sorts: r300 moves to the front. */
	cfqx_sched_resize(&t.s, &r300, 50, 8);
	cr_assert_null(cfqx_sched_prev(&r300));
	cr_assert_eq(cfqx_sched_next(&r300), &r100);
	cr_assert_eq(cfqx_sched_find(&a, true, 50, false), &r300);
	cr_assert_null(cfqx_sched_find(&a, true, 300, false));
	check_invariants(&t.s, gs, 1);

	/* Dispatched requests are no candidates and have no neighbours. */
	a.last_sector = 100;
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &r100);
	cr_assert_null(cfqx_sched_find(&a, true, 100, false));
	cr_assert_null(cfqx_sched_next(x));
	cr_assert_eq(cfqx_sched_next(&r300), &r200);
	/* Nor are requests requeued at head. */
	cfqx_sched_requeue(&t.s, x);
	cfqx_sched_insert_head(&t.s, x);
	cr_assert_null(cfqx_sched_next(x));
	cr_assert_null(cfqx_sched_prev(x));
	cr_assert_null(cfqx_sched_find(&a, true, 100, false));
	check_invariants(&t.s, gs, 1);
}

/* A request requeued at head whose group went inactive meanwhile (another
 * of its requests completed): dispatching it activates the group again,
 * once (core-bugs.md bug 1: it was linked with on_active 0). */
Test(sched_book, head_requeue_of_an_inactive_group)
{
	struct cfqx_sched_group g, *gs[] = { &g };
	struct cfqx_sched_rq r1, r2, r3;
	struct rig t;

	rig_init(&t, 64);
	cfqx_sched_group_init(&g);
	/* Async writes: not anticipated, inactive once empty. */
	rq_add(&t, &r1, &g, 100, 8, false);
	rq_add(&t, &r2, &g, 200, 8, false);
	cr_assert_eq(rq_next(&t, NULL), &r1);
	cr_assert_eq(rq_next(&t, NULL), &r2);
	cfqx_sched_requeue(&t.s, &r1);
	cfqx_sched_insert_head(&t.s, &r1);
	cr_assert_eq(g.queued_head, 1);
	t.now += 100 * US;
	rq_done(&t, &r2);	/* nothing sorted, nothing in flight */
	cr_assert(g.on_active, "its head request keeps it active");
	cr_assert_not(cfqx_sched_group_idle(&g));
	check_invariants(&t.s, gs, 1);
	cr_assert_eq(rq_next(&t, NULL), &r1);
	cr_assert_eq(g.queued_head, 0);
	check_invariants(&t.s, gs, 1);
	rq_add(&t, &r3, &g, 300, 8, false);
	check_invariants(&t.s, gs, 1);
	cr_assert_eq(rq_next(&t, NULL), &r3);
	t.now += 100 * US;
	rq_done(&t, &r1);
	rq_done(&t, &r3);
	check_invariants(&t.s, gs, 1);
	cr_assert(cfqx_sched_group_idle(&g));
	cr_assert_eq(t.s.nr_active, 0);
}

/* ------------------------------------------------------------------ */
/* Order inside a group */

/* Dispatch one at a time from @t's lone group and check the sectors. */
static void expect_order(struct rig *t, const u64 *want, int n)
{
	struct cfqx_sched_rq *x;
	int i;

	for (i = 0; i < n; i++) {
		x = rq_next(t, NULL);
		cr_assert_not_null(x, "dispatch %d: nothing", i);
		cr_assert_eq(x->sector, want[i],
			     "dispatch %d: sector %llu, want %llu", i,
			     (unsigned long long)x->sector,
			     (unsigned long long)want[i]);
		t->now += 100 * US;
		rq_done(t, x);
	}
	cr_assert_null(rq_next(t, NULL));
}

/* Queue 8-sector requests at @at after a dispatch that ends at @last. */
static void queue_after(struct rig *t, struct cfqx_sched_group *g,
			struct cfqx_sched_rq *seed, struct cfqx_sched_rq *r,
			const u64 *at, int n, u64 last)
{
	int i;

	rq_add(t, seed, g, last - 8, 8, true);
	cr_assert_eq(rq_next(t, NULL), seed);
	cr_assert_eq(g->last_sector, last);
	for (i = 0; i < n; i++)
		rq_add(t, &r[i], g, at[i], 8, true);
	t->now += 100 * US;
	rq_done(t, seed);
}

/*
 * Without seeks a group's requests go in arrival order.  Four one-deep
 * sequential readers share a group; each sends its next request, right
 * after its last one, as soon as that completes.  Swept by sector, the
 * reader just served is always next (its new request starts where the
 * sweep stands) and the other three wait for their FIFO deadline; in
 * arrival order they take turns.
 */
Test(sched_order, arrival_order_without_seeks)
{
	enum { READERS = 4, ROUNDS = 25 };
	struct cfqx_sched_rq r[READERS];
	struct cfqx_sched_group g;
	u64 at[READERS], asked[READERS];
	int served[READERS] = { 0 }, i, k;
	struct rig t;

	rig_init(&t, 64);
	t.p.max_depth = 1;
	cfqx_sched_group_init(&g);
	for (i = 0; i < READERS; i++) {
		at[i] = (u64)(i + 1) << 24;
		asked[i] = t.now;
		rq_add(&t, &r[i], &g, at[i], 8, true);
	}
	for (k = 0; k < READERS * ROUNDS; k++) {
		struct cfqx_sched_rq *x = rq_next(&t, NULL);

		cr_assert_not_null(x);
		i = (int)(x - r);
		cr_assert_eq(i, k % READERS, "dispatch %d went to reader %d", k,
			     i);
		cr_assert_leq(t.now - asked[i], READERS * 100 * US,
			      "reader %d waited %llu us", i,
			      (unsigned long long)(t.now - asked[i]) / US);
		served[i]++;
		t.now += 100 * US;
		rq_done(&t, x);
		at[i] += 8;
		asked[i] = t.now;
		rq_add(&t, &r[i], &g, at[i], 8, true);
	}
	for (i = 0; i < READERS; i++)
		cr_assert_eq(served[i], ROUNDS);
}

Test(sched_order, one_way_elevator_with_short_back_seeks)
{
	const u64 A = 1000000;
	const u64 at[4] = { A + 2000008, A - 40000, A + 208, A - 56 };
	/* back_seek_max 16384 KiB = 32768 sectors, penalty 2: A-56 costs
	 * 112 < 208; A-40000 is too far back and waits for the next sweep. */
	const u64 want[4] = { A - 56, A + 208, A + 2000008, A - 40000 };
	const u32 depths[2] = { 1, 64 };
	int d;

	for (d = 0; d < 2; d++) {
		struct cfqx_sched_group g;
		struct cfqx_sched_rq seed, r[4];
		struct rig t;

		rig_init_disk(&t, 64);
		t.p.max_depth = depths[d];
		cr_assert_eq(t.p.back_seek_max, 16384);
		cr_assert_eq(t.p.back_seek_penalty, 2);
		cfqx_sched_group_init(&g);
		queue_after(&t, &g, &seed, r, at, 4, A);
		expect_order(&t, want, 4);
	}
}

Test(sched_order, wrapped_lowest_first_and_ties_go_up)
{
	const u64 A = 1000000;
	struct cfqx_sched_group g;
	struct cfqx_sched_rq seed, r[3];
	struct rig t;

	/* Two wrapped requests: the lower sector starts the next sweep. */
	{
		const u64 at[2] = { A - 40000, A - 50000 };
		const u64 want[2] = { A - 50000, A - 40000 };

		rig_init_disk(&t, 64);
		cfqx_sched_group_init(&g);
		queue_after(&t, &g, &seed, r, at, 2, A);
		expect_order(&t, want, 2);
	}
	/* Backward 10 x 2 against forward 20: a tie goes to the higher. */
	{
		const u64 at[2] = { A - 10, A + 20 };
		const u64 want[2] = { A + 20, A - 10 };

		rig_init_disk(&t, 64);
		cfqx_sched_group_init(&g);
		queue_after(&t, &g, &seed, r, at, 2, A);
		expect_order(&t, want, 2);
	}
	/* Penalty 1: the same backward seek now wins. */
	{
		const u64 at[2] = { A + 20, A - 10 };
		const u64 want[2] = { A - 10, A + 20 };

		rig_init_disk(&t, 64);
		t.p.back_seek_penalty = 1;
		cfqx_sched_group_init(&g);
		queue_after(&t, &g, &seed, r, at, 2, A);
		expect_order(&t, want, 2);
	}
	/* back_seek_max 0: no backward seek at all. */
	{
		const u64 at[3] = { A - 8, A + 5000, A - 16 };
		const u64 want[3] = { A + 5000, A - 16, A - 8 };

		rig_init_disk(&t, 64);
		t.p.back_seek_max = 0;
		cfqx_sched_group_init(&g);
		queue_after(&t, &g, &seed, r, at, 3, A);
		expect_order(&t, want, 3);
	}
}

/*
 * Each group sweeps from the end of its own last dispatch.  a is at A and
 * holds one request ahead of it (2A) while new ones keep arriving far
 * behind it, one per step of two dispatches; b streams at 10^9.  From the
 * device's last sector (b's region, 2.6.10's rule) every request of a is
 * "wrapped" and the lowest wins, so the one ahead waited for the FIFO
 * (500 ms, then one per batch); from a's own position it is next.
 */
Test(sched_order, each_group_sweeps_from_its_own_position)
{
	enum { STEPS = 40 };
	const u64 A = 1000000, B = 1000000000;
	struct cfqx_sched_group a, b;
	struct cfqx_sched_rq seed, ahead, behind[STEPS], stream[STEPS], *x;
	struct rig t;
	u64 served = 0;
	int k, n;

	rig_init(&t, 64);
	t.p.max_depth = 1;
	cfqx_sched_group_init(&a);
	cfqx_sched_group_init(&b);
	rq_add(&t, &seed, &a, A - 8, 8, true);
	cr_assert_eq(rq_next(&t, NULL), &seed);
	rq_add(&t, &ahead, &a, 2 * A, 8, true);
	t.now += MS;
	rq_done(&t, &seed);
	for (k = 0; k < STEPS && !served; k++) {
		rq_add(&t, &stream[k], &b, B + 8 * (u64)k, 8, true);
		rq_add(&t, &behind[k], &a, 100 + 8 * (u64)k, 8, true);
		for (n = 0; n < 2 && (x = rq_next(&t, NULL)); n++) {
			if (x == &ahead)
				served = t.now;
			t.now += 10 * MS;
			rq_done(&t, x);
		}
	}
	cr_assert(served, "a's request ahead of its sweep was served");
	cr_assert_lt(served, T0 + 100 * MS,
		     "within its sweep, not at its deadline (%llu ms)",
		     (unsigned long long)((served - T0) / MS));
	cr_assert_eq(t.s.st.fifo_expired, 0, "the elevator served it");
}

Test(sched_order, sync_before_async)
{
	struct cfqx_sched_group g;
	struct cfqx_sched_rq w[2], rd[2], *x;
	struct rig t;

	rig_init(&t, 64);
	t.p.max_depth = 1;
	cfqx_sched_group_init(&g);
	/* Async writes first and right at the head position... */
	rq_add(&t, &w[0], &g, 0, 8, false);
	rq_add(&t, &w[1], &g, 8, 8, false);
	/* ...still the sync reads far away go first. */
	rq_add(&t, &rd[0], &g, 7000000, 8, true);
	rq_add(&t, &rd[1], &g, 9000000, 8, true);
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &rd[0]);
	rq_done(&t, x);
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &rd[1]);
	rq_done(&t, x);
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &w[0], "then async, lowest first (wrapped)");
	rq_done(&t, x);
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &w[1]);
	rq_done(&t, x);
}

/* ------------------------------------------------------------------ */
/* FIFO expiry */

Test(sched_fifo, expired_head_first_once_per_batch)
{
	enum { STREAM = 1000 };
	static struct cfqx_sched_rq stream[STREAM];
	const u64 base = 10000000;
	struct cfqx_sched_group g;
	struct cfqx_sched_rq seed, far[2], *x;
	u64 when[2] = { 0, 0 }, deadline;
	struct rig t;
	int k, fifo_dispatches = 0;

	rig_init_disk(&t, 64);
	t.p.max_depth = 1;
	cfqx_sched_group_init(&g);
	/* last = base: a stream from there always has distance 0. */
	rq_add(&t, &seed, &g, base - 8, 8, true);
	cr_assert_eq(rq_next(&t, NULL), &seed);
	/* far[0] is too far behind the stream, far[1] too far ahead: the
	 * elevator never picks them while the stream goes on. */
	rq_add(&t, &far[0], &g, 100, 8, true);
	rq_add(&t, &far[1], &g, 50000000, 8, true);
	deadline = far[0].deadline_ns;
	cr_assert_eq(deadline, T0 + 500 * MS);
	rq_done(&t, &seed);

	for (k = 0; k < STREAM && !(when[0] && when[1]); k++) {
		u64 expired = t.s.st.fifo_expired;

		rq_add(&t, &stream[k], &g, base + 8 * (u64)k, 8, true);
		x = rq_next(&t, NULL);
		cr_assert_not_null(x);
		if (t.s.st.fifo_expired != expired)
			fifo_dispatches++;
		if (x == &far[0])
			when[0] = t.now;
		if (x == &far[1])
			when[1] = t.now;
		if (x == &far[0] || x == &far[1])
			cr_assert_neq(t.s.st.fifo_expired, expired,
				      "only the FIFO serves the far requests");
		t.now += MS;
		rq_done(&t, x);
	}
	cr_assert(when[0] && when[1], "both far requests served");
	cr_assert_geq(when[0], deadline, "not before its deadline");
	cr_assert_lt(when[0], deadline + 125 * MS,
		     "within one fifo_batch_expire of it");
	cr_assert_geq(when[1] - when[0], 125 * MS,
		      "the FIFO is looked at once per fifo_batch_expire");
	cr_assert_lt(when[1] - when[0], 127 * MS);
	cr_assert_eq(fifo_dispatches, 2);
	cr_assert_eq(t.s.st.fifo_expired, 2);
}

Test(sched_fifo, expiry_beats_group_order)
{
	struct cfqx_sched_group x, y;
	struct cfqx_sched_rq xw, yr[3], *r;
	struct rig t;
	int i;

	rig_init(&t, 64);
	t.p.max_depth = 1;
	t.p.fifo_expire_async = 100;
	cfqx_sched_group_init(&x);
	cfqx_sched_group_init(&y);
	/* y first: with equal vtime and nothing in flight the group order
	 * would serve it first (the longest unserved). */
	for (i = 0; i < 3; i++)
		rq_add(&t, &yr[i], &y, 1000 + 8 * i, 8, true);
	rq_add(&t, &xw, &x, 500000, 8, false);
	t.now += 200 * MS;	/* xw expired, y's reads not */
	r = rq_next(&t, NULL);
	cr_assert_eq(r, &xw);
	cr_assert_eq(t.s.st.fifo_expired, 1);
}

Test(sched_fifo, sync_before_async)
{
	struct cfqx_sched_group x, y;
	struct cfqx_sched_rq xw, yr, *r;
	struct rig t;

	rig_init(&t, 64);
	t.p.max_depth = 1;
	t.p.fifo_expire_async = 100;
	cfqx_sched_group_init(&x);
	cfqx_sched_group_init(&y);
	/* x first, and its write expires first (T0+100ms; yr at +500ms). */
	rq_add(&t, &xw, &x, 500000, 8, false);
	rq_add(&t, &yr, &y, 1000, 8, true);
	t.now += 600 * MS;
	r = rq_next(&t, NULL);
	cr_assert_eq(r, &yr, "an expired sync head goes before async");
	cr_assert_eq(t.s.st.fifo_expired, 1);
	rq_done(&t, r);
	r = rq_next(&t, NULL);
	cr_assert_eq(r, &xw, "then x's expired write: the batch time is "
		     "per group (2.6.10 per queue), y's does not hold x");
	cr_assert_eq(t.s.st.fifo_expired, 2);
}

/* ------------------------------------------------------------------ */
/* Group order */

/* Dispatch and complete one request; returns its group's index in gs. */
static int serve_one(struct rig *t, struct cfqx_sched_group *const *gs,
		     int ng)
{
	struct cfqx_sched_rq *x = rq_next(t, NULL);
	struct cfqx_sched_group *g;
	int i;

	cr_assert_not_null(x);
	g = x->group;
	t->now += 20 * US;
	rq_done(t, x);
	for (i = 0; i < ng; i++)
		if (g == gs[i])
			return i;
	cr_assert_fail("dispatched a request of an unknown group");
	return -1;
}

Test(sched_group, least_vtime_first_in_bytes)
{
	static struct cfqx_sched_rq ra[40], rb[400];
	struct cfqx_sched_group a, b, *gs[] = { &a, &b };
	struct rig t;
	int i, j;

	rig_init(&t, 64);
	t.p.max_depth = 1;
	cfqx_sched_group_init(&a);
	cfqx_sched_group_init(&b);
	for (i = 0; i < 40; i++)
		rq_add(&t, &ra[i], &a, 128 * (u64)i, 128, true);
	for (i = 0; i < 400; i++)
		rq_add(&t, &rb[i], &b, 9000000 + 16 * (u64)i, 16, true);
	/* a's requests are 8 times b's: one of a's for eight of b's. */
	for (i = 0; i < 30; i++) {
		cr_assert_eq(serve_one(&t, gs, 2), 0, "round %d: a", i);
		for (j = 0; j < 8; j++)
			cr_assert_eq(serve_one(&t, gs, 2), 1,
				     "round %d: b %d", i, j);
		cr_assert_eq(a.charged, b.charged);
	}
	check_invariants(&t.s, gs, 2);
}

Test(sched_group, equal_greedy_groups_alternate)
{
	static struct cfqx_sched_rq ra[60], rb[60];
	struct cfqx_sched_group a, b, *gs[] = { &a, &b };
	struct cfqx_sched_rq *fl[8];
	struct rig t;
	int i, prev = -1, n, k;

	/* One at a time. */
	rig_init(&t, 64);
	t.p.max_depth = 1;
	cfqx_sched_group_init(&a);
	cfqx_sched_group_init(&b);
	for (i = 0; i < 30; i++) {
		rq_add(&t, &ra[i], &a, 8 * (u64)i, 8, true);
		rq_add(&t, &rb[i], &b, 5000000 + 8 * (u64)i, 8, true);
	}
	for (i = 0; i < 60; i++) {
		int g = serve_one(&t, gs, 2);

		cr_assert_neq(g, prev, "dispatch %d: same group twice", i);
		prev = g;
	}

	/* Several in flight (contended depth 4), completing in order. */
	rig_init(&t, 64);
	cfqx_sched_group_init(&a);
	cfqx_sched_group_init(&b);
	for (i = 0; i < 60; i++) {
		rq_add(&t, &ra[i], &a, 8 * (u64)i, 8, false);
		rq_add(&t, &rb[i], &b, 5000000 + 8 * (u64)i, 8, false);
	}
	prev = -1;
	n = 0;
	for (k = 0; k < 56; k++) {	/* fewer than a measuring window */
		struct cfqx_sched_rq *x;

		while ((x = rq_next(&t, NULL))) {
			int g = x->group == &a ? 0 : 1;

			cr_assert_neq(g, prev, "dispatch %d: same group", k);
			prev = g;
			cr_assert_lt(n, 8);
			fl[n++] = x;
		}
		cr_assert_eq(n, 4, "contended depth before measuring");
		t.now += 10 * US;
		rq_done(&t, fl[0]);
		memmove(fl, fl + 1, --n * sizeof(fl[0]));
	}
	cr_assert_eq(a.dispatched, b.dispatched + (prev == 0));
}

/* b runs alone for @solo requests, then a comes (back) with 30. */
static void idle_credit_case(u32 quantum, int solo, bool a_was_active)
{
	static struct cfqx_sched_rq ra[60], rb[2000];
	struct cfqx_sched_group a, b, *gs[] = { &a, &b };
	struct rig t;
	int i, run = 0, prev;

	rig_init(&t, 64);
	t.p.max_depth = 1;
	t.p.quantum = quantum;
	t.p.fifo_expire_sync = CFQX_FIFO_EXPIRE_MAX;	/* vtime alone */
	cfqx_sched_group_init(&a);
	cfqx_sched_group_init(&b);
	if (a_was_active) {
		/* a and b share evenly for a while, then a leaves. */
		for (i = 0; i < 20; i++) {
			rq_add(&t, &ra[i], &a, 8 * (u64)i, 8, true);
			rq_add(&t, &rb[i], &b, 5000000 + 8 * (u64)i, 8, true);
		}
		for (i = 0; i < 40; i++)
			serve_one(&t, gs, 2);
		cr_assert_eq(a.dispatched, 20);
	}
	for (i = 0; i < solo + 100; i++)
		rq_add(&t, &rb[60 + i], &b, 6000000 + 8 * (u64)i, 8, true);
	for (i = 0; i < solo; i++)
		cr_assert_eq(serve_one(&t, gs, 2), 1);
	t.now += 10 * SEC;	/* a long absence: banks nothing more */
	for (i = 0; i < 30; i++)
		rq_add(&t, &ra[30 + i], &a, 100000 + 8 * (u64)i, 8, true);
	while (serve_one(&t, gs, 2) == 0)
		run++;
	/* At most `quantum` requests of credit, plus the one that ties. */
	cr_assert_geq(run, (int)quantum, "quantum %u, solo %d: a got %d",
		      quantum, solo, run);
	cr_assert_leq(run, (int)quantum + 1, "quantum %u, solo %d: a got %d",
		      quantum, solo, run);
	/* Then they alternate. */
	prev = 1;
	for (i = 0; i < 40; i++) {
		int g = serve_one(&t, gs, 2);

		cr_assert_neq(g, prev);
		prev = g;
	}
}

Test(sched_group, idle_group_banks_at_most_quantum)
{
	idle_credit_case(4, 100, false);
	idle_credit_case(4, 1000, false);
	idle_credit_case(4, 1000, true);
	idle_credit_case(1, 500, false);
	idle_credit_case(8, 500, true);
}

/* ------------------------------------------------------------------ */
/* A device model for the depth and fairness tests */

/*
 * A bandwidth-limited device with a fixed latency, in one of two ways:
 *   GATE   the driver takes a request only when the rate allows (one per
 *          size / rate, no bursts), and every request completes lat_ns
 *          after it was taken: the way null_blk's bandwidth limit works
 *          (over-budget requests wait outside the device).
 *   QUEUE  the device takes up to its tags at once and completes them in
 *          order, each lat_ns after dispatch at the earliest and one
 *          size / rate after the previous completion: a device with an
 *          internal queue.
 * Completions come in dispatch order in both, so in-flight is a ring.
 */
enum dev_kind { DEV_GATE, DEV_QUEUE };

#define RING 1024

struct dev {
	enum dev_kind kind;
	u64 lat_ns;
	u64 ps_per_sector;	/* 1/rate, picoseconds per sector */
	u64 next_take;		/* GATE: earliest next take */
	u64 last_done;		/* QUEUE: previous completion */
	u32 late_every;		/* every n-th completion is handled ... */
	u64 late_ns;		/* ... this late (a CPU busy elsewhere) */
	u32 taken;
	struct cfqx_sched_rq *fl[RING];
	u64 done[RING];
	u32 head, n;
};

static u64 dev_service(const struct dev *d, const struct cfqx_sched_rq *r)
{
	return (u64)r->sectors * d->ps_per_sector / 1000;
}

static bool dev_can_take(const struct dev *d, u32 tags, u64 now)
{
	if (d->n >= tags || d->n >= RING)
		return false;
	return d->kind != DEV_GATE || now >= d->next_take;
}

static void dev_take(struct dev *d, struct cfqx_sched_rq *r, u64 now)
{
	u64 done;

	if (d->kind == DEV_GATE) {
		d->next_take = now + dev_service(d, r);
		done = now + d->lat_ns;
	} else {
		done = d->last_done + dev_service(d, r);
		if (done < now + d->lat_ns)
			done = now + d->lat_ns;
		d->last_done = done;
	}
	if (d->late_every && ++d->taken % d->late_every == 0)
		done += d->late_ns;
	d->fl[(d->head + d->n) % RING] = r;
	d->done[(d->head + d->n) % RING] = done;
	d->n++;
}

/*
 * A workload on the device: each group either keeps `depth` requests
 * outstanding (greedy, resubmits at once) or has one at a time and thinks
 * `think_ns` between them.  Sequential, `sectors` per request.
 */
#define SIM_GROUPS 4
#define SIM_DEPTH 64

struct sim_group {
	struct cfqx_sched_group g;
	struct cfqx_sched_rq rq[SIM_DEPTH];
	u8 busy[SIM_DEPTH];
	u32 depth;
	u32 sectors;
	bool sync;
	u64 think_ns;
	u64 next_sector;
	u64 submit_at;		/* one-deep: next submission (0: none) */
	u64 bytes;		/* dispatched */
};

struct sim {
	struct rig t;
	struct dev dev;
	struct sim_group gr[SIM_GROUPS];
	int ng;
	u32 max_in_flight;
	u64 armed;		/* the glue's timer (0: not armed) */
	/* Group `watch` (0: none) while it thinks in its anticipation
	 * window and the others are busy: how often the core counted every
	 * group backlogged. */
	int watch;
	u64 watch_think, watch_backlogged;
	/* The driver turns work away (its queue found stopped at every
	 * completion), as a throttle does. */
	bool stops;
};

static void sim_submit(struct sim *m, struct sim_group *sg)
{
	u32 i;

	for (i = 0; i < sg->depth; i++)
		if (!sg->busy[i])
			break;
	cr_assert_lt(i, sg->depth);
	sg->busy[i] = 1;
	rq_add(&m->t, &sg->rq[i], &sg->g, sg->next_sector, sg->sectors,
	       sg->sync);
	sg->next_sector += sg->sectors;
}

static struct sim_group *sim_group_of(struct sim *m,
				      const struct cfqx_sched_rq *r)
{
	int i;

	for (i = 0; i < m->ng; i++)
		if (r->group == &m->gr[i].g)
			return &m->gr[i];
	cr_assert_fail("request of an unknown group");
	return NULL;
}

/* Every group submits what it keeps outstanding. */
static void sim_start(struct sim *m)
{
	int i;
	u32 k;

	for (i = 0; i < m->ng; i++)
		for (k = 0; k < m->gr[i].depth; k++)
			sim_submit(m, &m->gr[i]);
}

/* Run the workload until @end; the driver dispatches as blk-mq does:
 * while the device takes requests and has_work() says so; a refused
 * dispatch's *wake_at arms the glue's timer, which calls tick(). */
static void sim_run(struct sim *m, u64 end)
{
	struct rig *t = &m->t;
	struct dev *d = &m->dev;
	int i;

	while (t->now < end) {
		u64 next = end, wake = 0, w;
		struct cfqx_sched_rq *r;

		while (dev_can_take(d, t->s.dev.tags, t->now) &&
		       cfqx_sched_has_work(&t->s) &&
		       (r = rq_next(t, &wake))) {
			dev_take(d, r, t->now);
			sim_group_of(m, r)->bytes += (u64)r->sectors << 9;
			if (t->s.in_flight > m->max_in_flight)
				m->max_in_flight = t->s.in_flight;
			REQUIRE(t->s.in_flight <= t->p.max_depth,
				"in flight %u > max_depth %u",
				t->s.in_flight, t->p.max_depth);
		}
		if (m->watch) {
			const struct sim_group *w = &m->gr[m->watch];

			if (w->submit_at && w->g.anticipate_until > t->now &&
			    t->s.nr_queued) {
				m->watch_think++;
				m->watch_backlogged +=
					t->s.nr_backlogged == (u32)m->ng;
			}
		}
		if (d->n && d->done[d->head] < next)
			next = d->done[d->head];
		for (i = 0; i < m->ng; i++)
			if (m->gr[i].submit_at && m->gr[i].submit_at < next)
				next = m->gr[i].submit_at;
		if (d->kind == DEV_GATE && t->s.nr_queued &&
		    d->next_take > t->now && d->next_take < next)
			next = d->next_take;
		/* The glue arms its timer for a hold on time alone (the
		 * pace) after every call, as cfqx_arm_wake() does. */
		w = cfqx_sched_wake_at(&t->s);
		if (w && (!wake || w < wake))
			wake = w;
		if (wake > t->now && (!m->armed || wake < m->armed))
			m->armed = wake;
		if (m->armed && m->armed < next)
			next = m->armed;
		cr_assert_gt(next, t->now, "the model stands still");
		t->now = next;
		if (m->armed && m->armed <= t->now) {
			m->armed = 0;
			cfqx_sched_tick(&t->s, &t->p, t->now, 0);
		}
		while (d->n && d->done[d->head] <= t->now) {
			struct sim_group *sg;

			r = d->fl[d->head];
			d->head = (d->head + 1) % RING;
			d->n--;
			sg = sim_group_of(m, r);
			if (m->stops)
				cfqx_sched_stopped(&t->s);
			rq_done(t, r);
			sg->busy[r - sg->rq] = 0;
			if (sg->think_ns)
				sg->submit_at = t->now + sg->think_ns;
			else
				sim_submit(m, sg);
		}
		for (i = 0; i < m->ng; i++) {
			struct sim_group *sg = &m->gr[i];

			if (sg->submit_at && sg->submit_at <= t->now) {
				sg->submit_at = 0;
				sim_submit(m, sg);
			}
		}
	}
}

static void sim_init(struct sim *m, enum dev_kind kind, u32 tags,
		     u64 lat_ns, u64 ps_per_sector)
{
	memset(m, 0, sizeof(*m));
	rig_init(&m->t, tags);
	m->dev.kind = kind;
	m->dev.lat_ns = lat_ns;
	m->dev.ps_per_sector = ps_per_sector;
}

static void sim_add(struct sim *m, u32 depth, u32 sectors, bool sync,
		    u64 think_ns)
{
	struct sim_group *sg = &m->gr[m->ng];

	cfqx_sched_group_init(&sg->g);
	sg->depth = depth;
	sg->sectors = sectors;
	sg->sync = sync;
	sg->think_ns = think_ns;
	sg->next_sector = (u64)m->ng << 30;
	m->ng++;
}

/*
 * The device's knee: the requests in flight it takes to deliver its full
 * rate, lat / size-time rounded up (at least 2).  The probed depth may
 * settle anywhere from it to one probe step (a quarter) above it, plus
 * one, within max_depth and the tags.
 */
static void knee_range(u64 lat_ns, u64 ps_per_sector, u32 sectors,
		       u32 max_depth, u32 tags, u32 *lo, u32 *hi)
{
	u64 service_ps = (u64)sectors * ps_per_sector;
	u64 k = (lat_ns * 1000 + service_ps - 1) / service_ps;
	u32 cap = max_depth < tags ? max_depth : tags;

	if (k < 2)
		k = 2;
	*lo = k < cap ? (u32)k : cap;
	k = (k * 5 + 3) / 4 + 1;
	*hi = k < cap ? (u32)k : cap;
}

/* ------------------------------------------------------------------ */
/* Contended depth */

/*
 * Where queued work waits is counted by cause (debugfs `stats`, the
 * simulator's JSON): the contended depth full for 100 us, then 30 us in
 * which the core would dispatch and nobody asked.
 */
Test(sched_depth, waiting_time_is_counted_by_its_cause)
{
	static struct cfqx_sched_rq r[5];
	struct cfqx_sched_rq *out[5];
	struct cfqx_sched_group a, b;
	struct rig t;
	int i, n = 0;

	two_groups_queued(&t, &a, &b, r);
	while ((out[n] = rq_next(&t, NULL)))
		n++;
	cr_assert_eq(n, 4, "the depth before any measurement");
	cr_assert_eq(t.s.hold, CFQX_HOLD_DEPTH);

	t.now += 100 * US;
	rq_done(&t, out[0]);
	cr_assert_eq(t.s.st.held_ns[CFQX_HOLD_DEPTH], 100 * US);
	cr_assert_eq(t.s.hold, CFQX_HOLD_READY);
	t.now += 30 * US;
	cr_assert_not_null(rq_next(&t, NULL));
	cr_assert_eq(t.s.st.held_ns[CFQX_HOLD_READY], 30 * US);
	cr_assert_eq(t.s.hold, CFQX_HOLD_NOTHING, "nothing left queued");
	t.now += 500 * US;
	for (i = 1; i < n; i++)
		rq_done(&t, out[i]);
	cr_assert_eq(t.s.st.held_ns[CFQX_HOLD_ORDER] +
		     t.s.st.held_ns[CFQX_HOLD_PACE] + t.s.st.held_idle_ns, 0);
	cr_assert_eq(t.s.st.held_ns[CFQX_HOLD_DEPTH], 100 * US);
	cr_assert_eq(t.s.st.held_ns[CFQX_HOLD_READY], 30 * US,
		     "time with nothing queued counts nowhere");
}

Test(sched_depth, lone_group_gets_every_tag)
{
	static struct cfqx_sched_rq r[100];
	struct cfqx_sched_group g;
	struct rig t;
	int i, n = 0;

	rig_init(&t, 64);
	cfqx_sched_group_init(&g);
	for (i = 0; i < 100; i++)
		rq_add(&t, &r[i], &g, 8 * (u64)i, 8, false);
	cr_assert_eq(cfqx_sched_depth(&t.s, &t.p), 64);
	while (rq_next(&t, NULL))
		n++;
	cr_assert_eq(n, 64);
	cr_assert_eq(t.s.st.depth_full, 1);

	/* max_depth caps, and so do fewer tags. */
	t.p.max_depth = 16;
	cr_assert_eq(cfqx_sched_depth(&t.s, &t.p), 16);
	t.p.max_depth = 1024;
	cfqx_sched_set_tags(&t.s, 32);
	cr_assert_eq(cfqx_sched_depth(&t.s, &t.p), 32);
}

/* Two greedy groups on the device until the depth settles: over the next
 * 10 windows the depth the probes start from stays at the knee, and the
 * depth in force is never more than one probe step from it. */
static void depth_case(enum dev_kind kind, u32 tags, u64 lat_ns,
		       u64 ps_per_sector, u32 sectors, u32 max_depth)
{
	static struct sim m;
	u32 want_lo, want_hi, base, got, lo = ~0u, hi = 0, cap;
	u64 span = 64 * ((lat_ns > (u64)sectors * ps_per_sector / 1000) ?
			 lat_ns : (u64)sectors * ps_per_sector / 1000);
	int w;

	knee_range(lat_ns, ps_per_sector, sectors, max_depth, tags, &want_lo,
		   &want_hi);
	cap = max_depth < tags ? max_depth : tags;
	sim_init(&m, kind, tags, lat_ns, ps_per_sector);
	m.t.p.max_depth = max_depth;
	sim_add(&m, SIM_DEPTH, sectors, false, 0);
	sim_add(&m, SIM_DEPTH, sectors, false, 0);
	/* 30 windows to settle, then 10 windows that must hold it. */
	sim_start(&m);
	sim_run(&m, T0 + 30 * span);
	for (w = 0; w < 10; w++) {
		sim_run(&m, m.t.now + span);
		base = m.t.s.depth_base < cap ? m.t.s.depth_base : cap;
		if (base < lo)
			lo = base;
		if (base > hi)
			hi = base;
		got = cfqx_sched_depth(&m.t.s, &m.t.p);
		cr_assert(got <= cap && got * 4 + 4 >= base * 3 &&
			  got * 4 <= base * 5 + 4,
			  "depth %u more than a probe step from %u", got, base);
	}
	cr_assert(lo >= want_lo && hi <= want_hi,
		  "%s device, %u tags, lat %llu ns, %llu ps/sector, %u "
		  "sectors, max_depth %u: depth %u..%u, want %u..%u",
		  kind == DEV_GATE ? "gated" : "queueing", tags,
		  (unsigned long long)lat_ns,
		  (unsigned long long)ps_per_sector, sectors, max_depth, lo,
		  hi, want_lo, want_hi);
	cr_assert_leq(m.max_in_flight, cap);
}

Test(sched_depth, contended_depth_is_the_devices_knee)
{
	/* 8 sectors per 1 us, 20 us: 20 requests in flight fill it. */
	depth_case(DEV_GATE, 64, 20 * US, 125000, 8, 1024);
	/* 4 KiB at 200 MiB/s with 200 us: 10.24 -> 11. */
	depth_case(DEV_GATE, 64, 200 * US, 2441406, 8, 1024);
	/* 2 us: 2. */
	depth_case(DEV_GATE, 64, 2 * US, 125000, 8, 1024);
	/* 1 MiB requests: less than one in flight fills it -> 2. */
	depth_case(DEV_GATE, 64, 200 * US, 2441406, 2048, 1024);
	/* max_depth and the tags cap the knee of 20. */
	depth_case(DEV_GATE, 64, 20 * US, 125000, 8, 8);
	depth_case(DEV_GATE, 16, 20 * US, 125000, 8, 1024);
}

/* A device that queues internally: queueing raises latency, not the rate,
 * so the probes do not take the depth past the knee (core-bugs.md bug 4:
 * it grew by 1.25 x + 1 a window up to the tags). */
Test(sched_depth, depth_settles_on_a_queueing_device)
{
	depth_case(DEV_QUEUE, 64, 20 * US, 125000, 8, 1024);
	depth_case(DEV_QUEUE, 64, 200 * US, 2441406, 8, 1024);
	depth_case(DEV_QUEUE, 16, 20 * US, 125000, 8, 1024);
}

/* Two groups contend and an anticipation window keeps the second active;
 * when the window ends, the glue's timer calls tick(): the lone group gets
 * every tag and has_work() says so at once (core-bugs.md bug 2). */
Test(sched_depth, has_work_after_contention_ends)
{
	struct cfqx_sched_group a, b;
	struct cfqx_sched_rq ra, rb[10], *x;
	struct rig t;
	u64 wake = 0;
	int i, n = 0;

	rig_init(&t, 64);
	cfqx_sched_group_init(&a);
	cfqx_sched_group_init(&b);
	rq_add(&t, &ra, &a, 0, 8, true);
	cr_assert_eq(rq_next(&t, NULL), &ra);
	t.now += 100 * US;
	rq_done(&t, &ra);	/* a anticipated for slice_idle */
	for (i = 0; i < 10; i++)
		rq_add(&t, &rb[i], &b, 100000 + 8 * (u64)i, 8, false);
	while ((x = rq_next(&t, &wake)))
		n++;
	cr_assert_eq(n, 4, "contended depth 4 (a keeps no slot)");
	cr_assert_eq(wake, a.anticipate_until);
	cr_assert_not(cfqx_sched_has_work(&t.s));
	t.now = wake;
	cr_assert_eq(cfqx_sched_tick(&t.s, &t.p, t.now, 0), 0, "no window left");
	cr_assert_not(a.on_active);
	cr_assert_eq(cfqx_sched_depth(&t.s, &t.p), 64);
	cr_assert(cfqx_sched_has_work(&t.s), "b alone: in flight %u of 64",
		  t.s.in_flight);
	while ((x = rq_next(&t, NULL)))
		n++;
	cr_assert_eq(n, 10);
	cr_assert_not(cfqx_sched_has_work(&t.s));
}

/* ------------------------------------------------------------------ */
/* Anticipation */

/* A one-deep sync reader s and a greedy group g at max_depth 2. */
struct antic {
	struct rig t;
	struct cfqx_sched_group s, g;
	struct cfqx_sched_rq sr[8], gr[64];
	struct cfqx_sched_rq *fl[4];	/* g's in flight, oldest first */
	int ns, ngr, nfl;
};

/* Dispatch until s's request goes out, completing g's (10 us each) when
 * the device is full. */
static struct cfqx_sched_rq *antic_serve_s(struct antic *a)
{
	struct cfqx_sched_rq *x;
	int guard;

	for (guard = 0; guard < 64; guard++) {
		x = rq_next(&a->t, NULL);
		if (x && x->group == &a->s)
			return x;
		if (x) {
			cr_assert_lt(a->nfl, 4);
			a->fl[a->nfl++] = x;
			continue;
		}
		cr_assert_gt(a->nfl, 0, "nothing in flight, nothing served");
		a->t.now += 10 * US;
		rq_done(&a->t, a->fl[0]);
		memmove(a->fl, a->fl + 1, (size_t)--a->nfl * sizeof(a->fl[0]));
	}
	cr_assert_fail("s is never served");
	return NULL;
}

static void antic_init(struct antic *a, u32 slice_idle_us)
{
	int i;

	memset(a, 0, sizeof(*a));
	rig_init(&a->t, 64);
	a->t.p.max_depth = 2;
	a->t.p.slice_idle = slice_idle_us;
	cfqx_sched_group_init(&a->s);
	cfqx_sched_group_init(&a->g);
	rq_add(&a->t, &a->sr[a->ns], &a->s, 8 * (u64)a->ns, 8, true);
	a->ns++;
	for (i = 0; i < 32; i++, a->ngr++)
		rq_add(&a->t, &a->gr[i], &a->g, 9000000 + 64 * (u64)i, 64,
		       true);
}

Test(sched_idle, thinker_stays_active_and_the_device_never_idles)
{
	static struct antic a;
	struct cfqx_sched_rq *x, *g1, *g2, *g3;
	struct cfqx_sched_group *gs[] = { &a.s, &a.g };
	u64 wake = 0, until;

	antic_init(&a, 8000);
	x = rq_next(&a.t, NULL);
	cr_assert_eq(x, &a.sr[0], "s first (equal vtime, first active)");
	g1 = rq_next(&a.t, NULL);
	cr_assert_eq(g1->group, &a.g);
	cr_assert_null(rq_next(&a.t, NULL), "max_depth 2");

	/* s completes and has nothing queued: it is anticipated for
	 * slice_idle (no think-time samples yet) and stays active. */
	a.t.now += 100 * US;
	rq_done(&a.t, x);
	cr_assert(a.s.on_active);
	cr_assert_eq(a.t.s.nr_active, 2);
	until = a.s.anticipate_until;
	cr_assert_eq(until, a.t.now + 8000 * US);
	check_invariants(&a.t.s, gs, 2);
	/* Nothing measured yet, so s is not known to want a share: it
	 * keeps no slot, g takes the free one. */
	cr_assert(cfqx_sched_has_work(&a.t.s));
	g2 = rq_next(&a.t, NULL);
	cr_assert_not_null(g2);
	cr_assert_eq(g2->group, &a.g);
	cr_assert_null(rq_next(&a.t, &wake), "max_depth 2");
	cr_assert_eq(wake, until, "a refused dispatch names the window end");
	cr_assert_not(cfqx_sched_has_work(&a.t.s));

	/* The device is never idled for it: each completion lets g go. */
	a.t.now += 100 * US;
	rq_done(&a.t, g1);
	cr_assert(cfqx_sched_has_work(&a.t.s));
	g3 = rq_next(&a.t, &wake);
	cr_assert_not_null(g3);
	cr_assert_eq(g3->group, &a.g);

	/* s comes back in time: a hit, and it goes first (least vtime). */
	a.t.now += 50 * US;
	rq_done(&a.t, g2);
	rq_add(&a.t, &a.sr[1], &a.s, 8, 8, true);
	cr_assert_eq(a.t.s.st.idle_hit, 1);
	cr_assert_eq(a.s.anticipate_until, 0);
	cr_assert(cfqx_sched_has_work(&a.t.s));
	x = rq_next(&a.t, NULL);
	cr_assert_eq(x, &a.sr[1]);

	/* It empties again; this time it does not come back in time. */
	a.t.now += 100 * US;
	rq_done(&a.t, x);
	until = a.s.anticipate_until;
	cr_assert_gt(until, a.t.now);
	rq_done(&a.t, g3);
	x = rq_next(&a.t, NULL);
	cr_assert_not_null(x);
	cr_assert_not_null(rq_next(&a.t, NULL));
	cr_assert_null(rq_next(&a.t, &wake));
	cr_assert_eq(wake, until);
	/* The glue's timer fires at the window end: the device is full, so
	 * the answer stays no; the next completion ends the window. */
	a.t.now = wake;
	cfqx_sched_tick(&a.t.s, &a.t.p, a.t.now, 0);
	cr_assert_not(cfqx_sched_has_work(&a.t.s));
	rq_done(&a.t, x);
	cr_assert_not(a.s.on_active);
	cr_assert_eq(a.t.s.nr_active, 1);
	cr_assert_eq(a.t.s.st.idle_expired, 1);
	cr_assert(cfqx_sched_has_work(&a.t.s));
	a.t.now += 10 * MS;
	rq_add(&a.t, &a.sr[2], &a.s, 16, 8, true);
	cr_assert_eq(a.t.s.st.idle_expired, 1, "counted once");
	cr_assert_eq(a.t.s.st.idle_hit, 1);
	check_invariants(&a.t.s, gs, 2);
}

/*
 * A disk with two groups: a's one read at sector 1000, then b's four far
 * away; returns the first dispatch, a's (the first active group).
 */
static struct cfqx_sched_rq *disk_a_then_b(struct rig *t,
					   struct cfqx_sched_group *a,
					   struct cfqx_sched_rq *ar,
					   struct cfqx_sched_group *b,
					   struct cfqx_sched_rq *br)
{
	struct cfqx_sched_rq *x;
	int i;

	rig_init_disk(t, 32);
	cfqx_sched_group_init(a);
	cfqx_sched_group_init(b);
	rq_add(t, ar, a, 1000, 8, true);
	for (i = 0; i < 4; i++)
		rq_add(t, &br[i], b, 900000 + 8 * (u64)i, 8, true);
	x = rq_next(t, NULL);
	cr_assert_eq(x, ar, "a first (first active)");
	return x;
}

/*
 * A disk waits for the group it serves (CFQ v3's slice_idle): while its
 * request is in flight and while it thinks within its window, the other
 * group's queued requests wait; the wait is not its service (only the
 * disk's busy time is), and at the window's end the other group goes.
 */
Test(sched_idle, a_disk_waits_for_the_group_it_serves)
{
	static struct cfqx_sched_rq ar[2], br[4];
	struct cfqx_sched_group a, b;
	struct cfqx_sched_group *gs[] = { &a, &b };
	struct cfqx_sched_rq *x;
	struct rig t;
	u64 wake = 0, until, charged, since;

	x = disk_a_then_b(&t, &a, ar, &b, br);
	/* In flight: the disk stays on a. */
	cr_assert_null(rq_next(&t, NULL));
	cr_assert_not(cfqx_sched_has_work(&t.s));
	/* Done, and a thinks: still on a, until its window ends. */
	t.now += 5 * MS;
	rq_done(&t, x);
	until = a.anticipate_until;
	cr_assert_gt(until, t.now);
	cr_assert_not(cfqx_sched_has_work(&t.s));
	cr_assert_null(rq_next(&t, &wake));
	cr_assert_eq(wake, until, "the glue's timer is set for its end");
	check_invariants(&t.s, gs, 2);
	/* a comes back 1 ms later: it goes, charged its request only. */
	charged = a.charged;
	t.now += 1 * MS;
	rq_add(&t, &ar[1], &a, 1008, 8, true);
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &ar[1]);
	cr_assert_eq(a.charged, charged + x->charge, "%llu after %llu",
		     (unsigned long long)a.charged,
		     (unsigned long long)charged);
	t.now += 5 * MS;
	rq_done(&t, x);
	/* It does not come back: at the window's end b goes, and a is not
	 * charged the wait. */
	until = a.anticipate_until;
	charged = a.charged;
	since = t.now;
	cr_assert_null(rq_next(&t, &wake));
	t.now = until;
	cfqx_sched_tick(&t.s, &t.p, t.now, until);
	cr_assert(cfqx_sched_has_work(&t.s));
	x = rq_next(&t, NULL);
	cr_assert_eq(x->group, &b);
	cr_assert_not(a.on_active);
	cr_assert_eq(a.charged, charged, "the wait is not a's service: "
		     "%llu after %llu (waited %llu ns)",
		     (unsigned long long)a.charged,
		     (unsigned long long)charged,
		     (unsigned long long)(until - since));
	cr_assert_eq(t.s.st.idle_expired, 1);
	cr_assert_eq(t.s.st.idle_hit, 1);
	check_invariants(&t.s, gs, 2);
}

/*
 * The wait is not charged, so a turn is bounded in wall time: a
 * sequential reader that always comes back within its window (0.5 ms on
 * the disk, 1.5 ms thinking) keeps the disk for many requests, but for at
 * most twice its round (CFQX_ROUND_SWITCHES switch costs) since its turn
 * began, though its service is still within the round; then the other
 * group goes.
 */
Test(sched_idle, a_disks_turn_lasts_at_most_twice_its_round)
{
	static struct cfqx_sched_rq ar[400], br[4];
	struct cfqx_sched_group a, b;
	struct cfqx_sched_group *gs[] = { &a, &b };
	struct cfqx_sched_rq *x;
	struct rig t;
	u64 start, round, charged;
	int i;

	x = disk_a_then_b(&t, &a, ar, &b, br);
	start = t.now;
	charged = a.charged;
	for (i = 1; i < 400; i++) {
		t.now += i == 1 ? 5 * MS : 500 * US;	/* a seek, then streams */
		rq_done(&t, x);
		t.now += 1500 * US;
		rq_add(&t, &ar[i], &a, 1000 + 8 * (u64)i, 8, true);
		x = rq_next(&t, NULL);
		cr_assert_not_null(x);
		if (x->group == &b)
			break;
	}
	cr_assert_eq(x->group, &b, "b went at last");
	round = cfqx_sched_round(&t.s, &t.p);
	cr_assert_geq(i, 10, "the disk waited for a: %d requests", i);
	cr_assert_leq(t.now - start, 2 * round + 7 * MS,
		      "a's turn: %llu ns, round %llu ns",
		      (unsigned long long)(t.now - start),
		      (unsigned long long)round);
	cr_assert_lt(a.charged - charged, round, "a's service %llu ns",
		     (unsigned long long)(a.charged - charged));
	check_invariants(&t.s, gs, 2);
}

/*
 * A queueing device (20 us latency, @ps_per_sector), a greedy async group
 * and a one-deep sync reader thinking @think_ns: the reader's pace, one
 * request per latency + think time, against its fair share, one per two
 * services (at 12500000 ps/sector: 100 us per 8-sector request, 40 MiB/s).
 */
static void thinker_case(struct sim *m, u64 think_ns, u64 ps_per_sector)
{
	sim_init(m, DEV_QUEUE, 64, 20 * US, ps_per_sector);
	sim_add(m, 16, 8, false, 0);
	sim_add(m, 1, 8, true, think_ns);
	m->watch = 1;
	sim_start(m);
	sim_run(m, T0 + SEC);
	if (getenv("CFQX_TEST_VERBOSE"))
		fprintf(stderr, "think %llu ns: greedy %llu, reader %llu "
			"bytes; backlogged in %llu of %llu think samples\n",
			(unsigned long long)think_ns,
			(unsigned long long)m->gr[0].bytes,
			(unsigned long long)m->gr[1].bytes,
			(unsigned long long)m->watch_backlogged,
			(unsigned long long)m->watch_think);
	/* The device is never idled: 95% of its bandwidth. */
	cr_assert_geq((m->gr[0].bytes + m->gr[1].bytes) * 100,
		      SEC * 1000 / ps_per_sector * 512 * 95,
		      "think %llu: %llu bytes in 1 s",
		      (unsigned long long)think_ns,
		      (unsigned long long)(m->gr[0].bytes + m->gr[1].bytes));
	cr_assert_gt(m->watch_think, 100, "the reader was seen thinking");
}

Test(sched_idle, thinker_that_wants_a_share_holds_the_others_back)
{
	static struct sim m;
	u64 r, g;

	/* 20 + 50 us per request: it could use more than half. */
	thinker_case(&m, 50 * US, 12500000);
	r = m.gr[1].bytes;
	g = m.gr[0].bytes;
	/* All but the first window's (nothing measured yet). */
	cr_assert_geq(m.watch_backlogged * 100, m.watch_think * 99,
		      "its think time counts as backlogged: %llu of %llu",
		      (unsigned long long)m.watch_backlogged,
		      (unsigned long long)m.watch_think);
	cr_assert(r * 10 >= g * 9 && r * 10 <= g * 11,
		  "equal shares: reader %llu, greedy %llu bytes",
		  (unsigned long long)r, (unsigned long long)g);
}

Test(sched_idle, thinker_that_wants_less_is_left_behind)
{
	static struct sim m;
	/* One request per 1 ms think + 20 us latency + the services it may
	 * wait for in the device: at the contended depth (the device's knee,
	 * here about two 100 us services). */
	const u64 demand = SEC / (1220 * US) * 8 * 512;

	/* Anticipated (1 ms < slice_idle), but its pace is a tenth of a
	 * share: the greedy group uses the slack. */
	thinker_case(&m, MS, 12500000);
	cr_assert(m.t.s.st.idle_hit > 100, "it was anticipated");
	cr_assert_eq(m.watch_backlogged, 0,
		     "its think time does not count as backlogged");
	cr_assert_geq(m.gr[1].bytes, demand * 9 / 10,
		      "the reader gets what it asks: %llu bytes, %llu wanted",
		      (unsigned long long)m.gr[1].bytes,
		      (unsigned long long)demand);
	cr_assert_lt(m.gr[1].bytes * 4, m.gr[0].bytes);
}

/*
 * The pace is for a device that turns work away (the glue finds its queue
 * stopped), not for one whose completions are late now and then: here
 * the device takes a request every 250 us and completes it 20 us later,
 * but every 8th completion is handled 12 latencies late, as a CPU busy
 * elsewhere does (the core read such gaps as a throttle before).
 */
static void pace_case(struct sim *m, bool stops)
{
	sim_init(m, DEV_GATE, 64, 20 * US, 31250000);
	m->dev.late_every = 8;
	m->dev.late_ns = 240 * US;
	m->stops = stops;
	sim_add(m, 16, 8, false, 0);
	sim_add(m, 16, 8, false, 0);
	sim_start(m);
	sim_run(m, T0 + SEC);
}

Test(sched_pace, only_while_the_device_turns_work_away)
{
	static struct sim m;

	pace_case(&m, false);
	cr_assert_eq(m.t.s.st.paced, 0, "paced %llu dispatches of a device "
		     "that never stopped",
		     (unsigned long long)m.t.s.st.paced);
	pace_case(&m, true);
	cr_assert_gt(m.t.s.st.paced, m.t.s.st.dispatched / 2,
		     "a device that stops is paced: %llu of %llu",
		     (unsigned long long)m.t.s.st.paced,
		     (unsigned long long)m.t.s.st.dispatched);
	cr_assert(m.gr[0].bytes * 10 >= m.gr[1].bytes * 9 &&
		  m.gr[1].bytes * 10 >= m.gr[0].bytes * 9,
		  "paced, still equal: %llu and %llu bytes",
		  (unsigned long long)m.gr[0].bytes,
		  (unsigned long long)m.gr[1].bytes);
}

Test(sched_idle, window_follows_measured_think_time)
{
	static struct antic a;
	struct cfqx_sched_rq *x;
	int i;

	antic_init(&a, 8000);
	/* s thinks 50 us each time; g is served in between. */
	for (i = 0; i < 4; i++) {
		x = antic_serve_s(&a);
		a.t.now += 100 * US;
		rq_done(&a.t, x);
		cr_assert(a.s.anticipate_until, "round %d: anticipated", i);
		if (i >= 2)
			/* Two samples of 50 us: twice that (no latency
			 * measured yet). */
			cr_assert_eq(a.s.anticipate_until - a.t.now,
				     100 * US, "round %d: window %llu ns", i,
				     (unsigned long long)
				     (a.s.anticipate_until - a.t.now));
		else
			cr_assert_eq(a.s.anticipate_until - a.t.now,
				     8000 * US);
		a.t.now += 50 * US;
		rq_add(&a.t, &a.sr[a.ns], &a.s, 8 * (u64)a.ns, 8, true);
		a.ns++;
	}
	cr_assert_eq(a.t.s.st.idle_hit, 4);
	cr_assert_eq(a.s.think_ns >> 4, 50 * US);
}

Test(sched_idle, long_thinker_is_not_anticipated)
{
	static struct antic a;
	struct cfqx_sched_rq *x;
	int i, n;

	antic_init(&a, 2000);
	/* s thinks 3 ms, more than slice_idle (2 ms). */
	for (i = 0; i < 4; i++) {
		x = antic_serve_s(&a);
		a.t.now += 100 * US;
		rq_done(&a.t, x);
		if (i < 2) {
			/* Too few samples: it gets the full slice_idle. */
			cr_assert(a.s.on_active);
		} else {
			cr_assert_not(a.s.on_active, "round %d: think %llu",
				      i, (unsigned long long)
				      (a.s.think_ns >> 4));
			cr_assert(cfqx_sched_group_idle(&a.s));
			cr_assert_eq(a.t.s.nr_active, 1);
			/* g alone fills the device (max_depth 2). */
			for (n = 0; (x = rq_next(&a.t, NULL)); n++)
				a.fl[a.nfl++] = x;
			cr_assert_geq(n, 1);
			cr_assert_eq(a.t.s.in_flight, 2);
		}
		a.t.now += 3 * MS;
		rq_add(&a.t, &a.sr[a.ns], &a.s, 8 * (u64)a.ns, 8, true);
		a.ns++;
	}
	cr_assert_eq(a.t.s.st.idle_hit, 0);
	cr_assert_eq(a.t.s.st.idle_expired, 2);
}

Test(sched_idle, slice_idle_zero_disables)
{
	static struct antic a;
	struct cfqx_sched_rq *x;
	int n;

	antic_init(&a, 0);
	x = rq_next(&a.t, NULL);
	cr_assert_eq(x, &a.sr[0]);
	cr_assert_not_null(rq_next(&a.t, NULL));
	a.t.now += 100 * US;
	rq_done(&a.t, x);
	cr_assert_not(a.s.on_active);
	cr_assert_eq(a.s.anticipate_until, 0);
	for (n = 0; rq_next(&a.t, NULL); n++)
		;
	cr_assert_eq(n, 1, "g fills max_depth 2");
	cr_assert_eq(a.t.s.nr_active, 1);
	a.t.now += 50 * US;
	rq_add(&a.t, &a.sr[1], &a.s, 8, 8, true);
	cr_assert_eq(a.t.s.st.idle_hit + a.t.s.st.idle_expired, 0);
}

Test(sched_idle, async_group_is_not_anticipated)
{
	struct cfqx_sched_group w, g;
	struct cfqx_sched_rq wr, gr[4], *x;
	struct rig t;
	int i;

	rig_init(&t, 64);
	t.p.max_depth = 2;
	cfqx_sched_group_init(&w);
	cfqx_sched_group_init(&g);
	rq_add(&t, &wr, &w, 0, 8, false);
	for (i = 0; i < 4; i++)
		rq_add(&t, &gr[i], &g, 900000 + 8 * (u64)i, 8, true);
	x = rq_next(&t, NULL);
	cr_assert_eq(x, &wr);
	cr_assert_not_null(rq_next(&t, NULL));
	t.now += 100 * US;
	rq_done(&t, x);
	cr_assert_not(w.on_active);
	cr_assert_not_null(rq_next(&t, NULL));
}

/* ------------------------------------------------------------------ */
/* Admission */

/* A group may allocate its share of the pool (per direction), and past
 * it, up to max_queued, while the pool keeps one for each holder. */
static void admit_case(u32 nr)
{
	static struct cfqx_sched_rq busy[16], mine[80];
	struct cfqx_sched_group others[16], g;
	struct rig t;
	u32 nbusy, i, n;

	rig_init(&t, 64);
	cfqx_sched_group_init(&g);
	for (i = 0; i < 16; i++)
		cfqx_sched_group_init(&others[i]);
	for (nbusy = 0; nbusy <= 16; nbusy++) {
		/* g and the nbusy groups holding one request each. */
		u32 holders = nbusy + 1;
		u32 share = cfqx_queue_limit(nr, holders, t.p.max_queued);
		u32 pool = nr > holders + nbusy ? nr - holders - nbusy : 0;
		u32 limit = share > pool ? share :
			pool < t.p.max_queued ? pool : t.p.max_queued;

		if (nbusy)
			rq_add(&t, &busy[nbusy - 1], &others[nbusy - 1],
			       8 * (u64)nbusy, 8, true);
		cr_assert_eq(t.s.nr_busy, nbusy);
		/* Reads: allocate up to the limit. */
		for (n = 0; cfqx_sched_may_queue(&t.s, &g, false, &t.p, nr);
		     n++) {
			cr_assert_lt(n, 79);
			cfqx_sched_rq_init(&t.s, &mine[n], &g, 0, 8, true,
					   false, NULL);
		}
		cr_assert_eq(n, limit, "pool %u, %u busy: %u reads, limit %u",
			     nr, nbusy, n, limit);
		/* Writes have their own count. */
		cr_assert(cfqx_sched_may_queue(&t.s, &g, true, &t.p, nr));
		cfqx_sched_rq_init(&t.s, &mine[n], &g, 0, 8, false, true,
				   NULL);
		cr_assert_eq(g.allocated[1], 1);
		cr_assert_not(cfqx_sched_may_queue(&t.s, &g, false, &t.p, nr));
		/* Freed requests give their slots back. */
		cfqx_sched_release(&t.s, &mine[n]);
		cfqx_sched_release(&t.s, &mine[0]);
		cr_assert(cfqx_sched_may_queue(&t.s, &g, false, &t.p, nr));
		for (i = 1; i < n; i++)
			cfqx_sched_release(&t.s, &mine[i]);
		cr_assert_eq(g.allocated[0] + g.allocated[1], 0);
		cr_assert_eq(t.s.nr_allocated, nbusy);
	}
}

Test(sched_admit, may_queue_follows_queue_limit_per_direction)
{
	admit_case(128);	/* the pool has room: max_queued */
	admit_case(40);		/* past the share, to the reserve */
	admit_case(34);		/* ... and at 16 busy, the share */
	/* 1 holder -> max_queued, 4 -> 32, 16 -> 8, 32 -> 4 (2.6.10's
	 * floor of `queued` would be 8: more than the pool holds). */
	cr_assert_eq(cfqx_queue_limit(128, 1, 64), 64);
	cr_assert_eq(cfqx_queue_limit(128, 4, 64), 32);
	cr_assert_eq(cfqx_queue_limit(128, 16, 64), 8);
	cr_assert_eq(cfqx_queue_limit(128, 32, 64), 4);
}

/* ------------------------------------------------------------------ */
/* Property: has_work() agrees with dispatch(), invariants hold */

static u64 rng_next(u64 *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

static u32 rng_below(u64 *x, u32 n)
{
	return (u32)(rng_next(x) % n);
}

#define PG 5
#define PR 96

enum { P_FREE, P_QUEUED, P_FLIGHT };

struct prop {
	struct rig t;
	struct cfqx_sched_group g[PG];
	struct cfqx_sched_group *gp[PG];
	struct cfqx_sched_rq r[PR];
	u8 st[PR];
	u64 cross, removed, forgot;
	const char *last_op;	/* the step before, for messages */
};

/* A random request in state @want, or -1. */
static int prop_pick(struct prop *q, u64 *rng, int want)
{
	int i, n = 0, k;

	for (i = 0; i < PR; i++)
		n += q->st[i] == want;
	if (!n)
		return -1;
	k = (int)rng_below(rng, (u32)n);
	for (i = 0; i < PR; i++)
		if (q->st[i] == want && !k--)
			return i;
	return -1;
}

/* The core's view of each request and group matches the test's. */
static void prop_check(struct prop *q)
{
	u32 queued[PG] = { 0 }, flight[PG] = { 0 }, alloc[PG][2] = { { 0 } };
	int i, gi;

	check_invariants(&q->t.s, q->gp, PG);
	for (i = 0; i < PR; i++) {
		if (q->st[i] == P_FREE)
			continue;
		gi = (int)(q->r[i].group - q->g);
		alloc[gi][q->r[i].write]++;
		if (q->st[i] == P_QUEUED) {
			REQUIRE(q->r[i].state == CFQX_SRQ_QUEUED,
				"request %d: state %u, want queued", i,
				q->r[i].state);
			queued[gi] += !q->r[i].head;
		} else {
			REQUIRE(q->r[i].state == CFQX_SRQ_DISPATCHED,
				"request %d: state %u, want dispatched", i,
				q->r[i].state);
			flight[gi]++;
		}
	}
	for (gi = 0; gi < PG; gi++) {
		const struct cfqx_sched_group *g = &q->g[gi];

		REQUIRE(g->queued[0] + g->queued[1] == queued[gi],
			"group %d: queued %u, test has %u", gi,
			g->queued[0] + g->queued[1], queued[gi]);
		REQUIRE(g->in_flight == flight[gi],
			"group %d: in flight %u, test has %u", gi,
			g->in_flight, flight[gi]);
		REQUIRE(g->allocated[0] == alloc[gi][0] &&
			g->allocated[1] == alloc[gi][1],
			"group %d: allocated %u/%u, test has %u/%u", gi,
			g->allocated[0], g->allocated[1], alloc[gi][0],
			alloc[gi][1]);
	}
	REQUIRE(q->t.s.st.merged_cross == q->cross, "merged_cross %llu, %llu",
		(unsigned long long)q->t.s.st.merged_cross,
		(unsigned long long)q->cross);
}


/* has_work, then dispatch at the same instant: they must agree, both
 * ways (blk-mq re-runs a queue 3 ms later when a dispatch after a true
 * has_work returns nothing, and never asks after a false one). */
static void prop_dispatch(struct prop *q, u64 step)
{
	struct rig *t = &q->t;
	bool work = cfqx_sched_has_work(&t->s);
	u64 when = cfqx_sched_wake_at(&t->s);

	/* A wake time in the past would re-arm the glue's timer forever. */
	REQUIRE(!when || when > t->now, "step %llu: wake_at %llu at %llu",
		(unsigned long long)step, (unsigned long long)when,
		(unsigned long long)t->now);
	u32 queued = t->s.nr_queued, in_flight = t->s.in_flight;
	u32 head = t->s.nr_head;
	u64 wake = 0;
	struct cfqx_sched_rq *x = rq_next(t, &wake);

	REQUIRE(work == !!x,
		"step %llu: has_work %d but dispatch returned %s after %s "
		"(queued %u, head %u, in flight %u, active %u, backlogged %u, "
		"depth %u)", (unsigned long long)step, work,
		x ? "a request" : "none", q->last_op,
		queued, head, in_flight, t->s.nr_active, t->s.nr_backlogged,
		cfqx_sched_depth(&t->s, &t->p));
	/* An idle device with work queued is held only by the pace, and
	 * then only until a time the glue's timer is told. */
	REQUIRE(x || !queued || in_flight || wake > t->now,
		"step %llu: %u queued, nothing in flight, nothing dispatched, "
		"no wake time", (unsigned long long)step, queued);
	REQUIRE(x || !queued || in_flight ||
		cfqx_sched_wake_at(&t->s) == wake,
		"step %llu: wake_at() %llu, dispatch said %llu",
		(unsigned long long)step,
		(unsigned long long)cfqx_sched_wake_at(&t->s),
		(unsigned long long)wake);
	REQUIRE(!wake || (!x && wake > t->now),
		"step %llu: wake_at %llu at %llu", (unsigned long long)step,
		(unsigned long long)wake, (unsigned long long)t->now);
	if (x) {
		REQUIRE(x->state == CFQX_SRQ_DISPATCHED,
			"dispatched request not marked so");
		q->st[x - q->r] = P_FLIGHT;
	}
}

/*
 * @steps random operations on @ng groups (of PG), with the core's invariants and
 * has_work()/dispatch() agreement checked after each; then a drain.
 * Requeued requests go back sorted, or with @at_head half of them at head
 * (as blk-mq's requeue work does on 6.12).
 */
static void prop_run(u64 seed, u32 steps, u32 ng, u32 tags, u32 max_depth,
		     u32 slice_idle, bool at_head)
{
	static struct prop q;
	u64 rng = seed, step;
	int i, j;

	memset(&q, 0, sizeof(q));
	rig_init(&q.t, tags);
	q.t.p.max_depth = max_depth;
	q.t.p.slice_idle = slice_idle;
	q.last_op = "nothing";
	for (i = 0; i < PG; i++) {
		cfqx_sched_group_init(&q.g[i]);
		q.gp[i] = &q.g[i];
	}
	for (step = 0; step < steps; step++) {
		u32 op = rng_below(&rng, 100);
		const char *name = "nothing";
		struct cfqx_sched_rq *r;

		if (op < 30) {			/* a new request */
			name = "insert";
			i = prop_pick(&q, &rng, P_FREE);
			if (i >= 0) {
				bool sync = rng_below(&rng, 10) < 7;

				rq_add(&q.t, &q.r[i],
				       &q.g[rng_below(&rng, ng)],
				       8 * (u64)rng_below(&rng, 1u << 21),
				       8 << rng_below(&rng, 5), sync);
				q.st[i] = P_QUEUED;
			}
		} else if (op < 60) {		/* the driver asks */
			name = "dispatch";
			prop_dispatch(&q, step);
		} else if (op < 80) {		/* a completion */
			name = "complete";
			i = prop_pick(&q, &rng, P_FLIGHT);
			if (i >= 0) {
				rq_done(&q.t, &q.r[i]);
				q.st[i] = P_FREE;
			}
		} else if (op < 83) {		/* requeue */
			name = "requeue";
			i = prop_pick(&q, &rng, P_FLIGHT);
			if (i >= 0) {
				r = &q.r[i];
				cfqx_sched_requeue(&q.t.s, r);
				if (at_head && rng_below(&rng, 2))
					cfqx_sched_insert_head(&q.t.s, r);
				else
					cfqx_sched_insert(&q.t.s, r, &q.t.p,
							  q.t.now);
				q.st[i] = P_QUEUED;
			}
		} else if (op < 86) {		/* freed unissued */
			name = "remove";
			i = prop_pick(&q, &rng, P_QUEUED);
			if (i >= 0) {
				cfqx_sched_remove(&q.t.s, &q.r[i]);
				cfqx_sched_release(&q.t.s, &q.r[i]);
				q.st[i] = P_FREE;
				q.removed++;
			}
		} else if (op < 90) {		/* a request merge */
			name = "merge";
			i = prop_pick(&q, &rng, P_QUEUED);
			j = prop_pick(&q, &rng, P_QUEUED);
			if (i >= 0 && j >= 0 && i != j) {
				r = &q.r[i];
				q.cross += r->group != q.r[j].group;
				cfqx_sched_resize(&q.t.s, r, r->sector,
						  r->sectors +
						  q.r[j].sectors);
				cfqx_sched_merge(&q.t.s, r, &q.r[j]);
				cfqx_sched_release(&q.t.s, &q.r[j]);
				q.st[j] = P_FREE;
			}
		} else if (op < 92) {		/* a bio merge moved it */
			name = "resize";
			i = prop_pick(&q, &rng, P_QUEUED);
			if (i >= 0)
				cfqx_sched_resize(&q.t.s, &q.r[i],
						  8 * (u64)rng_below(&rng,
								     1u << 21),
						  q.r[i].sectors);
		} else if (op < 94) {		/* a group is freed */
			name = "forget";
			struct cfqx_sched_group *g = &q.g[rng_below(&rng, ng)];

			/* The glue frees a group with no requests left (its
			 * last reference), even while anticipated, and may
			 * reuse the memory for a new group. */
			if (!g->queued[0] && !g->queued[1] &&
			    !g->queued_head && !g->in_flight &&
			    !g->allocated[0] && !g->allocated[1]) {
				cfqx_sched_group_forget(&q.t.s, g);
				cfqx_sched_group_init(g);
				q.forgot++;
			}
		} else {			/* time passes */
			name = "tick";
			u32 k = rng_below(&rng, 100);

			if (k < 80)
				q.t.now += rng_below(&rng, 500 * US);
			else if (k < 98)
				q.t.now += rng_below(&rng, 20 * MS);
			else
				q.t.now += 700 * MS;
			/* Now and then the driver turned work away: the
			 * pace's paths are taken too. */
			if (rng_below(&rng, 8) == 0)
				cfqx_sched_stopped(&q.t.s);
			/* The glue's timer (armed at a refused dispatch's
			 * wake_at) fires, late or on time. */
			cfqx_sched_tick(&q.t.s, &q.t.p, q.t.now, 0);
		}
		prop_check(&q);
		q.last_op = name;
	}
	/* Drain: everything completes, counters return to zero. */
	for (step = 0; step < 100000; step++) {
		i = prop_pick(&q, &rng, P_FLIGHT);
		if (i >= 0) {
			q.t.now += 10 * US;
			rq_done(&q.t, &q.r[i]);
			q.st[i] = P_FREE;
		} else if (q.t.s.nr_queued) {
			q.t.now += 10 * MS;	/* past any window */
			cfqx_sched_tick(&q.t.s, &q.t.p, q.t.now, 0);
		} else {
			break;
		}
		q.last_op = "a drain step";
		prop_dispatch(&q, steps + step);
		prop_check(&q);
	}
	cr_assert_eq(q.t.s.nr_queued, 0);
	cr_assert_eq(q.t.s.in_flight, 0);
	cr_assert_eq(q.t.s.nr_busy, 0);
	/* Every insert left by one way: dispatch, merge or removal. */
	cr_assert_eq(q.t.s.st.inserted,
		     q.t.s.st.dispatched + q.t.s.st.merged + q.removed);
	cr_assert_eq(q.t.s.st.dispatched,
		     q.t.s.st.completed + q.t.s.st.requeued);
}

/* The property over a spread of devices, policies and group counts. */
static void prop_configs(bool at_head)
{
	static const struct {
		u32 ng, tags, max_depth, slice_idle;
	} cfg[] = {
		{ 5, 64, 1024, 8000 }, { 5, 64, 2, 8000 }, { 5, 4, 1024, 2000 },
		{ 5, 64, 1024, 0 }, { 5, 1, 1, 8000 }, { 5, 32, 4, 100000 },
		{ 2, 64, 1024, 8000 }, { 2, 16, 1024, 2000 },
	};
	u32 i;

	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++)
		prop_run(0x9e3779b97f4a7c15ULL + i, 6000, cfg[i].ng,
			 cfg[i].tags, cfg[i].max_depth, cfg[i].slice_idle,
			 at_head);
}

Test(sched_prop, has_work_agrees_with_dispatch)
{
	prop_configs(false);
}

/* With half the requeues at head, as blk-mq 6.12's requeue work does. */
Test(sched_prop, has_work_agrees_with_dispatch_head_requeues)
{
	prop_configs(true);
}

/* ------------------------------------------------------------------ */
/* Fairness on a bandwidth-limited device */

static void fairness_case(enum dev_kind kind, u64 lat_ns)
{
	static struct sim m;
	u64 total = 0, mean;
	int i;

	/* 200 MiB/s, 64 tags, 64 KiB requests: one greedy group at depth
	 * 16 and three one-deep readers thinking 20 us. */
	sim_init(&m, kind, 64, lat_ns, 2441406);
	sim_add(&m, 16, 128, true, 0);
	for (i = 0; i < 3; i++)
		sim_add(&m, 1, 128, true, 20 * US);
	sim_start(&m);
	sim_run(&m, T0 + 2 * SEC);
	for (i = 0; i < m.ng; i++)
		total += m.gr[i].bytes;
	if (getenv("CFQX_TEST_VERBOSE"))
		for (i = 0; i < m.ng; i++)
			fprintf(stderr, "%s lat %llu: group %d %.3f of equal, "
				"depth %u, max in flight %u\n",
				kind == DEV_GATE ? "gated" : "queueing",
				(unsigned long long)lat_ns, i,
				(double)m.gr[i].bytes * m.ng / (double)total,
				cfqx_sched_depth(&m.t.s, &m.t.p),
				m.max_in_flight);
	mean = total / (u64)m.ng;
	for (i = 0; i < m.ng; i++)
		cr_expect(m.gr[i].bytes * 10 >= mean * 9 &&
			  m.gr[i].bytes * 10 <= mean * 11,
			  "%s device: group %d got %llu bytes, mean %llu "
			  "(%.3f)", kind == DEV_GATE ? "gated" : "queueing",
			  i, (unsigned long long)m.gr[i].bytes,
			  (unsigned long long)mean,
			  (double)m.gr[i].bytes / (double)mean);
	/* And the device stays busy: at least 95% of its bandwidth. */
	cr_expect_geq(total * 100, (u64)(2 * SEC) * 1000 / 2441406 * 512 * 95,
		      "%s device: %llu bytes in 2 s",
		      kind == DEV_GATE ? "gated" : "queueing",
		      (unsigned long long)total);
}

Test(sched_fair, greedy_against_one_deep_readers_gated)
{
	/* 200 us: less than one request in flight fills the device. */
	fairness_case(DEV_GATE, 200 * US);
	/* 1 ms: 3.2 do. */
	fairness_case(DEV_GATE, MS);
}

/* The same on a device that queues internally (core-bugs.md bug 4: the
 * greedy group got 3.1 x the equal share, each reader 0.29 x). */
Test(sched_fair, greedy_against_one_deep_readers_queueing)
{
	fairness_case(DEV_QUEUE, 200 * US);
	fairness_case(DEV_QUEUE, MS);
}
