// SPDX-License-Identifier: GPL-2.0
/*
 * `cfqx sim` output: the per-group table (or JSON object, keys in
 * docs/sim.md) of a scored run.  Numbers are printed with fixed precision
 * from values the run computed deterministically, so equal inputs print
 * equal bytes.
 */
#include "sim.h"

static double us(sim_u64 ns)
{
	return (double)ns / 1e3;
}

static double kib(double bytes_s)
{
	return bytes_s / 1024.0;
}

static double mib(double bytes_s)
{
	return bytes_s / (1024.0 * 1024.0);
}

static double iops(const struct sim_group_res *g)
{
	return g->window_ns ? (double)g->ios * 1e9 / (double)g->window_ns : 0;
}

void sim_report_text(FILE *f, const char *jobfile, const struct sim_opts *o,
		     const struct sim_eval *e)
{
	const struct sim_res *r = &e->run;
	char dev[256];
	int g;

	sim_dev_describe(&o->dev, dev, sizeof(dev));
	fprintf(f, "cfqx sim %s: %s, sched %s, groups by %s, seed %llu, %.3f s\n",
		jobfile, dev, o->sched == SIM_SCHED_CFQX ? "cfqx" : "fifo",
		cfqx_group_by_names[o->policy.group_by],
		(unsigned long long)o->seed, (double)r->duration_ns / 1e9);
	if (e->time_unit)
		fprintf(f, "fair shares in device time (demand = busy fraction alone, water-filled within 1.0)\n");
	else
		fprintf(f, "fair shares in bytes (demand = MiB/s alone, water-filled within the %.1f MiB/s delivered)\n",
			mib(e->f.capacity));
	fprintf(f, "%-20s %10s %5s %9s %8s %9s %9s %9s %9s %9s %6s\n", "GROUP",
		"KEY", "PROCS", "MiB/s", "IOPS", "P50_us", "P99_us", "MAX_us",
		e->time_unit ? "DEMAND%" : "DEMAND", "FAIR", "X");
	for (g = 0; g < r->ngroups; g++) {
		const struct sim_group_res *gr = &r->g[g];

		fprintf(f, "%-20s %10llu %5u %9.2f %8.0f %9.0f %9.0f %9.0f %9.2f %9.2f %6.3f\n",
			gr->name, (unsigned long long)gr->key, gr->nprocs,
			mib(e->got_bw[g]), iops(gr), us(gr->lat_p50),
			us(gr->lat_p99), us(gr->lat_max),
			e->time_unit ? 100 * e->demand_time[g] :
			mib(e->demand_bw[g]), mib(e->fair_bw[g]), e->share[g]);
	}
	fprintf(f, "total %.2f MiB/s  jain %.3f  maxmin_jain %.3f  worst_share %.3f",
		mib(e->total_bw), e->f.jain, e->f.maxmin_jain,
		e->f.worst_share);
	if (r->stalls)
		fprintf(f, "  STALLS %llu (queued work, idle device, no wake-up)",
			(unsigned long long)r->stalls);
	fputc('\n', f);
}

void sim_report_json(FILE *f, const struct sim_opts *o,
		     const struct sim_eval *e)
{
	const struct sim_res *r = &e->run;
	char dev[256];
	int g;

	sim_dev_describe(&o->dev, dev, sizeof(dev));
	fprintf(f, "{\"device\":");
	cfqx_json_str(f, dev);
	fprintf(f, ",\"sched\":\"%s\",\"policy\":\"%s\",\"seed\":%llu,"
		"\"duration_s\":%.6f,\"unit\":\"%s\",\"capacity\":%.3f,"
		"\"total_kib_s\":%.3f,\"jain\":%.6f,\"maxmin_jain\":%.6f,"
		"\"worst_share\":%.6f,\"stalls\":%llu,\"refused\":%llu,"
		"\"max_blocked_us\":%.3f,\"events\":%llu,",
		o->sched == SIM_SCHED_CFQX ? "cfqx" : "fifo",
		cfqx_group_by_names[o->policy.group_by],
		(unsigned long long)o->seed, (double)r->duration_ns / 1e9,
		e->time_unit ? "time" : "bytes",
		e->time_unit ? e->f.capacity : kib(e->f.capacity),
		kib(e->total_bw), e->f.jain, e->f.maxmin_jain,
		e->f.worst_share, (unsigned long long)r->stalls,
		(unsigned long long)r->refused, us(r->max_blocked_ns),
		(unsigned long long)r->events);
	fprintf(f, "\"core\":{\"depth\":%u,\"lat_min_us\":%.3f,"
		"\"dispatched\":%llu,\"depth_full\":%llu,"
		"\"pace_refused\":%llu,\"paced\":%llu,\"late_wakes\":%llu,"
		"\"capacity_kib_s\":%llu,\"pace_kib_s\":%llu,"
		"\"fifo_expired\":%llu,\"idle_hit\":%llu,"
		"\"idle_expired\":%llu,\"ready_us\":%.3f,"
		"\"held_order_us\":%.3f,\"held_depth_us\":%.3f,"
		"\"held_pace_us\":%.3f,\"held_idle_us\":%.3f},"
		"\"frozen_s\":%.3f,\"groups\":[",
		r->core_depth, us(r->core_lat_min_ns),
		(unsigned long long)r->core_st.dispatched,
		(unsigned long long)r->core_st.depth_full,
		(unsigned long long)r->core_st.pace_refused,
		(unsigned long long)r->core_st.paced,
		(unsigned long long)r->core_st.late_wakes,
		(unsigned long long)r->core_capacity_kib_s,
		(unsigned long long)r->core_pace_kib_s,
		(unsigned long long)r->core_st.fifo_expired,
		(unsigned long long)r->core_st.idle_hit,
		(unsigned long long)r->core_st.idle_expired,
		us(r->core_st.held_ns[CFQX_HOLD_READY]),
		us(r->core_st.held_ns[CFQX_HOLD_ORDER]),
		us(r->core_st.held_ns[CFQX_HOLD_DEPTH]),
		us(r->core_st.held_ns[CFQX_HOLD_PACE]),
		us(r->core_st.held_idle_ns),
		(double)r->frozen_ns / 1e9);
	for (g = 0; g < r->ngroups; g++) {
		const struct sim_group_res *gr = &r->g[g];

		fprintf(f, "%s{\"name\":", g ? "," : "");
		cfqx_json_str(f, gr->name);
		fprintf(f, ",\"key\":%llu,\"procs\":%u,\"bytes\":%llu,"
			"\"kib_s\":%.3f,\"iops\":%.3f,\"lat_p50_us\":%.3f,"
			"\"lat_p99_us\":%.3f,\"lat_max_us\":%.3f,"
			"\"demand_kib_s\":%.3f,\"demand_time\":%.6f,"
			"\"fair_kib_s\":%.3f,\"share\":%.6f}",
			(unsigned long long)gr->key, gr->nprocs,
			(unsigned long long)gr->bytes, kib(e->got_bw[g]),
			iops(gr), us(gr->lat_p50), us(gr->lat_p99),
			us(gr->lat_max), kib(e->demand_bw[g]),
			e->demand_time[g], kib(e->fair_bw[g]), e->share[g]);
	}
	fprintf(f, "]}\n");
}
