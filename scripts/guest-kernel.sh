#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-kernel.sh patched|base|debug|patched-rdma|base-rdma|arm64-patched|arm64-base[-timing]
# Build the x86_64 kernel that runs the KVM selftests as a QEMU guest:
# x86_64_defconfig + guest/guest.config (KVM and KVM_AMD built in,
# userfaultfd-wp, THP, hugetlbfs, lib/test_hmm.c built in, serial console,
# initramfs) + guest/kunit.config (the series' KUnit suites, off unless
# kunit.enable=1), from the tree (patched) or from a worktree of the tree
# at the base tag (base), into build/guest-KIND.  debug: the tree with
# guest/debug.config on top (KASAN, lockdep, DEBUG_VM, DEBUG_ATOMIC_SLEEP,
# the KUnit suites built in).
# patched-rdma, base-rdma: the tree or the base with guest/rdma.config on
# top (networking, the RDMA core with ODP, rxe), for the rdma-odp suite.
# arm64-patched, arm64-base: the arm64 guest, from arm64's defconfig +
# guest/guest-arm64.config, built with Debian's cross compiler, into
# build/guest-arm64-patched or -base.
# KIND-timing (an x86_64 KIND): KIND with guest/timing.config on top
# (KVM_PROVE_MMU off), for the suites that time base against patched.
# Prints the path of the kernel image (bzImage or Image).

. "$(dirname "$0")/lib.sh"
need make gcc ccache

kind=${1:?usage: guest-kernel.sh patched|base|debug|patched-rdma|base-rdma|arm64-patched|arm64-base[-timing]}
frags="$TOP/guest/guest.config $TOP/guest/kunit.config"
timing=''
case $kind in
arm64-*-timing) die "no timing config for arm64 kernels" ;;
*-timing) timing=$TOP/guest/timing.config kind=${kind%-timing} ;;
esac
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
karch=x86 cross='' defconfig=x86_64_defconfig image=bzImage
case $kind in
patched) src=$TREE ;;
arm64-patched | arm64-base)
	karch=arm64 cross=aarch64-linux-gnu- defconfig=defconfig image=Image
	need "${cross}gcc"
	frags=$TOP/guest/guest-arm64.config src=$TREE
	[ "$kind" = arm64-patched ] || src=$(base_worktree) ;;
debug) src=$TREE frags="$frags $TOP/guest/debug.config" ;;
base)
	src=$(base_worktree) ;;
patched-rdma) src=$TREE frags="$frags $TOP/guest/rdma.config" ;;
base-rdma)
	src=$(base_worktree) frags="$frags $TOP/guest/rdma.config" ;;
*) die "unknown kernel '$kind' (patched, base, debug, patched-rdma, base-rdma, arm64-patched, arm64-base, and KIND-timing)" ;;
esac
[ -z "$timing" ] || frags="$frags $timing"

# The mm suite's own kunitconfig files, where the tree has them.
if [ "$karch" = x86 ]; then
	for f in "$src"/mm/tests/mprotect_notifier.kunitconfig \
			"$src"/mm/tests/mprotect_notifier.x86_64.kunitconfig; do
		[ ! -f "$f" ] || frags="$frags $f"
	done
fi

use_ccache
plain=$BUILD/guest-$kind
out=$plain${timing:+-timing}
mk() {
	make -s -C "$src" O="$out" ARCH="$karch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" "$@"
}

# An rdma or timing kernel starts from a copy of the plain kernel's build:
# make then rebuilds only what the extra options touch.
[ -z "$timing" ] || [ -d "$out" ] || [ ! -f "$plain/.config" ] || cp -a "$plain" "$out"
case $kind in
*-rdma)
	[ -d "$out" ] || [ ! -f "$BUILD/guest-${kind%-*}/.config" ] ||
		cp -a "$BUILD/guest-${kind%-*}" "$out" ;;
esac
mkdir -p "$out"
mk "$defconfig" >/dev/null
# shellcheck disable=SC2086
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags >/dev/null
mk olddefconfig >/dev/null
case $karch in
x86) want="KVM_AMD KVM_PROVE_MMU SERIAL_8250_CONSOLE DEVICE_PRIVATE TEST_HMM" ;;
arm64) want="ARM64_MTE SERIAL_AMBA_PL011_CONSOLE UDMABUF DRM_VGEM" ;;
esac
[ -z "$timing" ] || want=$(echo "$want" | sed 's/ KVM_PROVE_MMU//')
for o in KVM USERFAULTFD PTE_MARKER_UFFD_WP TRANSPARENT_HUGEPAGE HUGETLBFS \
		DEBUG_FS BLK_DEV_INITRD $want; do
	grep -q "^CONFIG_$o=y" "$out/.config" || die "$kind: CONFIG_$o did not stick"
done
[ -z "$timing" ] || timing_build "$out" ||
	die "$kind-timing: CONFIG_KVM_PROVE_MMU is still set"
case $kind in
debug) extra=$TOP/guest/debug.config ;;
*-rdma) extra=$TOP/guest/rdma.config ;;
*) extra= ;;
esac
[ -z "$extra" ] ||
	for o in $(sed -n 's/^CONFIG_\(.*\)=y$/\1/p' "$extra"); do
		grep -q "^CONFIG_$o=y" "$out/.config" || die "$kind: CONFIG_$o did not stick"
	done
info "$kind${timing:+-timing}: building $image in $out"
mk -j"$(nproc)" "$image" >&2
echo "$out/arch/$karch/boot/$image"
