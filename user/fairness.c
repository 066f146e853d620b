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
		"usage: cfqx fairness [--capacity C] [--json] [NAME=]DEMAND:GOT...\n"
		"       cfqx fairness --time [--capacity C] [--json] [NAME=]SOLO_TIME:DEMAND:GOT...\n"
		"  Max-min fair shares (DESIGN.md \"Measuring fairness\", the same code as\n"
		"  cfqx sim).  DEMAND: a group's bandwidth alone; GOT: in the mix (any one\n"
		"  unit, e.g. bytes/s).  Bytes: demands are water-filled within C (default:\n"
		"  the sum of GOT).  --time: SOLO_TIME is the fraction of device time the\n"
		"  group used alone (0..1); the fractions are water-filled within C\n"
		"  (default 1.0) and fair = DEMAND * fair time / SOLO_TIME.\n"
		"  Prints per group fair and x = GOT / fair; jain (raw, over GOT),\n"
		"  maxmin_jain (over x), worst_share (smallest x).\n");
}

static int parse_num(const char *s, const char **end, double *out)
{
	char *e;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*out = strtod(s, &e);
	if (errno || e == s || !isfinite(*out) || *out < 0)
		return -1;
	*end = e;
	return 0;
}

/* "[NAME=]A:B[:C]" with @nv numbers. */
static int parse_group(const char *a, int nv, char *name, size_t len,
		       double *v)
{
	const char *eq = strchr(a, '='), *p = a;
	int i;

	name[0] = 0;
	if (eq) {
		if (eq == a || (size_t)(eq - a) >= len)
			return -1;
		memcpy(name, a, eq - a);
		name[eq - a] = 0;
		p = eq + 1;
	}
	for (i = 0; i < nv; i++) {
		if (parse_num(p, &p, &v[i]))
			return -1;
		if (*p != (i + 1 < nv ? ':' : 0))
			return -1;
		p++;
	}
	return 0;
}

int cfqx_cmd_fairness(int argc, char **argv)
{
	static char names[MAX_GROUPS][64];
	double dem[MAX_GROUPS], st[MAX_GROUPS], got[MAX_GROUPS];
	double fair[MAX_GROUPS], share[MAX_GROUPS], cap = 0, v[3];
	struct cfqx_fairness f;
	bool json = false, time_unit = false;
	int i, n = 0, nv;
	const char *end;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fairness_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--time")) {
			time_unit = true;
		}
	nv = time_unit ? 3 : 2;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--time")) {
			continue;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--capacity")) {
			if (i + 1 >= argc || parse_num(argv[i + 1], &end, &cap) ||
			    *end || cap <= 0) {
				cfqx_err("fairness: bad --capacity '%s' (a number > 0)",
					 i + 1 < argc ? argv[i + 1] : "");
				return CFQX_EXIT_USAGE;
			}
			i++;
		} else if (a[0] == '-' && a[1] == '-') {
			cfqx_err("fairness: unknown option '%s' (cfqx fairness --help)",
				 a);
			return CFQX_EXIT_USAGE;
		} else {
			if (n == MAX_GROUPS) {
				cfqx_err("fairness: more than %d groups", MAX_GROUPS);
				return CFQX_EXIT_USAGE;
			}
			if (parse_group(a, nv, names[n], sizeof(names[n]), v) ||
			    (time_unit && v[0] > 1.0)) {
				cfqx_err("fairness: bad group '%s' (expected [NAME=]%s, numbers >= 0%s)",
					 a, time_unit ? "SOLO_TIME:DEMAND:GOT" :
					 "DEMAND:GOT",
					 time_unit ? ", SOLO_TIME <= 1" : "");
				return CFQX_EXIT_USAGE;
			}
			if (!names[n][0])
				snprintf(names[n], sizeof(names[n]), "g%d", n + 1);
			st[n] = time_unit ? v[0] : 0;
			dem[n] = v[nv - 2];
			got[n] = v[nv - 1];
			n++;
		}
	}
	if (!n) {
		cfqx_err("fairness: no groups (cfqx fairness --help)");
		return CFQX_EXIT_USAGE;
	}
	cfqx_fairness_eval(n, dem, time_unit ? st : NULL, got, cap, fair, share,
			   &f);
	if (json) {
		printf("{\"unit\":\"%s\",\"capacity\":%.6g,\"jain\":%.6f,"
		       "\"maxmin_jain\":%.6f,\"worst_share\":%.6f,\"groups\":[",
		       time_unit ? "time" : "bytes", f.capacity, f.jain,
		       f.maxmin_jain, f.worst_share);
		for (i = 0; i < n; i++) {
			printf("%s{\"name\":", i ? "," : "");
			cfqx_json_str(stdout, names[i]);
			printf(",\"demand\":%.6g,\"got\":%.6g,\"fair\":%.6g,"
			       "\"share\":%.6f}", dem[i], got[i], fair[i],
			       share[i]);
		}
		printf("]}\n");
	} else {
		printf("%-16s %14s %14s %14s %7s\n", "GROUP", "DEMAND", "GOT",
		       "FAIR", "X");
		for (i = 0; i < n; i++)
			printf("%-16s %14.6g %14.6g %14.6g %7.3f\n", names[i],
			       dem[i], got[i], fair[i], share[i]);
		printf("jain %.3f  maxmin_jain %.3f  worst_share %.3f  (capacity %.6g)\n",
		       f.jain, f.maxmin_jain, f.worst_share, f.capacity);
	}
	return fflush(stdout) ? CFQX_EXIT_FAIL : 0;
}
