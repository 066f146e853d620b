# SPDX-License-Identifier: GPL-2.0
# Builds the cfqx blk-mq elevator once per supported kernel (Debian
# bookworm's 6.1, 6.12 and 6.12-rt; scripts/kernels.sh resolves the names
# to the installed releases) into build/kmod/<kernel release>/cfqx.ko,
# each against that kernel's headers and the block-private headers of the
# matching linux-source tarball (kmod/block-headers.sh, at build time,
# never from the repo), out of the source tree, W=1 (kmod/kbuild.sh).
#   make kmod                       every supported kernel
#   make kmod KMOD_KERNELS=6.12-rt  a subset (also kmod-6.12-rt)
# More objects in the module: name them in kmod/Kbuild (`cfqx-y +=
# ../sched/foo.o`, with sched in KMOD_TREE_DIRS), or list C files in
# KMOD_EXTRA_SRCS.
KMOD_SUPPORTED := 6.1 6.12 6.12-rt
KMOD_KERNELS ?= $(KMOD_SUPPORTED)
# Source directories mirrored next to kmod/ in each kernel's build tree.
KMOD_TREE_DIRS ?= $(notdir $(wildcard $(ROOT)/sched))
KMOD_EXTRA_SRCS ?=
KMOD_HDRS := $(BUILD)/kmod-hdrs
# Kernel name -> linux-source version (6.12-rt -> 6.12).
kmod_src = $(firstword $(subst -, ,$(1)))

ALL += kmod

.PHONY: kmod $(addprefix kmod-,$(KMOD_SUPPORTED))
kmod: $(addprefix kmod-,$(KMOD_KERNELS))

/usr/src/linux-source-%.tar.xz: | deps
	@test -r $@ || { echo "kmod: $@ missing (scripts/deps.sh installs linux-source-$*)" >&2; exit 1; }

$(KMOD_HDRS)/%/.source: /usr/src/linux-source-%.tar.xz $(ROOT)/kmod/block-headers.sh | deps $(BUILD)
	$(call msg,HDRS,$(KMOD_HDRS)/$*/block)
	$(Q)$(ROOT)/kmod/block-headers.sh $< $(KMOD_HDRS)/$*

# Always runs kbuild (incremental, under a second when nothing changed).
define kmod_rule
kmod-$(1): $(KMOD_HDRS)/$(call kmod_src,$(1))/.source | deps
	$$(call msg,KMOD,$(1))
	$$(Q)ROOT=$$(ROOT) BUILD=$$(BUILD) KMOD_TREE_DIRS="$$(KMOD_TREE_DIRS)" \
		KMOD_EXTRA_SRCS="$$(KMOD_EXTRA_SRCS)" V=$$(V) \
		$$(ROOT)/kmod/kbuild.sh $(1) $(KMOD_HDRS)/$(call kmod_src,$(1))
endef
$(foreach k,$(KMOD_SUPPORTED),$(eval $(call kmod_rule,$(k))))
