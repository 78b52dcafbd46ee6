#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh ARCH [kunit.py args...]
# Run tools/testing/kunit/kunit.py on the tree for ARCH (um or x86_64) with
# kunit/ARCH.kunitconfig plus the arguments in kunit/ARCH.args (one per
# line), reusing build/kunit-ARCH and ccache.  x86_64 runs under QEMU with
# TCG: kunit.py asks QEMU for -accel kvm first, which hangs on machines
# whose /dev/kvm cannot run guests, so /dev/kvm is hidden from it in a
# private mount namespace.  Leaves build/kunit-ARCH.json for the summary.

. "$(dirname "$0")/lib.sh"
need python3 make gcc ccache

arch=${1:?usage: kunit.sh ARCH [kunit.py args]}
shift
cfg=$TOP/kunit/$arch.kunitconfig
[ -f "$cfg" ] || die "no $cfg"
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
[ "$arch" = um ] || need "qemu-system-$arch"

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
	--make_options="CC=ccache gcc" --timeout="${KUNIT_TIMEOUT:-900}" "$@"

cd "$TREE"
if [ "$arch" = um ] || [ ! -e /dev/kvm ]; then
	exec ./tools/testing/kunit/kunit.py "$@"
fi
if [ "$(id -u)" -eq 0 ]; then
	ns="unshare --mount --propagation private"
else
	ns="unshare --map-root-user --mount --propagation private"
fi
# shellcheck disable=SC2016
exec $ns sh -c 'mount --bind /dev/null /dev/kvm && exec "$@"' kunit \
	./tools/testing/kunit/kunit.py "$@"
