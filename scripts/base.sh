#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Make sure the cache holds the extracted base as a git repository whose
# single commit is the pristine tarball, tagged v$BASE_VERSION.  The commit
# is reproducible: fixed identity, date taken from the tarball.  Prints the
# repository's path.

. "$(dirname "$0")/lib.sh"
need git tar xz sha256sum

if git -C "$BASE_GIT" rev-parse -q --verify "refs/tags/$BASE_TAG^{commit}" \
		>/dev/null 2>&1; then
	echo "$BASE_GIT"
	exit 0
fi

tarball=$("$TOP/scripts/fetch-base.sh")
tmp=$CACHE/tmp.base.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM

info "extracting $tarball"
tar -C "$tmp" -xJf "$tarball"
src=$tmp/linux-$BASE_VERSION
[ -f "$src/Makefile" ] || die "$tarball has no linux-$BASE_VERSION/ directory"

# Newest mtime in the tarball: the same tarball always gives the same commit.
date=$(find "$src" -type f -printf '%T@\n' | sort -n | tail -n 1 | cut -d. -f1)

info "committing the base (a few minutes on a cold cache)"
git init -q --bare "$tmp/base.git"
export GIT_DIR="$tmp/base.git" GIT_WORK_TREE="$src"
git config core.autocrlf false
git config gc.auto 0
git add -A -f .
GIT_AUTHOR_NAME="Linux $BASE_VERSION" GIT_AUTHOR_EMAIL="base@localhost" \
GIT_COMMITTER_NAME="Linux $BASE_VERSION" GIT_COMMITTER_EMAIL="base@localhost" \
GIT_AUTHOR_DATE="@$date +0000" GIT_COMMITTER_DATE="@$date +0000" \
	git commit -q -m "Linux $BASE_VERSION" \
		-m "Pristine orig tarball of Debian linux $BASE_DEBIAN_VERSION, sha256 $BASE_SHA256."
git tag "$BASE_TAG"
unset GIT_DIR GIT_WORK_TREE

rm -rf "$BASE_GIT"
mv "$tmp/base.git" "$BASE_GIT"
info "base: $BASE_GIT ($(git -C "$BASE_GIT" rev-parse --short "$BASE_TAG^{commit}"))"
echo "$BASE_GIT"
