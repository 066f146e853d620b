// SPDX-License-Identifier: GPL-2.0
/*
 * The matrix's scenarios, each a real fio job file (fio could run it on
 * the device named in its header) generated from a seed.  Scenario i
 * takes its model from i mod 3 and its key from (i / 3) mod 5, so every
 * model meets every key 16 times, and its group count from (i / 15) mod
 * 15 + 2, so every pair sees 2 to 16 groups; the rest is drawn from the
 * scenario's seed:
 *
 *   greedy groups: libaio or io_uring at depth 1-64, reads or writes
 *                  (direct, or buffered: async write-back), or
 *   sync readers:  psync, think time 0-5 ms;
 *   each: 4 KiB - 1 MiB requests, sequential or random, its own 2 GiB
 *   region of the device.
 *
 * The processes are arranged so that the scenario's key decides the
 * groups: under tgid, one process per group (numjobs clones included) and
 * one user for all; under pgid, a section with 1-4 clones per group; under
 * uid, gid and cgroup, 1-4 single-process sections per group (fio 3.33
 * applies uid= to the first clone only), with the other keys cutting
 * across them (one gid for all users, a user per process for gid and
 * cgroup groups).
 */
#include <stdlib.h>
#include <string.h>
#include "matrix.h"

#define REGION_GIB	2

static const char *const dev_variants[SIM_MODELS][4] = {
	[SIM_NULLB] = { "nullb", "nullb", "nullb,bw=100M,lat=1ms",
			"nullb,bw=400M,lat=50us,depth=128" },
	[SIM_SSD] = { "ssd", "ssd", "ssd,channels=4", "ssd,channels=16,depth=1024" },
	[SIM_HDD] = { "hdd", "hdd", "hdd,rpm=5400,rate=100M",
		      "hdd,rpm=10000,seek_max=8ms" },
};

static const char *const dev_files[SIM_MODELS] = {
	"/dev/nullb0", "/dev/nvme0n1", "/dev/sdb",
};

/* Virtual seconds per run: enough requests for stable shares. */
static const unsigned runtime_s[SIM_MODELS] = { 4, 2, 30 };

struct gkind {
	bool greedy, write, buffered, random;
	unsigned depth;
	sim_u64 think_us, bs;
	const char *engine;
};

static unsigned pick(sim_u64 *rng, unsigned n)
{
	return (unsigned)(sim_rand(rng) % n);
}

static void draw_kind(sim_u64 *rng, struct gkind *k)
{
	static const unsigned depths[] = { 1, 2, 4, 8, 16, 32, 64 };

	memset(k, 0, sizeof(*k));
	k->greedy = pick(rng, 2);
	k->random = pick(rng, 2);
	k->bs = 4096ULL << pick(rng, 9);
	if (k->greedy) {
		k->engine = pick(rng, 2) ? "libaio" : "io_uring";
		k->depth = pick(rng, 2) ? depths[pick(rng, 7)] : 1 + pick(rng, 64);
		k->write = pick(rng, 5) < 2;
		k->buffered = k->write && pick(rng, 2);
	} else {
		k->engine = "psync";
		k->depth = 1;
		k->think_us = pick(rng, 4) ? 1 + pick(rng, 5000) : 0;
	}
}

static void job(FILE *f, const char *name, const struct gkind *k,
		unsigned numjobs, unsigned region, unsigned uid, unsigned gid,
		const char *cgroup)
{
	fprintf(f, "\n[%s]\nioengine=%s\n", name, k->engine);
	if (k->depth > 1)
		fprintf(f, "iodepth=%u\n", k->depth);
	fprintf(f, "rw=%s%s\nbs=%lluk\n", k->random ? "rand" : "",
		k->write ? "write" : "read", (unsigned long long)(k->bs >> 10));
	if (k->buffered)
		fprintf(f, "direct=0\n");
	if (k->think_us)
		fprintf(f, "thinktime=%llu\n", (unsigned long long)k->think_us);
	fprintf(f, "offset=%ug\n", region * REGION_GIB);
	if (numjobs > 1)
		fprintf(f, "numjobs=%u\n", numjobs);
	if (uid)
		fprintf(f, "uid=%u\n", uid);
	if (gid)
		fprintf(f, "gid=%u\n", gid);
	if (cgroup)
		fprintf(f, "cgroup=%s\n", cgroup);
}

static void cover(struct sim_scenario *sc, const struct gkind *k)
{
	if (k->greedy) {
		if (!sc->greedy || k->depth < sc->min_depth)
			sc->min_depth = k->depth;
		if (!sc->greedy || k->depth > sc->max_depth)
			sc->max_depth = k->depth;
		sc->greedy = true;
	} else {
		if (!sc->readers || k->think_us < sc->min_think_us)
			sc->min_think_us = k->think_us;
		if (!sc->readers || k->think_us > sc->max_think_us)
			sc->max_think_us = k->think_us;
		sc->readers = true;
	}
	if (!sc->min_bs || k->bs < sc->min_bs)
		sc->min_bs = k->bs;
	if (k->bs > sc->max_bs)
		sc->max_bs = k->bs;
	sc->seq |= !k->random;
	sc->rnd |= k->random;
	sc->reads |= !k->write;
	sc->writes |= k->write;
	sc->buffered |= k->buffered;
}

int sim_scenario_make(int i, sim_u64 seed, struct sim_scenario *sc)
{
	sim_u64 rng = seed * 0x9e3779b97f4a7c15ULL + (sim_u64)i;
	int model = i % 3, g, n, proc = 0;
	char err[256], name[64], cg[64];
	size_t len = 0;
	FILE *f;

	memset(sc, 0, sizeof(*sc));
	sc->index = i;
	sc->seed = rng;
	sc->group_by = (unsigned)((i / 3) % 5);
	sc->ngroups = 2 + (i / 15) % 15;
	snprintf(sc->devspec, sizeof(sc->devspec), "%s",
		 dev_variants[model][pick(&rng, 4)]);
	if (sim_dev_parse(sc->devspec, &sc->dev, err, sizeof(err)))
		return -1;
	snprintf(sc->name, sizeof(sc->name), "m%03d-%s-%s-%dg", i,
		 sim_model_names[model], cfqx_group_by_names[sc->group_by],
		 sc->ngroups);
	f = open_memstream(&sc->fio, &len);
	if (!f)
		return -1;
	fprintf(f, "; cfqx sim matrix scenario %d (seed %llu): %d groups by %s on %s\n"
		"; cfqx sim %s.fio --device %s --policy %s --seed %llu\n"
		"[global]\nfilename=%s\ndirect=1\nsize=%ug\nruntime=%u\ntime_based=1\n",
		i, (unsigned long long)seed, sc->ngroups,
		cfqx_group_by_names[sc->group_by], sc->devspec, sc->name,
		sc->devspec, cfqx_group_by_names[sc->group_by],
		(unsigned long long)sc->seed,
		dev_files[model], REGION_GIB, runtime_s[model]);
	for (g = 0; g < sc->ngroups; ) {
		struct gkind k;
		unsigned per, c;

		draw_kind(&rng, &k);
		cover(sc, &k);
		/* processes in this group; more when there are few groups */
		per = 1 + pick(&rng, sc->ngroups <= 3 ? 6 : 4);
		switch (sc->group_by) {
		case CFQX_BY_TGID:
			/* a section of clones is several tgid groups */
			n = 1 + (pick(&rng, 3) ? 0 : pick(&rng, 3));
			if (n > sc->ngroups - g)
				n = sc->ngroups - g;
			snprintf(name, sizeof(name), "p%d", g + 1);
			job(f, name, &k, n, proc, 0, 0, NULL);
			proc++;
			sc->nprocs += n;
			g += n;
			continue;
		case CFQX_BY_PGID:
			snprintf(name, sizeof(name), "g%d", g + 1);
			job(f, name, &k, per, proc, 0, 0, NULL);
			proc++;
			sc->nprocs += per;
			break;
		default:
			for (c = 0; c < per; c++, proc++) {
				unsigned uid = sc->group_by == CFQX_BY_UID ?
					1001 + g : 1001 + proc;
				unsigned gid = sc->group_by == CFQX_BY_GID ?
					2001 + g : 100;

				snprintf(name, sizeof(name), "g%dp%u", g + 1, c + 1);
				snprintf(cg, sizeof(cg), "cfqx-m%03d/g%d", i, g + 1);
				job(f, name, &k, 1, proc, uid, gid,
				    sc->group_by == CFQX_BY_CGROUP ? cg : NULL);
			}
			sc->nprocs += per;
			break;
		}
		g++;
	}
	if (fclose(f))
		return -1;
	return 0;
}

void sim_scenario_free(struct sim_scenario *sc)
{
	free(sc->fio);
	sc->fio = NULL;
}
