/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kfifo/kfifo-2.6.10.h - the 2004 kfifo API (Linux 2.6.10, include/linux/
 * kfifo.h as introduced in "Coming in 2.6.10", LWN 2004-10-20) for user
 * space, with the article's signatures so kernel-style code ports
 * unchanged:
 *
 *   struct kfifo *kfifo_init(unsigned char *buffer, unsigned int size,
 *                            int gfp_mask, spinlock_t *lock);
 *   struct kfifo *kfifo_alloc(unsigned int size, int gfp_mask,
 *                             spinlock_t *lock);
 *   void kfifo_free(struct kfifo *fifo);
 *   unsigned int kfifo_put(struct kfifo *fifo, unsigned char *buffer,
 *                          unsigned int len);      (takes fifo->lock)
 *   unsigned int kfifo_get(struct kfifo *fifo, unsigned char *buffer,
 *                          unsigned int len);      (takes fifo->lock)
 *   unsigned int kfifo_len(struct kfifo *fifo);    (takes fifo->lock)
 *   void kfifo_reset(struct kfifo *fifo);          (takes fifo->lock)
 *   __kfifo_put, __kfifo_get, __kfifo_len, __kfifo_reset: the same
 *   without the lock.
 *
 * This is NOT the modern macro API (kfifo/kfifo.h), where kfifo_put puts
 * one element and kfifo_alloc fills in a declared fifo.  One translation
 * unit may include only one of the two headers.
 *
 * Errors never abort: kfifo_init with a size that is not a power of two
 * (or 0, a NULL buffer or a NULL lock) and kfifo_alloc with a size of 0 or
 * above 2^31 return ERR_PTR(-EINVAL); out of memory is ERR_PTR(-ENOMEM).
 * Check with IS_ERR / PTR_ERR.  kfifo_alloc rounds the size up to a power
 * of two.  The fifo returned by kfifo_init is freed with free() (the
 * kernel's kfree), not kfifo_free, as in 2.6.10.
 *
 * Without the lock, one writer (__kfifo_put) and one reader (__kfifo_get)
 * may run concurrently: free-running counters with acquire/release, on
 * separate cache lines, each side caching the other's index.  Unlike 2.6.10,
 * kfifo_get does not rewind the counters when the fifo becomes empty (that
 * was only an optimisation and would race with an unlocked writer).
 * The spinlock_t is a real user-space spinning lock (kfifo/kernel-compat.h);
 * the gfp mask is accepted and ignored.
 */
#ifndef KFIFO_KFIFO_2_6_10_H
#define KFIFO_KFIFO_2_6_10_H

#ifdef KFIFO_KFIFO_H
#error "kfifo/kfifo-2.6.10.h (2004 API) and kfifo/kfifo.h (modern API) cannot be included in the same translation unit: kfifo_put, kfifo_get, kfifo_alloc, kfifo_init, kfifo_len and struct kfifo mean different things in each. Use one header per .c file."
#endif

#include <stdalign.h>
#include <stdatomic.h>

#include "kernel-compat.h"

struct kfifo {
	alignas(64) unsigned char *buffer;	/* the buffer holding the data */
	unsigned int size;	/* the size of the allocated buffer */
	spinlock_t *lock;	/* protects concurrent modifications */
	/* data is put at offset (in % size), written by the writer only */
	alignas(64) atomic_uint in;
	unsigned int out_cache;	/* writer's last seen `out` */
	/* data is taken from offset (out % size), written by the reader only */
	alignas(64) atomic_uint out;
	unsigned int in_cache;	/* reader's last seen `in` */
};

struct kfifo *kfifo_init(unsigned char *buffer, unsigned int size,
			 int gfp_mask, spinlock_t *lock);
struct kfifo *kfifo_alloc(unsigned int size, int gfp_mask, spinlock_t *lock);
void kfifo_free(struct kfifo *fifo);
unsigned int __kfifo_put(struct kfifo *fifo, unsigned char *buffer,
			 unsigned int len);
unsigned int __kfifo_get(struct kfifo *fifo, unsigned char *buffer,
			 unsigned int len);

/* Only while no other thread uses the fifo (or under fifo->lock). */
static inline void __kfifo_reset(struct kfifo *fifo)
{
	atomic_store_explicit(&fifo->in, 0, memory_order_relaxed);
	atomic_store_explicit(&fifo->out, 0, memory_order_relaxed);
	fifo->in_cache = 0;
	fifo->out_cache = 0;
}

static inline void kfifo_reset(struct kfifo *fifo)
{
	unsigned long flags;

	spin_lock_irqsave(fifo->lock, flags);
	__kfifo_reset(fifo);
	spin_unlock_irqrestore(fifo->lock, flags);
}

static inline unsigned int kfifo_put(struct kfifo *fifo, unsigned char *buffer,
				     unsigned int len)
{
	unsigned long flags;
	unsigned int ret;

	spin_lock_irqsave(fifo->lock, flags);
	ret = __kfifo_put(fifo, buffer, len);
	spin_unlock_irqrestore(fifo->lock, flags);
	return ret;
}

static inline unsigned int kfifo_get(struct kfifo *fifo, unsigned char *buffer,
				     unsigned int len)
{
	unsigned long flags;
	unsigned int ret;

	spin_lock_irqsave(fifo->lock, flags);
	ret = __kfifo_get(fifo, buffer, len);
	spin_unlock_irqrestore(fifo->lock, flags);
	return ret;
}

static inline unsigned int __kfifo_len(struct kfifo *fifo)
{
	unsigned int out = atomic_load_explicit(&fifo->out, memory_order_acquire);

	return atomic_load_explicit(&fifo->in, memory_order_acquire) - out;
}

static inline unsigned int kfifo_len(struct kfifo *fifo)
{
	unsigned long flags;
	unsigned int ret;

	spin_lock_irqsave(fifo->lock, flags);
	ret = __kfifo_len(fifo);
	spin_unlock_irqrestore(fifo->lock, flags);
	return ret;
}

/* Not in 2.6.10: start the counters at `start` (tests cross wraparound). */
static inline void __kfifo_reset_to(struct kfifo *fifo, unsigned int start)
{
	atomic_store_explicit(&fifo->in, start, memory_order_relaxed);
	atomic_store_explicit(&fifo->out, start, memory_order_relaxed);
	fifo->in_cache = start;
	fifo->out_cache = start;
}

#endif /* KFIFO_KFIFO_2_6_10_H */
