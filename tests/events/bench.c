// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench-events (`make bench-events`): events per second from the BPF ring
 * buffer through the kfifo to the JSON-lines sink (written to /dev/null),
 * next to libbpf's ring_buffer__poll/consume with an empty callback (the
 * ceiling), in one run, alternating A/B, medians, ratios.  Two scenarios:
 *   drain  the generator (bpf/cfqx_storm.bpf.c) first fills a 64 MiB ring
 *          with no reader; then the consumer is timed emptying it (pure
 *          consumer capacity; no drops possible);
 *   live   a producer thread generates a fixed number of records while
 *          the consumer runs; time until everything written was consumed;
 *          reserve failures are the (counted) drops.
 * Every round checks the accounting: tried == written + rb_drops,
 * consumed == written, json_lines == written; any mismatch is an
 * unexplained drop and fails the benchmark.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
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

#define RING_BYTES	(64u << 20)
#define REC_BYTES	(8 + sizeof(struct cfqx_event))

static struct cfqx_storm_bpf *skel;
static int ring_fd;
static int devnull;
static int unexplained;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void reset_counters(void)
{
	skel->bss->tried = 0;
	skel->bss->written = 0;
	skel->bss->rb_drops = 0;
}

/* Generate `tries` records, per_trigger at a time. */
static void produce(unsigned long long tries, unsigned int per)
{
	while (skel->bss->tried < tries) {
		unsigned long long left = tries - skel->bss->tried;

		skel->bss->per_trigger = left < per ? (unsigned int)left : per;
		syscall(SYS_getppid);
	}
}

static unsigned long long consumed;

static int empty_cb(void *ctx, void *data, size_t size)
{
	(void)ctx; (void)data; (void)size;
	consumed++;
	return 0;
}

struct producer_arg {
	unsigned long long tries;
	atomic_int done;
};

static void *producer_main(void *arg)
{
	struct producer_arg *pa = arg;

	produce(pa->tries, 64);
	atomic_store(&pa->done, 1);
	return NULL;
}

static void account(const char *what, unsigned long long got,
		    unsigned long long json)
{
	unsigned long long w = skel->bss->written;

	if (skel->bss->tried != w + skel->bss->rb_drops || got != w ||
	    (json != (unsigned long long)-1 && json != w)) {
		fprintf(stderr, "bench-events: %s: UNEXPLAINED: tried %llu written %llu rb_drops %llu consumed %llu json %llu\n",
			what, (unsigned long long)skel->bss->tried, w,
			(unsigned long long)skel->bss->rb_drops, got, json);
		unexplained++;
	}
}

/* One round; returns events/s.  pipeline: 0 = empty callback. */
static double round_once(int pipeline, int live, unsigned long long n,
			 double *drop_pct)
{
	struct producer_arg pa = { .tries = n };
	pthread_t prod;
	double t0, t1;
	char err[256];

	reset_counters();
	if (!live) {
		produce(n, 4096);
		if (skel->bss->rb_drops) {
			fprintf(stderr, "bench-events: ring too small for the fill\n");
			exit(1);
		}
	}
	t0 = now_s();
	if (live)
		pthread_create(&prod, NULL, producer_main, &pa);
	if (!pipeline) {
		struct ring_buffer *rb = ring_buffer__new(ring_fd, empty_cb, NULL, NULL);

		consumed = 0;
		if (!live) {
			ring_buffer__consume(rb);
		} else {
			while (!atomic_load(&pa.done) || consumed < skel->bss->written)
				ring_buffer__poll(rb, 10);
		}
		t1 = now_s();
		ring_buffer__free(rb);
		if (live)
			pthread_join(prod, NULL);
		account("empty callback", consumed, (unsigned long long)-1);
	} else {
		struct cfqx_pipe_opts o = {
			.ring_fd = ring_fd, .fifo_bytes = 1u << 20,
			.json_fd = devnull, .text_fd = -1, .once = !live,
		};
		struct cfqx_pipe_counters fin;
		struct cfqx_pipe *p = cfqx_pipe_start(&o, err, sizeof(err));

		if (!p) {
			fprintf(stderr, "bench-events: %s\n", err);
			exit(1);
		}
		if (live) {
			while (!atomic_load(&pa.done) ||
			       atomic_load(&cfqx_pipe_counters(p)->json_lines) <
			       skel->bss->written)
				usleep(200);
		} else {
			while (!cfqx_pipe_done(p))
				usleep(100);
		}
		t1 = now_s();
		cfqx_pipe_join(p, &fin);
		if (live)
			pthread_join(prod, NULL);
		account("pipeline", fin.read, fin.json_lines);
		if (fin.kfifo_full || fin.malformed || fin.unknown_kind) {
			fprintf(stderr, "bench-events: pipeline dropped records\n");
			unexplained++;
		}
	}
	*drop_pct = 100.0 * (double)skel->bss->rb_drops /
		    (double)(skel->bss->tried ? skel->bss->tried : 1);
	return (double)skel->bss->written / (t1 - t0);
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

int main(int argc, char **argv)
{
	int rounds = 5, c;
	unsigned long long drain_n = (RING_BYTES / REC_BYTES) * 9 / 10;
	unsigned long long live_n = 2000000;

	while ((c = getopt(argc, argv, "r:-:")) != -1) {
		if (c == 'r' || (c == '-' && !strncmp(optarg, "rounds", 6)))
			rounds = atoi(c == 'r' ? optarg : argv[optind++]);
	}
	if (rounds < 1 || rounds > 100)
		rounds = 5;
	if (geteuid()) {
		fprintf(stderr, "bench-events: needs root (BPF)\n");
		return 1;
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	skel = cfqx_storm_bpf__open();
	if (!skel || bpf_map__set_max_entries(skel->maps.events, RING_BYTES) ||
	    cfqx_storm_bpf__load(skel) || cfqx_storm_bpf__attach(skel)) {
		fprintf(stderr, "bench-events: cannot load the storm generator\n");
		return 1;
	}
	ring_fd = bpf_map__fd(skel->maps.events);
	skel->bss->target_tgid = (unsigned int)getpid();
	skel->data->groups = 64;

	printf("bench-events: %d rounds each, alternating; %u MiB ring buffer, %zu-byte records, 1 MiB kfifo, JSON to /dev/null\n",
	       rounds, RING_BYTES >> 20, sizeof(struct cfqx_event));
	printf("%-6s %-34s %14s %10s %8s\n", "mode", "consumer", "events/s",
	       "rb drops", "ratio");
	for (int live = 0; live <= 1; live++) {
		double a[100], b[100], da[100], db[100];
		unsigned long long n = live ? live_n : drain_n;

		for (int i = 0; i < rounds; i++) {
			a[i] = round_once(0, live, n, &da[i]);
			b[i] = round_once(1, live, n, &db[i]);
		}
		double ma = median(a, rounds), mb = median(b, rounds);
		double mda = median(da, rounds), mdb = median(db, rounds);

		printf("%-6s %-34s %14.0f %9.1f%% %8s\n", live ? "live" : "drain",
		       "ring_buffer__poll, empty callback", ma, mda, "1.00");
		printf("%-6s %-34s %14.0f %9.1f%% %8.2f\n", live ? "live" : "drain",
		       "ring -> kfifo -> JSON (/dev/null)", mb, mdb, mb / ma);
	}
	printf("unexplained drops: %d rounds\n", unexplained);
	cfqx_storm_bpf__destroy(skel);
	return unexplained ? 1 : 0;
}
