#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# e2e.sh [soak|boot-soak]
# QEMU's own background snapshot, end to end, base against patched kernel.
# Inside the usual outer guest (QEMU/TCG, nested SVM, run-guest.sh), the
# host's QEMU (Debian's qemu-system-x86_64, with the libraries it links
# against and the firmware it needs copied into the initramfs) runs a
# nested guest on -accel kvm: e2e/snapwork.c, a bare multiboot image that
# reads its memory in a loop and prints its pass times and a histogram of
# its access times.  e2e/run takes a background snapshot through QEMU's
# human monitor in separate phases (write-protect, resolve, after) and reads
# KVM's counters with "info stats".  Backings: anonymous 4 KiB (THP off),
# THP, shared hugetlb, memfd (shmem); each once with snapwork reading and
# once ("+write") writing a stamp into every page in turn while the
# snapshot runs.  Every snapshot goes to a file and is checked page by page
# against the guest's memory saved when it started (e2e/run's verify); a
# page that differs fails the run.  With RFC_PRIOR_KERNEL (lib.sh), a third kernel,
# "prior", boots between base and patched with the same initramfs and
# options (RFC_E2E_KERNELS chooses among them).  Writes results/e2e.md,
# results/e2e.csv and results/e2e.png; logs:
# build/e2e/{base,prior,patched}-nptN.log.
#
# Ends with "e2e: N passed, N failed", one per guest run (every kernel,
# prior included) that completed every phase of every backing with no
# kernel splat.
#
# soak: the same snapshot many times, to catch rare hangs and crashes:
# RFC_SOAK_ROUNDS rounds, each of them every npt of RFC_SOAK_NPT and TCG
# thread mode of RFC_SOAK_TCG, base then patched, on the soak kernels
# (guest/soak.config on top: lockup and hung-task detectors, SysRq),
# booted nokaslr, with the guest runner's silence watchdog
# (RFC_GUEST_SILENCE, default 300 s here), which collects evidence through
# the outer QEMU's monitor before it kills a silent guest.  Defaults: one
# backing, anon-4k with THP off, a 384 MiB nested guest in snapwork's
# paging mode (its own page tables and a timer that rewrites one of
# them: the shadow MMU's work under npt=0), no tracing.  Writes
# results/e2e-soak.md (counts per kernel, npt and TCG mode; every run
# with its evidence); logs: build/e2e/soak/.  "e2e-soak: N passed, N
# failed", one per run: passed when it finished every phase cleanly.
#
# boot-soak: the soak's setup (soak kernels, THP backing, khugepaged at
# 100 ms, snapwork's write mode, silence watchdog), but instead of a
# snapshot, RFC_BOOT_SOAK_BOOTS nested boots per outer boot, one after
# another, each until snapwork printed its first passes (e2e/run's
# boot_soak), with the outer kernel's kvm_unmap_hva_range events of each
# boot traced; RFC_SOAK_ROUNDS outer boots of each kernel and npt of
# RFC_SOAK_NPT (default "1"), base then patched.  For a nested guest that
# does not boot: its registers twice, 5 s apart, its QMP events and the
# unmaps of its boot.  Writes results/e2e-boot-soak.md; logs:
# build/e2e/boot-soak/.  "e2e-boot-soak: N passed, N failed", one per
# nested boot, and one failure more for an outer run that did not finish
# cleanly.
#: RFC_SOAK_ROUNDS    e2e-soak, e2e-boot-soak: rounds (default 10; boot soak: 3)
#: RFC_SOAK_NPT       e2e-soak, e2e-boot-soak: kvm_amd.npt values of a round (default "0 1"; boot soak: "1")
#: RFC_SOAK_TCG       e2e-soak, e2e-boot-soak: TCG thread modes of a round (default "single")
#: RFC_BOOT_SOAK_BOOTS e2e-boot-soak: nested boots per outer boot (default 100)
#: RFC_E2E_MEM_MB     e2e: memory of the nested guest in MiB (default 128)
#: RFC_E2E_PASSES     e2e: nested guest passes per phase (default 2)
#: RFC_E2E_BACKINGS   e2e: backings, each anon-4k, thp, hugetlb, hugetlb1g (1 GiB pages: RFC_E2E_MEM_MB=1024) or memfd, with "+write" for snapwork's write and spread modes, or a guest pattern (e2e-patterns: +read64, +write64, +rand-set) (default "anon-4k thp hugetlb memfd anon-4k+write thp+write hugetlb+write memfd+write"; e2e-patterns: "anon-4k+read64 anon-4k+write64 anon-4k+rand-set")
#: RFC_E2E_NPT        e2e: which kvm_amd.npt runs (default "1 0"; e2e-patterns: "1")
#: RFC_E2E_KERNELS    e2e: which guest kernels, built and booted in the order given: base,
#:                    prior (needs RFC_PRIOR_KERNEL), patched (default "base
#:                    patched"; "base prior patched" with RFC_PRIOR_KERNEL)
#: RFC_E2E_L2         e2e, e2e-soak: snapwork's mode, flat, paging or paging-pde (default flat; soak: paging with npt=0, flat with npt=1)
#: RFC_E2E_WRITE      e2e, e2e-soak: 1 runs snapwork in its write mode (e2e/snapwork.c: writes part of every 2 MiB each pass, leaves a quarter of memory untouched but for a page per pass) (default 0; soak: 1)
#: RFC_E2E_KHUGEPAGED_MS e2e, e2e-soak: khugepaged's scan and alloc sleep in ms for the thp backing (default: the kernel's; soak: 100, so that it collapses while the snapshot runs)
#: RFC_E2E_DIR        e2e, e2e-soak: work directory (default build/e2e); two soaks in parallel need two

. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file python3 gcc ld ldd

mode=${1:-e2e}
soak=0
case $mode in
e2e | patterns)
	MEM_MB=${RFC_E2E_MEM_MB:-128}
	if [ "$mode" = patterns ]; then
		BACKINGS=${RFC_E2E_BACKINGS:-anon-4k+read64 anon-4k+write64 anon-4k+rand-set}
		NPTS=${RFC_E2E_NPT:-1}
	else
		BACKINGS=${RFC_E2E_BACKINGS:-anon-4k thp hugetlb memfd anon-4k+write thp+write hugetlb+write memfd+write}
	fi
	L2=${RFC_E2E_L2:-flat}
	WRITE=${RFC_E2E_WRITE:-0}
	KHUGEPAGED=${RFC_E2E_KHUGEPAGED_MS:-}
	VERIFY=1
	TRACE=1 ;;
soak | boot-soak)
	soak=1
	MEM_MB=${RFC_E2E_MEM_MB:-384}
	BACKINGS=${RFC_E2E_BACKINGS:-thp}
	WRITE=${RFC_E2E_WRITE:-1}
	KHUGEPAGED=${RFC_E2E_KHUGEPAGED_MS:-100}
	# The paging guest is for the shadow MMU (npt=0).  With npt=1 its
	# page table churn fails on both kernels under TCG's nested NPT
	# (results/e2e-soak.md), so npt=1 runs the flat guest.
	L2=${RFC_E2E_L2:-paging}
	L2_NPT1=${RFC_E2E_L2:-flat}
	TRACE=0
	VERIFY=0
	ROUNDS=${RFC_SOAK_ROUNDS:-10}
	SOAK_NPTS=${RFC_SOAK_NPT:-0 1}
	BOOTS=
	if [ "$mode" = boot-soak ]; then
		ROUNDS=${RFC_SOAK_ROUNDS:-3}
		SOAK_NPTS=${RFC_SOAK_NPT:-1}
		BOOTS=${RFC_BOOT_SOAK_BOOTS:-100}
		case $BOOTS in '' | *[!0-9]* | 0) die "RFC_BOOT_SOAK_BOOTS must be a positive number" ;; esac
	fi
	# An outer boot's limit (run-guest.sh): a boot takes 2-4 s, one that
	# fails about 100 s (the minute without a pass, then its state).
	TIMEOUT=${RFC_TIMEOUT:-$((900 + ${BOOTS:-0} * 15))}
	SOAK_TCG=${RFC_SOAK_TCG:-single}
	case $ROUNDS in '' | *[!0-9]* | 0) die "RFC_SOAK_ROUNDS must be a positive number" ;; esac
	for n in $SOAK_NPTS; do
		case $n in 0 | 1) ;; *) die "RFC_SOAK_NPT: '$n' is not 0 or 1" ;; esac
	done
	for t in $SOAK_TCG; do
		case $t in single | multi) ;; *) die "RFC_SOAK_TCG: '$t' is not single or multi" ;; esac
	done ;;
*) die "usage: e2e.sh [patterns|soak|boot-soak]" ;;
esac
PASSES=${RFC_E2E_PASSES:-2}
NPTS=${NPTS:-${RFC_E2E_NPT:-1 0}}
if [ "$soak" = 1 ]; then
	[ -z "${RFC_PRIOR_KERNEL:-}" ] ||
		info "RFC_PRIOR_KERNEL is not used by the soak (it boots the soak kernels)"
	prior=
else
	prior_kernel
fi
KERNELS=${RFC_E2E_KERNELS:-base ${prior:+prior }patched}
RESULTS=${RFC_RESULTS:-$TOP/results}
case $MEM_MB in '' | *[!0-9]*) die "RFC_E2E_MEM_MB must be a number of MiB" ;; esac
[ "$MEM_MB" -ge 64 ] && [ "$MEM_MB" -le 1024 ] && [ $((MEM_MB % 2)) -eq 0 ] ||
	die "RFC_E2E_MEM_MB must be even and 64..1024 (2 MiB pages, and room in the 4 GiB outer guest)"
# The snapshot check holds the reference and the snapshot, then the
# reference, a second QEMU's memory and its copy, in the outer guest's
# RAM besides the nested guest: up to 512 MiB in a 4 GiB outer guest, a
# 7 GiB one above that.
[ "$VERIFY" = 0 ] || [ "$MEM_MB" -le 512 ] || export RFC_GUEST_MEM=7
case $PASSES in '' | *[!0-9]* | 0) die "RFC_E2E_PASSES must be a positive number" ;; esac
case $WRITE in 0 | 1) ;; *) die "RFC_E2E_WRITE: '$WRITE' is not 0 or 1" ;; esac
case $KHUGEPAGED in *[!0-9]*) die "RFC_E2E_KHUGEPAGED_MS: '$KHUGEPAGED' is not a number of milliseconds" ;; esac
for k in $KERNELS; do
	case $k in
	base | patched) ;;
	prior) [ -n "$prior" ] || die "RFC_E2E_KERNELS: prior needs RFC_PRIOR_KERNEL (a bzImage)" ;;
	*) die "RFC_E2E_KERNELS: unknown kernel '$k' (base, prior, patched)" ;;
	esac
done
case $L2 in flat | paging | paging-pde) ;; *) die "RFC_E2E_L2: '$L2' is not flat, paging or paging-pde" ;; esac
L2_NPT1=${L2_NPT1:-$L2}
for b in $BACKINGS; do
	case $b in
	hugetlb1g | hugetlb1g+*)
		[ "$MEM_MB" = 1024 ] ||
			die "RFC_E2E_BACKINGS: $b needs RFC_E2E_MEM_MB=1024 (one 1 GiB page), not $MEM_MB" ;;
	esac
	case $b in
	anon-4k | thp | hugetlb | hugetlb1g | memfd) ;;
	anon-4k+* | thp+* | hugetlb+* | hugetlb1g+* | memfd+*)
		case ${b#*+} in
		write) ;;
		read64 | write64 | rand-set)
			[ "$WRITE" = 0 ] || die "RFC_E2E_BACKINGS: $b is a guest pattern, which RFC_E2E_WRITE=1 does not go with" ;;
		*) die "RFC_E2E_BACKINGS: unknown backing '$b' (its pattern: +write, +read64, +write64 or +rand-set)" ;;
		esac ;;
	*) die "RFC_E2E_BACKINGS: unknown backing '$b' (anon-4k, thp, hugetlb, hugetlb1g, memfd, each alone or with +write, +read64, +write64 or +rand-set)" ;;
	esac
done
B=${RFC_E2E_DIR:-$BUILD/e2e}
[ "$mode" != patterns ] || B=${RFC_E2E_DIR:-$BUILD/e2e-patterns}
mkdir -p "$B" "$RESULTS"
start=$(date +%s)

if [ "$soak" = 1 ]; then
	guest_kernels -soak
else
	guest_kernels "" "$KERNELS"
fi

# The nested guest: a 32-bit multiboot image, freestanding.
S=$B/suite
rm -rf "$S"
mkdir -p "$S/qemu/lib" "$S/qemu/share"
gcc -m32 -march=i686 -O2 -ffreestanding -fno-pic -fno-stack-protector \
	-fno-asynchronous-unwind-tables -nostdlib -Wall -Wextra -Werror \
	-c "$TOP/e2e/snapwork.c" -o "$B/snapwork.o"
ld -m elf_i386 --no-warn-rwx-segments -T "$TOP/e2e/snapwork.ld" -nostdlib \
	"$B/snapwork.o" -o "$S/snapwork.elf"
cp "$TOP/e2e/run" "$S/run"

# The nested QEMU: the host's binary, run through its dynamic loader with
# the libraries ldd finds, and the firmware of a pc machine (SeaBIOS, the
# multiboot option ROM, the KVM vapic ROM).
q=$(command -v qemu-system-x86_64)
cp "$q" "$S/qemu/"
ldd "$q" | awk '/=> \// { print $3 }' | while read -r lib; do
	cp -L "$lib" "$S/qemu/lib/"
done
cp -L "$(ldd "$q" | awk '/ld-linux/ { print $1 }')" "$S/qemu/ld.so"
for f in bios-256k.bin multiboot_dma.bin linuxboot_dma.bin kvmvapic.bin; do
	for d in /usr/share/qemu /usr/share/seabios; do
		[ -f "$d/$f" ] && { cp -L "$d/$f" "$S/qemu/share/"; break; }
	done
	[ -f "$S/qemu/share/$f" ] || die "no $f in /usr/share/qemu or /usr/share/seabios"
done
# shellcheck disable=SC2086 # one word per backing
# e2e/run's options after l2= (one word each, no spaces).
opts="trace=$TRACE write=$WRITE verify=$VERIFY${KHUGEPAGED:+ khugepaged=$KHUGEPAGED}"
[ "$mode" != boot-soak ] || opts="$opts boots=$BOOTS"
# A nested boot that hangs before snapwork is started again (e2e/run's
# boot_snapwork); the soaks count it.
[ "$soak" = 1 ] || opts="$opts boot_retries=2"
# shellcheck disable=SC2086 # one word per option
"$TOP/scripts/mkinitramfs.sh" "$B/initramfs.cpio.gz" "$S" \
	"$MEM_MB" "$PASSES" "l2=$L2" $opts $BACKINGS >&2
# shellcheck disable=SC2086 # one word per backing
[ "$L2_NPT1" = "$L2" ] || "$TOP/scripts/mkinitramfs.sh" "$B/initramfs-npt1.cpio.gz" "$S" \
	"$MEM_MB" "$PASSES" "l2=$L2_NPT1" $opts $BACKINGS >&2
# initramfs NPT: the one for a guest with kvm_amd.npt=NPT.
initramfs() {
	if [ "$1" = 1 ] && [ "$L2_NPT1" != "$L2" ]; then
		echo "$B/initramfs-npt1.cpio.gz"
	else
		echo "$B/initramfs.cpio.gz"
	fi
}

l2args="l2=$L2"
[ "$L2_NPT1" = "$L2" ] || l2args="l2=$L2 (npt=1: $L2_NPT1)"
report_header "$B/header.txt" "args=mem_mb=$MEM_MB passes=$PASSES $l2args trace=$TRACE write=$WRITE khugepaged_ms=${KHUGEPAGED:-default}${BOOTS:+ boots=$BOOTS} backings=$BACKINGS" \
	${prior:+"prior_kernel=$prior"}

if [ "$soak" = 1 ]; then
	L=$B/$mode
	mkdir -p "$L"
	rm -f "$L/"*.log "$L/"*.verdict
	logs=
	pass=0
	fail=0
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for npt in $SOAK_NPTS; do
			for t in $SOAK_TCG; do
				for k in base patched; do
					log=$L/r$r-$k-npt$npt-$t.log
					case $k in patched) kernel=$patched ;; base) kernel=$base ;; esac
					t0=$(date +%s)
					RFC_GUEST_SILENCE=${RFC_GUEST_SILENCE:-300} RFC_TIMEOUT=$TIMEOUT \
						RFC_GUEST_TCG_THREAD=$t RFC_GUEST_APPEND="nokaslr ${RFC_GUEST_APPEND:-}" \
						"$TOP/scripts/run-guest.sh" "$kernel" "$(initramfs "$npt")" "$npt" \
						"$log" 2>"$log.verdict" || :
					clean=0
					grep -aq '^E2E-DONE' "$log" && ! grep -aq '^GUEST-WATCHDOG' "$log" &&
						! grep -q 'SPLAT' "$log.verdict" && clean=1
					if [ "$mode" = boot-soak ]; then
						# One per nested boot, and one more for an outer
						# run that did not end cleanly (a failed nested
						# boot fails e2e/run, and so the guest's result:
						# it is counted once, as a boot).
						nok=$(grep -ac '^E2E-BOOT .* ok=1 ' "$log") || :
						nbad=$(grep -ac '^E2E-BOOT .* ok=0 ' "$log") || :
						[ "$clean" = 1 ] && [ "$((nok + nbad))" = "$BOOTS" ] || nbad=$((nbad + 1))
						pass=$((pass + nok))
						fail=$((fail + nbad))
						v="$nok nested boots ok, $nbad failed"
						[ "$clean" = 1 ] || v="$v; the outer run did not end cleanly (see $log)"
					elif [ "$clean" = 1 ] && grep -aq 'GUEST-RESULT: PASS' "$log" &&
						! grep -aq '^E2E-ERROR' "$log"; then
						pass=$((pass + 1))
						v=ok
					else
						fail=$((fail + 1))
						v="NOT OK (see $log)"
					fi
					info "round $r, $k, npt=$npt, tcg $t: $v in $(($(date +%s) - t0))s"
					logs="$logs $k:r$r-npt$npt-$t=$log"
				done
			done
		done
		r=$((r + 1))
	done
	# shellcheck disable=SC2086 # one word per log
	rfctool "e2e-$mode" "$B/header.txt" "$RESULTS/e2e-$mode.md" $logs || fail=$((fail + 1))
	info "wrote $RESULTS/e2e-$mode.md in $(($(date +%s) - start))s"
	report "e2e-$mode" "$pass" "$fail"
	[ "$fail" -eq 0 ]
	exit
fi

logs=
pass=0
fail=0
for npt in $NPTS; do
	for k in $KERNELS; do
		log=$B/$k-npt$npt.log
		case $k in patched) kernel=$patched ;; prior) kernel=$prior ;; base) kernel=$base ;; esac
		t0=$(date +%s)
		rc=0
		# 2-4 min a backing of 128 MiB under TCG, a snapshot check
		# included; 5 min for every 256 MiB more (saving and comparing
		# the copies); 7 min more for two nested boots started again.
		RFC_TIMEOUT=${RFC_TIMEOUT:-$((600 + (420 + 300 * (1 + MEM_MB / 256)) * $(echo "$BACKINGS" | wc -w)))} \
			"$TOP/scripts/run-guest.sh" "$kernel" "$B/initramfs.cpio.gz" "$npt" \
			"$log" 2>"$log.verdict" || rc=$?
		if [ "$rc" -ne 0 ] || ! grep -aq '^E2E-DONE' "$log" || grep -aq '^E2E-ERROR' "$log"; then
			info "$k kernel, npt=$npt: the end-to-end run did not finish cleanly (see $log)"
			grep -a '^E2E-ERROR' "$log" | sed 's/^/    /' >&2
			sed 's/^/    /' "$log.verdict" >&2
			fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
		info "$k kernel, npt=$npt: $(grep -ac '^E2E-END .*ok=1' "$log") backings done in $(($(date +%s) - t0))s"
		logs="$logs $k:$npt=$log"
	done
done

if [ "$mode" = patterns ]; then
	# shellcheck disable=SC2086 # one word per log
	rfctool e2e-patterns "$B/header.txt" "$RESULTS/e2e-patterns.md" $logs || fail=$((fail + 1))
	info "wrote $RESULTS/e2e-patterns.md in $(($(date +%s) - start))s"
	report e2e-patterns "$pass" "$fail"
	[ "$fail" -eq 0 ]
	exit
fi
py=$(plot_python)
# shellcheck disable=SC2086 # one word per log
"$py" "$RFCTOOL" e2e "$B/header.txt" "$RESULTS" $logs || fail=$((fail + 1))
info "wrote $RESULTS/e2e.md, e2e.csv, e2e.png in $(($(date +%s) - start))s"
report e2e "$pass" "$fail"
[ "$fail" -eq 0 ]
