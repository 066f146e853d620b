/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The cfqx command's internal interface: the command table every
 * subcommand file adds itself to, the loader helpers other commands (run,
 * events) share, and the pure parsing/formatting functions the unit tests
 * exercise without root.
 */
#ifndef CFQX_USER_H
#define CFQX_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <linux/types.h>
#include <cfqx/cfq.h>

/* One subcommand: `cfqx NAME ARGS...` calls run(argc, argv) with argv[0]
 * == NAME.  Returns the process exit code. */
struct cfqx_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* Subcommands (one file each).  Add new ones here and in main.c. */
int cfqx_cmd_load(int argc, char **argv);	/* load.c */
int cfqx_cmd_unload(int argc, char **argv);	/* load.c */
int cfqx_cmd_status(int argc, char **argv);	/* status.c */
int cfqx_cmd_policy(int argc, char **argv);	/* policy.c */
int cfqx_cmd_stats(int argc, char **argv);	/* stats.c */
int cfqx_cmd_top(int argc, char **argv);	/* top.c */
int cfqx_cmd_run(int argc, char **argv);	/* daemon.c */
int cfqx_cmd_events(int argc, char **argv);	/* events.c */
int cfqx_cmd_sim(int argc, char **argv);	/* sim.c */
int cfqx_cmd_fairness(int argc, char **argv);	/* fairness.c */

/* Where `cfqx run` publishes its counters; `cfqx status` shows them. */
#define CFQX_DAEMON_JSON	"/run/cfqx/daemon.json"

/* Exit codes. */
#define CFQX_EXIT_OK		0
#define CFQX_EXIT_FAIL		1	/* bad input, missing feature, error */
#define CFQX_EXIT_USAGE		2	/* bad command line */
#define CFQX_EXIT_NOT_LOADED	3	/* `cfqx status`: nothing pinned */

/* ---- loader.c: shared with other commands (run, events) ---------- */

/* Print "cfqx: <message>" on stderr (one line). */
void cfqx_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* True when an instance is pinned (by cfqx load or bpftool loadall). */
bool cfqx_is_loaded(void);

/* Preconditions of loading: root, BTF, bpffs.  Prints one line, -1. */
int cfqx_check_can_load(void);

/*
 * Load, attach and pin the programs: @devs (kernel dev_t, @ndevs of them;
 * none = all devices), @pol (NULL = defaults).  On failure prints one
 * line, removes everything it pinned and returns -1.  Fails if loaded.
 */
int cfqx_load(const __u32 *devs, int ndevs, const struct cfqx_policy *pol);

/* Memory the next cfqx_load() sizes its maps to (bytes; 0: defaults). */
void cfqx_set_mem_budget(__u64 bytes);
/* Age at which the next cfqx_load()'s reaper retires a creator record
 * whose request was neither issued nor completed where cfqx saw it. */
void cfqx_set_orphan_age(__u32 seconds);
/* Where the next cfqx_load() starts a request's record: "io_start" or
 * "getrq"; -1 (said why) for another name or a kernel without it. */
int cfqx_set_start_hook(const char *name);
/* The start hook of the loaded programs ("io_start", "getrq"), or NULL. */
const char *cfqx_loaded_start_hook(void);

/* Load with defaults unless an instance is pinned already (0 then). */
int cfqx_ensure_loaded(void);

/* Remove every pinned program, link and map.  -1 if not loaded. */
int cfqx_unload(void);

/* fd of pinned map CFQX_PIN_MAPS/@name, or -1 with one error line. */
int cfqx_pinned_map_fd(const char *name);

/* Sum of the per-CPU "stats" counters.  0 or -1 with an error line. */
int cfqx_read_global_stats(__u64 out[CFQX_STAT_NR]);

/* The live policy (an all-zero map value reads as the defaults). */
int cfqx_read_policy(struct cfqx_policy *out);
int cfqx_write_policy(const struct cfqx_policy *p);

/*
 * Runs of the pinned programs the kernel skipped because one was already
 * running on that CPU (recursion protection, e.g. a completion in an
 * interrupt over a completion in a kworker): sum of recursion_misses.
 */
int cfqx_prog_misses(__u64 *out);

/* Number of pinned links/programs under CFQX_PIN_PROGS (-1: none). */
int cfqx_count_pinned_progs(void);

/* ---- devname.c: block device names <-> kernel dev_t --------------- */

/* "loop0", "/dev/loop0" or "7:0" -> kernel dev_t of a whole disk.
 * Returns 0, or -1 with a reason in @err. */
int cfqx_resolve_dev(const char *arg, __u32 *dev, char *err, size_t errlen);
/* kernel dev_t -> "loop0" (or "7:0" when unknown). */
void cfqx_dev_name(__u32 dev, char *buf, size_t len);

/* ---- parse.c: pure command-line parsing ---------------------------- */

/* Set policy field from option "--fifo-expire-sync" style name (with or
 * without dashes) and its value.  0, or -1 with a reason in @err. */
int cfqx_policy_set_option(struct cfqx_policy *p, const char *opt,
			   const char *val, char *err, size_t errlen);
/* Field index (offset / 4, >= 1) of option "--quantum", or -1. */
int cfqx_policy_option_field(const char *opt);
/* Is @opt ("--quantum") a policy field option? */
bool cfqx_policy_is_option(const char *opt);
/* Validate; 0 or -1 with "bad FIELD value N (range ...)" in @err. */
int cfqx_policy_validate(const struct cfqx_policy *p, char *err,
			 size_t errlen);
/* Strict unsigned parse: whole string, decimal, <= max. */
int cfqx_parse_u32(const char *s, __u32 max, __u32 *out);
int cfqx_parse_u64(const char *s, __u64 max, __u64 *out);
/*
 * Listen address "ADDR:PORT", "[IPV6]:PORT", ":PORT" or "PORT" (the last
 * two and "localhost" mean 127.0.0.1) -> socket address; *loopback tells
 * whether only this host can reach it.  0, or -1 with a reason in @err.
 */
int cfqx_parse_listen_addr(const char *arg, struct sockaddr_storage *ss,
			   socklen_t *len, bool *loopback, char *err,
			   size_t errlen);

/* ---- format.c: pure output formatting ------------------------------ */

/* bpftool `value hex` bytes of @p: "02 00 00 00 04 00 ..." (no newline). */
void cfqx_policy_hex(const struct cfqx_policy *p, char *buf, size_t len);
/* "[tgid] pgid uid gid cgroup" style key line. */
void cfqx_policy_keys_line(__u32 group_by, char *buf, size_t len);
void cfqx_policy_print(FILE *f, const struct cfqx_policy *p);
void cfqx_policy_json(FILE *f, const struct cfqx_policy *p);
/* JSON string with escapes. */
void cfqx_json_str(FILE *f, const char *s);
/* Human size per second: "12.3" MB/s etc. */
double cfqx_mb(__u64 bytes);

/* One group in a snapshot of the maps. */
struct cfqx_group_row {
	struct cfqx_group_key key;
	struct cfqx_group_stats st;
	char name[128];		/* user/group name, process name, path */
	char cgroup[128];	/* cgroup path when cheap, else "" */
};

struct cfqx_dev_row {
	__u32 dev;
	char name[32];
	struct cfqx_dev_stats st;
};

/* Everything `stats` and `top` show, read at one instant. */
struct cfqx_snapshot {
	__u64 ts_ns;			/* CLOCK_MONOTONIC, as bpf_ktime */
	struct cfqx_policy policy;
	__u64 counters[CFQX_STAT_NR];
	__u64 prog_misses;		/* cfqx_prog_misses() */
	bool device_filter;
	struct cfqx_dev_row *devs;
	int ndevs;
	struct cfqx_group_row *groups;
	int ngroups;
};

extern const char *const cfqx_stat_names[CFQX_STAT_NR];

/* Snapshot JSON (`cfqx stats --json`, schema in the README). */
void cfqx_stats_json(FILE *f, const struct cfqx_snapshot *s);
void cfqx_stats_text(FILE *f, const struct cfqx_snapshot *s);
/* "tgid" .. "cgroup", "invalid" out of range. */
const char *cfqx_group_by_str(__u32 by);
/* Kernel name of @dev in the snapshot ("loop0"), "?" if not there. */
const char *cfqx_snapshot_dev_name(const struct cfqx_snapshot *s, __u32 dev);
/* Fair dispatches x1000 the group was entitled to, as of the snapshot. */
__u64 cfqx_group_entitled(const struct cfqx_snapshot *s,
			  const struct cfqx_group_row *g);
/* CFQ v2 service_used of the group decayed to the snapshot's time. */
__u64 cfqx_group_service_ns(const struct cfqx_snapshot *s,
			    const struct cfqx_group_row *g);
/* Display label of a group: "uid 1000 (alice)", "kthread 123 (kworker)" */
void cfqx_group_label(const struct cfqx_group_row *g, char *buf, size_t len);

/* ---- topview.c: what `cfqx top` shows ------------------------------ */

/* One row of `cfqx top`: rates between two snapshots. */
struct cfqx_top_row {
	const struct cfqx_group_row *g;
	double rmbs, wmbs, iops;
	double share, fair;	/* of the device's bytes in the interval */
	__u64 p50_ns, p99_ns;	/* service time in the interval */
	__u64 misses;		/* deadline misses in the interval */
	const char *state;
};

enum cfqx_top_sort {
	CFQX_TOP_SORT_BW,	/* read + write MB/s, highest first */
	CFQX_TOP_SORT_IOPS,
	CFQX_TOP_SORT_SHARE,
	CFQX_TOP_SORT_P99,
	CFQX_TOP_SORT_GROUP,	/* device, key, id */
	CFQX_TOP_SORT_NR,
};
extern const char *const cfqx_top_sort_names[CFQX_TOP_SORT_NR];
/* "bandwidth", "iops", ... -> enum cfqx_top_sort, or -1. */
int cfqx_top_sort_parse(const char *s);

struct cfqx_top_opts {
	bool all;		/* also groups of other policies */
	enum cfqx_top_sort sort;
	const char *status;	/* a line under the table ("" / NULL: none) */
};

/*
 * Quantile @q (0..1) of a log2 histogram, interpolated linearly inside
 * the bucket it falls in (as Prometheus' histogram_quantile); the
 * open-ended last bucket gives its lower bound.  0 when empty.
 */
__u64 cfqx_hist_quantile_ns(const __u64 *hist, double q);
/* Rows for @cur against @prev (may be NULL: totals since load): the
 * groups of the live policy (all with o->all), sorted by o->sort; returns
 * the count (<= cur->ngroups), rows malloc'd. */
int cfqx_top_rows(const struct cfqx_snapshot *prev,
		  const struct cfqx_snapshot *cur, double secs,
		  const struct cfqx_top_opts *o, struct cfqx_top_row **rows);
void cfqx_top_sort(struct cfqx_top_row *rows, int n, enum cfqx_top_sort by);
/* @s cut to @width bytes, ending in '~' when it was longer. */
void cfqx_top_fit(const char *s, int width, char *buf, size_t len);
void cfqx_top_print(FILE *f, const struct cfqx_snapshot *cur,
		    const struct cfqx_top_row *rows, int n, double secs,
		    const struct cfqx_top_opts *o);
void cfqx_top_json(FILE *f, const struct cfqx_snapshot *cur,
		   const struct cfqx_top_row *rows, int n, double secs);

/* ---- prom.c: Prometheus text exposition format 0.0.4 --------------- */

/* Every cfqx metric of the snapshot (`cfqx stats --prometheus`). */
void cfqx_prom_write(FILE *f, const struct cfqx_snapshot *s);
/* "# HELP" and "# TYPE" lines of one metric family. */
void cfqx_prom_family(FILE *f, const char *name, const char *type,
		      const char *help);
/* A family with one unlabelled counter sample. */
void cfqx_prom_counter(FILE *f, const char *name, const char *help,
		       __u64 value);
/* A label value, escaped, invalid UTF-8 bytes as '?'. */
void cfqx_prom_label_value(FILE *f, const char *s);

/* ---- metrics.c: the /metrics HTTP endpoint of `cfqx run` ---------- */

struct cfqx_metrics;
/* Appends caller-specific metrics to each /metrics answer. */
typedef void (*cfqx_metrics_extra_fn)(FILE *f, void *arg);
/* Listens on @ss and serves /metrics from a thread (started with the
 * caller's signal mask).  NULL with a reason in @err. */
struct cfqx_metrics *cfqx_metrics_start(const struct sockaddr_storage *ss,
					socklen_t len,
					cfqx_metrics_extra_fn extra, void *arg,
					char *err, size_t errlen);
/* Stops the thread and closes the socket (NULL: nothing). */
void cfqx_metrics_stop(struct cfqx_metrics *m);

/* ---- fair.c: the fairness figures (DESIGN "Measuring fairness") ---- */

/*
 * One definition for the simulator and the VM benchmarks (which reach it
 * through `cfqx fairness`).  A group's demand is what it gets alone; its
 * fair share water-fills the demands within the capacity; x = got / fair.
 */
struct cfqx_fairness {
	double jain;		/* raw Jain over what the groups got */
	double maxmin_jain;	/* Jain over x */
	double worst_share;	/* smallest x */
	double capacity;	/* what was water-filled (cost units) */
};

/* Jain's index (sum v)^2 / (n * sum v^2); 1 for n == 0 or all zero. */
double cfqx_jain(int n, const double *v);
/* Max-min fair split of @cap: fair[i] = min(demand[i], level), the level
 * chosen so the fair shares sum to min(cap, sum of demands). */
void cfqx_waterfill(int n, const double *demand, double cap, double *fair);
/*
 * The figures for @n groups.  Bytes unit (@solo_time NULL): demand[i] and
 * got[i] in bytes/s, capacity @cap (<= 0: the total got), fair[i] in
 * bytes/s.  Time unit: solo_time[i] is the fraction of device time group
 * i occupies alone (at demand[i] bytes/s), the fractions are water-filled
 * within @cap (<= 0: 1.0), and fair[i] = demand[i] * fair time / solo
 * time.  share[i] = got[i] / fair[i] (1 when fair[i] is 0).
 */
void cfqx_fairness_eval(int n, const double *demand, const double *solo_time,
			const double *got, double cap, double *fair,
			double *share, struct cfqx_fairness *out);

/* ---- snapshot.c: read the pinned maps ------------------------------ */
int cfqx_snapshot_read(struct cfqx_snapshot *s);
void cfqx_snapshot_free(struct cfqx_snapshot *s);

#endif /* CFQX_USER_H */
