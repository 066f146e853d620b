// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * make bench-kfifo: how fast the modern kfifo moves data between two
 * cores, next to what the hardware allows.  Writer pinned to CPU 0, reader
 * to CPU 1, every figure the median of RUNS runs, A/B alternated.
 *
 *  1. Byte stream, chunks of 8 B .. 64 KiB, through a 1 MiB kfifo
 *     (kfifo_in / kfifo_out), next to the cross-core ceiling measured the
 *     same way: the writer copies each chunk into one of SLOTS chunk-sized
 *     slots and sets that slot's flag (release), the reader waits for the
 *     flag (acquire), copies the chunk out and clears the flag -- a
 *     transfer with no fifo bookkeeping.  Single-thread memcpy of the same
 *     chunk is shown for context.
 *  2. One 8-byte element at a time: kfifo_put / kfifo_get against ck_ring
 *     SPSC and moodycamel::ReaderWriterQueue, all with ELEM_CAPACITY slots.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ck_ring.h>

#include "kfifo/kfifo.h"

#define MAX_SLOTS	64
#define FIFO_BYTES	(1u << 20)
#define ELEM_CAPACITY	4096u
#define ELEM_OPS	20000000ull

void *rwq_new(size_t capacity);
void rwq_delete(void *q);
void rwq_writer(void *q, uint64_t n);
uint64_t rwq_reader(void *q, uint64_t n);

void *old_fifo_new(unsigned int size);
void old_fifo_delete(void *fifo);
void old_fifo_reset(void *fifo);
void old_stream_writer(void *fifo, unsigned char *src, size_t chunk, uint64_t total);
uint64_t old_stream_reader(void *fifo, unsigned char *dst, size_t chunk, uint64_t total);

static int ncpus, runs = 7, nslots = 8;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % ncpus, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		fprintf(stderr, "bench-kfifo: cannot pin to CPU %d\n", cpu);
		exit(1);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* ---- the two-thread harness: writer on CPU 0, reader (caller) on CPU 1 ---- */

struct job {
	void (*writer)(struct job *);
	void (*reader)(struct job *);
	size_t chunk;
	uint64_t total;		/* bytes or elements */
	uint64_t bad;		/* reader's consistency failures */
	void *queue;
	atomic_int go;
};

static void *writer_thread(void *arg)
{
	struct job *job = arg;

	pin(0);
	while (!atomic_load_explicit(&job->go, memory_order_acquire))
		kfifo_cpu_relax();
	job->writer(job);
	return NULL;
}

/* Returns seconds from start to the reader's last item. */
static double run_job(struct job *job)
{
	pthread_t t;
	double t0, t1;

	pin(1);
	atomic_store(&job->go, 0);
	job->bad = 0;
	if (pthread_create(&t, NULL, writer_thread, job)) {
		fprintf(stderr, "bench-kfifo: pthread_create failed\n");
		exit(1);
	}
	t0 = now();
	atomic_store_explicit(&job->go, 1, memory_order_release);
	job->reader(job);
	t1 = now();
	pthread_join(t, NULL);
	if (job->bad) {
		fprintf(stderr, "bench-kfifo: reader saw %llu inconsistent items\n",
			(unsigned long long)job->bad);
		exit(1);
	}
	return t1 - t0;
}

/* ---- byte stream through the kfifo ---- */

static unsigned char src_buf[1 << 16], dst_buf[1 << 16];

static void kfifo_stream_writer(struct job *job)
{
	struct kfifo *f = job->queue;
	size_t chunk = job->chunk;

	for (uint64_t sent = 0; sent < job->total; sent += chunk) {
		src_buf[0] = (unsigned char)(sent / chunk);
		for (size_t done = 0; done < chunk;) {
			unsigned int n = kfifo_in(f, src_buf + done, chunk - done);

			if (!n)
				kfifo_cpu_relax();
			done += n;
		}
	}
}

static void kfifo_stream_reader(struct job *job)
{
	struct kfifo *f = job->queue;
	size_t chunk = job->chunk;

	for (uint64_t got = 0; got < job->total; got += chunk) {
		for (size_t done = 0; done < chunk;) {
			unsigned int n = kfifo_out(f, dst_buf + done, chunk - done);

			if (!n)
				kfifo_cpu_relax();
			done += n;
		}
		job->bad += dst_buf[0] != (unsigned char)(got / chunk);
	}
}

/* ---- byte stream ceiling: flagged slots, no bookkeeping ---- */

struct slot {
	alignas(64) atomic_int full;
};

struct slots {
	struct slot flag[MAX_SLOTS];
	unsigned char *data[MAX_SLOTS];
};

static void slot_writer(struct job *job)
{
	struct slots *s = job->queue;
	size_t chunk = job->chunk;
	unsigned int i = 0;

	for (uint64_t sent = 0; sent < job->total; sent += chunk) {
		while (atomic_load_explicit(&s->flag[i].full, memory_order_acquire))
			kfifo_cpu_relax();
		src_buf[0] = (unsigned char)(sent / chunk);
		memcpy(s->data[i], src_buf, chunk);
		atomic_store_explicit(&s->flag[i].full, 1, memory_order_release);
		i = i + 1 == (unsigned int)nslots ? 0 : i + 1;
	}
}

static void slot_reader(struct job *job)
{
	struct slots *s = job->queue;
	size_t chunk = job->chunk;
	unsigned int i = 0;

	for (uint64_t got = 0; got < job->total; got += chunk) {
		while (!atomic_load_explicit(&s->flag[i].full, memory_order_acquire))
			kfifo_cpu_relax();
		memcpy(dst_buf, s->data[i], chunk);
		atomic_store_explicit(&s->flag[i].full, 0, memory_order_release);
		job->bad += dst_buf[0] != (unsigned char)(got / chunk);
		i = i + 1 == (unsigned int)nslots ? 0 : i + 1;
	}
}

static void old_writer_job(struct job *job)
{
	old_stream_writer(job->queue, src_buf, job->chunk, job->total);
}

static void old_reader_job(struct job *job)
{
	job->bad = old_stream_reader(job->queue, dst_buf, job->chunk, job->total);
}

/* Single-thread memcpy of one chunk, for context. */
static double memcpy_gbs(size_t chunk, uint64_t total)
{
	double t0 = now();

	for (uint64_t done = 0; done < total; done += chunk) {
		memcpy(dst_buf, src_buf, chunk);
		__asm__ volatile("" : : "r"(dst_buf) : "memory");
	}
	return total / (now() - t0) / 1e9;
}

/* ---- one 8-byte element at a time ---- */

DECLARE_KFIFO(elem_fifo, uint64_t, ELEM_CAPACITY);

static void kfifo_elem_writer(struct job *job)
{
	for (uint64_t i = 1; i <= job->total; i++)
		while (!kfifo_put(&elem_fifo, i))
			kfifo_cpu_relax();
}

static void kfifo_elem_reader(struct job *job)
{
	uint64_t v, bad = 0;

	for (uint64_t i = 1; i <= job->total; i++) {
		while (!kfifo_get(&elem_fifo, &v))
			kfifo_cpu_relax();
		bad += v != i;
	}
	job->bad = bad;
}

static struct ck_ring ck;
static ck_ring_buffer_t ck_buf[ELEM_CAPACITY];

static void ck_writer(struct job *job)
{
	for (uint64_t i = 1; i <= job->total; i++)
		while (!ck_ring_enqueue_spsc(&ck, ck_buf, (void *)(uintptr_t)i))
			kfifo_cpu_relax();
}

static void ck_reader(struct job *job)
{
	uint64_t bad = 0;
	void *v;

	for (uint64_t i = 1; i <= job->total; i++) {
		while (!ck_ring_dequeue_spsc(&ck, ck_buf, &v))
			kfifo_cpu_relax();
		bad += (uintptr_t)v != i;
	}
	job->bad = bad;
}

static void rwq_writer_job(struct job *job)
{
	rwq_writer(job->queue, job->total);
}

static void rwq_reader_job(struct job *job)
{
	job->bad = rwq_reader(job->queue, job->total);
}

static uint64_t stream_total(size_t chunk)
{
	return chunk <= 8 ? 32ull << 20 : chunk <= 64 ? 256ull << 20 : 1ull << 30;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--runs N (1-99)] [--slots N (1-%d)]\n", argv0, MAX_SLOTS);
	exit(2);
}

int main(int argc, char **argv)
{
	static const size_t chunks[] = { 8, 64, 512, 4096, 65536 };
	struct kfifo fifo;
	struct slots slots;
	void *old;
	int ok = 1;

	for (int i = 1; i < argc; i++) {
		char *end;
		long v;

		if (i + 1 >= argc)
			usage(argv[0]);
		v = strtol(argv[i + 1], &end, 10);
		if (*end || end == argv[i + 1])
			usage(argv[0]);
		if (!strcmp(argv[i], "--runs") && v >= 1 && v <= 99)
			runs = (int)v;
		else if (!strcmp(argv[i], "--slots") && v >= 1 && v <= MAX_SLOTS)
			nslots = (int)v;
		else
			usage(argv[0]);
		i++;
	}

	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	FILE *la = fopen("/proc/loadavg", "r");
	double load1 = 0;

	if (la) {
		if (fscanf(la, "%lf", &load1) != 1)
			load1 = 0;
		fclose(la);
	}
	if (load1 > 0.5)
		printf("warning: load average %.2f: other processes compete for the CPUs, figures are unreliable\n",
		       load1);
	if (ncpus < 2)
		fprintf(stderr, "bench-kfifo: warning: only %d CPU, writer and reader share it\n",
			ncpus);
	old = old_fifo_new(FIFO_BYTES);
	if (kfifo_alloc(&fifo, FIFO_BYTES, GFP_KERNEL) || !old) {
		fprintf(stderr, "bench-kfifo: kfifo_alloc failed\n");
		return 1;
	}
	memset(&slots, 0, sizeof(slots));
	for (int i = 0; i < nslots; i++) {
		slots.data[i] = aligned_alloc(64, 1 << 16);
		memset(slots.data[i], 0, 1 << 16);
	}
	memset(src_buf, 0x5a, sizeof(src_buf));
	memset(fifo.kfifo.data, 0, FIFO_BYTES);

	printf("kfifo benchmark: writer on CPU 0, reader on CPU 1, median of %d runs\n", runs);
	printf("byte stream through %u KiB fifos: modern kfifo_in/kfifo_out, 2.6.10 __kfifo_put/__kfifo_get;\n"
	       "ceiling = %d flagged chunk-sized slots; ratio = modern / ceiling\n\n",
	       FIFO_BYTES >> 10, nslots);
	printf("%-8s %12s %12s %14s %8s %16s\n", "chunk", "kfifo GB/s", "2.6.10 GB/s",
	       "ceiling GB/s", "ratio", "memcpy GB/s (1T)");
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		size_t chunk = chunks[c];
		double a[99], b[99], m[99], o[99];
		struct job job = { .chunk = chunk, .total = stream_total(chunk) };

		for (int r = 0; r < runs; r++) {
			kfifo_reset(&fifo);
			job.queue = &fifo;
			job.writer = kfifo_stream_writer;
			job.reader = kfifo_stream_reader;
			a[r] = job.total / run_job(&job) / 1e9;
			job.queue = &slots;
			job.writer = slot_writer;
			job.reader = slot_reader;
			b[r] = job.total / run_job(&job) / 1e9;
			old_fifo_reset(old);
			job.queue = old;
			job.writer = old_writer_job;
			job.reader = old_reader_job;
			o[r] = job.total / run_job(&job) / 1e9;
			m[r] = memcpy_gbs(chunk, job.total);
		}
		double ma = median(a, runs), mb = median(b, runs);
		char label[32];

		snprintf(label, sizeof(label), chunk >= 1024 ? "%zu KiB" : "%zu B",
			 chunk >= 1024 ? chunk >> 10 : chunk);
		printf("%-8s %12.2f %12.2f %14.2f %7.0f%% %16.2f%s\n", label, ma,
		       median(o, runs), mb, 100 * ma / mb, median(m, runs),
		       chunk >= 4096 && ma < 0.9 * mb ? "  (below 90% target)" : "");
		if (chunk >= 4096 && ma < 0.9 * mb)
			ok = 0;
	}

	INIT_KFIFO(elem_fifo);
	ck_ring_init(&ck, ELEM_CAPACITY);
	void *rwq = rwq_new(ELEM_CAPACITY);
	double k[99], cr[99], rq[99];

	for (int r = 0; r < runs; r++) {
		struct job job = { .total = ELEM_OPS };

		kfifo_reset(&elem_fifo);
		job.writer = kfifo_elem_writer;
		job.reader = kfifo_elem_reader;
		k[r] = ELEM_OPS / run_job(&job) / 1e6;
		job.writer = ck_writer;
		job.reader = ck_reader;
		cr[r] = ELEM_OPS / run_job(&job) / 1e6;
		job.queue = rwq;
		job.writer = rwq_writer_job;
		job.reader = rwq_reader_job;
		rq[r] = ELEM_OPS / run_job(&job) / 1e6;
	}
	double mk = median(k, runs), mc = median(cr, runs), mr = median(rq, runs);
	double best = mc > mr ? mc : mr;

	printf("\none 8-byte element at a time, %u-slot queues, %llu M ops per run\n\n",
	       ELEM_CAPACITY, ELEM_OPS / 1000000);
	printf("%-34s %10s %14s\n", "queue", "Mops/s", "kfifo ratio");
	printf("%-34s %10.1f %14s\n", "kfifo_put/kfifo_get", mk, "1.00");
	printf("%-34s %10.1f %14.2f\n", "ck_ring SPSC", mc, mk / mc);
	printf("%-34s %10.1f %14.2f\n", "moodycamel ReaderWriterQueue", mr, mk / mr);
	if (mk < best) {
		printf("kfifo one-element ops/s below the fastest peer\n");
		ok = 0;
	}
	printf("\ntargets (>= 90%% of ceiling at >= 4 KiB, >= fastest peer per element): %s\n",
	       ok ? "met" : "MISSED");
	rwq_delete(rwq);
	kfifo_free(&fifo);
	for (int i = 0; i < nslots; i++)
		free(slots.data[i]);
	old_fifo_delete(old);
	return 0;
}
