// SPDX-License-Identifier: GPL-2.0
/*
 * The policy map's byte layout is an ABI (bpftool map update writes it
 * byte by byte, the README documents it): pin every offset and the size,
 * and the bytes `cfqx policy --hex` prints.
 */
#include <stddef.h>
#include <criterion/criterion.h>
#include "../../user/cfqx.h"

Test(layout, policy_offsets)
{
	cr_expect_eq(sizeof(struct cfqx_policy), CFQX_POLICY_SIZE);
	cr_expect_eq(CFQX_POLICY_SIZE, 48);
	cr_expect_eq(offsetof(struct cfqx_policy, group_by), 0);
	cr_expect_eq(offsetof(struct cfqx_policy, quantum), 4);
	cr_expect_eq(offsetof(struct cfqx_policy, queued), 8);
	cr_expect_eq(offsetof(struct cfqx_policy, max_queued), 12);
	cr_expect_eq(offsetof(struct cfqx_policy, fifo_expire_sync), 16);
	cr_expect_eq(offsetof(struct cfqx_policy, fifo_expire_async), 20);
	cr_expect_eq(offsetof(struct cfqx_policy, fifo_batch_expire), 24);
	cr_expect_eq(offsetof(struct cfqx_policy, back_seek_max), 28);
	cr_expect_eq(offsetof(struct cfqx_policy, back_seek_penalty), 32);
	cr_expect_eq(offsetof(struct cfqx_policy, max_depth), 36);
	cr_expect_eq(offsetof(struct cfqx_policy, slice_idle), 40);
	cr_expect_eq(offsetof(struct cfqx_policy, event_rate), 44);
}

Test(layout, no_padding_in_shared_structs)
{
	cr_expect_eq(sizeof(struct cfqx_group_key), 16);
	cr_expect_eq(sizeof(struct cfqx_group_stats) % 8, 0);
	cr_expect_eq(offsetof(struct cfqx_group_stats, comm) + 16,
		     sizeof(struct cfqx_group_stats));
	cr_expect_eq(sizeof(struct cfqx_event), 72);
	cr_expect_eq(sizeof(struct cfqx_dev_stats), 8 * 9);
}

Test(layout, hex_default_uid)
{
	struct cfqx_policy p = CFQX_POLICY_DEFAULT;
	char buf[256];

	p.group_by = CFQX_BY_UID;
	cfqx_policy_hex(&p, buf, sizeof(buf));
	cr_expect_str_eq(buf,
		"02 00 00 00 04 00 00 00 08 00 00 00 40 00 00 00 "
		"f4 01 00 00 88 13 00 00 7d 00 00 00 00 40 00 00 "
		"02 00 00 00 00 04 00 00 40 1f 00 00 0a 00 00 00");
	cr_expect_eq(strlen(buf), 48 * 3 - 1);
}

Test(layout, hex_short_buffer_truncates_cleanly)
{
	struct cfqx_policy p = CFQX_POLICY_DEFAULT;
	char buf[10];

	cfqx_policy_hex(&p, buf, sizeof(buf));
	cr_expect_str_eq(buf, "00 00 00");
}
