/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `cfqx sim`'s internal interface: the fio job-file model (sim-job.c),
 * the device models (sim-dev.c), the discrete-event engine with its two
 * schedulers (sim-run.c), the fairness evaluation of a run against its
 * groups' solo runs (sim-eval.c) and its text/JSON report
 * (sim-report.c).  Everything here is pure: no threads, no wall clock,
 * no system access, so the unit tests and the scenario matrix
 * (tests/sim/) link it directly.  Same input, same output.
 */
#ifndef CFQX_SIM_H
#define CFQX_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "cfqx.h"
#include "../sched/cfqx-sched.h"

typedef uint64_t sim_u64;

#define SIM_NS_PER_US	1000ULL
#define SIM_NS_PER_MS	1000000ULL
#define SIM_NS_PER_S	1000000000ULL
#define SIM_MAX_VCPUS	8		/* --freeze RUN/STOP/VCPUS */
#define SIM_SECTOR	512ULL

/* ---- sim-job.c: fio job files -------------------------------------- */

enum sim_engine { SIM_ENG_PSYNC, SIM_ENG_SYNC, SIM_ENG_LIBAIO,
		  SIM_ENG_IO_URING };

/*
 * A buffered (direct=0) writer does not wait for its writes: the page
 * cache absorbs them and write-back keeps this many async requests of the
 * writer's group outstanding (or iodepth, when larger, for an async
 * engine).  See docs/sim.md.
 */
#define SIM_WRITEBACK_DEPTH	16

/* One job section, with [global] defaults applied. */
struct sim_job {
	char name[64];		/* name= or the section name */
	char section[64];
	char cgroup[128];	/* cgroup=, "" = the root cgroup */
	char filename[128];
	int line;		/* line of the section header */
	bool random;		/* randread, randwrite, randrw */
	unsigned read_pct;	/* 100 read, 0 write, rwmixread for rw */
	unsigned rwmixread;	/* as given (default 50) */
	int rw;			/* 0 read, 1 write, 2 rw (for display) */
	sim_u64 bs;
	unsigned iodepth;
	int engine;		/* enum sim_engine */
	unsigned numjobs;
	unsigned uid, gid;
	sim_u64 thinktime_ns;
	sim_u64 size;		/* 0: to the end of the device */
	sim_u64 offset;
	bool direct;
	bool time_based;
	sim_u64 runtime_ns;	/* 0: until size is done */
};

struct sim_jobfile {
	struct sim_job *jobs;
	int njobs;
};

/* Parse a fio job file.  0, or -1 with "FILE:LINE: reason" in @err. */
int sim_jobfile_parse(const char *path, struct sim_jobfile *jf, char *err,
		      size_t errlen);
/* The same from a string; @label names it in errors. */
int sim_jobfile_parse_text(const char *label, const char *text,
			   struct sim_jobfile *jf, char *err, size_t errlen);
void sim_jobfile_free(struct sim_jobfile *jf);

/* Requests a job's process keeps outstanding (engine, direct, rw). */
unsigned sim_job_depth(const struct sim_job *j);

/*
 * The processes a job file starts: one per job clone (numjobs), in file
 * order.  Identities are synthetic and stable: tgid 1001, 1002, ... in
 * order; pgid the tgid of its section's first clone (each section runs as
 * its own process group, as under `setsid fio --section=NAME`); uid/gid
 * from the keys; cgroup ids 1 (root), then 2, 3, ... in order of first use.
 */
struct sim_proc_id {
	int job;		/* index into jobs */
	unsigned clone;
	sim_u64 tgid, pgid, uid, gid, cgroup;
};

int sim_procs(const struct sim_jobfile *jf, struct sim_proc_id **out);
/* The group key of a process under @group_by (enum cfqx_group_by). */
sim_u64 sim_proc_key(const struct sim_proc_id *p, unsigned group_by);

/* ---- sim-dev.c: device models -------------------------------------- */

enum sim_model { SIM_NULLB, SIM_SSD, SIM_HDD, SIM_MODELS };

/* A model's parameters; sim_dev_parse() fills every one. */
struct sim_devcfg {
	int model;
	sim_u64 size;		/* bytes */
	sim_u64 depth;		/* tags: requests the device takes at once */
	/* nullb: null_blk's mbps throttle and timer completions */
	sim_u64 bw;		/* bytes/s, 0 = no throttle */
	sim_u64 lat_ns;		/* completion after queue_rq */
	sim_u64 tick_ns;	/* throttle refill period */
	/* ssd: channels, each serving one stripe chunk at a time */
	sim_u64 channels;
	sim_u64 chan_bw;	/* bytes/s per channel */
	sim_u64 read_ns;	/* per chunk: NAND read */
	sim_u64 write_ns;	/* per chunk: program */
	sim_u64 stripe;		/* bytes per channel chunk */
	/* hdd: one actuator */
	sim_u64 rpm;
	sim_u64 rate;		/* media transfer, bytes/s */
	sim_u64 seek_min_ns;	/* shortest (track-to-track) seek */
	sim_u64 seek_max_ns;	/* full-stroke seek */
};

extern const char *const sim_model_names[SIM_MODELS];

/* "nullb", "ssd,channels=4", ...: defaults plus overrides.
 * 0, or -1 with one reason in @err. */
int sim_dev_parse(const char *spec, struct sim_devcfg *c, char *err,
		  size_t errlen);
/* Canonical spec with every parameter, e.g. "nullb,bw=200M,...". */
void sim_dev_describe(const struct sim_devcfg *c, char *buf, size_t len);
/* Print the models, their parameters and defaults (for --help). */
void sim_dev_help(FILE *f);
/* Fair shares in device time (hdd) rather than bytes (nullb, ssd). */
bool sim_dev_time_unit(const struct sim_devcfg *c);
/*
 * Device time one request costs at full parallelism, from the model's
 * parameters (not a run): nullb bytes/bw; ssd chunk costs / channels;
 * hdd an average positioning (1/3-stroke seek, half a turn) unless
 * sequential, plus the transfer.  The matrix's "one round" uses it.
 */
sim_u64 sim_dev_nominal_ns(const struct sim_devcfg *c, sim_u64 bytes,
			   bool sequential);

/* A device's state during a run. */
struct sim_dev {
	struct sim_devcfg cfg;
	sim_u64 busy;		/* requests accepted, not completed */
	/* nullb */
	int64_t cur_bytes;
	int64_t per_tick;
	bool timer_on;
	/* ssd */
	sim_u64 *chan_free;
	/* hdd */
	sim_u64 free_at;
	sim_u64 head;		/* sector after the last transfer */
	sim_u64 spt;		/* sectors per track */
	sim_u64 turn_ns;
};

int sim_dev_init(struct sim_dev *d, const struct sim_devcfg *c);
void sim_dev_free(struct sim_dev *d);
/* Free tags? */
static inline bool sim_dev_can_take(const struct sim_dev *d)
{
	return d->busy < d->cfg.depth;
}

/*
 * Offer a request (queue_rq).  Accepted: returns 0, *done_at is its
 * completion and *cost_ns the device time it occupies.  Refused (nullb
 * over its byte budget, BLK_STS_DEV_RESOURCE): returns 1; the queue is
 * stopped until a timer reports a restart.  Either way *timer_at is set
 * (non-zero) when the device needs sim_dev_timer() called at that time.
 */
int sim_dev_submit(struct sim_dev *d, sim_u64 now, sim_u64 sector,
		   sim_u64 bytes, bool write, sim_u64 *done_at,
		   sim_u64 *cost_ns, sim_u64 *timer_at);
void sim_dev_complete(struct sim_dev *d);
/* The device's first timer after set-up (0: none). */
sim_u64 sim_dev_first_timer(const struct sim_dev *d);
/* The device's timer at @now: true if the stopped queue restarts;
 * *next is the next timer (0: none). */
bool sim_dev_timer(struct sim_dev *d, sim_u64 now, sim_u64 *next);

/* ---- sim-run.c: one simulated run ---------------------------------- */

enum sim_sched { SIM_SCHED_FIFO, SIM_SCHED_CFQX };

struct sim_opts {
	const struct sim_jobfile *jf;
	struct sim_devcfg dev;
	int sched;			/* enum sim_sched */
	struct cfqx_policy policy;	/* group_by: the group key */
	sim_u64 seed;
	int only_group;			/* -1: all; else that group alone */
	bool latencies;			/* keep samples for percentiles */
	/*
	 * A busy host (--freeze RUN/STOP): the whole guest, its processes,
	 * timers and null_blk alike, runs for about run_ns and then stands
	 * still for about stop_ns (each drawn uniformly from half to one and
	 * a half times the mean, from the seed); an event due while it stands
	 * still happens when it runs again.  0: an idle host.  With
	 * freeze_cpus > 1 each of that many vCPUs stands still on its own:
	 * a process's issues and completions on vCPU (its index mod
	 * freeze_cpus), the device's and the core's timers and queue runs
	 * on vCPU 0.
	 */
	sim_u64 freeze_run_ns, freeze_stop_ns;
	unsigned freeze_cpus;
	/*
	 * A busy guest CPU (--cpu-delay D): what runs asynchronously waits
	 * about D (uniform in [D/2, 3D/2], from the seed) for a CPU: the
	 * queue run blk-mq's restart or the glue's timer hands to kblockd,
	 * and a process woken by its completion.  Runs from a submitter's
	 * own context (insert) are not delayed.  0: an idle guest.
	 */
	sim_u64 cpu_delay_ns;
};

struct sim_group_res {
	char name[160];
	sim_u64 key;
	unsigned nprocs;
	sim_u64 bytes, ios;		/* completed within the run */
	sim_u64 dev_ns;			/* device time of those requests */
	sim_u64 lat_p50, lat_p99, lat_max;	/* ns, submission->completion */
	sim_u64 sync_reads;
	sim_u64 sync_read_lat_max;	/* ns */
	sim_u64 window_ns;		/* its rates are over this time */
	sim_u64 min_bs, max_bs;		/* request sizes its jobs use */
	unsigned max_depth;		/* deepest process (sim_job_depth) */
	bool sequential;		/* every job of the group sequential */
};

struct sim_res {
	int ngroups;
	struct sim_group_res *g;
	sim_u64 duration_ns;
	sim_u64 events;
	sim_u64 stalls;		/* queued, device idle, no wake-up armed */
	sim_u64 refused;	/* requests the device sent back */
	sim_u64 max_blocked_ns;	/* longest admission/tag wait */
	sim_u64 frozen_ns;	/* time a vCPU stood still, on average (--freeze) */
	/* cfqx only: what the core learned and decided (its counters) */
	unsigned core_depth;
	sim_u64 core_lat_min_ns;
	sim_u64 core_capacity_kib_s;
	sim_u64 core_pace_kib_s;
	struct cfqx_sched_stats core_st;
};

/* Run once.  0, or -1 with one reason in @err (e.g. a job beyond the
 * device's end).  Free with sim_res_free(). */
int sim_run(const struct sim_opts *o, struct sim_res *r, char *err,
	    size_t errlen);
void sim_res_free(struct sim_res *r);

/* ---- sim-eval.c: fairness of a run ---------------------------------- */

/* Each group alone on the device, under fifo: its demand. */
struct sim_solo {
	int ngroups;
	sim_u64 *bytes;
	sim_u64 *dev_ns;
	sim_u64 *window_ns;
	sim_u64 *ios;
};

int sim_solo_run(const struct sim_opts *o, struct sim_solo *s, char *err,
		 size_t errlen);
void sim_solo_free(struct sim_solo *s);

struct sim_eval {
	struct sim_res run;
	bool time_unit;
	double *demand_bw;	/* bytes/s alone */
	double *demand_time;	/* fraction of device time alone */
	double *got_bw;		/* bytes/s in the run */
	double *fair_bw;	/* bytes/s */
	double *share;		/* got / fair */
	double total_bw;
	struct cfqx_fairness f;
};

/* Run @o and score it against @solo (NULL: run the solo runs too). */
int sim_evaluate(const struct sim_opts *o, const struct sim_solo *solo,
		 struct sim_eval *e, char *err, size_t errlen);
void sim_eval_free(struct sim_eval *e);

/* ---- sim-report.c ---------------------------------------------------- */
void sim_report_text(FILE *f, const char *jobfile, const struct sim_opts *o,
		     const struct sim_eval *e);
void sim_report_json(FILE *f, const struct sim_opts *o,
		     const struct sim_eval *e);

/* ---- shared helpers (sim-job.c) ------------------------------------ */

/* "4k", "1m", "200M", "512": bytes (binary suffixes k m g t, any case). */
int sim_parse_bytes(const char *s, sim_u64 *out);
/* "200us", "2ms", "1s", "500ns", bare number in @unit_ns. */
int sim_parse_time(const char *s, sim_u64 unit_ns, sim_u64 *out);

/* splitmix64: the simulator's only source of randomness. */
static inline sim_u64 sim_rand(sim_u64 *state)
{
	sim_u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif /* CFQX_SIM_H */
