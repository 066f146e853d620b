// SPDX-License-Identifier: GPL-2.0
/*
 * Block device names on the command line and in output: "loop0",
 * "/dev/loop0" or "7:0" to a kernel dev_t of a whole disk, and back.
 * Uses sysfs (/sys/dev/block), the same names the kernel uses.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "cfqx.h"

static int read_majmin(const char *path, unsigned *ma, unsigned *mi)
{
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%u:%u", ma, mi);
	fclose(f);
	return n == 2 ? 0 : -1;
}

int cfqx_resolve_dev(const char *arg, __u32 *dev, char *err, size_t errlen)
{
	unsigned ma, mi;
	char path[512];
	struct stat st;
	const char *name = arg;
	char tail;

	if (!arg || !*arg) {
		snprintf(err, errlen, "empty device name");
		return -1;
	}
	if (sscanf(arg, "%u:%u%c", &ma, &mi, &tail) == 2) {
		/* major:minor */
	} else if (arg[0] == '/') {
		if (stat(arg, &st)) {
			snprintf(err, errlen, "unknown device %s: %s", arg,
				 strerror(errno));
			return -1;
		}
		if (!S_ISBLK(st.st_mode)) {
			snprintf(err, errlen, "%s is not a block device", arg);
			return -1;
		}
		ma = major(st.st_rdev);
		mi = minor(st.st_rdev);
	} else {
		if (strchr(name, '/') || !strcmp(name, ".") ||
		    !strcmp(name, "..")) {
			snprintf(err, errlen, "unknown device %s", arg);
			return -1;
		}
		snprintf(path, sizeof(path), "/sys/block/%s/dev", name);
		if (read_majmin(path, &ma, &mi)) {
			snprintf(err, errlen,
				 "unknown device %s (no /sys/block/%s)", arg,
				 name);
			return -1;
		}
	}
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", ma, mi);
	if (access(path, F_OK) == 0) {
		snprintf(err, errlen,
			 "%s is a partition; give the whole disk", arg);
		return -1;
	}
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", ma, mi);
	if (access(path, F_OK)) {
		snprintf(err, errlen, "unknown device %s (no block device %u:%u)",
			 arg, ma, mi);
		return -1;
	}
	*dev = CFQX_MKDEV(ma, mi);
	return 0;
}

void cfqx_dev_name(__u32 dev, char *buf, size_t len)
{
	char path[128], target[512];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", CFQX_MAJOR(dev),
		 CFQX_MINOR(dev));
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = 0;
		snprintf(buf, len, "%s", basename(target));
		return;
	}
	snprintf(buf, len, "%u:%u", CFQX_MAJOR(dev), CFQX_MINOR(dev));
}
