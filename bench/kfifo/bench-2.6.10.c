// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The 2.6.10-API side of the kfifo benchmark (__kfifo_put/__kfifo_get byte
 * stream): its own translation unit because kfifo/kfifo-2.6.10.h and
 * kfifo/kfifo.h cannot be included together.
 */
#include <stdint.h>
#include <stdlib.h>

#include "kfifo/kfifo-2.6.10.h"

static DEFINE_SPINLOCK(bench_lock);

void *old_fifo_new(unsigned int size)
{
	struct kfifo *f = kfifo_alloc(size, GFP_KERNEL, &bench_lock);

	return IS_ERR(f) ? NULL : f;
}

void old_fifo_delete(void *fifo)
{
	kfifo_free(fifo);
}

void old_fifo_reset(void *fifo)
{
	__kfifo_reset(fifo);
}

void old_stream_writer(void *fifo, unsigned char *src, size_t chunk, uint64_t total)
{
	for (uint64_t sent = 0; sent < total; sent += chunk) {
		src[0] = (unsigned char)(sent / chunk);
		for (size_t done = 0; done < chunk;) {
			unsigned int n = __kfifo_put(fifo, src + done,
						     (unsigned int)(chunk - done));

			if (!n)
				kfifo_cpu_relax();
			done += n;
		}
	}
}

uint64_t old_stream_reader(void *fifo, unsigned char *dst, size_t chunk, uint64_t total)
{
	uint64_t bad = 0;

	for (uint64_t got = 0; got < total; got += chunk) {
		for (size_t done = 0; done < chunk;) {
			unsigned int n = __kfifo_get(fifo, dst + done,
						     (unsigned int)(chunk - done));

			if (!n)
				kfifo_cpu_relax();
			done += n;
		}
		bad += dst[0] != (unsigned char)(got / chunk);
	}
	return bad;
}
