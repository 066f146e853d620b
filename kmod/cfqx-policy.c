// SPDX-License-Identifier: GPL-2.0
/*
 * The cfqx elevator's policy: the sysfs tunables under iosched/ and the
 * attached cfqx policy BPF map (the live policy both the BPF accounting
 * and the elevator obey).  cfqx_policy() returns what is in force: the
 * local policy, or the map's last good value.  A write is validated as a
 * whole policy (cfqx_policy_check()); a bad one gets -EINVAL and changes
 * nothing; with a map attached it is written to the map too.
 * Locking: see cfqx-iosched.h.
 */
#include <linux/bpf.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "cfqx-iosched.h"

/*
 * Refresh cd->live from the attached map.  Array map values are a plain
 * pointer into the map's value area; BPF programs and `bpftool map update`
 * may write it concurrently, so each field is read once and the copy is
 * validated as a whole.  Caller holds cd->lock.
 */
const struct cfqx_policy *cfqx_policy(struct cfqx_data *cd)
{
	struct cfqx_policy v;
	const __u32 *src;
	__u32 *dst = (__u32 *)&v;
	u32 key = 0;
	void *val;
	int i, bad;

	lockdep_assert_held(&cd->lock);
	if (!cd->map)
		return &cd->live;

	rcu_read_lock();
	val = cd->map->ops->map_lookup_elem(cd->map, &key);
	if (val) {
		src = val;
		for (i = 0; i < CFQX_POLICY_SIZE / 4; i++)
			dst[i] = READ_ONCE(src[i]);
	}
	rcu_read_unlock();
	if (!val)
		return &cd->live;

	bad = cfqx_policy_check(&v);
	if (!memchr_inv(&v, 0, sizeof(v))) {
		/* A map just created (all zero) means: defaults. */
		cd->live = (struct cfqx_policy)CFQX_POLICY_DEFAULT;
	} else if (!bad) {
		cd->live = v;
	} else if (memcmp(&v, &cd->bad_seen, sizeof(v))) {
		cd->bad_seen = v;
		cd->st.bad_policy++;
		pr_warn_ratelimited("cfqx: ignoring policy map value: bad %s\n",
				    cfqx_policy_field_names[bad - 1]);
	}
	return &cd->live;
}

void cfqx_detach_map(struct cfqx_data *cd)
{
	struct bpf_map *old;
	unsigned long flags;

	spin_lock_irqsave(&cd->lock, flags);
	old = cd->map;
	cd->map = NULL;
	cd->live = cd->pol;
	spin_unlock_irqrestore(&cd->lock, flags);
	if (old)
		bpf_map_put(old);
}

static ssize_t cfqx_group_by_show(struct elevator_queue *e, char *page)
{
	struct cfqx_data *cd = e->elevator_data;
	unsigned long flags;
	ssize_t len = 0;
	u32 cur;
	int i;

	spin_lock_irqsave(&cd->lock, flags);
	cur = cfqx_policy(cd)->group_by;
	spin_unlock_irqrestore(&cd->lock, flags);
	for (i = 0; i < CFQX_BY_NR; i++)
		len += sysfs_emit_at(page, len, i == cur ? "%s[%s]" : "%s%s",
				     i ? " " : "", cfqx_group_by_names[i]);
	len += sysfs_emit_at(page, len, "\n");
	return len;
}

/*
 * Apply a changed policy: validate it whole, keep it locally and, with a
 * map attached, write it to the map too (BPF side and elevator together).
 */
static ssize_t cfqx_policy_store(struct cfqx_data *cd,
				 void (*set)(struct cfqx_policy *, u32),
				 u32 val, size_t count)
{
	struct cfqx_policy np;
	struct bpf_map *map;
	unsigned long flags;
	u32 key = 0;
	int err = 0;

	spin_lock_irqsave(&cd->lock, flags);
	np = *cfqx_policy(cd);
	set(&np, val);
	if (cfqx_policy_check(&np)) {
		spin_unlock_irqrestore(&cd->lock, flags);
		return -EINVAL;
	}
	cd->pol = np;
	cd->live = np;
	map = cd->map;
	if (map)
		bpf_map_inc(map);
	spin_unlock_irqrestore(&cd->lock, flags);

	if (map) {
		rcu_read_lock();
		err = map->ops->map_update_elem(map, &key, &np, BPF_ANY);
		rcu_read_unlock();
		bpf_map_put(map);
	}
	return err ? err : count;
}

#define CFQX_TUNABLE(name)						\
static void cfqx_set_##name(struct cfqx_policy *p, u32 v)		\
{									\
	p->name = v;							\
}									\
static ssize_t cfqx_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	struct cfqx_data *cd = e->elevator_data;			\
	unsigned long flags;						\
	u32 v;								\
									\
	spin_lock_irqsave(&cd->lock, flags);				\
	v = cfqx_policy(cd)->name;					\
	spin_unlock_irqrestore(&cd->lock, flags);			\
	return sysfs_emit(page, "%u\n", v);				\
}									\
static ssize_t cfqx_##name##_store(struct elevator_queue *e,		\
				   const char *page, size_t count)	\
{									\
	u32 v;								\
									\
	if (kstrtou32(page, 10, &v))					\
		return -EINVAL;						\
	return cfqx_policy_store(e->elevator_data, cfqx_set_##name, v,	\
				 count);				\
}

CFQX_TUNABLE(quantum)
CFQX_TUNABLE(queued)
CFQX_TUNABLE(max_queued)
CFQX_TUNABLE(fifo_expire_sync)
CFQX_TUNABLE(fifo_expire_async)
CFQX_TUNABLE(fifo_batch_expire)
CFQX_TUNABLE(back_seek_max)
CFQX_TUNABLE(back_seek_penalty)
CFQX_TUNABLE(max_depth)
CFQX_TUNABLE(slice_idle)

static void cfqx_set_group_by(struct cfqx_policy *p, u32 v)
{
	p->group_by = v;
}

static ssize_t cfqx_group_by_store(struct elevator_queue *e, const char *page,
				   size_t count)
{
	size_t len = count;
	int v;

	if (len && page[len - 1] == '\n')
		len--;
	v = cfqx_group_by_parse(page, len);
	if (v < 0)
		return -EINVAL;
	return cfqx_policy_store(e->elevator_data, cfqx_set_group_by, v, count);
}

static ssize_t cfqx_policy_map_show(struct elevator_queue *e, char *page)
{
	struct cfqx_data *cd = e->elevator_data;
	unsigned long flags;
	u32 id = 0;
	bool on;

	spin_lock_irqsave(&cd->lock, flags);
	on = cd->map;
	if (on)
		id = cd->map->id;
	spin_unlock_irqrestore(&cd->lock, flags);
	if (!on)
		return sysfs_emit(page, "none\n");
	return sysfs_emit(page, "id %u\n", id);
}

/*
 * Write a file descriptor (of the writing process) of the cfqx policy map
 * to attach it; -1 or 0 detaches.  The map must match the ABI exactly.
 */
static ssize_t cfqx_policy_map_store(struct elevator_queue *e,
				     const char *page, size_t count)
{
	struct cfqx_data *cd = e->elevator_data;
	struct bpf_map *map, *old;
	unsigned long flags;
	int fd;

	if (kstrtoint(page, 10, &fd))
		return -EINVAL;
	if (fd <= 0) {
		if (fd < -1)
			return -EINVAL;
		cfqx_detach_map(cd);
		return count;
	}
	map = bpf_map_get(fd);
	if (IS_ERR(map))
		return -EINVAL;
	if (map->map_type != BPF_MAP_TYPE_ARRAY || map->key_size != 4 ||
	    map->value_size != sizeof(struct cfqx_policy) ||
	    map->max_entries < 1) {
		bpf_map_put(map);
		return -EINVAL;
	}
	spin_lock_irqsave(&cd->lock, flags);
	old = cd->map;
	cd->map = map;
	cfqx_policy(cd);
	spin_unlock_irqrestore(&cd->lock, flags);
	if (old)
		bpf_map_put(old);
	return count;
}

#define CFQX_ATTR(name) \
	__ATTR(name, 0644, cfqx_##name##_show, cfqx_##name##_store)

struct elv_fs_entry cfqx_attrs[] = {
	CFQX_ATTR(group_by),
	CFQX_ATTR(quantum),
	CFQX_ATTR(queued),
	CFQX_ATTR(max_queued),
	CFQX_ATTR(fifo_expire_sync),
	CFQX_ATTR(fifo_expire_async),
	CFQX_ATTR(fifo_batch_expire),
	CFQX_ATTR(back_seek_max),
	CFQX_ATTR(back_seek_penalty),
	CFQX_ATTR(max_depth),
	CFQX_ATTR(slice_idle),
	CFQX_ATTR(policy_map),
	__ATTR_NULL
};
