# SPDX-License-Identifier: GPL-2.0
#
# Build programs of this repository (bench/*.c) against the KVM selftest
# library of a kernel tree, with exactly the flags of the tree's KVM
# selftests and without writing into the tree:
#
#   make -C TREE/tools/testing/selftests/kvm -f $PWD/bench/kvm.mk \
#       OUTPUT=DIR BENCH_DIR=$PWD/bench EXTRA_CFLAGS=-static \
#       KHDR_INCLUDES="-isystem HDRS/usr/include" DIR/perm_upgrade_bench
#
# The selftests' own Makefile is included from its directory (so its
# relative paths hold); only the rules for BENCH_DIR's programs are added.
# Objects, the library objects included, go to OUTPUT.

include Makefile

BENCH_DIR ?= $(error BENCH_DIR is not set)

$(OUTPUT)/%.o: $(BENCH_DIR)/%.c $(GEN_HDRS)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c $< -o $@

$(OUTPUT)/perm_upgrade_bench: $(OUTPUT)/perm_upgrade_bench.o $(LIBKVM_OBJS)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH) $< $(LIBKVM_OBJS) $(LDLIBS) -o $@

-include $(OUTPUT)/perm_upgrade_bench.d
