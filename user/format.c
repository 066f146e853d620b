// SPDX-License-Identifier: GPL-2.0
/*
 * Pure output formatting for cfqx: policy bytes and text, the stats JSON
 * schema and the group helpers `top` and the metrics share.  Nothing here
 * touches the system, so the unit tests feed it synthetic snapshots.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfqx.h"

const char *const cfqx_stat_names[CFQX_STAT_NR] = {
	[CFQX_STAT_EVENTS] = "events",
	[CFQX_STAT_RB_DROPS] = "rb_drops",
	[CFQX_STAT_RATELIMITED] = "ratelimited",
	[CFQX_STAT_GROUPS_FULL] = "groups_full",
	[CFQX_STAT_INFLIGHT_FULL] = "inflight_full",
	[CFQX_STAT_UNMATCHED] = "unmatched",
	[CFQX_STAT_BAD_POLICY] = "bad_policy",
	[CFQX_STAT_DEVICES_FULL] = "devices_full",
	[CFQX_STAT_BIOS_FULL] = "bios_full",
	[CFQX_STAT_STALE] = "stale_retired",
	[CFQX_STAT_DEEP_WALK] = "deep_walk",
	[CFQX_STAT_RECYCLED] = "groups_recycled",
	[CFQX_STAT_NO_REAPER] = "no_reaper",
};

void cfqx_snapshot_free(struct cfqx_snapshot *s)
{
	free(s->groups);
	free(s->devs);
	s->groups = NULL;
	s->devs = NULL;
	s->ngroups = s->ndevs = 0;
}

void cfqx_policy_hex(const struct cfqx_policy *p, char *buf, size_t len)
{
	const unsigned char *b = (const unsigned char *)p;
	size_t i, off = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (i = 0; i < sizeof(*p) && off + 4 <= len; i++)
		off += snprintf(buf + off, len - off, i ? " %02x" : "%02x",
				b[i]);
}

void cfqx_policy_keys_line(__u32 group_by, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < CFQX_BY_NR && off < len; i++)
		off += snprintf(buf + off, len - off,
				(__u32)i == group_by ? "%s[%s]" : "%s%s",
				i ? " " : "", cfqx_group_by_names[i]);
}

void cfqx_policy_print(FILE *f, const struct cfqx_policy *p)
{
	const __u32 *v = (const __u32 *)p;
	char keys[64];
	int i;

	cfqx_policy_keys_line(p->group_by, keys, sizeof(keys));
	fprintf(f, "%-18s %s\n", "group_by", keys);
	for (i = 1; i < CFQX_POLICY_SIZE / 4; i++)
		fprintf(f, "%-18s %u\n", cfqx_policy_field_names[i], v[i]);
}

void cfqx_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void cfqx_policy_json(FILE *f, const struct cfqx_policy *p)
{
	const __u32 *v = (const __u32 *)p;
	int i;

	fprintf(f, "{\"group_by\":");
	cfqx_json_str(f, p->group_by < CFQX_BY_NR ?
		      cfqx_group_by_names[p->group_by] : "invalid");
	for (i = 1; i < CFQX_POLICY_SIZE / 4; i++)
		fprintf(f, ",\"%s\":%u", cfqx_policy_field_names[i], v[i]);
	fputc('}', f);
}

double cfqx_mb(__u64 bytes)
{
	return bytes / 1e6;
}

const char *cfqx_group_by_str(__u32 by)
{
	return by < CFQX_BY_NR ? cfqx_group_by_names[by] : "invalid";
}

void cfqx_group_label(const struct cfqx_group_row *g, char *buf, size_t len)
{
	if (g->key.flags & CFQX_GF_RETIRED)
		snprintf(buf, len, "retired (recycled groups)");
	else if (g->key.flags & CFQX_GF_KTHREAD)
		snprintf(buf, len, "kthread %" PRIu64 " (%s)",
			 (uint64_t)g->key.id, g->name[0] ? g->name : "?");
	else if (g->name[0])
		snprintf(buf, len, "%s %" PRIu64 " (%s)",
			 cfqx_group_by_str(g->key.group_by), (uint64_t)g->key.id,
			 g->name);
	else
		snprintf(buf, len, "%s %" PRIu64,
			 cfqx_group_by_str(g->key.group_by), (uint64_t)g->key.id);
}

static void hist_json(FILE *f, const char *name, const __u64 *h)
{
	int i;

	fprintf(f, ",\"%s\":[", name);
	for (i = 0; i < CFQX_HIST_SLOTS; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", (uint64_t)h[i]);
	fputc(']', f);
}

__u64 cfqx_group_entitled(const struct cfqx_snapshot *s,
			  const struct cfqx_group_row *g)
{
	__u64 share = 0;
	int i;

	for (i = 0; i < s->ndevs; i++)
		if (s->devs[i].dev == g->key.dev)
			share = s->devs[i].st.share_milli;
	return cfqx_group_entitled_milli(g->st.entitled_milli,
					 g->st.busy_share_base, share,
					 g->st.pending != 0);
}

__u64 cfqx_group_service_ns(const struct cfqx_snapshot *s,
			    const struct cfqx_group_row *g)
{
	return cfqx_service_decay(g->st.service_used_ns, g->st.service_epoch,
				  cfqx_epoch(s->ts_ns));
}

static void group_json(FILE *f, const struct cfqx_snapshot *s,
		       const struct cfqx_group_row *g)
{
	const struct cfqx_group_stats *st = &g->st;
	__u64 service = cfqx_group_service_ns(s, g);

	fprintf(f, "{\"group_by\":");
	cfqx_json_str(f, cfqx_group_by_str(g->key.group_by));
	fprintf(f, ",\"id\":%" PRIu64 ",\"kthread\":%s,\"retired\":%s,\"name\":",
		(uint64_t)g->key.id,
		g->key.flags & CFQX_GF_KTHREAD ? "true" : "false",
		g->key.flags & CFQX_GF_RETIRED ? "true" : "false");
	cfqx_json_str(f, g->name);
	fprintf(f, ",\"cgroup\":");
	cfqx_json_str(f, g->cgroup);
	fprintf(f, ",\"comm\":");
	cfqx_json_str(f, st->comm);
	fprintf(f,
		",\"read_rqs\":%llu,\"read_bytes\":%llu"
		",\"write_rqs\":%llu,\"write_bytes\":%llu"
		",\"errors\":%llu,\"requeues\":%llu,\"merges\":%llu"
		",\"queued\":%llu,\"in_flight\":%llu,\"issued\":%llu"
		",\"lost\":%llu"
		",\"busy\":%s,\"entitled_milli\":%llu,\"over_budget\":%llu"
		",\"starved\":%llu"
		",\"deadline_miss_read\":%llu,\"deadline_miss_write\":%llu"
		",\"seek_forward\":%llu,\"seek_back_near\":%llu"
		",\"seek_back_far\":%llu"
		",\"service_used_ns\":%llu,\"max_latency_ns\":%llu"
		",\"queue_p50_ns\":%llu,\"queue_p99_ns\":%llu"
		",\"service_p50_ns\":%llu,\"service_p99_ns\":%llu",
		st->rqs[CFQX_READ], st->bytes[CFQX_READ],
		st->rqs[CFQX_WRITE], st->bytes[CFQX_WRITE],
		st->errors, st->requeues, st->merges,
		(unsigned long long)cfqx_group_queued(st),
		(unsigned long long)cfqx_group_in_flight(st), st->issued,
		st->lost,
		st->pending ? "true" : "false",
		(unsigned long long)cfqx_group_entitled(s, g), st->over_budget,
		st->starved,
		st->deadline_miss[CFQX_READ], st->deadline_miss[CFQX_WRITE],
		st->seeks[CFQX_SEEK_FORWARD], st->seeks[CFQX_SEEK_BACK_NEAR],
		st->seeks[CFQX_SEEK_BACK_FAR],
		(unsigned long long)service, st->max_lat_ns,
		(unsigned long long)cfqx_hist_percentile_ns(st->qtime_hist, 50),
		(unsigned long long)cfqx_hist_percentile_ns(st->qtime_hist, 99),
		(unsigned long long)cfqx_hist_percentile_ns(st->stime_hist, 50),
		(unsigned long long)cfqx_hist_percentile_ns(st->stime_hist, 99));
	hist_json(f, "queue_hist", st->qtime_hist);
	hist_json(f, "service_hist", st->stime_hist);
	fputc('}', f);
}

void cfqx_stats_json(FILE *f, const struct cfqx_snapshot *s)
{
	int d, g, i, n;

	fprintf(f, "{\"version\":1,\"policy\":");
	cfqx_policy_json(f, &s->policy);
	fprintf(f, ",\"device_filter\":%s,\"counters\":{",
		s->device_filter ? "true" : "false");
	for (i = 0; i < CFQX_STAT_NR; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", cfqx_stat_names[i],
			s->counters[i]);
	fprintf(f, ",\"prog_misses\":%llu},\"devices\":[",
		(unsigned long long)s->prog_misses);
	for (d = 0; d < s->ndevs; d++) {
		const struct cfqx_dev_row *dv = &s->devs[d];
		__u64 sum[2][2] = { { 0 } };

		fprintf(f, "%s{\"dev\":\"%u:%u\",\"name\":", d ? "," : "",
			CFQX_MAJOR(dv->dev), CFQX_MINOR(dv->dev));
		cfqx_json_str(f, dv->name);
		fprintf(f,
			",\"read_rqs\":%llu,\"read_bytes\":%llu"
			",\"write_rqs\":%llu,\"write_bytes\":%llu"
			",\"untracked_rqs\":%llu"
			",\"busy_groups\":%llu,\"groups\":[",
			dv->st.rqs[CFQX_READ], dv->st.bytes[CFQX_READ],
			dv->st.rqs[CFQX_WRITE], dv->st.bytes[CFQX_WRITE],
			dv->st.untracked_rqs,
			dv->st.busy_groups);
		for (g = 0, n = 0; g < s->ngroups; g++) {
			const struct cfqx_group_row *gr = &s->groups[g];

			if (gr->key.dev != dv->dev)
				continue;
			for (i = 0; i < CFQX_DIRS; i++) {
				sum[i][0] += gr->st.rqs[i];
				sum[i][1] += gr->st.bytes[i];
			}
			if (n++)
				fputc(',', f);
			group_json(f, s, gr);
		}
		fprintf(f,
			"],\"group_sum\":{\"read_rqs\":%llu,\"read_bytes\":%llu"
			",\"write_rqs\":%llu,\"write_bytes\":%llu}}",
			sum[0][0], sum[0][1], sum[1][0], sum[1][1]);
	}
	fprintf(f, "]}\n");
}

void cfqx_stats_text(FILE *f, const struct cfqx_snapshot *s)
{
	char label[128], keys[64];
	int d, g;

	cfqx_policy_keys_line(s->policy.group_by, keys, sizeof(keys));
	fprintf(f, "policy: %s\n", keys);
	for (d = 0; d < s->ndevs; d++) {
		const struct cfqx_dev_row *dv = &s->devs[d];

		fprintf(f,
			"\n%s (%u:%u): read %llu rqs %.1f MB, write %llu rqs %.1f MB, untracked %llu rqs\n",
			dv->name, CFQX_MAJOR(dv->dev), CFQX_MINOR(dv->dev),
			dv->st.rqs[0], cfqx_mb(dv->st.bytes[0]), dv->st.rqs[1],
			cfqx_mb(dv->st.bytes[1]), dv->st.untracked_rqs);
		fprintf(f, "  %-36s %9s %10s %9s %10s %8s %8s %6s\n", "group",
			"read rqs", "read MB", "write rqs", "write MB",
			"p50 us", "p99 us", "miss");
		for (g = 0; g < s->ngroups; g++) {
			const struct cfqx_group_row *gr = &s->groups[g];

			if (gr->key.dev != dv->dev)
				continue;
			cfqx_group_label(gr, label, sizeof(label));
			fprintf(f,
				"  %-36.36s %9llu %10.1f %9llu %10.1f %8llu %8llu %6llu\n",
				label, gr->st.rqs[0], cfqx_mb(gr->st.bytes[0]),
				gr->st.rqs[1], cfqx_mb(gr->st.bytes[1]),
				(unsigned long long)cfqx_hist_percentile_ns(
					gr->st.stime_hist, 50) / 1000,
				(unsigned long long)cfqx_hist_percentile_ns(
					gr->st.stime_hist, 99) / 1000,
				gr->st.deadline_miss[0] +
					gr->st.deadline_miss[1]);
		}
	}
}

const char *cfqx_snapshot_dev_name(const struct cfqx_snapshot *s, __u32 dev)
{
	int i;

	for (i = 0; i < s->ndevs; i++)
		if (s->devs[i].dev == dev)
			return s->devs[i].name;
	return "?";
}
