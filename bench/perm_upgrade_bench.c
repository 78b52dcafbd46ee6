// SPDX-License-Identifier: GPL-2.0-only
/*
 * perm_upgrade_bench: what a pure permission upgrade of guest memory costs
 * a running KVM guest.  A harness program built against the KVM selftest
 * library of the kernel tree (see bench/kvm.mk), not part of the series:
 * the same static binary runs on the base and on the patched kernel.
 *
 * For each backing (anonymous 4KiB, THP, hugetlb) the guest writes its
 * region (writable SPTEs), the host narrows access, the guest reads the
 * region (read-only SPTEs), the host widens access again and the guest
 * re-reads the region.  Scenarios:
 *
 *   mprotect  mprotect() RW -> R, guest read, R -> RW, guest re-read
 *   uffd-wp   UFFDIO_WRITEPROTECT of the region, guest read, one resolve
 *             (mode 0) of the whole region, guest re-read
 *   snapshot  like QEMU's background snapshot: write-protect the region,
 *             guest read, then resolve it one host page at a time (4KiB for
 *             anonymous and THP memory, as QEMU does, 2MiB for hugetlb); the
 *             guest reads the whole region after each batch of resolves
 *
 * Measured around the upgrade call(s) (mprotect / UFFDIO_WRITEPROTECT):
 * host time (CLOCK_MONOTONIC), leaf SPTEs dropped (pages_4k + pages_2m VM
 * stats), remote_tlb_flush and remote_tlb_flush_requests; around the guest
 * re-read pass(es): host time of KVM_RUN, pf_taken and pf_fixed.
 *
 * Output, for each scenario, backing and repetition (a fresh VM each), two
 * lines, phase=downgrade (what narrowing did, for reference) and
 * phase=upgrade (the measurement):
 *   BENCH scenario=S backing=B paging=tdp|shadow ... rep=N phase=P key=value ...
 * "BENCH-SKIP scenario=S backing=B paging=P reason=R" for what can't run,
 * "BENCH-INFO ..." first and "BENCH-DONE" last.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/sizes.h>
#include <linux/userfaultfd.h>

#include "kvm_util.h"
#include "processor.h"
#include "test_util.h"
#include "ucall_common.h"

#define BENCH_SLOT	1
#define BENCH_GPA	((u64)SZ_1G)
#define BENCH_GVA	BENCH_GPA

enum { OP_READ, OP_WRITE };

/* Written by the host before each KVM_RUN. */
static u64 guest_op;
static u64 guest_nr_pages;

static void guest_code(void)
{
	u64 i, op;

	for (;;) {
		op = READ_ONCE(guest_op);
		if (op == OP_READ)
			for (i = 0; i < guest_nr_pages; i++)
				(void)READ_ONCE(*(u64 *)(BENCH_GVA + i * PAGE_SIZE));
		else
			for (i = 0; i < guest_nr_pages; i++)
				WRITE_ONCE(*(u64 *)(BENCH_GVA + i * PAGE_SIZE), i);
		GUEST_SYNC(op);
	}
}

enum scenario { SC_MPROTECT, SC_UFFD_WP, SC_SNAPSHOT, NR_SCENARIOS };

static const char * const scenario_names[] = {
	[SC_MPROTECT] = "mprotect",
	[SC_UFFD_WP] = "uffd-wp",
	[SC_SNAPSHOT] = "snapshot",
};

struct bench {
	enum scenario sc;
	const char *backing;
	enum vm_mem_backing_src_type src;
	bool huge;

	struct kvm_vm *vm;
	struct kvm_vcpu *vcpu;
	u8 *hva;
	u64 size;
	u64 nr_pages;	/* 4KiB guest pages */
	u64 unit;	/* bytes per resolve in the snapshot scenario */
	int uffd;
};

struct stats {
	u64 pf_taken, pf_fixed, p4k, p2m, flush, flush_req;
};

static const char *paging;
static int nr_batches = 8;

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void get_stats(struct bench *b, struct stats *s)
{
	s->pf_taken = vcpu_get_stat(b->vcpu, pf_taken);
	s->pf_fixed = vcpu_get_stat(b->vcpu, pf_fixed);
	s->p4k = vm_get_stat(b->vm, pages_4k);
	s->p2m = vm_get_stat(b->vm, pages_2m);
	s->flush = vm_get_stat(b->vm, remote_tlb_flush);
	s->flush_req = vm_get_stat(b->vm, remote_tlb_flush_requests);
}

/* Leaf SPTEs that went away between two snapshots of the stats. */
static u64 dropped(const struct stats *before, const struct stats *after)
{
	return (after->p4k < before->p4k ? before->p4k - after->p4k : 0) +
	       (after->p2m < before->p2m ? before->p2m - after->p2m : 0);
}

/* One guest pass over the region; returns the host time of KVM_RUN. */
static u64 guest_pass(struct bench *b, u64 op)
{
	struct ucall uc;
	u64 t0, t1;

	guest_op = op;
	sync_global_to_guest(b->vm, guest_op);
	t0 = now_ns();
	vcpu_run(b->vcpu);
	t1 = now_ns();

	switch (get_ucall(b->vcpu, &uc)) {
	case UCALL_SYNC:
		TEST_ASSERT(uc.args[1] == op, "Guest synced op %lu, expected %lu",
			    uc.args[1], op);
		break;
	case UCALL_ABORT:
		REPORT_GUEST_ASSERT(uc);
		break;
	default:
		TEST_FAIL("Unexpected exit: %s",
			  exit_reason_str(b->vcpu->run->exit_reason));
	}
	return t1 - t0;
}

static void uffd_wp(struct bench *b, u64 start, u64 len, u64 mode)
{
	struct uffdio_writeprotect wp = {
		.range.start = start,
		.range.len = len,
		.mode = mode,
	};

	TEST_ASSERT(!ioctl(b->uffd, UFFDIO_WRITEPROTECT, &wp),
		    "UFFDIO_WRITEPROTECT(0x%lx+0x%lx, mode 0x%lx) failed, errno %d",
		    start, len, mode, errno);
}

static const char *uffd_setup(struct bench *b)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range.start = (u64)b->hva,
		.range.len = b->size,
		.mode = UFFDIO_REGISTER_MODE_WP,
	};

	b->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (b->uffd < 0)
		return "no-userfaultfd";
	TEST_ASSERT(!ioctl(b->uffd, UFFDIO_API, &api), "UFFDIO_API failed");
	if (ioctl(b->uffd, UFFDIO_REGISTER, &reg) ||
	    !(reg.ioctls & (1ULL << _UFFDIO_WRITEPROTECT)))
		return "no-uffd-wp";
	return NULL;
}

static void narrow(struct bench *b)
{
	if (b->sc == SC_MPROTECT)
		TEST_ASSERT(!mprotect(b->hva, b->size, PROT_READ),
			    "mprotect(PROT_READ) failed, errno %d", errno);
	else
		uffd_wp(b, (u64)b->hva, b->size, UFFDIO_WRITEPROTECT_MODE_WP);
}

static void widen(struct bench *b)
{
	if (b->sc == SC_MPROTECT)
		TEST_ASSERT(!mprotect(b->hva, b->size, PROT_READ | PROT_WRITE),
			    "mprotect(PROT_READ | PROT_WRITE) failed, errno %d", errno);
	else
		uffd_wp(b, (u64)b->hva, b->size, 0);
}

static void print_result(struct bench *b, int rep, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void print_result(struct bench *b, int rep, const char *fmt, ...)
{
	va_list ap;

	printf("BENCH scenario=%s backing=%s paging=%s size_mb=%lu pages=%lu rep=%d ",
	       scenario_names[b->sc], b->backing, paging, b->size >> 20,
	       b->nr_pages, rep);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void skip(struct bench *b, const char *reason)
{
	printf("BENCH-SKIP scenario=%s backing=%s paging=%s reason=%s\n",
	       scenario_names[b->sc], b->backing, paging, reason);
	fflush(stdout);
}

/* One measurement: the region starts mapped writable in KVM. */
static void run_rep(struct bench *b, int rep)
{
	struct stats s0, s1, s2, s3;
	u64 warm_ns, down_ns, ro_pf, t0, t1;
	u64 up_ns = 0, pass_ns = 0, zapped = 0, z4k = 0, z2m = 0;
	u64 flush = 0, flush_req = 0, calls = 0, passes = 0;
	u64 pf_taken = 0, pf_fixed = 0, warm_pf;
	u64 nr_units, per_batch, u, done;

	get_stats(b, &s0);
	warm_ns = guest_pass(b, OP_READ);
	get_stats(b, &s1);
	warm_pf = s1.pf_taken - s0.pf_taken;

	/* Downgrade: zaps on both kernels. */
	t0 = now_ns();
	narrow(b);
	down_ns = now_ns() - t0;
	get_stats(b, &s2);
	/* The guest keeps reading: read-only SPTEs. */
	guest_pass(b, OP_READ);
	get_stats(b, &s3);
	ro_pf = s3.pf_taken - s2.pf_taken;
	print_result(b, rep, "phase=downgrade down_ns=%lu down_zapped=%lu ro_pf=%lu warm_ns=%lu warm_pf=%lu",
		     down_ns, dropped(&s1, &s2), ro_pf, warm_ns, warm_pf);

	if (b->sc != SC_SNAPSHOT) {
		get_stats(b, &s0);
		t0 = now_ns();
		widen(b);
		t1 = now_ns();
		get_stats(b, &s1);
		pass_ns = guest_pass(b, OP_READ);
		get_stats(b, &s2);

		calls = 1;
		passes = 1;
		up_ns = t1 - t0;
		z4k = s0.p4k > s1.p4k ? s0.p4k - s1.p4k : 0;
		z2m = s0.p2m > s1.p2m ? s0.p2m - s1.p2m : 0;
		flush = s1.flush - s0.flush;
		flush_req = s1.flush_req - s0.flush_req;
		pf_taken = s2.pf_taken - s1.pf_taken;
		pf_fixed = s2.pf_fixed - s1.pf_fixed;
	} else {
		nr_units = b->size / b->unit;
		per_batch = (nr_units + nr_batches - 1) / nr_batches;
		for (done = 0; done < nr_units; done += per_batch) {
			get_stats(b, &s0);
			for (u = done; u < done + per_batch && u < nr_units; u++) {
				t0 = now_ns();
				uffd_wp(b, (u64)b->hva + u * b->unit, b->unit, 0);
				up_ns += now_ns() - t0;
				calls++;
			}
			get_stats(b, &s1);
			pass_ns += guest_pass(b, OP_READ);
			get_stats(b, &s2);
			passes++;

			z4k += s0.p4k > s1.p4k ? s0.p4k - s1.p4k : 0;
			z2m += s0.p2m > s1.p2m ? s0.p2m - s1.p2m : 0;
			flush += s1.flush - s0.flush;
			flush_req += s1.flush_req - s0.flush_req;
			pf_taken += s2.pf_taken - s1.pf_taken;
			pf_fixed += s2.pf_fixed - s1.pf_fixed;
		}
	}
	zapped = z4k + z2m;

	print_result(b, rep, "phase=upgrade unit_kb=%lu calls=%lu passes=%lu upgrade_ns=%lu zapped=%lu zapped_4k=%lu zapped_2m=%lu tlb_flush=%lu tlb_flush_req=%lu pf_taken=%lu pf_fixed=%lu pass_ns=%lu",
		     b->sc == SC_SNAPSHOT ? b->unit >> 10 : b->size >> 10,
		     calls, passes, up_ns, zapped, z4k, z2m, flush, flush_req,
		     pf_taken, pf_fixed, pass_ns);
}

/*
 * A fresh VM for each repetition: resolving 4KiB of a THP splits it, so a
 * second round in the same VM would no longer measure THP.
 */
static void run_bench(struct bench *b, u64 size, int rep)
{
	struct stats s0, s1;
	const char *why;
	u64 nr_sptes;

	b->size = size;
	b->nr_pages = size / PAGE_SIZE;
	b->uffd = -1;
	/* QEMU resolves host pages: 4KiB even on THP, 2MiB on hugetlb. */
	b->unit = b->src == VM_MEM_SRC_ANONYMOUS_HUGETLB ? PG_SIZE_2M : PAGE_SIZE;
	nr_sptes = b->huge ? size / PG_SIZE_2M : b->nr_pages;

	b->vm = __vm_create_with_one_vcpu(&b->vcpu, b->nr_pages / 512 + 16,
					  guest_code);
	vm_userspace_mem_region_add(b->vm, b->src, BENCH_GPA, BENCH_SLOT,
				    b->nr_pages, 0);
	if (b->huge)
		virt_map_level(b->vm, BENCH_GVA, BENCH_GPA, size, PG_LEVEL_2M);
	else
		virt_map(b->vm, BENCH_GVA, BENCH_GPA, b->nr_pages);
	b->hva = addr_gpa2hva(b->vm, BENCH_GPA);

	if (b->sc != SC_MPROTECT) {
		why = uffd_setup(b);
		if (why) {
			skip(b, why);
			goto out;
		}
	}

	/* Fault in code, stack and data first, then the region, writable. */
	guest_nr_pages = 0;
	sync_global_to_guest(b->vm, guest_nr_pages);
	guest_pass(b, OP_READ);
	guest_pass(b, OP_WRITE);
	guest_nr_pages = b->nr_pages;
	sync_global_to_guest(b->vm, guest_nr_pages);

	get_stats(b, &s0);
	guest_pass(b, OP_WRITE);
	get_stats(b, &s1);
	if (b->huge && s1.p2m - s0.p2m != nr_sptes) {
		skip(b, "no-2M-sptes");
		goto out;
	}

	run_rep(b, rep);
out:
	if (b->uffd >= 0)
		close(b->uffd);
	kvm_vm_free(b->vm);
}

static bool hugetlb_available(u64 size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (p == MAP_FAILED)
		return false;
	munmap(p, size);
	return get_def_hugetlb_pagesz() == PG_SIZE_2M;
}

static void help(const char *name)
{
	printf("usage: %s [-s size_mb] [-r reps] [-b batches] [-S scenario]\n", name);
	printf(" -s: guest region in MiB, a multiple of 2 (default 32)\n");
	printf(" -r: repetitions of each measurement (default 3)\n");
	printf(" -b: snapshot scenario: guest passes over the resolves (default 8)\n");
	printf(" -S: run only this scenario (mprotect, uffd-wp, snapshot)\n");
	exit(KSFT_SKIP);
}

int main(int argc, char *argv[])
{
	static const struct {
		const char *name;
		enum vm_mem_backing_src_type src;
	} backings[] = {
		{ "anon-4k", VM_MEM_SRC_ANONYMOUS },
		{ "thp", VM_MEM_SRC_ANONYMOUS_THP },
		{ "hugetlb", VM_MEM_SRC_ANONYMOUS_HUGETLB },
	};
	const char *only = NULL;
	u64 size = 32ULL << 20;
	struct utsname un;
	int reps = 3, i, sc, rep, opt;

	while ((opt = getopt(argc, argv, "hs:r:b:S:")) != -1) {
		switch (opt) {
		case 's':
			size = (u64)atoi_positive("Region size", optarg) << 20;
			break;
		case 'r':
			reps = atoi_positive("Repetitions", optarg);
			break;
		case 'b':
			nr_batches = atoi_positive("Batches", optarg);
			break;
		case 'S':
			only = optarg;
			break;
		default:
			help(argv[0]);
		}
	}
	TEST_ASSERT(!(size % PG_SIZE_2M), "Size must be a multiple of 2MiB");

	uname(&un);
	paging = kvm_is_tdp_enabled() ? "tdp" : "shadow";
	printf("BENCH-INFO kernel=%s paging=%s size_mb=%lu reps=%d batches=%d\n",
	       un.release, paging, size >> 20, reps, nr_batches);

	for (sc = 0; sc < NR_SCENARIOS; sc++) {
		if (only && strcmp(only, scenario_names[sc]))
			continue;
		for (i = 0; i < ARRAY_SIZE(backings); i++) {
			struct bench b = {
				.sc = sc,
				.backing = backings[i].name,
				.src = backings[i].src,
				.huge = backings[i].src != VM_MEM_SRC_ANONYMOUS,
			};

			if (b.src == VM_MEM_SRC_ANONYMOUS_THP &&
			    !(thp_configured() && get_trans_hugepagesz() == PG_SIZE_2M))
				skip(&b, "no-thp");
			else if (b.src == VM_MEM_SRC_ANONYMOUS_HUGETLB &&
				 !hugetlb_available(size))
				skip(&b, "no-hugetlb");
			else
				for (rep = 0; rep < reps; rep++)
					run_bench(&b, size, rep);
		}
	}
	printf("BENCH-DONE\n");
	return 0;
}
