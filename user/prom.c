// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text exposition (format 0.0.4) of a cfqx snapshot, for
 * `cfqx stats --prometheus` (node_exporter's textfile collector) and the
 * /metrics endpoint of `cfqx run --metrics`.  Names follow Prometheus
 * conventions: cfqx_ prefix, base units (bytes, seconds), _total on
 * counters, histograms as _bucket/_sum/_count in seconds.  Group series
 * carry {device,group_by,id,name,kthread}: device is the kernel name
 * ("loop0", as node_exporter's disk metrics), kthread tells a flusher or
 * kworker group (keyed by pid) from a user group with the same id.
 * Pure formatting: the unit tests feed it synthetic snapshots.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "cfqx.h"

/* A label value: valid UTF-8 with \\, \" and \n escaped; any byte that is
 * not part of a valid UTF-8 sequence (process names are raw bytes)
 * becomes '?', so the exposition always parses. */
void cfqx_prom_label_value(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = 0, i;

		if (*p < 0x80) {
			if (*p == '\\' || *p == '"')
				fprintf(f, "\\%c", *p);
			else if (*p == '\n')
				fputs("\\n", f);
			else if (*p < 0x20 || *p == 0x7f)
				fputc('?', f);
			else
				fputc(*p, f);
			p++;
			continue;
		}
		if (*p >= 0xc2 && *p <= 0xdf)
			n = 1;
		else if (*p >= 0xe0 && *p <= 0xef)
			n = 2;
		else if (*p >= 0xf0 && *p <= 0xf4)
			n = 3;
		for (i = 1; n && i <= n; i++)
			if ((p[i] & 0xc0) != 0x80)
				n = 0;
		/* overlong 3/4-byte forms, surrogates, > U+10FFFF */
		if ((n == 2 && p[0] == 0xe0 && p[1] < 0xa0) ||
		    (n == 2 && p[0] == 0xed && p[1] >= 0xa0) ||
		    (n == 3 && p[0] == 0xf0 && p[1] < 0x90) ||
		    (n == 3 && p[0] == 0xf4 && p[1] >= 0x90))
			n = 0;
		if (!n) {
			fputc('?', f);
			p++;
			continue;
		}
		fwrite(p, 1, n + 1, f);
		p += n + 1;
	}
}

void cfqx_prom_family(FILE *f, const char *name, const char *type,
		      const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void group_labels(FILE *f, const struct cfqx_snapshot *s,
			 const struct cfqx_group_row *g)
{
	fputs("device=\"", f);
	cfqx_prom_label_value(f, cfqx_snapshot_dev_name(s, g->key.dev));
	fprintf(f, "\",group_by=\"%s\",id=\"%" PRIu64 "\",name=\"",
		cfqx_group_by_str(g->key.group_by), (uint64_t)g->key.id);
	cfqx_prom_label_value(f, g->name);
	fprintf(f, "\",kthread=\"%s\"",
		g->key.flags & CFQX_GF_KTHREAD ? "true" : "false");
}

/* Seconds from nanoseconds, exact to the nanosecond. */
static void seconds(FILE *f, __u64 ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, (uint64_t)ns / 1000000000,
		(uint64_t)ns % 1000000000);
}

/* ---- per-group counters and gauges, table driven ------------------ */

enum val_kind { V_COUNT, V_NS, V_MILLI };

struct group_metric {
	const char *name, *type, *help;
	enum val_kind kind;
	__u64 (*get)(const struct cfqx_snapshot *s,
		     const struct cfqx_group_row *g);
};

#define GET(fn, expr)							\
	static __u64 fn(const struct cfqx_snapshot *s,			\
			const struct cfqx_group_row *g)			\
	{								\
		(void)s;						\
		return (expr);						\
	}
GET(g_rbytes, g->st.bytes[CFQX_READ])
GET(g_wbytes, g->st.bytes[CFQX_WRITE])
GET(g_rrqs, g->st.rqs[CFQX_READ])
GET(g_wrqs, g->st.rqs[CFQX_WRITE])
GET(g_errors, g->st.errors)
GET(g_requeues, g->st.requeues)
GET(g_merges, g->st.merges)
GET(g_issued, g->st.issued)
GET(g_lost, g->st.lost)
GET(g_rmiss, g->st.deadline_miss[CFQX_READ])
GET(g_wmiss, g->st.deadline_miss[CFQX_WRITE])
GET(g_starved, g->st.starved)
GET(g_over, g->st.over_budget)
GET(g_entitled, cfqx_group_entitled(s, g))
GET(g_queued, cfqx_group_queued(&g->st))
GET(g_inflight, cfqx_group_in_flight(&g->st))
GET(g_busy, g->st.pending != 0)
GET(g_service, cfqx_group_service_ns(s, g))
GET(g_maxlat, g->st.max_lat_ns)
#undef GET

static const struct group_metric group_metrics[] = {
	{ "cfqx_group_read_bytes_total", "counter",
	  "Bytes read by the group, completed.", V_COUNT, g_rbytes },
	{ "cfqx_group_write_bytes_total", "counter",
	  "Bytes written by the group, completed.", V_COUNT, g_wbytes },
	{ "cfqx_group_read_requests_total", "counter",
	  "Read requests of the group completed.", V_COUNT, g_rrqs },
	{ "cfqx_group_write_requests_total", "counter",
	  "Write requests of the group completed.", V_COUNT, g_wrqs },
	{ "cfqx_group_errors_total", "counter",
	  "Completions with an error.", V_COUNT, g_errors },
	{ "cfqx_group_requeues_total", "counter",
	  "Requests requeued by the driver.", V_COUNT, g_requeues },
	{ "cfqx_group_merges_total", "counter",
	  "Bios merged into a request.", V_COUNT, g_merges },
	{ "cfqx_group_dispatches_total", "counter",
	  "Requests issued to the device (again after a requeue).", V_COUNT,
	  g_issued },
	{ "cfqx_group_lost_requests_total", "counter",
	  "Requests issued whose completion was never seen.", V_COUNT,
	  g_lost },
	{ "cfqx_group_read_deadline_misses_total", "counter",
	  "Reads issued later than fifo_expire_sync/async.", V_COUNT, g_rmiss },
	{ "cfqx_group_write_deadline_misses_total", "counter",
	  "Writes issued later than fifo_expire_sync/async.", V_COUNT,
	  g_wmiss },
	{ "cfqx_group_starved_total", "counter",
	  "Times a request waited past fifo_expire_sync while others were served.",
	  V_COUNT, g_starved },
	{ "cfqx_group_over_budget_dispatches_total", "counter",
	  "Dispatches made while a quantum over the CFQ v2 share.", V_COUNT,
	  g_over },
	{ "cfqx_group_entitled_dispatches_total", "counter",
	  "Dispatches the group was entitled to (1/busy groups of each).",
	  V_MILLI, g_entitled },
	{ "cfqx_group_queued_requests", "gauge",
	  "Requests allocated and waiting for dispatch now.", V_COUNT,
	  g_queued },
	{ "cfqx_group_in_flight_requests", "gauge",
	  "Requests at the device now.", V_COUNT, g_inflight },
	{ "cfqx_group_busy", "gauge",
	  "1 while the group has requests pending.", V_COUNT, g_busy },
	{ "cfqx_group_service_used_seconds", "gauge",
	  "CFQ v2 service_used: device time, decayed by 1/8 each second.",
	  V_NS, g_service },
	{ "cfqx_group_max_latency_seconds", "gauge",
	  "Worst request allocation to completion time since load.", V_NS,
	  g_maxlat },
};

static void group_metric(FILE *f, const struct cfqx_snapshot *s,
			 const struct group_metric *m)
{
	int i;

	cfqx_prom_family(f, m->name, m->type, m->help);
	for (i = 0; i < s->ngroups; i++) {
		const struct cfqx_group_row *g = &s->groups[i];
		__u64 v = m->get(s, g);

		fprintf(f, "%s{", m->name);
		group_labels(f, s, g);
		fputs("} ", f);
		if (m->kind == V_NS)
			seconds(f, v);
		else if (m->kind == V_MILLI)
			fprintf(f, "%" PRIu64 ".%03" PRIu64, (uint64_t)v / 1000,
				(uint64_t)v % 1000);
		else
			fprintf(f, "%" PRIu64, (uint64_t)v);
		fputc('\n', f);
	}
}

static void group_seeks(FILE *f, const struct cfqx_snapshot *s)
{
	static const char *const cls[CFQX_SEEKS] = {
		[CFQX_SEEK_FORWARD] = "forward",
		[CFQX_SEEK_BACK_NEAR] = "back_near",
		[CFQX_SEEK_BACK_FAR] = "back_far",
	};
	int i, c;

	cfqx_prom_family(f, "cfqx_group_seeks_total", "counter",
			 "Dispatches by seek class against the last dispatched sector (cfq_choose_req).");
	for (i = 0; i < s->ngroups; i++)
		for (c = 0; c < CFQX_SEEKS; c++) {
			fputs("cfqx_group_seeks_total{", f);
			group_labels(f, s, &s->groups[i]);
			fprintf(f, ",class=\"%s\"} %" PRIu64 "\n", cls[c],
				(uint64_t)s->groups[i].st.seeks[c]);
		}
}

/*
 * A log2(us) histogram.  Slot i < 31 holds durations below 2^(i+1) us
 * (slot 0 everything below 2 us), the last slot everything longer, so the
 * bucket bounds are 2^(i+1) us and +Inf.  (A duration of exactly a bound
 * lands in the next slot; the bounds are inclusive in Prometheus, so
 * such a value is counted one bucket late.)
 */
static void group_hist(FILE *f, const struct cfqx_snapshot *s,
		       const char *name, const char *help, size_t hist_off,
		       size_t sum_off)
{
	int i, b;

	cfqx_prom_family(f, name, "histogram", help);
	for (i = 0; i < s->ngroups; i++) {
		const struct cfqx_group_row *g = &s->groups[i];
		const __u64 *h = (const __u64 *)((const char *)&g->st +
						 hist_off);
		__u64 sum = *(const __u64 *)((const char *)&g->st + sum_off);
		__u64 cum = 0;

		for (b = 0; b < CFQX_HIST_SLOTS; b++) {
			cum += h[b];
			fprintf(f, "%s_bucket{", name);
			group_labels(f, s, g);
			if (b < CFQX_HIST_SLOTS - 1) {
				fputs(",le=\"", f);
				seconds(f, cfqx_hist_slot_floor_ns(b + 1));
				fprintf(f, "\"} %" PRIu64 "\n", (uint64_t)cum);
			} else {
				fprintf(f, ",le=\"+Inf\"} %" PRIu64 "\n",
					(uint64_t)cum);
			}
		}
		fprintf(f, "%s_sum{", name);
		group_labels(f, s, g);
		fputs("} ", f);
		seconds(f, sum);
		fprintf(f, "\n%s_count{", name);
		group_labels(f, s, g);
		fprintf(f, "} %" PRIu64 "\n", (uint64_t)cum);
	}
}

/* ---- devices and global counters ----------------------------------- */

static void dev_metric(FILE *f, const struct cfqx_snapshot *s,
		       const char *name, const char *type, const char *help,
		       size_t off)
{
	int i;

	cfqx_prom_family(f, name, type, help);
	for (i = 0; i < s->ndevs; i++) {
		fprintf(f, "%s{device=\"", name);
		cfqx_prom_label_value(f, s->devs[i].name);
		fprintf(f, "\"} %" PRIu64 "\n",
			(uint64_t)*(const __u64 *)((const char *)&s->devs[i].st +
						   off));
	}
}

void cfqx_prom_counter(FILE *f, const char *name, const char *help,
		       __u64 value)
{
	cfqx_prom_family(f, name, "counter", help);
	fprintf(f, "%s %" PRIu64 "\n", name, (uint64_t)value);
}

void cfqx_prom_write(FILE *f, const struct cfqx_snapshot *s)
{
	static const char *const stat_help[CFQX_STAT_NR] = {
		[CFQX_STAT_EVENTS] = "Events written to the ring buffer.",
		[CFQX_STAT_RB_DROPS] = "Events lost: ring buffer full.",
		[CFQX_STAT_RATELIMITED] = "Events suppressed by event_rate.",
		[CFQX_STAT_GROUPS_FULL] = "Requests uncounted: groups map full.",
		[CFQX_STAT_INFLIGHT_FULL] = "Requests uncounted: in-flight map full.",
		[CFQX_STAT_UNMATCHED] = "Issues or completions of requests never classified.",
		[CFQX_STAT_BAD_POLICY] = "Policy map values rejected.",
		[CFQX_STAT_DEVICES_FULL] = "Devices uncounted: devstats map full.",
	};
	char name[96];
	size_t i;

	cfqx_prom_family(f, "cfqx_policy_info", "gauge",
			 "The live grouping key (always 1).");
	fprintf(f, "cfqx_policy_info{group_by=\"%s\"} 1\n",
		cfqx_group_by_str(s->policy.group_by));
	for (i = 0; i < CFQX_STAT_NR; i++) {
		snprintf(name, sizeof(name), "cfqx_bpf_%s_total",
			 cfqx_stat_names[i]);
		cfqx_prom_counter(f, name, stat_help[i] ? stat_help[i] :
				  "cfqx BPF counter.", s->counters[i]);
	}
	cfqx_prom_counter(f, "cfqx_bpf_prog_misses_total",
			  "Runs of the cfqx programs the kernel skipped (recursion protection).",
			  s->prog_misses);

#define DEV(n, t, h, field)						\
	dev_metric(f, s, n, t, h, offsetof(struct cfqx_dev_stats, field))
	DEV("cfqx_device_read_bytes_total", "counter",
	    "Bytes read from the device, attributed to a group or not.",
	    bytes[CFQX_READ]);
	DEV("cfqx_device_write_bytes_total", "counter",
	    "Bytes written to the device, attributed to a group or not.",
	    bytes[CFQX_WRITE]);
	DEV("cfqx_device_read_requests_total", "counter",
	    "Read requests the device completed.", rqs[CFQX_READ]);
	DEV("cfqx_device_write_requests_total", "counter",
	    "Write requests the device completed.", rqs[CFQX_WRITE]);
	DEV("cfqx_device_untracked_requests_total", "counter",
	    "Completions with no group (issued before load, passthrough).",
	    untracked_rqs);
	DEV("cfqx_device_busy_groups", "gauge",
	    "Groups with requests pending now.", busy_groups);
#undef DEV

	for (i = 0; i < sizeof(group_metrics) / sizeof(group_metrics[0]); i++)
		group_metric(f, s, &group_metrics[i]);
	group_seeks(f, s);
	group_hist(f, s, "cfqx_group_queue_time_seconds",
		   "Request allocation to issue time.",
		   offsetof(struct cfqx_group_stats, qtime_hist),
		   offsetof(struct cfqx_group_stats, qtime_sum_ns));
	group_hist(f, s, "cfqx_group_service_time_seconds",
		   "Issue to completion time.",
		   offsetof(struct cfqx_group_stats, stime_hist),
		   offsetof(struct cfqx_group_stats, stime_sum_ns));
}
