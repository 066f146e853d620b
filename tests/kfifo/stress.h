/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The two-thread kfifo stress test drives each fifo flavour through this
 * small adapter table, because the modern and the 2.6.10 headers cannot
 * share a translation unit (stress-modern.c, stress-2.6.10.c, stress.c).
 */
#ifndef KFIFO_TESTS_STRESS_H
#define KFIFO_TESTS_STRESS_H

#include <stdint.h>

struct stress_ops {
	const char *name;
	unsigned int fifo_size;	/* bytes */
	unsigned int max_record;	/* 0: byte stream, else record payload limit */
	void *(*create)(unsigned int size);
	void (*destroy)(void *fifo);
	/* writer: bytes stored (byte stream) / len or 0 (records, all-or-nothing) */
	unsigned int (*put)(void *fifo, const unsigned char *buf, unsigned int len);
	/*
	 * reader: bytes taken, 0 when empty (byte stream); for records the
	 * record length, -1 when empty, -2 when the record does not fit in len
	 * (it must then still be there).
	 */
	long (*get)(void *fifo, unsigned char *buf, unsigned int len);
	/* records only: the next record's length (reader side) */
	unsigned int (*peek_len)(void *fifo);
};

extern const struct stress_ops stress_modern_bytes, stress_modern_rec1,
	stress_modern_rec2, stress_2_6_10_bytes;

/* One element at a time through a modern typed fifo; returns errors seen. */
uint64_t stress_modern_elements(uint64_t count, unsigned int fifo_elems);

void stress_relax(unsigned int *spins);

/* Bumped by readers as they make progress; a watchdog checks it moves. */
extern _Atomic uint64_t stress_progress;

#endif
