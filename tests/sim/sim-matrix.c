// SPDX-License-Identifier: GPL-2.0
/*
 * `make sim-matrix`: writes the matrix's fio job files (matrix-gen.c) to
 * build/sim-matrix/, runs each through the simulator under cfqx and fifo
 * (matrix-run.c), prints the minimum and median of every metric and the
 * failing scenarios, writes results.tsv and a PNG plot (gnuplot), and
 * exits 1 when any scenario misses a target.  Scenarios are shared out
 * to --jobs forked workers (default 2, this machine's cores); the results
 * do not depend on how many.
 *
 * usage: sim-matrix [--out DIR] [--plot PNG] [--jobs N] [--limit N]
 *                   [--only INDEX] [--seed S]
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "matrix.h"

struct args {
	const char *out, *plot;
	int jobs, limit, only;
	sim_u64 seed;
};

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void run_one(const struct args *a, int i, struct sim_verdict *v)
{
	struct sim_scenario sc;
	char path[512];

	if (sim_scenario_make(i, a->seed, &sc)) {
		memset(v, 0, sizeof(*v));
		v->index = i;
		snprintf(v->error, sizeof(v->error), "cannot generate");
		return;
	}
	snprintf(path, sizeof(path), "%s/%s.fio", a->out, sc.name);
	if (write_file(path, sc.fio)) {
		memset(v, 0, sizeof(*v));
		v->index = i;
		snprintf(v->error, sizeof(v->error), "%s: %s", path,
			 strerror(errno));
	} else {
		sim_verdict_run(&sc, path, v);
	}
	sim_scenario_free(&sc);
}

static int worker(const struct args *a, int k, int n, int fd)
{
	struct sim_verdict v;
	int i;

	for (i = k; i < n; i += a->jobs) {
		if (a->only >= 0 && i != a->only)
			continue;
		run_one(a, i, &v);
		if (write(fd, &v, sizeof(v)) != sizeof(v))
			return 1;
	}
	return 0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* min and median of field @off over the @n verdicts. */
static void stats(const struct sim_verdict *v, int n, size_t off, double *min,
		  double *med, bool lat_ratio)
{
	double *x = calloc(n, sizeof(*x));
	int i;

	if (!x || !n) {
		*min = *med = 0;
		free(x);
		return;
	}
	for (i = 0; i < n; i++)
		x[i] = lat_ratio ? (v[i].lat_bound_ms > 0 ?
				    v[i].lat_ms / v[i].lat_bound_ms : 0) :
			*(const double *)((const char *)&v[i] + off);
	qsort(x, n, sizeof(*x), cmp_double);
	*min = lat_ratio ? x[n - 1] : x[0];	/* worst: the largest ratio */
	*med = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	free(x);
}

static int plot(const struct args *a, const char *tsv)
{
	char cmd[1024];
	FILE *g;

	snprintf(cmd, sizeof(cmd), "gnuplot 2>&1");
	g = popen(cmd, "w");
	if (!g)
		return -1;
	fprintf(g,
		"set terminal pngcairo size 1400,1000 noenhanced\n"
		"set output '%s'\n"
		"set datafile separator '\\t'\n"
		"set multiplot layout 2,2 title 'cfqx sim matrix: %s (each point a scenario, sorted; lines: targets)'\n"
		"set grid\nset key bottom right\nset xlabel 'scenarios, sorted'\n"
		"set ylabel 'max-min Jain'\nset yrange [0:1.05]\n"
		"plot '< sort -t \"\t\" -k6 -g %s | grep -v ^index' using 0:6 with points pt 7 ps 0.5 title 'cfqx', "
		"'< sort -t \"\t\" -k11 -g %s | grep -v ^index' using 0:11 with points pt 6 ps 0.5 title 'fifo', %g title 'target' lw 2\n"
		"set ylabel 'worst x = got / fair share'\nset yrange [0:*]\n"
		"plot '< sort -t \"\t\" -k7 -g %s | grep -v ^index' using 0:7 with points pt 7 ps 0.5 title 'cfqx', "
		"'< sort -t \"\t\" -k12 -g %s | grep -v ^index' using 0:12 with points pt 6 ps 0.5 title 'fifo', %g title 'target' lw 2\n"
		"set ylabel 'total, cfqx / fifo'\nset yrange [0:*]\n"
		"plot '< sort -t \"\t\" -k8 -g %s | grep -v ^index' using 0:8 with points pt 7 ps 0.5 title 'cfqx / fifo', %g title 'target' lw 2\n"
		"set ylabel 'sync read max latency / bound'\nset yrange [0:*]\n"
		"plot '< sort -t \"\t\" -k14 -g %s | grep -v ^index' using 0:14 with points pt 7 ps 0.5 title 'cfqx', 1 title 'bound' lw 2\n"
		"unset multiplot\n",
		a->plot, tsv, tsv, tsv, SIM_T_MAXMIN, tsv, tsv, SIM_T_WORST,
		tsv, SIM_T_TOTAL, tsv);
	return pclose(g) ? -1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sim-matrix [--out DIR] [--plot PNG] [--jobs N] [--limit N] [--only INDEX] [--seed S]\n");
}

int main(int argc, char **argv)
{
	struct args a = { "build/sim-matrix", "build/sim-matrix.png", 2,
			  SIM_MATRIX_N, -1, SIM_MATRIX_SEED };
	struct sim_verdict *v;
	struct pollfd *pf;
	struct timespec t0, t1;
	char tsv[600];
	int i, k, n, got = 0, fails = 0, errors = 0, rc = 0, open_fds;
	pid_t *pids;
	FILE *f;

	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!val) {
			usage(stderr);
			return 2;
		}
		if (!strcmp(o, "--out"))
			a.out = val;
		else if (!strcmp(o, "--plot"))
			a.plot = val;
		else if (!strcmp(o, "--jobs"))
			a.jobs = atoi(val);
		else if (!strcmp(o, "--limit"))
			a.limit = atoi(val);
		else if (!strcmp(o, "--only"))
			a.only = atoi(val);
		else if (!strcmp(o, "--seed"))
			a.seed = strtoull(val, NULL, 10);
		else {
			fprintf(stderr, "sim-matrix: unknown option '%s'\n", o);
			return 2;
		}
		i++;
	}
	if (a.jobs < 1 || a.jobs > 64 || a.limit < 1 || a.limit > SIM_MATRIX_N ||
	    a.only >= SIM_MATRIX_N) {
		fprintf(stderr, "sim-matrix: bad --jobs, --limit or --only\n");
		return 2;
	}
	n = a.limit;
	if (mkdir(a.out, 0755) && errno != EEXIST) {
		fprintf(stderr, "sim-matrix: %s: %s\n", a.out, strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	v = calloc(n, sizeof(*v));
	pf = calloc(a.jobs, sizeof(*pf));
	pids = calloc(a.jobs, sizeof(*pids));
	if (!v || !pf || !pids)
		return 1;
	fflush(stdout);
	for (k = 0; k < a.jobs; k++) {
		int fds[2];

		if (pipe(fds))
			return 1;
		pids[k] = fork();
		if (pids[k] < 0)
			return 1;
		if (!pids[k]) {
			close(fds[0]);
			_exit(worker(&a, k, n, fds[1]));
		}
		close(fds[1]);
		pf[k].fd = fds[0];
		pf[k].events = POLLIN;
	}
	for (open_fds = a.jobs; open_fds; ) {
		if (poll(pf, a.jobs, -1) < 0 && errno != EINTR)
			return 1;
		for (k = 0; k < a.jobs; k++) {
			struct sim_verdict r;
			ssize_t m;

			if (pf[k].fd < 0 || !pf[k].revents)
				continue;
			m = read(pf[k].fd, &r, sizeof(r));
			if (m == (ssize_t)sizeof(r) && r.index >= 0 && r.index < n) {
				v[got++] = r;
				continue;
			}
			close(pf[k].fd);
			pf[k].fd = -1;
			open_fds--;
		}
	}
	for (k = 0; k < a.jobs; k++) {
		int st;

		if (waitpid(pids[k], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			rc = 1;
	}
	/* in scenario order, whatever the workers' interleaving */
	for (i = 1; i < got; i++) {
		struct sim_verdict x = v[i];

		for (k = i; k > 0 && v[k - 1].index > x.index; k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	snprintf(tsv, sizeof(tsv), "%s/results.tsv", a.out);
	f = fopen(tsv, "w");
	if (!f)
		return 1;
	fprintf(f, "index\tname\tdevice\tpolicy\tgroups\tmaxmin_jain\tworst_share\ttotal_ratio\tcfqx_mib_s\tfifo_mib_s\tfifo_maxmin_jain\tfifo_worst_share\tsync_lat_ms\tlat_ratio\tlat_bound_ms\tstalls\tpass\tneed\n");
	for (i = 0; i < got; i++) {
		struct sim_scenario sc;

		if (sim_scenario_make(v[i].index, a.seed, &sc))
			return 1;
		if (v[i].error[0])
			errors++;
		else if (!v[i].pass)
			fails++;
		fprintf(f, "%d\t%s\t%s\t%s\t%d\t%.4f\t%.4f\t%.4f\t%.2f\t%.2f\t%.4f\t%.4f\t%.2f\t%.4f\t%.2f\t%llu\t%d\t%.3f\n",
			v[i].index, sc.name, sc.devspec,
			cfqx_group_by_names[sc.group_by], sc.ngroups, v[i].maxmin,
			v[i].worst, v[i].total_ratio, v[i].cfqx_mib_s,
			v[i].fifo_mib_s, v[i].fifo_maxmin, v[i].fifo_worst,
			v[i].lat_ms, v[i].lat_bound_ms > 0 ?
			v[i].lat_ms / v[i].lat_bound_ms : 0, v[i].lat_bound_ms,
			(unsigned long long)v[i].stalls, v[i].pass, v[i].need);
		sim_scenario_free(&sc);
	}
	if (fclose(f))
		return 1;

	printf("sim-matrix: %d scenarios (seed %llu) in %.0f s, %d worker%s; job files and results.tsv in %s\n",
	       got, (unsigned long long)a.seed,
	       (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, a.jobs,
	       a.jobs > 1 ? "s" : "", a.out);
	{
		static const struct {
			const char *name, *target;
			size_t off;
			bool lat;
		} m[] = {
			{ "cfqx max-min Jain", ">= 0.95", offsetof(struct sim_verdict, maxmin), false },
			{ "cfqx worst share", ">= 0.80", offsetof(struct sim_verdict, worst), false },
			{ "cfqx total / fifo", ">= 0.95", offsetof(struct sim_verdict, total_ratio), false },
			{ "sync reader max / bound", "<= 1", 0, true },
			{ "fifo max-min Jain", "(reference)", offsetof(struct sim_verdict, fifo_maxmin), false },
			{ "fifo worst share", "(reference)", offsetof(struct sim_verdict, fifo_worst), false },
		};
		size_t j;
		double mn, md;

		printf("  %-24s %8s %8s   %s\n", "metric", "worst", "median", "target");
		for (j = 0; j < sizeof(m) / sizeof(m[0]); j++) {
			stats(v, got, m[j].off, &mn, &md, m[j].lat);
			printf("  %-24s %8.3f %8.3f   %s\n", m[j].name, mn, md,
			       m[j].target);
		}
	}
	printf("  %d of %d scenarios meet every target; %d miss one, %d failed to run\n",
	       got - fails - errors, got, fails, errors);
	for (i = 0, k = 0; i < got; i++)
		k += v[i].need > 1;
	printf("  %d of the misses cannot be met by any scheduler: the worst-share and total targets together need more channel time than an ssd's channels have, or more time than a disk has (need > 1)\n",
	       k);
	for (i = 0; i < got; i++) {
		struct sim_scenario sc;

		if (v[i].pass)
			continue;
		if (sim_scenario_make(v[i].index, a.seed, &sc))
			return 1;
		if (v[i].error[0])
			printf("  ERROR %s: %s\n", sc.name, v[i].error);
		else
			printf("  FAIL %-24s maxmin %.3f%s worst %.3f%s total %.3f%s lat %.0f/%.0f ms%s%s%s  (%s)\n",
			       sc.name, v[i].maxmin,
			       v[i].maxmin < SIM_T_MAXMIN ? "*" : "",
			       v[i].worst, v[i].worst < SIM_T_WORST ? "*" : "",
			       v[i].total_ratio,
			       v[i].total_ratio < SIM_T_TOTAL ? "*" : "",
			       v[i].lat_ms, v[i].lat_bound_ms,
			       v[i].lat_ms > v[i].lat_bound_ms ? "*" : "",
			       v[i].stalls ? " STALL" : "",
			       v[i].need > 1 ? " infeasible" : "", sc.devspec);
		sim_scenario_free(&sc);
	}
	if (got != (a.only >= 0 ? 1 : n)) {
		printf("sim-matrix: only %d of %d results came back\n", got,
		       a.only >= 0 ? 1 : n);
		rc = 1;
	}
	if (plot(&a, tsv)) {
		printf("sim-matrix: gnuplot failed: no plot (scripts/deps.sh installs gnuplot-nox)\n");
		rc = 1;
	} else {
		printf("sim-matrix: plot %s\n", a.plot);
	}
	free(v);
	free(pf);
	free(pids);
	return rc || fails || errors ? 1 : 0;
}
