# SPDX-License-Identifier: GPL-2.0
#
# "KVM: x86/mmu: don't zap secondary MMU on permission upgrade":
# the series as patch files, and the harness that turns the pinned base
# plus the series into a kernel tree, builds it and tests it.
#
#   make          deps, tree, build, every KUnit suite, mail-ready postings in out/
#   make check    every suite of the "check" set; ends with "N passed, N failed"
#   make help     every target and knob
#
# The test suites are registered in scripts/suites: each has a target of
# its own here, generated from that file.

SHELL := /bin/sh
S := scripts
REG := $(or $(KPU_SUITES),$(S)/suites)

# name, and whether it needs the kernel tree, from the registry.
SUITES := $(shell sed -e '/^\#/d' -e 's/[[:space:]]*|.*//' $(REG) | awk 'NF { print $$1 }')
TREE_SUITES := $(shell sed -e '/^\#/d' -e 's/[[:space:]]*|.*//' $(REG) | awk '$$3 ~ /^tree/ { print $$1 }')

.PHONY: all deps tree tree-state export build kunit out check clean help $(SUITES)

all: deps tree kunit build

deps:
	@$(S)/deps.sh --check 2>/dev/null || $(S)/deps.sh

# Creates build/linux from series/; an existing tree is kept as it is
# (tested as it is), with one line saying how it differs from series/.
tree: deps
	@$(S)/tree.sh

tree-state:
	@$(S)/tree.sh --state

export:
	@$(S)/export.sh
	@git status --short -- series

# build-arm64 builds in kunit-arm64's kernel build.
build: tree
	@$(S)/check.sh kunit-arm64 build-x86_64 build-arm64 build-s390

kunit: tree
	@$(S)/check.sh kunit-um kunit-x86_64 kunit-arm64

$(SUITES): deps
	@$(S)/check.sh $@

$(TREE_SUITES): tree

out: tree
	@$(S)/out.sh

check: deps tree
	@$(S)/check.sh

# Build outputs only: the kernel tree (build/linux) may hold unexported
# work and is removed by hand, as are its worktrees (build/linux-*).
clean:
	[ ! -d build ] || find build/ -mindepth 1 -maxdepth 1 ! -name 'linux*' \
		-exec rm -rf {} +
	rm -rf out

help:
	@echo 'Targets:'
	@printf '  %-22s %s\n' all 'deps, tree, kunit, build (the default)' \
		deps 'install the Debian packages and sparse the harness needs' \
		tree 'create build/linux from series/; an existing tree is kept' \
		tree-state 'one line: how the tree stands against series/' \
		export 'series/ from the tree'"'"'s commits, posting by posting (series/POSTINGS)' \
		build 'build-x86_64 build-arm64 (after kunit-arm64) build-s390' \
		kunit 'kunit-um kunit-x86_64 kunit-arm64' \
		out 'mail-ready postings in out/NAME/, from and signed off by KPU_SENDER, To:/Cc: from get_maintainer.pl' \
		check 'every suite of the check set; ends with "N passed, N failed"' \
		clean 'build outputs (not build/linux)'
	@echo 'Suites (scripts/suites; "check" = in make check):'
	@sed -e '/^#/d' -e '/^[[:space:]]*$$/d' $(REG) | \
		awk -F'|' '{ split($$1, w, " "); sub(/^ +/, "", $$2); \
			printf "  %-22s %-5s %s\n", w[1], w[2], $$2 }'
	@echo 'Knobs (environment or make command line, e.g. make kvm-selftest KPU_SEED=1):'
	@sed -n 's/^#: /  /p' $(S)/lib.sh $(S)/*.sh | awk '!seen[$$0]++'
	@echo 'Guest suite variables (guest/suites: $${NAME} in its tests; default per suite):'
	@awk '$$1 == "suite" { s = $$2 } $$1 == "var" { d[$$2] = d[$$2] (d[$$2] ? ", " : "") s " " $$3 } \
		END { for (v in d) printf "  KPU_%-18s %s\n", v, d[v] }' guest/suites | sort
