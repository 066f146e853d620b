/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfqx-compat.h: the kernel API differences the cfqx elevator meets
 * between the kernels it supports (Debian's 6.1, 6.12 and 6.12-rt), as
 * small named helpers, so the module has one source and no version checks
 * of its own.  This is the only file of the module that tests
 * LINUX_VERSION_CODE; each helper names the release that changed the API.
 *
 *   cfqx_insert_t, cfqx_insert_at_head()  insert_requests flags (6.5)
 *   CFQX_IMPORT_NS_BPF_INTERNAL()          bpf_map_get()'s namespace
 *
 * PREEMPT_RT (6.12-rt) needs no helper: cfqx takes only spinlock_t with
 * spin_lock_irqsave() (a sleeping lock there, fine in every elevator op,
 * which run in task or threaded-interrupt context), never a raw spinlock,
 * and its hrtimer is not HRTIMER_MODE_HARD, so on RT the callback runs in
 * softirq context and may take sleeping locks.
 */
#ifndef CFQX_COMPAT_H
#define CFQX_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>
#include <linux/blk-mq.h>

/*
 * ops.insert_requests' last argument: `bool at_head` up to 6.4, a
 * blk_insert_t flag word (BLK_MQ_INSERT_AT_HEAD) since 6.5.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
typedef blk_insert_t cfqx_insert_t;

static inline bool cfqx_insert_at_head(cfqx_insert_t flags)
{
	return flags & BLK_MQ_INSERT_AT_HEAD;
}
#else
typedef bool cfqx_insert_t;

static inline bool cfqx_insert_at_head(cfqx_insert_t at_head)
{
	return at_head;
}
#endif

/*
 * bpf_map_get() (attaching the policy map) is exported in the
 * BPF_INTERNAL symbol namespace on 6.12 and plain on 6.1; importing a
 * namespace a kernel does not have is harmless, so the module always
 * imports it.  The macro takes a string literal since 6.13.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define CFQX_IMPORT_NS_BPF_INTERNAL() MODULE_IMPORT_NS("BPF_INTERNAL")
#else
#define CFQX_IMPORT_NS_BPF_INTERNAL() MODULE_IMPORT_NS(BPF_INTERNAL)
#endif

#endif /* CFQX_COMPAT_H */
