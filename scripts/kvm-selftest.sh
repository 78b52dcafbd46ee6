#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kvm-selftest.sh
# Run the series' KVM selftest (x86/perm_upgrade_test) on the patched and
# the base kernel, each with nested paging (kvm_amd.npt=1) and shadow paging
# (npt=0).  The kernels boot under QEMU with TCG on an emulated AMD CPU with
# SVM, so KVM runs nested even where /dev/kvm cannot run guests.  Expected:
# the patched kernel passes; the base kernel fails, reporting the refaults.
# Each of the four runs counts as passed when it gives the expected result
# and the console log has no kernel splat (run-guest.sh).
#: RFC_KERNELS        kvm-selftest: which kernels (default "patched base";
#:                    make check's kvm-selftest-patched: "patched")

. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file

B=$BUILD/kvm-selftest
mkdir -p "$B"
KERNELS=${RFC_KERNELS:-patched base}
for k in $KERNELS; do
	case $k in
	patched) patched=$("$TOP/scripts/guest-kernel.sh" patched) ;;
	base) base=$("$TOP/scripts/guest-kernel.sh" base) ;;
	*) die "unknown kernel '$k' in RFC_KERNELS (patched, base)" ;;
	esac
done

# One static test binary for both kernels, built against the patched uapi.
kvm_selftests "$BUILD/guest-patched" "$B/selftests" x86/perm_upgrade_test
"$TOP/scripts/mkinitramfs.sh" "$B/initramfs.cpio.gz" \
	"$B/selftests/x86/perm_upgrade_test" >&2

pass=0
fail=0
for k in $KERNELS; do
	for npt in 1 0; do
		log=$B/$k-npt$npt.log
		case $k in patched) kernel=$patched ;; base) kernel=$base ;; esac
		guest_run "$kernel" "$B/initramfs.cpio.gz" "$npt" "$log"
		case $k:$guest_rc in
		patched:0|base:1) r=ok; pass=$((pass + 1)) ;;
		*) r=FAILED; fail=$((fail + 1)) ;;
		esac
		echo "$r       $k kernel, npt=$npt: $guest_result (expected: $([ "$k" = patched ] && echo PASS || echo FAIL))"
	done
done
report kvm-selftest "$pass" "$fail"
[ "$fail" -eq 0 ]
