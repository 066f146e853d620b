// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Criterion unit tests of the modern kfifo API (kfifo/kfifo.h): every
 * macro on empty, full, exact-fit and partial transfers, typed and record
 * fifos at their length limits, counters that cross the unsigned
 * wraparound, size 2 and 2^31, and bad arguments.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kfifo/kfifo.h"

static void fill_pattern(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 7 + (i >> 8));
}

/* Counter start values: zero, just below the wrap, and mid-range. */
static const unsigned int starts[] = { 0, UINT_MAX - 2, UINT_MAX - 100, 0x7ffffffdu };
#define NSTARTS (sizeof(starts) / sizeof(starts[0]))

Test(modern_static, declare_init_define)
{
	DECLARE_KFIFO(f, int, 8);
	INIT_KFIFO(f);
	cr_assert_eq(kfifo_size(&f), 8);
	cr_assert_eq(kfifo_esize(&f), sizeof(int));
	cr_assert_eq(kfifo_recsize(&f), 0);
	cr_assert(kfifo_initialized(&f));
	cr_assert(kfifo_is_empty(&f));
	cr_assert(!kfifo_is_full(&f));
	cr_assert_eq(kfifo_len(&f), 0);
	cr_assert_eq(kfifo_avail(&f), 8);

	static DEFINE_KFIFO(g, short, 16);
	cr_assert_eq(kfifo_size(&g), 16);
	cr_assert_eq(kfifo_esize(&g), sizeof(short));
	cr_assert(kfifo_is_empty(&g));
	cr_assert(kfifo_put(&g, (short)-5));
	short s = 0;
	cr_assert(kfifo_get(&g, &s));
	cr_assert_eq(s, -5);

	/* Static fifos are not pointer fifos: alloc/init refuse them. */
	cr_assert_eq(kfifo_alloc(&f, 16, GFP_KERNEL), -EINVAL);
	int buf[4];
	cr_assert_eq(kfifo_init(&f, buf, sizeof(buf)), -EINVAL);
	kfifo_free(&f);	/* no-op for a static fifo */
	cr_assert_eq(kfifo_size(&f), 8);
}

Test(modern_element, put_get_peek_full_empty)
{
	for (size_t s = 0; s < NSTARTS; s++) {
		DECLARE_KFIFO(f, uint64_t, 4);
		INIT_KFIFO(f);
		kfifo_reset_to(&f, starts[s]);
		uint64_t v = 99;
		cr_assert_eq(kfifo_get(&f, &v), 0);
		cr_assert_eq(kfifo_peek(&f, &v), 0);
		cr_assert_eq(v, 99, "empty get must not touch the output");
		for (uint64_t i = 0; i < 4; i++)
			cr_assert_eq(kfifo_put(&f, i + 100), 1);
		cr_assert(kfifo_is_full(&f));
		cr_assert_eq(kfifo_avail(&f), 0);
		cr_assert_eq(kfifo_put(&f, 7), 0, "put into a full fifo");
		cr_assert_eq(kfifo_len(&f), 4);
		cr_assert_eq(kfifo_peek(&f, &v), 1);
		cr_assert_eq(v, 100);
		for (uint64_t i = 0; i < 4; i++) {
			cr_assert_eq(kfifo_get(&f, &v), 1);
			cr_assert_eq(v, i + 100);
			cr_assert_eq(kfifo_put(&f, i + 200), 1);
		}
		for (uint64_t i = 0; i < 4; i++) {
			cr_assert_eq(kfifo_get(&f, &v), 1);
			cr_assert_eq(v, i + 200);
		}
		cr_assert(kfifo_is_empty(&f));
	}
}

Test(modern_bytes, in_out_partial_exact_wrap)
{
	for (size_t s = 0; s < NSTARTS; s++) {
		struct kfifo f;
		unsigned char src[300], dst[300];

		fill_pattern(src, sizeof(src), (unsigned int)s);
		cr_assert_eq(kfifo_alloc(&f, 100, GFP_KERNEL), 0);
		cr_assert_eq(kfifo_size(&f), 128, "rounded up to a power of two");
		kfifo_reset_to(&f, starts[s]);
		/* partial: only 128 fit */
		cr_assert_eq(kfifo_in(&f, src, 300), 128);
		cr_assert(kfifo_is_full(&f));
		cr_assert_eq(kfifo_in(&f, src, 1), 0);
		cr_assert_eq(kfifo_out(&f, dst, 50), 50);
		cr_assert_arr_eq(dst, src, 50);
		/* exact fit of the free space, wrapping the buffer end */
		cr_assert_eq(kfifo_avail(&f), 50);
		cr_assert_eq(kfifo_in(&f, src + 128, 50), 50);
		cr_assert_eq(kfifo_len(&f), 128);
		/* peek does not consume; out_peek of more than present is partial */
		cr_assert_eq(kfifo_out_peek(&f, dst, 300), 128);
		cr_assert_arr_eq(dst, src + 50, 128);
		cr_assert_eq(kfifo_len(&f), 128);
		cr_assert_eq(kfifo_out(&f, dst, 300), 128);
		cr_assert_arr_eq(dst, src + 50, 128);
		cr_assert(kfifo_is_empty(&f));
		cr_assert_eq(kfifo_out(&f, dst, 10), 0);
		kfifo_free(&f);
		cr_assert_eq(kfifo_size(&f), 0);
	}
}

Test(modern_record, rec_ptr_2_roundtrip_and_too_small_buffer)
{
	for (size_t s = 0; s < NSTARTS; s++) {
		struct kfifo_rec_ptr_2 f;
		unsigned char a[1100], b[1100];

		fill_pattern(a, sizeof(a), 3);
		cr_assert_eq(kfifo_alloc(&f, 1024, GFP_KERNEL), 0);
		kfifo_reset_to(&f, starts[s]);
		cr_assert_eq(kfifo_recsize(&f), 2);
		cr_assert_eq(kfifo_avail(&f), 1022);
		cr_assert_eq(kfifo_peek_len(&f), 0);
		cr_assert_eq(kfifo_in(&f, a, 600), 600);
		cr_assert_eq(kfifo_len(&f), 602);
		cr_assert_eq(kfifo_avail(&f), 1024 - 602 - 2);
		/* all-or-nothing: 600 more do not fit, nothing is stored */
		cr_assert_eq(kfifo_in(&f, a, 600), 0);
		cr_assert_eq(kfifo_len(&f), 602);
		cr_assert_eq(kfifo_in(&f, a + 600, 420), 420, "exact fit");
		cr_assert(kfifo_is_full(&f));
		cr_assert_eq(kfifo_avail(&f), 0);
		cr_assert_eq(kfifo_peek_len(&f), 600);
		/* too small: nothing taken, EMSGSIZE, record still there */
		errno = 0;
		cr_assert_eq(kfifo_out(&f, b, 599), 0);
		cr_assert_eq(errno, EMSGSIZE);
		cr_assert_eq(kfifo_peek_len(&f), 600);
		cr_assert_eq(kfifo_len(&f), 1024);
		cr_assert_eq(kfifo_out(&f, b, sizeof(b)), 600);
		cr_assert_arr_eq(b, a, 600);
		cr_assert_eq(kfifo_peek_len(&f), 420);
		cr_assert_eq(kfifo_out(&f, b, 420), 420);
		cr_assert_arr_eq(b, a + 600, 420);
		cr_assert(kfifo_is_empty(&f));
		cr_assert_eq(kfifo_out(&f, b, sizeof(b)), 0);
		kfifo_free(&f);
	}
}

Test(modern_alloc, sizes_and_bad_arguments)
{
	struct kfifo f;
	unsigned char c = 1;

	cr_assert_eq(kfifo_alloc(&f, 0, GFP_KERNEL), -EINVAL);
	cr_assert_eq(kfifo_size(&f), 0);
	cr_assert(!kfifo_initialized(&f));
	/* a failed fifo moves nothing and does not crash */
	cr_assert_eq(kfifo_in(&f, &c, 1), 0);
	cr_assert_eq(kfifo_put(&f, 5), 0);
	cr_assert_eq(kfifo_out(&f, &c, 1), 0);
	cr_assert_eq(kfifo_get(&f, &c), 0);
	cr_assert_eq(kfifo_avail(&f), 0);
	cr_assert(kfifo_is_full(&f));
	cr_assert(kfifo_is_empty(&f));
	kfifo_free(&f);
	cr_assert_eq(kfifo_alloc(&f, 1, GFP_KERNEL), -EINVAL);
	cr_assert_eq(kfifo_alloc(&f, 0x80000001u, GFP_KERNEL), -EINVAL);
	cr_assert_eq(kfifo_alloc(&f, UINT_MAX, GFP_ATOMIC), -EINVAL);
	cr_assert_eq(kfifo_alloc(&f, 2, GFP_KERNEL), 0);
	cr_assert_eq(kfifo_size(&f), 2);
	kfifo_free(&f);
	cr_assert_eq(kfifo_alloc(&f, 3, GFP_KERNEL), 0);
	cr_assert_eq(kfifo_size(&f), 4);
	kfifo_free(&f);
	cr_assert_eq(kfifo_alloc(&f, 0x40000001u, GFP_KERNEL), 0);
	cr_assert_eq(kfifo_size(&f), 0x80000000u);
	kfifo_free(&f);
	kfifo_free(&f);	/* twice is harmless */

	/* kfifo_init rounds down to whole elements and a power of two */
	unsigned char raw[100];
	cr_assert_eq(kfifo_init(&f, raw, sizeof(raw)), 0);
	cr_assert_eq(kfifo_size(&f), 64);
	cr_assert_eq(kfifo_init(&f, NULL, 64), -EINVAL);
	cr_assert_eq(kfifo_init(&f, raw, 1), -EINVAL);
	DECLARE_KFIFO_PTR(w, uint32_t);
	cr_assert_eq(kfifo_init(&w, raw, 40), 0, "40 bytes = 10 elements");
	cr_assert_eq(kfifo_size(&w), 8);
	cr_assert_eq(kfifo_esize(&w), 4);
	cr_assert_eq(kfifo_init(&w, raw, 7), -EINVAL, "less than 2 elements");
}

Test(modern_alloc, size_two)
{
	DECLARE_KFIFO_PTR(f, char);
	char out[4];

	cr_assert_eq(kfifo_alloc(&f, 2, GFP_KERNEL), 0);
	for (size_t s = 0; s < NSTARTS; s++) {
		kfifo_reset_to(&f, starts[s]);
		for (int round = 0; round < 5; round++) {
			cr_assert_eq(kfifo_in(&f, "abc", 3), 2);
			cr_assert(kfifo_is_full(&f));
			cr_assert_eq(kfifo_out(&f, out, 1), 1);
			cr_assert_eq(out[0], 'a');
			cr_assert_eq(kfifo_in(&f, "xyz", 3), 1);
			cr_assert_eq(kfifo_out(&f, out, 4), 2);
			cr_assert_eq(out[0], 'b');
			cr_assert_eq(out[1], 'x');
		}
	}
	kfifo_free(&f);
}

/*
 * 2^31 bytes: the largest fifo.  The buffer is only touched where data is
 * copied (malloc commits pages lazily); the counters are placed so that
 * the fifo is completely full across the unsigned wraparound.
 */
Test(modern_alloc, size_2_pow_31, .timeout = 60)
{
	struct kfifo *f = aligned_alloc(64, sizeof(*f));
	unsigned char src[256], dst[256];
	const unsigned int big = 0x80000000u;

	fill_pattern(src, sizeof(src), 9);
	cr_assert_eq(kfifo_alloc(f, big, GFP_KERNEL), 0);
	cr_assert_eq(kfifo_size(f), big);
	/* 100 bytes before the end of the buffer and 50 before the counter wraps */
	kfifo_reset_to(f, UINT_MAX - 49);
	cr_assert_eq(kfifo_avail(f), big);
	cr_assert_eq(kfifo_in(f, src, 256), 256);
	cr_assert_eq(kfifo_len(f), 256);
	cr_assert_eq(kfifo_out(f, dst, 256), 256);
	cr_assert_arr_eq(dst, src, 256);
	/*
	 * Pretend it is full without writing 2 GiB: restart the counters where
	 * the data above lies and publish len == 2^31 exactly.
	 */
	kfifo_reset_to(f, UINT_MAX - 49);
	atomic_store(&f->kfifo.in, UINT_MAX - 49 + big);
	cr_assert_eq(kfifo_len(f), big);
	cr_assert(kfifo_is_full(f));
	cr_assert_eq(kfifo_avail(f), 0);
	cr_assert_eq(kfifo_in(f, src, 1), 0);
	cr_assert_eq(kfifo_put(f, 1), 0);
	cr_assert_eq(kfifo_out(f, dst, 200), 200);
	cr_assert_arr_eq(dst, src, 200, "the bytes written across both wraps");
	cr_assert_eq(kfifo_in(f, src, 256), 200, "exactly the space freed");
	cr_assert_eq(kfifo_len(f), big);
	kfifo_free(f);
	free(f);
}

struct triple {
	uint32_t a, b, c;
};

Test(modern_typed, struct_elements_wrap)
{
	for (size_t s = 0; s < NSTARTS; s++) {
		DECLARE_KFIFO(f, struct triple, 8);
		struct triple in[20], out[20];

		INIT_KFIFO(f);
		kfifo_reset_to(&f, starts[s] - 3);
		cr_assert_eq(kfifo_esize(&f), sizeof(struct triple));
		for (uint32_t i = 0; i < 20; i++)
			in[i] = (struct triple){ i, i * 2, i * 3 };
		cr_assert_eq(kfifo_in(&f, in, 5), 5);
		cr_assert_eq(kfifo_out(&f, out, 5), 5);
		cr_assert_arr_eq(out, in, 5 * sizeof(*in));
		/* counters now cross the wraparound region and the buffer end */
		cr_assert_eq(kfifo_in(&f, in, 20), 8);
		cr_assert_eq(kfifo_len(&f), 8);
		cr_assert_eq(kfifo_peek_len(&f), 8 * sizeof(struct triple));
		struct triple one;
		cr_assert_eq(kfifo_peek(&f, &one), 1);
		cr_assert_eq(one.a, 0);
		cr_assert_eq(kfifo_out_peek(&f, out, 3), 3);
		cr_assert_arr_eq(out, in, 3 * sizeof(*in));
		kfifo_skip(&f);
		cr_assert_eq(kfifo_get(&f, &one), 1);
		cr_assert_eq(one.c, 3);
		kfifo_skip_count(&f, 2);
		cr_assert_eq(kfifo_len(&f), 4);
		kfifo_skip_count(&f, 100);	/* clamped to what is there */
		cr_assert(kfifo_is_empty(&f));
		cr_assert(kfifo_put(&f, in[7]));
		kfifo_reset_out(&f);
		cr_assert(kfifo_is_empty(&f));
		cr_assert_eq(kfifo_avail(&f), 8);
		cr_assert(kfifo_put(&f, in[7]));
		kfifo_reset(&f);
		cr_assert(kfifo_is_empty(&f));
		cr_assert_eq(atomic_load(&f.kfifo.in), 0);
	}
}

Test(modern_linear, out_linear_and_ptr)
{
	for (size_t s = 0; s < NSTARTS; s++) {
		DECLARE_KFIFO(f, unsigned char, 16);
		unsigned char src[16], *p = (unsigned char *)1;
		unsigned int tail = 99;

		INIT_KFIFO(f);
		fill_pattern(src, sizeof(src), 4);
		kfifo_reset_to(&f, starts[s]);
		cr_assert_eq(kfifo_out_linear(&f, &tail, 16), 0);
		cr_assert_eq(kfifo_out_linear_ptr(&f, &p, 16), 0);
		cr_assert_null(p);
		/* 10 bytes, then move to offset 12 so the data wraps */
		unsigned int off = starts[s] & 15;
		unsigned int pad = (12 - off) & 15;
		unsigned char junk[16];
		cr_assert_eq(kfifo_in(&f, src, pad), pad);
		cr_assert_eq(kfifo_out(&f, junk, pad), pad);
		cr_assert_eq(kfifo_in(&f, src, 10), 10);
		cr_assert_eq(kfifo_out_linear(&f, &tail, 16), 4, "up to the buffer end");
		cr_assert_eq(tail, 12);
		cr_assert_eq(kfifo_out_linear(&f, NULL, 3), 3, "at most n");
		cr_assert_eq(kfifo_out_linear_ptr(&f, &p, 16), 4);
		cr_assert_eq(p, f.buf + 12);
		cr_assert_arr_eq(p, src, 4);
		kfifo_skip_count(&f, 4);
		cr_assert_eq(kfifo_out_linear_ptr(&f, &p, 16), 6);
		cr_assert_eq(p, f.buf);
		cr_assert_arr_eq(p, src + 4, 6);
		kfifo_skip_count(&f, 6);
		cr_assert(kfifo_is_empty(&f));
	}
}

Test(modern_record, rec1_limits_and_one_element_records)
{
	struct kfifo_rec_ptr_1 f;
	unsigned char a[300], b[300];

	fill_pattern(a, sizeof(a), 5);
	cr_assert_eq(kfifo_alloc(&f, 4096, GFP_KERNEL), 0);
	cr_assert_eq(kfifo_recsize(&f), 1);
	cr_assert_eq(kfifo_avail(&f), 255, "capped at the 1-byte header's limit");
	cr_assert_eq(kfifo_in(&f, a, 256), 0, "too long for a 1-byte header");
	cr_assert(kfifo_is_empty(&f));
	cr_assert_eq(kfifo_in(&f, a, 255), 255);
	cr_assert_eq(kfifo_len(&f), 256);
	cr_assert_eq(kfifo_in(&f, a, 0), 0, "an empty record is stored");
	cr_assert_eq(kfifo_len(&f), 257);
	cr_assert(kfifo_put(&f, (unsigned char)0x42));
	cr_assert_eq(kfifo_peek_len(&f), 255);
	cr_assert_eq(kfifo_out(&f, b, 300), 255);
	cr_assert_arr_eq(b, a, 255);
	cr_assert(!kfifo_is_empty(&f));
	cr_assert_eq(kfifo_peek_len(&f), 0);
	cr_assert_eq(kfifo_out(&f, b, 300), 0, "the empty record");
	unsigned char c = 0;
	cr_assert_eq(kfifo_peek(&f, &c), 1);
	cr_assert_eq(c, 0x42);
	cr_assert_eq(kfifo_get(&f, &c), 1);
	cr_assert_eq(c, 0x42);
	cr_assert(kfifo_is_empty(&f));
	/* a two-byte record does not fit one byte: kfifo_get reports it */
	cr_assert_eq(kfifo_in(&f, "hi", 2), 2);
	errno = 0;
	cr_assert_eq(kfifo_get(&f, &c), 0);
	cr_assert_eq(errno, EMSGSIZE);
	errno = 0;
	cr_assert_eq(kfifo_peek(&f, &c), 0);
	cr_assert_eq(errno, EMSGSIZE);
	errno = 0;
	cr_assert_eq(kfifo_out_peek(&f, b, 1), 0);
	cr_assert_eq(errno, EMSGSIZE);
	cr_assert_eq(kfifo_out_peek(&f, b, 2), 2);
	cr_assert_eq(kfifo_peek_len(&f), 2, "peek leaves it");
	kfifo_skip(&f);
	cr_assert(kfifo_is_empty(&f));
	kfifo_skip(&f);	/* skipping an empty fifo does nothing */
	cr_assert(kfifo_is_empty(&f));
	kfifo_free(&f);
}

Test(modern_record, rec2_limits)
{
	struct kfifo_rec_ptr_2 *f = aligned_alloc(64, sizeof(*f));
	unsigned char *a = malloc(70000), *b = malloc(70000);

	fill_pattern(a, 70000, 6);
	cr_assert_eq(kfifo_alloc(f, 65537, GFP_KERNEL), 0);
	cr_assert_eq(kfifo_size(f), 131072);
	cr_assert_eq(kfifo_avail(f), 65535, "capped at the 2-byte header's limit");
	cr_assert_eq(kfifo_in(f, a, 65536), 0, "too long for a 2-byte header");
	cr_assert_eq(kfifo_in(f, a, 70000), 0);
	cr_assert(kfifo_is_empty(f));
	cr_assert_eq(kfifo_in(f, a, 65535), 65535);
	cr_assert_eq(kfifo_avail(f), 131072 - 65537 - 2);
	cr_assert_eq(kfifo_in(f, a + 1, 65534), 0, "one byte too many");
	cr_assert_eq(kfifo_in(f, a + 1, 65533), 65533, "exact fit");
	cr_assert(kfifo_is_full(f));
	cr_assert_eq(kfifo_avail(f), 0);
	cr_assert_eq(kfifo_peek_len(f), 65535);
	errno = 0;
	cr_assert_eq(kfifo_out(f, b, 65534), 0);
	cr_assert_eq(errno, EMSGSIZE);
	cr_assert_eq(kfifo_out(f, b, 70000), 65535);
	cr_assert_arr_eq(b, a, 65535);
	cr_assert_eq(kfifo_out(f, b, 65533), 65533);
	cr_assert_arr_eq(b, a + 1, 65533);
	cr_assert(kfifo_is_empty(f));
	kfifo_free(f);
	free(f);
	free(a);
	free(b);
}

/* Headers split across the buffer end and the counter wraparound. */
Test(modern_record, headers_across_wrap)
{
	static STRUCT_KFIFO_REC_2(32) f;
	static STRUCT_KFIFO_REC_1(32) g;
	unsigned char a[32], b[32];

	fill_pattern(a, sizeof(a), 7);
	for (unsigned int shift = 0; shift < 40; shift++) {
		INIT_KFIFO(f);
		INIT_KFIFO(g);
		kfifo_reset_to(&f, UINT_MAX - shift);
		kfifo_reset_to(&g, UINT_MAX - shift);
		for (unsigned int len = 1; len <= 29; len += 4) {
			cr_assert_eq(kfifo_in(&f, a, len), len);
			cr_assert_eq(kfifo_in(&g, a + 1, len), len);
			cr_assert_eq(kfifo_peek_len(&f), len);
			cr_assert_eq(kfifo_out(&f, b, sizeof(b)), len);
			cr_assert_arr_eq(b, a, len);
			cr_assert_eq(kfifo_out(&g, b, sizeof(b)), len);
			cr_assert_arr_eq(b, a + 1, len);
		}
		/* exact fit: 30 + 2 = 32 */
		cr_assert_eq(kfifo_avail(&f), 30);
		cr_assert_eq(kfifo_in(&f, a, 31), 0);
		cr_assert_eq(kfifo_in(&f, a, 30), 30);
		cr_assert(kfifo_is_full(&f));
		unsigned int tail;
		unsigned int lin = kfifo_out_linear(&f, &tail, 32);
		cr_assert(lin >= 1 && lin <= 30);
		cr_assert_arr_eq(f.buf + tail, a, lin);
		kfifo_skip(&f);
		cr_assert(kfifo_is_empty(&f));
	}
}

/* A fifo shared by several writers through the spinlocked variants. */
struct locked_job {
	DECLARE_KFIFO(fifo, uint64_t, 64);
	spinlock_t wlock, rlock;
	uint64_t per_writer;
};

static void *locked_writer(void *arg)
{
	struct locked_job *job = arg;
	static atomic_uint next_id;
	uint64_t id = atomic_fetch_add(&next_id, 1) % 2;

	for (uint64_t i = 0; i < job->per_writer; i++) {
		uint64_t v = id << 32 | i;

		while (!kfifo_in_spinlocked(&job->fifo, &v, 1, &job->wlock))
			sched_yield();
	}
	return NULL;
}

Test(modern_locked, two_writers_spinlocked, .timeout = 60)
{
	struct locked_job *job = aligned_alloc(64, sizeof(*job));
	uint64_t next[2] = { 0, 0 }, v;
	pthread_t t[2];

	INIT_KFIFO(job->fifo);
	spin_lock_init(&job->wlock);
	spin_lock_init(&job->rlock);
	job->per_writer = 100000;
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, locked_writer, job), 0);
	for (uint64_t got = 0; got < 2 * job->per_writer;) {
		unsigned int n = (got & 1) ?
			kfifo_out_spinlocked(&job->fifo, &v, 1, &job->rlock) :
			kfifo_out_locked(&job->fifo, &v, 1, &job->rlock);
		if (!n) {
			sched_yield();
			continue;
		}
		uint64_t id = v >> 32;
		cr_assert(id < 2);
		cr_assert_eq(v & 0xffffffffu, next[id], "writer %llu out of order",
			     (unsigned long long)id);
		next[id]++;
		got++;
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	cr_assert(kfifo_is_empty_spinlocked(&job->fifo, &job->rlock));
	free(job);
}

Test(modern_locked, variants_and_lock_behaviour)
{
	DEFINE_KFIFO(f, int, 4);
	DEFINE_SPINLOCK(lock);
	int v[4] = { 1, 2, 3, 4 }, w[4];

	cr_assert_eq(kfifo_in_spinlocked(&f, v, 2, &lock), 2);
	cr_assert_eq(kfifo_in_spinlocked_noirqsave(&f, v + 2, 2, &lock), 2);
	cr_assert_eq(kfifo_in_locked(&f, v, 1, &lock), 0, "full");
	cr_assert(!kfifo_is_empty_spinlocked_noirqsave(&f, &lock));
	cr_assert_eq(kfifo_out_spinlocked_noirqsave(&f, w, 1, &lock), 1);
	cr_assert_eq(kfifo_out_spinlocked(&f, w + 1, 3, &lock), 3);
	cr_assert_arr_eq(w, v, sizeof(v));
	cr_assert(kfifo_is_empty_spinlocked(&f, &lock));
	/* the lock is real */
	cr_assert(spin_trylock(&lock));
	cr_assert(!spin_trylock(&lock));
	spin_unlock(&lock);
	cr_assert(spin_trylock(&lock));
	spin_unlock(&lock);
}

Test(compat, error_pointers)
{
	void *p = ERR_PTR(-ENOMEM);

	cr_assert(IS_ERR(p));
	cr_assert_eq(PTR_ERR(p), -ENOMEM);
	cr_assert(IS_ERR_OR_NULL(NULL));
	cr_assert(!IS_ERR(&p));
	cr_assert(IS_ERR(ERR_PTR(-MAX_ERRNO)));
	cr_assert(!IS_ERR(ERR_PTR(-MAX_ERRNO - 1)));
}
