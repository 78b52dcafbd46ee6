#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh [COUNTS_FILE]
# The series under the kernel's debug checkers: build the debug guest
# kernel (guest-kernel.sh debug: KASAN, PROVE_LOCKING, DEBUG_VM,
# DEBUG_ATOMIC_SLEEP, the series' KUnit suites built in) and boot it under
# QEMU twice, with nested paging (kvm_amd.npt=1) and shadow paging (npt=0).
# At each boot the KUnit suites run (read back with kunit.py parse, first
# boot only: they do not depend on npt), then the KVM selftest and a short
# stress run (SEED, default random and printed; OPS, default 5000).  Any
# splat in the console log (KASAN or UBSAN report, lockdep, WARN, BUG,
# Oops, panic, RCU stall) is a failure.  Logs: build/check-debug/.

. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file od python3

SEED=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
OPS=${OPS:-5000}
case $SEED$OPS in *[!0-9]*) die "SEED and OPS must be decimal numbers" ;; esac
export TIMEOUT=${TIMEOUT:-1800}

B=$BUILD/check-debug
rm -rf "$B/suite"
mkdir -p "$B/suite"
kernel=$("$TOP/scripts/guest-kernel.sh" debug)

kvm_selftests "$BUILD/guest-debug" "$B/selftests" x86/perm_upgrade_test \
	x86/perm_upgrade_stress_test
cp "$B/selftests/x86/perm_upgrade_test" "$B/selftests/x86/perm_upgrade_stress_test" \
	"$B/suite/"
cat >"$B/suite/run" <<EOS
#!/bin/sh
rc=0
./perm_upgrade_test || rc=1
./perm_upgrade_stress_test -s $SEED -n $OPS || rc=1
exit \$rc
EOS
chmod +x "$B/suite/run"
"$TOP/scripts/mkinitramfs.sh" "$B/initramfs.cpio.gz" "$B/suite" >&2
echo "check-debug: stress seed $SEED, $OPS ops (rerun with SEED=$SEED OPS=$OPS)"

pass=0
fail=0
count() { # OK? WHAT
	if [ "$1" = ok ]; then
		pass=$((pass + 1))
		echo "ok       $2"
	else
		fail=$((fail + 1))
		echo "FAILED   $2"
	fi
}

for npt in 1 0; do
	log=$B/npt$npt.log
	append="loglevel=7 hugepages=8"
	[ "$npt" = 1 ] || append="$append kunit.enable=0"
	rc=0
	GUEST_APPEND=$append "$TOP/scripts/run-guest.sh" "$kernel" \
		"$B/initramfs.cpio.gz" "$npt" "$log" >/dev/null || rc=$?
	if [ "$npt" = 1 ]; then
		python3 "$TREE/tools/testing/kunit/kunit.py" parse \
			--json="$B/kunit.json" "$log" >"$B/kunit.txt" 2>&1 || true
		tail -n 1 "$B/kunit.txt"
		if [ -s "$B/kunit.json" ]; then
			read -r p f <<EOC
$("$TOP/scripts/kunit_counts.py" "$B/kunit.json")
EOC
			pass=$((pass + p))
			fail=$((fail + f))
			[ "$p" -gt 0 ] || count no "KUnit: no test ran"
			echo "         KUnit under the debug kernel: $p passed, $f failed"
		else
			count no "KUnit: no results in $log"
		fi
	fi
	grep -aE '^GUEST|^# |^ok |^not ok ' "$log" | sed 's/^/    /'
	[ "$rc" = 0 ] && r=ok || r=no
	count "$r" "npt=$npt: perm_upgrade_test and stress ($(case $rc in 0) echo PASS ;; 1) echo FAIL ;; *) echo NO RESULT ;; esac))"
	n=$(grep -acE "$SPLAT_RE" "$log" || true)
	if [ "$n" -eq 0 ]; then
		count ok "npt=$npt: no splat in the console log"
	else
		grep -aE "$SPLAT_RE" "$log" | head -n 20 | sed 's/^/    /'
		count no "npt=$npt: $n splat line(s) in $log"
	fi
done
echo "check-debug: $pass passed, $fail failed"
[ -z "${1:-}" ] || echo "$pass $fail" >"$1"
[ "$fail" -eq 0 ]
