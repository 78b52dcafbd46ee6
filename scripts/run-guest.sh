#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run-guest.sh BZIMAGE INITRAMFS NPT(0|1) [LOG]
# GUEST_APPEND replaces "quiet" on the kernel command line, GUEST_CPU the
# -cpu model (EPYC,+svm,+npt); TIMEOUT in seconds (900).
# Boots the kernel under QEMU with TCG only (-accel kvm hangs where /dev/kvm
# cannot run guests) on an emulated AMD CPU with SVM, so that kvm_amd runs
# nested, with nested paging (NPT=1) or shadow paging (NPT=0).  Exit
# status: 0 if the guest printed GUEST-RESULT: PASS, 1 on FAIL, 2 if it
# printed neither.
# thread=single: with multi-threaded TCG, a vCPU sometimes executes a stale
# int3 after text_poke_bp() patched a static key (toggled by every KVM VM
# creation/destruction) and the guest kernel oopses in __schedule().
. "$(dirname "$0")/lib.sh"
kernel=$1 initrd=$2 npt=$3 log=${4:-$(mktemp)}
timeout ${TIMEOUT:-900} qemu-system-x86_64 -accel tcg,thread=single -cpu "${GUEST_CPU:-EPYC,+svm,+npt}" \
	-m 4G -smp 2 -nographic -no-reboot \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 ${GUEST_APPEND:-quiet} kvm_amd.npt=$npt" \
	</dev/null 2>&1 | tee "$log"
grep -q '^GUEST-RESULT: PASS' "$log" && exit 0
grep -q '^GUEST-RESULT: FAIL' "$log" && exit 1
exit 2
