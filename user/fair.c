// SPDX-License-Identifier: GPL-2.0
/*
 * The fairness figures of DESIGN.md "Measuring fairness", in one place:
 * water-filling of demands into fair shares, Jain's index, max-min Jain
 * (over x = got / fair share) and the worst share.  `cfqx sim` scores its
 * runs with these, and the VM benchmarks call them through `cfqx
 * fairness`, so both use the same definitions.  Pure arithmetic.
 */
#include <stdlib.h>
#include "cfqx.h"

double cfqx_jain(int n, const double *v)
{
	double s = 0, q = 0;
	int i;

	for (i = 0; i < n; i++) {
		s += v[i];
		q += v[i] * v[i];
	}
	if (n == 0 || q <= 0)
		return 1.0;
	return s * s / (n * q);
}

void cfqx_waterfill(int n, const double *demand, double cap, double *fair)
{
	int *order, i, j, left = n;

	if (n <= 0)
		return;
	order = malloc(sizeof(*order) * n);
	if (!order) {
		/* no memory: an equal split keeps the answer defined */
		for (i = 0; i < n; i++)
			fair[i] = demand[i] < cap / n ? demand[i] : cap / n;
		return;
	}
	/* ascending demand, ties by index (insertion sort: n is small) */
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && demand[order[j - 1]] > demand[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (i = 0; i < n; i++) {
		double d = demand[order[i]] > 0 ? demand[order[i]] : 0;
		double level = cap > 0 ? cap / left : 0;

		if (d <= level) {
			fair[order[i]] = d;
			cap -= d;
			left--;
			continue;
		}
		/* everyone from here on wants more than the level */
		for (j = i; j < n; j++)
			fair[order[j]] = level;
		break;
	}
	free(order);
}

void cfqx_fairness_eval(int n, const double *demand, const double *solo_time,
			const double *got, double cap, double *fair,
			double *share, struct cfqx_fairness *out)
{
	const double *cost = solo_time ? solo_time : demand;
	double worst = 1.0;
	int i;

	if (cap <= 0) {
		cap = 0;
		if (solo_time)
			cap = 1.0;
		else
			for (i = 0; i < n; i++)
				cap += got[i];
	}
	cfqx_waterfill(n, cost, cap, fair);
	for (i = 0; i < n; i++) {
		if (solo_time)
			fair[i] = solo_time[i] > 0 ?
				demand[i] * fair[i] / solo_time[i] : 0;
		share[i] = fair[i] > 0 ? got[i] / fair[i] : 1.0;
		if (i == 0 || share[i] < worst)
			worst = share[i];
	}
	out->jain = cfqx_jain(n, got);
	out->maxmin_jain = cfqx_jain(n, share);
	out->worst_share = worst;
	out->capacity = cap;
}
