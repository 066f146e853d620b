// SPDX-License-Identifier: GPL-2.0
/*
 * `cfqx fairness`: the fairness figures of user/fair.c for numbers
 * measured elsewhere (the VM benchmarks: each group's solo and mixed
 * bandwidth from fio), so the VM tests and the simulator share one
 * definition of demand, fair share, x, max-min Jain and worst share.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cfqx.h"

#define MAX_GROUPS 256

static void fairness_usage(FILE *f)
{
	fprintf(f,
		"usage: cfqx fairness --demand \"D1 D2 ...\" --got \"G1 G2 ...\"\n"
		"                     [--capacity C] [--solo-time \"T1 T2 ...\"] [--names \"N1 N2 ...\"] [--json]\n"
		"  Max-min fair shares (DESIGN.md \"Measuring fairness\"; the same code as\n"
		"  cfqx sim).  Per group, in order: DEMAND, its bandwidth alone; GOT, in the\n"
		"  mix (one unit for all, e.g. bytes/s).  The demands are water-filled\n"
		"  within C (default: the sum of GOT); x = GOT / fair.\n"
		"  --solo-time: device-time shares (a rotational disk): Ti is the fraction\n"
		"  of device time group i used alone (0..1); the fractions are water-filled\n"
		"  within C (default 1.0) and fair = DEMAND * fair time / Ti.\n"
		"  Prints one line \"MAXMIN_JAIN WORST_SHARE JAIN\" (max-min Jain over x,\n"
		"  the smallest x, raw Jain over GOT); --json: every group's figures.\n");
}

static int parse_num(const char *s, char **end, double *out)
{
	if (*s == '-' || *s == '+')
		return -1;
	errno = 0;
	*out = strtod(s, end);
	if (errno || *end == s || !isfinite(*out) || *out < 0)
		return -1;
	return 0;
}

/* "1 2.5 3e6" (spaces or commas) -> @v; count, or -1. */
static int parse_list(const char *s, double *v)
{
	int n = 0;
	char *end;

	for (;;) {
		while (*s == ' ' || *s == ',' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == MAX_GROUPS || parse_num(s, &end, &v[n]))
			return -1;
		if (*end && *end != ' ' && *end != ',' && *end != '\t')
			return -1;
		n++;
		s = end;
	}
}

/* Names, space separated, into @names (each < 64). */
static int parse_names(const char *s, char names[][64])
{
	int n = 0;
	size_t len;

	for (;;) {
		while (*s == ' ')
			s++;
		if (!*s)
			return n;
		len = strcspn(s, " ");
		if (n == MAX_GROUPS || len >= 64)
			return -1;
		memcpy(names[n], s, len);
		names[n][len] = 0;
		n++;
		s += len;
	}
}

int cfqx_cmd_fairness(int argc, char **argv)
{
	static char names[MAX_GROUPS][64];
	static double dem[MAX_GROUPS], st[MAX_GROUPS], got[MAX_GROUPS];
	static double fair[MAX_GROUPS], share[MAX_GROUPS];
	double cap = 0;
	struct cfqx_fairness f;
	bool json = false;
	int i, nd = -1, ng = -1, nt = -1, nn = -1;
	char *end;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fairness_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--json")) {
			json = true;
			continue;
		} else if (!v) {
			bad = 1;
		} else if (!strcmp(a, "--demand")) {
			bad = (nd = parse_list(v, dem)) < 0;
		} else if (!strcmp(a, "--got")) {
			bad = (ng = parse_list(v, got)) < 0;
		} else if (!strcmp(a, "--solo-time")) {
			bad = (nt = parse_list(v, st)) < 0;
			for (int k = 0; k < nt; k++)
				bad |= st[k] > 1.0;
		} else if (!strcmp(a, "--names")) {
			bad = (nn = parse_names(v, names)) < 0;
		} else if (!strcmp(a, "--capacity")) {
			bad = parse_num(v, &end, &cap) || *end || cap <= 0;
		} else {
			cfqx_err("fairness: unknown option '%s' (cfqx fairness --help)",
				 a);
			return CFQX_EXIT_USAGE;
		}
		if (bad) {
			cfqx_err("fairness: bad %s '%s' (%s)", a, v ? v : "",
				 !strcmp(a, "--capacity") ? "a number > 0" :
				 !strcmp(a, "--names") ? "names < 64 characters" :
				 !strcmp(a, "--solo-time") ? "fractions 0..1" :
				 "numbers >= 0, space separated");
			return CFQX_EXIT_USAGE;
		}
		i++;
	}
	if (nd <= 0 || ng != nd || (nt >= 0 && nt != nd) ||
	    (nn >= 0 && nn != nd)) {
		cfqx_err("fairness: --demand and --got need one number per group, the same count (%d, %d)%s",
			 nd < 0 ? 0 : nd, ng < 0 ? 0 : ng,
			 nt >= 0 || nn >= 0 ? ", as --solo-time and --names" : "");
		return CFQX_EXIT_USAGE;
	}
	for (i = nn < 0 ? 0 : nn; i < nd; i++)
		snprintf(names[i], sizeof(names[i]), "g%d", i + 1);
	cfqx_fairness_eval(nd, dem, nt >= 0 ? st : NULL, got, cap, fair, share,
			   &f);
	if (!json) {
		printf("%.3f %.3f %.3f\n", f.maxmin_jain, f.worst_share, f.jain);
		return fflush(stdout) ? CFQX_EXIT_FAIL : 0;
	}
	printf("{\"unit\":\"%s\",\"capacity\":%.6g,\"maxmin_jain\":%.6f,"
	       "\"worst_share\":%.6f,\"jain\":%.6f,\"groups\":[",
	       nt >= 0 ? "time" : "bytes", f.capacity, f.maxmin_jain,
	       f.worst_share, f.jain);
	for (i = 0; i < nd; i++) {
		printf("%s{\"name\":", i ? "," : "");
		cfqx_json_str(stdout, names[i]);
		printf(",\"demand\":%.6g,\"got\":%.6g,\"fair\":%.6g,\"share\":%.6f}",
		       dem[i], got[i], fair[i], share[i]);
	}
	printf("]}\n");
	return fflush(stdout) ? CFQX_EXIT_FAIL : 0;
}
