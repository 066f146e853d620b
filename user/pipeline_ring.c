// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Mapping and unmapping for the batch ring reader (pipeline_ring.h); the
 * record walk itself is inline in the header, and waiting is poll() on the
 * map fd.
 */
#include "pipeline_ring.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

int cfqx_ring_open(struct cfqx_ring *r, int fd, char *err, size_t errlen)
{
	struct bpf_map_info info;
	__u32 ilen = sizeof(info);
	void *c, *d;
	int e;

	memset(r, 0, sizeof(*r));
	memset(&info, 0, sizeof(info));
	r->fd = -1;
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen) ||
	    info.type != BPF_MAP_TYPE_RINGBUF) {
		snprintf(err, errlen, "the events map is not a BPF ring buffer");
		return -EINVAL;
	}
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	c = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED) {
		e = errno;
		snprintf(err, errlen, "mmap of the ring's consumer page: %s",
			 strerror(e));
		return -e;
	}
	r->data_map_len = r->page + 2 * (size_t)info.max_entries;
	d = mmap(NULL, r->data_map_len, PROT_READ, MAP_SHARED, fd,
		 (off_t)r->page);
	if (d == MAP_FAILED) {
		e = errno;
		munmap(c, r->page);
		snprintf(err, errlen, "mmap of the ring's data: %s", strerror(e));
		return -e;
	}
	r->fd = fd;
	r->mask = info.max_entries - 1;
	r->consumer_pos = c;
	r->producer_pos = d;
	r->data = (const unsigned char *)d + r->page;
	r->cons = atomic_load_explicit(r->consumer_pos, memory_order_acquire);
	return 0;
}

void cfqx_ring_close(struct cfqx_ring *r)
{
	if (r->consumer_pos)
		munmap((void *)r->consumer_pos, r->page);
	if (r->producer_pos)
		munmap((void *)r->producer_pos, r->data_map_len);
	r->consumer_pos = NULL;
	r->producer_pos = NULL;
}
