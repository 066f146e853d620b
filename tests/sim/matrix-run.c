// SPDX-License-Identifier: GPL-2.0
/*
 * One matrix scenario's verdict: its job file parsed back from disk (the
 * file is the input, as for `cfqx sim`), each group alone under fifo for
 * the demands, then the mix under cfqx and under fifo, scored with the
 * same code `cfqx sim` uses, against the targets: max-min Jain
 * >= 0.95, worst x >= 0.8, total >= 95% of fifo's, the sync readers'
 * (one-deep groups') maximum read latency <= fifo_expire_sync + one
 * round, and no stall; and on the ssd and hdd models, whether any
 * scheduler could meet the worst-share and total targets at once
 * (sim_ssd_need(), sim_hdd_need()).
 */
#include <stdlib.h>
#include <string.h>
#include "matrix.h"

sim_u64 sim_round_ns(const struct sim_devcfg *dev,
		     const struct cfqx_policy *pol, const struct sim_res *r)
{
	sim_u64 t = 0;
	int g;

	for (g = 0; g < r->ngroups; g++)
		t += pol->quantum * sim_dev_nominal_ns(dev, r->g[g].max_bs,
						       r->g[g].sequential);
	switch (dev->model) {
	case SIM_NULLB:
		return t + dev->lat_ns + (dev->bw ? dev->tick_ns : 0);
	case SIM_SSD:
		return t + dev->read_ns;
	default:
		return t;
	}
}

/* Of the sync readers: groups whose processes read one request at a time
 * (a deeper group's own queue adds its own wait, by Little's law). */
static double max_sync_read_ms(const struct sim_res *r)
{
	sim_u64 m = 0;
	int g;

	for (g = 0; g < r->ngroups; g++)
		if (r->g[g].max_depth == 1 && r->g[g].sync_read_lat_max > m)
			m = r->g[g].sync_read_lat_max;
	return (double)m / 1e6;
}

/*
 * The device time a second that the targets need: each group at
 * SIM_T_WORST of its fair bandwidth @fair (bytes/s) at @cost (device
 * seconds per byte), and the rest of SIM_T_TOTAL x @fifo_bw at @least,
 * the cheapest group's cost.
 */
static double targets_time(int n, const double *fair, const double *cost,
			   double least, double fifo_bw)
{
	double total = SIM_T_TOTAL * fifo_bw, floor = 0, need = 0;
	int g;

	for (g = 0; g < n; g++) {
		need += SIM_T_WORST * fair[g] * cost[g];
		floor += SIM_T_WORST * fair[g];
	}
	if (total > floor)
		need += (total - floor) * least;
	return need;
}

double sim_ssd_need(const struct sim_devcfg *dev, const struct sim_solo *solo,
		    double fifo_bw)
{
	int g, n = solo->ngroups;
	double *demand, *cost, *fair, least = -1, need = 0;

	if (dev->model != SIM_SSD || n <= 0 || !dev->channels)
		return 0;
	demand = calloc(n, sizeof(*demand));
	cost = calloc(n, sizeof(*cost));
	fair = calloc(n, sizeof(*fair));
	if (!demand || !cost || !fair)
		goto out;
	for (g = 0; g < n; g++) {
		if (!solo->bytes[g] || !solo->window_ns[g])
			goto out;	/* a group that did nothing alone */
		demand[g] = (double)solo->bytes[g] * 1e9 /
			(double)solo->window_ns[g];
		cost[g] = (double)solo->dev_ns[g] / 1e9 /
			(double)solo->bytes[g];	/* channel s per byte */
		if (least < 0 || cost[g] < least)
			least = cost[g];
	}
	cfqx_waterfill(n, demand, SIM_T_TOTAL * fifo_bw, fair);
	need = targets_time(n, fair, cost, least, fifo_bw) / dev->channels;
out:
	free(demand);
	free(cost);
	free(fair);
	return need;
}

double sim_hdd_need(const struct sim_devcfg *dev, const struct sim_solo *solo,
		    const struct sim_res *r, double fifo_bw)
{
	int g, n = solo->ngroups;
	double *demand, *tpb, *extra, *fair, least = -1, need = 0, ret_ns;

	if (dev->model != SIM_HDD || n <= 0 || r->ngroups != n || !dev->rpm)
		return 0;
	demand = calloc(n, sizeof(*demand));
	tpb = calloc(n, sizeof(*tpb));
	extra = calloc(n, sizeof(*extra));
	fair = calloc(n, sizeof(*fair));
	if (!demand || !tpb || !extra || !fair)
		goto out;
	/* A return to a group elsewhere: the shortest seek and, in
	 * expectation, half a turn. */
	ret_ns = (double)dev->seek_min_ns + 30e9 / (double)dev->rpm;
	for (g = 0; g < n; g++) {
		double idle;

		if (!solo->bytes[g] || !solo->window_ns[g] ||
		    !solo->dev_ns[g] || !solo->ios[g])
			goto out;	/* a group that did nothing alone */
		demand[g] = (double)solo->dev_ns[g] /
			(double)solo->window_ns[g];
		tpb[g] = (double)solo->dev_ns[g] / 1e9 /
			(double)solo->bytes[g];
		if (least < 0 || tpb[g] < least)
			least = tpb[g];
		if (r->g[g].max_depth != 1 || !r->g[g].sequential)
			continue;
		idle = solo->window_ns[g] > solo->dev_ns[g] ?
			(double)(solo->window_ns[g] - solo->dev_ns[g]) /
			(double)solo->ios[g] : 0;
		extra[g] = (idle < ret_ns ? idle : ret_ns) / 1e9 *
			(double)solo->ios[g] / (double)solo->bytes[g];
	}
	/* Fair device time, water-filled within the disk; a group's fair
	 * bandwidth is its solo bandwidth scaled by fair / solo time. */
	cfqx_waterfill(n, demand, 1.0, fair);
	for (g = 0; g < n; g++) {
		fair[g] *= (double)solo->bytes[g] * 1e9 /
			(double)solo->window_ns[g] / demand[g];	/* bytes/s */
		extra[g] += tpb[g];			/* cost a byte */
	}
	need = targets_time(n, fair, extra, least, fifo_bw);
out:
	free(demand);
	free(tpb);
	free(extra);
	free(fair);
	return need;
}

void sim_verdict_run(const struct sim_scenario *sc, const char *path,
		     struct sim_verdict *v)
{
	struct sim_jobfile jf;
	struct sim_opts o;
	struct sim_solo solo;
	struct sim_eval ec, ef;
	char err[256];

	memset(v, 0, sizeof(*v));
	v->index = sc->index;
	if (sim_jobfile_parse(path, &jf, err, sizeof(err))) {
		snprintf(v->error, sizeof(v->error), "%s", err);
		return;
	}
	memset(&o, 0, sizeof(o));
	o.jf = &jf;
	o.dev = sc->dev;
	o.policy = (struct cfqx_policy)CFQX_POLICY_DEFAULT;
	o.policy.group_by = sc->group_by;
	o.seed = sc->seed;
	o.only_group = -1;
	if (sim_solo_run(&o, &solo, err, sizeof(err))) {
		snprintf(v->error, sizeof(v->error), "solo: %s", err);
		goto out_jf;
	}
	o.sched = SIM_SCHED_CFQX;
	if (sim_evaluate(&o, &solo, &ec, err, sizeof(err))) {
		snprintf(v->error, sizeof(v->error), "cfqx: %s", err);
		goto out_solo;
	}
	o.sched = SIM_SCHED_FIFO;
	if (sim_evaluate(&o, &solo, &ef, err, sizeof(err))) {
		snprintf(v->error, sizeof(v->error), "fifo: %s", err);
		goto out_ec;
	}
	v->maxmin = ec.f.maxmin_jain;
	v->worst = ec.f.worst_share;
	v->fifo_maxmin = ef.f.maxmin_jain;
	v->fifo_worst = ef.f.worst_share;
	v->cfqx_mib_s = ec.total_bw / (1 << 20);
	v->fifo_mib_s = ef.total_bw / (1 << 20);
	v->total_ratio = ef.total_bw > 0 ? ec.total_bw / ef.total_bw : 0;
	v->lat_ms = max_sync_read_ms(&ec.run);
	v->lat_bound_ms = (double)o.policy.fifo_expire_sync +
		(double)sim_round_ns(&o.dev, &o.policy, &ec.run) / 1e6;
	v->stalls = ec.run.stalls;
	v->need = o.dev.model == SIM_HDD ?
		sim_hdd_need(&o.dev, &solo, &ec.run, ef.total_bw) :
		sim_ssd_need(&o.dev, &solo, ef.total_bw);
	v->pass = v->maxmin >= SIM_T_MAXMIN && v->worst >= SIM_T_WORST &&
		v->total_ratio >= SIM_T_TOTAL && v->lat_ms <= v->lat_bound_ms &&
		!v->stalls;
	sim_eval_free(&ef);
out_ec:
	sim_eval_free(&ec);
out_solo:
	sim_solo_free(&solo);
out_jf:
	sim_jobfile_free(&jf);
}
