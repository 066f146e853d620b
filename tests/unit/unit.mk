# SPDX-License-Identifier: GPL-2.0
# Criterion unit tests of the shared CFQ v2 math, the policy byte layout,
# the scheduling core (sched/) and the cfqx command's pure parsing
# and formatting; built plain and with ASan+UBSan.  No root needed.
UNIT_SRCS := $(wildcard $(ROOT)/tests/unit/test-*.c)
# user/user.mk is included after this fragment: name its pure files here
UNIT_USER_SRCS := $(ROOT)/user/parse.c $(ROOT)/user/format.c \
	$(ROOT)/user/devname.c $(ROOT)/user/prom.c $(ROOT)/user/topview.c
UNIT_DEPS := $(UNIT_SRCS) $(UNIT_USER_SRCS) $(SCHED_SRCS) $(SCHED_HDRS) \
	$(wildcard $(ROOT)/include/cfqx/*.h) $(ROOT)/user/cfqx.h \
	$(ROOT)/tests/bpf/json-mini.h
UNIT_BIN := $(TEST_BIN)/unit-cfqx
UNIT_ASAN_BIN := $(TEST_BIN)/unit-cfqx-asan
UNIT_CFLAGS = $(filter-out -I$(BUILD),$(USER_CFLAGS)) -I$(ROOT)/sched

$(UNIT_BIN): $(UNIT_DEPS) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(UNIT_CFLAGS) $(UNIT_SRCS) $(UNIT_USER_SRCS) \
		$(SCHED_SRCS) -lcriterion -o $@

$(UNIT_ASAN_BIN): $(UNIT_DEPS) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(UNIT_CFLAGS) -O1 $(ASAN_FLAGS) $(UNIT_SRCS) \
		$(UNIT_USER_SRCS) $(SCHED_SRCS) -lcriterion -o $@

.PHONY: test-unit test-unit-asan
test-unit: $(UNIT_BIN)
	$(Q)$(call run_test,unit) $(UNIT_BIN) --jobs 1

test-unit-asan: $(UNIT_ASAN_BIN)
	$(Q)$(call run_test,unit-asan) env ASAN_OPTIONS=detect_leaks=1 \
		$(UNIT_ASAN_BIN) --jobs 1

ALL += $(UNIT_BIN) $(UNIT_ASAN_BIN)
TESTS += test-unit test-unit-asan
