#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh
# The series under the kernel's debug checkers: build the debug guest
# kernel (guest-kernel.sh debug: KASAN, PROVE_LOCKING, DEBUG_VM,
# DEBUG_ATOMIC_SLEEP, KVM_PROVE_MMU, the series' KUnit suites built in) and
# boot it under QEMU twice, with nested paging (kvm_amd.npt=1) and shadow
# paging (npt=0).  At each boot the KUnit suites run (read back with
# kunit.py parse, first boot only: they do not depend on npt), then the
# series' KVM selftests (those of kvm-selftest.sh) and a short stress run
# (RFC_SEED, default random and printed; RFC_OPS, default 5000).
# Any splat in the console log (run-guest.sh, rfc_splat: KASAN or UBSAN
# report, lockdep, WARN, BUG, Oops, panic, RCU stall, hung task, taint) is
# a failure.  Logs: build/check-debug/.

. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file od python3

SEED=${RFC_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
OPS=${RFC_OPS:-5000}
case $SEED$OPS in *[!0-9]*) die "RFC_SEED and RFC_OPS must be decimal numbers" ;; esac
export RFC_TIMEOUT="${RFC_TIMEOUT:-1800}"
RACE_ARGS="-r -t 5"

B=$BUILD/check-debug
rm -rf "$B/suite"
mkdir -p "$B/suite"
kernel=$("$TOP/scripts/guest-kernel.sh" debug)

TESTS="x86/perm_upgrade_test x86/perm_upgrade_pfncache_test
       perm_upgrade_stress_test mmu_stress_test x86/nested_host_wrprotect_test
       x86/host_wrprotect_resync_test x86/thp_invalidate_race_test"
# shellcheck disable=SC2086 # TESTS is a list
kvm_selftests "$BUILD/guest-debug" "$B/selftests" $TESTS
for t in $TESTS; do cp "$B/selftests/$t" "$B/suite/"; done
cat >"$B/suite/run" <<EOS
#!/bin/sh
rc=0
./perm_upgrade_test || rc=1
./perm_upgrade_pfncache_test || rc=1
./perm_upgrade_stress_test -s $SEED -n $OPS || rc=1
./mmu_stress_test $RACE_ARGS || rc=1
./nested_host_wrprotect_test || rc=1
./host_wrprotect_resync_test || rc=1
./thp_invalidate_race_test -t 20 || rc=1
exit \$rc
EOS
chmod +x "$B/suite/run"
"$TOP/scripts/mkinitramfs.sh" "$B/initramfs.cpio.gz" "$B/suite" >&2
echo "check-debug: stress seed $SEED, $OPS ops (rerun with RFC_SEED=$SEED RFC_OPS=$OPS)"

pass=0
fail=0

for npt in 1 0; do
	log=$B/npt$npt.log
	append="loglevel=7 hugepages=8"
	[ "$npt" = 1 ] || append="$append kunit.enable=0"
	RFC_GUEST_APPEND=$append guest_run "$kernel" "$B/initramfs.cpio.gz" "$npt" "$log"
	if [ "$npt" = 1 ]; then
		python3 "$TREE/tools/testing/kunit/kunit.py" parse \
			--json="$B/kunit.json" "$log" >"$B/kunit.txt" 2>&1 || true
		tail -n 1 "$B/kunit.txt"
		if [ -s "$B/kunit.json" ]; then
			read -r p f <<EOC
$(rfctool kunit kunit "$B/kunit.json" | sed 's/^kunit: \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/')
EOC
			pass=$((pass + p))
			fail=$((fail + f))
			[ "$p" -gt 0 ] || count no "KUnit: no test ran"
			echo "         KUnit under the debug kernel: $p passed, $f failed"
		else
			count no "KUnit: no results in $log"
		fi
	fi
	# The test's own result, then run-guest.sh's splat verdict.
	grep -aq '^GUEST-RESULT: PASS' "$log" && r=ok || r=no
	count "$r" "npt=$npt: perm_upgrade_test, perm_upgrade_pfncache_test, stress, mmu_stress_test $RACE_ARGS, nested_host_wrprotect_test, host_wrprotect_resync_test, thp_invalidate_race_test"
	[ "$guest_rc" != 3 ] && r=ok || r=no
	count "$r" "npt=$npt: no splat in the console log ($guest_result)"
done
report check-debug "$pass" "$fail"
[ "$fail" -eq 0 ]
