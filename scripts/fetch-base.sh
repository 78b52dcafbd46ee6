#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of the verified base tarball, fetching it if needed.
# Sources, in this order: $KPU_LINUX_TARBALL; shared/linux/ next to the repo;
# the cache; the machine's Debian archive (deb-src, unstable).  The hash is
# checked every time; on a mismatch nothing of the user's is deleted.

. "$(dirname "$0")/lib.sh"

name=linux_$BASE_VERSION.orig.tar.xz
cached=$CACHE/dl/$name

verify() {
	got=$(sha256_of "$1")
	[ "$got" = "$BASE_SHA256" ] && return 0
	cat >&2 <<-MSG
	$PROG: error: sha256 mismatch for $1
	$PROG:   expected $BASE_SHA256 (base.conf, linux $BASE_DEBIAN_VERSION)
	$PROG:   got      $got
	$PROG: nothing was deleted; point KPU_LINUX_TARBALL at the right file.
	MSG
	exit 1
}

if [ -n "${KPU_LINUX_TARBALL:-}" ]; then
	[ -f "$KPU_LINUX_TARBALL" ] || die "KPU_LINUX_TARBALL=$KPU_LINUX_TARBALL: no such file"
	src=$KPU_LINUX_TARBALL
elif [ -f "$SHARED_DIR/linux/$name" ]; then
	src=$SHARED_DIR/linux/$name
elif [ -f "$cached" ]; then
	src=$cached
else
	papt_setup
	dl=$CACHE/dl/tmp.$$
	mkdir -p "$dl"
	info "downloading linux $BASE_DEBIAN_VERSION orig tarball"
	(cd "$dl" && papt source --download-only --tar-only \
		"linux=$BASE_DEBIAN_VERSION" >&2) ||
		die "apt-get source linux=$BASE_DEBIAN_VERSION failed (left in $dl)"
	[ -f "$dl/$name" ] || die "apt-get source did not produce $name (see $dl)"
	src=$dl/$name
fi

verify "$src"
if [ "$src" != "$cached" ]; then
	mkdir -p "$CACHE/dl"
	cp "$src" "$cached.tmp.$$"
	mv "$cached.tmp.$$" "$cached"
	[ -z "${dl:-}" ] || rm -rf "$dl"
fi
echo "$cached"
