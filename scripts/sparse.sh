#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sparse.sh [--in DIR ARCH | ARCH...]
# Run sparse (0.6.5, built by deps.sh) with C=2 on every object of the
# directories the series touches (arch_dirs in lib.sh), on the patched tree
# in build/ARCH (configured and built by build.sh), and fail on any warning
# or error that the base does not have.  sparse runs through a wrapper that
# keeps each source file's messages apart, so the base is checked only for
# the files that have messages on the patched tree: the same objects, with
# the same .config, built on the base (their base messages cached, as they
# never change for a given config and sparse).  Messages are compared per
# file without line numbers, counting repeats, so a moved warning is not
# new and a second copy of one is.  Default arches: x86_64 arm64 s390.  One
# pass or fail per arch.  --in DIR: the patched tree's build is build/DIR
# (build.sh --in), for one ARCH.

. "$(dirname "$0")/lib.sh"
need make ccache realpath

in=
if [ "${1-}" = --in ]; then
	[ $# -eq 3 ] || die "usage: sparse.sh --in DIR ARCH"
	in=$2
	shift 2
fi
[ $# -gt 0 ] || set -- x86_64 arm64 s390

SPARSE=$CACHE/tools/bin/sparse
[ -x "$SPARSE" ] || die "no sparse in $CACHE/tools: run 'make deps'"
out=$BUILD/sparse
mkdir -p "$out"
use_ccache

# The checker kbuild runs (CHECK=): sparse, whose messages also go to
# $SPARSE_DIR/FILE, FILE being the source's path in $SPARSE_SRC with "/"
# as "%".
# One checker and one set of scratch files per run: make check runs the
# arches' sparse suites at the same time.
chk=$out/check.$$
trap 'rm -f "$chk"' EXIT
cat >"$chk" <<'EOF'
#!/bin/sh
for src; do :; done
f=$SPARSE_DIR/$(realpath --relative-to="$SPARSE_SRC" "$src" | tr / %)
"$SPARSE_BIN" "$@" 2>"$f.tmp"
rc=$?
cat "$f.tmp" >&2
if [ -s "$f.tmp" ]; then mv "$f.tmp" "$f"; else rm -f "$f.tmp"; fi
exit "$rc"
EOF
chmod +x "$chk"

# sparse_make SRC OBJDIR ARCH MSGDIR TARGETS...: kbuild with the checker
# forced on every object (C=2) of the TARGETS; messages in MSGDIR, a file
# per source file; compiler output silenced.
sparse_make() {
	sm_src=$1 sm_bd=$2 sm_a=$3 sm_msg=$4
	shift 4
	rm -rf "$sm_msg"
	mkdir -p "$sm_msg"
	SPARSE_BIN=$SPARSE SPARSE_SRC=$(realpath "$sm_src") SPARSE_DIR=$sm_msg \
		make -s -C "$sm_src" O="$sm_bd" ARCH="$(karch_of "$sm_a")" \
		CROSS_COMPILE="$(cross_of "$sm_a")" CC="ccache $(cross_of "$sm_a")gcc" \
		C=2 CHECK="$chk" -j"$(nproc)" "$@" >/dev/null 2>"$sm_msg.log"
}

pass=0
fail=0
base=
for a; do
	# shellcheck disable=SC2046
	set -- $(arch_dirs "$a")
	bd=$BUILD/${in:-$a}
	[ -f "$bd/.config" ] || "$TOP/scripts/build.sh" ${in:+--in "$in"} "$a" >&2 ||
		die "$a: build failed"
	info "$a: sparse C=2 on $* (patched)"
	sparse_make "$TREE" "$bd" "$a" "$out/$a-patched" "$@" ||
		die "$a: build with sparse failed, see $out/$a-patched.log"

	# The base: the objects whose sources have messages, built on the base
	# with the same .config; each one's messages cached.
	key=$( (cat "$bd/.config"; cat "$CACHE/tools/sparse.debversion"; echo "$BASE_SHA256") |
		sha256sum | cut -c1-16)
	cached=$CACHE/sparse/$a-$key
	mkdir -p "$cached"
	todo=''
	# Only the sources of the directories checked: kbuild also runs the
	# checker on what it builds on the way (the vDSO in prepare), which
	# cannot be built alone on the base.
	prefixes=$(for d; do echo "${d%.o}" | tr / %; done)
	files=$(cd "$out/$a-patched" && find . -type f | sed 's|^\./||' |
		while read -r f; do
			for p in $prefixes; do
				case $f in "$p"*) echo "$f"; break ;; esac
			done
		done | LC_ALL=C sort)
	for f in $files; do
		[ ! -e "$cached/$f.done" ] || continue
		s=$(echo "$f" | tr % /)
		# A file that the base does not have has no base messages.
		[ -n "$base" ] || base=$(realpath "$(base_worktree)")
		if [ -f "$base/$s" ]; then
			case $s in *.c) todo="$todo ${s%.c}.o" ;; esac
		else
			: >"$cached/$f.done"
		fi
	done
	if [ -n "$todo" ]; then
		bbd=$BUILD/sparse-base-$a
		mkdir -p "$bbd"
		cp "$bd/.config" "$bbd/.config"
		info "$a: sparse C=2 on the base, the $(echo "$todo" | wc -w) objects with messages"
		make -s -C "$base" O="$bbd" ARCH="$(karch_of "$a")" \
			CROSS_COMPILE="$(cross_of "$a")" olddefconfig >/dev/null
		# shellcheck disable=SC2086 # object names are words
		sparse_make "$base" "$bbd" "$a" "$out/$a-base" $todo ||
			die "$a: base build with sparse failed, see $out/$a-base.log"
		for o in $todo; do
			f=$(echo "${o%.o}.c" | tr / %)
			[ ! -f "$out/$a-base/$f" ] || sparse_normalise "$base" <"$out/$a-base/$f" >"$cached/$f"
			: >"$cached/$f.done"
		done
	fi

	: >"$out/$a-new.txt"
	np=0 nb=0
	for f in $files; do
		# Both as sparse_normalise (lib.sh) gives them: the source
		# directory and line numbers dropped, sorted.
		sparse_normalise "$(realpath "$TREE")" <"$out/$a-patched/$f" >"$out/$a-p"
		if [ -f "$cached/$f" ]; then cp "$cached/$f" "$out/$a-b"; else : >"$out/$a-b"; fi
		np=$((np + $(wc -l <"$out/$a-p"))) nb=$((nb + $(wc -l <"$out/$a-b")))
		LC_ALL=C comm -13 "$out/$a-b" "$out/$a-p" | sed "s#^#$(echo "$f" | tr % /): #" >>"$out/$a-new.txt"
	done
	n=$(wc -l <"$out/$a-new.txt")
	echo "sparse $a: $(echo "$files" | grep -c .) files with messages on the patched tree, $np messages there, $nb on the base, $n new"
	if [ "$n" -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		sed 's/^/    /' "$out/$a-new.txt"
	fi
done
report sparse "$pass" "$fail"
[ "$fail" -eq 0 ]
