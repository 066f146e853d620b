/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF objects that share cfqx's pinned maps must agree on, in
 * one place: the "events" ring buffer and the per-CPU "stats" array
 * (the storm generator's loader reuses cfqx's pinned ones, so their
 * definitions must match), counting into stats, and filling a struct
 * cfqx_event.  Included by cfqx.bpf.c and cfqx_storm.bpf.c, after
 * vmlinux.h and bpf_helpers.h.
 */
#ifndef CFQX_SHARED_BPF_H
#define CFQX_SHARED_BPF_H

#include <cfqx/cfqx.h>

#define CFQX_RINGBUF_SIZE	(1 << 20)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, CFQX_RINGBUF_SIZE);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CFQX_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += 1;	/* per-CPU: no atomics needed */
}

/* Every field of a reserved event record but its comm. */
static __always_inline void cfqx_event_fill(struct cfqx_event *e, __u32 kind,
					    __u32 dev, __u32 group_by,
					    __u32 flags, __u64 id, __u64 value,
					    __u64 value2, __u64 suppressed,
					    __u64 now)
{
	e->kind = kind;
	e->size = sizeof(*e);
	e->dev = dev;
	e->ts_ns = now;
	e->group_by = group_by;
	e->flags = flags;
	e->id = id;
	e->value = value;
	e->value2 = value2;
	e->suppressed = suppressed;
}

#endif /* CFQX_SHARED_BPF_H */
