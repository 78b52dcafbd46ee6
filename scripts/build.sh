#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh [--in DIR] ARCH [make targets...]
# Configure build/ARCH from the arch's defconfig plus KVM (x86_64:
# KVM_INTEL=m KVM_AMD=m KVM_WERROR=y; arm64 and s390: KVM=y) and the mm
# features the series touches, then build the directories the series
# touches (default: mm/ virt/kvm/ arch/ARCH/kvm/, and on x86_64
# lib/test_hmm.o, the HMM test driver, and drivers/infiniband/ with the
# RDMA core's on-demand paging, rxe and mlx5), incrementally and through
# ccache.  Cross compilers come from Debian.
# --in DIR: build those directories in build/DIR instead, a kernel build
# that another suite configured and built (make check's build-arm64 uses
# kunit-arm64's, whose config has every object that defconfig + KVM has
# in those directories: kunit/arm64.kunitconfig), its .config as it is
# (KVM=y checked); so the build costs nothing more.

. "$(dirname "$0")/lib.sh"
need make ccache

in=
if [ "${1-}" = --in ]; then
	in=${2:?usage: build.sh [--in DIR] ARCH [targets]}
	shift 2
fi
arch=${1:?usage: build.sh [--in DIR] ARCH [targets]}
shift
# The series' KUnit tests, built in so that they see -Werror too (symbols
# the tree does not know yet are dropped by olddefconfig).
tests="-e KUNIT -e MPROTECT_NOTIFIER_KUNIT_TEST
       -e KVM_MMU_NOTIFIER_KUNIT_TEST"
case $arch in
x86_64)
	opts="-e EXPERT -e VIRTUALIZATION -e KVM -m KVM_INTEL -m KVM_AMD
	      -e KVM_WERROR -e USERFAULTFD -e TRANSPARENT_HUGEPAGE -e HUGETLBFS
	      -e NUMA_BALANCING -e X86_INTEL_MEMORY_PROTECTION_KEYS
	      -e KVM_SW_PROTECTED_VM -e DEBUG_KERNEL -e KVM_PROVE_MMU
	      -e MEMORY_HOTPLUG -e MEMORY_HOTREMOVE -e ZONE_DEVICE
	      -e DEVICE_PRIVATE -e TEST_HMM -e INFINIBAND
	      -e INFINIBAND_USER_ACCESS -e INFINIBAND_ON_DEMAND_PAGING
	      -m RDMA_RXE -m MLX5_CORE -m MLX5_INFINIBAND $tests"
	want="KVM=y KVM_INTEL=m KVM_AMD=m KVM_WERROR=y TEST_HMM=y
	      INFINIBAND_ON_DEMAND_PAGING=y RDMA_RXE=m MLX5_INFINIBAND=m" ;;
arm64)
	opts="-e VIRTUALIZATION -e KVM -e USERFAULTFD -e TRANSPARENT_HUGEPAGE
	      -e HUGETLBFS $tests"
	want="KVM=y" ;;
s390)
	opts="-e VIRTUALIZATION -e KVM -e USERFAULTFD -e TRANSPARENT_HUGEPAGE
	      -e HUGETLBFS $tests"
	want="KVM=y" ;;
*)	die "unknown ARCH '$arch' (x86_64, arm64, s390)" ;;
esac
karch=$(karch_of "$arch")
cross=$(cross_of "$arch")
need "${cross}gcc"
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
# shellcheck disable=SC2046
[ $# -gt 0 ] || set -- $(arch_dirs "$arch")

use_ccache

bd=$BUILD/${in:-$arch}
mk() {
	make -s -C "$TREE" O="$bd" ARCH="$karch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" -j"$(nproc)" "$@"
}

# defconfig once; the options every time, because olddefconfig drops a
# symbol the tree does not have yet (bisect-check walks the series) and
# a later tree must get it back.  Another suite's build is left as it is.
if [ -n "$in" ]; then
	[ -f "$bd/.config" ] || die "no kernel build in $bd: run 'make $in' first"
	want=KVM=y
	# What makes kunit-arm64's build cover defconfig + KVM's objects.
	[ "$arch" != arm64 ] || want="$want KSM=y NUMA=y MEMCG=y MEMORY_HOTPLUG=y CMA=y"
else
	if [ ! -f "$bd/.config" ]; then
		mkdir -p "$bd"
		mk defconfig >/dev/null
	fi
	# shellcheck disable=SC2086
	"$TREE/scripts/config" --file "$bd/.config" $opts
	mk olddefconfig >/dev/null
fi
for w in $want; do
	grep -q "^CONFIG_$w\$" "$bd/.config" ||
		die "$arch: CONFIG_$w did not stick in $bd/.config"
done

# x86_64 (retpolines on): KVM's invalidation handler must stay a direct
# call, as on the base; a handler picked at run time would put a call
# through a retpoline thunk in every invalidation, per memslot.
no_indirect_handler() {
	obj=$bd/virt/kvm/kvm_main.o
	[ -f "$obj" ] || return 0
	grep -q '^CONFIG_MITIGATION_RETPOLINE=y$' "$bd/.config" || return 0
	n=$("${cross}objdump" -dr "$obj" | awk '
		/^[0-9a-f]+ <kvm_mmu_notifier_invalidate_range_start>:$/ { p = 1; next }
		p && /^$/ { exit }
		p && /__x86_indirect_thunk/ { n++ }
		END { print n + 0 }')
	[ "$n" -eq 0 ] && return 0
	echo "build.sh: $arch: kvm_mmu_notifier_invalidate_range_start() calls through a retpoline thunk ($n calls)" >&2
	return 1
}

info "$arch: building $* in $bd"
rc=0
mk "$@" || rc=$?
if [ "$rc" -eq 0 ] && [ "$arch" = x86_64 ] && ! no_indirect_handler; then
	rc=1
fi
if [ "$rc" -eq 0 ]; then
	report "build-$arch" 1 0
else
	report "build-$arch" 0 1
fi
exit "$rc"
