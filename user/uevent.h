/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cfqx uevents: turns a struct cfqx_event into a kernel `change` uevent on
 * the block device's kobject.  The encoder builds the synthetic-uevent
 * string the kernel's sysfs `uevent` attribute accepts
 * ("change <UUID> KEY=VALUE ...", letters and digits only in keys and
 * values) and the kernel wire format for the netlink transport; both are
 * pure functions so a unit test can feed them random input.  The
 * transports write the string to /sys/dev/block/MAJ:MIN/uevent, or inject
 * the wire format into a network namespace's NETLINK_KOBJECT_UEVENT socket
 * (the kernel re-broadcasts it as its own, with a real SEQNUM).
 */
#ifndef CFQX_UEVENT_H
#define CFQX_UEVENT_H

#include <stddef.h>
#include <stdint.h>
#include <cfqx/cfqx.h>

/* Kernel limits on one uevent (include/linux/kobject.h, 2.6.x-6.x). */
#define CFQX_UEVENT_KERNEL_VARS		32	/* 64 since 5.x; 32 before */
#define CFQX_UEVENT_KERNEL_BYTES	2048
/*
 * Our share of that budget: the block subsystem adds ACTION, DEVPATH,
 * SUBSYSTEM, SYNTH_UUID, MAJOR, MINOR, DEVNAME, DEVTYPE, DISKSEQ, PARTN,
 * SEQNUM (at most 11).  cfqx adds at most CFQX_UEVENT_MAX_VARS.
 */
#define CFQX_UEVENT_MAX_VARS		14
#define CFQX_UEVENT_MAX_BYTES		1024	/* "SYNTH_ARG_K=V\0" summed */

#define CFQX_UUID_LEN			36	/* 8-4-4-4-12 */
#define CFQX_UEVENT_VERSION		1

struct cfqx_uevent_args {
	char uuid[CFQX_UUID_LEN + 1];
	const struct cfqx_event *ev;
	uint64_t suppressed;	/* ev->suppressed + daemon's suppressed */
	uint64_t seq;		/* daemon's notification sequence number */
};

/*
 * Letters-and-digits spelling of an event kind: its name in
 * cfqx_event_names without the rest ("over_budget" -> "overbudget").
 * Returns its length, or -1 for a kind without a name.
 */
#define CFQX_KIND_WORD_MAX	24
int cfqx_uevent_kind_word(unsigned int kind, char out[CFQX_KIND_WORD_MAX]);

/*
 * Builds "change <UUID> CFQXVER=1 CFQXEVENT=... ..." (no newline) in buf.
 * Returns its length, or -E2BIG when it would not fit buf or our share of
 * the kernel budget (never truncates), -EINVAL on a bad kind or UUID.
 * *nvars (may be NULL) receives the number of KEY=VALUE pairs.
 */
int cfqx_uevent_encode(const struct cfqx_uevent_args *a, char *buf,
		       size_t size, int *nvars);

/* A random version 4 UUID, 8-4-4-4-12 lowercase. */
void cfqx_uuid_random(char out[CFQX_UUID_LEN + 1]);
/* 1 when s is a UUID the kernel's uuid_is_valid() accepts. */
int cfqx_uuid_valid(const char *s);

/*
 * Checks a synthetic-uevent string exactly as the kernel's
 * kobject_synth_uevent() does; returns the number of KEY=VALUE pairs or -1.
 */
int cfqx_uevent_synth_check(const char *buf, size_t len);

/*
 * Kernel wire format for the netlink transport:
 * "change@DEVPATH\0ACTION=change\0DEVPATH=...\0SUBSYSTEM=block\0<dev vars>
 * \0SYNTH_UUID=...\0SYNTH_ARG_K=V\0..." (the kernel appends SEQNUM).
 * dev_vars: the device's own uevent variables, '\n'-separated as
 * /sys/.../uevent prints them.  Returns the length or -E2BIG.
 */
int cfqx_uevent_wire(const char *synth, size_t synth_len, const char *devpath,
		     const char *dev_vars, char *buf, size_t size);

/* Transports. */
enum cfqx_uevent_transport {
	CFQX_UEVENT_SYSFS = 0,	/* /sys/dev/block/M:m/uevent (default) */
	CFQX_UEVENT_NETLINK,	/* inject into a netns's uevent socket */
};

struct cfqx_uevent_tx {
	enum cfqx_uevent_transport transport;
	int nl_fd;		/* netlink transport */
	uint32_t nl_seq;
	char sysfs_root[128];	/* "/sys" unless a test changes it */
};

/*
 * Opens the transport.  netns: for CFQX_UEVENT_NETLINK, a network
 * namespace file (/proc/PID/ns/net, /run/netns/NAME) or NULL for the
 * current one.  Returns 0 or -errno with a message in err.
 */
int cfqx_uevent_tx_open(struct cfqx_uevent_tx *tx,
			enum cfqx_uevent_transport transport,
			const char *netns, char *err, size_t errlen);
void cfqx_uevent_tx_close(struct cfqx_uevent_tx *tx);

/* Sends one encoded synthetic uevent for device dev; 0 or -errno. */
int cfqx_uevent_send(struct cfqx_uevent_tx *tx, uint32_t dev,
		     const char *synth, size_t len);

#endif /* CFQX_UEVENT_H */
