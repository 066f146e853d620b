// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of cfqx's output formatting on synthetic snapshots: the
 * `stats --json` schema (parsed back), policy text/JSON, group labels and
 * the `top` rates, shares and ordering.
 */
#include <stdio.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include "../../user/cfqx.h"
#include "../bpf/json-mini.h"

static char *capture(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

static void stats_json_fn(FILE *f, const void *s)
{
	cfqx_stats_json(f, s);
}

static void policy_json_fn(FILE *f, const void *p)
{
	cfqx_policy_json(f, p);
}

static void make_snapshot(struct cfqx_snapshot *s)
{
	struct cfqx_policy pol = CFQX_POLICY_DEFAULT;

	memset(s, 0, sizeof(*s));
	pol.group_by = CFQX_BY_UID;
	s->policy = pol;
	s->ts_ns = 10ULL * 1000000000ULL;
	s->counters[CFQX_STAT_RB_DROPS] = 3;
	s->device_filter = true;
	s->ndevs = 1;
	s->devs = calloc(1, sizeof(*s->devs));
	s->devs[0].dev = CFQX_MKDEV(7, 3);
	strcpy(s->devs[0].name, "loop3");
	s->devs[0].st.rqs[0] = 12;
	s->devs[0].st.bytes[0] = 12 * 4096;
	s->devs[0].st.rqs[1] = 5;
	s->devs[0].st.bytes[1] = 5 * 65536;
	s->devs[0].st.share_milli = 9000;
	s->ngroups = 2;
	s->groups = calloc(2, sizeof(*s->groups));
	s->groups[0].key = (struct cfqx_group_key){ s->devs[0].dev,
						    CFQX_BY_UID, 0, 1000 };
	strcpy(s->groups[0].name, "alice \"a\"");
	s->groups[0].st.rqs[0] = 10;
	s->groups[0].st.bytes[0] = 10 * 4096;
	s->groups[0].st.stime_hist[3] = 10;
	s->groups[0].st.entitled_milli = 2000;
	s->groups[0].st.pending = 1;
	s->groups[0].st.busy_share_base = 8000;
	s->groups[1].key = (struct cfqx_group_key){ s->devs[0].dev,
						    CFQX_BY_UID,
						    CFQX_GF_KTHREAD, 77 };
	strcpy(s->groups[1].name, "kworker/u8:1");
	s->groups[1].st.rqs[0] = 2;
	s->groups[1].st.bytes[0] = 2 * 4096;
	s->groups[1].st.rqs[1] = 5;
	s->groups[1].st.bytes[1] = 5 * 65536;
}

Test(format, stats_json_schema)
{
	struct cfqx_snapshot s;
	struct jnode *root, *dev, *g, *sum;
	char *out;

	make_snapshot(&s);
	out = capture(stats_json_fn, &s);
	root = jparse(out);
	cr_assert_not_null(root, "invalid JSON: %s", out);
	cr_expect_eq(jnum(root, "version"), 1);
	cr_expect_str_eq(jstr(jget(root, "policy"), "group_by"), "uid");
	cr_expect_eq(jnum(jget(root, "policy"), "fifo_expire_sync"), 500);
	cr_expect_eq(jnum(jget(root, "counters"), "rb_drops"), 3);
	cr_expect(jget(root, "device_filter")->b);
	dev = &jget(root, "devices")->kids[0];
	cr_expect_str_eq(jstr(dev, "dev"), "7:3");
	cr_expect_str_eq(jstr(dev, "name"), "loop3");
	cr_expect_eq(jnum(dev, "read_rqs"), 12);
	cr_expect_eq(jget(dev, "groups")->nkids, 2);
	g = &jget(dev, "groups")->kids[0];
	cr_expect_str_eq(jstr(g, "name"), "alice \"a\"");
	cr_expect_eq(jnum(g, "id"), 1000);
	cr_expect_eq(jnum(g, "read_bytes"), 40960);
	cr_expect_eq(jnum(g, "service_p50_ns"), 16000);
	/* busy: banked 2000 + (9000 - 8000) */
	cr_expect_eq(jnum(g, "entitled_milli"), 3000);
	cr_expect(jget(g, "busy")->b);
	cr_expect_eq(jget(g, "service_hist")->nkids, CFQX_HIST_SLOTS);
	g = &jget(dev, "groups")->kids[1];
	cr_expect(jget(g, "kthread")->b);
	sum = jget(dev, "group_sum");
	cr_expect_eq(jnum(sum, "read_rqs"), 12);
	cr_expect_eq(jnum(sum, "write_bytes"), 5 * 65536);
	jfree(root);
	free(root);
	free(out);
	cfqx_snapshot_free(&s);
}

Test(format, policy_json_and_keys)
{
	struct cfqx_policy p = CFQX_POLICY_DEFAULT;
	char keys[64], *out;

	cfqx_policy_keys_line(CFQX_BY_PGID, keys, sizeof(keys));
	cr_expect_str_eq(keys, "tgid [pgid] uid gid cgroup");
	out = capture(policy_json_fn, &p);
	cr_expect_str_eq(out,
		"{\"group_by\":\"tgid\",\"quantum\":4,\"queued\":8,"
		"\"max_queued\":64,\"fifo_expire_sync\":500,"
		"\"fifo_expire_async\":5000,\"fifo_batch_expire\":125,"
		"\"back_seek_max\":16384,\"back_seek_penalty\":2,"
		"\"max_depth\":1024,\"slice_idle\":8000,\"event_rate\":10}");
	free(out);
}

Test(format, group_labels)
{
	struct cfqx_group_row g = { 0 };
	char buf[128];

	g.key.group_by = CFQX_BY_UID;
	g.key.id = 1000;
	strcpy(g.name, "alice");
	cfqx_group_label(&g, buf, sizeof(buf));
	cr_expect_str_eq(buf, "uid 1000 (alice)");
	g.key.flags = CFQX_GF_KTHREAD;
	g.key.id = 5;
	strcpy(g.name, "kworker/0:1");
	cfqx_group_label(&g, buf, sizeof(buf));
	cr_expect_str_eq(buf, "kthread 5 (kworker/0:1)");
	g.key.flags = 0;
	g.key.group_by = CFQX_BY_CGROUP;
	g.name[0] = 0;
	cfqx_group_label(&g, buf, sizeof(buf));
	cr_expect_str_eq(buf, "cgroup 5");
}

Test(format, json_string_escapes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cfqx_json_str(f, "a\"b\\c\n\x01");
	fclose(f);
	cr_expect_str_eq(buf, "\"a\\\"b\\\\c\\u000a\\u0001\"");
	free(buf);
}

Test(format, top_rates_shares_order)
{
	struct cfqx_top_opts all = { .all = true };
	struct cfqx_snapshot prev, cur;
	struct cfqx_top_row *rows;
	int n;

	make_snapshot(&prev);
	make_snapshot(&cur);
	cur.ts_ns = prev.ts_ns + 2000000000ULL;
	/* in 2 s: alice reads 2 MB, the kthread writes 6 MB */
	cur.groups[0].st.bytes[0] += 2000000;
	cur.groups[0].st.rqs[0] += 100;
	cur.groups[1].st.bytes[1] += 6000000;
	cur.groups[1].st.rqs[1] += 50;
	cur.groups[1].st.deadline_miss[1] += 3;
	n = cfqx_top_rows(&prev, &cur, 2.0, &all, &rows);
	cr_assert_eq(n, 2);
	cr_expect_eq(rows[0].g, &cur.groups[1]);	/* highest bandwidth */
	cr_expect_float_eq(rows[0].wmbs, 3.0, 1e-9);
	cr_expect_float_eq(rows[0].iops, 25.0, 1e-9);
	cr_expect_float_eq(rows[0].share, 0.75, 1e-9);
	cr_expect_float_eq(rows[0].fair, 0.5, 1e-9);
	cr_expect_eq(rows[0].misses, 3);
	cr_expect_str_eq(rows[0].state, "idle");
	cr_expect_float_eq(rows[1].rmbs, 1.0, 1e-9);
	cr_expect_float_eq(rows[1].share, 0.25, 1e-9);
	cr_expect_str_eq(rows[1].state, "busy");
	free(rows);
	/* no previous snapshot: totals since load */
	n = cfqx_top_rows(NULL, &cur, 1.0, &all, &rows);
	cr_expect_eq(n, 2);
	free(rows);
	cfqx_snapshot_free(&prev);
	cfqx_snapshot_free(&cur);
}

/* Only the live policy's groups by default; the fair share counts only
 * them; --all shows every group. */
Test(format, top_live_policy_only)
{
	struct cfqx_top_opts live = { 0 }, all = { .all = true };
	struct cfqx_snapshot prev, cur;
	struct cfqx_top_row *rows;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int n;

	make_snapshot(&prev);
	make_snapshot(&cur);
	/* a group from an earlier tgid policy, still doing I/O */
	cur.groups = realloc(cur.groups, 3 * sizeof(*cur.groups));
	memset(&cur.groups[2], 0, sizeof(cur.groups[2]));
	cur.groups[2].key = (struct cfqx_group_key){ cur.devs[0].dev,
						     CFQX_BY_TGID, 0, 4242 };
	strcpy(cur.groups[2].name, "old");
	cur.groups[2].st.bytes[0] = 1000000;
	cur.ngroups = 3;
	cur.ts_ns = prev.ts_ns + 1000000000ULL;
	cur.groups[0].st.bytes[0] += 1000000;
	n = cfqx_top_rows(&prev, &cur, 1.0, &live, &rows);
	cr_assert_eq(n, 2);
	cr_expect_eq(rows[0].g, &cur.groups[0]);
	cr_expect_float_eq(rows[0].share, 1.0, 1e-9);
	cr_expect_float_eq(rows[0].fair, 1.0, 1e-9);	/* alice alone */
	f = open_memstream(&buf, &len);
	cfqx_top_print(f, &cur, rows, n, 1.0, &live);
	fclose(f);
	cr_expect(strstr(buf, "(1 of other policies hidden: --all)"), "%s", buf);
	cr_expect(strstr(buf, "interpolated within log2 buckets"), "%s", buf);
	cr_expect(!strstr(buf, "tgid 4242"), "%s", buf);
	free(buf);
	free(rows);
	n = cfqx_top_rows(&prev, &cur, 1.0, &all, &rows);
	cr_expect_eq(n, 3);
	cr_expect_float_eq(rows[0].share, 0.5, 1e-9);
	free(rows);
	cfqx_snapshot_free(&prev);
	cfqx_snapshot_free(&cur);
}

Test(format, top_sort_columns)
{
	struct cfqx_top_opts o = { .all = true };
	struct cfqx_snapshot cur;
	struct cfqx_top_row *rows;
	int n;

	make_snapshot(&cur);
	cr_expect_eq(cfqx_top_sort_parse("p99"), CFQX_TOP_SORT_P99);
	cr_expect_eq(cfqx_top_sort_parse("nope"), -1);
	n = cfqx_top_rows(NULL, &cur, 1.0, &o, &rows);
	cr_assert_eq(n, 2);
	/* by bandwidth the kthread (8 KiB + 320 KiB) comes first */
	cr_expect_eq(rows[0].g, &cur.groups[1]);
	cfqx_top_sort(rows, n, CFQX_TOP_SORT_P99);	/* alice has the hist */
	cr_expect_eq(rows[0].g, &cur.groups[0]);
	cfqx_top_sort(rows, n, CFQX_TOP_SORT_IOPS);	/* alice 10, kthread 7 */
	cr_expect_eq(rows[0].g, &cur.groups[0]);
	cfqx_top_sort(rows, n, CFQX_TOP_SORT_GROUP);	/* flags 0 first */
	cr_expect_eq(rows[0].g, &cur.groups[0]);
	free(rows);
	cfqx_snapshot_free(&cur);
}

Test(format, top_fit_marks_truncation)
{
	char buf[40];

	cfqx_top_fit("short", 8, buf, sizeof(buf));
	cr_expect_str_eq(buf, "short");
	cfqx_top_fit("exactly8", 8, buf, sizeof(buf));
	cr_expect_str_eq(buf, "exactly8");
	cfqx_top_fit("cgroup 77 (/cfqx-demo.4458/batch)", 20, buf, sizeof(buf));
	cr_expect_str_eq(buf, "cgroup 77 (/cfqx-de~");
	cfqx_top_fit("ab\xc3\xa9" "cd", 4, buf, sizeof(buf));	/* no half UTF-8 */
	cr_expect_str_eq(buf, "ab~");
}

Test(format, hist_quantile_interpolates)
{
	__u64 h[CFQX_HIST_SLOTS] = { 0 };

	cr_expect_eq(cfqx_hist_quantile_ns(h, 0.5), 0);
	h[6] = 100;	/* 64 .. 128 us */
	cr_expect_eq(cfqx_hist_quantile_ns(h, 0.5), 96000);
	cr_expect_eq(cfqx_hist_quantile_ns(h, 0.99), 127360);
	cr_expect_eq(cfqx_hist_quantile_ns(h, 0.0), 64000);
	h[0] = 100;	/* 0 .. 2 us */
	cr_expect_eq(cfqx_hist_quantile_ns(h, 0.25), 1000);
	cr_expect_eq(cfqx_hist_quantile_ns(h, 0.75), 96000);
	memset(h, 0, sizeof(h));
	h[CFQX_HIST_SLOTS - 1] = 3;	/* open-ended: its lower bound */
	cr_expect_eq(cfqx_hist_quantile_ns(h, 0.99),
		     cfqx_hist_slot_floor_ns(CFQX_HIST_SLOTS - 1));
}
