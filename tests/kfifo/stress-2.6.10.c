// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stress-test adapter for the 2.6.10 kfifo API's unlocked paths
 * (__kfifo_put / __kfifo_get, one writer and one reader thread).
 */
#include "kfifo/kfifo-2.6.10.h"
#include "stress.h"

static DEFINE_SPINLOCK(stress_lock);

static void *old_create(unsigned int size)
{
	struct kfifo *f = kfifo_alloc(size, GFP_KERNEL, &stress_lock);

	return IS_ERR(f) ? NULL : f;
}

static void old_destroy(void *fifo)
{
	kfifo_free(fifo);
}

static unsigned int old_put(void *fifo, const unsigned char *buf,
			    unsigned int len)
{
	return __kfifo_put(fifo, (unsigned char *)buf, len);
}

static long old_get(void *fifo, unsigned char *buf, unsigned int len)
{
	return __kfifo_get(fifo, buf, len);
}

const struct stress_ops stress_2_6_10_bytes = {
	.name = "2.6.10 __kfifo_put/__kfifo_get",
	.fifo_size = 2048,
	.create = old_create,
	.destroy = old_destroy,
	.put = old_put,
	.get = old_get,
};
