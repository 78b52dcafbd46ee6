# SPDX-License-Identifier: GPL-2.0
# Common definitions for the harness scripts.  Sourced, never run.

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
BASE_CONF=${BASE_CONF:-$TOP/base.conf}
. "$BASE_CONF"

PROG=${0##*/}
CACHE=${RFC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kvm-perm-upgrade}
SHARED_DIR=${SHARED_DIR:-$TOP/../shared}
TREE=${TREE:-$TOP/build/linux}
BUILD=${BUILD:-$TOP/build}
SERIES=${SERIES:-$TOP/series}
COVER=${COVER:-$TOP/cover-letter.txt}
APT_ETC=${APT_ETC:-/etc/apt}
BASE_TAG=v$BASE_VERSION
BASE_GIT=$CACHE/linux-$BASE_VERSION.git
BRANCH=rfc-v2

die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }
info() { printf '%s: %s\n' "$PROG" "$*" >&2; }

need() {
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 ||
			die "'$t' is missing: run 'make deps' (as root, or see what it prints)"
	done
}

# The first Debian archive URI the machine's apt is configured with, read
# from its one-line and deb822 sources.  Security and third-party archives
# are skipped; DEBIAN_MIRROR overrides.
debian_mirror() {
	if [ -n "${DEBIAN_MIRROR:-}" ]; then
		echo "$DEBIAN_MIRROR"
		return
	fi
	for f in "$APT_ETC/sources.list" "$APT_ETC"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 ~ /^deb(-src)?$/ {
			i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++
			if ($i ~ /^\[/) i++
			if ($i ~ /\/debian\/?$/ && $(i + 1) !~ /-security/) print $i
		}' "$f"
	done
	for f in "$APT_ETC"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'function flush() {
			if (uri ~ /\/debian\/?$/ && suites !~ /-security/ && en != "no")
				print uri
			uri = suites = en = ""
		}
		/^[ \t]*$/ { flush(); next }
		/^#/ { next }
		tolower($1) == "uris:" { uri = $2 }
		tolower($1) == "suites:" { suites = $0 }
		tolower($1) == "enabled:" { en = tolower($2) }
		END { flush() }' "$f"
	done
}

# apt-get with a private state and sources directory under the cache, so
# that the system's apt setup is left untouched: deb-src of unstable from
# the machine's own Debian mirror.
papt_setup() {
	need apt-get
	mirror=$(debian_mirror | head -n 1)
	[ -n "$mirror" ] ||
		die "no Debian archive found in the apt sources; set DEBIAN_MIRROR"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "$keyring is missing: install debian-archive-keyring"
	PAPT=$CACHE/apt
	mkdir -p "$PAPT/lists/partial" "$PAPT/cache/archives/partial" "$PAPT/etc"
	echo "deb-src [signed-by=$keyring] $mirror unstable main" \
		>"$PAPT/etc/sources.list"
	papt update >&2 || die "apt-get update of unstable deb-src from $mirror failed"
}

papt() {
	apt-get -q \
		-o Dir::Etc::SourceList="$PAPT/etc/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$PAPT/lists" \
		-o Dir::State::status=/dev/null \
		-o Dir::Cache="$PAPT/cache" \
		-o APT::Sandbox::User=root \
		"$@"
}

sha256_of() {
	sha256sum "$1" | cut -d' ' -f1
}

# How the series is mailed: subject prefix and reroll count.
SERIES_PREFIX="RFC PATCH"
SERIES_VERSION=2

# Refuse to read or rewrite a tree that is mid-operation or dirty.
tree_must_be_clean() {
	[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
	gitdir=$(git -C "$TREE" rev-parse --absolute-git-dir)
	[ ! -d "$gitdir/rebase-apply" ] && [ ! -d "$gitdir/rebase-merge" ] ||
		die "$TREE is in the middle of git am or rebase: finish or abort it first"
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes: commit them (git commit -s, or --fixup and rebase) first"
}

# Names and hashes of the *.patch files in a directory (none if absent).
patch_digest() {
	[ -d "$1" ] || return 0
	(cd "$1" && find . -maxdepth 1 -name '*.patch' | LC_ALL=C sort |
		xargs -r sha256sum | sed 's|  \./|  |')
}

# Compile through ccache in the cache dir, keyed on paths relative to the
# repo, so that a fresh clone elsewhere still hits.
use_ccache() {
	export CCACHE_DIR="${CCACHE_DIR:-$CACHE/ccache}"
	export CCACHE_BASEDIR="$TOP" CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-8G}"
}

# A worktree of the tree at the base tag, for base-vs-patched comparisons
# (guest kernels, sparse).  Prints its path.
base_worktree() {
	bw=$BUILD/linux-base
	[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
	[ -d "$bw" ] || git -C "$TREE" worktree add -q --detach "$bw" "$BASE_TAG" >&2
	[ "$(git -C "$bw" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")" ] ||
		die "$bw is not at $BASE_TAG"
	echo "$bw"
}

# The kernel directories the series builds and checks for an arch.
arch_dirs() {
	case $1 in
	x86_64) echo "mm/ virt/kvm/ arch/x86/kvm/" ;;
	*) echo "mm/ virt/kvm/ arch/$1/kvm/" ;;
	esac
}

# ARCH and CROSS_COMPILE for make, per arch.
karch_of() { case $1 in x86_64) echo x86 ;; *) echo "$1" ;; esac; }
cross_of() {
	case $1 in
	arm64) echo aarch64-linux-gnu- ;;
	s390) echo s390x-linux-gnu- ;;
	esac
}

# A splat in a kernel console log: KASAN/UBSAN reports, lockdep reports,
# WARN, BUG, Oops, panics and RCU stalls (lockdep and the sleep checker
# print theirs as "WARNING:" and "BUG:").
SPLAT_RE='BUG: |WARNING: |UBSAN: |Oops|general protection fault|Kernel panic|rcu: INFO: .* stall|possible (recursive|circular) locking|inconsistent lock state'

# sparse's messages as "file: warning|error: message", the source
# directory prefix and line:col dropped, sorted: comm -13 of two such lists
# gives the new messages, counting repeats.
sparse_normalise() { # SRCDIR < sparse output
	sed -n -e "s|^$1/||" -e 's#^\([^: ]*\):[0-9]*:[0-9]*: \(warning\|error\): #\1: \2: #p' |
		LC_ALL=C sort
}

# The patched and base guest kernels: built (or brought up to date) by
# guest-kernel.sh, or with $1 = 1 the bzImages already in
# build/guest-{patched,base}.  Sets $patched and $base.
guest_kernels() { # PREBUILT
	if [ "${1:-0}" = 1 ]; then
		patched=$BUILD/guest-patched/arch/x86/boot/bzImage
		base=$BUILD/guest-base/arch/x86/boot/bzImage
		[ -f "$patched" ] && [ -f "$base" ] ||
			die "prebuilt kernels asked for, but no bzImage in $BUILD/guest-{patched,base}"
	else
		patched=$("$TOP/scripts/guest-kernel.sh" patched)
		base=$("$TOP/scripts/guest-kernel.sh" base)
	fi
}

# Static KVM selftests built against the uapi headers of a guest kernel
# build: kvm_selftests GUEST_BUILD OUTDIR TEST... (TEST as in the selftests
# Makefile, e.g. x86/perm_upgrade_test; binaries land in OUTDIR/TEST).
kvm_selftests() {
	gb=$1 ko=$2
	shift 2
	use_ccache
	make -s -C "$TREE" O="$gb" headers >&2
	# shellcheck disable=SC2046
	make -s -C "$TREE/tools/testing/selftests/kvm" -j"$(nproc)" CC="ccache gcc" \
		EXTRA_CFLAGS=-static KHDR_INCLUDES="-isystem $gb/usr/include" \
		OUTPUT="$ko" $(for t; do printf '%s/%s ' "$ko" "$t"; done) >&2
}
