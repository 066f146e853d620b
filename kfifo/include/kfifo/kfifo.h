/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kfifo/kfifo.h - the MODERN kernel kfifo API (the macro API of Linux
 * 2.6.33 and later, as in today's <linux/kfifo.h>) for user-space C11.
 *
 * This is NOT the 2004 API.  The 2.6.10 API (kfifo_put/kfifo_get copying
 * bytes under a spinlock, struct kfifo *kfifo_alloc(size, gfp, lock), ...)
 * lives in kfifo/kfifo-2.6.10.h.  The same names mean different things in
 * the two generations, so one translation unit may include only one of
 * them; both are in the same library (libkfifo.a / libkfifo.so) with
 * distinct link symbols.
 *
 * Fifos are declared statically (DECLARE_KFIFO, DEFINE_KFIFO, INIT_KFIFO)
 * or as pointer fifos (DECLARE_KFIFO_PTR + kfifo_alloc / kfifo_init), typed
 * by their element, or as record fifos with a 1- or 2-byte length header
 * (STRUCT_KFIFO_REC_1/2, struct kfifo_rec_ptr_1/2).
 *
 * Concurrency: one writer thread and one reader thread need no lock.  The
 * counters run freely (unsigned wraparound); the writer publishes with a
 * release store of `in`, the reader with a release store of `out`, each
 * side loads the other's index with acquire and only when its cached copy
 * says there is not enough room / data.  `in` and `out` live on separate
 * 64-byte cache lines.  Writer-side calls: kfifo_in, kfifo_put, kfifo_avail,
 * kfifo_is_full.  Reader-side calls: kfifo_out, kfifo_get, kfifo_peek,
 * kfifo_out_peek, kfifo_peek_len, kfifo_skip, kfifo_skip_count,
 * kfifo_out_linear(_ptr), kfifo_reset_out.  Either side: kfifo_len,
 * kfifo_is_empty, kfifo_size, kfifo_esize, kfifo_recsize.  kfifo_reset,
 * kfifo_init, kfifo_alloc and kfifo_free need both sides idle.  More than
 * one writer (or reader) must serialise with the _spinlocked variants.
 *
 * Because the fifo control block is 64-byte aligned, an object containing
 * one must be static, automatic, or allocated with aligned_alloc(64, ...)
 * (plain malloc only guarantees 16 bytes; UBSan reports misuse).
 *
 * Differences from the kernel, on purpose:
 *  - Records: kfifo_in of a record longer than the header can describe
 *    (255 bytes for 1-byte, 65535 for 2-byte headers) or larger than the
 *    free space stores nothing and returns 0 (the kernel truncates the
 *    length silently).  Putting a record is all-or-nothing.
 *  - Records: kfifo_out / kfifo_out_peek / kfifo_get into a buffer smaller
 *    than the next record copy nothing, leave the record in the fifo,
 *    set errno to EMSGSIZE and return 0 (the kernel copies a prefix and
 *    drops the rest).  Size the buffer with kfifo_peek_len first.
 *  - kfifo_peek_len on an empty record fifo returns 0 (the kernel reads
 *    stale bytes).  Zero-length records are allowed and also return 0:
 *    tell them apart with kfifo_is_empty.
 *  - kfifo_size is 0 for a fifo that was never set up (or whose
 *    kfifo_alloc failed); every operation on it moves nothing.
 *  - kfifo_skip_count never skips more than is in the fifo.
 *  - Not provided: kfifo_to_user/kfifo_from_user and the DMA helpers.
 *  - kfifo_reset_to(fifo, start) (not in the kernel) starts the counters at
 *    `start`, so tests can cross the unsigned wraparound at once.
 */
#ifndef KFIFO_KFIFO_H
#define KFIFO_KFIFO_H

#ifdef KFIFO_KFIFO_2_6_10_H
#error "kfifo/kfifo.h (modern API) and kfifo/kfifo-2.6.10.h (2004 API) cannot be included in the same translation unit: kfifo_put, kfifo_get, kfifo_alloc, kfifo_init, kfifo_len and struct kfifo mean different things in each. Use one header per .c file."
#endif

#include <limits.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "kernel-compat.h"

#define KFIFO_CACHE_LINE	64

/*
 * The control block.  Three cache lines: the writer's, the reader's and a
 * read-only one with the geometry.  Counters count elements (bytes for
 * record fifos) and are never masked until an index is needed.
 */
struct __kfifo {
	/* written by the writer only */
	alignas(KFIFO_CACHE_LINE) atomic_uint in;
	unsigned int out_cache;		/* writer's last seen `out` */
	/* written by the reader only */
	alignas(KFIFO_CACHE_LINE) atomic_uint out;
	unsigned int in_cache;		/* reader's last seen `in` */
	/* set up once, then read-only */
	alignas(KFIFO_CACHE_LINE) unsigned int size;	/* elements; 0: not set up */
	unsigned int mask;		/* size - 1 */
	unsigned int esize;		/* bytes per element */
	void *data;
};

#define __STRUCT_KFIFO_COMMON(datatype, recsize, ptrtype) \
	union { \
		struct __kfifo	kfifo; \
		datatype	*type; \
		const datatype	*const_type; \
		char		(*rectype)[recsize]; \
		ptrtype		*ptr; \
		ptrtype const	*ptr_const; \
	}

#define __STRUCT_KFIFO(type, size, recsize, ptrtype) \
{ \
	__STRUCT_KFIFO_COMMON(type, recsize, ptrtype); \
	type	buf[((size) < 2 || ((size) & ((size) - 1))) ? -1 : (long)(size)]; \
}

#define STRUCT_KFIFO(type, size) \
	struct __STRUCT_KFIFO(type, size, 0, type)

#define __STRUCT_KFIFO_PTR(type, recsize, ptrtype) \
{ \
	__STRUCT_KFIFO_COMMON(type, recsize, ptrtype); \
	type	buf[0]; \
}

#define STRUCT_KFIFO_PTR(type) \
	struct __STRUCT_KFIFO_PTR(type, 0, type)

/* The plain byte fifo, dynamically allocated. */
struct kfifo __STRUCT_KFIFO_PTR(unsigned char, 0, void);

#define STRUCT_KFIFO_REC_1(size) \
	struct __STRUCT_KFIFO(unsigned char, size, 1, void)
#define STRUCT_KFIFO_REC_2(size) \
	struct __STRUCT_KFIFO(unsigned char, size, 2, void)

/* Record fifos with a 1- or 2-byte length header, dynamically allocated. */
struct kfifo_rec_ptr_1 __STRUCT_KFIFO_PTR(unsigned char, 1, void);
struct kfifo_rec_ptr_2 __STRUCT_KFIFO_PTR(unsigned char, 2, void);

/* True for fifos whose buffer is allocated or given later. */
#define __is_kfifo_ptr(fifo) \
	(sizeof(*(fifo)) == sizeof(STRUCT_KFIFO_PTR(__typeof__(*(fifo)->type))))

#define DECLARE_KFIFO_PTR(fifo, type)	STRUCT_KFIFO_PTR(type) fifo
#define DECLARE_KFIFO(fifo, type, size)	STRUCT_KFIFO(type, size) fifo

#define INIT_KFIFO(fifo) \
	(void)({ \
		__typeof__(&(fifo)) __tmp = &(fifo); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		const int __ptr = __is_kfifo_ptr(__tmp); \
		__kfifo_reset_counters(__kfifo, 0); \
		__kfifo->esize = sizeof(*__tmp->buf); \
		__kfifo->size = __ptr ? 0 : \
			(unsigned int)(sizeof(__tmp->buf) / sizeof(*__tmp->buf)); \
		__kfifo->mask = __ptr ? 0 : __kfifo->size - 1; \
		__kfifo->data = __ptr ? NULL : __tmp->buf; \
	})

#define DEFINE_KFIFO(fifo, type, nelem) \
	DECLARE_KFIFO(fifo, type, nelem) = { .kfifo = { \
		.size = (nelem), .mask = (nelem) - 1, \
		.esize = sizeof(type), .data = (fifo).buf } }

/* ---- out-of-line parts (libkfifo) ---- */
int __kfifo_alloc(struct __kfifo *fifo, unsigned int size, size_t esize,
		  gfp_t gfp_mask);
void __kfifo_free(struct __kfifo *fifo);
int __kfifo_init(struct __kfifo *fifo, void *buffer, unsigned int size,
		 size_t esize);
unsigned int __kfifo_in(struct __kfifo *fifo, const void *buf,
			unsigned int len);
unsigned int __kfifo_out(struct __kfifo *fifo, void *buf, unsigned int len);
unsigned int __kfifo_out_peek(struct __kfifo *fifo, void *buf,
			      unsigned int len);
unsigned int __kfifo_out_linear(struct __kfifo *fifo, unsigned int *tail,
				unsigned int n);
unsigned int __kfifo_skip_count(struct __kfifo *fifo, unsigned int count);
unsigned int __kfifo_max_r(unsigned int len, size_t recsize);
unsigned int __kfifo_in_r(struct __kfifo *fifo, const void *buf,
			  unsigned int len, size_t recsize);
unsigned int __kfifo_out_r(struct __kfifo *fifo, void *buf, unsigned int len,
			   size_t recsize);
unsigned int __kfifo_out_peek_r(struct __kfifo *fifo, void *buf,
				unsigned int len, size_t recsize);
unsigned int __kfifo_len_r(struct __kfifo *fifo, size_t recsize);
void __kfifo_skip_r(struct __kfifo *fifo, size_t recsize);
unsigned int __kfifo_out_linear_r(struct __kfifo *fifo, unsigned int *tail,
				  unsigned int n, size_t recsize);

/* ---- inline core: the SPSC index protocol ---- */

/* Only while no other thread uses the fifo. */
static inline void __kfifo_reset_counters(struct __kfifo *fifo,
					  unsigned int start)
{
	atomic_store_explicit(&fifo->in, start, memory_order_relaxed);
	atomic_store_explicit(&fifo->out, start, memory_order_relaxed);
	fifo->in_cache = start;
	fifo->out_cache = start;
}

/* Writer: free elements, loading `out` only when the cache says < want. */
static inline unsigned int __kfifo_room(struct __kfifo *fifo, unsigned int in,
					unsigned int want)
{
	unsigned int room = fifo->size - (in - fifo->out_cache);

	if (room < want) {
		fifo->out_cache = atomic_load_explicit(&fifo->out,
						       memory_order_acquire);
		room = fifo->size - (in - fifo->out_cache);
	}
	return room;
}

/* Reader: used elements, loading `in` only when the cache says < want. */
static inline unsigned int __kfifo_ready(struct __kfifo *fifo,
					 unsigned int out, unsigned int want)
{
	unsigned int ready = fifo->in_cache - out;

	if (ready < want) {
		fifo->in_cache = atomic_load_explicit(&fifo->in,
						      memory_order_acquire);
		ready = fifo->in_cache - out;
	}
	return ready;
}

static inline unsigned int __kfifo_used(struct __kfifo *fifo)
{
	unsigned int out = atomic_load_explicit(&fifo->out, memory_order_acquire);

	return atomic_load_explicit(&fifo->in, memory_order_acquire) - out;
}

/*
 * Byte/element copies with wraparound, inline so that small transfers cost
 * no calls (the exported __kfifo_in/__kfifo_out are these same functions).
 * `esize` is the compile-time element size where the caller knows it.
 */
static inline void __kfifo_copy_in(struct __kfifo *fifo, const void *src,
				   unsigned int len, unsigned int at, size_t esize)
{
	unsigned int off = at & fifo->mask;
	unsigned int first = fifo->size - off;
	char *data = (char *)fifo->data;

	if (first >= len) {
		memcpy(data + off * esize, src, len * esize);
	} else {
		memcpy(data + off * esize, src, first * esize);
		memcpy(data, (const char *)src + first * esize,
		       (len - first) * esize);
	}
}

static inline void __kfifo_copy_out(struct __kfifo *fifo, void *dst,
				    unsigned int len, unsigned int at,
				    size_t esize)
{
	unsigned int off = at & fifo->mask;
	unsigned int first = fifo->size - off;
	const char *data = (const char *)fifo->data;

	if (first >= len) {
		memcpy(dst, data + off * esize, len * esize);
	} else {
		memcpy(dst, data + off * esize, first * esize);
		memcpy((char *)dst + first * esize, data,
		       (len - first) * esize);
	}
}

/* Writer: copy up to len elements in; returns how many. */
static inline unsigned int __kfifo_in_inline(struct __kfifo *fifo,
					     const void *buf, unsigned int len,
					     size_t esize)
{
	unsigned int in = atomic_load_explicit(&fifo->in, memory_order_relaxed);
	unsigned int room = __kfifo_room(fifo, in, len);

	if (len > room)
		len = room;
	if (!len)
		return 0;
	__kfifo_copy_in(fifo, buf, len, in, esize);
	atomic_store_explicit(&fifo->in, in + len, memory_order_release);
	return len;
}

/* Reader: copy up to len elements out, taking them if `take`. */
static inline unsigned int __kfifo_out_inline(struct __kfifo *fifo, void *buf,
					      unsigned int len, size_t esize,
					      bool take)
{
	unsigned int out = atomic_load_explicit(&fifo->out, memory_order_relaxed);
	unsigned int ready = __kfifo_ready(fifo, out, len);

	if (len > ready)
		len = ready;
	if (!len)
		return 0;
	__kfifo_copy_out(fifo, buf, len, out, esize);
	if (take)
		atomic_store_explicit(&fifo->out, out + len, memory_order_release);
	return len;
}

/* ---- geometry and state ---- */
#define kfifo_initialized(fifo)	(!!(fifo)->kfifo.size)
#define kfifo_esize(fifo)	((fifo)->kfifo.esize)
#define kfifo_recsize(fifo)	(sizeof(*(fifo)->rectype))
#define kfifo_size(fifo)	((fifo)->kfifo.size)

#define kfifo_reset(fifo) \
	(void)({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		__kfifo_reset_counters(&__tmp->kfifo, 0); \
	})

/* Not in the kernel: kfifo_reset starting the counters at `start`. */
#define kfifo_reset_to(fifo, start) \
	(void)({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		__kfifo_reset_counters(&__tmp->kfifo, (start)); \
	})

/* Reader side: drop everything currently in the fifo. */
#define kfifo_reset_out(fifo) \
	(void)({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		struct __kfifo *__k = &__tmp->kfifo; \
		unsigned int __in = atomic_load_explicit(&__k->in, \
						memory_order_acquire); \
		__k->in_cache = __in; \
		atomic_store_explicit(&__k->out, __in, memory_order_release); \
	})

#define kfifo_len(fifo) \
	({ \
		__typeof__((fifo) + 1) __tmpl = (fifo); \
		__kfifo_used(&__tmpl->kfifo); \
	})

#define kfifo_is_empty(fifo) \
	({ \
		__typeof__((fifo) + 1) __tmpq = (fifo); \
		__kfifo_used(&__tmpq->kfifo) == 0; \
	})

#define kfifo_is_empty_spinlocked(fifo, lock) \
	({ \
		unsigned long __flags; \
		bool __ret; \
		spin_lock_irqsave(lock, __flags); \
		__ret = kfifo_is_empty(fifo); \
		spin_unlock_irqrestore(lock, __flags); \
		__ret; \
	})

#define kfifo_is_empty_spinlocked_noirqsave(fifo, lock) \
	({ \
		bool __ret; \
		spin_lock(lock); \
		__ret = kfifo_is_empty(fifo); \
		spin_unlock(lock); \
		__ret; \
	})

#define kfifo_is_full(fifo) \
	({ \
		__typeof__((fifo) + 1) __tmpq = (fifo); \
		__kfifo_used(&__tmpq->kfifo) >= __tmpq->kfifo.size; \
	})

/* Free elements; for record fifos the largest record that still fits. */
#define kfifo_avail(fifo) \
	({ \
		__typeof__((fifo) + 1) __tmpq = (fifo); \
		const size_t __recsize = sizeof(*__tmpq->rectype); \
		unsigned int __avail = __tmpq->kfifo.size - \
				       __kfifo_used(&__tmpq->kfifo); \
		(__recsize) ? ((__avail <= __recsize) ? 0 : \
			__kfifo_max_r(__avail - __recsize, __recsize)) : \
			__avail; \
	})

/* Reader side: drop one element or one record. */
#define kfifo_skip(fifo) \
	(void)({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		const size_t __recsize = sizeof(*__tmp->rectype); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		if (__recsize) \
			__kfifo_skip_r(__kfifo, __recsize); \
		else \
			__kfifo_skip_count(__kfifo, 1); \
	})

/* Reader side: drop `count` elements (never more than are there). */
#define kfifo_skip_count(fifo, count) \
	(void)({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		__kfifo_skip_count(&__tmp->kfifo, (count)); \
	})

/* Bytes of the next record (record fifos) or bytes in the fifo. */
#define kfifo_peek_len(fifo) \
	({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		const size_t __recsize = sizeof(*__tmp->rectype); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		(!__recsize) ? kfifo_len(__tmp) * (unsigned int)sizeof(*__tmp->type) : \
			__kfifo_len_r(__kfifo, __recsize); \
	})

/* ---- allocation ---- */

/* Pointer fifos only; size is rounded up to a power of two (>= 2). */
#define kfifo_alloc(fifo, size, gfp_mask) \
	({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		__is_kfifo_ptr(__tmp) ? \
			__kfifo_alloc(__kfifo, (size), sizeof(*__tmp->type), \
				      (gfp_mask)) : -EINVAL; \
	})

#define kfifo_free(fifo) \
	(void)({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		if (__is_kfifo_ptr(__tmp)) \
			__kfifo_free(__kfifo); \
	})

/* Pointer fifos only; uses the largest power of two of elements that fits. */
#define kfifo_init(fifo, buffer, size) \
	({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		__is_kfifo_ptr(__tmp) ? \
			__kfifo_init(__kfifo, (buffer), (size), \
				     sizeof(*__tmp->type)) : -EINVAL; \
	})

/* ---- one element ---- */

/* Writer side: put one element (or a one-element record); 1 or 0 if full. */
#define kfifo_put(fifo, val) \
	({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		__typeof__(*__tmp->const_type) __val = (val); \
		const size_t __recsize = sizeof(*__tmp->rectype); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		unsigned int __ret; \
		if (__recsize) { \
			__ret = __kfifo_in_r(__kfifo, &__val, sizeof(__val), \
					     __recsize); \
		} else { \
			unsigned int __in = atomic_load_explicit(&__kfifo->in, \
						memory_order_relaxed); \
			__ret = __kfifo_room(__kfifo, __in, 1) != 0; \
			if (__ret) { \
				((__typeof__(__tmp->type))__kfifo->data) \
					[__in & __kfifo->mask] = __val; \
				atomic_store_explicit(&__kfifo->in, __in + 1, \
						      memory_order_release); \
			} \
		} \
		__ret; \
	})

/* Reader side: take one element into *val; 1, or 0 if empty. */
#define kfifo_get(fifo, val) \
	({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		__typeof__(__tmp->ptr) __val = (val); \
		const size_t __recsize = sizeof(*__tmp->rectype); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		unsigned int __ret; \
		if (__recsize) { \
			__ret = __kfifo_out_r(__kfifo, __val, sizeof(*__val), \
					      __recsize); \
		} else { \
			unsigned int __out = atomic_load_explicit(&__kfifo->out, \
						memory_order_relaxed); \
			__ret = __kfifo_ready(__kfifo, __out, 1) != 0; \
			if (__ret) { \
				*(__typeof__(__tmp->type))__val = \
					((__typeof__(__tmp->type))__kfifo->data) \
						[__out & __kfifo->mask]; \
				atomic_store_explicit(&__kfifo->out, __out + 1, \
						      memory_order_release); \
			} \
		} \
		__ret; \
	})

/* Reader side: copy the next element into *val without taking it. */
#define kfifo_peek(fifo, val) \
	({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		__typeof__(__tmp->ptr) __val = (val); \
		const size_t __recsize = sizeof(*__tmp->rectype); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		unsigned int __ret; \
		if (__recsize) { \
			__ret = __kfifo_out_peek_r(__kfifo, __val, \
						   sizeof(*__val), __recsize); \
		} else { \
			unsigned int __out = atomic_load_explicit(&__kfifo->out, \
						memory_order_relaxed); \
			__ret = __kfifo_ready(__kfifo, __out, 1) != 0; \
			if (__ret) \
				*(__typeof__(__tmp->type))__val = \
					((__typeof__(__tmp->type))__kfifo->data) \
						[__out & __kfifo->mask]; \
		} \
		__ret; \
	})

/* ---- many elements / one record ---- */

/* Count arguments are clamped to UINT_MAX (a record that long is refused). */
#define __kfifo_count(n) \
	({ \
		unsigned long long __cnt = (unsigned long long)(n); \
		__cnt > UINT_MAX ? UINT_MAX : (unsigned int)__cnt; \
	})

/*
 * Writer side: copy up to n elements in; returns how many.  Record fifos:
 * store one record of n bytes completely or not at all; returns n or 0.
 */
#define kfifo_in(fifo, buf, n) \
	({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		__typeof__(__tmp->ptr_const) __buf = (buf); \
		unsigned int __n = __kfifo_count(n); \
		const size_t __recsize = sizeof(*__tmp->rectype); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		(__recsize) ? __kfifo_in_r(__kfifo, __buf, __n, __recsize) : \
			__kfifo_in_inline(__kfifo, __buf, __n, \
					  sizeof(*__tmp->type)); \
	})

#define kfifo_in_spinlocked(fifo, buf, n, lock) \
	({ \
		unsigned long __flags; \
		unsigned int __ret; \
		spin_lock_irqsave(lock, __flags); \
		__ret = kfifo_in(fifo, buf, n); \
		spin_unlock_irqrestore(lock, __flags); \
		__ret; \
	})

#define kfifo_in_spinlocked_noirqsave(fifo, buf, n, lock) \
	({ \
		unsigned int __ret; \
		spin_lock(lock); \
		__ret = kfifo_in(fifo, buf, n); \
		spin_unlock(lock); \
		__ret; \
	})

/* Old names, kept by the kernel for compatibility. */
#define kfifo_in_locked(fifo, buf, n, lock) \
	kfifo_in_spinlocked(fifo, buf, n, lock)

/*
 * Reader side: copy up to n elements out and take them; returns how many.
 * Record fifos: take the next record if it fits in n bytes and return its
 * length; if it does not fit, take nothing, set errno = EMSGSIZE, return 0.
 */
#define kfifo_out(fifo, buf, n) \
	({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		__typeof__(__tmp->ptr) __buf = (buf); \
		unsigned int __n = __kfifo_count(n); \
		const size_t __recsize = sizeof(*__tmp->rectype); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		(__recsize) ? __kfifo_out_r(__kfifo, __buf, __n, __recsize) : \
			__kfifo_out_inline(__kfifo, __buf, __n, \
					   sizeof(*__tmp->type), true); \
	})

#define kfifo_out_spinlocked(fifo, buf, n, lock) \
	({ \
		unsigned long __flags; \
		unsigned int __ret; \
		spin_lock_irqsave(lock, __flags); \
		__ret = kfifo_out(fifo, buf, n); \
		spin_unlock_irqrestore(lock, __flags); \
		__ret; \
	})

#define kfifo_out_spinlocked_noirqsave(fifo, buf, n, lock) \
	({ \
		unsigned int __ret; \
		spin_lock(lock); \
		__ret = kfifo_out(fifo, buf, n); \
		spin_unlock(lock); \
		__ret; \
	})

#define kfifo_out_locked(fifo, buf, n, lock) \
	kfifo_out_spinlocked(fifo, buf, n, lock)

/* Reader side: like kfifo_out but leaves the data in the fifo. */
#define kfifo_out_peek(fifo, buf, n) \
	({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		__typeof__(__tmp->ptr) __buf = (buf); \
		unsigned int __n = __kfifo_count(n); \
		const size_t __recsize = sizeof(*__tmp->rectype); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		(__recsize) ? __kfifo_out_peek_r(__kfifo, __buf, __n, __recsize) : \
			__kfifo_out_inline(__kfifo, __buf, __n, \
					   sizeof(*__tmp->type), false); \
	})

/*
 * Zero-copy read, reader side.  Returns how many elements (at most n) can
 * be read in one piece starting at element index *tail of the buffer
 * (tail may be NULL); the data stays in the fifo until kfifo_skip_count.
 * Record fifos: the part of the next record's payload that is contiguous
 * (at most n bytes); drop the record with kfifo_skip.
 */
#define kfifo_out_linear(fifo, tail, n) \
	({ \
		__typeof__((fifo) + 1) __tmp = (fifo); \
		unsigned int *__tail = (tail); \
		unsigned int __n = __kfifo_count(n); \
		const size_t __recsize = sizeof(*__tmp->rectype); \
		struct __kfifo *__kfifo = &__tmp->kfifo; \
		(__recsize) ? __kfifo_out_linear_r(__kfifo, __tail, __n, __recsize) : \
			__kfifo_out_linear(__kfifo, __tail, __n); \
	})

/* Same, giving a pointer into the buffer in *ptr (NULL when nothing). */
#define kfifo_out_linear_ptr(fifo, ptr, n) \
	({ \
		__typeof__((fifo) + 1) ___tmp = (fifo); \
		unsigned int ___tail = 0; \
		unsigned int ___n = kfifo_out_linear(___tmp, &___tail, (n)); \
		*(ptr) = ___n ? (void *)((char *)___tmp->kfifo.data + \
			(size_t)___tail * ___tmp->kfifo.esize) : NULL; \
		___n; \
	})

#endif /* KFIFO_KFIFO_H */
