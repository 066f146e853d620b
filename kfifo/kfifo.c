// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Out-of-line half of the modern kfifo API (kfifo/kfifo.h): allocation,
 * bulk copies with wraparound, and record fifos.  The index protocol
 * (which side loads and stores which counter, with what ordering) is the
 * inline __kfifo_room/__kfifo_ready pair in the header; everything here
 * builds on it, so the one-element fast path and these bulk paths stay
 * consistent.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kfifo/kfifo.h"

static inline unsigned int min_uint(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

static inline bool is_power_of_2(unsigned int n)
{
	return n && !(n & (n - 1));
}

static void set_geometry(struct __kfifo *fifo, void *data, unsigned int size,
			 size_t esize)
{
	__kfifo_reset_counters(fifo, 0);
	fifo->esize = (unsigned int)esize;
	fifo->size = size;
	fifo->mask = size ? size - 1 : 0;
	fifo->data = data;
}

int __kfifo_alloc(struct __kfifo *fifo, unsigned int size, size_t esize,
		  gfp_t gfp_mask)
{
	void *data;

	(void)gfp_mask;
	set_geometry(fifo, NULL, 0, esize);
	if (size < 2 || size > 0x80000000u || esize == 0 || esize > UINT_MAX)
		return -EINVAL;
	if (!is_power_of_2(size))
		size = 1u << (32 - __builtin_clz(size));
	if ((size_t)size > SIZE_MAX / esize)
		return -EINVAL;
	data = malloc((size_t)size * esize);
	if (!data)
		return -ENOMEM;
	set_geometry(fifo, data, size, esize);
	return 0;
}

void __kfifo_free(struct __kfifo *fifo)
{
	free(fifo->data);
	set_geometry(fifo, NULL, 0, fifo->esize);
}

int __kfifo_init(struct __kfifo *fifo, void *buffer, unsigned int size,
		 size_t esize)
{
	set_geometry(fifo, NULL, 0, esize);
	if (!buffer || esize == 0 || esize > UINT_MAX)
		return -EINVAL;
	size = (unsigned int)(size / esize);
	if (size < 2)
		return -EINVAL;
	if (!is_power_of_2(size))
		size = 1u << (31 - __builtin_clz(size));	/* round down */
	set_geometry(fifo, buffer, size, esize);
	return 0;
}

/* Copy len elements to / from the ring at counter value `at`. */
static void copy_in(struct __kfifo *fifo, const void *src, unsigned int len,
		    unsigned int at)
{
	if (len)
		__kfifo_copy_in(fifo, src, len, at, fifo->esize);
}

static void copy_out(struct __kfifo *fifo, void *dst, unsigned int len,
		     unsigned int at)
{
	if (len)
		__kfifo_copy_out(fifo, dst, len, at, fifo->esize);
}

unsigned int __kfifo_in(struct __kfifo *fifo, const void *buf,
			unsigned int len)
{
	return __kfifo_in_inline(fifo, buf, len, fifo->esize);
}

unsigned int __kfifo_out_peek(struct __kfifo *fifo, void *buf,
			      unsigned int len)
{
	return __kfifo_out_inline(fifo, buf, len, fifo->esize, false);
}

unsigned int __kfifo_out(struct __kfifo *fifo, void *buf, unsigned int len)
{
	return __kfifo_out_inline(fifo, buf, len, fifo->esize, true);
}

unsigned int __kfifo_out_linear(struct __kfifo *fifo, unsigned int *tail,
				unsigned int n)
{
	unsigned int out = atomic_load_explicit(&fifo->out, memory_order_relaxed);
	unsigned int off = out & fifo->mask;

	n = min_uint(n, __kfifo_ready(fifo, out, n));
	n = min_uint(n, fifo->size - off);
	if (tail)
		*tail = off;
	return n;
}

unsigned int __kfifo_skip_count(struct __kfifo *fifo, unsigned int count)
{
	unsigned int out = atomic_load_explicit(&fifo->out, memory_order_relaxed);

	count = min_uint(count, __kfifo_ready(fifo, out, count));
	if (count)
		atomic_store_explicit(&fifo->out, out + count,
				      memory_order_release);
	return count;
}

/* ---- record fifos: a 1- or 2-byte little-endian length, then payload ---- */

static unsigned int record_limit(size_t recsize)
{
	return recsize == 1 ? 0xffu : recsize == 2 ? 0xffffu : 0;
}

unsigned int __kfifo_max_r(unsigned int len, size_t recsize)
{
	return min_uint(len, record_limit(recsize));
}

static unsigned int read_header(struct __kfifo *fifo, unsigned int at,
				size_t recsize)
{
	const unsigned char *data = fifo->data;
	unsigned int n = data[at & fifo->mask];

	if (recsize == 2)
		n |= (unsigned int)data[(at + 1) & fifo->mask] << 8;
	return n;
}

unsigned int __kfifo_in_r(struct __kfifo *fifo, const void *buf,
			  unsigned int len, size_t recsize)
{
	unsigned int in = atomic_load_explicit(&fifo->in, memory_order_relaxed);
	unsigned char *data = fifo->data;
	unsigned int need;

	if (!record_limit(recsize) || len > record_limit(recsize) ||
	    fifo->esize != 1)
		return 0;
	need = len + (unsigned int)recsize;
	if (__kfifo_room(fifo, in, need) < need)
		return 0;
	data[in & fifo->mask] = (unsigned char)len;
	if (recsize == 2)
		data[(in + 1) & fifo->mask] = (unsigned char)(len >> 8);
	copy_in(fifo, buf, len, in + (unsigned int)recsize);
	atomic_store_explicit(&fifo->in, in + need, memory_order_release);
	return len;
}

/*
 * Look at the next record: its payload length in *len.  Returns false when
 * there is none.  The writer publishes header and payload with one release
 * store, so a visible header means a complete record.
 */
static bool next_record(struct __kfifo *fifo, unsigned int out,
			size_t recsize, unsigned int *len)
{
	if (!record_limit(recsize) || fifo->esize != 1 ||
	    __kfifo_ready(fifo, out, (unsigned int)recsize) < recsize)
		return false;
	*len = read_header(fifo, out, recsize);
	return true;
}

unsigned int __kfifo_len_r(struct __kfifo *fifo, size_t recsize)
{
	unsigned int out = atomic_load_explicit(&fifo->out, memory_order_relaxed);
	unsigned int len;

	return next_record(fifo, out, recsize, &len) ? len : 0;
}

/*
 * Copy the next record into @buf; with @take also remove it.  A record
 * larger than @len stays where it is (EMSGSIZE), unlike the kernel's.
 */
static unsigned int copy_record(struct __kfifo *fifo, void *buf,
				unsigned int len, size_t recsize, bool take)
{
	unsigned int out = atomic_load_explicit(&fifo->out, memory_order_relaxed);
	unsigned int n;

	if (!next_record(fifo, out, recsize, &n))
		return 0;
	if (n > len) {
		errno = EMSGSIZE;
		return 0;
	}
	copy_out(fifo, buf, n, out + (unsigned int)recsize);
	if (take)
		atomic_store_explicit(&fifo->out,
				      out + (unsigned int)recsize + n,
				      memory_order_release);
	return n;
}

unsigned int __kfifo_out_peek_r(struct __kfifo *fifo, void *buf,
				unsigned int len, size_t recsize)
{
	return copy_record(fifo, buf, len, recsize, false);
}

unsigned int __kfifo_out_r(struct __kfifo *fifo, void *buf, unsigned int len,
			   size_t recsize)
{
	return copy_record(fifo, buf, len, recsize, true);
}

void __kfifo_skip_r(struct __kfifo *fifo, size_t recsize)
{
	unsigned int out = atomic_load_explicit(&fifo->out, memory_order_relaxed);
	unsigned int n;

	if (next_record(fifo, out, recsize, &n))
		atomic_store_explicit(&fifo->out, out + (unsigned int)recsize + n,
				      memory_order_release);
}

unsigned int __kfifo_out_linear_r(struct __kfifo *fifo, unsigned int *tail,
				  unsigned int n, size_t recsize)
{
	unsigned int out = atomic_load_explicit(&fifo->out, memory_order_relaxed);
	unsigned int start = (out + (unsigned int)recsize) & fifo->mask;
	unsigned int len;

	if (tail)
		*tail = start;
	if (!next_record(fifo, out, recsize, &len))
		return 0;
	return min_uint(min_uint(n, len), fifo->size - start);
}
