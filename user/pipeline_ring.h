/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A batch reader of a BPF ring buffer (BPF_MAP_TYPE_RINGBUF), walking the
 * kernel's shared layout itself instead of through libbpf's
 * ring_buffer__poll(), which calls back once and stores consumer_pos once
 * per record.  Here the caller walks any number of records with
 * cfqx_ring_next() and gives the space back to the producers with one
 * cfqx_ring_commit() per batch.
 *
 * Layout (kernel/bpf/ringbuf.c, the same since 5.8): page 0 holds
 * consumer_pos (the only page user space may write); page 1 holds
 * producer_pos; the data area follows, mapped twice in a row so a record
 * that wraps is contiguous.  Each record is an 8-byte header (length, with
 * BPF_RINGBUF_BUSY_BIT while the producer is still writing it and
 * BPF_RINGBUF_DISCARD_BIT if it was discarded) and the sample, padded to 8.
 * The kernel wakes a poll()er of the map fd when it commits the record at
 * the consumer position, and poll() reports readable whenever producer_pos
 * is ahead, so "commit, re-check, then poll the fd" never misses data.
 */
#ifndef CFQX_PIPELINE_RING_H
#define CFQX_PIPELINE_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

struct cfqx_ring {
	int fd;
	uint64_t mask;			/* data size - 1 */
	uint64_t cons;			/* our consumer position */
	_Atomic uint64_t *consumer_pos;	/* shared, page 0 */
	_Atomic uint64_t *producer_pos;	/* shared, read only */
	const unsigned char *data;
	size_t page, data_map_len;
};

/* Maps the ring of map fd; 0, or -errno with a message in err. */
int cfqx_ring_open(struct cfqx_ring *r, int fd, char *err, size_t errlen);
void cfqx_ring_close(struct cfqx_ring *r);

/* Where the producers are (acquire: their records up to it are visible). */
static inline uint64_t cfqx_ring_produced(const struct cfqx_ring *r)
{
	return atomic_load_explicit(r->producer_pos, memory_order_acquire);
}

enum cfqx_ring_rec {
	CFQX_RING_NONE,		/* nothing before `prod` */
	CFQX_RING_BUSY,		/* the next record is still being written */
	CFQX_RING_DISCARDED,	/* skipped a discarded record */
	CFQX_RING_SAMPLE,	/* *sample, *len: the next record, taken */
};

/*
 * Takes the record at the consumer position if it lies before prod and is
 * complete.  The sample stays valid until cfqx_ring_commit().
 */
static inline enum cfqx_ring_rec cfqx_ring_next(struct cfqx_ring *r,
						uint64_t prod,
						const void **sample,
						uint32_t *len)
{
	const unsigned char *hdr;
	uint32_t l;

	if (r->cons >= prod)
		return CFQX_RING_NONE;
	hdr = r->data + (r->cons & r->mask);
	l = atomic_load_explicit((_Atomic uint32_t *)(uintptr_t)hdr,
				 memory_order_acquire);
	if (l & BPF_RINGBUF_BUSY_BIT)
		return CFQX_RING_BUSY;
	r->cons += ((l & ~BPF_RINGBUF_DISCARD_BIT) + BPF_RINGBUF_HDR_SZ + 7) &
		   ~(uint64_t)7;
	if (l & BPF_RINGBUF_DISCARD_BIT)
		return CFQX_RING_DISCARDED;
	*sample = hdr + BPF_RINGBUF_HDR_SZ;
	*len = l;
	return CFQX_RING_SAMPLE;
}

/* Gives everything taken so far back to the producers: one store. */
static inline void cfqx_ring_commit(struct cfqx_ring *r)
{
	atomic_store_explicit(r->consumer_pos, r->cons, memory_order_release);
}

#endif /* CFQX_PIPELINE_RING_H */
