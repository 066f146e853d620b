// SPDX-License-Identifier: GPL-2.0
/*
 * Pure command-line parsing for cfqx: numbers, policy options and listen
 * addresses.  No I/O, no globals, so the unit tests run it without root.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfqx.h"

#define NFIELDS (CFQX_POLICY_SIZE / 4)

int cfqx_parse_u64(const char *s, __u64 max, __u64 *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int cfqx_parse_u32(const char *s, __u32 max, __u32 *out)
{
	__u64 v;

	if (cfqx_parse_u64(s, max, &v))
		return -1;
	*out = (__u32)v;
	return 0;
}

/* "--fifo-expire-sync" / "fifo_expire_sync" -> field index, or -1. */
static int field_index(const char *opt)
{
	char norm[64];
	size_t i;
	int f;

	while (*opt == '-')
		opt++;
	for (i = 0; opt[i] && i < sizeof(norm) - 1; i++)
		norm[i] = opt[i] == '-' ? '_' : opt[i];
	norm[i] = 0;
	for (f = 1; f < NFIELDS; f++)	/* 0, group_by, is the KEY */
		if (!strcmp(norm, cfqx_policy_field_names[f]))
			return f;
	return -1;
}

int cfqx_policy_option_field(const char *opt)
{
	return field_index(opt);
}

bool cfqx_policy_is_option(const char *opt)
{
	return opt && opt[0] == '-' && opt[1] == '-' && field_index(opt) > 0;
}

int cfqx_policy_set_option(struct cfqx_policy *p, const char *opt,
			   const char *val, char *err, size_t errlen)
{
	int f = field_index(opt);
	__u32 v;

	if (f < 0) {
		snprintf(err, errlen, "unknown policy option %s", opt);
		return -1;
	}
	if (!val || cfqx_parse_u32(val, 0xffffffffu, &v)) {
		snprintf(err, errlen, "%s needs a non-negative integer, got '%s'",
			 opt, val ? val : "");
		return -1;
	}
	((__u32 *)p)[f] = v;
	return 0;
}

int cfqx_policy_validate(const struct cfqx_policy *p, char *err,
			 size_t errlen)
{
	int bad = cfqx_policy_check(p);

	if (!bad)
		return 0;
	if (bad == 1)
		snprintf(err, errlen, "bad group_by %u (tgid pgid uid gid cgroup)",
			 p->group_by);
	else
		snprintf(err, errlen, "bad %s value %u (out of range)",
			 cfqx_policy_field_names[bad - 1],
			 ((const __u32 *)p)[bad - 1]);
	return -1;
}

int cfqx_parse_listen_addr(const char *arg, struct sockaddr_storage *ss,
			   socklen_t *len, bool *loopback, char *err,
			   size_t errlen)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[64];
	const char *port, *colon;
	size_t hlen;
	__u32 p;

	memset(ss, 0, sizeof(*ss));
	if (arg[0] == '[') {
		colon = strstr(arg, "]:");
		if (!colon) {
			snprintf(err, errlen, "'%s' is not [ADDR]:PORT", arg);
			return -1;
		}
		hlen = colon - arg - 1;
		port = colon + 2;
		arg++;
	} else {
		colon = strrchr(arg, ':');
		hlen = colon ? (size_t)(colon - arg) : 0;
		port = colon ? colon + 1 : arg;
		if (colon && memchr(arg, ':', hlen)) {
			snprintf(err, errlen,
				 "'%s': write an IPv6 address as [ADDR]:PORT",
				 arg);
			return -1;
		}
	}
	if (hlen >= sizeof(host)) {
		snprintf(err, errlen, "address too long");
		return -1;
	}
	memcpy(host, arg, hlen);
	host[hlen] = 0;
	if (cfqx_parse_u32(port, 65535, &p) || !p) {
		snprintf(err, errlen, "bad port '%s' (1 .. 65535)", port);
		return -1;
	}
	if (!host[0] || !strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(p);
		*len = sizeof(*in4);
		*loopback = (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		const struct in6_addr *a = &in6->sin6_addr;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		*len = sizeof(*in6);
		*loopback = IN6_IS_ADDR_LOOPBACK(a) ||
			(IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
		return 0;
	}
	snprintf(err, errlen, "bad address '%s' (a numeric IPv4 or [IPv6] address, or localhost)",
		 host);
	return -1;
}
