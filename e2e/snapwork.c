// SPDX-License-Identifier: GPL-2.0
/*
 * snapwork: the nested guest of the end-to-end test (make e2e).  A
 * multiboot image that QEMU's -kernel loads and starts in 32-bit protected
 * mode.
 *
 * It writes its own address in one word of every 4 KiB page from 16 MiB
 * to the top of memory (pass 0), then reads that region in an endless
 * loop, one word per page, and checks every word.  Each access is timed
 * with rdtsc; after each pass it prints on COM1:
 *
 *   SNAPWORK pass=N tsc=T slow=S max=M hist=H0,H1,...,H22
 *
 * T: TSC cycles of the pass; S: accesses that took 2^14 cycles or more;
 * M: the slowest access in cycles; Hi: accesses of 2^(i+10) to
 * 2^(i+11)-1 cycles (H0 includes everything faster, H22 everything
 * slower).  All numbers are hexadecimal (no 64-bit division in 32-bit
 * freestanding code).  The first line is "SNAPWORK start lo=L hi=H
 * pages=P mode=M", with " write=1 zero_hi=Z" in write mode, and " spread=1"
 * in spread mode (below).
 *
 * The modes, chosen by the multiboot command line (QEMU's -append):
 *
 * flat (the default): paging off, no interrupts, so that every access goes
 * straight to guest physical memory through KVM's SPTEs and nothing else.
 *
 * paging ("-append paging"): what the shadow MMU has to get right.  32-bit
 * paging maps all memory 1:1 with 4 KiB pages (a page table for every
 * 4 MiB, all of them shadowed and write-tracked by KVM when it shadows),
 * and the PIT interrupts the loop 250 times a second.  Each timer
 * interrupt points a page table entry of its own at the next page of the
 * region, flushes it with invlpg and checks the word through it: a guest
 * page table write on every tick (KVM lets that table go unsync and syncs
 * it on invlpg).
 *
 * paging-pde ("-append paging-pde"): paging, and every 16th tick also
 * points a page directory entry of its own at the next page table of the
 * region (a write KVM must trap and emulate: page directories are always
 * write-tracked), reloads CR3 and checks a word through that alias.
 *
 * write (a second word, "-append 'paging write'"): the guest also writes
 * while it reads, and leaves memory untouched, for the THP soak.  The top
 * quarter of memory (2 MiB aligned) becomes the zero region, which pass 0
 * does not write: there, each even 2 MiB chunk is only ever read and must
 * read 0 (with THP, the host's huge zero page; pass 0 clears the first
 * word of the few pages that the firmware used, and prints how many in
 * "SNAPWORK zero_cleared=N"), and in each odd chunk pass
 * N (N >= 1) writes its address into page N-1, so that the host's huge
 * zero page is written 4 KiB at a time while the snapshot runs.  In the
 * rest, the first 256 KiB of every 2 MiB get a second word, the stamp,
 * which pass N checks holds N-1 and sets to N, so that every THP is
 * written in part on every pass; the other pages' stamps must stay 0.
 * "SNAPWORK BAD stamp va=A val=V" or "SNAPWORK BAD zero va=A val=V" report
 * a write that did not stick or a word that changed without one.
 *
 * spread (with write, "-append 'flat write spread'"): for the snapshot's
 * integrity check (e2e/run's verify), every page below the zero region
 * gets a stamp, in turn: pass N (N >= 1) sets the stamps of the pages
 * whose index from 16 MiB is N modulo 8 (SPREAD) to N, and checks that
 * every page holds the stamp of the last pass that wrote it.  So every
 * page, and every 4 KiB piece of a THP, is written once in any 8 passes,
 * and each write changes the page: a write that a snapshot missed leaves
 * the page different from the memory saved when the snapshot started.
 *
 * read64, write64, rand-set (one of them, "-append 'flat write64'"): the
 * three guest patterns of v1's table, after stress-ng's vm methods of
 * those names, one 4 KiB page at a time (faults are per page; under TCG a
 * whole page per access would only slow the guest down).  After pass 0
 * (which writes every page's address, as always), read64 reads word 0 of
 * every page in order and checks it; write64 writes the pass number into
 * word 1 of every page in order, and reads nothing; rand-set visits every
 * page once per pass in a pseudo-random order (a different one each
 * pass), checks that word 1 holds the value that the previous pass wrote
 * and writes a new pseudo-random value.  In these modes a paced
 * read-latency probe runs beside the pattern: whenever PROBE_CYCLES TSC
 * cycles have passed since the last probe, it reads word 0 of the next
 * page of its own walk through the region (a stride of 7919 pages) and
 * times that one read; each pass line then ends with " probe=I:N,..." in
 * hex, N probes in bucket I of a finer histogram (probe_bucket(): 8
 * buckets per power of two).  The first line says " pattern=P".
 *
 * Everything runs in ring 0: under TCG's
 * nested SVM, QEMU 7.2 aborts ("invalid tss type") on an interrupt from
 * ring 3 of a 32-bit guest once KVM has handed the TR back busy (as
 * svm_get_segment() reports it) through KVM_SET_SREGS, which the nested
 * QEMU does when the snapshot starts.
 *
 * Anything wrong ends in one line and a halt: "SNAPWORK BAD read va=A
 * val=V" (a word that is not its address), "SNAPWORK BAD exception=V
 * err=E eip=I cs=C cr2=A" (any CPU exception), "SNAPWORK BAD churn ..."
 * or "SNAPWORK BAD alias ..." (a bad word through the timer's mappings;
 * these may start in the middle of a pass line that the timer interrupted).
 */
typedef unsigned int u32;
typedef unsigned long long u64;

#define MB_MAGIC	0x1badb002
#define MB_FLAGS	0x00000002	/* memory info */
#define COM1		0x3f8
#define REGION_START	(16u << 20)
#define PAGE		4096u
#define HIST_SHIFT	10
#define HIST_BUCKETS	23
#define SLOW_CYCLES	(1u << 14)

__attribute__((section(".multiboot"), used, aligned(4)))
static const u32 mb_header[3] = {
	MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS)
};

struct mb_info {
	u32 flags, mem_lower, mem_upper, boot_device, cmdline;
};

unsigned char snapwork_stack[16384] __attribute__((aligned(16)));

void snapwork_main(u32 magic, struct mb_info *mbi);

__asm__(".globl _start\n"
	"_start:\n"
	"	mov $snapwork_stack + 16384, %esp\n"
	"	push %ebx\n"
	"	push %eax\n"
	"	call snapwork_main\n"
	"1:	hlt\n"
	"	jmp 1b\n");

static inline void outb(unsigned short port, unsigned char v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((u64)hi << 32) | lo;
}

static void puts(const char *s)
{
	while (*s)
		outb(COM1, *s++);
}

static void puthex(u64 v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[17];
	int i = 16;

	buf[i] = 0;
	do {
		buf[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	puts(&buf[i]);
}

static u32 hist[HIST_BUCKETS];

static unsigned int bucket(u64 d)
{
	unsigned int b;

	if (d >> 32)
		return HIST_BUCKETS - 1;
	if ((u32)d < (1u << HIST_SHIFT))
		return 0;
	b = 31 - __builtin_clz((u32)d) - HIST_SHIFT;
	return b < HIST_BUCKETS ? b : HIST_BUCKETS - 1;
}

static void halt(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

/*
 * [region_lo, region_hi): the pages that hold their own address; up to
 * mem_hi: the zero region (write mode only; mem_hi == region_hi without).
 */
static u32 region_lo, region_hi, mem_hi;
static int write_mode, spread_mode;
/* The guest pattern, if any (read64, write64, rand-set above). */
enum { PAT_NONE, PAT_READ64, PAT_WRITE64, PAT_RANDSET };
static int pattern;
/* Pages of the zero region that pass 0 found non-zero, and cleared. */
static u32 zero_cleared;

/* Set once pass 0 has written every page, for the timer's checks. */
static volatile u32 filled;
static int pde_churn;

/* "SNAPWORK BAD <what>A val=V" (what: "read va=", ...), then stop. */
static void bad_word(const char *what, u32 addr, u32 val)
{
	puts("SNAPWORK BAD ");
	puts(what);
	puthex(addr);
	puts(" val=");
	puthex(val);
	puts("\n");
	halt();
}

/* Write mode: is the page at p in the written first 256 KiB of its 2 MiB? */
static int stamped(volatile u32 *p)
{
	return (((u32)p >> 12) & 511) < 64;
}

#define SPREAD	8u

/*
 * Spread mode: the stamp of the page at p after pass N, the last pass
 * M <= N with M >= 1 and M = the page's index modulo SPREAD (0 if none).
 */
static u32 spread_stamp(volatile u32 *p, u32 pass)
{
	u32 d = (pass - (((u32)p - region_lo) >> 12)) % SPREAD;

	return pass > d ? pass - d : 0;
}

/* Write mode: check the stamp (word 1) of a page below region_hi, set it. */
static void stamp_page(volatile u32 *p, u32 pass)
{
	u32 v = p[1];

	if (spread_mode) {
		if (pass && v != spread_stamp(p, pass - 1))
			bad_word("stamp va=", (u32)&p[1], v);
		if (spread_stamp(p, pass) == pass)
			p[1] = pass;
		return;
	}
	if (!stamped(p)) {
		if (v)
			bad_word("stamp va=", (u32)&p[1], v);
		return;
	}
	if (pass && v != pass - 1)
		bad_word("stamp va=", (u32)&p[1], v);
	p[1] = pass;
}

/*
 * Write mode: a page of the zero region.  Page j of an odd 2 MiB chunk is
 * written (its address) by pass j + 1; everything else reads 0.
 */
static void zero_page(volatile u32 *p, u32 pass)
{
	u32 off = (u32)p - region_hi, j = (off >> 12) & 511;
	int odd = (off >> 21) & 1;
	u32 v = *p;

	/* What the firmware left in the first word of a page is cleared. */
	if (!pass && v) {
		*p = 0;
		zero_cleared++;
		return;
	}
	if (v != (odd && pass && j < pass - 1 ? (u32)p : 0))
		bad_word("zero va=", (u32)p, v);
	if (odd && pass && j == pass - 1)
		*p = (u32)p;
}

/*
 * The paced probe: one timed read every PROBE_CYCLES.  probe_bucket(): d
 * below 8 cycles is its own bucket; above, 8 buckets per power of two:
 * bucket 8 * (m - 2) + s holds [(8 + s) << (m - 3), (9 + s) << (m - 3)),
 * m the highest bit of d; the last one also everything from 2^32 up.
 */
#define PROBE_CYCLES	(1u << 15)
#define PROBE_BUCKETS	240
#define PROBE_STRIDE	7919u

static u32 probe_hist[PROBE_BUCKETS];
static u32 probe_page;
static u64 probe_next;

static unsigned int probe_bucket(u64 d)
{
	u32 x = (u32)d;
	unsigned int m;

	if (d >> 32)
		return PROBE_BUCKETS - 1;
	if (x < 8)
		return x;
	m = 31 - __builtin_clz(x);
	return 8 * (m - 2) + ((x >> (m - 3)) & 7);
}

/* A probe read if one is due at TSC now. */
static void probe(u64 now)
{
	u32 pages = (region_hi - region_lo) / PAGE;
	volatile u32 *p;
	u64 t0, t1;
	u32 v;

	if (now < probe_next)
		return;
	probe_page = (probe_page + PROBE_STRIDE) % pages;
	p = (volatile u32 *)(region_lo + probe_page * PAGE);
	t0 = rdtsc();
	v = *p;
	t1 = rdtsc();
	/* Pass 0 writes the words that the probe checks. */
	if (filled && v != (u32)p)
		bad_word("probe va=", (u32)p, v);
	probe_hist[probe_bucket(t1 - t0)]++;
	probe_next = t1 + PROBE_CYCLES;
}

/* rand-set: the value that pass N writes into page i (a 32-bit hash). */
static u32 randset_value(u32 i, u32 pass)
{
	u32 x = i * 0x9e3779b1u ^ (pass + 1) * 0x85ebca6bu;

	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/*
 * rand-set's order: x -> (5 x + c) mod 2^k, c odd, visits every x below
 * 2^k once (a full-period LCG); the values from the page count up are
 * skipped.  c changes with the pass, and so does the order.
 */
static u32 randset_next(u32 x, u32 mask, u32 pass)
{
	return (5 * x + 2 * pass + 1) & mask;
}

/* One page's access in a pattern mode (after pass 0): its first word. */
static u32 pattern_access(volatile u32 *p, u32 i, u32 pass)
{
	u32 v;

	switch (pattern) {
	case PAT_WRITE64:
		p[1] = pass;
		return (u32)p;
	case PAT_RANDSET:
		v = p[1];
		if (v != randset_value(i, pass - 1))
			bad_word("rand-set va=", (u32)&p[1], v);
		p[1] = randset_value(i, pass);
		return *p;
	default:
		return *p;
	}
}

/* The loop: paging off (flat), or paging on with the timer (paging). */
static void snapwork_loop(void)
{
	volatile u32 *p;
	u32 pass, slow, i, v;
	u32 pages = (region_hi - region_lo) / PAGE, mask = 1, n, x;
	u64 t0, t1, start, max;

	while (mask < pages)
		mask <<= 1;
	mask--;
	for (pass = 0; ; pass++) {
		slow = 0;
		max = 0;
		for (i = 0; i < HIST_BUCKETS; i++)
			hist[i] = 0;
		for (i = 0; i < PROBE_BUCKETS; i++)
			probe_hist[i] = 0;
		start = rdtsc();
		x = 0;
		for (n = 0, p = (volatile u32 *)region_lo; (u32)p < mem_hi; n++) {
			t0 = rdtsc();
			if ((u32)p >= region_hi) {
				zero_page(p, pass);
				v = (u32)p;
			} else if (!pass) {
				*p = (u32)p;
				if (pattern == PAT_RANDSET)
					p[1] = randset_value(x, 0);
				v = (u32)p;
			} else if (pattern) {
				v = pattern_access(p, x, pass);
			} else {
				v = *p;
			}
			if ((u32)p < region_hi && write_mode)
				stamp_page(p, pass);
			t1 = rdtsc();
			if (v != (u32)p)
				bad_word("read va=", (u32)p, v);
			t1 -= t0;
			hist[bucket(t1)]++;
			if (t1 >= SLOW_CYCLES)
				slow++;
			if (t1 > max)
				max = t1;
			if (pattern)
				probe(t0 + t1);
			if (pattern == PAT_RANDSET && pass) {
				/* The next page of this pass's order. */
				if (n + 1 == pages)
					break;
				do {
					x = randset_next(x, mask, pass);
				} while (x >= pages);
			} else {
				x++;
			}
			p = (volatile u32 *)(region_lo + x * PAGE);
		}
		filled = 1;
		t1 = rdtsc();
		if (!pass && write_mode) {
			puts("SNAPWORK zero_cleared=");
			puthex(zero_cleared);
			puts("\n");
		}
		puts("SNAPWORK pass=");
		puthex(pass);
		puts(" tsc=");
		puthex(t1 - start);
		puts(" slow=");
		puthex(slow);
		puts(" max=");
		puthex(max);
		puts(" hist=");
		for (i = 0; i < HIST_BUCKETS; i++) {
			puthex(hist[i]);
			puts(i + 1 < HIST_BUCKETS ? "," : "");
		}
		if (pattern) {
			puts(" probe=");
			for (i = 0, n = 0; i < PROBE_BUCKETS; i++) {
				if (!probe_hist[i])
					continue;
				puts(n++ ? "," : "");
				puthex(i);
				puts(":");
				puthex(probe_hist[i]);
			}
			if (!n)
				puts("-");
		}
		puts("\n");
	}
}

/* Paging mode. */
#define PTE_P		0x001u
#define PTE_RW		0x002u
#define MAX_PTS		256		/* 1 GiB of 4 KiB pages */
#define CHURN_VA	0xffc00000u	/* the last 4 MiB: churn_pt's */
#define ALIAS_VA	0xff800000u	/* the 4 MiB below: a region PT's alias */
#define KCODE		0x08
#define KDATA		0x10
#define TIMER_VEC	32
#define PIT_HZ		250

static u32 pgdir[1024] __attribute__((aligned(4096)));
static u32 pgtab[MAX_PTS][1024] __attribute__((aligned(4096)));
static u32 churn_pt[1024] __attribute__((aligned(4096)));
static u64 gdt[3];
static u64 idt[256];

struct dtr {
	unsigned short limit;
	u32 base;
} __attribute__((packed));

/* What isr_common pushes: pusha, then the stub's vector and error code. */
struct frame {
	u32 edi, esi, ebp, esp, ebx, edx, ecx, eax;
	u32 vector, err, eip, cs, eflags;
};

static u64 seg(u32 base, u32 limit, u32 access, u32 flags)
{
	return (u64)(limit & 0xffff) | (u64)(base & 0xffffff) << 16 |
	       (u64)access << 40 | (u64)((limit >> 16) & 0xf) << 48 |
	       (u64)flags << 52 | (u64)(base >> 24) << 56;
}

static u64 gate(void (*fn)(void))
{
	u32 a = (u32)fn;

	/* A 32-bit interrupt gate, DPL 0: only hardware and the CPU. */
	return (u64)(a & 0xffff) | (u64)KCODE << 16 | (u64)0x8e << 40 |
	       (u64)(a >> 16) << 48;
}

void snapwork_exception(struct frame *f);
void snapwork_timer(void);

/* Stubs of the 32 exception vectors, with or without a CPU error code. */
#define STUB(n, code)	"isr" #n ": " code "push $" #n "; jmp isr_common\n"
#define NOERR(n)	STUB(n, "push $0; ")
#define ERR(n)		STUB(n, "")
__asm__(".text\n"
	NOERR(0) NOERR(1) NOERR(2) NOERR(3) NOERR(4) NOERR(5) NOERR(6)
	NOERR(7) ERR(8) NOERR(9) ERR(10) ERR(11) ERR(12) ERR(13) ERR(14)
	NOERR(15) NOERR(16) ERR(17) NOERR(18) NOERR(19) NOERR(20) ERR(21)
	NOERR(22) NOERR(23) NOERR(24) NOERR(25) NOERR(26) NOERR(27)
	NOERR(28) ERR(29) ERR(30) NOERR(31)
	"isr_common:\n"
	"	pusha\n"
	"	push %esp\n"
	"	call snapwork_exception\n"
	"isr_timer:\n"
	"	pusha\n"
	"	cld\n"
	"	call snapwork_timer\n"
	"	popa\n"
	"	iret\n");

#define DECL(n)	void isr##n(void);
DECL(0) DECL(1) DECL(2) DECL(3) DECL(4) DECL(5) DECL(6) DECL(7) DECL(8)
DECL(9) DECL(10) DECL(11) DECL(12) DECL(13) DECL(14) DECL(15) DECL(16)
DECL(17) DECL(18) DECL(19) DECL(20) DECL(21) DECL(22) DECL(23) DECL(24)
DECL(25) DECL(26) DECL(27) DECL(28) DECL(29) DECL(30) DECL(31)
void isr_timer(void);

static void (*const exception_stubs[32])(void) = {
	isr0, isr1, isr2, isr3, isr4, isr5, isr6, isr7, isr8, isr9, isr10,
	isr11, isr12, isr13, isr14, isr15, isr16, isr17, isr18, isr19, isr20,
	isr21, isr22, isr23, isr24, isr25, isr26, isr27, isr28, isr29, isr30,
	isr31,
};

void snapwork_exception(struct frame *f)
{
	u32 cr2;

	__asm__ volatile("mov %%cr2, %0" : "=r"(cr2));
	puts("SNAPWORK BAD exception=");
	puthex(f->vector);
	puts(" err=");
	puthex(f->err);
	puts(" eip=");
	puthex(f->eip);
	puts(" cs=");
	puthex(f->cs);
	puts(" cr2=");
	puthex(cr2);
	puts("\n");
	halt();
}

static u32 ticks;

void snapwork_timer(void)
{
	u32 pages = (region_hi - region_lo) / PAGE;
	u32 t = ticks++, pa = region_lo + t * 7919u % pages * PAGE;
	u32 v, pt, apa, lo_pt = region_lo >> 22;
	u32 nr_pts = ((region_hi - 1) >> 22) - lo_pt + 1;

	if (pde_churn && !(t & 15)) {
		/* Page table pt, with its 1024 pages, seen at ALIAS_VA. */
		pt = lo_pt + (t >> 4) % nr_pts;
		pgdir[ALIAS_VA >> 22] = (u32)pgtab[pt] | PTE_P | PTE_RW;
		__asm__ volatile("mov %%cr3, %%eax; mov %%eax, %%cr3" : : : "eax", "memory");
		apa = (pt << 22) + (t >> 4) % 1024 * PAGE;
		if (apa >= region_lo && apa < region_hi) {
			v = *(volatile u32 *)(ALIAS_VA + (apa & ((4u << 20) - 1)));
			if (filled && v != apa)
				bad_word("alias pa=", apa, v);
		}
	}
	churn_pt[0] = pa | PTE_P | PTE_RW;
	__asm__ volatile("invlpg (%0)" : : "r"(CHURN_VA) : "memory");
	v = *(volatile u32 *)CHURN_VA;
	if (filled && v != pa)
		bad_word("churn pa=", pa, v);
	outb(0x20, 0x20);	/* EOI */
}

static void paging_setup(void)
{
	struct dtr gdtr = { sizeof(gdt) - 1, (u32)gdt };
	struct dtr idtr = { sizeof(idt) - 1, (u32)idt };
	u32 a, i, n = (mem_hi + (4u << 20) - 1) >> 22;

	/* Flat code and data segments (multiboot leaves no GDT of ours). */
	gdt[0] = 0;
	gdt[1] = seg(0, 0xfffff, 0x9a, 0xc);
	gdt[2] = seg(0, 0xfffff, 0x92, 0xc);
	__asm__ volatile("lgdt %0\n"
			 "ljmp %1, $1f\n"
			 "1:	mov %2, %%ds; mov %2, %%es; mov %2, %%ss\n"
			 "	mov %2, %%fs; mov %2, %%gs"
			 : : "m"(gdtr), "i"(KCODE), "r"(KDATA) : "memory");

	for (i = 0; i < 32; i++)
		idt[i] = gate(exception_stubs[i]);
	idt[TIMER_VEC] = gate(isr_timer);
	__asm__ volatile("lidt %0" : : "m"(idtr));

	/* 1:1, 4 KiB pages, writable; the churn page apart. */
	for (i = 0; i < 1024; i++)
		pgdir[i] = 0;
	for (a = 0; a < n << 22; a += PAGE)
		pgtab[a >> 22][(a >> 12) & 1023] = a < mem_hi ?
			a | PTE_P | PTE_RW : 0;
	for (i = 0; i < n; i++)
		pgdir[i] = (u32)pgtab[i] | PTE_P | PTE_RW;
	for (i = 0; i < 1024; i++)
		churn_pt[i] = 0;
	churn_pt[0] = region_lo | PTE_P | PTE_RW;
	pgdir[CHURN_VA >> 22] = (u32)churn_pt | PTE_P | PTE_RW;
	__asm__ volatile("mov %0, %%cr3\n"
			 "mov %%cr0, %%eax\n"
			 "or $0x80010000, %%eax\n"	/* PG, WP */
			 "mov %%eax, %%cr0"
			 : : "r"(pgdir) : "eax", "memory");

	/* The PICs at 32 and 40, only IRQ 0 unmasked; the PIT at 250 Hz. */
	outb(0x20, 0x11);
	outb(0xa0, 0x11);
	outb(0x21, TIMER_VEC);
	outb(0xa1, TIMER_VEC + 8);
	outb(0x21, 4);
	outb(0xa1, 2);
	outb(0x21, 1);
	outb(0xa1, 1);
	outb(0x21, 0xfe);
	outb(0xa1, 0xff);
	outb(0x43, 0x34);
	outb(0x40, (1193182 / PIT_HZ) & 0xff);
	outb(0x40, (1193182 / PIT_HZ) >> 8);
}

static int has_word(const char *s, const char *w)
{
	const char *a, *b;

	for (; *s; s++) {
		for (a = s, b = w; *b && *a == *b; a++, b++)
			;
		if (!*b && (!*a || *a == ' '))
			return 1;
	}
	return 0;
}

void snapwork_main(u32 magic, struct mb_info *mbi)
{
	int paging;

	if (magic != 0x2badb002 || !(mbi->flags & 1)) {
		puts("SNAPWORK error=no-multiboot-memory-info\n");
		return;
	}
	if (mbi->flags & 4) {
		pde_churn = has_word((const char *)mbi->cmdline, "paging-pde");
		paging = pde_churn || has_word((const char *)mbi->cmdline, "paging");
		write_mode = has_word((const char *)mbi->cmdline, "write");
		spread_mode = write_mode &&
			has_word((const char *)mbi->cmdline, "spread");
		if (has_word((const char *)mbi->cmdline, "read64"))
			pattern = PAT_READ64;
		else if (has_word((const char *)mbi->cmdline, "write64"))
			pattern = PAT_WRITE64;
		else if (has_word((const char *)mbi->cmdline, "rand-set"))
			pattern = PAT_RANDSET;
	} else {
		paging = 0;
	}
	region_lo = REGION_START;
	mem_hi = (1u << 20) + mbi->mem_upper * 1024u;
	mem_hi &= ~(PAGE - 1);
	if (mem_hi > (u32)MAX_PTS << 22)
		mem_hi = (u32)MAX_PTS << 22;
	region_hi = mem_hi;
	if (write_mode)
		region_hi = (region_lo + (mem_hi - region_lo) / 4 * 3) & ~((2u << 20) - 1);
	puts("SNAPWORK start lo=");
	puthex(region_lo);
	puts(" hi=");
	puthex(region_hi);
	puts(" pages=");
	puthex((region_hi - region_lo) / PAGE);
	puts(pde_churn ? " mode=paging-pde" : paging ? " mode=paging" : " mode=flat");
	if (write_mode) {
		puts(" write=1 zero_hi=");
		puthex(mem_hi);
		if (spread_mode)
			puts(" spread=1");
	}
	if (pattern)
		puts(pattern == PAT_READ64 ? " pattern=read64" :
		     pattern == PAT_WRITE64 ? " pattern=write64" : " pattern=rand-set");
	puts("\n");
	if (pattern && write_mode) {
		puts("SNAPWORK error=a-pattern-and-write-mode\n");
		return;
	}
	if (!paging) {
		snapwork_loop();
		return;
	}
	paging_setup();
	__asm__ volatile("sti");
	snapwork_loop();
}
