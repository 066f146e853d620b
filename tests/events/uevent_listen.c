// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uevent-listen: a real NETLINK_KOBJECT_UEVENT listener for the uevent
 * tests.  Large SO_RCVBUF, SO_PASSCRED; accepts only messages the kernel
 * sent (sender port 0, credentials uid 0), like udev does.  Prints each
 * uevent that has every --match KEY=VALUE as KEY=VALUE lines (the header
 * "ACTION@DEVPATH" first) followed by an empty line, and exits 0 after
 * --count of them, 1 on --timeout.  --ready FILE is created once bound.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

#define MAX_MATCH 16

static int has(const char *msg, size_t len, const char *kv)
{
	size_t kl = strlen(kv);

	for (size_t off = 0; off < len; off += strlen(msg + off) + 1)
		if (!strncmp(msg + off, kv, kl) && msg[off + kl] == '\0')
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "match", required_argument, NULL, 'm' },
		{ "count", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "ready", required_argument, NULL, 'r' },
		{ 0 }
	};
	const char *match[MAX_MATCH], *ready = NULL;
	int nmatch = 0, count = 1, timeout = 10, got = 0, fd, c, one = 1;
	int rcvbuf = 32 << 20, rejected = 0;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	time_t end;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (nmatch == MAX_MATCH)
				return 2;
			match[nmatch++] = optarg;
			break;
		case 'c': count = atoi(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'r': ready = optarg; break;
		default: return 2;
		}
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0) {
		perror("uevent-listen: socket");
		return 1;
	}
	/* SO_RCVBUFFORCE (root) so a burst of uevents never overflows. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("uevent-listen: bind");
		return 1;
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}
	end = time(NULL) + timeout;
	while (got < count) {
		char buf[8192], cbuf[CMSG_SPACE(sizeof(struct ucred))];
		struct sockaddr_nl from;
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr mh = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct cmsghdr *cm;
		struct ucred *cred = NULL;
		long left = (long)(end - time(NULL));
		ssize_t n;
		int ok = 1;

		if (left <= 0 || poll(&pfd, 1, (int)left * 1000) <= 0) {
			fprintf(stderr, "uevent-listen: timeout, %d of %d matched (%d rejected)\n",
				got, count, rejected);
			return 1;
		}
		n = recvmsg(fd, &mh, 0);
		if (n <= 0) {
			if (n < 0 && errno == ENOBUFS) {
				fprintf(stderr, "uevent-listen: receive buffer overflow\n");
				return 1;
			}
			continue;
		}
		buf[n] = '\0';
		cm = CMSG_FIRSTHDR(&mh);
		if (cm && cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_CREDENTIALS)
			cred = (struct ucred *)CMSG_DATA(cm);
		/* Only the kernel: port 0, uid 0 (what libudev checks too). */
		if (from.nl_pid != 0 || !cred || cred->uid != 0) {
			rejected++;
			continue;
		}
		if (!strchr(buf, '@'))	/* udevd's "libudev" messages */
			continue;
		for (int i = 0; i < nmatch && ok; i++)
			ok = has(buf, (size_t)n, match[i]);
		if (!ok)
			continue;
		for (size_t off = 0; off < (size_t)n; off += strlen(buf + off) + 1)
			printf("%s\n", buf + off);
		printf("\n");
		fflush(stdout);
		got++;
	}
	return 0;
}
