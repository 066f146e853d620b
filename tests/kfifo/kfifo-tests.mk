# SPDX-License-Identifier: GPL-2.0
# kfifo tests: Criterion unit tests (optimised, and under ASan+UBSan) and a
# two-thread stress test (optimised, and under TSan, run as a plain program).
KFIFO_TEST_DIR := $(ROOT)/tests/kfifo
KFIFO_TEST_OUT := $(TEST_BIN)/kfifo
KFIFO_UNIT_SRCS := $(wildcard $(KFIFO_TEST_DIR)/test-*.c)

$(KFIFO_TEST_OUT)/unit: $(KFIFO_UNIT_SRCS) $(LIBKFIFO_A) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -o $@ $(KFIFO_UNIT_SRCS) $(LIBKFIFO_A) -lcriterion

$(KFIFO_TEST_OUT)/unit-asan: $(KFIFO_UNIT_SRCS) $(KFIFO_SRCS) $(KFIFO_HDRS) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(ASAN_FLAGS) -o $@ $(KFIFO_UNIT_SRCS) \
		$(KFIFO_SRCS) -lcriterion

.PHONY: test-kfifo test-kfifo-asan test-kfifo-tsan
test-kfifo: $(KFIFO_TEST_OUT)/unit
	$(Q)$(call run_test,kfifo) $(KFIFO_TEST_OUT)/unit --jobs 2

test-kfifo-asan: $(KFIFO_TEST_OUT)/unit-asan
	$(Q)$(call run_test,kfifo-asan) $(KFIFO_TEST_OUT)/unit-asan --jobs 2

TESTS += test-kfifo test-kfifo-asan

KFIFO_STRESS_SRCS := $(KFIFO_TEST_DIR)/stress.c $(KFIFO_TEST_DIR)/stress-modern.c \
	$(KFIFO_TEST_DIR)/stress-2.6.10.c

$(KFIFO_TEST_OUT)/stress: $(KFIFO_STRESS_SRCS) $(KFIFO_TEST_DIR)/stress.h $(LIBKFIFO_A)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -o $@ $(KFIFO_STRESS_SRCS) $(LIBKFIFO_A) -pthread

$(KFIFO_TEST_OUT)/stress-tsan: $(KFIFO_STRESS_SRCS) $(KFIFO_TEST_DIR)/stress.h \
		$(KFIFO_SRCS) $(KFIFO_HDRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(TSAN_FLAGS) -o $@ $(KFIFO_STRESS_SRCS) \
		$(KFIFO_SRCS) -pthread

test-kfifo-tsan: $(KFIFO_TEST_OUT)/stress-tsan
	$(Q)$(call run_test,kfifo-tsan) env TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
		$(KFIFO_TEST_OUT)/stress-tsan

TESTS += test-kfifo-tsan
