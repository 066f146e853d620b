# SPDX-License-Identifier: GPL-2.0
# kfifo library: both API generations (kfifo/kfifo.h modern, kfifo/kfifo-2.6.10.h
# 2004) in one static and one shared library.  Objects are built once with
# -fPIC and used for both.  Sanitizer builds compile KFIFO_SRCS directly
# into their test binaries (tests/kfifo/kfifo-tests.mk).
KFIFO_DIR := $(ROOT)/kfifo
KFIFO_SRCS := $(KFIFO_DIR)/kfifo.c $(KFIFO_DIR)/kfifo-2.6.10.c
KFIFO_HDRS := $(wildcard $(KFIFO_DIR)/include/kfifo/*.h)
KFIFO_OBJS := $(patsubst $(KFIFO_DIR)/%.c,$(BUILD)/kfifo/%.o,$(KFIFO_SRCS))

$(BUILD)/kfifo/%.o: $(KFIFO_DIR)/%.c $(KFIFO_HDRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -fPIC -c $< -o $@

$(LIBKFIFO_A): $(KFIFO_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBKFIFO_SO): $(KFIFO_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libkfifo.so -o $@ $^

.PHONY: kfifo
kfifo: $(LIBKFIFO_A) $(LIBKFIFO_SO)

ALL += $(LIBKFIFO_A) $(LIBKFIFO_SO)

# make bench-kfifo: the two-core kfifo benchmark (bench/kfifo/bench.c, with
# the moodycamel queue in a small C++ translation unit).
KFIFO_BENCH := $(BUILD)/bench/kfifo-bench

$(BUILD)/bench/rwq.o: $(ROOT)/bench/kfifo/rwq.cpp | deps
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -std=c++17 -O2 -g -Wall -Wextra -Werror -DNDEBUG -c $< -o $@

$(KFIFO_BENCH): $(ROOT)/bench/kfifo/bench.c $(ROOT)/bench/kfifo/bench-2.6.10.c \
		$(BUILD)/bench/rwq.o $(LIBKFIFO_A) | deps
	$(call msg,CC,$@)
	$(Q)$(CC) $(USER_CFLAGS) -o $@ $(filter %.c,$^) $(BUILD)/bench/rwq.o \
		$(LIBKFIFO_A) -lck -lstdc++ -pthread

.PHONY: bench-kfifo
bench-kfifo: $(KFIFO_BENCH)
	$(Q)$(KFIFO_BENCH) $(KFIFO_BENCH_ARGS)
