# SPDX-License-Identifier: GPL-2.0
# The cfqx command: every user/*.c linked into $(CFQX_BIN), with the BPF
# skeleton and (once it exists) libkfifo.  CFQX_PURE_SRCS are the files
# without system access that the unit tests compile on their own.
USER_SRCS := $(wildcard $(ROOT)/user/*.c)
USER_OBJS := $(patsubst $(ROOT)/user/%.c,$(BUILD)/user/%.o,$(USER_SRCS)) \
	$(BUILD)/user/cfqx-sched.o
USER_HDRS := $(wildcard $(ROOT)/user/*.h $(ROOT)/include/cfqx/*.h) $(SCHED_HDRS)
CFQX_PURE_SRCS := $(ROOT)/user/parse.c $(ROOT)/user/format.c $(ROOT)/user/devname.c \
	$(ROOT)/user/prom.c $(ROOT)/user/topview.c
CFQX_LIBS := -lbpf -lelf -lz -lpthread
CFQX_LINK_KFIFO := $(if $(wildcard $(ROOT)/kfifo/kfifo.mk),$(LIBKFIFO_A))

$(BUILD)/user:
	$(Q)mkdir -p $@

$(BUILD)/user/%.o: $(ROOT)/user/%.c $(USER_HDRS) $(BUILD)/cfqx.skel.h \
		| deps $(BUILD)/user
	$(call msg,CC,$@)
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

# The scheduling core, for `cfqx sim`.
$(BUILD)/user/cfqx-sched.o: $(SCHED_SRCS) $(USER_HDRS) | deps $(BUILD)/user
	$(call msg,CC,$@)
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

$(BUILD)/user-asan/cfqx-sched.o: $(SCHED_SRCS) $(USER_HDRS) | deps $(BUILD)/user-asan
	$(call msg,CC-ASAN,$@)
	$(Q)$(CC) $(USER_CFLAGS) $(ASAN_FLAGS) -c $< -o $@

$(CFQX_BIN): $(USER_OBJS) $(CFQX_LINK_KFIFO) | deps
	$(call msg,LINK,$@)
	$(Q)$(CC) $(USER_CFLAGS) $(USER_LDFLAGS) $^ $(CFQX_LIBS) -o $@

.PHONY: cfqx
cfqx: $(CFQX_BIN)
ALL += $(CFQX_BIN)

# The same command built with ASan+UBSan, for the integration test.
CFQX_ASAN_BIN := $(BUILD)/cfqx-asan
USER_ASAN_OBJS := $(patsubst $(ROOT)/user/%.c,$(BUILD)/user-asan/%.o,$(USER_SRCS)) \
	$(BUILD)/user-asan/cfqx-sched.o

$(BUILD)/user-asan:
	$(Q)mkdir -p $@

$(BUILD)/user-asan/%.o: $(ROOT)/user/%.c $(USER_HDRS) $(BUILD)/cfqx.skel.h \
		| deps $(BUILD)/user-asan
	$(call msg,CC-ASAN,$@)
	$(Q)$(CC) $(USER_CFLAGS) $(ASAN_FLAGS) -c $< -o $@

$(CFQX_ASAN_BIN): $(USER_ASAN_OBJS) $(CFQX_LINK_KFIFO) | deps
	$(call msg,LINK,$@)
	$(Q)$(CC) $(USER_CFLAGS) $(ASAN_FLAGS) $(USER_LDFLAGS) $^ $(CFQX_LIBS) -o $@
