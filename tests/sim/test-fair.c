// SPDX-License-Identifier: GPL-2.0
/*
 * The fairness definitions (user/fair.c) the simulator and the VM
 * benchmarks share: Jain's index, water-filling, and the bytes and
 * device-time forms of fair share, x, max-min Jain and worst share.
 */
#include <criterion/criterion.h>
#include "../../user/cfqx.h"

#define EPS 1e-9

Test(fair, jain)
{
	double eq[] = { 5, 5, 5, 5 }, one[] = { 1, 0 }, mix[] = { 3, 1 };

	cr_expect_float_eq(cfqx_jain(4, eq), 1.0, EPS);
	cr_expect_float_eq(cfqx_jain(2, one), 0.5, EPS, "one of two served: 1/n");
	cr_expect_float_eq(cfqx_jain(2, mix), 16.0 / 20, EPS);
	cr_expect_float_eq(cfqx_jain(0, NULL), 1.0, EPS);
}

Test(fair, waterfill)
{
	double d[] = { 100, 10, 50 }, f[3];
	double big[] = { 300, 300, 300 }, z[] = { 0, 40 };

	cfqx_waterfill(3, d, 120, f);
	cr_expect_float_eq(f[1], 10, EPS, "wants less than a third: all of it");
	cr_expect_float_eq(f[2], 50, EPS, "wants less than half the rest");
	cr_expect_float_eq(f[0], 60, EPS, "the greedy one gets what is left");
	cfqx_waterfill(3, d, 1000, f);
	cr_expect_float_eq(f[0] + f[1] + f[2], 160, EPS, "no contention: demands");
	cfqx_waterfill(3, big, 90, f);
	cr_expect_float_eq(f[0], 30, EPS);
	cr_expect_float_eq(f[2], 30, EPS);
	cfqx_waterfill(2, z, 100, f);
	cr_expect_float_eq(f[0], 0, EPS);
	cr_expect_float_eq(f[1], 40, EPS);
}

/* The uid mix: one user gets 30 of its fair 100 MB/s. */
Test(fair, bytes_unit)
{
	double dem[] = { 200, 200 }, got[] = { 170, 30 }, fair[3], x[3];
	double dem2[] = { 200, 20, 20 }, got2[] = { 150, 20, 10 };
	struct cfqx_fairness f;

	cfqx_fairness_eval(2, dem, NULL, got, 0, fair, x, &f);
	cr_expect_float_eq(f.capacity, 200, EPS, "capacity: what was delivered");
	cr_expect_float_eq(fair[1], 100, EPS);
	cr_expect_float_eq(x[1], 0.3, EPS);
	cr_expect_float_eq(f.worst_share, 0.3, EPS);
	cr_expect_float_eq(f.jain, cfqx_jain(2, got), EPS);
	cr_expect_float_eq(f.maxmin_jain, cfqx_jain(2, x), EPS);
	/* light groups are owed their demand, not an equal split */
	cfqx_fairness_eval(3, dem2, NULL, got2, 0, fair, x, &f);
	cr_expect_float_eq(fair[1], 20, EPS);
	cr_expect_float_eq(fair[0], 140, EPS);
	cr_expect_float_eq(x[2], 0.5, EPS);
	cr_expect_float_eq(f.worst_share, 0.5, EPS);
	/* an explicit capacity */
	cfqx_fairness_eval(2, dem, NULL, got, 100, fair, x, &f);
	cr_expect_float_eq(fair[0], 50, EPS);
}

/* Device time: fractions water-filled within 1.0, bandwidth scaled. */
Test(fair, time_unit)
{
	/* a seq stream (150 MB/s, all the disk) and a thinking random reader
	 * (1 MB/s, 40% of the disk): the reader is owed its 40% */
	double dem[] = { 150, 1 }, st[] = { 1.0, 0.4 }, got[] = { 90, 1 };
	double fair[2], x[2];
	struct cfqx_fairness f;

	cfqx_fairness_eval(2, dem, st, got, 0, fair, x, &f);
	cr_expect_float_eq(f.capacity, 1.0, EPS);
	cr_expect_float_eq(fair[1], 1, EPS);
	cr_expect_float_eq(fair[0], 150 * 0.6, EPS);
	cr_expect_float_eq(x[0], 1, EPS);
	cr_expect_float_eq(f.maxmin_jain, 1, EPS);
	/* interleaving that costs the stream its rate counts against */
	got[0] = 30;
	cfqx_fairness_eval(2, dem, st, got, 0, fair, x, &f);
	cr_expect_float_eq(x[0], 30.0 / 90, EPS);
	cr_expect_float_eq(f.worst_share, 30.0 / 90, EPS);
	/* a group that did nothing alone is owed nothing: x 1 */
	st[1] = 0;
	dem[1] = 0;
	got[1] = 0;
	cfqx_fairness_eval(2, dem, st, got, 0, fair, x, &f);
	cr_expect_float_eq(fair[1], 0, EPS);
	cr_expect_float_eq(x[1], 1, EPS);
}
