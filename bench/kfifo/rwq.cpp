// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The moodycamel ReaderWriterQueue side of the kfifo benchmark: a C++
 * header-only queue, so its writer and reader loops live here (inlined,
 * like the C queues' loops in bench.c) behind extern "C" entry points.
 */
#include <cstdint>
#include <readerwriterqueue/readerwriterqueue.h>

typedef moodycamel::ReaderWriterQueue<std::uint64_t> rwq_t;

static inline void relax()
{
	__builtin_ia32_pause();
}

extern "C" {

void *rwq_new(std::size_t capacity)
{
	return new rwq_t(capacity);
}

void rwq_delete(void *q)
{
	delete static_cast<rwq_t *>(q);
}

void rwq_writer(void *q, std::uint64_t n)
{
	rwq_t *queue = static_cast<rwq_t *>(q);

	for (std::uint64_t i = 1; i <= n; i++)
		while (!queue->try_enqueue(i))
			relax();
}

/* Returns the number of values that were out of sequence (must be 0). */
std::uint64_t rwq_reader(void *q, std::uint64_t n)
{
	rwq_t *queue = static_cast<rwq_t *>(q);
	std::uint64_t bad = 0, v;

	for (std::uint64_t i = 1; i <= n; i++) {
		while (!queue->try_dequeue(v))
			relax();
		bad += v != i;
	}
	return bad;
}

}
