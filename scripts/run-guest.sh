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
#   nVHE on a CPU without FWB) or mte (-cpu max, -M mte=on).
#
# - The QEMU command line is the log's first line ("GUEST-QEMU: ..."):
#   reports read it from there.
# - The kernel never boots quiet: loglevel=5 puts every WARN, BUG, lockdep
#   and KASAN report on the console (quiet shows only KERN_ERR and above).
# - A boot that never reached the test (no "GUEST: kernel" line; under a
#   loaded host TCG sometimes fails the guest's IO-APIC timer check) is
#   retried once; the first log is kept as LOG.try1.
# - The log is then read by rfctool.py guest: any kernel splat or taint in
#   it (rfc_splat's patterns) fails the run whatever the test said.
# - With RFC_GUEST_SILENCE=N, a watchdog notices a guest that prints
#   nothing for N seconds: through QEMU's monitor (a unix socket, LOG.mon)
#   it writes evidence into the log (rfctool.py watchdog: every vCPU's
#   RIP resolved against the kernel's System.map, twice; whether jiffies
#   advance, which needs nokaslr; with the kernel's kvm-offsets, KVM's
#   mmu_invalidate_in_progress and _seq of every VM; SysRq l and w), then
#   kills QEMU.
#
# Exit status: 0 the test passed, 1 it failed, 2 no result, 3 a splat.
# The arm64 CPU max has pauth-impdef=on: QEMU's architected pointer
# authentication makes TCG several times slower.
# thread=single: with multi-threaded TCG, a vCPU sometimes executes a stale
# int3 after text_poke_bp() patched a static key (toggled by every KVM VM
# creation/destruction) and the guest kernel oopses in __schedule().
#: RFC_GUEST_CPU      x86_64 guest -cpu (default EPYC,+svm,+npt)
#: RFC_GUEST_TCG_THREAD  single (default) or multi: TCG's thread= (multi is
#:                    for e2e-soak's comparison only, see above)
#: RFC_GUEST_APPEND   more guest kernel arguments ("quiet" is refused)
#: RFC_GUEST_MEM      guest memory, a number of GiB (default 4; e2e.sh sets
#:                    7 for a nested guest of more than 512 MiB)
#: RFC_TIMEOUT        limit of one guest boot in seconds (default 900)
#: RFC_GUEST_SILENCE  seconds without console output after which the guest
#:                    runner collects evidence and kills QEMU (default 0: off;
#:                    x86_64 guests only)

. "$(dirname "$0")/lib.sh"
need python3 file

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
x86_64:*) die "MODE must be 0 or 1 (kvm_amd.npt) for an x86_64 kernel, not '$mode'" ;;
*) die "MODE must be vhe, nvhe, protected, a57 or mte for an arm64 kernel, not '$mode'" ;;
esac
case $arch in
x86_64) append="console=ttyS0 panic=-1 loglevel=5 ${RFC_GUEST_APPEND:-} kvm_amd.npt=$mode" ;;
arm64) append="console=ttyAMA0 panic=-1 loglevel=5 ${RFC_GUEST_APPEND:-} $amode" ;;
esac
case " $append " in
*" quiet "*) die "RFC_GUEST_APPEND: 'quiet' would hide WARN and lockdep reports" ;;
esac
timeout=${RFC_TIMEOUT:-900}
case $timeout in '' | *[!0-9]*) die "RFC_TIMEOUT must be a number of seconds" ;; esac
silence=${RFC_GUEST_SILENCE:-0}
case $silence in '' | *[!0-9]*) die "RFC_GUEST_SILENCE must be a number of seconds" ;; esac
[ "$silence" = 0 ] || [ "$arch" = x86_64 ] || die "RFC_GUEST_SILENCE: x86_64 guests only"

sysmap=$(dirname "$kernel")/../../../System.map
[ -f "$sysmap" ] || sysmap=/dev/null
# offsetof(struct kvm, ...), from guest-kernel.sh (the soak kernels).
kvmoff=$(dirname "$kernel")/../../../kvm-offsets
[ -f "$kvmoff" ] || kvmoff=

gmem=${RFC_GUEST_MEM:-4}
case $gmem in '' | *[!0-9]* | 0) die "RFC_GUEST_MEM must be a number of GiB, not '$gmem'" ;; esac
tcg_thread=${RFC_GUEST_TCG_THREAD:-single}
case $tcg_thread in single | multi) ;; *) die "RFC_GUEST_TCG_THREAD must be single or multi" ;; esac

case $arch in
x86_64)
	set -- qemu-system-x86_64 -accel "tcg,thread=$tcg_thread" \
		-cpu "${RFC_GUEST_CPU:-EPYC,+svm,+npt}" -m "${gmem}G" -smp 2 -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" -append "$append" ;;
arm64)
	set -- qemu-system-aarch64 -accel "tcg,thread=$tcg_thread" -M "$machine" \
		-cpu "$acpu" -m "${gmem}G" -smp 2 -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" -append "$append" ;;
esac

# watch LOG MONITOR PID: the silence watchdog of one boot.
watch() {
	last=$(wc -c <"$1")
	quiet=0
	while kill -0 "$3" 2>/dev/null; do
		sleep 5
		now=$(wc -c <"$1")
		if [ "$now" != "$last" ]; then
			last=$now quiet=0
			continue
		fi
		quiet=$((quiet + 5))
		[ "$quiet" -ge "$silence" ] || continue
		echo "GUEST-WATCHDOG: no console output for ${quiet}s: evidence, then QEMU is killed" >>"$1"
		# Time for the SysRq output, if the monitor took the keys.
		# shellcheck disable=SC2086 # no word when there are no offsets
		! rfctool watchdog "$2" "$sysmap" $kvmoff >>"$1" 2>&1 || sleep 15
		echo "GUEST-WATCHDOG: killed QEMU" >>"$1"
		kill "$3"
		return
	done
}

boot() { # LOG COMMAND...
	l=$1
	shift
	[ "$silence" = 0 ] || set -- "$@" -monitor "unix:$l.mon,server=on,wait=off"
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
	if [ "$silence" = 0 ]; then
		timeout "$timeout" "$@" </dev/null >>"$l" 2>&1 || :
		return
	fi
	rm -f "$l.mon"
	timeout "$timeout" "$@" </dev/null >>"$l" 2>&1 &
	qpid=$!
	watch "$l" "$l.mon" "$qpid" &
	wpid=$!
	wait "$qpid" || :
	kill "$wpid" 2>/dev/null || :
	wait "$wpid" 2>/dev/null || :
	rm -f "$l.mon"
}

boot "$log" "$@"
if ! grep -aq '^GUEST: kernel ' "$log"; then
	mv "$log" "$log.try1"
	info "$log: the guest never reached the test; booting once more (first log: $log.try1)"
	boot "$log" "$@"
else
	rm -f "$log.try1"
fi
rc=0
rfctool guest "$log" >&2 || rc=$?
exit "$rc"
