// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The 2004 kfifo API (kfifo/kfifo-2.6.10.h): allocation with error
 * pointers and the unlocked byte copies.  The locked calls are inline in
 * the header.  Lock-free for one writer and one reader, with the same
 * index protocol as the modern API (kfifo.c) on the 2.6.10 struct layout.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kfifo/kfifo-2.6.10.h"

static inline unsigned int min_uint(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

struct kfifo *kfifo_init(unsigned char *buffer, unsigned int size,
			 int gfp_mask, spinlock_t *lock)
{
	struct kfifo *fifo;

	(void)gfp_mask;
	if (!buffer || !lock || size == 0 || (size & (size - 1)))
		return ERR_PTR(-EINVAL);
	fifo = aligned_alloc(alignof(struct kfifo), sizeof(*fifo));
	if (!fifo)
		return ERR_PTR(-ENOMEM);
	memset(fifo, 0, sizeof(*fifo));
	fifo->buffer = buffer;
	fifo->size = size;
	fifo->lock = lock;
	__kfifo_reset(fifo);
	return fifo;
}

struct kfifo *kfifo_alloc(unsigned int size, int gfp_mask, spinlock_t *lock)
{
	unsigned char *buffer;
	struct kfifo *fifo;

	if (size == 0 || size > 0x80000000u || !lock)
		return ERR_PTR(-EINVAL);
	if (size & (size - 1))
		size = 1u << (32 - __builtin_clz(size));	/* round up */
	buffer = malloc(size);
	if (!buffer)
		return ERR_PTR(-ENOMEM);
	fifo = kfifo_init(buffer, size, gfp_mask, lock);
	if (IS_ERR(fifo))
		free(buffer);
	return fifo;
}

void kfifo_free(struct kfifo *fifo)
{
	if (IS_ERR_OR_NULL(fifo))
		return;
	free(fifo->buffer);
	free(fifo);
}

unsigned int __kfifo_put(struct kfifo *fifo, unsigned char *buffer,
			 unsigned int len)
{
	unsigned int in = atomic_load_explicit(&fifo->in, memory_order_relaxed);
	unsigned int room = fifo->size - (in - fifo->out_cache);
	unsigned int off, first;

	if (!len)
		return 0;
	if (room < len) {
		fifo->out_cache = atomic_load_explicit(&fifo->out,
						       memory_order_acquire);
		room = fifo->size - (in - fifo->out_cache);
		len = min_uint(len, room);
		if (!len)
			return 0;
	}
	off = in & (fifo->size - 1);
	first = min_uint(len, fifo->size - off);
	memcpy(fifo->buffer + off, buffer, first);
	if (len > first)
		memcpy(fifo->buffer, buffer + first, len - first);
	atomic_store_explicit(&fifo->in, in + len, memory_order_release);
	return len;
}

unsigned int __kfifo_get(struct kfifo *fifo, unsigned char *buffer,
			 unsigned int len)
{
	unsigned int out = atomic_load_explicit(&fifo->out, memory_order_relaxed);
	unsigned int ready = fifo->in_cache - out;
	unsigned int off, first;

	if (!len)
		return 0;
	if (ready < len) {
		fifo->in_cache = atomic_load_explicit(&fifo->in,
						      memory_order_acquire);
		ready = fifo->in_cache - out;
		len = min_uint(len, ready);
		if (!len)
			return 0;
	}
	off = out & (fifo->size - 1);
	first = min_uint(len, fifo->size - off);
	memcpy(buffer, fifo->buffer + off, first);
	if (len > first)
		memcpy(buffer + first, fifo->buffer, len - first);
	atomic_store_explicit(&fifo->out, out + len, memory_order_release);
	return len;
}
