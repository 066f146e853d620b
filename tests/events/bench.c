// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench-events (`make bench-events`, as root; run it under
 * `flock /tmp/cfqx-system.lock` on a shared machine): how fast the event
 * pipeline consumes the BPF ring buffer, against libbpf's own reader.
 *
 * drain rows: the generator (bpf/cfqx_storm.bpf.c) first fills a 64 MiB
 * ring with nobody reading; then only the consumption is timed: the ring
 * is mapped (ring_buffer__new / cfqx_pipe_new) before the clock starts.
 *   ceiling   ring_buffer__consume() with an empty callback
 *   discard   ring -> kfifo -> notifier that validates and drops
 *   JSON      ring -> kfifo -> JSON lines written to /dev/null
 * Rounds alternate the three (rotating order); medians; ratios to the
 * ceiling.  The pipeline rows include starting and joining its two
 * threads, measured alone on an empty ring and printed.
 *
 * live row: the full pipeline (JSON to /dev/null) runs while a paced
 * producer writes at a fixed rate into a 4 MiB ring for a fixed time; the
 * row is the highest rate at which nothing was dropped (geometric search,
 * then bisection), next to what the producer alone manages.
 *
 * Every run checks the accounting (tried == written + rb_drops,
 * read == written, every record valid and notified, lines == records);
 * a mismatch is an unexplained drop and fails the benchmark.  The last
 * line is `targets: met` or `targets: not met (...)`: discard >= 80% and
 * JSON >= 50% of the ceiling.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pipeline.h"
#include "cfqx_storm.skel.h"

#define DRAIN_RING	(64u << 20)
#define LIVE_RING	(4u << 20)
#define REC_BYTES	(8 + sizeof(struct cfqx_event))
#define TARGET_DISCARD	0.80
#define TARGET_JSON	0.50

enum row { CEILING, DISCARD, JSON, NROWS };
static const char *const row_names[NROWS] = {
	"ring_buffer__consume, empty callback",
	"ring -> kfifo -> discard",
	"ring -> kfifo -> JSON (/dev/null)",
};

static struct cfqx_storm_bpf *drain_skel, *live_skel;
static int devnull;
static int unexplained;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void loadavg(char *buf, size_t n)
{
	FILE *f = fopen("/proc/loadavg", "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)n, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

static void reset(struct cfqx_storm_bpf *s)
{
	s->bss->tried = 0;
	s->bss->written = 0;
	s->bss->rb_drops = 0;
}

/* The generator fires on our getppid(): per_trigger records each. */
static void trigger(struct cfqx_storm_bpf *s, unsigned int n)
{
	s->bss->per_trigger = n;
	syscall(SYS_getppid);
}

static void fill(unsigned long long tries)
{
	while (drain_skel->bss->tried < tries) {
		unsigned long long left = tries - drain_skel->bss->tried;

		trigger(drain_skel, left < 4096 ? (unsigned int)left : 4096);
	}
}

static unsigned long long consumed;

static int empty_cb(void *ctx, void *data, size_t size)
{
	(void)ctx; (void)data; (void)size;
	consumed++;
	return 0;
}

static void check(const char *what, struct cfqx_storm_bpf *s,
		  unsigned long long read, unsigned long long valid,
		  unsigned long long notified, unsigned long long lines)
{
	unsigned long long w = s->bss->written;

	if (s->bss->tried != w + s->bss->rb_drops || read != w ||
	    valid != w || notified != w ||
	    (lines != (unsigned long long)-1 && lines != w)) {
		fprintf(stderr, "bench-events: %s: UNEXPLAINED: tried %llu written %llu rb_drops %llu read %llu valid %llu notified %llu lines %llu\n",
			what, (unsigned long long)s->bss->tried, w,
			(unsigned long long)s->bss->rb_drops, read, valid,
			notified, lines);
		unexplained++;
	}
}

static struct cfqx_pipe_opts pipe_opts(int ring_fd, enum row row, int once)
{
	struct cfqx_pipe_opts o = {
		.ring_fd = ring_fd, .fifo_bytes = 1u << 20,
		.json_fd = row == JSON ? devnull : -1, .text_fd = -1,
		.discard = row == DISCARD, .once = once, .quiet = 1,
	};

	return o;
}

/* Runs a --once pipeline over what the ring holds; returns seconds. */
static double drain_pipeline(enum row row, struct cfqx_pipe_counters *fin)
{
	struct cfqx_pipe_opts o = pipe_opts(bpf_map__fd(drain_skel->maps.events),
					    row, 1);
	struct pollfd pfd = { .events = POLLIN };
	struct cfqx_pipe *p;
	char err[256];
	double t0, t1;

	p = cfqx_pipe_new(&o, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "bench-events: %s\n", err);
		exit(1);
	}
	pfd.fd = cfqx_pipe_done_fd(p);
	t0 = now_s();
	if (cfqx_pipe_run(p, err, sizeof(err))) {
		fprintf(stderr, "bench-events: %s\n", err);
		exit(1);
	}
	while (!cfqx_pipe_done(p))
		poll(&pfd, 1, 1000);
	t1 = now_s();
	cfqx_pipe_join(p, fin);
	return t1 - t0;
}

/* One drain round of one row; returns events/s. */
static double drain_round(enum row row, unsigned long long n)
{
	unsigned long long w;
	double secs;

	reset(drain_skel);
	fill(n);
	if (drain_skel->bss->rb_drops) {
		fprintf(stderr, "bench-events: the ring was too small for the fill\n");
		exit(1);
	}
	w = drain_skel->bss->written;
	if (row == CEILING) {
		struct ring_buffer *rb = ring_buffer__new(
			bpf_map__fd(drain_skel->maps.events), empty_cb, NULL, NULL);
		double t0;

		if (!rb) {
			fprintf(stderr, "bench-events: ring_buffer__new failed\n");
			exit(1);
		}
		consumed = 0;
		t0 = now_s();
		ring_buffer__consume(rb);
		secs = now_s() - t0;
		ring_buffer__free(rb);
		check(row_names[row], drain_skel, consumed, consumed, consumed,
		      (unsigned long long)-1);
	} else {
		struct cfqx_pipe_counters f;

		secs = drain_pipeline(row, &f);
		check(row_names[row], drain_skel, f.read, f.valid, f.notified,
		      row == JSON ? f.json_lines : (unsigned long long)-1);
	}
	return (double)w / secs;
}

/*
 * Live: the pipeline runs while we write `rate` records/s for `secs`
 * (bursts every millisecond); 1 if nothing was dropped.  Fails the run on
 * any accounting mismatch.
 */
static int live_step(double rate, double secs)
{
	struct cfqx_pipe_opts o = pipe_opts(bpf_map__fd(live_skel->maps.events),
					    JSON, 0);
	const struct cfqx_pipe_counters *c;
	struct cfqx_pipe_counters f;
	struct cfqx_pipe *p;
	struct timespec tick;
	char err[256];
	double t0, t;

	reset(live_skel);
	p = cfqx_pipe_start(&o, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "bench-events: %s\n", err);
		exit(1);
	}
	c = cfqx_pipe_counters(p);
	clock_gettime(CLOCK_MONOTONIC, &tick);
	t0 = now_s();
	while ((t = now_s() - t0) < secs) {
		unsigned long long want = (unsigned long long)(rate * t);

		while (live_skel->bss->tried < want) {
			unsigned long long left = want - live_skel->bss->tried;

			trigger(live_skel, left < 256 ? (unsigned int)left : 256);
		}
		tick.tv_nsec += 1000000;
		if (tick.tv_nsec >= 1000000000) {
			tick.tv_nsec -= 1000000000;
			tick.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL);
	}
	/* everything written must come out (bounded: 10 s) */
	t0 = now_s();
	while (atomic_load(&c->notified) + atomic_load(&c->dropped) <
	       live_skel->bss->written && now_s() - t0 < 10)
		usleep(1000);
	cfqx_pipe_join(p, &f);
	check("live", live_skel, f.read, f.valid, f.notified, f.json_lines);
	return live_skel->bss->rb_drops == 0;
}

/* What the paced producer alone manages (nobody reading, no pacing). */
static double producer_max(void)
{
	unsigned long long n = (LIVE_RING / REC_BYTES) * 9 / 10;
	double t0, secs;
	struct cfqx_pipe_counters f;
	struct cfqx_pipe_opts o = pipe_opts(bpf_map__fd(live_skel->maps.events),
					    DISCARD, 1);
	struct cfqx_pipe *p;
	char err[256];

	reset(live_skel);
	t0 = now_s();
	while (live_skel->bss->tried < n) {
		unsigned long long left = n - live_skel->bss->tried;

		trigger(live_skel, left < 256 ? (unsigned int)left : 256);
	}
	secs = now_s() - t0;
	/* empty the ring again */
	p = cfqx_pipe_start(&o, err, sizeof(err));
	if (p) {
		while (!cfqx_pipe_done(p))
			usleep(1000);
		cfqx_pipe_join(p, &f);
	}
	return (double)live_skel->bss->written / secs;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct cfqx_storm_bpf *load(unsigned int ring_bytes)
{
	struct cfqx_storm_bpf *s = cfqx_storm_bpf__open();

	if (!s || bpf_map__set_max_entries(s->maps.events, ring_bytes) ||
	    cfqx_storm_bpf__load(s) || cfqx_storm_bpf__attach(s)) {
		fprintf(stderr, "bench-events: cannot load the storm generator\n");
		exit(1);
	}
	s->data->groups = 64;
	return s;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "live-seconds", required_argument, NULL, 's' },
		{ "no-live", no_argument, NULL, 'L' },
		{ 0 }
	};
	int rounds = 5, c, live = 1;
	double live_secs = 0.5, v[NROWS][100], med[NROWS], startup = 0;
	unsigned long long n = (DRAIN_RING / REC_BYTES) * 9 / 10;
	char la0[128], la1[128], why[256] = "";

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': rounds = atoi(optarg); break;
		case 's': live_secs = atof(optarg); break;
		case 'L': live = 0; break;
		default:
			fprintf(stderr, "usage: bench-events [--rounds N] [--live-seconds S] [--no-live]\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > 100 || live_secs <= 0 || live_secs > 60) {
		fprintf(stderr, "bench-events: --rounds 1..100, --live-seconds 0..60\n");
		return 2;
	}
	if (geteuid()) {
		fprintf(stderr, "bench-events: needs root (BPF)\n");
		return 1;
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	drain_skel = load(DRAIN_RING);
	live_skel = load(LIVE_RING);
	loadavg(la0, sizeof(la0));
	printf("bench-events: %d rounds, rotating order; %u MiB ring filled with %llu %zu-byte records, then drained; 1 MiB kfifo\n",
	       rounds, DRAIN_RING >> 20, n, sizeof(struct cfqx_event));
	printf("load average at start: %s\n", la0);

	drain_skel->bss->target_tgid = (unsigned int)getpid();
	for (int i = 0; i < 5; i++) {	/* thread start + join, empty ring */
		struct cfqx_pipe_counters f;

		reset(drain_skel);
		startup += drain_pipeline(DISCARD, &f) / 5;
	}
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < NROWS; k++) {
			enum row row = (enum row)((r + k) % NROWS);

			v[row][r] = drain_round(row, n);
		}
	printf("\n%-6s %-38s %14s %8s\n", "mode", "consumer", "events/s", "ratio");
	for (int k = 0; k < NROWS; k++) {
		med[k] = median(v[k], rounds);
		printf("%-6s %-38s %14.0f %8.2f\n", "drain", row_names[k], med[k],
		       med[k] / med[CEILING]);
	}
	printf("(pipeline rows include %.0f us to start and join the threads)\n",
	       startup * 1e6);
	drain_skel->bss->target_tgid = 0;

	if (live) {
		double pmax, good = 0, rate = 250000;

		live_skel->bss->target_tgid = (unsigned int)getpid();
		pmax = producer_max();
		/* up by 1.5x until a drop or the producer's own limit, then
		 * bisect four times between the last good and the first bad */
		if (rate > pmax)
			rate = pmax;
		while (live_step(rate, live_secs)) {
			good = rate;
			if (rate >= pmax)
				break;
			rate = rate * 1.5 < pmax ? rate * 1.5 : pmax;
		}
		for (int i = 0; i < 4 && good < rate; i++) {
			double mid = (good + rate) / 2;

			if (live_step(mid, live_secs))
				good = mid;
			else
				rate = mid;
		}
		printf("%-6s %-38s %14.0f %8s\n", "live",
		       "ring -> kfifo -> JSON, paced, 0 drops", good, "-");
		printf("(%.1f s per step, 4 MiB ring; the producer alone makes %.0f/s%s)\n",
		       live_secs, pmax,
		       good >= pmax ? ": the pipeline kept up with all of it" : "");
		live_skel->bss->target_tgid = 0;
	}
	loadavg(la1, sizeof(la1));
	printf("load average at end: %s\n", la1);
	printf("unexplained drops: %d\n", unexplained);
	if (med[DISCARD] < TARGET_DISCARD * med[CEILING])
		snprintf(why, sizeof(why), "discard %.2f < %.2f", med[DISCARD] / med[CEILING],
			 TARGET_DISCARD);
	if (med[JSON] < TARGET_JSON * med[CEILING])
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%sJSON %.2f < %.2f",
			 why[0] ? ", " : "", med[JSON] / med[CEILING], TARGET_JSON);
	if (unexplained)
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "%sunexplained drops", why[0] ? ", " : "");
	if (why[0])
		printf("targets: not met (%s)\n", why);
	else
		printf("targets: met\n");
	cfqx_storm_bpf__destroy(drain_skel);
	cfqx_storm_bpf__destroy(live_skel);
	return why[0] ? 1 : 0;
}
