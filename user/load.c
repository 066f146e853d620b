// SPDX-License-Identifier: GPL-2.0
/*
 * `cfqx load` and `cfqx unload`: validate everything first, then load,
 * attach and pin in one go (cfqx_load() undoes a partial load), and with
 * --elevator hand the policy map to the cfqx elevator of each device.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cfqx.h"

#define MAX_DEVS CFQX_MAX_FILTER_DEVS

static void load_usage(FILE *f)
{
	fprintf(f,
		"usage: cfqx load [--dev DEV]... [--policy KEY] [--POLICY-OPTION N]... [--elevator]\n"
		"  Load the BPF accounting and pin it under %s.\n"
		"  --dev DEV     account only DEV (loop0, /dev/loop0 or 7:0); repeatable;\n"
		"                default: all devices\n"
		"  --policy KEY  group by tgid (default), pgid, uid, gid or cgroup\n"
		"  --quantum N, --fifo-expire-sync MS, ...  any policy field (see cfqx policy --help)\n"
		"  --elevator    also switch each --dev to the cfqx elevator (kernel module)\n"
		"                and give it the policy map\n"
		"  --mem-budget MIB  size the maps to at most MIB MiB (the groups table\n"
		"                gets what the fixed maps leave; default: 8192 groups)\n"
		"  --orphan-age S  retire a request that was neither issued nor completed\n"
		"                where cfqx could see it after S seconds (1 .. %d; default %d)\n"
		"  --start-hook HOOK  where a request's record starts: io_start\n"
		"                (block_io_start, 6.5+: no bio hop) or getrq (every kernel);\n"
		"                default: io_start where the kernel has it\n",
		CFQX_PIN_ROOT, CFQX_ORPHAN_AGE_MAX_S, CFQX_DEF_ORPHAN_AGE_S);
}

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return 0;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) < 0)
		ret = -1;
	close(fd);
	return ret;
}

/* Elevator hand-over; the scheduler must list cfqx (checked before load). */
static int elevator_check(const char *name)
{
	char path[256], buf[512];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", name);
	if (read_file(path, buf, sizeof(buf))) {
		cfqx_err("%s has no I/O scheduler (%s)", name, path);
		return -1;
	}
	if (!strstr(buf, "cfqx")) {
		cfqx_err("the cfqx elevator is not available for %s (scheduler: %.*s); load the cfqx module first",
			 name, (int)strcspn(buf, "\n"), buf);
		return -1;
	}
	return 0;
}

static int elevator_attach(const char *name)
{
	char path[256], val[32];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", name);
	if (write_file(path, "cfqx")) {
		cfqx_err("cannot select the cfqx elevator on %s: %s", name,
			 strerror(errno));
		return -1;
	}
	fd = cfqx_pinned_map_fd(CFQX_MAP_POLICY);
	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/iosched/policy_map",
		 name);
	snprintf(val, sizeof(val), "%d\n", fd);
	if (write_file(path, val)) {
		cfqx_err("cannot give the policy map to the elevator of %s (%s): %s",
			 name, path, strerror(errno));
		err = -1;
	}
	close(fd);
	return err;
}

int cfqx_cmd_load(int argc, char **argv)
{
	struct cfqx_policy pol = CFQX_POLICY_DEFAULT;
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "policy", required_argument, NULL, 'p' },
		{ "elevator", no_argument, NULL, 'e' },
		{ "mem-budget", required_argument, NULL, 'm' },
		{ "orphan-age", required_argument, NULL, 'o' },
		{ "start-hook", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char names[MAX_DEVS][32], err[256];
	__u32 devs[MAX_DEVS];
	int ndevs = 0, elevator = 0, i, c, key;
	__u32 mib, age;

	for (i = 1; i < argc; i++) {
		/* policy field options first: --quantum 8 etc. */
		if (cfqx_policy_is_option(argv[i])) {
			if (cfqx_policy_set_option(&pol, argv[i],
						   i + 1 < argc ? argv[i + 1] : NULL,
						   err, sizeof(err))) {
				cfqx_err("%s", err);
				return CFQX_EXIT_USAGE;
			}
			memmove(&argv[i], &argv[i + 2],
				(argc - i - 2 + 1) * sizeof(*argv));
			argc -= 2;
			i--;
		}
	}
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:d:p:em:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (ndevs == MAX_DEVS) {
				cfqx_err("at most %d devices", MAX_DEVS);
				return CFQX_EXIT_USAGE;
			}
			if (cfqx_resolve_dev(optarg, &devs[ndevs], err,
					     sizeof(err))) {
				cfqx_err("%s", err);
				return CFQX_EXIT_FAIL;
			}
			cfqx_dev_name(devs[ndevs], names[ndevs],
				      sizeof(names[ndevs]));
			ndevs++;
			break;
		case 'p':
			key = cfqx_group_by_parse(optarg, strlen(optarg));
			if (key < 0) {
				cfqx_err("unknown policy key '%s' (tgid pgid uid gid cgroup)",
					 optarg);
				return CFQX_EXIT_USAGE;
			}
			pol.group_by = key;
			break;
		case 'e':
			elevator = 1;
			break;
		case 'm':
			if (cfqx_parse_u32(optarg, 1 << 20, &mib) || !mib) {
				cfqx_err("bad --mem-budget %s (MiB, 1 .. 1048576)",
					 optarg);
				return CFQX_EXIT_USAGE;
			}
			cfqx_set_mem_budget((__u64)mib << 20);
			break;
		case 'o':
			if (cfqx_parse_u32(optarg, CFQX_ORPHAN_AGE_MAX_S, &age) ||
			    !age) {
				cfqx_err("bad --orphan-age %s (seconds, 1 .. %d)",
					 optarg, CFQX_ORPHAN_AGE_MAX_S);
				return CFQX_EXIT_USAGE;
			}
			cfqx_set_orphan_age(age);
			break;
		case 's':
			if (cfqx_set_start_hook(optarg))
				return CFQX_EXIT_USAGE;
			break;
		case 'h':
			load_usage(stdout);
			return 0;
		case ':':	/* an option without its value */
			if (optopt == 'd')
				cfqx_err("load: --dev needs a device (loop0, /dev/loop0 or 7:0)");
			else if (optopt == 'p')
				cfqx_err("load: --policy needs a key (tgid pgid uid gid cgroup)");
			else
				cfqx_err("load: %s needs a value (cfqx load --help)",
					 argv[optind - 1]);
			return CFQX_EXIT_USAGE;
		default:
			cfqx_err("load: bad option '%s' (cfqx load --help)",
				 argv[optind - 1]);
			return CFQX_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cfqx_err("load: unexpected argument '%s'", argv[optind]);
		return CFQX_EXIT_USAGE;
	}
	if (cfqx_policy_validate(&pol, err, sizeof(err))) {
		cfqx_err("%s", err);
		return CFQX_EXIT_USAGE;
	}
	if (elevator && !ndevs) {
		cfqx_err("--elevator needs at least one --dev");
		return CFQX_EXIT_USAGE;
	}
	for (i = 0; elevator && i < ndevs; i++)
		if (elevator_check(names[i]))
			return CFQX_EXIT_FAIL;
	if (cfqx_load(devs, ndevs, &pol))
		return CFQX_EXIT_FAIL;
	for (i = 0; elevator && i < ndevs; i++) {
		if (elevator_attach(names[i])) {
			cfqx_unload();
			return CFQX_EXIT_FAIL;
		}
	}
	printf("cfqx: loaded, policy %s, %s", cfqx_group_by_names[pol.group_by],
	       ndevs ? "devices" : "all devices");
	for (i = 0; i < ndevs; i++)
		printf(" %s", names[i]);
	printf("%s\n", elevator ? ", cfqx elevator" : "");
	return 0;
}

int cfqx_cmd_unload(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: cfqx unload\n"
		       "  Detach the programs and remove everything under %s\n"
		       "  (also when bpftool loaded them).\n", CFQX_PIN_ROOT);
		return 0;
	}
	if (argc > 1) {
		cfqx_err("unload: unexpected argument '%s'", argv[1]);
		return CFQX_EXIT_USAGE;
	}
	if (cfqx_unload())
		return CFQX_EXIT_FAIL;
	printf("cfqx: unloaded\n");
	return 0;
}
