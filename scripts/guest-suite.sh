#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-suite.sh NAME
# The one runner of the guest suites (guest/suites): builds and boots, the
# Python half decides.
#   1. harness.py plan: the entry's payload scripts (/suite/run and a
#      wrapper per test) and the plan: variables, kernels, selftests, boots;
#   2. the guest kernels (guest-kernel.sh), the selftests by their own
#      Makefiles (tools/testing/selftests/{kvm,mm,rdma}, static), the
#      payload's own files (bench, e2e, rdma), the initramfs
#      (mkinitramfs.sh), with kselftest's runner.sh;
#   3. each boot (run-guest.sh), its console in build/NAME/ID.log;
#   4. harness.py verdict: each log read once, each test's KTAP result
#      against the entry's expectation, the console's splats; the suite's
#      protocol line, and with KPU_RESULTS (default results/ for the
#      suites that have a report, unless KPU_RESULTS=none) its report.
#: KPU_TESTS          a guest suite: only these tests (names in guest/suites;
#:                    "available": those the tree has the sources of)
#: KPU_KERNELS        a guest suite: only these of its kernels
#: KPU_MODES          a guest suite: only these of its modes (npt 1/0, arm64 modes)
#: KPU_RESULTS        a guest suite's report: where (default results/ for a whole
#:                    run, none for one narrowed by KPU_TESTS, _KERNELS or _MODES)
#: KPU_PREBUILT       1: boot the guest kernels already built, as they are
#: KPU_PRIOR_KERNEL   bench, e2e: a prebuilt bzImage of part of the series, booted
#:                    as kernel "prior" between base and patched
#: KPU_SUITE_DIR      where a guest suite's payload and logs go (default build/NAME)
#: KPU_CATCH          a guest suite: 1 asks the verdict whether a wrong build was
#:                    caught instead (make mutants sets it)

. "$(dirname "$0")/lib.sh"
need python3 make gcc cpio gzip file

name=${1:?usage: guest-suite.sh NAME (a suite of guest/suites)}
S=${KPU_SUITE_DIR:-$BUILD/$name}
P=$S/payload
rm -rf "$P"
mkdir -p "$P" "$S"
rm -f "$S"/*.log "$S"/*.log.try1
harness plan "$GUEST_SUITES" "$name" "$P" >"$S/plan" || die "no plan for $name"

kernels='' boots='' builds='' config=''
while read -r what a b rest; do
	case $what in
	suite) arch=$b payload=$rest ;;
	config) config=$a ;;
	var) echo "$name: $a=$b (KPU_$a=$b to run it again)" ;;
	kernel) kernels="$kernels $a" ;;
	skip) echo "$name: $a is not booted: $b $rest" ;;
	build) builds="$builds $a:$b" ;;
	boot) boots="$boots $a" ;;
	esac
done <"$S/plan"

if [ -z "$boots" ]; then
	echo "$name: no test of the suite in this tree"
	report "$name" 0 0
	exit 0
fi

# kernel_image KIND: the image guest-kernel.sh builds (or, with
# KPU_PREBUILT=1, built) for a kind; prior is KPU_PRIOR_KERNEL.
kernel_image() {
	case $1 in
	prior)
		[ -f "${KPU_PRIOR_KERNEL:-}" ] || die "KPU_PRIOR_KERNEL: no such file: '${KPU_PRIOR_KERNEL:-}'"
		echo "$KPU_PRIOR_KERNEL" ;;
	*)
		if [ "${KPU_PREBUILT:-0}" = 1 ]; then
			img=$BUILD/guest-$1/arch/x86/boot/bzImage
			case $1 in arm64-*) img=$BUILD/guest-$1/arch/arm64/boot/Image ;; esac
			[ -f "$img" ] || die "KPU_PREBUILT=1, but no $img"
			# The report says the timing config is on every kernel:
			# a prebuilt one must have been built with it.
			case $1 in *-timing)
				timing_build "$BUILD/guest-$1" ||
					die "KPU_PREBUILT=1: $BUILD/guest-$1 has KVM_PROVE_MMU, not the timing config"
			esac
			echo "$img"
		else
			"$TOP/scripts/guest-kernel.sh" "$1"
		fi ;;
	esac
}
for k in $kernels; do
	img=$(kernel_image "$k")
	eval "IMG_$(echo "$k" | tr -c 'a-z0-9\n' _)=\$img"
done

# The selftests, static, against the uapi of the patched kernel's build
# (of the first kernel's when there is none): each collection by its own
# Makefile, one make for all of its tests.
hkind=$(for k in $kernels; do case $k in *patched | *patched-* | debug) echo "$k" ;; esac; done | head -n 1)
[ -n "$hkind" ] || hkind=$(for k in $kernels; do [ "$k" = prior ] || echo "$k"; done | head -n 1)
hdr=$BUILD/guest-$hkind
bb=''
[ "$arch" != arm64 ] || bb="--busybox $(arm64_busybox)"
for coll in kvm mm rdma; do
	targets=''
	for b in $builds; do
		[ "${b%%:*}" != "$coll" ] || targets="$targets $S/$coll/${b#*:}"
	done
	[ -n "$targets" ] || continue
	# shellcheck disable=SC2086 # one word per target
	selftests_make "$TREE" "$coll" "$arch" "$hdr" "$S/$coll" $targets ||
		die "$name: the $coll selftests did not build"
	for t in $targets; do cp "$t" "$P/"; done
done
mkdir -p "$P/kselftest"
cp "$TREE/tools/testing/selftests/kselftest/runner.sh" \
	"$TREE/tools/testing/selftests/kselftest/ktap_helpers.sh" "$P/kselftest/"

# The payload's own files, beside what plan wrote: /suite/setup, if any,
# runs in the guest before the tests.
payload_bench() {
	[ -f "$hdr/usr/include/linux/kvm.h" ] || make -s -C "$TREE" O="$hdr" headers >&2
	make -s -C "$TREE/tools/testing/selftests/kvm" -f "$TOP/bench/kvm.mk" \
		-j"$(nproc)" CC="ccache gcc" BENCH_DIR="$TOP/bench" OUTPUT="$S/bench" \
		EXTRA_CFLAGS=-static KHDR_INCLUDES="-isystem $hdr/usr/include" \
		"$S/bench/perm_upgrade_bench" >&2
	cp "$S/bench/perm_upgrade_bench" "$P/"
	# khugepaged must not collapse split THPs back in the middle of a run.
	echo 'echo 3600000 >/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs' \
		>"$P/setup"
}

# e2e: e2e/run, the nested guest (snapwork: a 32-bit multiboot image,
# freestanding) and the nested QEMU: the host's binary, run through its
# dynamic loader with the libraries ldd finds, and the firmware of a pc
# machine (SeaBIOS, the multiboot option ROM, the KVM vapic ROM).
payload_e2e() {
	need ld ldd
	gcc -m32 -march=i686 -O2 -ffreestanding -fno-pic -fno-stack-protector \
		-fno-asynchronous-unwind-tables -nostdlib -Wall -Wextra -Werror \
		-c "$TOP/e2e/snapwork.c" -o "$S/snapwork.o"
	ld -m elf_i386 --no-warn-rwx-segments -T "$TOP/e2e/snapwork.ld" -nostdlib \
		"$S/snapwork.o" -o "$P/snapwork.elf"
	cp "$TOP/e2e/run" "$P/e2e-run"
	mkdir -p "$P/qemu/lib" "$P/qemu/share"
	q=$(command -v qemu-system-x86_64)
	cp "$q" "$P/qemu/"
	ldd "$q" | awk '/=> \// { print $3 }' | while read -r lib; do
		cp -L "$lib" "$P/qemu/lib/"
	done
	cp -L "$(ldd "$q" | awk '/ld-linux/ { print $1 }')" "$P/qemu/ld.so"
	for f in bios-256k.bin multiboot_dma.bin linuxboot_dma.bin kvmvapic.bin; do
		for d in /usr/share/qemu /usr/share/seabios; do
			[ -f "$d/$f" ] && { cp -L "$d/$f" "$P/qemu/share/"; break; }
		done
		[ -f "$P/qemu/share/$f" ] || die "no $f in /usr/share/qemu or /usr/share/seabios"
	done
}

# rdma: the tree's rxe_odp.sh beside rxe_odp_test, and rdma-core's tests
# in a chroot (root/) of python3 and its library, pyverbs, libibverbs and
# its providers, the rdma tool and the libraries they load.
payload_rdma() {
	need ldd
	tests=/usr/share/doc/rdma-core/tests
	dpy=/usr/bin/python3
	for f in "$tests/test_odp.py.gz" /usr/lib/python3/dist-packages/pyverbs \
			/usr/bin/rdma $dpy; do
		[ -e "$f" ] || die "$f is missing: run 'make deps'"
	done
	cp "$TREE/tools/testing/selftests/rdma/rxe_odp.sh" "$P/"
	cp "$TOP/guest/rdma-test-odp" "$P/test_odp"
	r=$P/root
	copy() { for f; do mkdir -p "$r$(dirname "$f")" && cp -L "$f" "$r$f"; done; }
	bins="$dpy /usr/bin/rdma"
	py=$($dpy -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
	sos=$(find /usr/lib/python3/dist-packages/pyverbs /usr/lib/x86_64-linux-gnu/libibverbs \
		"$py/lib-dynload" -name '*.so*')
	# shellcheck disable=SC2086,SC2046 # lists of paths, without spaces
	copy $bins $(ldd $bins $sos | awk '/=> \// { print $3 } /^\t\/lib64/ { print $1 }' | sort -u)
	mkdir -p "$r$py" "$r/usr/lib/python3/dist-packages" "$r/tests" "$r/proc" "$r/sys" \
		"$r/dev" "$r/tmp"
	(cd "$py" && tar cf - --exclude=test --exclude=idlelib --exclude=tkinter \
		--exclude=ensurepip --exclude=lib2to3 --exclude=__pycache__ \
		--exclude=site-packages --exclude=dist-packages .) | (cd "$r$py" && tar xf -)
	cp -R /usr/lib/python3/dist-packages/pyverbs "$r/usr/lib/python3/dist-packages/"
	cp -R /usr/lib/x86_64-linux-gnu/libibverbs "$r/usr/lib/x86_64-linux-gnu/"
	copy /etc/libibverbs.d/*
	cp -R "$tests/." "$r/tests/"
	gunzip -f "$r"/tests/*.gz
	find "$r" -name __pycache__ -prune -exec rm -rf {} +
	printf '%s\n' 'mount -t tracefs nodev /sys/kernel/tracing' 'ip link set lo up' >"$P/setup"
}

use_ccache
case $payload in
bench) payload_bench ;;
e2e) payload_e2e ;;
rdma) payload_rdma ;;
esac

# shellcheck disable=SC2086 # $bb is an option and its argument, or nothing
"$TOP/scripts/mkinitramfs.sh" $bb "$S/initramfs.cpio.gz" "$P" >&2

report_header "$S/header" ${config:+"config=$config: guest/$config.config on every kernel built here"}
sed -n 's/^var \([^ ]*\) /\1=/p' "$S/plan" >>"$S/header"
for id in $boots; do
	# boot ID KIND MODE THREAD TIMEOUT MEM CPU APPEND...
	read -r _ _ kind mode thread timeout mem cpu append <<EOF
$(grep "^boot $id " "$S/plan")
EOF
	eval "img=\$IMG_$(echo "$kind" | tr -c 'a-z0-9\n' _)"
	[ "$mem" != - ] || mem=${KPU_GUEST_MEM:-4}
	[ "$cpu" != - ] || cpu=${KPU_GUEST_CPU:-}
	info "$name: booting $id"
	t0=$(date +%s)
	KPU_GUEST_TCG_THREAD=$thread KPU_TIMEOUT=${KPU_TIMEOUT:-$timeout} \
		KPU_GUEST_MEM=$mem KPU_GUEST_CPU=$cpu \
		KPU_GUEST_APPEND="${KPU_GUEST_APPEND:-} $append" \
		"$TOP/scripts/run-guest.sh" "$img" "$S/initramfs.cpio.gz" "$mode" "$S/$id.log" ||
		info "$name: $id: QEMU did not end cleanly (its log says more)"
	info "$name: $id took $(($(date +%s) - t0)) s"
done

# The committed results come from whole runs: a narrowed one (KPU_TESTS,
# KPU_KERNELS, KPU_MODES) writes none unless KPU_RESULTS says where.
results=${KPU_RESULTS:-$TOP/results}
[ -n "${KPU_RESULTS:-}" ] || [ -z "${KPU_TESTS:-}${KPU_KERNELS:-}${KPU_MODES:-}" ] ||
	results=none
set --
[ "$results" = none ] || set -- --header "$S/header" --results "$results"
KPU_SUITE=${KPU_SUITE:-$name} harness verdict "$GUEST_SUITES" "$name" "$S" "$@"
