#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh ARCH [kunit.py args...]
# Run tools/testing/kunit/kunit.py on the tree for ARCH (um, x86_64, arm64) with
# kunit/ARCH.kunitconfig plus the arguments in kunit/ARCH.args (one per
# line), reusing build/kunit-ARCH and ccache.  arm64 is cross compiled and
# boots at EL2 (kunit/arm64.args).  x86_64 and arm64 run under QEMU with
# TCG: kunit.py asks QEMU for -accel kvm first, which hangs on machines
# whose /dev/kvm cannot run guests, so /dev/kvm is hidden from it in a
# private mount namespace.  Ends with "kunit-ARCH: N passed, N failed,
# N skipped" from kunit.py's JSON (build/kunit-ARCH.json); a run without
# results counts as one failure.
#: KPU_KUNIT_TIMEOUT  kunit: kunit.py --timeout in seconds (default 900)

. "$(dirname "$0")/lib.sh"
need python3 make gcc ccache

arch=${1:?usage: kunit.sh ARCH [kunit.py args]}
shift
cfg=$TOP/kunit/$arch.kunitconfig
[ -f "$cfg" ] || die "no $cfg"
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
cc=gcc
case $arch in
um) ;;
arm64) need qemu-system-aarch64 aarch64-linux-gnu-gcc; cc=aarch64-linux-gnu-gcc ;;
*) need "qemu-system-$arch" ;;
esac

use_ccache

json=$BUILD/kunit-$arch.json
rm -f "$json"
mkdir -p "$BUILD"

# Extra arguments, one per line, comments and blank lines ignored.
extra=$TOP/kunit/$arch.args
if [ -f "$extra" ]; then
	while IFS= read -r a; do
		case $a in ''|'#'*) continue ;; esac
		set -- "$@" "$a"
	done <"$extra"
fi

set -- run --arch="$arch" --build_dir="$BUILD/kunit-$arch" \
	--kunitconfig="$cfg" --jobs="$(nproc)" --json="$json" \
	--make_options="CC=ccache $cc" --timeout="${KPU_KUNIT_TIMEOUT:-900}" "$@"

rc=0
if [ "$arch" = um ] || [ ! -e /dev/kvm ]; then
	(cd "$TREE" && ./tools/testing/kunit/kunit.py "$@") || rc=$?
else
	if [ "$(id -u)" -eq 0 ]; then
		ns="unshare --mount --propagation private"
	else
		ns="unshare --map-root-user --mount --propagation private"
	fi
	# shellcheck disable=SC2016,SC2086 # $ns is words; $@ is the inner shell's
	(cd "$TREE" && $ns sh -c 'mount --bind /dev/null /dev/kvm && exec "$@"' kunit \
		./tools/testing/kunit/kunit.py "$@") || rc=$?
fi
if [ -s "$json" ]; then
	harness kunit "${KPU_SUITE:-kunit-$arch}" "$json" || rc=1
else
	info "kunit.py left no results in $json"
	report "kunit-$arch" 0 1
	rc=1
fi
exit "$rc"
