/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulator matrix (issue 9's Targets): seeded scenarios written as
 * real fio job files (matrix-gen.c), and the verdict of one scenario run
 * through `cfqx sim`'s engine under cfqx and fifo (matrix-run.c).  The
 * runner (sim-matrix.c) and the unit tests share both.
 */
#ifndef CFQX_SIM_MATRIX_H
#define CFQX_SIM_MATRIX_H

#include "../../user/sim.h"

#define SIM_MATRIX_N		240
#define SIM_MATRIX_SEED		20041020ULL	/* "Coming in 2.6.10" */

/* Targets. */
#define SIM_T_MAXMIN		0.95
#define SIM_T_WORST		0.80
#define SIM_T_TOTAL		0.95

struct sim_scenario {
	int index;
	sim_u64 seed;
	char name[64];			/* m017-hdd-uid-5g */
	char devspec[128];		/* --device */
	struct sim_devcfg dev;
	unsigned group_by;		/* --policy */
	int ngroups;
	int nprocs;
	char *fio;			/* the job file */
	/* what it covers (for the coverage test) */
	unsigned min_depth, max_depth;	/* of greedy async groups */
	sim_u64 min_think_us, max_think_us;	/* of sync readers */
	sim_u64 min_bs, max_bs;
	bool seq, rnd, reads, writes, greedy, readers, buffered;
};

/* Scenario @i (0 <= i < SIM_MATRIX_N) from @seed.  0 or -1 (no memory). */
int sim_scenario_make(int i, sim_u64 seed, struct sim_scenario *sc);
void sim_scenario_free(struct sim_scenario *sc);

/* The verdict of one scenario. */
struct sim_verdict {
	int index;
	double maxmin, worst, total_ratio;	/* cfqx */
	double fifo_maxmin, fifo_worst;
	double cfqx_mib_s, fifo_mib_s;
	double lat_ms, lat_bound_ms;	/* cfqx sync reads' max, and bound */
	sim_u64 stalls;
	double need;			/* sim_ssd_need(), sim_hdd_need(); 0 on nullb */
	bool pass;
	char error[1024];		/* set when the run itself failed */
};

/*
 * One round, for the latency bound: every group's `quantum` requests of
 * its largest size at the model's nominal cost, plus the device's own
 * latency (nullb: completion time and one throttle tick).
 */
sim_u64 sim_round_ns(const struct sim_devcfg *dev,
		     const struct cfqx_policy *pol, const struct sim_res *r);

/*
 * On the ssd model a request's channel time follows from its size and
 * alignment alone, whatever the order, so a group's channel time per
 * byte is what it spent alone.  Any schedule that meets the worst-share
 * and total targets delivers at least T = SIM_T_TOTAL x @fifo_bw, each
 * group at least SIM_T_WORST of its fair share of T, and the rest of T
 * at best at the cheapest group's cost.  Returns that channel time over
 * the channels' (each serves one second per second): above 1, no
 * scheduler meets both targets.  0 when the demands are unknown.
 */
double sim_ssd_need(const struct sim_devcfg *dev, const struct sim_solo *solo,
		    double fifo_bw);

/*
 * The same on the hdd model, in device time (one actuator, one second per
 * second): each group at SIM_T_WORST of its fair share (fair device time
 * water-filled within the disk, its fair bandwidth its solo bandwidth x
 * fair / solo time) costs at least its solo device time per byte, and a
 * one-deep sequential group pays per request, besides, the lesser of the
 * time the disk stood idle for it alone (its think) and a return to it
 * from elsewhere (the shortest seek and, in expectation, half a turn):
 * the disk either waits for its next request or comes back for it.  The
 * rest of T at the cheapest group's cost.  @r (the mix's run) says which
 * groups are one-deep and sequential.  Above 1, no scheduler meets both
 * targets, in expectation over the platter's angle.
 */
double sim_hdd_need(const struct sim_devcfg *dev, const struct sim_solo *solo,
		    const struct sim_res *r, double fifo_bw);

/* Run the job file at @path as scenario @sc says; fills @v. */
void sim_verdict_run(const struct sim_scenario *sc, const char *path,
		     struct sim_verdict *v);

#endif /* CFQX_SIM_MATRIX_H */
