// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Criterion unit tests of the 2004 kfifo API (kfifo/kfifo-2.6.10.h): the
 * article's signatures, error pointers for bad sizes, rounding, locked and
 * unlocked copies on empty/full/exact/partial transfers across the counter
 * wraparound, and that the locked calls really take fifo->lock.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfifo/kfifo-2.6.10.h"

static DEFINE_SPINLOCK(lock);

static void pattern(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed * 31 + i * 13 + (i >> 7));
}

Test(old_api, alloc_errors_and_rounding)
{
	struct kfifo *f;

	f = kfifo_alloc(0, GFP_KERNEL, &lock);
	cr_assert(IS_ERR(f));
	cr_assert_eq(PTR_ERR(f), -EINVAL);
	f = kfifo_alloc(0x80000001u, GFP_KERNEL, &lock);
	cr_assert(IS_ERR(f));
	cr_assert_eq(PTR_ERR(f), -EINVAL);
	f = kfifo_alloc(UINT_MAX, GFP_ATOMIC, &lock);
	cr_assert_eq(PTR_ERR(f), -EINVAL);
	f = kfifo_alloc(16, GFP_KERNEL, NULL);
	cr_assert_eq(PTR_ERR(f), -EINVAL, "a NULL lock would crash kfifo_put");
	kfifo_free(f);	/* freeing an error pointer is harmless */

	f = kfifo_alloc(100, GFP_KERNEL, &lock);
	cr_assert(!IS_ERR_OR_NULL(f));
	cr_assert_eq(f->size, 128, "rounded up to a power of two");
	cr_assert_eq(f->lock, &lock);
	cr_assert_eq(kfifo_len(f), 0);
	kfifo_free(f);
	f = kfifo_alloc(1, GFP_KERNEL, &lock);
	cr_assert(!IS_ERR(f));
	cr_assert_eq(f->size, 1);
	kfifo_free(f);
	f = kfifo_alloc(0x80000000u, GFP_KERNEL, &lock);
	cr_assert(!IS_ERR(f), "2^31 is allowed");
	cr_assert_eq(f->size, 0x80000000u);
	kfifo_free(f);
}

Test(old_api, init_errors)
{
	unsigned char buf[64];
	struct kfifo *f;

	cr_assert_eq(PTR_ERR(kfifo_init(buf, 63, GFP_KERNEL, &lock)), -EINVAL);
	cr_assert_eq(PTR_ERR(kfifo_init(buf, 48, GFP_KERNEL, &lock)), -EINVAL);
	cr_assert_eq(PTR_ERR(kfifo_init(buf, 0, GFP_KERNEL, &lock)), -EINVAL);
	cr_assert_eq(PTR_ERR(kfifo_init(NULL, 64, GFP_KERNEL, &lock)), -EINVAL);
	cr_assert_eq(PTR_ERR(kfifo_init(buf, 64, GFP_KERNEL, NULL)), -EINVAL);
	f = kfifo_init(buf, 2, GFP_KERNEL, &lock);
	cr_assert(!IS_ERR(f));
	cr_assert_eq(f->buffer, buf);
	cr_assert_eq(f->size, 2);
	cr_assert_eq(kfifo_put(f, (unsigned char *)"xyz", 3), 2);
	unsigned char out[3];
	cr_assert_eq(kfifo_get(f, out, 3), 2);
	cr_assert_eq(memcmp(out, "xy", 2), 0);
	free(f);	/* as in 2.6.10: kfifo_init's result is kfree'd, not kfifo_free'd */
}

static const unsigned int starts[] = { 0, UINT_MAX - 5, UINT_MAX - 200, 0x7ffffff0u };

Test(old_api, put_get_len_reset_across_wrap)
{
	unsigned char src[400], dst[400];

	pattern(src, sizeof(src), 1);
	for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
		struct kfifo *f = kfifo_alloc(256, GFP_KERNEL, &lock);

		cr_assert(!IS_ERR(f));
		__kfifo_reset_to(f, starts[s]);
		cr_assert_eq(kfifo_get(f, dst, 10), 0, "empty");
		cr_assert_eq(kfifo_put(f, src, 300), 256, "partial: only 256 fit");
		cr_assert_eq(kfifo_len(f), 256);
		cr_assert_eq(kfifo_put(f, src, 1), 0, "full");
		cr_assert_eq(kfifo_get(f, dst, 100), 100);
		cr_assert_eq(memcmp(dst, src, 100), 0);
		cr_assert_eq(__kfifo_put(f, src + 256, 100), 100, "exact fit");
		cr_assert_eq(__kfifo_len(f), 256);
		cr_assert_eq(__kfifo_put(f, src, 1), 0);
		cr_assert_eq(__kfifo_get(f, dst, 400), 256, "partial get");
		cr_assert_eq(memcmp(dst, src + 100, 256), 0);
		cr_assert_eq(__kfifo_get(f, dst, 1), 0);
		cr_assert_eq(__kfifo_put(f, src, 0), 0);
		cr_assert_eq(__kfifo_put(f, src, 7), 7);
		kfifo_reset(f);
		cr_assert_eq(kfifo_len(f), 0);
		cr_assert_eq(kfifo_get(f, dst, 7), 0);
		cr_assert_eq(kfifo_put(f, src, 7), 7);
		__kfifo_reset(f);
		cr_assert_eq(__kfifo_len(f), 0);
		kfifo_free(f);
	}
}

/* kfifo_put must wait for fifo->lock. */
struct blocked {
	struct kfifo *fifo;
	atomic_int done;
};

static void *put_under_lock(void *arg)
{
	struct blocked *b = arg;
	unsigned char c = 'q';

	kfifo_put(b->fifo, &c, 1);
	atomic_store(&b->done, 1);
	return NULL;
}

Test(old_api, locked_calls_take_the_lock, .timeout = 30)
{
	spinlock_t mine;
	struct blocked b = { 0 };
	pthread_t t;
	struct timespec pause = { 0, 50 * 1000 * 1000 };

	spin_lock_init(&mine);
	b.fifo = kfifo_alloc(8, GFP_KERNEL, &mine);
	cr_assert(!IS_ERR(b.fifo));
	spin_lock(&mine);
	cr_assert_eq(pthread_create(&t, NULL, put_under_lock, &b), 0);
	nanosleep(&pause, NULL);
	cr_assert_eq(atomic_load(&b.done), 0, "kfifo_put ran while the lock was held");
	cr_assert_eq(__kfifo_len(b.fifo), 0);
	spin_unlock(&mine);
	pthread_join(t, NULL);
	cr_assert_eq(atomic_load(&b.done), 1);
	cr_assert_eq(kfifo_len(b.fifo), 1);
	kfifo_free(b.fifo);
}

/* The two headers refuse to meet in one translation unit. */
static int compile_snippet(const char *snippet, char *log, size_t logsz)
{
	char cmd[1024];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd),
		 "printf '%s\\n' | " KFIFO_TEST_CC " -std=c11 -D_GNU_SOURCE -I" KFIFO_INCLUDE
		 " -fsyntax-only -x c - 2>&1", snippet);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(log, 1, logsz - 1, p);
	log[n] = 0;
	return pclose(p);
}

Test(headers, generations_refuse_one_translation_unit)
{
	char log[8192];

	cr_assert_eq(compile_snippet("#include <kfifo/kfifo.h>", log, sizeof(log)), 0, "%s", log);
	cr_assert_eq(compile_snippet("#include <kfifo/kfifo-2.6.10.h>", log, sizeof(log)), 0, "%s", log);
	cr_assert_neq(compile_snippet("#include <kfifo/kfifo.h>\\n#include <kfifo/kfifo-2.6.10.h>",
				      log, sizeof(log)), 0);
	cr_assert_not_null(strstr(log, "cannot be included in the same translation unit"), "%s", log);
	cr_assert_neq(compile_snippet("#include <kfifo/kfifo-2.6.10.h>\\n#include <kfifo/kfifo.h>",
				      log, sizeof(log)), 0);
	cr_assert_not_null(strstr(log, "cannot be included in the same translation unit"), "%s", log);
	/* a static fifo size must be a power of two >= 2 */
	cr_assert_neq(compile_snippet("#include <kfifo/kfifo.h>\\nDECLARE_KFIFO(f, int, 12);",
				      log, sizeof(log)), 0);
	cr_assert_eq(compile_snippet("#include <kfifo/kfifo.h>\\nDECLARE_KFIFO(f, int, 16);",
				     log, sizeof(log)), 0, "%s", log);
}
