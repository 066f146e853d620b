// SPDX-License-Identifier: GPL-2.0
/*
 * Scoring a simulated run: each group's demand is what it gets alone on
 * the same device (a run with only its processes, under fifo, so the
 * demand is the device's and the workload's, not the scheduler's), its
 * fair share water-fills the demands (user/fair.c) in the device's cost
 * unit, and x = got / fair share.
 *
 *   bytes (nullb, ssd): demand and got in bytes/s; the capacity is what
 *        the run delivered in total, so x measures the division of the
 *        device and the total-versus-fifo figure its efficiency;
 *   time (hdd): demand is the fraction of device time the group keeps
 *        the disk busy alone; the fractions are water-filled within 1.0
 *        and the fair bandwidth is the solo bandwidth * fair time / solo
 *        time, so seeks a scheduler causes between groups count against
 *        it (DESIGN.md "Measuring fairness").
 */
#include <stdlib.h>
#include <string.h>
#include "sim.h"

static double rate(sim_u64 v, sim_u64 window_ns)
{
	return window_ns ? (double)v * 1e9 / (double)window_ns : 0;
}

int sim_solo_run(const struct sim_opts *o, struct sim_solo *s, char *err,
		 size_t errlen)
{
	struct sim_opts so = *o;
	struct sim_res r;
	int g, n = 1;

	memset(s, 0, sizeof(*s));
	so.sched = SIM_SCHED_FIFO;
	so.latencies = false;
	for (g = 0; g < n; g++) {
		so.only_group = g;
		if (sim_run(&so, &r, err, errlen))
			goto fail;
		if (g == 0) {
			n = s->ngroups = r.ngroups;
			s->bytes = calloc(n, sizeof(*s->bytes));
			s->dev_ns = calloc(n, sizeof(*s->dev_ns));
			s->window_ns = calloc(n, sizeof(*s->window_ns));
			s->ios = calloc(n, sizeof(*s->ios));
			if (!s->bytes || !s->dev_ns || !s->window_ns ||
			    !s->ios) {
				sim_res_free(&r);
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
		}
		s->bytes[g] = r.g[g].bytes;
		s->dev_ns[g] = r.g[g].dev_ns;
		s->window_ns[g] = r.g[g].window_ns;
		s->ios[g] = r.g[g].ios;
		sim_res_free(&r);
	}
	return 0;
fail:
	sim_solo_free(s);
	return -1;
}

void sim_solo_free(struct sim_solo *s)
{
	free(s->bytes);
	free(s->dev_ns);
	free(s->window_ns);
	free(s->ios);
	memset(s, 0, sizeof(*s));
}

int sim_evaluate(const struct sim_opts *o, const struct sim_solo *solo,
		 struct sim_eval *e, char *err, size_t errlen)
{
	struct sim_opts mo = *o;
	struct sim_solo own;
	int n, g;

	memset(e, 0, sizeof(*e));
	memset(&own, 0, sizeof(own));
	if (!solo) {
		if (sim_solo_run(o, &own, err, errlen))
			return -1;
		solo = &own;
	}
	mo.only_group = -1;
	mo.latencies = true;
	if (sim_run(&mo, &e->run, err, errlen))
		goto fail;
	n = e->run.ngroups;
	if (solo->ngroups != n) {
		snprintf(err, errlen, "solo runs have %d groups, the run %d",
			 solo->ngroups, n);
		goto fail;
	}
	e->time_unit = sim_dev_time_unit(&o->dev);
	e->demand_bw = calloc(n, sizeof(double));
	e->demand_time = calloc(n, sizeof(double));
	e->got_bw = calloc(n, sizeof(double));
	e->fair_bw = calloc(n, sizeof(double));
	e->share = calloc(n, sizeof(double));
	if (!e->demand_bw || !e->demand_time || !e->got_bw || !e->fair_bw ||
	    !e->share) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (g = 0; g < n; g++) {
		e->demand_bw[g] = rate(solo->bytes[g], solo->window_ns[g]);
		e->demand_time[g] = rate(solo->dev_ns[g], solo->window_ns[g]) / 1e9;
		e->got_bw[g] = rate(e->run.g[g].bytes, e->run.g[g].window_ns);
		e->total_bw += rate(e->run.g[g].bytes, e->run.duration_ns);
	}
	cfqx_fairness_eval(n, e->demand_bw, e->time_unit ? e->demand_time : NULL,
			   e->got_bw, 0, e->fair_bw, e->share, &e->f);
	sim_solo_free(&own);
	return 0;
fail:
	sim_solo_free(&own);
	sim_eval_free(e);
	return -1;
}

void sim_eval_free(struct sim_eval *e)
{
	sim_res_free(&e->run);
	free(e->demand_bw);
	free(e->demand_time);
	free(e->got_bw);
	free(e->fair_bw);
	free(e->share);
	memset(e, 0, sizeof(*e));
}
