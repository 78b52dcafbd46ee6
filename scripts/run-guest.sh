#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh KERNEL INITRAMFS MODE LOG
# The one guest runner of every guest suite.  Boots a kernel with TCG only
# (-accel kvm hangs where /dev/kvm cannot run guests), with the initramfs of
# mkinitramfs.sh, whose /init runs the test:
# - an x86_64 bzImage under qemu-system-x86_64 on an emulated AMD CPU with
#   SVM, so that kvm_amd runs nested, with nested paging (MODE 1) or shadow
#   paging (MODE 0);
# - an arm64 Image under qemu-system-aarch64 -M virt,virtualization=on, at
#   EL2, so that KVM runs nested: MODE vhe (-cpu max), nvhe and protected
#   (-cpu max, kvm-arm.mode=nvhe or protected: pKVM), a57 (-cpu cortex-a57:
#   nVHE on a CPU without FWB), mte (-cpu max, -M mte=on: VHE with MTE) or
#   mte-nvhe (the same, kvm-arm.mode=nvhe).
#
# - The QEMU command line is the log's first line ("GUEST-QEMU: ..."):
#   reports read it from there.
# - The kernel never boots quiet: loglevel=5 puts every WARN, BUG, lockdep
#   and KASAN report on the console (quiet shows only KERN_ERR and above).
# - A boot that never reached the test (no "GUEST: kernel" line; under a
#   loaded host TCG sometimes fails the guest's IO-APIC timer check) is
#   retried once; the first log is kept as LOG.try1.
# It decides nothing: the guest suites' verdict reads the log
# (guest-suite.sh, harness.py verdict).
#
# Exit status: 0 when QEMU ended within the limit, 1 otherwise.
# The arm64 CPU max has pauth-impdef=on: QEMU's architected pointer
# authentication makes TCG several times slower.
# thread=single: with multi-threaded TCG, a vCPU sometimes executes a stale
# int3 after text_poke_bp() patched a static key (toggled by every KVM VM
# creation/destruction) and the guest kernel oopses in __schedule().
#: KPU_GUEST_CPU      x86_64 guest -cpu (default EPYC,+svm,+npt)
#: KPU_GUEST_TCG_THREAD  single (default) or multi: TCG's thread= (guest/suites'
#:                    boot lines set multi for a race that needs two real CPUs)
#: KPU_GUEST_APPEND   more guest kernel arguments ("quiet" is refused)
#: KPU_GUEST_MEM      guest memory, a number of GiB (default 4, or the suite's
#:                    mem; e2e with KPU_MEM_MB above 512 needs 7)
#: KPU_TIMEOUT        limit of one guest boot in seconds (default 900)

. "$(dirname "$0")/lib.sh"
need file timeout

[ $# -eq 4 ] || die "usage: run-guest.sh KERNEL INITRAMFS MODE LOG"
kernel=$1 initrd=$2 mode=$3 log=$4
[ -f "$kernel" ] || die "no kernel $kernel"
[ -f "$initrd" ] || die "no initramfs $initrd"
# An arm64 Image by its header ("ARMd" at 56), anything else as x86_64.
case $(file -bL "$kernel") in
*ARM64*) arch=arm64 qemu=qemu-system-aarch64 ;;
*) arch=x86_64 qemu=qemu-system-x86_64 ;;
esac
need "$qemu"
machine=virt,virtualization=on,gic-version=3 acpu=max,pauth-impdef=on amode=''
case $arch:$mode in
x86_64:0 | x86_64:1) ;;
arm64:vhe) ;;
arm64:nvhe | arm64:protected) amode=kvm-arm.mode=$mode ;;
arm64:a57) acpu=cortex-a57 ;;
arm64:mte) machine=$machine,mte=on ;;
arm64:mte-nvhe) machine=$machine,mte=on amode=kvm-arm.mode=nvhe ;;
x86_64:*) die "MODE must be 0 or 1 (kvm_amd.npt) for an x86_64 kernel, not '$mode'" ;;
*) die "MODE must be vhe, nvhe, protected, a57, mte or mte-nvhe for an arm64 kernel, not '$mode'" ;;
esac
case $arch in
x86_64) append="console=ttyS0 panic=-1 loglevel=5 ${KPU_GUEST_APPEND:-} kvm_amd.npt=$mode" ;;
arm64) append="console=ttyAMA0 panic=-1 loglevel=5 ${KPU_GUEST_APPEND:-} $amode" ;;
esac
case " $append " in
*" quiet "*) die "KPU_GUEST_APPEND: 'quiet' would hide WARN and lockdep reports" ;;
esac
timeout=${KPU_TIMEOUT:-900}
case $timeout in '' | *[!0-9]*) die "KPU_TIMEOUT must be a number of seconds" ;; esac
gmem=${KPU_GUEST_MEM:-4}
case $gmem in '' | *[!0-9]* | 0) die "KPU_GUEST_MEM must be a number of GiB, not '$gmem'" ;; esac
tcg_thread=${KPU_GUEST_TCG_THREAD:-single}
case $tcg_thread in single | multi) ;; *) die "KPU_GUEST_TCG_THREAD must be single or multi" ;; esac

case $arch in
x86_64)
	set -- qemu-system-x86_64 -accel "tcg,thread=$tcg_thread" \
		-cpu "${KPU_GUEST_CPU:-EPYC,+svm,+npt}" -m "${gmem}G" -smp 2 -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" -append "$append" ;;
arm64)
	set -- qemu-system-aarch64 -accel "tcg,thread=$tcg_thread" -M "$machine" \
		-cpu "$acpu" -m "${gmem}G" -smp 2 -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" -append "$append" ;;
esac

boot() { # LOG COMMAND...
	l=$1
	shift
	{
		printf 'GUEST-QEMU:'
		for w; do
			case $w in
			*[!A-Za-z0-9_.,:/+=-]*) printf " '%s'" "$w" ;;
			*) printf ' %s' "$w" ;;
			esac
		done
		echo
	} >"$l"
	timeout "$timeout" "$@" </dev/null >>"$l" 2>&1
}

rc=0
boot "$log" "$@" || rc=$?
if ! grep -aq '^GUEST: kernel ' "$log"; then
	mv "$log" "$log.try1"
	info "$log: the guest never reached the test; booting once more (first log: $log.try1)"
	rc=0
	boot "$log" "$@" || rc=$?
else
	rm -f "$log.try1"
fi
[ "$rc" -eq 0 ]
