// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the Prometheus exposition (user/prom.c) on a synthetic
 * snapshot: metric names and labels, label escaping and UTF-8 repair,
 * histogram buckets (cumulative, in seconds, +Inf == _count, exact _sum),
 * every family declared once before its samples; and the --metrics
 * listen-address parser, loopback detection included.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include "../../user/cfqx.h"

static void snapshot(struct cfqx_snapshot *s)
{
	struct cfqx_policy pol = CFQX_POLICY_DEFAULT;

	memset(s, 0, sizeof(*s));
	pol.group_by = CFQX_BY_UID;
	s->policy = pol;
	s->ts_ns = 5ULL * 1000000000ULL;
	s->counters[CFQX_STAT_RB_DROPS] = 3;
	s->prog_misses = 2;
	s->ndevs = 1;
	s->devs = calloc(1, sizeof(*s->devs));
	s->devs[0].dev = CFQX_MKDEV(7, 3);
	strcpy(s->devs[0].name, "loop3");
	s->devs[0].st.bytes[0] = 12 * 4096;
	s->ngroups = 2;
	s->groups = calloc(2, sizeof(*s->groups));
	s->groups[0].key = (struct cfqx_group_key){ s->devs[0].dev,
						    CFQX_BY_UID, 0, 1000 };
	strcpy(s->groups[0].name, "al\"i\\ce\n\xff\xc3\xa9");
	s->groups[0].st.rqs[0] = 10;
	s->groups[0].st.bytes[0] = 10 * 4096;
	s->groups[0].st.stime_hist[0] = 1;	/* < 2 us */
	s->groups[0].st.stime_hist[3] = 9;	/* 8 .. 16 us */
	s->groups[0].st.stime_sum_ns = 1500 + 9 * 12345ULL;
	s->groups[0].st.stime_hist[CFQX_HIST_SLOTS - 1] = 1;
	s->groups[0].st.stime_sum_ns += 3000ULL * 1000000000ULL;
	s->groups[0].st.seeks[CFQX_SEEK_BACK_NEAR] = 4;
	s->groups[0].st.max_lat_ns = 1234567890;
	s->groups[1].key = (struct cfqx_group_key){ s->devs[0].dev,
						    CFQX_BY_UID,
						    CFQX_GF_KTHREAD, 1000 };
	strcpy(s->groups[1].name, "kworker/u8:1");
	s->groups[1].st.bytes[1] = 5 * 65536;
}

static char *expose(const struct cfqx_snapshot *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cfqx_prom_write(f, s);
	fclose(f);
	return buf;
}

#define G0 "{device=\"loop3\",group_by=\"uid\",id=\"1000\",name=\"al\\\"i\\\\ce\\n?\xc3\xa9\",kthread=\"false\"}"
#define G1 "{device=\"loop3\",group_by=\"uid\",id=\"1000\",name=\"kworker/u8:1\",kthread=\"true\"}"

static void has_line(const char *out, const char *line)
{
	char *want;

	cr_assert(asprintf(&want, "\n%s\n", line) > 0);
	cr_expect(strstr(out, want), "missing line: %s", line);
	free(want);
}

Test(prom, group_counters_and_labels)
{
	struct cfqx_snapshot s;
	char *out;

	snapshot(&s);
	out = expose(&s);
	has_line(out, "# TYPE cfqx_group_read_bytes_total counter");
	has_line(out, "cfqx_group_read_bytes_total" G0 " 40960");
	has_line(out, "cfqx_group_read_bytes_total" G1 " 0");
	has_line(out, "cfqx_group_write_bytes_total" G1 " 327680");
	has_line(out, "cfqx_group_read_requests_total" G0 " 10");
	has_line(out, "cfqx_group_max_latency_seconds" G0 " 1.234567890");
	has_line(out, "cfqx_group_seeks_total{device=\"loop3\",group_by=\"uid\",id=\"1000\",name=\"kworker/u8:1\",kthread=\"true\",class=\"forward\"} 0");
	has_line(out, "cfqx_device_read_bytes_total{device=\"loop3\"} 49152");
	has_line(out, "cfqx_bpf_rb_drops_total 3");
	has_line(out, "cfqx_bpf_prog_misses_total 2");
	has_line(out, "cfqx_policy_info{group_by=\"uid\"} 1");
	free(out);
	cfqx_snapshot_free(&s);
}

Test(prom, histogram_in_seconds)
{
	struct cfqx_snapshot s;
	char *out;

	snapshot(&s);
	out = expose(&s);
	has_line(out, "# TYPE cfqx_group_service_time_seconds histogram");
	has_line(out, "cfqx_group_service_time_seconds_bucket{device=\"loop3\",group_by=\"uid\",id=\"1000\",name=\"al\\\"i\\\\ce\\n?\xc3\xa9\",kthread=\"false\",le=\"0.000002000\"} 1");
	has_line(out, "cfqx_group_service_time_seconds_bucket{device=\"loop3\",group_by=\"uid\",id=\"1000\",name=\"al\\\"i\\\\ce\\n?\xc3\xa9\",kthread=\"false\",le=\"0.000008000\"} 1");
	has_line(out, "cfqx_group_service_time_seconds_bucket{device=\"loop3\",group_by=\"uid\",id=\"1000\",name=\"al\\\"i\\\\ce\\n?\xc3\xa9\",kthread=\"false\",le=\"0.000016000\"} 10");
	has_line(out, "cfqx_group_service_time_seconds_bucket{device=\"loop3\",group_by=\"uid\",id=\"1000\",name=\"al\\\"i\\\\ce\\n?\xc3\xa9\",kthread=\"false\",le=\"1073.741824000\"} 10");
	has_line(out, "cfqx_group_service_time_seconds_bucket{device=\"loop3\",group_by=\"uid\",id=\"1000\",name=\"al\\\"i\\\\ce\\n?\xc3\xa9\",kthread=\"false\",le=\"+Inf\"} 11");
	has_line(out, "cfqx_group_service_time_seconds_count" G0 " 11");
	has_line(out, "cfqx_group_service_time_seconds_sum" G0 " 3000.000112605");
	has_line(out, "cfqx_group_queue_time_seconds_count" G1 " 0");
	free(out);
	cfqx_snapshot_free(&s);
}

/* Each family: one HELP and one TYPE, before all of its samples, which
 * are contiguous. */
Test(prom, families_declared_once_and_grouped)
{
	struct cfqx_snapshot s;
	char *out, *line, *save, seen[200][96], cur[96] = "";
	int n = 0, i;

	snapshot(&s);
	out = expose(&s);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[96];

		if (!strncmp(line, "# HELP ", 7)) {
			sscanf(line + 7, "%95s", name);
			for (i = 0; i < n; i++)
				cr_expect(strcmp(seen[i], name),
					  "family %s declared twice", name);
			cr_assert(n < 200);
			strcpy(seen[n++], name);
			strcpy(cur, name);
			continue;
		}
		if (line[0] == '#')
			continue;
		sscanf(line, "%95[^{ ]", name);
		cr_expect(!strncmp(name, cur, strlen(cur)),
			  "sample %s outside its family %s", name, cur);
	}
	cr_expect(n > 30);
	free(out);
	cfqx_snapshot_free(&s);
}

Test(prom, listen_addresses)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	bool lo;
	char err[128];

	cr_assert_eq(cfqx_parse_listen_addr("9477", &ss, &len, &lo, err,
					    sizeof(err)), 0);
	cr_expect(lo);
	cr_expect_eq(ntohs(in4->sin_port), 9477);
	cr_expect_eq(ntohl(in4->sin_addr.s_addr), 0x7f000001);
	cr_assert_eq(cfqx_parse_listen_addr(":80", &ss, &len, &lo, err,
					    sizeof(err)), 0);
	cr_expect(lo);
	cr_assert_eq(cfqx_parse_listen_addr("localhost:1", &ss, &len, &lo,
					    err, sizeof(err)), 0);
	cr_expect(lo);
	cr_assert_eq(cfqx_parse_listen_addr("127.1.2.3:65535", &ss, &len, &lo,
					    err, sizeof(err)), 0);
	cr_expect(lo);
	cr_assert_eq(cfqx_parse_listen_addr("0.0.0.0:9477", &ss, &len, &lo,
					    err, sizeof(err)), 0);
	cr_expect(!lo);
	cr_assert_eq(cfqx_parse_listen_addr("192.168.1.2:9477", &ss, &len,
					    &lo, err, sizeof(err)), 0);
	cr_expect(!lo);
	cr_assert_eq(cfqx_parse_listen_addr("[::1]:9477", &ss, &len, &lo, err,
					    sizeof(err)), 0);
	cr_expect(lo);
	cr_expect_eq(in6->sin6_family, AF_INET6);
	cr_expect_eq(len, sizeof(*in6));
	cr_assert_eq(cfqx_parse_listen_addr("[::]:9477", &ss, &len, &lo, err,
					    sizeof(err)), 0);
	cr_expect(!lo);
	cr_assert_eq(cfqx_parse_listen_addr("[::ffff:127.0.0.1]:1", &ss, &len,
					    &lo, err, sizeof(err)), 0);
	cr_expect(lo);
	cr_expect_neq(cfqx_parse_listen_addr("::1:9477", &ss, &len, &lo, err,
					     sizeof(err)), 0);
	cr_expect_neq(cfqx_parse_listen_addr("127.0.0.1:0", &ss, &len, &lo,
					     err, sizeof(err)), 0);
	cr_expect_neq(cfqx_parse_listen_addr("127.0.0.1:65536", &ss, &len,
					     &lo, err, sizeof(err)), 0);
	cr_expect_neq(cfqx_parse_listen_addr("127.0.0.1:", &ss, &len, &lo,
					     err, sizeof(err)), 0);
	cr_expect_neq(cfqx_parse_listen_addr("example.com:80", &ss, &len, &lo,
					     err, sizeof(err)), 0);
	cr_expect_neq(cfqx_parse_listen_addr("[::1]9477", &ss, &len, &lo, err,
					     sizeof(err)), 0);
	cr_expect(strlen(err) > 0);
}
