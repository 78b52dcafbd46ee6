#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [SUITE...]
# Run test suites (default: all), go on past failures, and end with one
# line "N passed, N failed" over every suite.  A suite that stops before
# it reports counts as one failure.  Suites:
#   selftest       the harness's own tests (scripts/selftest.sh)
#   checkpatch     checkpatch.pl --strict on every patch
#   kunit-um       KUnit on UML
#   kunit-x86_64   KUnit on x86_64 under QEMU (TCG)
#   build-ARCH     mm/ virt/kvm/ arch/ARCH/kvm/ for x86_64 (KVM_WERROR=y),
#                  arm64 and s390 (KVM=y), see build.sh
#   sparse         sparse C=2 on the touched directories, no new warnings
#                  against the base (x86_64, arm64, s390; see sparse.sh)
#   audit          the series' coccinelle audit through make coccicheck
#   kvm-selftest-patched
#                  the KVM selftest in QEMU guests on the patched kernel,
#                  nested and shadow paging
#   stress         a short randomised stress run, nested and shadow paging
# Not in the default set (see README): kvm-selftest (patched and base
# kernels), check-debug, bisect-check, bench, regress.

. "$(dirname "$0")/lib.sh"

ALL="selftest checkpatch kunit-um kunit-x86_64 build-x86_64 build-arm64 build-s390
     sparse audit kvm-selftest-patched stress"
MORE="kvm-selftest check-debug bisect-check"
[ $# -gt 0 ] || set -- $ALL

res=$BUILD/check
rm -rf "$res"
mkdir -p "$res"

for s; do
	echo "=== $s"
	start=$(date +%s)
	rc=0
	case $s in
	selftest)
		"$TOP/scripts/selftest.sh" "$res/$s" || rc=$? ;;
	checkpatch)
		"$TOP/scripts/checkpatch.sh" "$res/$s" || rc=$? ;;
	kunit-*)
		arch=${s#kunit-}
		"$TOP/scripts/kunit.sh" "$arch" || rc=$?
		[ ! -s "$BUILD/kunit-$arch.json" ] ||
			"$TOP/scripts/kunit_counts.py" "$BUILD/kunit-$arch.json" >"$res/$s" || rc=1 ;;
	kvm-selftest)
		"$TOP/scripts/kvm-selftest.sh" "$res/$s" || rc=$? ;;
	kvm-selftest-patched)
		KERNELS=patched "$TOP/scripts/kvm-selftest.sh" "$res/$s" || rc=$? ;;
	sparse)
		"$TOP/scripts/sparse.sh" -o "$res/$s" || rc=$? ;;
	audit|stress|check-debug)
		"$TOP/scripts/$s.sh" "$res/$s" || rc=$? ;;
	bisect-check)
		"$TOP/scripts/bisect-check.sh" -o "$res/$s" || rc=$? ;;
	build-*)
		"$TOP/scripts/build.sh" "${s#build-}" && echo "1 0" >"$res/$s" || rc=$? ;;
	*)
		die "unknown suite '$s' (known:" $ALL $MORE")" ;;
	esac
	[ -s "$res/$s" ] || echo "0 0" >"$res/$s"
	read -r p f <"$res/$s"
	# A suite that failed without counting a failure still fails.
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || echo "$p 1" >"$res/$s"
	echo "$(($(date +%s) - start))" >"$res/$s.time"
done

echo "=== summary"
tp=0
tf=0
for s; do
	read -r p f <"$res/$s"
	printf '%-20s %4d passed, %4d failed  (%ss)\n' "$s" "$p" "$f" "$(cat "$res/$s.time")"
	tp=$((tp + p))
	tf=$((tf + f))
done
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
