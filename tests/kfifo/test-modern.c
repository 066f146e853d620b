// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Criterion unit tests of the modern kfifo API (kfifo/kfifo.h): every
 * macro on empty, full, exact-fit and partial transfers, typed and record
 * fifos at their length limits, counters that cross the unsigned
 * wraparound, size 2 and 2^31, and bad arguments.
 */
#include <criterion/criterion.h>
#include <errno.h>
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
