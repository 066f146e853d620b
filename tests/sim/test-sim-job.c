// SPDX-License-Identifier: GPL-2.0
/*
 * The fio job-file parser of `cfqx sim`: fio's units and defaults, [global]
 * inheritance, the processes and identities a file starts, and one
 * "FILE:LINE: reason" error for every unsupported key or bad value.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>
#include "../../user/sim.h"

static struct sim_jobfile jf;
static char err[512];

static int parse(const char *text)
{
	sim_jobfile_free(&jf);
	err[0] = 0;
	return sim_jobfile_parse_text("t.fio", text, &jf, err, sizeof(err));
}

static void fini(void)
{
	sim_jobfile_free(&jf);
}

TestSuite(simjob, .fini = fini);

Test(simjob, every_key_and_unit)
{
	const struct sim_job *a, *b;

	cr_assert_eq(parse("; comment\n# another\n[global]\nfilename=/dev/nullb0\ndirect=1\nbs=64k\n"
			   "runtime=500ms\ntime_based\nsize=4g\n"
			   "[greedy]\nioengine=libaio\niodepth=16\nrw=randread\n"
			   "uid=1001\ngid=1002\ncgroup=cfqx/a\nnumjobs=3\n"
			   "[light]\nname=reader one\n rw = rw \nrwmixread=70\n"
			   "thinktime=2ms\nbs=1M\noffset=1g\ndirect=0\niodepth=8\n"
			   "runtime=3\nsize=512KiB\nioengine=io_uring\n"), 0, "%s", err);
	cr_assert_eq(jf.njobs, 2);
	a = &jf.jobs[0];
	b = &jf.jobs[1];
	cr_expect_str_eq(a->name, "greedy");
	cr_expect_eq(a->bs, 65536);
	cr_expect_eq(a->iodepth, 16);
	cr_expect_eq(a->engine, SIM_ENG_LIBAIO);
	cr_expect(a->random);
	cr_expect_eq(a->read_pct, 100);
	cr_expect_eq(a->uid, 1001);
	cr_expect_eq(a->gid, 1002);
	cr_expect_str_eq(a->cgroup, "cfqx/a");
	cr_expect_eq(a->numjobs, 3);
	cr_expect_eq(a->runtime_ns, 500 * SIM_NS_PER_MS);
	cr_expect(a->time_based);
	cr_expect(a->direct);
	cr_expect_eq(a->size, 4ULL << 30);
	cr_expect_str_eq(a->filename, "/dev/nullb0");
	cr_expect_eq(a->line, 10);
	cr_expect_str_eq(b->name, "reader one");
	cr_expect_str_eq(b->section, "light");
	cr_expect_not(b->random);
	cr_expect_eq(b->read_pct, 70);
	cr_expect_eq(b->thinktime_ns, 2 * SIM_NS_PER_MS);
	cr_expect_eq(b->bs, 1 << 20);
	cr_expect_eq(b->offset, 1ULL << 30);
	cr_expect_eq(b->size, 512 * 1024);
	cr_expect_not(b->direct);
	cr_expect_eq(b->runtime_ns, 3 * SIM_NS_PER_S);
	cr_expect_eq(b->uid, 0, "globals only: uid was a job key");
	cr_expect_eq(b->engine, SIM_ENG_IO_URING);
}

Test(simjob, defaults_and_units)
{
	cr_assert_eq(parse("[j]\nthinktime=250\nruntime=2m\n"), 0, "%s", err);
	cr_expect_eq(jf.jobs[0].bs, 4096, "fio's default bs");
	cr_expect_eq(jf.jobs[0].iodepth, 1);
	cr_expect_eq(jf.jobs[0].engine, SIM_ENG_PSYNC);
	cr_expect_eq(jf.jobs[0].numjobs, 1);
	cr_expect_eq(jf.jobs[0].read_pct, 100, "rw=read");
	cr_expect_eq(jf.jobs[0].thinktime_ns, 250 * SIM_NS_PER_US,
		     "thinktime is in microseconds");
	cr_expect_eq(jf.jobs[0].runtime_ns, 120 * SIM_NS_PER_S,
		     "runtime is in seconds");
	cr_expect_eq(jf.jobs[0].size, 0, "no size: to the device's end");
	cr_expect_not(jf.jobs[0].direct, "fio's default is buffered");
}

Test(simjob, depth_by_engine)
{
	cr_assert_eq(parse("[a]\nioengine=psync\niodepth=32\n"
			   "[b]\nioengine=sync\niodepth=8\n"
			   "[c]\nioengine=libaio\niodepth=32\ndirect=1\n"
			   "[d]\nrw=write\n"
			   "[e]\nrw=write\nioengine=libaio\niodepth=64\n"
			   "[f]\nrw=write\ndirect=1\n"), 0, "%s", err);
	cr_expect_eq(sim_job_depth(&jf.jobs[0]), 1, "psync: one at a time");
	cr_expect_eq(sim_job_depth(&jf.jobs[1]), 1, "sync: one at a time");
	cr_expect_eq(sim_job_depth(&jf.jobs[2]), 32);
	cr_expect_eq(sim_job_depth(&jf.jobs[3]), SIM_WRITEBACK_DEPTH,
		     "buffered writes: write-back keeps several");
	cr_expect_eq(sim_job_depth(&jf.jobs[4]), 64);
	cr_expect_eq(sim_job_depth(&jf.jobs[5]), 1, "direct writes wait");
}

Test(simjob, processes_and_keys)
{
	struct sim_proc_id *p;
	int n;

	cr_assert_eq(parse("[a]\nnumjobs=2\nuid=5\ngid=6\ncgroup=x\n"
			   "[b]\nuid=7\ncgroup=y\n[c]\ncgroup=x\n[d]\ncgroup=/\n"), 0,
		     "%s", err);
	n = sim_procs(&jf, &p);
	cr_assert_eq(n, 5);
	cr_expect_eq(p[0].tgid, 1001);
	cr_expect_eq(p[1].tgid, 1002);
	cr_expect_eq(p[1].pgid, 1001, "clones share their section's pgid");
	cr_expect_eq(p[2].pgid, 1003, "a section is its own process group");
	cr_expect_eq(p[1].uid, 5, "every clone gets uid=");
	cr_expect_eq(p[1].gid, 6);
	cr_expect_eq(p[0].cgroup, 2);
	cr_expect_eq(p[2].cgroup, 3);
	cr_expect_eq(p[3].cgroup, 2, "same cgroup name, same id");
	cr_expect_eq(p[4].cgroup, 1, "cgroup=/ is the root");
	cr_expect_eq(sim_proc_key(&p[1], CFQX_BY_TGID), 1002);
	cr_expect_eq(sim_proc_key(&p[1], CFQX_BY_PGID), 1001);
	cr_expect_eq(sim_proc_key(&p[1], CFQX_BY_UID), 5);
	cr_expect_eq(sim_proc_key(&p[1], CFQX_BY_GID), 6);
	cr_expect_eq(sim_proc_key(&p[1], CFQX_BY_CGROUP), 2);
	free(p);
}

/* Each bad input: parse fails, and the one message names file:line. */
Test(simjob, one_error_per_bad_input)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "[a]\nfoo=1\n", "t.fio:2: unsupported key 'foo'" },
		{ "[a]\nrw=read\nbs=4k,8k\n", "t.fio:3: bad bs value '4k,8k'" },
		{ "[a]\nbs=4097\n", "t.fio:2: bad bs value" },
		{ "[a]\nbs=0\n", "t.fio:2: bad bs value" },
		{ "[a]\nbs=128m\n", "t.fio:2: bad bs value" },
		{ "[a]\nbs=4x\n", "t.fio:2: bad bs value" },
		{ "[a]\nbs\n", "t.fio:2: bs needs a value" },
		{ "[a]\nrw=sideways\n", "t.fio:2: bad rw value 'sideways'" },
		{ "[a]\nrw=read:4k\n", "t.fio:2: bad rw value" },
		{ "[a]\nioengine=posixaio\n", "t.fio:2: bad ioengine value 'posixaio'" },
		{ "[a]\niodepth=0\n", "t.fio:2: bad iodepth value '0'" },
		{ "[a]\nnumjobs=0\n", "t.fio:2: bad numjobs value" },
		{ "[a]\nnumjobs=-1\n", "t.fio:2: bad numjobs value" },
		{ "[a]\nuid=root\n", "t.fio:2: bad uid value 'root'" },
		{ "[a]\ngid=4294967295\n", "t.fio:2: bad gid value" },
		{ "[a]\ncgroup=a b\n", "t.fio:2: bad cgroup value" },
		{ "[a]\nthinktime=5 ms\n", "t.fio:2: bad thinktime value" },
		{ "[a]\nthinktime=11s\n", "t.fio:2: bad thinktime value" },
		{ "[a]\nsize=0\n", "t.fio:2: bad size value" },
		{ "[a]\nsize=10%\n", "t.fio:2: bad size value" },
		{ "[a]\noffset=100\n", "t.fio:2: bad offset value" },
		{ "[a]\nrwmixread=101\n", "t.fio:2: bad rwmixread value" },
		{ "[a]\ndirect=yes\n", "t.fio:2: bad direct value" },
		{ "[a]\ntime_based=2\n", "t.fio:2: bad time_based value" },
		{ "[a]\nruntime=0\n", "t.fio:2: bad runtime value" },
		{ "[a]\nruntime=2 h\n", "t.fio:2: bad runtime value" },
		{ "[a]\nname=\n", "t.fio:2: bad name value ''" },
		{ "[a]\nthinktime_blocks=4\n", "t.fio:2: unsupported key 'thinktime_blocks'" },
		{ "[a]\nstonewall\n", "t.fio:2: unsupported key 'stonewall'" },
		{ "bs=4k\n[a]\n", "t.fio:1: 'bs=4k' outside a section" },
		{ "[a\n", "t.fio:1: bad section header" },
		{ "[]\n", "t.fio:1: bad section header" },
		{ "[a]x\n", "t.fio:1: bad section header" },
		{ "; nothing\n[global]\nbs=4k\n", "t.fio: no job sections" },
		{ "", "t.fio: no job sections" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(parse(bad[i].text), -1, "accepted: %s", bad[i].text);
		cr_expect(strstr(err, bad[i].want), "'%s': got '%s', want '%s'",
			  bad[i].text, err, bad[i].want);
		cr_expect_null(strchr(err, '\n'), "one line: %s", err);
		cr_expect_eq(jf.njobs, 0, "nothing kept on error");
	}
}

Test(simjob, files)
{
	char path[] = "/tmp/cfqx-simjob-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fputs("[a]\nrw=randread\n[b]\nbogus=1\n", f);
	fclose(f);
	cr_expect_eq(sim_jobfile_parse(path, &jf, err, sizeof(err)), -1);
	cr_expect(strstr(err, ":4: unsupported key 'bogus'"), "%s", err);
	cr_expect(!strncmp(err, path, strlen(path)), "names the file: %s", err);
	unlink(path);
	cr_expect_eq(sim_jobfile_parse(path, &jf, err, sizeof(err)), -1);
	cr_expect(strstr(err, "No such file"), "%s", err);
}
