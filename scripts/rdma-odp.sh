#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rdma-odp.sh
# RDMA on-demand paging (ib_umem_odp, rxe) across host protection changes,
# the series' second consumer, on the patched and the base guest kernel
# with guest/rdma.config (rxe over a dummy netdev, in one x86_64 guest
# each, nested paging irrelevant):
#   - tools/testing/selftests/rdma/rxe_odp.sh of the tree, with its
#     rxe_odp_test built static against Debian's libibverbs-dev and
#     RFC_RDMA_RACE_S seconds per race: every case must pass on the patched
#     kernel.  On the base kernel it fails by design (every page refaults
#     after each change, and v7.2.8's rxe copies at the wrong offset); its
#     fault counts are reported.
#   - rdma-core's own ODP tests (tests/test_odp.py of Debian's rdma-core,
#     with python3-pyverbs), unchanged, in a chroot of the installed files:
#     each test must end the same way on both kernels.
# Each boot counts once more when its console has no kernel splat.
# Writes results/rdma-odp.md (rfctool rdma-odp).
#: RFC_RDMA_RACE_S    rdma-odp: seconds of each of rxe_odp_test's six races (default 20)
#: RFC_PREBUILT       rdma-odp: 1 boots build/guest-{patched,base}-rdma as they are
. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 busybox cpio gzip file gcc python3 ldd
race=${RFC_RDMA_RACE_S:-20}
case $race in '' | *[!0-9]*) die "RFC_RDMA_RACE_S must be a number of seconds, not '$race'" ;; esac
tests=/usr/share/doc/rdma-core/tests
for f in /usr/lib/x86_64-linux-gnu/libibverbs.a /usr/lib/x86_64-linux-gnu/librxe-rdmav34.a \
		"$tests/test_odp.py.gz" /usr/lib/python3/dist-packages/pyverbs /usr/bin/rdma; do
	[ -e "$f" ] || die "$f is missing: run 'make deps'"
done
B=$BUILD/rdma-odp
mkdir -p "$B"
guest_kernels -rdma
src=$TREE/tools/testing/selftests/rdma
[ -f "$src/rxe_odp_test.c" ] || die "the tree has no $src/rxe_odp_test.c"

rm -rf "$B/suite"
mkdir -p "$B/suite"
rxe_odp_test "$BUILD/guest-patched-rdma" "$B/suite/rxe_odp_test" 2>"$B/gcc.log" ||
	{ cat "$B/gcc.log" >&2; die "rxe_odp_test did not build"; }
cp "$src/rxe_odp.sh" "$B/suite/"

# The chroot: python3 and its library, pyverbs, libibverbs and its
# providers, the rdma tool, the libraries they load, rdma-core's tests.
r=$B/suite/root
copy() { for f; do mkdir -p "$r$(dirname "$f")" && cp -L "$f" "$r$f"; done; }
# Debian's python3, which pyverbs is built for (not the first on PATH).
dpy=/usr/bin/python3
[ -x $dpy ] || die "$dpy is missing: run 'make deps'"
bins="$dpy /usr/bin/rdma"
py=$($dpy -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
sos=$(find /usr/lib/python3/dist-packages/pyverbs /usr/lib/x86_64-linux-gnu/libibverbs \
	"$py/lib-dynload" -name '*.so*')
# shellcheck disable=SC2086,SC2046 # lists of paths, without spaces
copy $bins $(ldd $bins $sos | awk '/=> \// { print $3 } /^\t\/lib64/ { print $1 }' | sort -u)
mkdir -p "$r$py" "$r/usr/lib/python3/dist-packages" "$r/tests" "$r/proc" "$r/sys" "$r/dev" "$r/tmp"
(cd "$py" && tar cf - --exclude=test --exclude=idlelib --exclude=tkinter \
	--exclude=ensurepip --exclude=lib2to3 --exclude=__pycache__ \
	--exclude=site-packages --exclude=dist-packages .) | (cd "$r$py" && tar xf -)
cp -R /usr/lib/python3/dist-packages/pyverbs "$r/usr/lib/python3/dist-packages/"
cp -R /usr/lib/x86_64-linux-gnu/libibverbs "$r/usr/lib/x86_64-linux-gnu/"
copy /etc/libibverbs.d/*
cp -R "$tests/." "$r/tests/"
gunzip -f "$r"/tests/*.gz
find "$r" -name __pycache__ -prune -exec rm -rf {} +

cat >"$B/suite/run" <<EOS
#!/bin/sh
mount -t tracefs nodev /sys/kernel/tracing
ip link set lo up
sh ./rxe_odp.sh -r $race
echo "GUEST-TEST: rxe_odp.sh exit \$?"
ip link add dummy0 type dummy
ip addr add 192.0.2.1/24 dev dummy0
ip link set dummy0 up
for m in proc sys dev; do mount --bind /\$m root/\$m; done
mount -t tmpfs tmp root/tmp
chroot root /usr/bin/rdma link add rxe0 type rxe netdev dummy0
chroot root /usr/bin/python3 /tests/run_tests.py --dev rxe0 -v tests.test_odp 2>&1
echo "GUEST-TEST: test_odp exit \$?"
EOS
chmod +x "$B/suite/run"
"$TOP/scripts/mkinitramfs.sh" "$B/initramfs.cpio.gz" "$B/suite" >&2

pass=0
fail=0
logs=
for k in patched base; do
	case $k in patched) kernel=$patched ;; base) kernel=$base ;; esac
	log=$B/$k.log
	rc=0
	# About 5 min on an idle machine; a loaded one takes three times that.
	RFC_TIMEOUT=${RFC_TIMEOUT:-2400} RFC_GUEST_APPEND="rfc_kernel=$k" \
		"$TOP/scripts/run-guest.sh" "$kernel" \
		"$B/initramfs.cpio.gz" 1 "$log" || rc=$?
	[ "$rc" -ne 2 ] && [ "$rc" -ne 3 ] && r=ok || r=no
	count "$r" "$k: the guest ran the suite, console clean (run-guest.sh exit $rc)"
	logs="$logs $k=$log"
done
mkdir -p "$TOP/results"
report_header "$B/header" "race_s=$race"
# shellcheck disable=SC2086 # a list of KERNEL=LOG
out=$(rfctool rdma-odp "$B/header" "$TOP/results/rdma-odp.md" $logs) && r=ok || r=no
printf '%s\n' "$out"
count "$r" "rdma-odp: rxe_odp_test passes on patched, test_odp ends the same on both (results/rdma-odp.md)"
report rdma-odp "$pass" "$fail"
[ "$fail" -eq 0 ]
