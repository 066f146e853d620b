// SPDX-License-Identifier: GPL-2.0
/*
 * `cfqx sim JOBFILE.fio`: the deterministic simulator's command line.
 * Parses the options, runs the job file's groups alone and together on the
 * chosen device model under the chosen scheduler (user/sim-*.c), and
 * prints the per-group shares as a table or JSON.  No system access.
 */
#include <stdlib.h>
#include <string.h>
#include "sim.h"

static void sim_usage(FILE *f)
{
	fprintf(f,
		"usage: cfqx sim JOBFILE.fio [--device MODEL[,key=value...]] [--sched cfqx|fifo]\n"
		"                [--policy KEY] [--seed N] [--freeze RUN/STOP[/VCPUS]] [--cpu-delay D] [--json]\n"
		"                [--FIELD N]...\n"
		"  Simulate the fio job file's processes on a device model, deterministically\n"
		"  (virtual clock, seeded randomness: same input, same output).  Per group\n"
		"  (under KEY): bytes, MiB/s, IOPS, latency p50/p99/max, demand (the group\n"
		"  alone, under fifo), fair share (max-min, in the model's cost unit) and\n"
		"  x = got / fair; in total: bandwidth, raw Jain, max-min Jain, worst x.\n"
		"  --device   default nullb (the VM's null_blk); models and defaults below\n"
		"  --sched    cfqx (the scheduling core, default) or fifo (none)\n"
		"  --policy   tgid (default) pgid uid gid cgroup\n"
		"  --seed     default 1\n"
		"  --freeze   a busy host: the guest runs about RUN, then stands still\n"
		"             about STOP (e.g. 6ms/3ms; lengths drawn from the seed);\n"
		"             /VCPUS: that many vCPUs stand still each on its own\n"
		"  --cpu-delay a busy guest: kblockd's queue runs and processes woken\n"
		"             by a completion wait about D for a CPU (e.g. 1ms)\n"
		"  --FIELD N  a cfqx policy field, as for cfqx policy (e.g. --quantum 8)\n"
		"models:\n");
	sim_dev_help(f);
}

/* "6ms/3ms[/2]": the freeze's mean run and stop times, each 1 us to 1 s,
 * and the vCPUs that stand still on their own (1 to SIM_MAX_VCPUS). */
static int parse_freeze(const char *v, struct sim_opts *o)
{
	char run[32], stop[32];
	const char *slash = v ? strchr(v, '/') : NULL;
	const char *cpus = slash ? strchr(slash + 1, '/') : NULL;
	size_t n = slash ? (size_t)(slash - v) : 0;
	size_t m = slash ? (cpus ? (size_t)(cpus - slash - 1) :
			    strlen(slash + 1)) : 0;
	sim_u64 r, st;
	__u64 c = 1;

	if (!slash || !n || n >= sizeof(run) || !m || m >= sizeof(stop))
		return -1;
	memcpy(run, v, n);
	run[n] = 0;
	memcpy(stop, slash + 1, m);
	stop[m] = 0;
	if (sim_parse_time(run, SIM_NS_PER_MS, &r) ||
	    sim_parse_time(stop, SIM_NS_PER_MS, &st) ||
	    r < SIM_NS_PER_US || st < SIM_NS_PER_US ||
	    r > SIM_NS_PER_S || st > SIM_NS_PER_S)
		return -1;
	if (cpus && (cfqx_parse_u64(cpus + 1, SIM_MAX_VCPUS, &c) || !c))
		return -1;
	o->freeze_run_ns = r;
	o->freeze_stop_ns = st;
	o->freeze_cpus = (unsigned)c;
	return 0;
}

int cfqx_cmd_sim(int argc, char **argv)
{
	struct sim_opts o;
	struct sim_jobfile jf;
	struct sim_eval e;
	const char *path = NULL, *dev = "nullb";
	char err[512];
	bool json = false;
	int i, key;

	memset(&o, 0, sizeof(o));
	o.policy = (struct cfqx_policy)CFQX_POLICY_DEFAULT;
	o.sched = SIM_SCHED_CFQX;
	o.seed = 1;
	o.only_group = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			sim_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--device")) {
			if (!v) {
				cfqx_err("sim: --device needs MODEL[,key=value...]");
				return CFQX_EXIT_USAGE;
			}
			dev = v;
			i++;
		} else if (!strcmp(a, "--sched")) {
			if (v && !strcmp(v, "cfqx")) {
				o.sched = SIM_SCHED_CFQX;
			} else if (v && !strcmp(v, "fifo")) {
				o.sched = SIM_SCHED_FIFO;
			} else {
				cfqx_err("sim: bad --sched '%s' (cfqx fifo)",
					 v ? v : "");
				return CFQX_EXIT_USAGE;
			}
			i++;
		} else if (!strcmp(a, "--policy")) {
			key = v ? cfqx_group_by_parse(v, strlen(v)) : -1;
			if (key < 0) {
				cfqx_err("sim: bad --policy '%s' (tgid pgid uid gid cgroup)",
					 v ? v : "");
				return CFQX_EXIT_USAGE;
			}
			o.policy.group_by = key;
			i++;
		} else if (!strcmp(a, "--seed")) {
			if (cfqx_parse_u64(v, UINT64_MAX, (__u64 *)&o.seed)) {
				cfqx_err("sim: bad --seed '%s' (a number, 0 to 2^64-1)",
					 v ? v : "");
				return CFQX_EXIT_USAGE;
			}
			i++;
		} else if (!strcmp(a, "--freeze")) {
			if (parse_freeze(v, &o)) {
				cfqx_err("sim: bad --freeze '%s' (RUN/STOP[/VCPUS], e.g. 6ms/3ms/2, each time 1us to 1s, 1 to %d vCPUs)",
					 v ? v : "", SIM_MAX_VCPUS);
				return CFQX_EXIT_USAGE;
			}
			i++;
		} else if (!strcmp(a, "--cpu-delay")) {
			if (sim_parse_time(v, SIM_NS_PER_MS, &o.cpu_delay_ns) ||
			    o.cpu_delay_ns > SIM_NS_PER_S) {
				cfqx_err("sim: bad --cpu-delay '%s' (a time, e.g. 1ms, 0 to 1s)",
					 v ? v : "");
				return CFQX_EXIT_USAGE;
			}
			i++;
		} else if (cfqx_policy_is_option(a)) {
			if (cfqx_policy_set_option(&o.policy, a, v, err,
						   sizeof(err))) {
				cfqx_err("sim: %s", err);
				return CFQX_EXIT_USAGE;
			}
			i++;
		} else if (a[0] == '-') {
			cfqx_err("sim: unknown option '%s' (cfqx sim --help)", a);
			return CFQX_EXIT_USAGE;
		} else if (!path) {
			path = a;
		} else {
			cfqx_err("sim: unexpected argument '%s'", a);
			return CFQX_EXIT_USAGE;
		}
	}
	if (!path) {
		cfqx_err("sim: no job file (cfqx sim JOBFILE.fio, --help)");
		return CFQX_EXIT_USAGE;
	}
	if (cfqx_policy_validate(&o.policy, err, sizeof(err))) {
		cfqx_err("sim: %s", err);
		return CFQX_EXIT_USAGE;
	}
	if (sim_dev_parse(dev, &o.dev, err, sizeof(err))) {
		cfqx_err("sim: bad --device: %s", err);
		return CFQX_EXIT_USAGE;
	}
	if (sim_jobfile_parse(path, &jf, err, sizeof(err))) {
		cfqx_err("%s", err);
		return CFQX_EXIT_FAIL;
	}
	o.jf = &jf;
	if (sim_evaluate(&o, NULL, &e, err, sizeof(err))) {
		cfqx_err("%s: %s", path, err);
		sim_jobfile_free(&jf);
		return CFQX_EXIT_FAIL;
	}
	if (json)
		sim_report_json(stdout, &o, &e);
	else
		sim_report_text(stdout, path, &o, &e);
	sim_eval_free(&e);
	sim_jobfile_free(&jf);
	return fflush(stdout) ? CFQX_EXIT_FAIL : 0;
}
