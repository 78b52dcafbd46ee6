#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh [arm64]
# Run the series' randomised KVM stress test (perm_upgrade_stress_test) on
# the patched kernel with nested paging (kvm_amd.npt=1) and shadow paging
# (npt=0), in QEMU guests as kvm-selftest.sh does; with "arm64", on the
# patched arm64 kernel in each mode of RFC_ARM64_MODES (run-guest.sh;
# default "vhe nvhe").  All runs use the same seed and number of
# operations.  A run counts as passed when the test reports no violation
# and the console log has no kernel splat (run-guest.sh, which also boots
# again a guest that died before the test started).  Logs:
# build/stress/npt{0,1}.log, build/stress-arm64/MODE.log.
#: RFC_SEED           stress, check-debug: the seed (default random, printed)
#: RFC_OPS            stress: operations per run (default 50000; TCG does about
#:                    3000 a second); check-debug: default 5000
#: RFC_KERNEL         stress: the guest kernel (default build/guest-patched, or
#:                    build/guest-arm64-patched)

. "$(dirname "$0")/lib.sh"
need cpio gzip file od
arch=${1:-x86_64}
case $arch in
x86_64) need qemu-system-x86_64 busybox; modes="1 0" ;;
arm64) need qemu-system-aarch64; modes=${RFC_ARM64_MODES:-vhe nvhe} ;;
*) die "usage: stress.sh [arm64]" ;;
esac

SEED=${RFC_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
OPS=${RFC_OPS:-50000}
case $SEED in '' | *[!0-9]*) die "RFC_SEED must be a decimal number, not '$SEED'" ;; esac
case $OPS in '' | *[!0-9]*) die "RFC_OPS must be a decimal number, not '$OPS'" ;; esac
# Generous: ten times the time the runs take under TCG, plus the boot.
RFC_TIMEOUT=${RFC_TIMEOUT:-$((300 + OPS / 300))}
export RFC_TIMEOUT
echo "stress: seed $SEED, $OPS ops per run (rerun with RFC_SEED=$SEED RFC_OPS=$OPS)"

case $arch in
x86_64) B=$BUILD/stress kind=patched bb='' ;;
arm64) B=$BUILD/stress-arm64 kind=arm64-patched bb="--busybox $(arm64_busybox)" ;;
esac
mkdir -p "$B"
kernel=${RFC_KERNEL:-$("$TOP/scripts/guest-kernel.sh" "$kind")}
[ -f "$kernel" ] || die "no guest kernel at $kernel"

# A static test binary, built against the patched uapi.
kvm_selftests "$BUILD/guest-$kind" "$B/selftests" perm_upgrade_stress_test
# shellcheck disable=SC2086 # $bb is an option and its argument, or nothing
"$TOP/scripts/mkinitramfs.sh" $bb "$B/initramfs.cpio.gz" \
	"$B/selftests/perm_upgrade_stress_test" -s "$SEED" -n "$OPS" >&2

pass=0
fail=0
for m in $modes; do
	case $arch in x86_64) log=$B/npt$m.log what=npt=$m ;; arm64) log=$B/$m.log what=$m ;; esac
	guest_run "$kernel" "$B/initramfs.cpio.gz" "$m" "$log"
	if [ "$guest_rc" -eq 0 ]; then
		r=ok
		pass=$((pass + 1))
	else
		r=FAILED
		fail=$((fail + 1))
	fi
	echo "$r       $what, seed $SEED, $OPS ops: $guest_result"
done
report stress "$pass" "$fail"
[ "$fail" -eq 0 ]
