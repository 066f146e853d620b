# SPDX-License-Identifier: GPL-2.0
# Event pipeline and uevents (issue 4): the storm generator driver, a real
# NETLINK_KOBJECT_UEVENT listener, the encoder unit test (ASan/UBSan), the
# pipeline under TSan, the root integration tests, `make bench-events` and
# `make install` (binary, udev rules, systemd unit).
EV_DIR := $(ROOT)/tests/events
EV_BIN := $(TEST_BIN)/events
EV_PIPE_SRCS := $(wildcard $(ROOT)/user/pipeline*.c) $(ROOT)/user/uevent.c
EV_HDRS := $(wildcard $(ROOT)/user/pipeline*.h) $(ROOT)/user/uevent.h $(ROOT)/user/encode.h \
	$(wildcard $(ROOT)/include/cfqx/*.h)
EV_LIBS := -lbpf -lelf -lz -lpthread
KFIFO_SRCS_EV := $(ROOT)/kfifo/kfifo.c

$(EV_BIN)/cfqx-storm: $(EV_DIR)/storm.c $(BUILD)/cfqx_storm.skel.h | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -o $@ $< $(EV_LIBS)

$(EV_BIN)/uevent-listen: $(EV_DIR)/uevent_listen.c | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -o $@ $<

# Encoder unit test over random input, under ASan/UBSan.
$(EV_BIN)/uevent-unit: $(EV_DIR)/uevent_unit.c $(ROOT)/user/uevent.c $(EV_HDRS) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -I$(ROOT)/user $(ASAN_FLAGS) -o $@ \
		$(EV_DIR)/uevent_unit.c $(ROOT)/user/uevent.c -lcriterion

# The pipeline's pure parts (encoders, formatters, rate limit and
# incident tables), under ASan/UBSan.
EV_UNIT_SRCS := $(ROOT)/user/pipeline_format.c $(ROOT)/user/pipeline_limit.c \
	$(ROOT)/user/uevent.c
$(EV_BIN)/pipeline-unit: $(EV_DIR)/pipeline_unit.c $(EV_UNIT_SRCS) $(EV_HDRS) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -I$(ROOT)/user $(ASAN_FLAGS) -o $@ \
		$(EV_DIR)/pipeline_unit.c $(EV_UNIT_SRCS) -lcriterion

# The pipeline alone (what `cfqx run --no-uevents --json` runs), built
# plain, with ASan/UBSan and with TSan.
$(EV_BIN)/evpipe: $(EV_DIR)/evpipe.c $(EV_PIPE_SRCS) $(EV_HDRS) $(KFIFO_SRCS_EV) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -I$(ROOT)/user -o $@ $(EV_DIR)/evpipe.c \
		$(EV_PIPE_SRCS) $(KFIFO_SRCS_EV) $(EV_LIBS)
$(EV_BIN)/evpipe-asan: $(EV_DIR)/evpipe.c $(EV_PIPE_SRCS) $(EV_HDRS) $(KFIFO_SRCS_EV) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(ASAN_FLAGS) -I$(ROOT)/user -o $@ $(EV_DIR)/evpipe.c \
		$(EV_PIPE_SRCS) $(KFIFO_SRCS_EV) $(EV_LIBS)
$(EV_BIN)/evpipe-tsan: $(EV_DIR)/evpipe.c $(EV_PIPE_SRCS) $(EV_HDRS) $(KFIFO_SRCS_EV) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(TSAN_FLAGS) -I$(ROOT)/user -o $@ $(EV_DIR)/evpipe.c \
		$(EV_PIPE_SRCS) $(KFIFO_SRCS_EV) $(EV_LIBS)

$(EV_BIN)/bench-events: $(EV_DIR)/bench.c $(EV_PIPE_SRCS) $(EV_HDRS) \
		$(BUILD)/cfqx_storm.skel.h $(KFIFO_SRCS_EV) | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -I$(ROOT)/user -o $@ $(EV_DIR)/bench.c \
		$(EV_PIPE_SRCS) $(KFIFO_SRCS_EV) $(EV_LIBS)

EV_TOOLS := $(EV_BIN)/cfqx-storm $(EV_BIN)/uevent-listen $(EV_BIN)/evpipe \
	$(EV_BIN)/evpipe-asan $(EV_BIN)/evpipe-tsan
ALL += $(EV_TOOLS)

.PHONY: test-events-unit test-events-pipeline-unit test-events-storm test-events-sigterm \
	test-events-malformed test-events-tsan test-events-uevent \
	test-events-udev test-events-ratelimit test-events-sinkfail \
	test-events-sinkstall test-events-once bench-events install
test-events-unit: $(EV_BIN)/uevent-unit
	$(Q)$(call run_test,events-unit) $<
test-events-pipeline-unit: $(EV_BIN)/pipeline-unit
	$(Q)$(call run_test,events-pipeline-unit) $<
test-events-storm: $(EV_TOOLS) $(CFQX_BIN)
	$(Q)$(call run_test,events-storm) $(EV_DIR)/storm.sh storm
test-events-sigterm: $(EV_TOOLS) $(CFQX_BIN)
	$(Q)$(call run_test,events-sigterm) $(EV_DIR)/storm.sh sigterm
# (user/user.mk, included after this file, builds cfqx-asan)
test-events-malformed: $(EV_TOOLS) $(BUILD)/cfqx-asan
	$(Q)$(call run_test,events-malformed) $(EV_DIR)/storm.sh malformed
test-events-tsan: $(EV_TOOLS)
	$(Q)$(call run_test,events-tsan) $(EV_DIR)/storm.sh tsan
# Fault injection: a sink that fails (file size limit), one that stalls
# (a FIFO nobody reads: bounded SIGTERM, exact counters) and resumes, and
# --once against a producer that never stops.
test-events-sinkfail: $(EV_TOOLS) $(BUILD)/cfqx-asan
	$(Q)$(call run_test,events-sinkfail) $(EV_DIR)/storm.sh sinkfail
test-events-sinkstall: $(EV_TOOLS) $(CFQX_BIN) $(BUILD)/cfqx-asan
	$(Q)$(call run_test,events-sinkstall) $(EV_DIR)/storm.sh sinkstall
test-events-once: $(EV_TOOLS) $(CFQX_BIN)
	$(Q)$(call run_test,events-once) $(EV_DIR)/storm.sh once
test-events-uevent: $(EV_TOOLS) $(CFQX_BIN)
	$(Q)$(call run_test,events-uevent) $(EV_DIR)/uevent.sh
test-events-udev: $(EV_TOOLS) $(BUILD)/cfqx-asan
	$(Q)$(call run_test,events-udev) $(EV_DIR)/udev.sh
test-events-ratelimit: $(EV_TOOLS) $(BUILD)/cfqx-asan
	$(Q)$(call run_test,events-ratelimit) $(EV_DIR)/ratelimit.sh
TESTS += test-events-unit test-events-pipeline-unit test-events-storm test-events-sigterm \
	test-events-malformed test-events-tsan test-events-uevent \
	test-events-udev test-events-ratelimit test-events-sinkfail \
	test-events-sinkstall test-events-once

bench-events: $(EV_BIN)/bench-events | deps
	$(Q)$< --rounds 5

# make install: the cfqx binary, the udev rules, the systemd unit.
PREFIX ?= /usr/local
UDEV_RULES_DIR ?= /etc/udev/rules.d
SYSTEMD_UNIT_DIR ?= /etc/systemd/system
install: $(CFQX_BIN)
	$(call msg,INSTALL,$(PREFIX)/sbin/cfqx)
	$(Q)install -D -m 0755 $(CFQX_BIN) $(DESTDIR)$(PREFIX)/sbin/cfqx
	$(Q)install -D -m 0644 $(ROOT)/udev/59-cfqx.rules \
		$(DESTDIR)$(UDEV_RULES_DIR)/59-cfqx.rules
	$(Q)install -D -m 0644 $(ROOT)/systemd/cfqx.service \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/cfqx.service
	$(Q)if [ -z "$(DESTDIR)" ] && command -v udevadm >/dev/null && \
		[ -S /run/udev/control ]; then udevadm control --reload; fi
