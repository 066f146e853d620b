// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two-thread kfifo stress test: a writer thread pushes a position-keyed,
 * checksummed byte sequence in random chunk sizes through a small fifo and
 * the main thread reads it back in independent random sizes, checking every
 * byte, every record boundary, the total and a 64-bit checksum: nothing may
 * be lost, duplicated or reordered.  Runs the 2.6.10 unlocked paths, the
 * modern byte and record fifos, and one-element put/get.  Built plain and
 * with ThreadSanitizer (a plain program, not Criterion, so TSan sees the
 * two threads directly).  Usage: stress [BYTES]  (default 100000000)
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kfifo/kernel-compat.h"
#include "stress.h"

#define MAX_CHUNK	3000	/* > the 2 KiB byte fifos: full and partial */
#define STALL_SECONDS	120	/* no byte moved for this long: deadlock */

static inline unsigned char seq_byte(uint64_t pos)
{
	return (unsigned char)((pos * 0x9e3779b97f4a7c15ull) >> 56);
}

static inline uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static inline uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

#define FNV_START 0xcbf29ce484222325ull

_Atomic uint64_t stress_progress;	/* reads completed, for the watchdog */

void stress_relax(unsigned int *spins)
{
	if (++*spins >= 64) {
		*spins = 0;
		sched_yield();	/* a loaded 2-core box: let the other side run */
	} else {
		kfifo_cpu_relax();
	}
}

struct run {
	const struct stress_ops *ops;
	void *fifo;
	uint64_t total;
	uint64_t len_seed;	/* record lengths: both sides draw the same */
	uint64_t writer_sum;
	uint64_t puts;
};

static unsigned int record_len(const struct run *r, uint64_t *rng, uint64_t pos)
{
	uint64_t len = 1 + rng_next(rng) % r->ops->max_record;

	return (unsigned int)(len < r->total - pos ? len : r->total - pos);
}

static void *writer(void *arg)
{
	struct run *r = arg;
	unsigned char buf[MAX_CHUNK > 2048 ? MAX_CHUNK : 2048];	/* records <= 2046 */
	uint64_t rng = 0x1234567 ^ r->total, len_rng = r->len_seed;
	uint64_t pos = 0, sum = FNV_START;
	unsigned int spins = 0;

	while (pos < r->total) {
		unsigned int len;

		if (r->ops->max_record)
			len = record_len(r, &len_rng, pos);
		else
			len = 1 + rng_next(&rng) % MAX_CHUNK;
		if (len > r->total - pos)
			len = (unsigned int)(r->total - pos);
		for (unsigned int i = 0; i < len; i++)
			buf[i] = seq_byte(pos + i);
		for (;;) {
			unsigned int n = r->ops->put(r->fifo, buf, len);

			if (r->ops->max_record && n != 0 && n != len) {
				fprintf(stderr, "stress: record put returned %u of %u\n", n, len);
				exit(1);
			}
			if (n) {
				sum = fnv1a(sum, buf, n);
				pos += n;
				r->puts++;
				break;
			}
			stress_relax(&spins);
		}
	}
	r->writer_sum = sum;
	return NULL;
}

static int run_one(const struct stress_ops *ops, uint64_t total)
{
	struct run r = { .ops = ops, .total = total, .len_seed = 0x9876543 };
	unsigned char buf[MAX_CHUNK > 2048 ? MAX_CHUNK : 2048];
	uint64_t rng = 0xabcdef ^ total, len_rng = r.len_seed;
	uint64_t pos = 0, sum = FNV_START, gets = 0, too_small = 0;
	unsigned int spins = 0;
	struct timespec t0, t1;
	pthread_t t;

	r.fifo = ops->create(ops->fifo_size);
	if (!r.fifo) {
		fprintf(stderr, "stress: %s: cannot create a %u-byte fifo\n",
			ops->name, ops->fifo_size);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pthread_create(&t, NULL, writer, &r)) {
		fprintf(stderr, "stress: pthread_create failed\n");
		return 1;
	}
	while (pos < total) {
		unsigned int want = 1 + rng_next(&rng) % MAX_CHUNK, expect = 0;
		long n;

		if (ops->max_record) {
			expect = record_len(&r, &len_rng, pos);
			want = 1 + rng_next(&rng) % ops->max_record;
		}
		for (;;) {
			n = ops->get(r.fifo, buf, want);
			if (n == -2) {
				/* too small: reported, and the record must still be there */
				unsigned int have = ops->peek_len(r.fifo);

				if (have <= want || have != expect) {
					fprintf(stderr, "stress: %s: EMSGSIZE for a %u-byte buffer, record is %u (expected %u)\n",
						ops->name, want, have, expect);
					return 1;
				}
				too_small++;
				want = ops->max_record;
				continue;
			}
			if (n > 0)
				break;
			stress_relax(&spins);
		}
		if (ops->max_record && (unsigned long)n != expect) {
			fprintf(stderr, "stress: %s: record %llu has %ld bytes, expected %u\n",
				ops->name, (unsigned long long)gets, n, expect);
			return 1;
		}
		for (long i = 0; i < n; i++) {
			if (buf[i] != seq_byte(pos + i)) {
				fprintf(stderr, "stress: %s: byte %llu is %#x, expected %#x\n",
					ops->name, (unsigned long long)(pos + i),
					buf[i], seq_byte(pos + i));
				return 1;
			}
		}
		sum = fnv1a(sum, buf, n);
		pos += n;
		gets++;
		atomic_fetch_add_explicit(&stress_progress, 1, memory_order_relaxed);
	}
	pthread_join(t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long extra = ops->max_record ? ops->get(r.fifo, buf, sizeof(buf)) :
				       ops->get(r.fifo, buf, sizeof(buf));
	if (extra != (ops->max_record ? -1 : 0)) {
		fprintf(stderr, "stress: %s: data left over after %llu bytes\n",
			ops->name, (unsigned long long)total);
		return 1;
	}
	if (sum != r.writer_sum) {
		fprintf(stderr, "stress: %s: checksum %016llx != writer's %016llx\n",
			ops->name, (unsigned long long)sum,
			(unsigned long long)r.writer_sum);
		return 1;
	}
	ops->destroy(r.fifo);
	printf("stress: %-38s %11llu bytes  %9llu puts %9llu gets %6llu too-small  checksum %016llx  %.2fs  ok\n",
	       ops->name, (unsigned long long)total, (unsigned long long)r.puts,
	       (unsigned long long)gets, (unsigned long long)too_small,
	       (unsigned long long)sum,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
	return 0;
}

/* Fails the test when nothing moves for STALL_SECONDS (a loaded box is slow, not stuck). */
static void *watchdog(void *arg)
{
	uint64_t last = UINT64_MAX;

	(void)arg;
	for (;;) {
		sleep(STALL_SECONDS);
		uint64_t now = atomic_load_explicit(&stress_progress, memory_order_relaxed);

		if (now == last) {
			fprintf(stderr, "stress: nothing moved for %d s (deadlock?)\n",
				STALL_SECONDS);
			_exit(2);
		}
		last = now;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t total = 100000000ull, errors;
	char *end;

	if (argc > 2 || (argc == 2 && (!(total = strtoull(argv[1], &end, 10)) || *end))) {
		fprintf(stderr, "usage: %s [BYTES]  (a positive byte count per byte stream)\n",
			argv[0]);
		return 2;
	}
	pthread_t dog;

	if (pthread_create(&dog, NULL, watchdog, NULL)) {
		fprintf(stderr, "stress: pthread_create failed\n");
		return 1;
	}
	if (run_one(&stress_2_6_10_bytes, total) ||
	    run_one(&stress_modern_bytes, total) ||
	    run_one(&stress_modern_rec1, total / 5) ||
	    run_one(&stress_modern_rec2, total / 5))
		return 1;
	errors = stress_modern_elements(total / 10, 64);
	if (errors) {
		fprintf(stderr, "stress: one-element put/get: %llu values out of sequence\n",
			(unsigned long long)errors);
		return 1;
	}
	printf("stress: %-38s %11llu values ok\n", "modern kfifo_put/kfifo_get (uint64_t)",
	       (unsigned long long)(total / 10));
	return 0;
}
