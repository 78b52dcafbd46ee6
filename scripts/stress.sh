#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh [COUNTS_FILE]
# Run the series' randomised KVM stress test (x86/perm_upgrade_stress_test)
# on the patched kernel with nested paging (kvm_amd.npt=1) and shadow paging
# (npt=0), in QEMU guests as kvm-selftest.sh does.  Both runs use the same
# seed: SEED (default: random, printed; rerun a failure with SEED=N) and OPS
# operations, host operations plus guest accesses (default 50000; under TCG
# about 3000 per second, so each run takes well under a minute).  KERNEL
# overrides the guest kernel (a bzImage; default: build/guest-patched).  A
# run counts as passed when the test reports no violation.  Logs:
# build/stress/npt{0,1}.log.

. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file od

SEED=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
OPS=${OPS:-50000}
case $SEED in '' | *[!0-9]*) die "SEED must be a decimal number, not '$SEED'" ;; esac
case $OPS in '' | *[!0-9]*) die "OPS must be a decimal number, not '$OPS'" ;; esac
# Generous: ten times the time the runs take under TCG, plus the boot.
TIMEOUT=${TIMEOUT:-$((300 + OPS / 300))}
export TIMEOUT
echo "stress: seed $SEED, $OPS ops per run (rerun with SEED=$SEED OPS=$OPS)"

B=$BUILD/stress
mkdir -p "$B"
kernel=${KERNEL:-$("$TOP/scripts/guest-kernel.sh" patched)}
[ -f "$kernel" ] || die "no guest kernel at $kernel"

# A static test binary, built against the patched uapi.
kvm_selftests "$BUILD/guest-patched" "$B/selftests" x86/perm_upgrade_stress_test
"$TOP/scripts/mkinitramfs.sh" "$B/initramfs.cpio.gz" \
	"$B/selftests/x86/perm_upgrade_stress_test" -s "$SEED" -n "$OPS" >&2

pass=0
fail=0
for npt in 1 0; do
	log=$B/npt$npt.log
	for try in 1 2; do
		rc=0
		"$TOP/scripts/run-guest.sh" "$kernel" "$B/initramfs.cpio.gz" "$npt" \
			"$log" >/dev/null || rc=$?
		# On a loaded host, TCG sometimes fails the guest's IO-APIC timer
		# check and the guest panics at boot: boot once more.
		if [ "$rc" != 2 ] || grep -aq '^TAP version' "$log" || [ "$try" = 2 ]; then
			break
		fi
		echo "    (npt=$npt: the guest did not start the test, booting again)"
	done
	grep -aE '^GUEST|^# |^ok |^not ok ' "$log" | sed 's/^/    /'
	case $rc in
	0) r=ok; g=PASS; pass=$((pass + 1)) ;;
	1) r=FAILED; g=FAIL; fail=$((fail + 1)) ;;
	*) r=FAILED; g="NO RESULT"; fail=$((fail + 1)) ;;
	esac
	echo "$r       npt=$npt, seed $SEED, $OPS ops: $g"
done
echo "stress: $pass passed, $fail failed"
[ -z "${1:-}" ] || echo "$pass $fail" >"$1"
[ "$fail" -eq 0 ]
