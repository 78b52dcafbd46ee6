#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kvm-selftest.sh
# Run the series' KVM selftests on the patched and the base kernel, each
# with nested paging (kvm_amd.npt=1) and shadow paging (npt=0):
#   - x86/perm_upgrade_test: SPTEs kept across upgrades, kept
#     write-protected across changes that only take write away (writes
#     still refused), zapped across other downgrades.  Expected: passes on
#     the patched kernel; fails on the base kernel, reporting the
#     refaults.
#   - x86/perm_upgrade_pfncache_test: no kvmclock or steal-time write to
#     a write-protected page.  Expected to pass on both kernels.
#   - mmu_stress_test in its concurrent protection mode ($RACE_ARGS):
#     vCPUs run while other threads change protections.  Expected to pass
#     on both kernels.
#   - x86/nested_host_wrprotect_test: an L2 guest's writes refused after
#     mprotect(R) and uffd-wp, with and without nested TDP (the shadow
#     MMU's rmaps under the TDP MMU).  Expected to pass on both kernels.
#   - x86/host_wrprotect_resync_test: the guest rewrites its own PTE of a
#     page the host made read-only and INVLPGs it (with shadow paging, the
#     sync of an unsync shadow page); its write stays refused.  Expected to
#     pass on both kernels.
#   - x86/thp_invalidate_race_test $THP_RACE_ARGS: huge page recovery and
#     faults racing with MADV_DONTNEED and uffd-wp of part of each THP; no
#     stale mapping.  Expected to pass on both kernels.
#   - the series' cases of mm's hmm-tests ($HMM_CASES), on the dmirror
#     device of lib/test_hmm.c, the second consumer (npt=1 boots only: they
#     do not involve KVM).  prot_upgrade_*: the mirror kept across write
#     protections and upgrades; expected to pass on the patched kernel and
#     to fail on the base kernel.  prot_downgrade_*, prot_exclusive_* and
#     prot_race_*: device writes refused once write is taken away, also
#     while it races with the protection changes; expected to pass on both
#     kernels.  prot_migrate_* (device writes to the device's own device
#     private pages across write protections) and prot_upgrade_migrate_race
#     (device writes through a kept mirror while the CPU migrates each page
#     back: the CPU must see every write): patched kernel only, as the
#     base kernel WARNs in lib/test_hmm.c.  prot_upgrade_migrate_race runs
#     in a boot of its own under multi-threaded TCG: its two threads must
#     really run at once, and under thread=single a test_hmm.c that loses
#     the writes passes it.  hmm-tests create no KVM VM, which is what
#     thread=single avoids (run-guest.sh).  Each must run (a skip fails).
#     With both kernels, what each case printed (the base kernel's
#     refaults, the races' counts) goes to results/hmm-tests.md.
# The kernels boot under QEMU with TCG on an emulated AMD CPU with SVM, so
# KVM runs nested even where /dev/kvm cannot run guests.  Each test of
# each run counts as passed when it gives the expected result, and each
# run once more when its console log has no kernel splat (run-guest.sh).
#: RFC_KERNELS        kvm-selftest: which kernels (default "patched base";
#:                    make check's kvm-selftest-patched: "patched")
#: RFC_SELFTESTS      kvm-selftest: which of the tests above to build and run, by
#:                    name (default all; make postings: those the posting's tree has)

. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file

B=$BUILD/kvm-selftest
mkdir -p "$B"
# One static binary per test for both kernels, built against the patched
# uapi, and a run script that reports each test's exit status.
RACE_ARGS="-r -t 5"
THP_RACE_ARGS="-t 20"
ALL="x86/perm_upgrade_test x86/perm_upgrade_pfncache_test mmu_stress_test
x86/nested_host_wrprotect_test x86/host_wrprotect_resync_test
x86/thp_invalidate_race_test hmm-tests"
want=${RFC_SELFTESTS:-$ALL}
TESTS='' RUNS='' HMM=0
for w in $want; do
	t=$(for a in $ALL; do [ "${a##*/}" != "${w##*/}" ] || echo "$a"; done)
	[ -n "$t" ] || die "RFC_SELFTESTS: '$w' is none of: $(echo "$ALL" | tr '\n' ' ' | sed 's|[a-z0-9]*/||g')"
	case ${t##*/} in
	hmm-tests) HMM=1; continue ;;
	mmu_stress_test) RUNS="$RUNS 'mmu_stress_test $RACE_ARGS'" ;;
	thp_invalidate_race_test) RUNS="$RUNS 'thp_invalidate_race_test $THP_RACE_ARGS'" ;;
	*) RUNS="$RUNS ${t##*/}" ;;
	esac
	TESTS="$TESTS $t"
done
HMM_CASES="prot_upgrade_mprotect prot_upgrade_uffd_wp prot_upgrade_thp
prot_upgrade_uffd_wp_thp prot_upgrade_hugetlb prot_downgrade_mprotect
prot_downgrade_uffd_wp prot_downgrade_thp prot_downgrade_uffd_wp_thp
prot_downgrade_hugetlb prot_exclusive_mprotect prot_exclusive_uffd_wp
prot_race_mprotect prot_race_uffd_wp"
HMM_PATCHED_CASES="prot_migrate_mprotect prot_migrate_uffd_wp"
# Run in a boot of their own, with multi-threaded TCG (below).
HMM_RACE_CASES="prot_upgrade_migrate_race"
HMM_PREFIX=hmm.hmm_device_private.
KERNELS=${RFC_KERNELS:-patched base}
patched='' base=''
for k in $KERNELS; do
	case $k in
	patched) patched=$("$TOP/scripts/guest-kernel.sh" patched) ;;
	base) base=$("$TOP/scripts/guest-kernel.sh" base) ;;
	*) die "unknown kernel '$k' in RFC_KERNELS (patched, base)" ;;
	esac
done

# shellcheck disable=SC2086 # TESTS is a list
[ -z "$TESTS" ] || kvm_selftests "$BUILD/guest-patched" "$B/selftests" $TESTS
[ "$HMM" = 0 ] || mm_selftests "$BUILD/guest-patched" "$B/mm" hmm-tests
rm -rf "$B/suite"
mkdir -p "$B/suite"
for t in $TESTS; do cp "$B/selftests/$t" "$B/suite/"; done
[ "$HMM" = 0 ] || cp "$B/mm/hmm-tests" "$B/suite/"
hmm_args=
for c in $HMM_CASES; do hmm_args="$hmm_args -r $HMM_PREFIX$c"; done
hmm_patched_args=
for c in $HMM_PATCHED_CASES; do hmm_patched_args="$hmm_patched_args -r $HMM_PREFIX$c"; done
hmm_race_args=
for c in $HMM_RACE_CASES; do hmm_race_args="$hmm_race_args -r $HMM_PREFIX$c"; done
cat >"$B/suite/run" <<EOS
#!/bin/sh
case " \$(cat /proc/cmdline) " in
*" rfc_boot=hmm-race "*)
	./hmm-tests$hmm_race_args
	echo "GUEST-TEST: hmm-tests-race exit \$?"
	exit 0 ;;
esac
for t in $RUNS; do
	./\$t
	echo "GUEST-TEST: \${t%% *} exit \$?"
done
if [ $HMM = 1 ] && [ "\$(cat /sys/module/kvm_amd/parameters/npt)" = Y ]; then
	./hmm-tests$hmm_args
	echo "GUEST-TEST: hmm-tests exit \$?"
	# The series' kernel only (rfc_kernel= on the command line, from the
	# loop below): the base kernel WARNs on these.
	case " \$(cat /proc/cmdline) " in
	*" rfc_kernel=patched "*)
		./hmm-tests$hmm_patched_args
		echo "GUEST-TEST: hmm-tests-patched exit \$?" ;;
	esac
fi
EOS
chmod +x "$B/suite/run"
"$TOP/scripts/mkinitramfs.sh" "$B/initramfs.cpio.gz" "$B/suite" >&2

# count_hmm_case KERNEL CASE LOG: a case's TAP line, "ok N NAME", "not
# ok N NAME" or "ok N NAME # SKIP why", the last one in LOG, against what
# the kernel should give.
count_hmm_case() {
	want=ok
	case $1:$2 in base:prot_upgrade_*) want="not ok" ;; esac
	got=$(tr -d '\r' <"$3" | sed -n \
		"s/^\(ok\|not ok\) [0-9]* $HMM_PREFIX$2\( # SKIP.*\)\{0,1\}$/\1\2/p" |
		tail -n 1)
	[ "$got" = "$want" ] && r=ok || r=no
	count "$r" "$1 kernel: hmm-tests $2: ${got:-no result} (expected $want)"
}

pass=0
fail=0
for k in $KERNELS; do
	for npt in 1 0; do
		log=$B/$k-npt$npt.log
		case $k in patched) kernel=$patched ;; base) kernel=$base ;; esac
		RFC_GUEST_APPEND="${RFC_GUEST_APPEND:-} rfc_kernel=$k" \
			guest_run "$kernel" "$B/initramfs.cpio.gz" "$npt" "$log"
		for t in $TESTS; do
			t=${t##*/}
			count_exit "$k" "$k kernel, npt=$npt" "$log" "$t"
		done
		# The hmm cases run on npt=1 boots.
		cases=
		[ "$npt" != 1 ] || [ "$HMM" = 0 ] || cases=$HMM_CASES
		[ "$npt:$k:$HMM" != 1:patched:1 ] || cases="$cases $HMM_PATCHED_CASES"
		for c in $cases; do
			count_hmm_case "$k" "$c" "$log"
		done
		[ "$guest_rc" = 0 ] && r=ok || r=no
		count "$r" "$k kernel, npt=$npt: console log clean ($guest_result)"
	done
	[ "$k:$HMM" = patched:1 ] || continue
	log=$B/$k-hmm-race.log
	RFC_GUEST_TCG_THREAD=multi \
		RFC_GUEST_APPEND="${RFC_GUEST_APPEND:-} rfc_kernel=$k rfc_boot=hmm-race" \
		guest_run "$kernel" "$B/initramfs.cpio.gz" 1 "$log"
	for c in $HMM_RACE_CASES; do
		count_hmm_case "$k" "$c" "$log"
	done
	[ "$guest_rc" = 0 ] && r=ok || r=no
	count "$r" "$k kernel, hmm-tests race boot (thread=multi): console log clean ($guest_result)"
done
# With both kernels: what each hmm-tests case printed, base against
# patched, in results/hmm-tests.md (the counts above decide what passes).
if [ "$HMM" = 1 ] && [ -n "$base" ] && [ -n "$patched" ]; then
	mkdir -p "$TOP/results"
	report_header "$B/header"
	rfctool hmm-tests "$B/header" "$TOP/results/hmm-tests.md" \
		base="$B/base-npt1.log" patched="$B/patched-npt1.log" && r=ok || r=no
	count "$r" "hmm-tests report: results/hmm-tests.md"
fi
report kvm-selftest "$pass" "$fail"
[ "$fail" -eq 0 ]
