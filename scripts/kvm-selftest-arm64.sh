#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kvm-selftest-arm64.sh
# Run the series' KVM selftests on the patched and the base arm64 guest
# kernels (guest-kernel.sh arm64-patched, arm64-base), booted at EL2 by
# qemu-system-aarch64 -M virt,virtualization=on under TCG so that KVM runs
# nested, in each mode of $MODES (run-guest.sh: vhe, nvhe, protected =
# pKVM, a57 = nVHE on a CPU without FWB, mte):
#   - arm64/perm_upgrade_test: stage-2 entries kept across upgrades,
#     zapped across downgrades, which still refuse writes.  Expected:
#     passes on the patched kernel; fails on the base kernel, reporting the
#     refaults.
#   - perm_upgrade_stress_test -n $OPS: no violation.  Expected on both
#     kernels.
#   - arm64/pfnmap_block_test: a PFNMAP with a PFN per page (a vgem dumb
#     buffer; a udmabuf where KVM takes a cacheable PFNMAP, which QEMU's
#     CPUs, without DIC, do not get) as a 2MiB memslot: the guest reads and
#     writes each page's own contents.  Expected: passes on the patched
#     kernel; fails on the base kernel, where a block maps PFNs that are
#     not the buffer's.
# Each test of each boot counts as passed when it gives the expected
# result, and each boot once more when its console log has no kernel
# splat (run-guest.sh).
#: RFC_ARM64_MODES    kvm-selftest-arm64: the modes (default "vhe nvhe protected a57");
#:                    stress-arm64: (default "vhe nvhe")
#: RFC_ARM64_OPS      kvm-selftest-arm64: stress operations per boot (default 5000)

. "$(dirname "$0")/lib.sh"
need qemu-system-aarch64 cpio gzip file od

B=$BUILD/kvm-selftest-arm64
mkdir -p "$B"
KERNELS=${RFC_KERNELS:-patched base}
MODES=${RFC_ARM64_MODES:-vhe nvhe protected a57}
OPS=${RFC_ARM64_OPS:-5000}
case $OPS in '' | *[!0-9]*) die "RFC_ARM64_OPS must be a decimal number, not '$OPS'" ;; esac
for m in $MODES; do
	case $m in vhe | nvhe | protected | a57 | mte) ;;
	*) die "unknown mode '$m' in RFC_ARM64_MODES (vhe, nvhe, protected, a57, mte)" ;;
	esac
done
for k in $KERNELS; do
	case $k in
	patched) patched=$("$TOP/scripts/guest-kernel.sh" arm64-patched) ;;
	base) base=$("$TOP/scripts/guest-kernel.sh" arm64-base) ;;
	*) die "unknown kernel '$k' in RFC_KERNELS (patched, base)" ;;
	esac
done
SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')

# Static arm64 binaries for both kernels, against the patched uapi, and a
# run script that reports each test's exit status.
TESTS="arm64/perm_upgrade_test arm64/pfnmap_block_test perm_upgrade_stress_test"
# shellcheck disable=SC2086 # TESTS is a list
kvm_selftests "$BUILD/guest-arm64-patched" "$B/selftests" $TESTS
rm -rf "$B/suite"
mkdir -p "$B/suite"
for t in $TESTS; do cp "$B/selftests/$t" "$B/suite/"; done
cat >"$B/suite/run" <<EOS
#!/bin/sh
for t in perm_upgrade_test pfnmap_block_test "perm_upgrade_stress_test -s $SEED -n $OPS"; do
	./\$t
	echo "GUEST-TEST: \${t%% *} exit \$?"
done
EOS
chmod +x "$B/suite/run"
"$TOP/scripts/mkinitramfs.sh" --busybox "$(arm64_busybox)" "$B/initramfs.cpio.gz" \
	"$B/suite" >&2
echo "stress: seed $SEED, $OPS ops per boot"

pass=0
fail=0
for k in $KERNELS; do
	for m in $MODES; do
		log=$B/$k-$m.log
		case $k in patched) kernel=$patched ;; base) kernel=$base ;; esac
		guest_run "$kernel" "$B/initramfs.cpio.gz" "$m" "$log"
		for t in perm_upgrade_test pfnmap_block_test perm_upgrade_stress_test; do
			count_exit "$k" "$k kernel, $m" "$log" "$t"
		done
		[ "$guest_rc" = 0 ] && r=ok || r=no
		count "$r" "$k kernel, $m: console log clean ($guest_result)"
	done
done
report kvm-selftest-arm64 "$pass" "$fail"
[ "$fail" -eq 0 ]
