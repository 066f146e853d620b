// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for the cfqx VM tests: attaches a pinned cfqx policy map to
 * the cfqx elevator of a device, the way `cfqx load --elevator` does (the
 * elevator resolves the fd number in the writer's own fd table, so a shell
 * cannot do it).  Raw bpf(2), statically linked: no libraries in the guest.
 * Usage: cfqx-vm-attach PINNED_MAP /sys/block/DEV/queue/iosched/policy_map
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	union bpf_attr attr;
	char buf[32];
	int fd, sfd, len;

	if (argc != 3) {
		fprintf(stderr, "usage: cfqx-vm-attach PINNED_MAP POLICY_MAP_FILE\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (__u64)(unsigned long)argv[1];
	fd = (int)syscall(__NR_bpf, BPF_OBJ_GET, &attr, sizeof(attr));
	if (fd < 0) {
		fprintf(stderr, "cfqx-vm-attach: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	sfd = open(argv[2], O_WRONLY);
	if (sfd < 0) {
		fprintf(stderr, "cfqx-vm-attach: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	len = snprintf(buf, sizeof(buf), "%d\n", fd);
	if (write(sfd, buf, (size_t)len) != len) {
		fprintf(stderr, "cfqx-vm-attach: writing fd %d to %s: %s\n", fd,
			argv[2], strerror(errno));
		return 1;
	}
	close(sfd);
	close(fd);
	return 0;
}
