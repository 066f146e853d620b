// SPDX-License-Identifier: GPL-2.0
/*
 * The device models against what they model: null_blk's throttle (its
 * budget per 20 ms tick, a request that overdraws it waits for the next
 * tick, so requests that do not divide the budget lose the remainder),
 * timer completions and tags; the SSD's channels; the disk's sequential
 * rate, seek-plus-rotation cost of random requests and its device-time
 * accounting.  Expected figures come from the model's parameters, not
 * from earlier runs.
 */
#include <criterion/criterion.h>
#include <string.h>
#include "../../user/sim.h"

static char err[512];

/* One fifo run of @text on @dev; the first group's result in @g. */
static void run(const char *text, const char *dev, struct sim_group_res *g,
		struct sim_res *out)
{
	struct sim_jobfile jf;
	struct sim_opts o;
	struct sim_res r;

	cr_assert_eq(sim_jobfile_parse_text("t.fio", text, &jf, err, sizeof(err)),
		     0, "%s", err);
	memset(&o, 0, sizeof(o));
	o.jf = &jf;
	cr_assert_eq(sim_dev_parse(dev, &o.dev, err, sizeof(err)), 0, "%s", err);
	o.policy = (struct cfqx_policy)CFQX_POLICY_DEFAULT;
	o.sched = SIM_SCHED_FIFO;
	o.seed = 7;
	o.only_group = -1;
	o.latencies = true;
	cr_assert_eq(sim_run(&o, &r, err, sizeof(err)), 0, "%s", err);
	*g = r.g[0];
	if (out)
		*out = r;
	else
		sim_res_free(&r);
	sim_jobfile_free(&jf);
}

static double rate(const struct sim_group_res *g)
{
	return (double)g->bytes * 1e9 / (double)g->window_ns;
}

Test(simdev, parse_defaults_overrides_errors)
{
	struct sim_devcfg c, d;
	char desc[512];

	cr_assert_eq(sim_dev_parse("nullb", &c, err, sizeof(err)), 0);
	cr_expect_eq(c.bw, 200ULL << 20);
	cr_expect_eq(c.lat_ns, 200 * SIM_NS_PER_US);
	cr_expect_eq(c.depth, 64);
	cr_expect_eq(c.tick_ns, 20 * SIM_NS_PER_MS, "null_blk's TICKS_PER_SEC 50");
	cr_expect_not(sim_dev_time_unit(&c));
	cr_assert_eq(sim_dev_parse("nullb,bw=100M,lat=1ms,depth=8", &c, err,
				   sizeof(err)), 0, "%s", err);
	cr_expect_eq(c.bw, 100ULL << 20);
	cr_expect_eq(c.lat_ns, SIM_NS_PER_MS);
	cr_expect_eq(c.depth, 8);
	cr_assert_eq(sim_dev_parse("hdd", &c, err, sizeof(err)), 0);
	cr_expect_eq(c.rpm, 7200);
	cr_expect(sim_dev_time_unit(&c), "device time on a disk");
	cr_assert_eq(sim_dev_parse("ssd,channels=4", &c, err, sizeof(err)), 0);
	cr_expect_eq(c.channels, 4);
	cr_expect_not(sim_dev_time_unit(&c));

	/* every model's description parses back to the same parameters */
	cr_assert_eq(sim_dev_parse("ssd,chan_bw=123M,read_lat=77us,size=3g",
				   &c, err, sizeof(err)), 0, "%s", err);
	sim_dev_describe(&c, desc, sizeof(desc));
	cr_assert_eq(sim_dev_parse(desc, &d, err, sizeof(err)), 0, "%s: %s",
		     desc, err);
	cr_expect_eq(memcmp(&c, &d, sizeof(c)), 0, "%s", desc);
	cr_assert_eq(sim_dev_parse("hdd,seek_min=1ms", &c, err, sizeof(err)), 0);
	sim_dev_describe(&c, desc, sizeof(desc));
	cr_assert_eq(sim_dev_parse(desc, &d, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(memcmp(&c, &d, sizeof(c)), 0, "%s", desc);

	static const struct { const char *spec, *want; } bad[] = {
		{ "floppy", "unknown device model 'floppy'" },
		{ "", "unknown device model ''" },
		{ "nullb,rpm=7200", "nullb: unknown parameter 'rpm'" },
		{ "hdd,bw=1M", "hdd: unknown parameter 'bw'" },
		{ "nullb,lat", "nullb: bad lat value ''" },
		{ "nullb,lat=200", "nullb: bad lat value '200'" },
		{ "nullb,lat=2ks", "nullb: bad lat value" },
		{ "nullb,depth=0", "nullb: bad depth value '0'" },
		{ "nullb,depth=-1", "nullb: bad depth value" },
		{ "ssd,channels=1000", "ssd: bad channels value" },
		{ "ssd,stripe=1000", "ssd: bad stripe value" },
		{ "hdd,rpm=fast", "hdd: bad rpm value 'fast'" },
		{ "hdd,seek_min=20ms", "seek_max is below seek_min" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(sim_dev_parse(bad[i].spec, &c, err, sizeof(err)), -1,
			     "accepted %s", bad[i].spec);
		cr_expect(strstr(err, bad[i].want), "%s: got '%s'", bad[i].spec,
			  err);
	}
}

/* null_blk: mb_per_tick = (1 << 20) / 50 * mbps bytes per tick; a request
 * passes while it fits, the first that does not waits for the tick. */
Test(simdev, nullb_throttle_budget_per_tick)
{
	struct sim_dev d;
	struct sim_devcfg c;
	sim_u64 done, cost, timer, next;
	int i, passed = 0;

	cr_assert_eq(sim_dev_parse("nullb,depth=4096", &c, err, sizeof(err)), 0);
	cr_assert_eq(sim_dev_init(&d, &c), 0);
	cr_expect_eq(d.per_tick, (1 << 20) / 50 * 200, "null_blk's integer math");
	cr_expect_eq(sim_dev_first_timer(&d), c.tick_ns);
	for (i = 0; i < 100; i++) {
		if (sim_dev_submit(&d, 0, 0, 65536, false, &done, &cost, &timer))
			break;
		cr_expect_eq(done, c.lat_ns);
		passed++;
	}
	cr_expect_eq(passed, d.per_tick / 65536, "whole requests per tick");
	/* the tick refills and restarts; an unused tick stops the timer */
	cr_expect(sim_dev_timer(&d, c.tick_ns, &next));
	cr_expect_eq(next, 2 * c.tick_ns);
	cr_expect_eq(sim_dev_submit(&d, c.tick_ns, 0, 65536, false, &done, &cost,
				    &timer), 0);
	cr_expect(sim_dev_timer(&d, 2 * c.tick_ns, &next));
	cr_expect_not(sim_dev_timer(&d, 3 * c.tick_ns, &next));
	cr_expect_eq(next, 0);
	/* restart from idle: hrtimer_restart() of an expired timer fires now */
	cr_expect_eq(sim_dev_submit(&d, 3 * c.tick_ns + 5, 0, 4096, false, &done,
				    &cost, &timer), 0);
	cr_expect_eq(timer, 3 * c.tick_ns + 5);
	sim_dev_free(&d);
}

Test(simdev, nullb_greedy_reader_rates)
{
	struct sim_group_res g;
	const double tick_budget = (1 << 20) / 50 * 200;

	/* 64 KiB: 63 per 4194200-byte tick */
	run("[a]\ndirect=1\nioengine=libaio\niodepth=64\nbs=64k\nrw=randread\n"
	    "size=1g\nruntime=2\ntime_based\n", "nullb", &g, NULL);
	cr_expect_float_eq(rate(&g), 63.0 * 65536 * 50, 65536 * 50,
			   "%.0f", rate(&g));
	/* 1 MiB: only 3 fit in a tick: 150 MiB/s of the nominal 200 */
	run("[a]\ndirect=1\nioengine=libaio\niodepth=8\nbs=1m\nrw=read\n"
	    "size=1g\nruntime=2\ntime_based\n", "nullb", &g, NULL);
	cr_expect_float_eq(rate(&g), 3.0 * (1 << 20) * 50, (1 << 20) * 50,
			   "%.0f", rate(&g));
	cr_expect_lt(rate(&g), tick_budget * 50);
	/* unthrottled: tags / latency */
	run("[a]\ndirect=1\nioengine=libaio\niodepth=64\nbs=4k\nrw=randread\n"
	    "size=1g\nruntime=1\ntime_based\n", "nullb,bw=0,depth=16", &g, NULL);
	cr_expect_float_eq((double)g.ios, 16.0 * SIM_NS_PER_S / (200 * SIM_NS_PER_US),
			   16, "%llu", (unsigned long long)g.ios);
	cr_expect_geq(g.lat_p50, 200 * SIM_NS_PER_US, "waits for a tag too");
	/* one at a time: exactly the completion time */
	run("[a]\ndirect=1\nbs=4k\nrw=randread\nsize=1g\nruntime=1\ntime_based\n",
	    "nullb,bw=0,lat=50us", &g, NULL);
	cr_expect_eq(g.lat_max, 50 * SIM_NS_PER_US);
	cr_expect_eq(g.lat_p50, 50 * SIM_NS_PER_US);
	cr_expect_eq(g.ios, SIM_NS_PER_S / (50 * SIM_NS_PER_US));
}

Test(simdev, nullb_throttled_latency_is_the_tick)
{
	struct sim_group_res g;

	/* a budget of 4 requests per tick at depth 64: most wait a tick */
	run("[a]\ndirect=1\nioengine=libaio\niodepth=64\nbs=1m\nrw=read\n"
	    "size=1g\nruntime=1\ntime_based\n", "nullb,bw=250M", &g, NULL);
	cr_expect_geq(g.lat_p99, 20 * SIM_NS_PER_MS);
	cr_expect_float_eq(rate(&g), 4.0 * (1 << 20) * 50, (1 << 20) * 50,
			   "%.0f", rate(&g));
}

Test(simdev, ssd_channels)
{
	struct sim_group_res g;
	struct sim_devcfg c;
	double per_ch;

	cr_assert_eq(sim_dev_parse("ssd", &c, err, sizeof(err)), 0);
	/* deep random 4 KiB: every channel busy */
	run("[a]\ndirect=1\nioengine=libaio\niodepth=256\nbs=4k\nrw=randread\n"
	    "size=8g\nruntime=1\ntime_based\n", "ssd", &g, NULL);
	per_ch = 1e9 / (double)(c.read_ns + 4096 * SIM_NS_PER_S / c.chan_bw);
	cr_expect_float_eq((double)g.ios, per_ch * c.channels,
			   0.05 * per_ch * c.channels, "%llu",
			   (unsigned long long)g.ios);
	/* one 1 MiB read alone: 16 stripes over 8 channels, 2 each */
	run("[a]\ndirect=1\nbs=1m\nrw=read\nsize=1g\nruntime=1\ntime_based\n",
	    "ssd", &g, NULL);
	cr_expect_eq(g.lat_max, 2 * (c.read_ns + 65536 * SIM_NS_PER_S / c.chan_bw));
	/* one channel: no parallelism left */
	run("[a]\ndirect=1\nioengine=libaio\niodepth=64\nbs=4k\nrw=randread\n"
	    "size=8g\nruntime=1\ntime_based\n", "ssd,channels=1", &g, NULL);
	cr_expect_float_eq((double)g.ios, per_ch, 0.01 * per_ch, "%llu",
			   (unsigned long long)g.ios);
}

Test(simdev, hdd_sequential_random_and_device_time)
{
	struct sim_group_res g;
	struct sim_devcfg c;
	double turn_ms, seek_ms, want;

	cr_assert_eq(sim_dev_parse("hdd", &c, err, sizeof(err)), 0);
	turn_ms = 60e3 / c.rpm;
	/* a sequential stream runs at the media rate, the disk always busy */
	run("[a]\ndirect=1\nbs=1m\nrw=read\nsize=10g\nruntime=4\ntime_based\n",
	    "hdd", &g, NULL);
	cr_expect_float_eq(rate(&g), (double)c.rate, 0.01 * c.rate, "%.0f",
			   rate(&g));
	cr_expect_float_eq((double)g.dev_ns / g.window_ns, 1.0, 0.01);
	/*
	 * random 4 KiB over the whole disk: per request, the mean seek of two
	 * uniform points (min + (max - min) * E[sqrt(d)], E = 8/15), half a
	 * turn and the transfer
	 */
	run("[a]\ndirect=1\nbs=4k\nrw=randread\nruntime=30\ntime_based\n",
	    "hdd", &g, NULL);
	seek_ms = (c.seek_min_ns + (c.seek_max_ns - c.seek_min_ns) * 8.0 / 15) / 1e6;
	want = 30e3 / (seek_ms + turn_ms / 2);
	cr_expect_float_eq((double)g.ios, want, 0.07 * want, "%llu vs %.0f",
			   (unsigned long long)g.ios, want);
	cr_expect_float_eq((double)g.dev_ns / g.window_ns, 1.0, 0.01,
			   "one request at a time: always busy");
	/* a short stroke seeks less: more IOPS in a 1 GiB region */
	{
		struct sim_group_res s;

		run("[a]\ndirect=1\nbs=4k\nrw=randread\nsize=1g\nruntime=30\ntime_based\n",
		    "hdd", &s, NULL);
		cr_expect_gt(s.ios, g.ios * 3 / 2);
	}
	/* a thinking reader keeps the disk busy only part of the time */
	run("[a]\ndirect=1\nbs=4k\nrw=randread\nthinktime=20ms\nruntime=10\ntime_based\n",
	    "hdd", &g, NULL);
	cr_expect_lt((double)g.dev_ns / g.window_ns, 0.5);
	cr_expect_gt((double)g.dev_ns / g.window_ns, 0.2);
}

Test(simdev, nominal_costs)
{
	struct sim_devcfg c;

	cr_assert_eq(sim_dev_parse("nullb", &c, err, sizeof(err)), 0);
	cr_expect_eq(sim_dev_nominal_ns(&c, 1 << 20, true), SIM_NS_PER_S / 200);
	cr_assert_eq(sim_dev_parse("hdd", &c, err, sizeof(err)), 0);
	cr_expect_lt(sim_dev_nominal_ns(&c, 4096, true), 100 * SIM_NS_PER_US);
	cr_expect_gt(sim_dev_nominal_ns(&c, 4096, false), 10 * SIM_NS_PER_MS);
}
