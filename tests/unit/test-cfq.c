// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the pure CFQ v2 math in include/cfqx/cfq.h that the BPF
 * programs, the elevator and the cfqx command all compile.
 */
#include <criterion/criterion.h>
#include <cfqx/cfq.h>

Test(seek, forward_near_far)
{
	__u64 d;

	cr_expect_eq(cfqx_seek_class(100, 150, 64, 2, &d), CFQX_SEEK_FORWARD);
	cr_expect_eq(d, 50);
	cr_expect_eq(cfqx_seek_class(100, 100, 64, 2, &d), CFQX_SEEK_FORWARD);
	cr_expect_eq(d, 0);
	cr_expect_eq(cfqx_seek_class(100, 40, 64, 2, &d), CFQX_SEEK_BACK_NEAR);
	cr_expect_eq(d, 120);
	cr_expect_eq(cfqx_seek_class(100, 36, 64, 2, &d), CFQX_SEEK_BACK_NEAR);
	cr_expect_eq(cfqx_seek_class(100, 35, 64, 2, &d), CFQX_SEEK_BACK_FAR);
	cr_expect_eq(d, 0);
}

Test(seek, choose_req_rules)
{
	/* not wrapped beats wrapped */
	cr_expect_eq(cfqx_choose_req(1000, 10, 990, 64, 2), 2);
	/* two wrapped: lower sector */
	cr_expect_eq(cfqx_choose_req(1000, 20, 10, 64, 2), 2);
	/* smaller distance: backward 10*2=20 vs forward 30 */
	cr_expect_eq(cfqx_choose_req(1000, 990, 1030, 64, 2), 1);
	/* tie: higher sector (backward 10*2 == forward 20) */
	cr_expect_eq(cfqx_choose_req(1000, 990, 1020, 64, 2), 2);
}

Test(policy, back_max_in_sectors)
{
	struct cfqx_policy p = CFQX_POLICY_DEFAULT;

	cr_expect_eq(cfqx_back_max_sectors(&p), 16384ULL * 2);
}

Test(decay, shifts_per_period)
{
	cr_expect_eq(cfqx_service_decay(800, 5, 5), 800);
	cr_expect_eq(cfqx_service_decay(800, 5, 4), 800);
	cr_expect_eq(cfqx_service_decay(800, 5, 6), 100);
	cr_expect_eq(cfqx_service_decay(800, 5, 7), 12);
	cr_expect_eq(cfqx_service_decay(~0ULL, 0, 22), 0);
	cr_expect_eq(cfqx_epoch(2999999999ULL), 2);
}

Test(admission, queue_limit_clamped)
{
	cr_expect_eq(cfqx_queue_limit(128, 4, 64), 32);
	cr_expect_eq(cfqx_queue_limit(128, 32, 64), 4);
	cr_expect_eq(cfqx_queue_limit(128, 1, 64), 64);
	cr_expect_eq(cfqx_queue_limit(128, 0, 64), 64);
	/* Never a floor the pool cannot honour, but never shut out. */
	cr_expect_eq(cfqx_queue_limit(64, 15, 64), 4);
	cr_expect_eq(cfqx_queue_limit(64, 100, 64), 1);
}

Test(budget, entitlement_and_over)
{
	cr_expect_eq(cfqx_entitled_milli(4, 3), 1333);
	cr_expect_eq(cfqx_entitled_milli(4, 0), 0);
	cr_expect_eq(cfqx_dispatch_share_milli(1), 1000);
	cr_expect_eq(cfqx_dispatch_share_milli(4), 250);
	/* exactly one quantum over is still jitter; more is over budget */
	cr_expect_not(cfqx_over_budget(8, 4000, 4));
	cr_expect(cfqx_over_budget(9, 4000, 4));
	cr_expect_not(cfqx_over_budget(0, 0, 4));
}

Test(budget, virtual_clock)
{
	/* idle: only banked; busy: banked + progress since it got busy */
	cr_expect_eq(cfqx_group_entitled_milli(500, 100, 900, false), 500);
	cr_expect_eq(cfqx_group_entitled_milli(500, 100, 900, true), 1300);
	cr_expect_eq(cfqx_group_entitled_milli(500, 1000, 900, true), 500);
}

Test(budget, two_groups_share_equally)
{
	/* replay: 2 busy groups, 8 dispatches alternating A,B */
	__u64 share = 0, got[2] = { 0 }, base[2] = { 0 };
	int i;

	for (i = 0; i < 8; i++) {
		share += cfqx_dispatch_share_milli(2);
		got[i & 1]++;
	}
	for (i = 0; i < 2; i++) {
		__u64 e = cfqx_group_entitled_milli(0, base[i], share, true);

		cr_expect_eq(e, 4000);
		cr_expect_not(cfqx_over_budget(got[i], e, 4));
	}
	/* A takes everything for 20 more dispatches: over budget */
	for (i = 0; i < 20; i++) {
		share += cfqx_dispatch_share_milli(2);
		got[0]++;
	}
	cr_expect(cfqx_over_budget(got[0],
				   cfqx_group_entitled_milli(0, 0, share, true),
				   4));
}

Test(deadline, fifo_expire)
{
	struct cfqx_policy p = CFQX_POLICY_DEFAULT;

	cr_expect_eq(cfqx_fifo_expire_ns(&p, true), 500000000ULL);
	cr_expect_eq(cfqx_fifo_expire_ns(&p, false), 5000000000ULL);
}

Test(hist, slots_and_percentiles)
{
	__u64 h[CFQX_HIST_SLOTS] = { 0 };

	cr_expect_eq(cfqx_hist_slot(0), 0);
	cr_expect_eq(cfqx_hist_slot(1999), 0);
	cr_expect_eq(cfqx_hist_slot(2000), 1);
	cr_expect_eq(cfqx_hist_slot(1024 * 1000), 10);
	cr_expect_eq(cfqx_hist_slot(~0ULL), CFQX_HIST_SLOTS - 1);
	cr_expect_eq(cfqx_hist_slot_floor_ns(0), 0);
	cr_expect_eq(cfqx_hist_slot_floor_ns(3), 8000);
	cr_expect_eq(cfqx_hist_percentile_ns(h, 50), 0);
	h[2] = 98;	/* 4..8 us */
	h[10] = 2;	/* 1..2 ms */
	cr_expect_eq(cfqx_hist_percentile_ns(h, 50), 8000);
	cr_expect_eq(cfqx_hist_percentile_ns(h, 98), 8000);
	cr_expect_eq(cfqx_hist_percentile_ns(h, 99), 2048000);
	h[CFQX_HIST_SLOTS - 1] = 1000;
	cr_expect_eq(cfqx_hist_percentile_ns(h, 99),
		     cfqx_hist_slot_floor_ns(CFQX_HIST_SLOTS));
}

/* The slot as the halving loop it replaces defined it. */
static __u32 slot_by_halving(__u64 ns)
{
	__u64 us = ns / 1000;
	__u32 slot = 0;

	while (us > 1 && slot < CFQX_HIST_SLOTS - 1) {
		us >>= 1;
		slot++;
	}
	return slot;
}

Test(hist, slot_search_matches_halving)
{
	__u64 ns;
	int k, d;

	for (k = 0; k < 64; k++)
		for (d = -2; d <= 2; d++) {
			ns = (k < 44 ? 1000ULL << k : 1ULL << k) + d;
			cr_expect_eq(cfqx_hist_slot(ns), slot_by_halving(ns),
				     "ns %llu", (unsigned long long)ns);
		}
	for (ns = 0; ns < 300000; ns += 7)
		cr_expect_eq(cfqx_hist_slot(ns), slot_by_halving(ns));
}

Test(groups, per_cpu_counts_minus_bases)
{
	struct cfqx_group_counts c1 = { 0 }, c2 = { 0 }, b1 = { 0 };
	struct cfqx_group_stats g = { 0 };

	c1.rqs[CFQX_WRITE] = 10;
	c1.bytes[CFQX_WRITE] = 40960;
	c1.stime_hist[3] = 7;
	c1.issued = 12;
	c2.rqs[CFQX_WRITE] = 5;
	c2.issued = 5;
	c2.seeks[CFQX_SEEK_BACK_FAR] = 2;
	/* CPU 1's copy had counted 8 requests for the entry's last owner */
	b1.rqs[CFQX_WRITE] = 8;
	b1.bytes[CFQX_WRITE] = 32768;
	b1.issued = 9;
	cfqx_group_counts_add(&g, &b1, -1);
	cfqx_group_counts_add(&g, &c1, 1);
	cfqx_group_counts_add(&g, &c2, 1);
	cr_expect_eq(g.rqs[CFQX_WRITE], 7);
	cr_expect_eq(g.bytes[CFQX_WRITE], 8192);
	cr_expect_eq(g.stime_hist[3], 7);
	cr_expect_eq(g.issued, 8);
	cr_expect_eq(g.seeks[CFQX_SEEK_BACK_FAR], 2);
	cr_expect_eq(g.rqs[CFQX_READ], 0);
}

Test(ratelimit, per_second_with_suppressed_count)
{
	struct cfqx_ratelimit st = { 0 };
	int i, allowed = 0;

	for (i = 0; i < 25; i++)
		allowed += cfqx_ratelimit_allow(&st, 5000000000ULL + i, 10);
	cr_expect_eq(allowed, 10);
	cr_expect_eq(st.suppressed, 15);
	/* next second: allowed again, suppressed kept for the caller */
	cr_expect(cfqx_ratelimit_allow(&st, 6000000000ULL, 10));
	cr_expect_eq(st.suppressed, 15);
	cr_expect_eq(st.count, 1);
}

Test(policy, check_names_first_bad_field)
{
	struct cfqx_policy p = CFQX_POLICY_DEFAULT;

	cr_expect_eq(cfqx_policy_check(&p), 0);
	p.group_by = CFQX_BY_NR;
	cr_expect_eq(cfqx_policy_check(&p), 1);
	p.group_by = CFQX_BY_CGROUP;
	p.fifo_expire_sync = 0;
	cr_expect_str_eq(cfqx_policy_field_names[cfqx_policy_check(&p) - 1],
			 "fifo_expire_sync");
	p.fifo_expire_sync = 500;
	p.max_queued = p.queued - 1;
	cr_expect_str_eq(cfqx_policy_field_names[cfqx_policy_check(&p) - 1],
			 "max_queued");
}

Test(policy, zero_means_defaults)
{
	struct cfqx_policy z = { 0 }, d = CFQX_POLICY_DEFAULT;

	cr_expect(cfqx_policy_is_zero(&z));
	cr_expect_not(cfqx_policy_is_zero(&d));
	z.event_rate = 1;
	cr_expect_not(cfqx_policy_is_zero(&z));
}

Test(policy, group_by_names)
{
	cr_expect_eq(cfqx_group_by_parse("tgid", 4), CFQX_BY_TGID);
	cr_expect_eq(cfqx_group_by_parse("cgroup", 6), CFQX_BY_CGROUP);
	cr_expect_eq(cfqx_group_by_parse("uidx", 4), -1);
	cr_expect_eq(cfqx_group_by_parse("ui", 2), -1);
	cr_expect_eq(cfqx_group_by_parse("uid\n", 3), CFQX_BY_UID);
}

Test(devices, open_addressing_home_slot)
{
	__u32 n = 256, i;

	for (i = 0; i < 64; i++) {
		cr_expect_lt(cfqx_dev_slot(CFQX_MKDEV(7, i), n), n);
		cr_expect_lt(cfqx_dev_slot(CFQX_MKDEV(259, i), n), n);
	}
	/* loop0..3 do not all collide */
	cr_expect_neq(cfqx_dev_slot(CFQX_MKDEV(7, 0), n),
		      cfqx_dev_slot(CFQX_MKDEV(7, 1), n));
}

Test(groups, derived_gauges)
{
	struct cfqx_group_stats g = { 0 };

	g.issued = 10;
	g.requeues = 1;
	g.rqs[CFQX_READ] = 4;
	g.rqs[CFQX_WRITE] = 2;
	g.lost = 1;
	g.pending = 5;
	cr_expect_eq(cfqx_group_in_flight(&g), 2);
	cr_expect_eq(cfqx_group_queued(&g), 3);
	g.pending = 1;
	cr_expect_eq(cfqx_group_queued(&g), 0);
	g.issued = 0;
	cr_expect_eq(cfqx_group_in_flight(&g), 0);
}

Test(budget, busy_period_anticipation)
{
	cr_expect_not(cfqx_period_continues(0, 5000, 2000));	/* never idle */
	cr_expect(cfqx_period_continues(1000000, 2500000, 2000));
	cr_expect(cfqx_period_continues(1000000, 3000000, 2000));
	cr_expect_not(cfqx_period_continues(1000000, 3000001, 2000));
	cr_expect_not(cfqx_period_continues(5000, 4000, 2000));	/* clock */
	cr_expect_not(cfqx_period_continues(1000, 1001, 0));
}
