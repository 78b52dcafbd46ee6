#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kvm-selftest.sh [COUNTS_FILE]
# Run the series' KVM selftest (x86/perm_upgrade_test) on the patched and
# the base kernel, each with nested paging (kvm_amd.npt=1) and shadow paging
# (npt=0).  The kernels boot under QEMU with TCG on an emulated AMD CPU with
# SVM, so KVM runs nested even where /dev/kvm cannot run guests.  Expected:
# the patched kernel passes; the base kernel fails, reporting the refaults.
# Each of the four runs counts as passed when it gives the expected result.
# KERNELS="patched" (make check) runs the patched kernel only.

. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file

B=$BUILD/kvm-selftest
mkdir -p "$B"
KERNELS=${KERNELS:-patched base}
for k in $KERNELS; do
	case $k in
	patched) patched=$("$TOP/scripts/guest-kernel.sh" patched) ;;
	base) base=$("$TOP/scripts/guest-kernel.sh" base) ;;
	*) die "unknown kernel '$k' in KERNELS (patched, base)" ;;
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
		rc=0
		"$TOP/scripts/run-guest.sh" "$kernel" "$B/initramfs.cpio.gz" "$npt" \
			"$log" >/dev/null || rc=$?
		grep -aE '^GUEST|^# |^ok |^not ok ' "$log" | sed 's/^/    /'
		case $k:$rc in
		patched:0|base:1) r=ok; pass=$((pass + 1)) ;;
		*) r=FAILED; fail=$((fail + 1)) ;;
		esac
		case $rc in 0) g=PASS ;; 1) g=FAIL ;; *) g="NO RESULT" ;; esac
		echo "$r       $k kernel, npt=$npt: $g (expected: $([ $k = patched ] && echo PASS || echo FAIL))"
	done
done
echo "kvm-selftest: $pass passed, $fail failed"
[ -z "${1:-}" ] || echo "$pass $fail" >"$1"
[ "$fail" -eq 0 ]
