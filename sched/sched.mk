# SPDX-License-Identifier: GPL-2.0
# The scheduling core (sched/): one C file compiled unchanged into the
# cfqx elevator module (kmod/Kbuild), the cfqx command (`cfqx sim`) and
# the unit tests.  Fragments that link it use these names.
SCHED_SRCS := $(ROOT)/sched/cfqx-sched.c
SCHED_HDRS := $(wildcard $(ROOT)/sched/*.h)
