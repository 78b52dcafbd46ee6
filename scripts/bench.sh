#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh
# What a pure permission upgrade of guest memory costs a KVM guest, base
# vs patched kernel: bench/perm_upgrade_bench.c (mprotect R->RW, uffd-wp
# resolve, a background-snapshot-like page-by-page resolve; anonymous 4KiB,
# THP, private and shared hugetlb backing), and what a plain zap costs
# (the zap scenario: MADV_DONTNEED, fallocate(PUNCH_HOLE), munmap of the
# region, then the guest faults it back in), one static binary built against
# the tree's KVM selftest library, run in QEMU guests (TCG, nested SVM, as
# kvm-selftest) on both kernels, with nested paging (npt=1) and shadow
# paging (npt=0).  Each guest runs it twice: parked (the vCPU stopped while
# the host changes protections: exact counts), then live (-L: vCPUs keep
# running while host threads run a background snapshot and an mprotect
# R/RW cycle; rates, flushes that kick vCPUs, guest read latency against a
# quiet baseline).  khugepaged sleeps an hour between scans in the guest,
# so that it does not collapse split THPs back in the middle of a run.
# With RFC_PRIOR_KERNEL (lib.sh), a third kernel, "prior", boots between
# base and patched with the same initramfs and options.
# Then arm64: arm64/perm_upgrade_test on the base and patched arm64 guest
# kernels (guest-kernel.sh arm64-base, arm64-patched), in each mode of
# RFC_BENCH_ARM64_MODES (run-guest.sh): bench.md ends with its exit counts
# and pass times, base vs patched.
# Writes results/bench.md (tables, patched/base ratios, and patched/prior
# with a prior kernel), results/bench.csv, results/bench.png and
# results/bench-live.png.  Logs: build/bench/{base,prior,patched}-nptN.log.
#
# Ends with "bench: N passed, N failed", one per guest run (every kernel,
# prior included) that finished both modes with no kernel splat, and per
# arm64 run that finished the test (which fails on the base kernel: its
# upgrade cases count the refaults) with no kernel splat.
#: RFC_BENCH_SIZE_MB  bench: guest region per measurement (default 64)
#: RFC_BENCH_REPS     bench: repetitions, the tables show the median (default 5)
#: RFC_BENCH_BATCHES  bench: snapshot scenario, guest passes over the resolves (8)
#: RFC_BENCH_ZAP_ROUNDS  bench: zap scenario, zap and refault rounds per repetition (8)
#: RFC_BENCH_ARGS     bench: more perm_upgrade_bench parked-mode options, e.g.
#:                    "-S zap" (one scenario) or "-B thp" (one backing) (default none)
#: RFC_BENCH_NPT      bench: which kvm_amd.npt runs (default "1 0")
#: RFC_BENCH_LIVE_SIZE_MB  bench: guest region of the live mode (default 32; 0: no live mode)
#: RFC_BENCH_LIVE_MS  bench: live mode: ms of the quiet baseline and of each
#:                    scenario; the snapshot is paced over it (default 2000)
#: RFC_BENCH_LIVE_VCPUS  bench: live mode: running vCPUs (default 2, the guest's CPUs)
#: RFC_BENCH_ARM64_MODES  bench: the arm64 runs' modes (default "vhe nvhe protected
#:                    a57"; empty: no arm64 runs)
#: RFC_BENCH_LIVE_ARGS  bench: more perm_upgrade_bench -L options, e.g.
#:                    "-i 100 -m 250 -p 32 -w 8" (sampling ms, mprotect phase ms,
#:                    probe and write periods; default none)
#: RFC_PREBUILT       bench, regress: 1 boots the bzImages already in
#:                    build/guest-{base,patched} instead of (re)building them
#: RFC_RESULTS        bench, regress: output directory (default results/)

. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file python3 make gcc

SIZE_MB=${RFC_BENCH_SIZE_MB:-64}
REPS=${RFC_BENCH_REPS:-5}
BATCHES=${RFC_BENCH_BATCHES:-8}
ZAP_ROUNDS=${RFC_BENCH_ZAP_ROUNDS:-8}
ARGS=${RFC_BENCH_ARGS:-}
NPTS=${RFC_BENCH_NPT:-1 0}
LIVE_MB=${RFC_BENCH_LIVE_SIZE_MB:-32}
LIVE_MS=${RFC_BENCH_LIVE_MS:-2000}
LIVE_VCPUS=${RFC_BENCH_LIVE_VCPUS:-2}
LIVE_ARGS=${RFC_BENCH_LIVE_ARGS:-}
ARM64_MODES=${RFC_BENCH_ARM64_MODES-vhe nvhe protected a57}
RESULTS=${RFC_RESULTS:-$TOP/results}
B=$BUILD/bench
prior_kernel
mkdir -p "$B" "$RESULTS"
start=$(date +%s)

guest_kernels

# One static binary for both kernels, built against the patched uapi and
# the tree's KVM selftest library (bench/kvm.mk), into build/bench/kvm.
use_ccache
[ -f "$BUILD/guest-patched/usr/include/linux/kvm.h" ] ||
	make -s -C "$TREE" O="$BUILD/guest-patched" headers >&2
bin=$B/kvm/perm_upgrade_bench
make -s -C "$TREE/tools/testing/selftests/kvm" -f "$TOP/bench/kvm.mk" \
	-j"$(nproc)" CC="ccache gcc" BENCH_DIR="$TOP/bench" OUTPUT="$B/kvm" \
	EXTRA_CFLAGS=-static \
	KHDR_INCLUDES="-isystem $BUILD/guest-patched/usr/include" "$bin" >&2

# The guest's /init runs suite/run: the parked mode, then the live mode.
args="-s $SIZE_MB -r $REPS -b $BATCHES -z $ZAP_ROUNDS${ARGS:+ $ARGS}"
live_args=
[ "$LIVE_MB" = 0 ] ||
	live_args="-L -s $LIVE_MB -T $LIVE_MS -v $LIVE_VCPUS${LIVE_ARGS:+ $LIVE_ARGS}"
rm -rf "$B/suite"
mkdir -p "$B/suite"
cp "$bin" "$B/suite/"
{
	echo '#!/bin/sh'
	echo '# Written by scripts/bench.sh.'
	echo 'echo 3600000 >/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs'
	echo 'rc=0'
	echo "./perm_upgrade_bench $args || rc=1"
	[ -z "$live_args" ] || echo "./perm_upgrade_bench $live_args || rc=1"
	echo "exit \$rc"
} >"$B/suite/run"
chmod +x "$B/suite/run"
"$TOP/scripts/mkinitramfs.sh" "$B/initramfs.cpio.gz" "$B/suite" >&2

# What the report's header says about the setup (the QEMU command is read
# from the guest logs).
report_header "$B/header.txt" "args=$args" "live_args=$live_args" \
	${prior:+"prior_kernel=$prior"}

logs=
pass=0
fail=0
for npt in $NPTS; do
	for k in base ${prior:+prior} patched; do
		log=$B/$k-npt$npt.log
		case $k in patched) kernel=$patched ;; prior) kernel=$prior ;; base) kernel=$base ;; esac
		t0=$(date +%s)
		rc=0
		"$TOP/scripts/run-guest.sh" "$kernel" "$B/initramfs.cpio.gz" "$npt" \
			"$log" 2>"$log.verdict" || rc=$?
		if [ "$rc" -ne 0 ] || ! grep -aq '^BENCH-DONE' "$log" ||
			{ [ -n "$live_args" ] && ! grep -aq '^BENCH-LIVE-DONE' "$log"; }; then
			info "$k kernel, npt=$npt: the benchmark did not finish cleanly (see $log)"
			sed 's/^/    /' "$log.verdict" >&2
			fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
		info "$k kernel, npt=$npt: $(grep -ac '^BENCH ' "$log") BENCH and $(grep -ac '^BENCH-LIVE ' "$log") BENCH-LIVE lines in $(($(date +%s) - t0))s"
		logs="$logs $k:$npt=$log"
	done
done

# arm64: one static test binary for both kernels, built against the
# patched arm64 uapi.
if [ -n "$ARM64_MODES" ]; then
	if [ "${RFC_PREBUILT:-0}" = 1 ]; then
		a_patched=$BUILD/guest-arm64-patched/arch/arm64/boot/Image
		a_base=$BUILD/guest-arm64-base/arch/arm64/boot/Image
		[ -f "$a_patched" ] && [ -f "$a_base" ] ||
			die "prebuilt kernels asked for, but no Image in $BUILD/guest-arm64-{patched,base}"
	else
		a_patched=$("$TOP/scripts/guest-kernel.sh" arm64-patched)
		a_base=$("$TOP/scripts/guest-kernel.sh" arm64-base)
	fi
	kvm_selftests "$BUILD/guest-arm64-patched" "$B/arm64" arm64/perm_upgrade_test
	"$TOP/scripts/mkinitramfs.sh" --busybox "$(arm64_busybox)" "$B/arm64.cpio.gz" \
		"$B/arm64/arm64/perm_upgrade_test" >&2
fi
for m in $ARM64_MODES; do
	for k in base patched; do
		log=$B/arm64-$k-$m.log
		case $k in patched) kernel=$a_patched ;; base) kernel=$a_base ;; esac
		rc=0
		"$TOP/scripts/run-guest.sh" "$kernel" "$B/arm64.cpio.gz" "$m" "$log" \
			2>"$log.verdict" || rc=$?
		# 1: the test failed, as it does on the base kernel.
		if [ "$rc" -gt 1 ] || ! grep -aq '^# Totals:' "$log"; then
			info "arm64 $k kernel, $m: the test did not finish cleanly (see $log)"
			sed 's/^/    /' "$log.verdict" >&2
			fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
		logs="$logs arm64-$k:$m=$log"
	done
done

py=$(plot_python)
# shellcheck disable=SC2086 # one word per log
"$py" "$RFCTOOL" bench "$B/header.txt" "$RESULTS" $logs
info "wrote $RESULTS/bench.md, bench.csv, bench.png, bench-live.png in $(($(date +%s) - start))s"
report bench "$pass" "$fail"
[ "$fail" -eq 0 ]
