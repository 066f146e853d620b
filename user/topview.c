// SPDX-License-Identifier: GPL-2.0
/*
 * What `cfqx top` shows, computed from two snapshots without touching the
 * system (the unit tests feed it synthetic ones): per-group rates over the
 * interval, share against the fair share, p50/p99 service times
 * interpolated within the log2 histogram buckets, the row order for each
 * sort column, and the table and JSON renderings.  By default only the
 * groups of the live policy are shown (older policies' groups keep their
 * totals but are history); names that do not fit their column end in '~'.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfqx.h"

const char *const cfqx_top_sort_names[CFQX_TOP_SORT_NR] = {
	[CFQX_TOP_SORT_BW] = "bandwidth",
	[CFQX_TOP_SORT_IOPS] = "iops",
	[CFQX_TOP_SORT_SHARE] = "share",
	[CFQX_TOP_SORT_P99] = "p99",
	[CFQX_TOP_SORT_GROUP] = "group",
};

int cfqx_top_sort_parse(const char *s)
{
	int i;

	for (i = 0; i < CFQX_TOP_SORT_NR; i++)
		if (!strcmp(s, cfqx_top_sort_names[i]))
			return i;
	return -1;
}

__u64 cfqx_hist_quantile_ns(const __u64 *hist, double q)
{
	__u64 total = 0, below = 0, lo, hi;
	double rank;
	int i;

	for (i = 0; i < CFQX_HIST_SLOTS; i++)
		total += hist[i];
	if (!total)
		return 0;
	rank = q * (double)total;
	for (i = 0; i < CFQX_HIST_SLOTS - 1; i++) {
		if (hist[i] && (double)(below + hist[i]) >= rank)
			break;
		below += hist[i];
	}
	lo = cfqx_hist_slot_floor_ns(i);
	if (i == CFQX_HIST_SLOTS - 1)
		return lo;	/* open-ended last slot: its lower bound */
	hi = cfqx_hist_slot_floor_ns(i + 1);
	if (rank < (double)below)
		rank = below;
	return lo + (__u64)((double)(hi - lo) * (rank - (double)below) /
			    (double)hist[i]);
}

static const struct cfqx_group_row *
find_group(const struct cfqx_snapshot *s, const struct cfqx_group_key *k)
{
	int i;

	if (!s)
		return NULL;
	for (i = 0; i < s->ngroups; i++)
		if (!memcmp(&s->groups[i].key, k, sizeof(*k)))
			return &s->groups[i];
	return NULL;
}

static int cmp_key(const struct cfqx_top_row *x, const struct cfqx_top_row *y)
{
	if (x->g->key.dev != y->g->key.dev)
		return x->g->key.dev < y->g->key.dev ? -1 : 1;
	if (x->g->key.group_by != y->g->key.group_by)
		return x->g->key.group_by < y->g->key.group_by ? -1 : 1;
	if (x->g->key.flags != y->g->key.flags)
		return x->g->key.flags < y->g->key.flags ? -1 : 1;
	return x->g->key.id < y->g->key.id ? -1 : x->g->key.id > y->g->key.id;
}

/* Descending by a double, then by key. */
#define DESC(a, b) ((a) != (b) ? ((a) < (b) ? 1 : -1) : cmp_key(x, y))

static int by_bw(const void *a, const void *b)
{
	const struct cfqx_top_row *x = a, *y = b;

	return DESC(x->rmbs + x->wmbs, y->rmbs + y->wmbs);
}

static int by_iops(const void *a, const void *b)
{
	const struct cfqx_top_row *x = a, *y = b;

	return DESC(x->iops, y->iops);
}

static int by_share(const void *a, const void *b)
{
	const struct cfqx_top_row *x = a, *y = b;

	return DESC(x->share, y->share);
}

static int by_p99(const void *a, const void *b)
{
	const struct cfqx_top_row *x = a, *y = b;

	return DESC((double)x->p99_ns, (double)y->p99_ns);
}

static int by_group(const void *a, const void *b)
{
	return cmp_key(a, b);
}

void cfqx_top_sort(struct cfqx_top_row *rows, int n, enum cfqx_top_sort by)
{
	static int (*const cmp[CFQX_TOP_SORT_NR])(const void *, const void *) = {
		[CFQX_TOP_SORT_BW] = by_bw,
		[CFQX_TOP_SORT_IOPS] = by_iops,
		[CFQX_TOP_SORT_SHARE] = by_share,
		[CFQX_TOP_SORT_P99] = by_p99,
		[CFQX_TOP_SORT_GROUP] = by_group,
	};

	if (n > 0)
		qsort(rows, n, sizeof(*rows),
		      cmp[by < CFQX_TOP_SORT_NR ? by : CFQX_TOP_SORT_BW]);
}

static bool shown(const struct cfqx_snapshot *cur,
		  const struct cfqx_group_row *g, bool all)
{
	return all || g->key.group_by == cur->policy.group_by;
}

int cfqx_top_rows(const struct cfqx_snapshot *prev,
		  const struct cfqx_snapshot *cur, double secs,
		  const struct cfqx_top_opts *o, struct cfqx_top_row **rows)
{
	__u64 expire = cfqx_fifo_expire_ns(&cur->policy, true);
	struct cfqx_top_row *r;
	int i, j, n = 0;

	*rows = NULL;
	if (!cur->ngroups)
		return 0;
	r = calloc(cur->ngroups, sizeof(*r));
	if (!r)
		return -1;
	if (secs <= 0)
		secs = 1;
	for (i = 0; i < cur->ngroups; i++) {
		const struct cfqx_group_row *g = &cur->groups[i];
		const struct cfqx_group_row *p = find_group(prev, &g->key);
		__u64 hist[CFQX_HIST_SLOTS], dr, dw, drq;

		if (!shown(cur, g, o->all))
			continue;
		dr = g->st.bytes[0] - (p ? p->st.bytes[0] : 0);
		dw = g->st.bytes[1] - (p ? p->st.bytes[1] : 0);
		drq = g->st.rqs[0] + g->st.rqs[1] -
			(p ? p->st.rqs[0] + p->st.rqs[1] : 0);
		for (j = 0; j < CFQX_HIST_SLOTS; j++)
			hist[j] = g->st.stime_hist[j] -
				(p ? p->st.stime_hist[j] : 0);
		r[n].g = g;
		r[n].rmbs = cfqx_mb(dr) / secs;
		r[n].wmbs = cfqx_mb(dw) / secs;
		r[n].iops = drq / secs;
		r[n].p50_ns = cfqx_hist_quantile_ns(hist, 0.50);
		r[n].p99_ns = cfqx_hist_quantile_ns(hist, 0.99);
		r[n].misses = g->st.deadline_miss[0] + g->st.deadline_miss[1] -
			(p ? p->st.deadline_miss[0] + p->st.deadline_miss[1] :
			 0);
		if (g->st.pending && g->st.oldest_queued_ns &&
		    cur->ts_ns > g->st.oldest_queued_ns + expire)
			r[n].state = "starved";
		else if (g->st.pending)
			r[n].state = "busy";
		else
			r[n].state = "idle";
		n++;
	}
	/* share of the device's bytes in the interval vs 1/active groups,
	 * among the groups shown */
	for (i = 0; i < n; i++) {
		double dev_total = 0, mine = r[i].rmbs + r[i].wmbs;
		int active = 0;

		for (j = 0; j < n; j++) {
			double b = r[j].rmbs + r[j].wmbs;

			if (r[j].g->key.dev != r[i].g->key.dev)
				continue;
			dev_total += b;
			if (b > 0 || r[j].g->st.pending)
				active++;
		}
		r[i].share = dev_total > 0 ? mine / dev_total : 0;
		r[i].fair = active ? 1.0 / active : 0;
	}
	cfqx_top_sort(r, n, o->sort);
	*rows = r;
	return n;
}

void cfqx_top_fit(const char *s, int width, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (width < 1 || len < 2) {
		if (len)
			buf[0] = 0;
		return;
	}
	if ((size_t)width >= len)
		width = len - 1;
	if (n <= (size_t)width) {
		snprintf(buf, len, "%s", s);
		return;
	}
	n = width - 1;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;	/* never cut a UTF-8 sequence */
	snprintf(buf, len, "%.*s~", (int)n, s);
}

void cfqx_top_print(FILE *f, const struct cfqx_snapshot *cur,
		    const struct cfqx_top_row *rows, int n, double secs,
		    const struct cfqx_top_opts *o)
{
	char keys[64], label[128], group[40], dev[16];
	int i, hidden = 0;

	for (i = 0; i < cur->ngroups; i++)
		hidden += !shown(cur, &cur->groups[i], o->all);
	cfqx_policy_keys_line(cur->policy.group_by, keys, sizeof(keys));
	fprintf(f, "cfqx top - policy %s - interval %.1fs - %d groups", keys,
		secs, n);
	if (hidden)
		fprintf(f, " (%d of other policies hidden: --all)", hidden);
	fprintf(f, " - sort %s\n", cfqx_top_sort_names[o->sort]);
	fprintf(f, "P50/P99: service time, interpolated within log2 buckets\n");
	fprintf(f, "%-8s %-34s %8s %8s %7s %6s %6s %8s %8s %5s %-7s\n",
		"DEVICE", "GROUP", "READ MB/s", "WRITE MB/s", "IOPS", "SHARE",
		"FAIR", "P50 us", "P99 us", "MISS", "STATE");
	for (i = 0; i < n; i++) {
		const struct cfqx_top_row *r = &rows[i];

		cfqx_group_label(r->g, label, sizeof(label));
		cfqx_top_fit(label, 34, group, sizeof(group));
		cfqx_top_fit(cfqx_snapshot_dev_name(cur, r->g->key.dev), 8, dev,
			     sizeof(dev));
		fprintf(f,
			"%-8s %-34s %9.2f %10.2f %7.0f %5.0f%% %5.0f%% %8.1f %8.1f %5llu %-7s\n",
			dev, group, r->rmbs, r->wmbs, r->iops, r->share * 100,
			r->fair * 100, r->p50_ns / 1000.0, r->p99_ns / 1000.0,
			(unsigned long long)r->misses, r->state);
	}
	if (o->status && o->status[0])
		fprintf(f, "%s\n", o->status);
}

void cfqx_top_json(FILE *f, const struct cfqx_snapshot *cur,
		   const struct cfqx_top_row *rows, int n, double secs)
{
	int i;

	fprintf(f, "{\"interval\":%.3f,\"policy\":", secs);
	cfqx_json_str(f, cfqx_group_by_str(cur->policy.group_by));
	fprintf(f, ",\"percentiles\":\"interpolated\",\"groups\":[");
	for (i = 0; i < n; i++) {
		const struct cfqx_top_row *r = &rows[i];

		fprintf(f, "%s{\"dev\":", i ? "," : "");
		cfqx_json_str(f, cfqx_snapshot_dev_name(cur, r->g->key.dev));
		fprintf(f, ",\"group_by\":");
		cfqx_json_str(f, cfqx_group_by_str(r->g->key.group_by));
		fprintf(f, ",\"id\":%llu,\"kthread\":%s,\"name\":",
			r->g->key.id,
			r->g->key.flags & CFQX_GF_KTHREAD ? "true" : "false");
		cfqx_json_str(f, r->g->name);
		fprintf(f,
			",\"read_mbs\":%.3f,\"write_mbs\":%.3f,\"iops\":%.1f"
			",\"share\":%.4f,\"fair_share\":%.4f"
			",\"p50_ns\":%llu,\"p99_ns\":%llu,\"deadline_misses\":%llu"
			",\"state\":\"%s\"}",
			r->rmbs, r->wmbs, r->iops, r->share, r->fair,
			(unsigned long long)r->p50_ns,
			(unsigned long long)r->p99_ns,
			(unsigned long long)r->misses, r->state);
	}
	fprintf(f, "]}\n");
}
