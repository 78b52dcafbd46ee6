# SPDX-License-Identifier: GPL-2.0
#
# RFC v2 "KVM: x86/mmu: don't zap secondary MMU on permission upgrade":
# the series as patch files, and the harness that turns the pinned base
# plus the series into a kernel tree, builds it and tests it.
#
#   make        deps, tree, build, every KUnit suite, mail-ready series in out/
#   make check  every test, ending with one "N passed, N failed" line

SHELL := /bin/sh
S := scripts

.PHONY: all deps tree export build kunit kunit-um kunit-x86_64 out check \
	selftest checkpatch build-x86_64 build-arm64 build-s390 sparse audit \
	kvm-selftest stress check-debug bisect-check bench regress clean help

all: deps tree build kunit out

deps:
	@$(S)/deps.sh --check 2>/dev/null || $(S)/deps.sh

tree: deps
	@$(S)/tree.sh

export:
	@$(S)/export.sh
	@git status --short -- series

build: tree
	@$(S)/check.sh build-x86_64 build-arm64 build-s390

kunit: tree
	@$(S)/check.sh kunit-um kunit-x86_64

kunit-um kunit-x86_64 build-x86_64 build-arm64 build-s390 sparse audit \
kvm-selftest stress check-debug bisect-check: deps tree
	@$(S)/check.sh $@

# Base against patched kernel in QEMU guests; results/ holds a full run.
bench regress: deps tree
	@$(S)/$@.sh

out: tree
	@$(S)/out.sh

check: deps tree
	@$(S)/check.sh

selftest:
	@$(S)/check.sh selftest

checkpatch: tree
	@$(S)/check.sh checkpatch

# Build outputs only: the kernel tree (build/linux) may hold unexported
# work and is removed by hand.
clean:
	rm -rf build/kunit-* build/check build/x86_64 build/arm64 build/s390 \
		build/guest-* build/kvm-selftest build/sparse* build/bisect \
		build/stress build/check-debug build/bench build/regress \
		build/audit* out

help:
	@sed -n 's/^#   //p' Makefile
