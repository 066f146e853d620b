// SPDX-License-Identifier: GPL-2.0
/*
 * The matrix generator covers what issue 9's Targets ask for (at least
 * 200 scenarios; 2-16 groups; greedy groups at depth 1-64 and sync
 * readers with think time 0-5 ms; 4 KiB-1 MiB; sequential and random;
 * reads and writes; every key; every model), every scenario is a job file
 * the parser accepts, its key decides its groups (another key would group
 * it differently), it is the same for the same seed, a scenario's
 * verdict comes out of a run with sane figures, and the ssd feasibility
 * bound is what its definition says and never below a run that met it.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "matrix.h"

static int groups_under(const struct sim_jobfile *jf, unsigned by)
{
	struct sim_proc_id *p;
	sim_u64 keys[1024];
	int n = sim_procs(jf, &p), i, k, ng = 0;

	cr_assert_gt(n, 0);
	for (i = 0; i < n; i++) {
		sim_u64 key = sim_proc_key(&p[i], by);

		for (k = 0; k < ng && keys[k] != key; k++)
			;
		if (k == ng)
			keys[ng++] = key;
	}
	free(p);
	return ng;
}

Test(simmatrix, covers_the_targets)
{
	bool models[SIM_MODELS] = { 0 }, keys[CFQX_BY_NR] = { 0 };
	bool counts[17] = { 0 };
	unsigned dmin = 1000, dmax = 0;
	sim_u64 tmin = ~0ULL, tmax = 0, bmin = ~0ULL, bmax = 0;
	bool seq = 0, rnd = 0, rd = 0, wr = 0, buf = 0;
	char err[512];
	int i, by;

	cr_assert_geq(SIM_MATRIX_N, 200);
	for (i = 0; i < SIM_MATRIX_N; i++) {
		struct sim_scenario sc;
		struct sim_jobfile jf;
		bool other = false;

		cr_assert_eq(sim_scenario_make(i, SIM_MATRIX_SEED, &sc), 0);
		cr_assert_eq(sim_jobfile_parse_text(sc.name, sc.fio, &jf, err,
						    sizeof(err)), 0, "%s", err);
		cr_expect_eq(groups_under(&jf, sc.group_by), sc.ngroups, "%s",
			     sc.name);
		for (by = 0; by < CFQX_BY_NR; by++)
			if ((unsigned)by != sc.group_by &&
			    groups_under(&jf, by) != sc.ngroups)
				other = true;
		cr_expect(other, "%s: every key groups it the same", sc.name);
		models[sc.dev.model] = keys[sc.group_by] = true;
		counts[sc.ngroups] = true;
		if (sc.greedy) {
			dmin = sc.min_depth < dmin ? sc.min_depth : dmin;
			dmax = sc.max_depth > dmax ? sc.max_depth : dmax;
		}
		if (sc.readers) {
			tmin = sc.min_think_us < tmin ? sc.min_think_us : tmin;
			tmax = sc.max_think_us > tmax ? sc.max_think_us : tmax;
		}
		bmin = sc.min_bs < bmin ? sc.min_bs : bmin;
		bmax = sc.max_bs > bmax ? sc.max_bs : bmax;
		seq |= sc.seq;
		rnd |= sc.rnd;
		rd |= sc.reads;
		wr |= sc.writes;
		buf |= sc.buffered;
		sim_jobfile_free(&jf);
		sim_scenario_free(&sc);
	}
	for (i = 0; i < SIM_MODELS; i++)
		cr_expect(models[i], "model %d", i);
	for (i = 0; i < CFQX_BY_NR; i++)
		cr_expect(keys[i], "key %d", i);
	for (i = 2; i <= 16; i++)
		cr_expect(counts[i], "%d groups", i);
	cr_expect_eq(dmin, 1);
	cr_expect_eq(dmax, 64);
	cr_expect_eq(tmin, 0);
	cr_expect_geq(tmax, 4500);
	cr_expect_leq(tmax, 5000);
	cr_expect_eq(bmin, 4096);
	cr_expect_eq(bmax, 1 << 20);
	cr_expect(seq && rnd && rd && wr && buf);
}

Test(simmatrix, same_seed_same_files)
{
	struct sim_scenario a, b, c;

	cr_assert_eq(sim_scenario_make(17, SIM_MATRIX_SEED, &a), 0);
	cr_assert_eq(sim_scenario_make(17, SIM_MATRIX_SEED, &b), 0);
	cr_assert_eq(sim_scenario_make(17, SIM_MATRIX_SEED + 1, &c), 0);
	cr_expect_str_eq(a.fio, b.fio);
	cr_expect_str_neq(a.fio, c.fio);
	cr_expect(strstr(a.fio, "; cfqx sim m017-"), "the header says how to run it");
	sim_scenario_free(&a);
	sim_scenario_free(&b);
	sim_scenario_free(&c);
}

/* A verdict comes from a real run: figures in range, bound sensible. */
Test(simmatrix, verdicts, .timeout = 120)
{
	char path[] = "/tmp/cfqx-simmatrix-XXXXXX";
	int i;

	for (i = 0; i < 3; i++) {	/* nullb, ssd, hdd */
		struct sim_scenario sc;
		struct sim_verdict v;
		int fd = mkstemp(path);

		cr_assert_geq(fd, 0);
		cr_assert_eq(sim_scenario_make(i, SIM_MATRIX_SEED, &sc), 0);
		cr_assert_eq(write(fd, sc.fio, strlen(sc.fio)), (ssize_t)strlen(sc.fio));
		close(fd);
		sim_verdict_run(&sc, path, &v);
		unlink(path);
		strcpy(path, "/tmp/cfqx-simmatrix-XXXXXX");
		cr_expect_eq(v.error[0], 0, "%s: %s", sc.name, v.error);
		cr_expect(v.maxmin > 0 && v.maxmin <= 1.0 + 1e-9, "%f", v.maxmin);
		cr_expect(v.fifo_maxmin > 0 && v.fifo_maxmin <= 1.0 + 1e-9);
		cr_expect_gt(v.cfqx_mib_s, 0);
		cr_expect_gt(v.fifo_mib_s, 0);
		cr_expect_gt(v.lat_bound_ms, 500);
		cr_expect_eq(v.pass, v.maxmin >= SIM_T_MAXMIN &&
			     v.worst >= SIM_T_WORST &&
			     v.total_ratio >= SIM_T_TOTAL &&
			     v.lat_ms <= v.lat_bound_ms && !v.stalls);
		/* The bound is a necessary condition: a run that meets both
		 * targets proves them feasible. */
		cr_expect((sc.dev.model != SIM_NULLB) == (v.need > 0), "%f",
			  v.need);
		if (v.worst >= SIM_T_WORST && v.total_ratio >= SIM_T_TOTAL)
			cr_expect_leq(v.need, 1.0);
		if (v.fifo_worst >= SIM_T_WORST)
			cr_expect_leq(v.need, 1.0);
		sim_scenario_free(&sc);
	}
}

/*
 * The ssd bound by hand, on 8 channels: group a alone delivers 2 GB/s at
 * 4 ns of channel time per byte, b at 10.  fifo's total is 2 GB/s, so
 * T = 1.9 GB/s; b's fair share is its demand, a takes the rest; 0.8 of
 * each, and the last 0.2 of T at a's cost.
 */
Test(simmatrix, ssd_need_by_hand)
{
	struct sim_devcfg dev = { .model = SIM_SSD, .channels = 8 };
	sim_u64 bytes[2] = { 2000000000ULL, 0 }, dev_ns[2] = { 8000000000ULL, 0 };
	sim_u64 window[2] = { 1000000000ULL, 1000000000ULL };
	struct sim_solo solo = { 2, bytes, dev_ns, window, NULL };
	const struct {
		sim_u64 b_bytes;
		double need;
	} c[] = {
		/* b 600 MB/s: 0.8 (600 x 10 + 1300 x 4) + 380 x 4, in ms */
		{ 600000000ULL, (0.8 * (6000 + 5200) + 1520) / 8000 },
		/* b 100 MB/s: (0.8 (1000 + 7200) + 1520) / 8000, still > 1 */
		{ 100000000ULL, (0.8 * (1000 + 7200) + 1520) / 8000 },
		/* b 50 MB/s: fits */
		{ 50000000ULL, (0.8 * (500 + 7400) + 1520) / 8000 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		bytes[1] = c[i].b_bytes;
		dev_ns[1] = c[i].b_bytes * 10;
		cr_expect_float_eq(sim_ssd_need(&dev, &solo, 2e9), c[i].need,
				   1e-9, "case %zu: %f", i,
				   sim_ssd_need(&dev, &solo, 2e9));
	}
	cr_expect_gt(c[1].need, 1.0);
	cr_expect_lt(c[2].need, 1.0);
	/* Other models: no bound. */
	dev.model = SIM_NULLB;
	cr_expect_eq(sim_ssd_need(&dev, &solo, 2e9), 0);
}

/*
 * The hdd bound by hand, on a 6000 rpm disk (half a turn 5 ms) with a
 * 1 ms shortest seek: a return costs 6 ms.  Group a streams alone at
 * 100 MB/s, busy all the time (10 ns of disk per byte); b, one-deep and
 * sequential, reads 100 KB requests 100 times a second, busy 1 ms each
 * (10 ns a byte) and idle 9 ms between them.  Fair times: b its 0.1, a
 * the other 0.9; 0.8 of each.  a costs 0.8 x 0.9 of the disk; b 0.8 x
 * 100 requests x (1 ms + the lesser of 9 ms idle and a 6 ms return).
 * fifo's total of 50 MB/s asks nothing more.
 */
Test(simmatrix, hdd_need_by_hand)
{
	struct sim_devcfg dev = { .model = SIM_HDD, .rpm = 6000,
				  .seek_min_ns = 1000000 };
	sim_u64 bytes[2] = { 100000000ULL, 10000000ULL };
	sim_u64 dev_ns[2] = { 1000000000ULL, 100000000ULL };
	sim_u64 window[2] = { 1000000000ULL, 1000000000ULL };
	sim_u64 ios[2] = { 1000, 100 };
	struct sim_solo solo = { 2, bytes, dev_ns, window, ios };
	struct sim_group_res g[2] = {
		{ .max_depth = 8, .sequential = true },
		{ .max_depth = 1, .sequential = true },
	};
	struct sim_res r = { .ngroups = 2, .g = g };
	double want = 0.8 * 0.9 + 0.8 * 100 * (0.001 + 0.006);

	cr_expect_float_eq(sim_hdd_need(&dev, &solo, &r, 50e6), want, 1e-9,
			   "%f", sim_hdd_need(&dev, &solo, &r, 50e6));
	cr_expect_gt(want, 1.0, "b's waits alone take more than the disk");
	/* Random, b's next request seeks anyway: its solo time is all. */
	g[1].sequential = false;
	cr_expect_float_eq(sim_hdd_need(&dev, &solo, &r, 50e6),
			   0.8 * 0.9 + 0.8 * 0.1, 1e-9);
	/* It thinks 2 ms, less than a return: the disk waits.  Busy a
	 * third of the time alone, b's fair time is that third (333
	 * requests a second), a's the other two. */
	g[1].sequential = true;
	window[1] = 300000000ULL;
	cr_expect_float_eq(sim_hdd_need(&dev, &solo, &r, 50e6),
			   0.8 * (2.0 / 3.0) +
			   0.8 * (100 / 0.3) * (0.001 + 0.002), 1e-9);
	/* Other models: no bound. */
	dev.model = SIM_SSD;
	cr_expect_eq(sim_hdd_need(&dev, &solo, &r, 50e6), 0);
}
