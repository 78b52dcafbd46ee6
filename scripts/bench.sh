#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh
# What a pure permission upgrade of guest memory costs a KVM guest, base
# vs patched kernel: bench/perm_upgrade_bench.c (mprotect R->RW, uffd-wp
# resolve, a background-snapshot-like page-by-page resolve; anonymous 4KiB,
# THP and hugetlb backing), one static binary built against the tree's KVM
# selftest library, run in QEMU guests (TCG, nested SVM, as kvm-selftest)
# on both kernels, with nested paging (npt=1) and shadow paging (npt=0).
# Writes results/bench.md (tables, patched/base ratios), results/bench.csv
# and results/bench.png.  Logs: build/bench/{base,patched}-nptN.log.
#
# Environment:
#   BENCH_SIZE_MB  guest region per measurement (default 64)
#   BENCH_REPS     repetitions, the tables show the median (default 5)
#   BENCH_BATCHES  snapshot scenario: guest passes over the resolves (8)
#   BENCH_NPT      which kvm_amd.npt runs (default "1 0")
#   BENCH_PREBUILT=1  boot the bzImages already in build/guest-{base,patched}
#                  instead of (re)building them with guest-kernel.sh
#   RESULTS        output directory (default results/)

. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file python3 make gcc

SIZE_MB=${BENCH_SIZE_MB:-64}
REPS=${BENCH_REPS:-5}
BATCHES=${BENCH_BATCHES:-8}
NPTS=${BENCH_NPT:-1 0}
RESULTS=${RESULTS:-$TOP/results}
B=$BUILD/bench
mkdir -p "$B" "$RESULTS"
start=$(date +%s)

guest_kernels "${BENCH_PREBUILT:-0}"

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
"$TOP/scripts/mkinitramfs.sh" "$B/initramfs.cpio.gz" "$bin" \
	-s "$SIZE_MB" -r "$REPS" -b "$BATCHES" >&2

# What the report's header says about the setup.
qemu_line=$(grep -m 1 'qemu-system-x86_64 -accel' "$TOP/scripts/run-guest.sh")
qemu_cpu="-cpu ${GUEST_CPU:-EPYC,+svm,+npt}" # run-guest.sh's default
qemu_accel=$(echo "$qemu_line" | sed -n 's/.*\(-accel [^ ]*\).*/\1/p')
qemu_mem=$(sed -n 's/.*\(-m [^ ]* -smp [^ ]*\).*/\1/p' "$TOP/scripts/run-guest.sh" | head -n 1)
{
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
	echo "qemu_args=$qemu_accel $qemu_cpu $qemu_mem"
	echo "host_cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1) x $(nproc)"
	echo "tree_head=$(git -C "$TREE" describe --always --tags HEAD 2>/dev/null || echo unknown)"
	echo "base_tag=$BASE_TAG $(git -C "$TREE" rev-parse --short "$BASE_TAG^{commit}" 2>/dev/null)"
	echo "harness=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "args=-s $SIZE_MB -r $REPS -b $BATCHES"
	echo "kernels=$([ "${BENCH_PREBUILT:-0}" = 1 ] && echo prebuilt || echo rebuilt)"
} >"$B/header.txt"

logs=
fail=0
for npt in $NPTS; do
	for k in base patched; do
		log=$B/$k-npt$npt.log
		case $k in patched) kernel=$patched ;; base) kernel=$base ;; esac
		t0=$(date +%s)
		rc=0
		"$TOP/scripts/run-guest.sh" "$kernel" "$B/initramfs.cpio.gz" "$npt" \
			"$log" >/dev/null || rc=$?
		if [ "$rc" -ne 0 ] || ! grep -aq '^BENCH-DONE' "$log"; then
			info "$k kernel, npt=$npt: the benchmark did not finish (see $log)"
			fail=$((fail + 1))
		fi
		info "$k kernel, npt=$npt: $(grep -ac '^BENCH ' "$log") BENCH lines in $(($(date +%s) - t0))s"
		logs="$logs $k:$npt=$log"
	done
done

# The plot needs matplotlib (Debian: python3-matplotlib), which a python3
# earlier in PATH (pyenv, venv) may lack.
py=python3
python3 -c 'import matplotlib' 2>/dev/null ||
	! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || py=/usr/bin/python3
# shellcheck disable=SC2086 # one word per log
"$py" "$TOP/scripts/bench_report.py" "$B/header.txt" "$RESULTS" $logs
info "wrote $RESULTS/bench.md, bench.csv, bench.png in $(($(date +%s) - start))s"
[ "$fail" -eq 0 ]
