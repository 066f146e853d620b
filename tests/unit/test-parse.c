// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of cfqx's pure command-line parsing: numbers, policy options
 * and the one-line error messages that name the bad field.
 */
#include <criterion/criterion.h>
#include "../../user/cfqx.h"

Test(parse, u32_strict)
{
	__u32 v;

	cr_expect_eq(cfqx_parse_u32("42", 100, &v), 0);
	cr_expect_eq(v, 42);
	cr_expect_eq(cfqx_parse_u32("0", 100, &v), 0);
	cr_expect_eq(cfqx_parse_u32("4294967295", 0xffffffffu, &v), 0);
	cr_expect_eq(v, 0xffffffffu);
	cr_expect_eq(cfqx_parse_u32("4294967296", 0xffffffffu, &v), -1);
	cr_expect_eq(cfqx_parse_u32("101", 100, &v), -1);
	cr_expect_eq(cfqx_parse_u32("-1", 100, &v), -1);
	cr_expect_eq(cfqx_parse_u32("+1", 100, &v), -1);
	cr_expect_eq(cfqx_parse_u32(" 1", 100, &v), -1);
	cr_expect_eq(cfqx_parse_u32("4x", 100, &v), -1);
	cr_expect_eq(cfqx_parse_u32("", 100, &v), -1);
	cr_expect_eq(cfqx_parse_u32(NULL, 100, &v), -1);
}

Test(parse, policy_options_by_name)
{
	struct cfqx_policy p = CFQX_POLICY_DEFAULT;
	char err[128];

	cr_expect(cfqx_policy_is_option("--quantum"));
	cr_expect(cfqx_policy_is_option("--fifo-expire-sync"));
	cr_expect(cfqx_policy_is_option("--event_rate"));
	cr_expect_not(cfqx_policy_is_option("--group-by"));	/* the KEY */
	cr_expect_not(cfqx_policy_is_option("quantum"));
	cr_expect_not(cfqx_policy_is_option("--json"));
	cr_expect_eq(cfqx_policy_option_field("--back-seek-max"), 7);

	cr_expect_eq(cfqx_policy_set_option(&p, "--fifo-expire-sync", "250",
					    err, sizeof(err)), 0);
	cr_expect_eq(p.fifo_expire_sync, 250);
	cr_expect_eq(cfqx_policy_set_option(&p, "--slice-idle", "0", err,
					    sizeof(err)), 0);
	cr_expect_eq(p.slice_idle, 0);
	cr_expect_eq(cfqx_policy_set_option(&p, "--quantum", "x", err,
					    sizeof(err)), -1);
	cr_expect_str_eq(err, "--quantum needs a non-negative integer, got 'x'");
	cr_expect_eq(cfqx_policy_set_option(&p, "--quantum", NULL, err,
					    sizeof(err)), -1);
	cr_expect_eq(cfqx_policy_set_option(&p, "--frob", "1", err,
					    sizeof(err)), -1);
	cr_expect_str_eq(err, "unknown policy option --frob");
	cr_expect_eq(p.quantum, CFQX_DEF_QUANTUM);	/* unchanged */
}

Test(parse, validate_names_field)
{
	struct cfqx_policy p = CFQX_POLICY_DEFAULT;
	char err[128];

	cr_expect_eq(cfqx_policy_validate(&p, err, sizeof(err)), 0);
	p.back_seek_penalty = 0;
	cr_expect_eq(cfqx_policy_validate(&p, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "bad back_seek_penalty value 0 (out of range)");
	p.back_seek_penalty = 2;
	p.group_by = 9;
	cr_expect_eq(cfqx_policy_validate(&p, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "bad group_by 9 (tgid pgid uid gid cgroup)");
}

Test(parse, device_names_rejected)
{
	char err[128];
	__u32 dev;

	cr_expect_eq(cfqx_resolve_dev("", &dev, err, sizeof(err)), -1);
	cr_expect_eq(cfqx_resolve_dev("../sda", &dev, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "unknown device ../sda");
	cr_expect_eq(cfqx_resolve_dev("no-such-disk-xyz", &dev, err,
				      sizeof(err)), -1);
	cr_expect_str_eq(err,
		"unknown device no-such-disk-xyz (no /sys/block/no-such-disk-xyz)");
	cr_expect_eq(cfqx_resolve_dev("/dev/null", &dev, err, sizeof(err)),
		     -1);
	cr_expect_str_eq(err, "/dev/null is not a block device");
}
