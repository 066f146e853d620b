// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cfqx uevents: encoder (pure, unit-tested over random input) and the two
 * transports.  See uevent.h and the README section "Events and uevents"
 * for the key list and encodings, which are a stable interface.
 */
#include "uevent.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

#include <cfqx/cfq.h>

#include "encode.h"

int cfqx_uevent_kind_word(unsigned int kind, char out[CFQX_KIND_WORD_MAX])
{
	const char *name;
	int n = 0;

	if (kind >= CFQX_EV_NR || !cfqx_event_names[kind])
		return -1;
	/* The event's name with what uevents forbid left out. */
	for (name = cfqx_event_names[kind]; *name && n < CFQX_KIND_WORD_MAX - 1;
	     name++)
		if ((*name >= 'a' && *name <= 'z') || (*name >= '0' && *name <= '9'))
			out[n++] = *name;
	out[n] = '\0';
	return n;
}

void cfqx_uuid_random(char out[CFQX_UUID_LEN + 1])
{
	unsigned char b[16];
	char *o = out;
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t r = getrandom(b + got, sizeof(b) - got, 0);

		if (r > 0)
			got += (size_t)r;
		else if (r < 0 && errno != EINTR)
			break;
	}
	if (got < sizeof(b)) {
		/* No entropy source at all: still unique enough per process. */
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)((ts.tv_nsec >> (i % 8)) ^ i ^ getpid());
	}
	b[6] = (b[6] & 0x0f) | 0x40;	/* version 4 */
	b[8] = (b[8] & 0x3f) | 0x80;	/* RFC 4122 variant */
	o = cfqx_put_hex(o, b, 4);
	*o++ = '-';
	o = cfqx_put_hex(o, b + 4, 2);
	*o++ = '-';
	o = cfqx_put_hex(o, b + 6, 2);
	*o++ = '-';
	o = cfqx_put_hex(o, b + 8, 2);
	*o++ = '-';
	o = cfqx_put_hex(o, b + 10, 6);
	*o = '\0';
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static int is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

int cfqx_uuid_valid(const char *s)
{
	for (int i = 0; i < CFQX_UUID_LEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!is_hex(s[i])) {
			return 0;
		}
	}
	return 1;
}

/* Appends to a bounded buffer; any overflow makes the whole encode fail. */
struct out {
	char *buf;
	size_t size, len;
	int vars;
	size_t env_bytes;	/* what the kernel stores: SYNTH_ARG_K=V\0 */
	int overflow;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->overflow || o->len + n + 1 > o->size) {
		o->overflow = 1;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void put_var(struct out *o, const char *key, const char *val)
{
	size_t kl = strlen(key), vl = strlen(val);

	put(o, " ", 1);
	put(o, key, kl);
	put(o, "=", 1);
	put(o, val, vl);
	o->vars++;
	o->env_bytes += sizeof("SYNTH_ARG_") - 1 + kl + 1 + vl + 1;
}

static void put_u64(struct out *o, const char *key, uint64_t v)
{
	char num[24];

	*cfqx_put_u64(num, v) = '\0';
	put_var(o, key, num);
}

int cfqx_uevent_encode(const struct cfqx_uevent_args *a, char *buf,
		       size_t size, int *nvars)
{
	const struct cfqx_event *ev = a->ev;
	struct out o = { .buf = buf, .size = size };
	char word[CFQX_KIND_WORD_MAX];
	char comm_hex[2 * sizeof(ev->comm) + 1];
	size_t comm_len;

	if (cfqx_uevent_kind_word(ev->kind, word) <= 0 ||
	    ev->group_by >= CFQX_BY_NR || !cfqx_uuid_valid(a->uuid))
		return -EINVAL;
	if (size)
		buf[0] = '\0';
	put(&o, "change ", 7);
	put(&o, a->uuid, CFQX_UUID_LEN);
	o.env_bytes += sizeof("SYNTH_UUID=") + CFQX_UUID_LEN;
	put_u64(&o, "CFQXVER", CFQX_UEVENT_VERSION);
	put_var(&o, "CFQXEVENT", word);
	put_u64(&o, "CFQXKIND", ev->kind);
	put_u64(&o, "CFQXDEV", ev->dev);
	put_var(&o, "CFQXGROUPBY", cfqx_group_by_names[ev->group_by]);
	put_u64(&o, "CFQXID", ev->id);
	put_u64(&o, "CFQXFLAGS", ev->flags);
	put_u64(&o, "CFQXVALUE", ev->value);
	put_u64(&o, "CFQXVALUE2", ev->value2);
	put_u64(&o, "CFQXSUPPRESSED", a->suppressed);
	put_u64(&o, "CFQXTS", ev->ts_ns);
	put_u64(&o, "CFQXSEQ", a->seq);
	/* comm: every byte up to the first NUL, hex; absent when empty. */
	comm_len = strnlen(ev->comm, sizeof(ev->comm));
	if (comm_len) {
		*cfqx_put_hex(comm_hex, ev->comm, comm_len) = '\0';
		put_var(&o, "CFQXCOMM", comm_hex);
	}
	if (o.overflow || o.vars > CFQX_UEVENT_MAX_VARS ||
	    o.env_bytes > CFQX_UEVENT_MAX_BYTES)
		return -E2BIG;
	if (nvars)
		*nvars = o.vars;
	return (int)o.len;
}

/* The kernel's parser (kobject_action_type + kobject_action_args). */
int cfqx_uevent_synth_check(const char *buf, size_t len)
{
	const char *p, *end;
	int vars = 0;

	if (len < 7 || memcmp(buf, "change ", 7))
		return -1;
	p = buf + 7;
	end = buf + len;
	if ((size_t)(end - p) < CFQX_UUID_LEN || !cfqx_uuid_valid(p))
		return -1;
	p += CFQX_UUID_LEN;
	while (p < end) {
		const char *k;

		if (*p++ != ' ')
			return -1;
		k = p;
		while (p < end && *p != '=') {
			if (!is_alnum(*p))
				return -1;
			p++;
		}
		if (p == k || p >= end)
			return -1;
		k = ++p;
		while (p < end && *p != ' ') {
			if (!is_alnum(*p))
				return -1;
			p++;
		}
		if (p == k)
			return -1;
		vars++;
	}
	return vars;
}

static int wire_put(char *buf, size_t size, size_t *len, const char *a,
		    size_t alen, const char *b, size_t blen)
{
	if (*len + alen + blen + 1 > size)
		return -E2BIG;
	memcpy(buf + *len, a, alen);
	memcpy(buf + *len + alen, b, blen);
	*len += alen + blen;
	buf[(*len)++] = '\0';
	return 0;
}

int cfqx_uevent_wire(const char *synth, size_t synth_len, const char *devpath,
		     const char *dev_vars, char *buf, size_t size)
{
	size_t len = 0, dl = strlen(devpath);
	const char *p, *end = synth + synth_len;
	int err = 0;

	if (cfqx_uevent_synth_check(synth, synth_len) < 0)
		return -EINVAL;
	err |= wire_put(buf, size, &len, "change@", 7, devpath, dl);
	err |= wire_put(buf, size, &len, "ACTION=change", 13, "", 0);
	err |= wire_put(buf, size, &len, "DEVPATH=", 8, devpath, dl);
	err |= wire_put(buf, size, &len, "SUBSYSTEM=block", 15, "", 0);
	for (p = dev_vars; p && *p && !err;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n)
			err |= wire_put(buf, size, &len, p, n, "", 0);
		p += n + (nl ? 1 : 0);
	}
	p = synth + 7;
	err |= wire_put(buf, size, &len, "SYNTH_UUID=", 11, p, CFQX_UUID_LEN);
	p += CFQX_UUID_LEN;
	while (p < end && !err) {
		const char *sp = memchr(p + 1, ' ', (size_t)(end - p - 1));
		size_t n = (sp ? sp : end) - (p + 1);

		err |= wire_put(buf, size, &len, "SYNTH_ARG_", 10, p + 1, n);
		p = sp ? sp : end;
	}
	if (err || len > CFQX_UEVENT_KERNEL_BYTES - 32)
		return -E2BIG;
	return (int)len;
}

int cfqx_uevent_tx_open(struct cfqx_uevent_tx *tx,
			enum cfqx_uevent_transport transport,
			const char *netns, char *err, size_t errlen)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int self = -1, target = -1, fd, e;

	memset(tx, 0, sizeof(*tx));
	tx->nl_fd = -1;
	tx->transport = transport;
	snprintf(tx->sysfs_root, sizeof(tx->sysfs_root), "/sys");
	if (transport == CFQX_UEVENT_SYSFS)
		return 0;

	if (netns) {
		self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		target = open(netns, O_RDONLY | O_CLOEXEC);
		if (self < 0 || target < 0 || setns(target, CLONE_NEWNET)) {
			e = errno;
			snprintf(err, errlen, "cannot enter network namespace %s: %s",
				 netns, strerror(e));
			if (self >= 0)
				close(self);
			if (target >= 0)
				close(target);
			return -e;
		}
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	e = errno;
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		e = errno;
		close(fd);
		fd = -1;
	}
	if (netns) {
		if (setns(self, CLONE_NEWNET)) {
			/* Cannot happen for a namespace we just left; be loud. */
			snprintf(err, errlen, "cannot return to own network namespace: %s",
				 strerror(errno));
			if (fd >= 0)
				close(fd);
			close(self);
			close(target);
			return -EPERM;
		}
		close(self);
		close(target);
	}
	if (fd < 0) {
		snprintf(err, errlen, "NETLINK_KOBJECT_UEVENT socket: %s",
			 strerror(e));
		return -e;
	}
	tx->nl_fd = fd;
	return 0;
}

void cfqx_uevent_tx_close(struct cfqx_uevent_tx *tx)
{
	if (tx->nl_fd >= 0)
		close(tx->nl_fd);
	tx->nl_fd = -1;
}

static int read_file(const char *path, char *buf, size_t size, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (len)
		*len = (size_t)n;
	return 0;
}

static int netlink_send(struct cfqx_uevent_tx *tx, uint32_t dev,
			const char *synth, size_t len)
{
	char path[256], link[256], devpath[256], vars[512];
	char msg[NLMSG_HDRLEN + CFQX_UEVENT_KERNEL_BYTES];
	struct nlmsghdr *nlh = (struct nlmsghdr *)msg;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	char ack[NLMSG_HDRLEN + 64 + sizeof(struct nlmsgerr)];
	const char *dp;
	ssize_t n;
	int w, r;

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u", tx->sysfs_root,
		 CFQX_MAJOR(dev), CFQX_MINOR(dev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	/* "../../devices/virtual/block/loop0" -> "/devices/virtual/block/loop0" */
	dp = strstr(link, "/devices/");
	if (!dp)
		return -ENODEV;
	snprintf(devpath, sizeof(devpath), "%s", dp);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/uevent");
	r = read_file(path, vars, sizeof(vars), NULL);
	if (r)
		return r;
	w = cfqx_uevent_wire(synth, len, devpath, vars, msg + NLMSG_HDRLEN,
			     sizeof(msg) - NLMSG_HDRLEN);
	if (w < 0)
		return w;
	memset(nlh, 0, NLMSG_HDRLEN);
	nlh->nlmsg_len = NLMSG_HDRLEN + (uint32_t)w;
	/* netlink_rcv_skb() skips control types and non-requests. */
	nlh->nlmsg_type = NLMSG_MIN_TYPE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++tx->nl_seq;
	if (sendto(tx->nl_fd, msg, nlh->nlmsg_len, 0,
		   (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	/* The ack carries the kernel's verdict (EPERM without CAP_SYS_ADMIN). */
	for (;;) {
		struct nlmsghdr *h = (struct nlmsghdr *)ack;

		n = recv(tx->nl_fd, ack, sizeof(ack), MSG_TRUNC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if ((size_t)n < NLMSG_HDRLEN + sizeof(struct nlmsgerr))
			continue;
		if (h->nlmsg_type != NLMSG_ERROR || h->nlmsg_seq != tx->nl_seq)
			continue;
		return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
}

int cfqx_uevent_send(struct cfqx_uevent_tx *tx, uint32_t dev,
		     const char *synth, size_t len)
{
	char path[256];
	int fd;
	ssize_t n;

	if (tx->transport == CFQX_UEVENT_NETLINK)
		return netlink_send(tx, dev, synth, len);
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/uevent",
		 tx->sysfs_root, CFQX_MAJOR(dev), CFQX_MINOR(dev));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, synth, len);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}
