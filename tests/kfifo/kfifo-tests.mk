# SPDX-License-Identifier: GPL-2.0
# kfifo tests: Criterion unit tests (optimised: test-kfifo, and under
# ASan+UBSan: test-kfifo-asan) and a two-thread stress test (optimised:
# test-kfifo-stress, and under TSan: test-kfifo-tsan, run as a plain program
# so TSan watches the two threads directly rather than Criterion's workers).
KFIFO_TEST_DIR := $(ROOT)/tests/kfifo
KFIFO_TEST_OUT := $(TEST_BIN)/kfifo
KFIFO_UNIT_SRCS := $(wildcard $(KFIFO_TEST_DIR)/test-*.c)
# test-2.6.10.c compiles snippets to check that the two headers refuse each other.
KFIFO_UNIT_DEFS := -DKFIFO_TEST_CC='"$(CC)"' -DKFIFO_INCLUDE='"$(KFIFO_DIR)/include"'

$(KFIFO_TEST_OUT)/unit: $(KFIFO_UNIT_SRCS) $(LIBKFIFO_A) $(KFIFO_HDRS) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(KFIFO_UNIT_DEFS) -o $@ $(KFIFO_UNIT_SRCS) \
		$(LIBKFIFO_A) -lcriterion -pthread

$(KFIFO_TEST_OUT)/unit-asan: $(KFIFO_UNIT_SRCS) $(KFIFO_SRCS) $(KFIFO_HDRS) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(ASAN_FLAGS) $(KFIFO_UNIT_DEFS) -o $@ \
		$(KFIFO_UNIT_SRCS) $(KFIFO_SRCS) -lcriterion -pthread

.PHONY: test-kfifo test-kfifo-asan test-kfifo-stress test-kfifo-tsan
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

test-kfifo-stress: $(KFIFO_TEST_OUT)/stress
	$(Q)$(call run_test,kfifo-stress) $(KFIFO_TEST_OUT)/stress

test-kfifo-tsan: $(KFIFO_TEST_OUT)/stress-tsan
	$(Q)$(call run_test,kfifo-tsan) env TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
		$(KFIFO_TEST_OUT)/stress-tsan

TESTS += test-kfifo-stress test-kfifo-tsan
