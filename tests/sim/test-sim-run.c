// SPDX-License-Identifier: GPL-2.0
/*
 * The simulator's engine and scoring: same seed, same bytes of JSON (under
 * both schedulers, on every model); the seed matters; a group alone is
 * its own demand; fio semantics of size, runtime, rwmixread, numjobs and
 * buffered writes; grouping under each key; fifo's known unfairness to
 * one-deep readers next to a deep group (what `none` does in the VM); and
 * what the core's pace and disk rounds are for.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "../../user/sim.h"

static char err[512];

static const char mix[] =
	"[global]\ndirect=1\nbs=64k\nsize=1g\nruntime=1\ntime_based\n"
	"[greedy]\nioengine=libaio\niodepth=16\nrw=randread\nuid=1001\n"
	"[light2]\nrw=randread\noffset=1g\nuid=1002\n"
	"[light3]\nrw=read\noffset=2g\nthinktime=300\nuid=1003\n"
	"[writer]\nrw=randwrite\nbs=16k\noffset=3g\ndirect=0\nuid=1004\n";

static void opts(struct sim_opts *o, const struct sim_jobfile *jf,
		 const char *dev, int sched, unsigned by, sim_u64 seed)
{
	memset(o, 0, sizeof(*o));
	o->jf = jf;
	cr_assert_eq(sim_dev_parse(dev, &o->dev, err, sizeof(err)), 0, "%s", err);
	o->policy = (struct cfqx_policy)CFQX_POLICY_DEFAULT;
	o->policy.group_by = by;
	o->sched = sched;
	o->seed = seed;
	o->only_group = -1;
}

/* The JSON report of @text (malloc'd). */
static char *json(const char *text, const char *dev, int sched, unsigned by,
		  sim_u64 seed)
{
	struct sim_jobfile jf;
	struct sim_opts o;
	struct sim_eval e;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_eq(sim_jobfile_parse_text("t.fio", text, &jf, err, sizeof(err)),
		     0, "%s", err);
	opts(&o, &jf, dev, sched, by, seed);
	cr_assert_eq(sim_evaluate(&o, NULL, &e, err, sizeof(err)), 0, "%s", err);
	f = open_memstream(&buf, &len);
	sim_report_json(f, &o, &e);
	fclose(f);
	sim_eval_free(&e);
	sim_jobfile_free(&jf);
	return buf;
}

Test(simrun, same_input_same_bytes)
{
	static const char *const devs[] = { "nullb", "ssd", "hdd" };
	int d, s;

	for (d = 0; d < 3; d++)
		for (s = 0; s < 2; s++) {
			char *a = json(mix, devs[d], s, CFQX_BY_UID, 42);
			char *b = json(mix, devs[d], s, CFQX_BY_UID, 42);
			char *c = json(mix, devs[d], s, CFQX_BY_UID, 43);

			cr_expect_str_eq(a, b, "%s sched %d", devs[d], s);
			cr_expect_str_neq(a, c, "the seed drives the random offsets");
			cr_expect(strstr(a, "\"total_kib_s\":") &&
				  strstr(a, "\"maxmin_jain\":") &&
				  strstr(a, "\"worst_share\":") &&
				  strstr(a, "\"groups\":[{\"name\":\"uid 1001\""), "%s", a);
			free(a);
			free(b);
			free(c);
		}
}

Test(simrun, alone_is_its_own_demand)
{
	struct sim_jobfile jf;
	struct sim_opts o;
	struct sim_eval e;

	cr_assert_eq(sim_jobfile_parse_text("t.fio",
		"[a]\ndirect=1\nioengine=libaio\niodepth=8\nbs=16k\nrw=randread\n"
		"size=1g\nruntime=1\ntime_based\n", &jf, err, sizeof(err)), 0);
	opts(&o, &jf, "nullb", SIM_SCHED_FIFO, CFQX_BY_TGID, 1);
	cr_assert_eq(sim_evaluate(&o, NULL, &e, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(e.run.ngroups, 1);
	cr_expect_float_eq(e.demand_bw[0], e.got_bw[0], 1e-6);
	cr_expect_float_eq(e.share[0], 1.0, 1e-9);
	cr_expect_float_eq(e.f.maxmin_jain, 1.0, 1e-9);
	sim_eval_free(&e);
	/* the same under cfqx: one group gets every tag */
	o.sched = SIM_SCHED_CFQX;
	cr_assert_eq(sim_evaluate(&o, NULL, &e, err, sizeof(err)), 0, "%s", err);
	cr_expect_float_eq(e.share[0], 1.0, 0.02, "%f", e.share[0]);
	sim_eval_free(&e);
	sim_jobfile_free(&jf);
}

static void run(const char *text, const char *dev, int sched, unsigned by,
		struct sim_res *r)
{
	struct sim_jobfile jf;
	struct sim_opts o;

	cr_assert_eq(sim_jobfile_parse_text("t.fio", text, &jf, err, sizeof(err)),
		     0, "%s", err);
	opts(&o, &jf, dev, sched, by, 3);
	cr_assert_eq(sim_run(&o, r, err, sizeof(err)), 0, "%s", err);
	sim_jobfile_free(&jf);
}

Test(simrun, fio_semantics)
{
	struct sim_res r;

	/* size-bound: exactly size / bs requests, then the job ends */
	run("[a]\ndirect=1\nbs=4k\nsize=1m\n", "nullb", SIM_SCHED_FIFO, 0, &r);
	cr_expect_eq(r.g[0].ios, 256);
	cr_expect_eq(r.g[0].bytes, 1 << 20);
	cr_expect_eq(r.duration_ns, 256 * 200 * SIM_NS_PER_US,
		     "one at a time, 200 us each");
	sim_res_free(&r);
	/* runtime: nothing issued after it */
	run("[a]\ndirect=1\nbs=4k\nsize=1g\nruntime=100ms\n", "nullb,bw=0",
	    SIM_SCHED_FIFO, 0, &r);
	cr_expect_eq(r.g[0].ios, 500);
	sim_res_free(&r);
	/* rwmixread=70: about 70% reads */
	run("[a]\ndirect=1\nrw=randrw\nrwmixread=70\nbs=4k\nsize=1g\nruntime=1\n",
	    "nullb,bw=0", SIM_SCHED_FIFO, 0, &r);
	cr_expect_float_eq((double)r.g[0].sync_reads / r.g[0].ios, 0.7, 0.02);
	sim_res_free(&r);
	/* buffered writes are async: no sync reads, many in flight */
	run("[a]\nrw=write\nbs=4k\nsize=1g\nruntime=1\n", "nullb,bw=0",
	    SIM_SCHED_FIFO, 0, &r);
	cr_expect_eq(r.g[0].sync_reads, 0);
	cr_expect_eq(r.g[0].ios, SIM_WRITEBACK_DEPTH * 5000);
	sim_res_free(&r);
	/* think time: one request per (latency + think) */
	run("[a]\ndirect=1\nbs=4k\nsize=1g\nruntime=1\nthinktime=800\n",
	    "nullb,bw=0", SIM_SCHED_FIFO, 0, &r);
	cr_expect_eq(r.g[0].ios, 1000);
	sim_res_free(&r);
	/* time_based needs a runtime */
	{
		struct sim_jobfile jf;
		struct sim_opts o;

		cr_assert_eq(sim_jobfile_parse_text("t.fio", "[a]\ntime_based\n",
						    &jf, err, sizeof(err)), 0);
		opts(&o, &jf, "nullb", SIM_SCHED_FIFO, 0, 1);
		cr_expect_eq(sim_run(&o, &r, err, sizeof(err)), -1);
		cr_expect(strstr(err, "time_based needs runtime"), "%s", err);
		sim_jobfile_free(&jf);
	}
}

Test(simrun, groups_follow_the_key)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=1g\nruntime=200ms\n"
		"[a]\nnumjobs=3\nuid=1\ngid=10\ncgroup=x\n"
		"[b]\nuid=1\ngid=11\ncgroup=y\n"
		"[c]\nuid=2\ngid=11\ncgroup=x\n";
	static const struct { unsigned by; int n; const char *first; } want[] = {
		{ CFQX_BY_TGID, 5, "a.0" }, { CFQX_BY_PGID, 3, "a" },
		{ CFQX_BY_UID, 2, "uid 1" }, { CFQX_BY_GID, 2, "gid 10" },
		{ CFQX_BY_CGROUP, 2, "cgroup /x" },
	};
	struct sim_res r;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		run(text, "nullb", SIM_SCHED_CFQX, want[i].by, &r);
		cr_expect_eq(r.ngroups, want[i].n, "key %u", want[i].by);
		cr_expect_str_eq(r.g[0].name, want[i].first);
		cr_expect_gt(r.g[r.ngroups - 1].ios, 0);
		sim_res_free(&r);
	}
	run(text, "nullb", SIM_SCHED_CFQX, CFQX_BY_UID, &r);
	cr_expect_eq(r.g[0].nprocs, 4);
	cr_expect_eq(r.g[1].nprocs, 1);
	sim_res_free(&r);
}

/* none on the VM's null_blk: the deep group takes most of the device. */
Test(simrun, fifo_favours_the_deep_group)
{
	struct sim_jobfile jf;
	struct sim_opts o;
	struct sim_eval e;

	cr_assert_eq(sim_jobfile_parse_text("t.fio",
		"[global]\ndirect=1\nbs=64k\nsize=4g\nruntime=2\ntime_based\n"
		"[greedy]\nioengine=libaio\niodepth=16\nrw=randread\nuid=1001\n"
		"[l2]\nrw=randread\nuid=1002\n[l3]\nrw=randread\nuid=1003\n"
		"[l4]\nrw=randread\nuid=1004\n", &jf, err, sizeof(err)), 0);
	opts(&o, &jf, "nullb", SIM_SCHED_FIFO, CFQX_BY_UID, 1);
	cr_assert_eq(sim_evaluate(&o, NULL, &e, err, sizeof(err)), 0, "%s", err);
	cr_expect_gt(e.share[0], 2.0, "%f", e.share[0]);
	cr_expect_lt(e.f.worst_share, 0.5, "%f", e.f.worst_share);
	cr_expect_lt(e.f.maxmin_jain, 0.6, "%f", e.f.maxmin_jain);
	cr_expect_float_eq(e.f.capacity, e.total_bw, 1e-6 * e.total_bw);
	sim_eval_free(&e);
	sim_jobfile_free(&jf);
}

/* @text under fifo and under cfqx on @dev, grouped by @by. */
struct pair {
	struct sim_jobfile jf;
	struct sim_eval fifo, cfqx;
};

/* fifo and cfqx on @dev; the guest stands still as --freeze RUN/STOP
 * says (0/0: never), and its CPU is busy as --cpu-delay @delay_ns says. */
static void eval_pair_host(const char *text, const char *dev, unsigned by,
			   sim_u64 run_ns, sim_u64 stop_ns, unsigned cpus,
			   sim_u64 delay_ns, struct pair *pr)
{
	struct sim_opts o;

	cr_assert_eq(sim_jobfile_parse_text("t.fio", text, &pr->jf, err,
					    sizeof(err)), 0, "%s", err);
	opts(&o, &pr->jf, dev, SIM_SCHED_FIFO, by, 1);
	o.freeze_run_ns = run_ns;
	o.freeze_stop_ns = stop_ns;
	o.freeze_cpus = cpus;
	o.cpu_delay_ns = delay_ns;
	cr_assert_eq(sim_evaluate(&o, NULL, &pr->fifo, err, sizeof(err)), 0,
		     "%s", err);
	o.sched = SIM_SCHED_CFQX;
	cr_assert_eq(sim_evaluate(&o, NULL, &pr->cfqx, err, sizeof(err)), 0,
		     "%s", err);
}

static void eval_pair_frozen(const char *text, const char *dev, unsigned by,
			     sim_u64 run_ns, sim_u64 stop_ns, struct pair *pr)
{
	eval_pair_host(text, dev, by, run_ns, stop_ns, 1, 0, pr);
}

static void eval_pair(const char *text, const char *dev, unsigned by,
		      struct pair *pr)
{
	eval_pair_frozen(text, dev, by, 0, 0, pr);
}

static void pair_free(struct pair *pr)
{
	sim_eval_free(&pr->fifo);
	sim_eval_free(&pr->cfqx);
	sim_jobfile_free(&pr->jf);
}

/* cfqx delivered at least @frac of fifo's total. */
static void expect_total(const struct pair *pr, double frac)
{
	cr_expect_geq(pr->cfqx.total_bw, frac * pr->fifo.total_bw, "%f of %f",
		      pr->cfqx.total_bw, pr->fifo.total_bw);
}

/* null_blk throttles per 20 ms tick: under fifo, light readers that think
 * come back after the greedy user has spent the tick and wait for the
 * next one (one 16 KiB read per tick, a fifth of what they ask); the
 * core's pace keeps budget for them (at least twice their fifo share;
 * issue 9's 0.8 is not reached here), at no cost in total. */
Test(simrun, the_pace_keeps_a_throttled_device_fair)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=4\ntime_based\n"
		"[big1]\nrw=read\nbs=512k\nthinktime=924\nuid=1001\n"
		"[big2]\nrw=read\nbs=512k\nthinktime=924\noffset=2g\nuid=1001\n"
		"[big3]\nrw=read\nbs=512k\nthinktime=924\noffset=4g\nuid=1001\n"
		"[small1]\nrw=read\nbs=16k\nthinktime=3979\noffset=6g\nuid=1002\n"
		"[small2]\nrw=read\nbs=16k\nthinktime=3979\noffset=8g\nuid=1002\n";
	struct pair pr;

	eval_pair(text, "nullb", CFQX_BY_UID, &pr);
	cr_expect_lt(pr.fifo.f.worst_share, 0.25, "fifo worst %f",
		     pr.fifo.f.worst_share);
	cr_expect_geq(pr.cfqx.f.worst_share, 2 * pr.fifo.f.worst_share,
		      "cfqx worst %f, fifo %f", pr.cfqx.f.worst_share,
		      pr.fifo.f.worst_share);
	cr_expect_geq(pr.cfqx.f.maxmin_jain, 0.9, "%f",
		      pr.cfqx.f.maxmin_jain);
	expect_total(&pr, 0.95);
	pair_free(&pr);
}

/* Two one-deep readers of 32 KiB on a fast striped SSD reach about 470
 * MiB/s alone, a tenth of the device: they are demand-limited.  Always in
 * flight, never seen to think, they used to count as backlogged, and the
 * five 1 MiB readers beside them were held to their rate: 0.19 of fifo's
 * total (matrix m013).  Now the others use the slack: the bulk group gets
 * at least what it gets under fifo, and the total is fifo's. */
Test(simrun, a_demand_limited_group_does_not_hold_the_others)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=2\ntime_based\n"
		"ioengine=psync\nrw=randread\n"
		"[b1]\nbs=1m\ncgroup=bulk\n[b2]\nbs=1m\noffset=2g\ncgroup=bulk\n"
		"[b3]\nbs=1m\noffset=4g\ncgroup=bulk\n"
		"[b4]\nbs=1m\noffset=6g\ncgroup=bulk\n"
		"[b5]\nbs=1m\noffset=8g\ncgroup=bulk\n"
		"[r1]\nbs=32k\noffset=10g\ncgroup=reader\n"
		"[r2]\nbs=32k\noffset=12g\ncgroup=reader\n";
	struct pair pr;

	eval_pair(text, "ssd,channels=16,depth=1024", CFQX_BY_CGROUP, &pr);
	expect_total(&pr, 0.95);
	cr_expect_geq(pr.cfqx.f.worst_share, pr.fifo.f.worst_share * 0.95,
		      "cfqx worst %f, fifo %f", pr.cfqx.f.worst_share,
		      pr.fifo.f.worst_share);
	pair_free(&pr);
}

/* A one-deep 4 KiB reader beside a 48-deep writer of 512 KiB on the
 * throttled nullb: each 512 KiB request is 2.5 ms of the pace, and when
 * a slot opened the writer, always queued, took it right after the
 * reader's request, so the reader waited a whole 512 KiB pace time per
 * read: 0.06 of its share (matrix m015).  The pace weighs each request
 * by its size now; the reader gets most of its share, the total stays. */
Test(simrun, the_pace_weighs_requests_by_their_size)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=4\ntime_based\n"
		"[writer]\nioengine=io_uring\niodepth=48\nrw=randwrite\n"
		"bs=512k\ndirect=0\n"
		"[reader]\nioengine=psync\nrw=randread\nbs=4k\noffset=2g\n"
		"[thinker]\nioengine=psync\nrw=randread\nbs=8k\n"
		"thinktime=3485\noffset=4g\n";
	struct pair pr;

	eval_pair(text, "nullb", CFQX_BY_TGID, &pr);
	cr_expect_lt(pr.fifo.f.worst_share, 0.1, "fifo worst %f",
		     pr.fifo.f.worst_share);
	cr_expect_geq(pr.cfqx.f.worst_share, 0.5, "cfqx worst %f",
		      pr.cfqx.f.worst_share);
	cr_expect_geq(pr.cfqx.f.maxmin_jain, 0.95, "%f",
		      pr.cfqx.f.maxmin_jain);
	expect_total(&pr, 0.95);
	pair_free(&pr);
}

/* t20's contended mix (tests/mixes/contended.fio) on a 100 MiB/s nullb. */
static const char contended_mix[] =
	"[global]\ndirect=1\nbs=64k\nsize=4g\nruntime=3\ntime_based\n"
	"ioengine=psync\nrw=randread\n"
	"[greedy]\nioengine=libaio\niodepth=16\nuid=1001\n"
	"[light2]\nuid=1002\n[light3]\nuid=1003\n[light4]\nuid=1004\n";

/* Issue 9's targets for one mix: cfqx at 95% of fifo's throughput or
 * more, max-min Jain 0.95, worst x 0.8. */
static void expect_targets(const struct pair *pr)
{
	expect_total(pr, 0.95);
	cr_expect_geq(pr->cfqx.f.maxmin_jain, 0.95, "%f",
		      pr->cfqx.f.maxmin_jain);
	cr_expect_geq(pr->cfqx.f.worst_share, 0.8, "%f",
		      pr->cfqx.f.worst_share);
}

/* Two deep groups on the throttled nullb, one of 256 KiB requests, one of
 * 64 KiB, beside three one-deep readers.  The pace finds room for the
 * 64 KiB requests before the 256 KiB ones, so the big group took fewer
 * turns than it was owed, and V, moved by everyone else's dispatches, ran
 * ever further ahead of it: nobody was more than a round ahead of V, so
 * the order held nobody for it (0.59 of its share, the 64 KiB group 1.52;
 * matrix m195).  V now stays within four rounds of a group the pace
 * holds: every group gets its share, and issue 9's targets hold. */
Test(simrun, a_group_the_pace_delays_still_gets_its_turns)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=4\ntime_based\n"
		"[big]\nioengine=io_uring\niodepth=32\nrw=randread\nbs=256k\n"
		"[deep]\nioengine=libaio\niodepth=32\nrw=write\nbs=64k\n"
		"offset=2g\n"
		"[r1]\nrw=read\nbs=32k\nthinktime=900\noffset=4g\n"
		"[r2]\nrw=read\nbs=32k\nthinktime=900\noffset=6g\n"
		"[r3]\nrw=read\nbs=32k\nthinktime=900\noffset=8g\n";
	struct pair pr;

	eval_pair(text, "nullb", CFQX_BY_TGID, &pr);
	expect_targets(&pr);
	pair_free(&pr);
}

/* The guest stood still a third of the run or more, and cfqx met the
 * targets all the same. */
static void expect_unmoved_by_freeze(const struct pair *pr)
{
	cr_expect_gt(pr->cfqx.run.frozen_ns, pr->cfqx.run.duration_ns / 3,
		     "frozen %llu of %llu ns",
		     (unsigned long long)pr->cfqx.run.frozen_ns,
		     (unsigned long long)pr->cfqx.run.duration_ns);
	expect_targets(pr);
}

/* A busy host stands the guest still, null_blk and its throttle's timer
 * with it: the device loses no budget (the late tick refills it), fifo
 * spends it as soon as the guest runs, and a pace that trailed the clock
 * by no more than its fixed credit lost the time the guest stood still
 * (0.85 of fifo here, with the guest still half the time).  A wake that
 * comes late says how long: the pace catches up on that. */
Test(simrun, the_pace_catches_up_on_a_guest_that_stood_still)
{
	struct pair pr;

	eval_pair_frozen(contended_mix, "nullb,bw=100M", CFQX_BY_UID,
			 4 * SIM_NS_PER_MS, 4 * SIM_NS_PER_MS, &pr);
	expect_unmoved_by_freeze(&pr);
	cr_expect_gt(pr.cfqx.run.core_st.late_wakes, 0);
	pair_free(&pr);
}

/* Each of two vCPUs standing still on its own (a process's issues and
 * completions on its vCPU, the device's and the core's timers on vCPU 0)
 * costs the core no more than the whole guest standing still. */
Test(simrun, the_pace_holds_when_vcpus_stand_still_each_on_its_own)
{
	struct pair pr;

	eval_pair_host(contended_mix, "nullb,bw=100M", CFQX_BY_UID,
		       4 * SIM_NS_PER_MS, 4 * SIM_NS_PER_MS, 2, 0, &pr);
	expect_unmoved_by_freeze(&pr);
	pair_free(&pr);
}

/* --cpu-delay: a busy guest CPU puts off kblockd's queue runs, the
 * completions' handling and the woken processes.  The same seed gives the
 * same run; fifo, whose device always has the deep queue's work, loses
 * nothing to it; and the delays are seen (later completions). */
Test(simrun, a_busy_guest_cpu_is_deterministic_and_spares_a_deep_queue)
{
	static const char text[] =
		"[global]\ndirect=1\nbs=64k\nsize=4g\nruntime=2\ntime_based\n"
		"ioengine=psync\nrw=randread\n"
		"[greedy]\nioengine=libaio\niodepth=16\nuid=1001\n"
		"[light2]\nuid=1002\n[light3]\nuid=1003\n";
	struct sim_jobfile jf;
	struct sim_opts o;
	struct sim_res idle, a, b;

	cr_assert_eq(sim_jobfile_parse_text("t.fio", text, &jf, err,
					    sizeof(err)), 0, "%s", err);
	opts(&o, &jf, "nullb,bw=100M", SIM_SCHED_FIFO, CFQX_BY_UID, 3);
	o.latencies = true;
	cr_assert_eq(sim_run(&o, &idle, err, sizeof(err)), 0, "%s", err);
	o.cpu_delay_ns = 2 * SIM_NS_PER_MS;
	cr_assert_eq(sim_run(&o, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sim_run(&o, &b, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(a.events, b.events);
	cr_expect_eq(a.g[1].bytes, b.g[1].bytes);
	cr_expect_geq((a.g[0].bytes + a.g[1].bytes + a.g[2].bytes) * 100,
		      (idle.g[0].bytes + idle.g[1].bytes + idle.g[2].bytes) * 95);
	sim_res_free(&a);
	sim_res_free(&b);
	sim_res_free(&idle);
	/* A reader alone waits for the CPU that handles its completion. */
	o.only_group = 1;
	o.cpu_delay_ns = 0;
	cr_assert_eq(sim_run(&o, &idle, err, sizeof(err)), 0, "%s", err);
	o.cpu_delay_ns = 2 * SIM_NS_PER_MS;
	cr_assert_eq(sim_run(&o, &a, err, sizeof(err)), 0, "%s", err);
	cr_expect_gt(a.g[1].lat_p50, idle.g[1].lat_p50, "%llu vs %llu ns",
		     (unsigned long long)a.g[1].lat_p50,
		     (unsigned long long)idle.g[1].lat_p50);
	sim_res_free(&a);
	sim_res_free(&idle);
	sim_jobfile_free(&jf);
}

/*
 * A busy guest CPU (--cpu-delay 2ms) slows the one-deep readers' cycles
 * (their completions and wake-ups wait for it), not their think time's
 * minimum, so they pass the test for wanting a fair share and the order
 * holds the deep group for them while the throttled device has room.  A
 * window in which the device did not turn work away is not at its rate,
 * whatever it did a cycle before: there the order's holds raise the
 * capacity that test reads (not the pace's rate), until the readers read
 * as demand-limited.  Before, on a device that had throttled in this
 * pace cycle or the last, it never rose: cfqx kept 0.67-0.70 of fifo's
 * throughput over seeds 1-5, now 0.75-0.82, as fair as before.
 */
Test(simrun, the_order_does_not_hold_a_throttled_device_for_slowed_readers)
{
	struct pair pr;

	eval_pair_host(contended_mix, "nullb,bw=100M", CFQX_BY_UID, 0, 0, 1,
		       2 * SIM_NS_PER_MS, &pr);
	cr_expect_geq(pr.cfqx.total_bw * 100, pr.fifo.total_bw * 72,
		      "%f of %f", pr.cfqx.total_bw, pr.fifo.total_bw);
	cr_expect_geq(pr.cfqx.f.maxmin_jain, 0.95);
	cr_expect_geq(pr.cfqx.f.worst_share, 0.8);
	pair_free(&pr);
}

/*
 * t20's rand32large mix (two 16 KiB random readers at depth 32, two
 * one-deep 1 MiB readers) on a busy guest CPU: completions wait for a
 * CPU, so each request stays in flight about 2 ms longer and the
 * device's knee moves deeper.  The depth probe compares single windows,
 * and the host's noise (window rates 17-142 MiB/s on a 100 MiB/s device)
 * decided every step: the depth walked down to 3-7 and held the device
 * back, 0.66 of fifo's throughput.  On a throttling device the pace knows
 * the rate, and a depth-limited window short of it steps the depth up.
 */
Test(simrun, a_busy_cpu_does_not_walk_the_depth_down)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=4g\nruntime=3\ntime_based\n"
		"rw=randread\n"
		"[rand1]\nioengine=libaio\niodepth=32\nbs=16k\nuid=1001\n"
		"[rand2]\nioengine=libaio\niodepth=32\nbs=16k\nuid=1002\n"
		"[large3]\nioengine=psync\nbs=1m\nuid=1003\n"
		"[large4]\nioengine=psync\nbs=1m\nuid=1004\n";
	struct pair pr;

	eval_pair_host(text, "nullb,bw=100M", CFQX_BY_UID, 0, 0, 1,
		       2 * SIM_NS_PER_MS, &pr);
	expect_total(&pr, 0.85);
	cr_expect_geq(pr.cfqx.f.maxmin_jain, 0.95, "%f",
		      pr.cfqx.f.maxmin_jain);
	cr_expect_geq(pr.cfqx.f.worst_share, 0.9, "%f",
		      pr.cfqx.f.worst_share);
	pair_free(&pr);
}

/*
 * Two 1 MiB readers of one user beside a one-deep 8 KiB reader of another
 * (matrix m228).  On the paced device a 1 MiB request's pace time is
 * longer than the pace may trail the clock, so it fitted the bucket only
 * once the pace had trailed by more than that, which every 8 KiB dispatch
 * undid: the 1 MiB user got 92 MiB/s of its 150 alone, the total 0.79 of
 * fifo's.  Such a request now goes once the pace's credit is full.
 */
Test(simrun, a_request_longer_than_the_paces_credit_still_goes)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=4\ntime_based\n"
		"ioengine=psync\n"
		"[big1]\nrw=read\nbs=1m\nthinktime=523\nuid=1001\n"
		"[big2]\nrw=read\nbs=1m\nthinktime=523\noffset=1g\nuid=1001\n"
		"[small]\nrw=randread\nbs=8k\nuid=1002\n";
	struct pair pr;

	eval_pair(text, "nullb", CFQX_BY_UID, &pr);
	expect_total(&pr, 0.95);
	cr_expect_geq(pr.cfqx.got_bw[0], 0.9 * pr.cfqx.demand_bw[0],
		      "%f of %f", pr.cfqx.got_bw[0], pr.cfqx.demand_bw[0]);
	/* The reader: ten times its share under fifo (0.04). */
	cr_expect_geq(pr.cfqx.share[1], 10 * pr.fifo.share[1], "%f, fifo %f",
		      pr.cfqx.share[1], pr.fifo.share[1]);
	pair_free(&pr);
}

/*
 * t20's told mix with readers that think 2.3 ms between requests (as
 * TCG's slow guest CPU makes fio's do): each wants about an equal split
 * of the paced 100 MiB/s device.  The greedy group kept the pace's
 * bucket full, so a reader back from thinking waited for the next slot
 * to drain, and the three readers, back at the same moment, for each
 * other's: x = 0.54 each.  A one-deep group's request now has one more
 * request's room in the bucket (2.6.10's first pass, for the pace).
 */
Test(simrun, a_one_deep_reader_does_not_wait_for_the_paces_next_slot)
{
	static const char text[] =
		"[global]\ndirect=1\nbs=64k\nsize=4g\nruntime=3\ntime_based\n"
		"ioengine=psync\nrw=randread\n"
		"[greedy]\nioengine=libaio\niodepth=16\nuid=1001\n"
		"[light2]\nthinktime=2300\nuid=1002\n"
		"[light3]\nthinktime=2300\nuid=1003\n"
		"[light4]\nthinktime=2300\nuid=1004\n";
	struct pair pr;

	eval_pair(text, "nullb,bw=100M", CFQX_BY_UID, &pr);
	expect_total(&pr, 0.95);
	cr_expect_geq(pr.cfqx.f.worst_share, 0.75, "%f",
		      pr.cfqx.f.worst_share);
	pair_free(&pr);
}

/*
 * Matrix m045 on a 100 MiB/s nullb with 1 ms latency: a deep buffered
 * writer and a deep reader beside three one-deep readers, the lightest
 * 16 KiB every 2.3 ms.  The pace read the device at up to 1.06 times its
 * rate (a 64 ms window spans three or four of its 20 ms refills, and the
 * best window sets the pace), so the tick's budget ran out before the
 * tick, the driver refused a request, and what was queued behind it
 * waited for the next tick: the light reader got x = 0.76.  A cruise
 * window in which the device refused work now trims the pace.
 */
Test(simrun, the_pace_comes_down_when_the_device_refuses_work)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=4\ntime_based\n"
		"[p1]\nioengine=libaio\niodepth=52\nrw=write\nbs=128k\n"
		"direct=0\n"
		"[p2]\nioengine=io_uring\niodepth=56\nrw=randread\nbs=64k\n"
		"offset=2g\n"
		"[p3]\nrw=randread\nbs=256k\nthinktime=655\noffset=4g\n"
		"[p4]\nrw=randread\nbs=16k\nthinktime=2266\noffset=6g\n"
		"[p5]\nrw=randread\nbs=512k\nthinktime=3420\noffset=8g\n";
	struct pair pr;

	eval_pair(text, "nullb,bw=100M,lat=1ms", CFQX_BY_TGID, &pr);
	expect_total(&pr, 0.95);
	cr_expect_geq(pr.cfqx.f.worst_share, 0.85, "%f",
		      pr.cfqx.f.worst_share);
	/* 100 MiB/s is 102400 KiB/s */
	cr_expect_leq(pr.cfqx.run.core_pace_kib_s, 102400, "pace %llu KiB/s",
		      (unsigned long long)pr.cfqx.run.core_pace_kib_s);
	pair_free(&pr);
}

/* t20's uid mix (tests/mixes/uid6v1.fio): six one-deep readers of one
 * user against one of another. */
static const char uid6v1_mix[] =
	"[global]\ndirect=1\nbs=128k\nsize=4g\nruntime=3\ntime_based\n"
	"ioengine=psync\nrw=randread\n"
	"[many1]\nuid=1001\n[many2]\nuid=1001\n[many3]\nuid=1001\n"
	"[many4]\nuid=1001\n[many5]\nuid=1001\n[many6]\nuid=1001\n"
	"[single]\nuid=1002\n";

/*
 * A busy guest CPU (--cpu-delay 500us) makes a one-deep reader's think
 * time heavy-tailed: one wake in four waits several times the mean.  Its
 * anticipation window (twice its mean think time) ended before such a
 * wake, the reader stopped counting as backlogged, V moved up to the
 * other user, and that user's six readers took the slots the single one
 * was owed, the tick's budget with them: x = 0.66 (the VM on a busy
 * host measured 0.33 of the total where 0.49 was fair).  The window now
 * covers the tail (mean plus four mean deviations, Jacobson's estimator);
 * on the paced device a held group goes only once holding would lose
 * budget, whatever is in flight; and a throttling device is paced with
 * one group active too, so the budget a single user's burst would spend
 * early in the tick is left for the reader that comes back.
 */
Test(simrun, a_busy_cpu_does_not_cost_a_single_reader_its_share)
{
	struct pair pr;

	eval_pair_host(uid6v1_mix, "nullb,bw=100M", CFQX_BY_UID, 0, 0, 1,
		       SIM_NS_PER_MS / 2, &pr);
	expect_targets(&pr);
	pair_free(&pr);
}

/*
 * A one-deep sequential reader on a disk beside two other streams: served
 * a request per turn, it paid a seek and a turn for each 4 KiB and a
 * round of the others' (share 0.002); the disk now waits for it within
 * its round (slice_idle), and for the thinking 1 MiB reader, so each
 * streams in its turn.
 */
Test(simrun, a_disk_waits_for_its_sequential_reader)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=4\ntime_based\n"
		"[a]\nioengine=psync\nrw=read\nbs=4k\noffset=0g\ngid=1\n"
		"[b]\nioengine=libaio\niodepth=4\nrw=read\nbs=512k\n"
		"offset=8g\ngid=2\n"
		"[c]\nioengine=psync\nrw=read\nbs=1024k\nthinktime=742\n"
		"offset=16g\ngid=3\n";
	struct pair pr;

	eval_pair(text, "hdd", CFQX_BY_GID, &pr);
	cr_expect_geq(pr.cfqx.f.worst_share, 0.8, "%f",
		      pr.cfqx.f.worst_share);
	cr_expect_geq(pr.cfqx.f.maxmin_jain, 0.95, "%f",
		      pr.cfqx.f.maxmin_jain);
	cr_expect_geq(pr.cfqx.total_bw, pr.fifo.total_bw, "%f of %f",
		      pr.cfqx.total_bw, pr.fifo.total_bw);
	pair_free(&pr);
}

/*
 * Two one-deep random readers that think on a disk: waiting for either
 * saves no seek, its next request seeks anyway, and the wait was charged
 * to it: worst share 0.70 when the disk waited, 0.87 when it does not.
 */
Test(simrun, a_disk_does_not_wait_for_a_seeky_reader)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=10\ntime_based\n"
		"[p1]\nioengine=psync\nrw=randread\nbs=16k\n"
		"thinktime=2774\noffset=0g\n"
		"[p2]\nioengine=psync\nrw=randread\nbs=128k\n"
		"thinktime=4268\noffset=2g\n";
	struct pair pr;

	eval_pair(text, "hdd,rpm=10000,seek_max=8ms", CFQX_BY_TGID, &pr);
	expect_targets(&pr);
	pair_free(&pr);
}

/*
 * Twelve users at depth 16 and a one-deep reader on a device of 32 tags
 * (64 scheduler tags): a floor of `queued` (8) each let the deep groups
 * hold every tag, and the reader waited behind them for one (share
 * 0.22).  Admission now never grants more than an equal share of the pool.
 */
Test(simrun, a_one_deep_reader_finds_a_tag_beside_many_deep_groups)
{
	char text[2048];
	int i, n;
	struct pair pr;

	n = snprintf(text, sizeof(text), "[global]\ndirect=1\nsize=1g\n"
		     "runtime=4\ntime_based\nbs=64k\n");
	for (i = 1; i <= 12; i++)
		n += snprintf(text + n, sizeof(text) - n,
			      "[deep%d]\nioengine=libaio\niodepth=16\n"
			      "rw=randread\nuid=%d\n", i, 1000 + i);
	snprintf(text + n, sizeof(text) - n, "[reader]\nioengine=psync\n"
		 "rw=randread\nbs=16k\nuid=2000\n");
	eval_pair(text, "nullb,bw=400M,depth=32", CFQX_BY_UID, &pr);
	expect_targets(&pr);
	pair_free(&pr);
}

/* The same freeze, the same seed: the same run, event for event. */
Test(simrun, a_frozen_run_is_deterministic)
{
	static const char text[] =
		"[global]\ndirect=1\nbs=64k\nsize=1g\nruntime=1\ntime_based\n"
		"[a]\nioengine=libaio\niodepth=8\nrw=randread\nuid=1\n"
		"[b]\nrw=read\nuid=2\n";
	struct sim_jobfile jf;
	struct sim_opts o;
	struct sim_res a, b, idle;

	cr_assert_eq(sim_jobfile_parse_text("t.fio", text, &jf, err,
					    sizeof(err)), 0, "%s", err);
	opts(&o, &jf, "nullb,bw=100M", SIM_SCHED_CFQX, CFQX_BY_UID, 7);
	cr_assert_eq(sim_run(&o, &idle, err, sizeof(err)), 0, "%s", err);
	o.freeze_run_ns = 3 * SIM_NS_PER_MS;
	o.freeze_stop_ns = 2 * SIM_NS_PER_MS;
	cr_assert_eq(sim_run(&o, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sim_run(&o, &b, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(idle.frozen_ns, 0);
	cr_expect_gt(a.frozen_ns, 0);
	cr_expect_eq(a.frozen_ns, b.frozen_ns);
	cr_expect_eq(a.events, b.events);
	cr_expect_eq(a.g[0].bytes, b.g[0].bytes);
	cr_expect_eq(a.g[1].bytes, b.g[1].bytes);
	sim_res_free(&a);
	sim_res_free(&b);
	sim_res_free(&idle);
	sim_jobfile_free(&jf);
}

/* On a disk, serving two groups a request each in turn seeks between
 * their regions every time; the core's rounds keep the disk streaming. */
Test(simrun, disk_rounds_keep_a_disk_streaming)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=30\ntime_based\n"
		"[writer]\nioengine=libaio\niodepth=2\nrw=write\nbs=64k\n"
		"numjobs=2\n"
		"[reader]\nioengine=libaio\niodepth=21\nrw=read\nbs=4k\n"
		"offset=2g\n";
	struct pair pr;

	eval_pair(text, "hdd", CFQX_BY_PGID, &pr);
	expect_total(&pr, 2);
	cr_expect_gt(pr.cfqx.f.worst_share, pr.fifo.f.worst_share,
		     "%f vs %f", pr.cfqx.f.worst_share, pr.fifo.f.worst_share);
	pair_free(&pr);
}

/*
 * A one-deep sequential reader that thinks about 1 ms beside a random
 * reader 40 deep, on a disk (matrix m002).  The disk waited for the
 * reader, and the wait was charged to it as service: its turn was spent
 * half idle, while the fair share (DESIGN.md) counts only the time it
 * keeps the disk busy, so it got 0.61 of that share.  The wait is no
 * longer its service; a turn lasts at most twice its round in wall time
 * instead.
 */
Test(simrun, a_disk_does_not_charge_its_wait_for_a_reader)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=30\ntime_based\n"
		"[p1]\nioengine=libaio\niodepth=40\nrw=randread\nbs=128k\n"
		"[p2]\nioengine=psync\nrw=read\nbs=512k\nthinktime=953\n"
		"offset=2g\n";
	struct pair pr;

	eval_pair(text, "hdd,rpm=5400,rate=100M", CFQX_BY_TGID, &pr);
	expect_total(&pr, 0.95);
	cr_expect_geq(pr.cfqx.f.maxmin_jain, 0.95, "%f",
		      pr.cfqx.f.maxmin_jain);
	cr_expect_geq(pr.cfqx.f.worst_share, 0.75, "%f",
		      pr.cfqx.f.worst_share);
	pair_free(&pr);
}

/*
 * Deep random writers and readers beside a three-stream sequential
 * writer two deep, on a disk (matrix m035).  The deep groups' requests
 * wait in their own queues past fifo_expire, and each expired head
 * jumped the order: the disk left the served group at every one, and the
 * sequential writer got 0.72 of its share.  Only a group whose whole
 * backlog fits one round now jumps; a deeper one's FIFO is checked in
 * its own turn.
 */
Test(simrun, a_deep_groups_expired_fifo_waits_for_its_turn_on_a_disk)
{
	static const char text[] =
		"[global]\ndirect=1\nsize=2g\nruntime=30\ntime_based\n"
		"[g1]\nioengine=io_uring\niodepth=8\nrw=randwrite\nbs=16k\n"
		"direct=0\nnumjobs=2\n"
		"[g2]\nioengine=libaio\niodepth=64\nrw=randwrite\nbs=8k\n"
		"offset=2g\nnumjobs=3\n"
		"[g3]\nioengine=io_uring\niodepth=42\nrw=randread\nbs=4k\n"
		"offset=4g\nnumjobs=2\n"
		"[g4]\nioengine=libaio\niodepth=2\nrw=write\nbs=128k\n"
		"offset=6g\nnumjobs=3\n";
	struct pair pr;

	eval_pair(text, "hdd,rpm=5400,rate=100M", CFQX_BY_PGID, &pr);
	expect_targets(&pr);
	pair_free(&pr);
}
