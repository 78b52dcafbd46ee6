#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# regress.sh
# Upstream selftests that exercise what the series touches, on the base and
# on the patched kernel, in QEMU guests set up like kvm-selftest's
# (run-guest.sh: TCG thread=single, EPYC with SVM and NPT, 4G, 2 CPUs,
# KVM nested): mm selftests of change_protection() and userfaultfd
# write-protect, pkey tests, and KVM selftests of the MMU notifier users
# (scripts/regress-run.sh has the list, sizes and time limits).  One boot
# per kernel runs everything (kvm_amd.npt=1); a second boot per kernel runs
# the KVM tests with shadow paging (npt=0).  All binaries are static, built
# against the patched uapi headers, the same for both kernels.
#
# Writes results/regress.md (pass/fail/skip per test per kernel) and ends
# with "regress: N passed, N failed", where a test passes when its result
# on the patched kernel is not worse than on the base kernel; exits non-zero
# if any is worse.  Logs: build/regress/{base,patched}-*.log.
#
# Each boot's console log also counts as a test, "kernel-log", that fails
# on any kernel splat (run-guest.sh never boots quiet; rfc_splat's patterns).
#: RFC_REGRESS_CPU    regress: QEMU -cpu (default EPYC,+svm,+npt,+pku: TCG
#:                    emulates PKU, so the pkey tests run instead of skipping)
#: RFC_REGRESS_RUNS   regress: boots per kernel as NPT:GROUPS
#:                    (default "1:mm,kvm,pkey 0:kvm")
#: RFC_REGRESS_TIMEOUT  regress: limit of one boot in seconds (default 5400)

. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file python3 make gcc

CPU=${RFC_REGRESS_CPU:-EPYC,+svm,+npt,+pku}
RUNS=${RFC_REGRESS_RUNS:-1:mm,kvm,pkey 0:kvm}
RESULTS=${RFC_RESULTS:-$TOP/results}
R=$BUILD/regress
mkdir -p "$R" "$RESULTS"
start=$(date +%s)

guest_kernels

# KVM selftests, through their Makefile (lib.sh).
KVM_TESTS="mmu_stress_test dirty_log_test demand_paging_test x86/perm_upgrade_test
set_memory_region_test memslot_modification_stress_test guest_memfd_test"
# shellcheck disable=SC2086 # one word per test
kvm_selftests "$BUILD/guest-patched" "$R/kvm" $KVM_TESTS

# mm selftests (lib.sh).  hmm-tests exercises lib/test_hmm.c, the dmirror
# device, which the series makes a consumer of the range marks.
MM_TESTS="uffd-unit-tests uffd-wp-mremap uffd-stress mkdirty cow pagemap_ioctl
soft-dirty mdwe_test mseal_test merge guard-regions hmm-tests"
PKEY_TESTS="protection_keys pkey_sighandler_tests"
# shellcheck disable=SC2086 # one word per test
mm_selftests "$BUILD/guest-patched" "$R/mm" $MM_TESTS $PKEY_TESTS

# The suite directory: every binary flat next to the runner.
rm -rf "$R/suite"
mkdir -p "$R/suite"
for t in $KVM_TESTS; do cp "$R/kvm/$t" "$R/suite/"; done
for t in $MM_TESTS; do cp "$R/mm/$t" "$R/suite/"; done
for t in $PKEY_TESTS; do cp "$R/mm/${t}_64" "$R/suite/"; done
cp "$TOP/scripts/regress-run.sh" "$R/suite/run"
chmod +x "$R/suite/run"
"$TOP/scripts/mkinitramfs.sh" "$R/initramfs.cpio.gz" "$R/suite" >&2

# run-guest.sh with the CPU model and extra kernel arguments given; the
# guest's result is read from the REGRESS frames in the log, not from the
# runner's exit status.  proc_mem.force_override=always: mkdirty writes to a read-only mapping
# through /proc/self/mem, which the defconfig's PROC_MEM_FORCE_PTRACE only
# allows a ptracer.
boot() {
	kernel=$1 npt=$2 groups=$3 log=$4
	RFC_GUEST_CPU=$CPU RFC_TIMEOUT=${RFC_REGRESS_TIMEOUT:-5400} \
	RFC_GUEST_APPEND="regress=$groups proc_mem.force_override=always" \
		"$TOP/scripts/run-guest.sh" "$kernel" "$R/initramfs.cpio.gz" \
		"$npt" "$log" 2>"$log.verdict" || true
}

report_header "$R/header.txt"

logs=
for run in $RUNS; do
	npt=${run%%:*} groups=${run#*:}
	for k in base patched; do
		case $k in patched) kernel=$patched ;; base) kernel=$base ;; esac
		log=$R/$k-npt$npt.log
		t0=$(date +%s)
		boot "$kernel" "$npt" "$groups" "$log"
		info "$k kernel, npt=$npt ($groups): $(grep -ac '^REGRESS-END ' "$log") tests in $(($(date +%s) - t0))s"
		logs="$logs $k:npt$npt=$log"
	done
done

rc=0
# shellcheck disable=SC2086 # one word per log
rfctool regress "$R/header.txt" "$RESULTS/regress.md" $logs || rc=$?
info "wrote $RESULTS/regress.md in $(($(date +%s) - start))s"
exit "$rc"
