/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the scheduling core needs from its environment, so the same
 * cfqx-sched.c compiles in the kernel (kmod/) and in user space (the
 * simulator and tests): fixed-width types, bool, NULL, READ_ONCE and
 * WRITE_ONCE for the few fields read without the caller's lock.
 */
#ifndef CFQX_SCHED_ENV_H
#define CFQX_SCHED_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/stddef.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef int8_t s8;
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#endif

#endif /* CFQX_SCHED_ENV_H */
