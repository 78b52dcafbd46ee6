#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-kernel.sh patched|base
# Build the x86_64 kernel that runs the KVM selftests as a QEMU guest:
# x86_64_defconfig + guest/guest.config (KVM and KVM_AMD built in,
# userfaultfd-wp, THP, hugetlbfs, serial console, initramfs), from the tree
# (patched) or from a worktree of the tree at the base tag (base), into
# build/guest-KIND.  Prints the bzImage path.

. "$(dirname "$0")/lib.sh"
need make gcc ccache

kind=${1:?usage: guest-kernel.sh patched|base}
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
case $kind in
patched) src=$TREE ;;
base)
	src=$BUILD/linux-base
	[ -d "$src" ] ||
		git -C "$TREE" worktree add -q --detach "$src" "$BASE_TAG" >&2
	[ "$(git -C "$src" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")" ] ||
		die "$src is not at $BASE_TAG" ;;
*) die "unknown kernel '$kind' (patched, base)" ;;
esac

use_ccache
out=$BUILD/guest-$kind
mk() { make -s -C "$src" O="$out" CC="ccache gcc" "$@"; }

mkdir -p "$out"
mk x86_64_defconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
	"$TOP/guest/guest.config" >/dev/null
mk olddefconfig >/dev/null
for o in KVM KVM_AMD USERFAULTFD PTE_MARKER_UFFD_WP TRANSPARENT_HUGEPAGE \
		HUGETLBFS DEBUG_FS BLK_DEV_INITRD SERIAL_8250_CONSOLE; do
	grep -q "^CONFIG_$o=y" "$out/.config" || die "$kind: CONFIG_$o did not stick"
done
info "$kind: building bzImage in $out"
mk -j"$(nproc)" bzImage >&2
echo "$out/arch/x86/boot/bzImage"
