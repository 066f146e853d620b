// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stress-test adapters for the modern kfifo API (byte fifo, record fifos
 * with 1- and 2-byte headers, one-element put/get), lock-free: one writer
 * thread, one reader thread.  Driven by stress.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "kfifo/kfifo.h"
#include "stress.h"

static void *bytes_create(unsigned int size)
{
	struct kfifo *f = aligned_alloc(64, sizeof(*f));

	if (!f || kfifo_alloc(f, size, GFP_KERNEL)) {
		free(f);
		return NULL;
	}
	return f;
}

static void bytes_destroy(void *fifo)
{
	kfifo_free((struct kfifo *)fifo);
	free(fifo);
}

static unsigned int bytes_put(void *fifo, const unsigned char *buf,
			      unsigned int len)
{
	return kfifo_in((struct kfifo *)fifo, buf, len);
}

static long bytes_get(void *fifo, unsigned char *buf, unsigned int len)
{
	return kfifo_out((struct kfifo *)fifo, buf, len);
}

const struct stress_ops stress_modern_bytes = {
	.name = "modern kfifo_in/kfifo_out",
	.fifo_size = 2048,
	.create = bytes_create,
	.destroy = bytes_destroy,
	.put = bytes_put,
	.get = bytes_get,
};

#define REC_ADAPTER(N, TYPE, SIZE, MAX) \
static void *rec##N##_create(unsigned int size) \
{ \
	TYPE *f = aligned_alloc(64, sizeof(*f)); \
	if (!f || kfifo_alloc(f, size, GFP_KERNEL)) { \
		free(f); \
		return NULL; \
	} \
	return f; \
} \
static void rec##N##_destroy(void *fifo) \
{ \
	kfifo_free((TYPE *)fifo); \
	free(fifo); \
} \
static unsigned int rec##N##_put(void *fifo, const unsigned char *buf, \
				 unsigned int len) \
{ \
	return kfifo_in((TYPE *)fifo, buf, len); \
} \
static long rec##N##_get(void *fifo, unsigned char *buf, unsigned int len) \
{ \
	TYPE *f = fifo; \
	unsigned int n; \
	if (kfifo_is_empty(f)) \
		return -1; \
	errno = 0; \
	n = kfifo_out(f, buf, len); \
	if (n == 0 && errno == EMSGSIZE) \
		return -2; \
	return n; \
} \
static unsigned int rec##N##_peek_len(void *fifo) \
{ \
	return kfifo_peek_len((TYPE *)fifo); \
} \
const struct stress_ops stress_modern_rec##N = { \
	.name = "modern record fifo, " #N "-byte header", \
	.fifo_size = SIZE, \
	.max_record = MAX, \
	.create = rec##N##_create, \
	.destroy = rec##N##_destroy, \
	.put = rec##N##_put, \
	.get = rec##N##_get, \
	.peek_len = rec##N##_peek_len, \
};

REC_ADAPTER(1, struct kfifo_rec_ptr_1, 1024, 255)
REC_ADAPTER(2, struct kfifo_rec_ptr_2, 2048, 2046)

/* ---- one element at a time ---- */

struct elem_job {
	STRUCT_KFIFO_PTR(uint64_t) fifo;
	uint64_t count;
};

static void *elem_writer(void *arg)
{
	struct elem_job *job = arg;
	unsigned int spins = 0;

	for (uint64_t i = 1; i <= job->count; i++)
		while (!kfifo_put(&job->fifo, i))
			stress_relax(&spins);
	return NULL;
}

uint64_t stress_modern_elements(uint64_t count, unsigned int fifo_elems)
{
	struct elem_job *job = aligned_alloc(64, sizeof(*job));
	uint64_t errors = 0, v;
	unsigned int spins = 0;
	pthread_t t;

	if (!job || kfifo_alloc(&job->fifo, fifo_elems, GFP_KERNEL)) {
		free(job);
		return 1;
	}
	job->count = count;
	if (pthread_create(&t, NULL, elem_writer, job)) {
		kfifo_free(&job->fifo);
		free(job);
		return 1;
	}
	for (uint64_t i = 1; i <= count; i++) {
		while (!kfifo_get(&job->fifo, &v))
			stress_relax(&spins);
		errors += v != i;
		if (!(i & 4095))
			atomic_fetch_add_explicit(&stress_progress, 1,
						  memory_order_relaxed);
	}
	pthread_join(t, NULL);
	errors += !kfifo_is_empty(&job->fifo);
	kfifo_free(&job->fifo);
	free(job);
	return errors;
}
