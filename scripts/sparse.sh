#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sparse.sh [ARCH...]
# Run sparse (0.6.5, built by deps.sh) with C=2 on every object of the
# directories the series touches (arch_dirs in lib.sh), on the
# patched tree in build/ARCH (configured by build.sh) and on the base with
# the same .config, and fail on any warning or error that the base does not
# have.  Messages are compared per file without line numbers, counting
# repeats, so a moved warning is not new and a second copy of one is.  The
# base's messages never change for a given config and sparse, so they are
# cached.  Default arches: x86_64 arm64 s390.  One pass or fail per arch.

. "$(dirname "$0")/lib.sh"
need make ccache

[ $# -gt 0 ] || set -- x86_64 arm64 s390

SPARSE=$CACHE/tools/bin/sparse
[ -x "$SPARSE" ] || die "no sparse in $CACHE/tools: run 'make deps'"
out=$BUILD/sparse
mkdir -p "$out" "$CACHE/sparse"
use_ccache

# Kbuild with the checker forced on every object (C=2); sparse messages
# go to stderr, compiler output is silenced by -s.
# shellcheck disable=SC2069 # stderr to the caller, stdout to /dev/null
sparse_make() { # SRC OBJDIR ARCH DIRS...
	src=$1 bd=$2 a=$3
	shift 3
	make -s -C "$src" O="$bd" ARCH="$(karch_of "$a")" \
		CROSS_COMPILE="$(cross_of "$a")" CC="ccache $(cross_of "$a")gcc" \
		C=2 CHECK="$SPARSE" -j"$(nproc)" "$@" 2>&1 >/dev/null
}

pass=0
fail=0
base=$(base_worktree)
for a; do
	# shellcheck disable=SC2046
	set -- $(arch_dirs "$a")
	bd=$BUILD/$a
	[ -f "$bd/.config" ] || "$TOP/scripts/build.sh" "$a" >&2 ||
		die "$a: build failed"
	info "$a: sparse C=2 on $* (patched)"
	sparse_make "$TREE" "$bd" "$a" "$@" >"$out/$a-patched.log" ||
		die "$a: build with sparse failed, see $out/$a-patched.log"
	sparse_normalise "$TREE" <"$out/$a-patched.log" >"$out/$a-patched.txt"

	key=$( (cat "$bd/.config"; cat "$CACHE/tools/sparse.debversion";
		echo "$BASE_SHA256 $*") | sha256sum | cut -c1-16)
	cached=$CACHE/sparse/$a-base-$key.txt
	if [ ! -f "$cached" ]; then
		bbd=$BUILD/sparse-base-$a
		mkdir -p "$bbd"
		cp "$bd/.config" "$bbd/.config"
		info "$a: sparse C=2 on $* (base, cached afterwards)"
		make -s -C "$base" O="$bbd" ARCH="$(karch_of "$a")" \
			CROSS_COMPILE="$(cross_of "$a")" olddefconfig >/dev/null
		sparse_make "$base" "$bbd" "$a" "$@" >"$out/$a-base.log" ||
			die "$a: base build with sparse failed, see $out/$a-base.log"
		sparse_normalise "$base" <"$out/$a-base.log" >"$cached.tmp"
		mv "$cached.tmp" "$cached"
	fi
	cp "$cached" "$out/$a-base.txt"

	LC_ALL=C comm -13 "$out/$a-base.txt" "$out/$a-patched.txt" >"$out/$a-new.txt"
	n=$(wc -l <"$out/$a-new.txt")
	echo "sparse $a: $(wc -l <"$out/$a-base.txt") messages on base, $(wc -l <"$out/$a-patched.txt") patched, $n new"
	if [ "$n" -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		# The new messages with their line numbers.
		sed 's/^\([^:]*\): [a-z]*: \(.*\)$/\1 \2/' "$out/$a-new.txt" |
		while read -r f msg; do
			grep -F "$f:" "$out/$a-patched.log" | grep -F -- "$msg" | sed "s|^$TREE/|    |"
		done | sort -u
	fi
done
report sparse "$pass" "$fail"
[ "$fail" -eq 0 ]
