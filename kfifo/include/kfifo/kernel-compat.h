/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The few kernel facilities both kfifo generations need in user space, so
 * kernel-style code compiles unchanged: gfp masks (accepted, ignored: user
 * memory is always allocated with malloc), a real spinning spinlock_t with
 * the kernel's lock calls, and error pointers (ERR_PTR/IS_ERR/PTR_ERR).
 * Included by kfifo/kfifo.h (modern API) and kfifo/kfifo-2.6.10.h (2004
 * API); not meant to be included on its own.
 */
#ifndef KFIFO_KERNEL_COMPAT_H
#define KFIFO_KERNEL_COMPAT_H

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- allocation flags: accepted for source compatibility ---- */
#ifndef GFP_KERNEL
typedef unsigned int gfp_t;
#define GFP_ATOMIC	0x20u	/* 2.6.10 value (__GFP_HIGH) */
#define GFP_KERNEL	0xd0u	/* 2.6.10 value (__GFP_WAIT | __GFP_IO | __GFP_FS) */
#endif

/* ---- spinlock_t: a test-and-test-and-set lock that yields the CPU ---- */
typedef struct {
	atomic_int locked;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name)	{ 0 }
#define SPIN_LOCK_UNLOCKED		((spinlock_t){ 0 })	/* 2.6.10 style */
#define DEFINE_SPINLOCK(name)		spinlock_t name = __SPIN_LOCK_UNLOCKED(name)

static inline void kfifo_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static inline void spin_lock_init(spinlock_t *lock)
{
	atomic_init(&lock->locked, 0);
}

static inline bool spin_trylock(spinlock_t *lock)
{
	return !atomic_load_explicit(&lock->locked, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&lock->locked, 1, memory_order_acquire);
}

static inline void spin_lock(spinlock_t *lock)
{
	unsigned int spins = 0;

	while (!spin_trylock(lock)) {
		/* The holder may be preempted (user space): do not burn a slice. */
		if (++spins >= 256) {
			sched_yield();
			spins = 0;
		} else {
			kfifo_cpu_relax();
		}
	}
}

static inline void spin_unlock(spinlock_t *lock)
{
	atomic_store_explicit(&lock->locked, 0, memory_order_release);
}

/* No interrupts in user space: the flags are kept only for the syntax. */
#define spin_lock_irqsave(lock, flags)		\
	do { (flags) = 0; spin_lock(lock); } while (0)
#define spin_unlock_irqrestore(lock, flags)	\
	do { (void)(flags); spin_unlock(lock); } while (0)
#define spin_lock_irq(lock)	spin_lock(lock)
#define spin_unlock_irq(lock)	spin_unlock(lock)

/* ---- error pointers, as in <linux/err.h> ---- */
#ifndef MAX_ERRNO
#define MAX_ERRNO	4095
#endif

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return (unsigned long)ptr >= (unsigned long)-MAX_ERRNO;
}

static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR(ptr);
}

#endif /* KFIFO_KERNEL_COMPAT_H */
