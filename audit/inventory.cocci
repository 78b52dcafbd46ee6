// SPDX-License-Identifier: GPL-2.0-only
///
/// The harness's inventory (make audit) of the producers and consumers of
/// mmu_notifier range flags and of the users of struct kvm_gfn_range.  The
/// series' own scripts/coccinelle/api/mmu_notifier_range.cocci reports
/// problems only; this lists every site, each with a verdict, for the cover
/// letter and for harness.py audit.
///
/// - every mmu_notifier_range_init*() call, with its event and flags, and
///   whether the flags can carry the upgrade information.  A protection
///   change that passes constant flags claims no upgrade, which is safe
///   (consumers zap); constant flags that claim an upgrade are not, and
///   neither is a change_protection() walk (a function with cp_flags) whose
///   flags carry no upgrade information;
/// - every invalidate_range_start() and mmu_interval_notifier invalidate()
///   callback, with whether it reads range->event or the range flags, or
///   hands the range on; testing the upgrade or protection bits of
///   range->flags directly, instead of through
///   mmu_notifier_range_perm_upgrade(), mmu_notifier_range_wrprotect() and
///   mmu_notifier_range_new_prot(), ignores the event and fails;
/// - every struct kvm_gfn_range variable: it must have an initialiser, be
///   assigned or memset() as a whole, or have mn_event and mn_flags set,
///   before it is handed on.
///
/// Each finding is one line of space-separated key=value fields; the ones
/// that need fixing have a verdict starting with FAIL.
///
// Options: --no-includes --include-headers
//

virtual report
virtual org
virtual context

@initialize:python@
@@
import re

# Per file: functions whose body computes the upgrade flag, notifier
# callbacks and what they do with the range, builders that assign a whole
# struct kvm_gfn_range through a pointer, initialisations in a
# change_protection() walk, and kvm_gfn_range variables used before they are
# zeroed.
upgrade_helpers = set()
owner_calls = set()
consumers = set()
consumer_uses = {}
gfn_out_builders = set()
cp_scope = set()
gfn_first_use = {}
gfn_zeroed_by = {}
gfn_fields_set = {}

# Flags made of nothing but integer constants and macro names.
literal_re = re.compile(r'^[\sA-Z0-9_|()~<>+]*$')
upgrade_re = re.compile(r'\b(mm_cp_mmu_notifier_flags|MMU_NOTIFIER_RANGE_PERM_UPGRADE)\b')
prot_events = ('MMU_NOTIFY_PROTECTION_VMA', 'MMU_NOTIFY_PROTECTION_PAGE')

def squash(s):
	return ''.join(s.split())

def key(p):
	return (p[0].file, p[0].line)

def init_msg(p, ev, fl):
	fn = 'mmu_notifier_range_init'
	if key(p) in owner_calls:
		fn += '_owner'
	ev = squash(ev)
	fl = squash(fl)
	literal = literal_re.match(fl) is not None
	if upgrade_re.search(fl):
		info, how = 'yes', 'direct'
	elif any(re.search(r'\b%s\(' % re.escape(h), fl)
		 for f, h in upgrade_helpers if f == p[0].file):
		info, how = 'yes', 'helper'
	elif literal:
		info, how = 'no', 'literal'
	else:
		info, how = 'unknown', 'expr'
	if ev in prot_events:
		if literal and 'MMU_NOTIFIER_RANGE_PERM_UPGRADE' in fl:
			verdict = 'FAIL:hard-coded-upgrade'
		elif info == 'yes':
			verdict = 'ok'
		elif key(p) in cp_scope:
			verdict = 'FAIL:cp-walk-without-upgrade-info'
		elif literal:
			verdict = 'conservative'
		else:
			verdict = 'unknown'
	elif re.match(r'^MMU_NOTIFY_[A-Z_]+$', ev):
		verdict = 'n/a'
		if literal and 'MMU_NOTIFIER_RANGE_PERM_UPGRADE' in fl:
			verdict = 'FAIL:upgrade-on-%s' % ev
	else:
		verdict = 'unknown'
	return ('%s: event=%s flags=%s upgrade-info=%s flags-kind=%s verdict=%s' %
		(fn, ev, fl, info, how, verdict))

def consumer_msg(kind, p, fn, ops):
	u = consumer_uses.get((p[0].file, fn))
	if u is None:
		return ('%s: fn=%s ops=%s def=elsewhere reads-event=? reads-flags=? forwards-range=? verdict=unknown' %
			(kind, fn, ops))
	verdict = 'FAIL:tests-flag-bits-directly' if 'direct' in u else 'ok'
	return ('%s: fn=%s ops=%s def=%s reads-event=%s reads-flags=%s forwards-range=%s verdict=%s' %
		(kind, fn, ops, u['def'],
		 'yes' if 'event' in u else 'no',
		 'yes' if 'flags' in u else 'no',
		 'yes' if 'forward' in u else 'no', verdict))

def consumer_use(p, what):
	fn = p[0].current_element
	u = consumer_uses.setdefault((p[0].file, fn), {'def': p[0].line})
	if what:
		u[what] = True

def gfn_decl_msg(p, r):
	k = key(p)
	if k in gfn_first_use:
		use = int(gfn_first_use[k])
		set_ = gfn_fields_set.get(k, {})
		if all(int(set_.get(f, use)) < use for f in ('mn_event', 'mn_flags')):
			return ('kvm_gfn_range: var=%s init=none zeroed=no set=mn_event,mn_flags verdict=ok' % r)
		return ('kvm_gfn_range: var=%s init=none zeroed=no first-use=%s verdict=FAIL:not-initialised' %
			(r, gfn_first_use[k]))
	how = gfn_zeroed_by.get(k, 'unused')
	return ('kvm_gfn_range: var=%s init=none zeroed=%s verdict=ok' %
		(r, 'yes:' + how if how != 'unused' else 'unused'))

def gfn_init_msg(r, i):
	i = squash(i)
	kind = 'braces' if i.startswith('{') else 'expression:' + i
	return 'kvm_gfn_range: var=%s init=%s zeroed=yes verdict=ok' % (r, kind)

// -------------------------------------------------------------------------
// a. Producers: mmu_notifier_range_init*() calls.
// -------------------------------------------------------------------------

@upgrade_helper@
identifier h;
position ph;
@@

h@ph(...)
{
  <+...
(
  mm_cp_mmu_notifier_flags(...)
|
  MMU_NOTIFIER_RANGE_PERM_UPGRADE
)
  ...+>
}

@script:python@
h << upgrade_helper.h;
ph << upgrade_helper.ph;
@@

upgrade_helpers.add((ph[0].file, h))

@init@
expression R, EV, FL;
position p;
@@

(
mmu_notifier_range_init@p(R, EV, FL, ...)
|
mmu_notifier_range_init_owner@p(R, EV, FL, ...)
)

@init_owner@
position p;
@@

mmu_notifier_range_init_owner@p(...)

@script:python@
p << init_owner.p;
@@

owner_calls.add(key(p))

// A change_protection() walk knows MM_CP_PERM_UPGRADE from its cp_flags.
@init_cp@
identifier fn, cpf = {cp_flags};
type T;
position p;
@@

fn(..., T cpf, ...)
{
  <+...
(
  mmu_notifier_range_init@p(...)
|
  mmu_notifier_range_init_owner@p(...)
)
  ...+>
}

@script:python@
p << init_cp.p;
@@

cp_scope.add(key(p))

@script:python depends on report@
ev << init.EV;
fl << init.FL;
p << init.p;
@@

coccilib.report.print_report(p[0], init_msg(p, ev, fl))

@script:python depends on org@
ev << init.EV;
fl << init.FL;
p << init.p;
@@

coccilib.org.print_todo(p[0], init_msg(p, ev, fl))

@ctx_init depends on context@
identifier initfn = {mmu_notifier_range_init, mmu_notifier_range_init_owner};
expression R, FL;
@@

* initfn(R, \(MMU_NOTIFY_PROTECTION_VMA\|MMU_NOTIFY_PROTECTION_PAGE\), FL, ...)

// -------------------------------------------------------------------------
// b. Consumers: invalidate_range_start() and interval invalidate().
// -------------------------------------------------------------------------

@mn_ops@
identifier ops, fn;
position p;
@@

struct mmu_notifier_ops ops = {
  .invalidate_range_start = fn@p,
};

@mi_ops@
identifier ops, fn;
position p;
@@

struct mmu_interval_notifier_ops ops = {
  .invalidate = fn@p,
};

@script:python@
fn << mn_ops.fn;
@@

consumers.add(fn)

@script:python@
fn << mi_ops.fn;
@@

consumers.add(fn)

@cons_def depends on mn_ops || mi_ops@
identifier cfn : script:python () { cfn in consumers };
identifier r;
position pd;
@@

cfn@pd(..., const struct mmu_notifier_range *r, ...)
{
  ...
}

@script:python@
pd << cons_def.pd;
@@

consumer_use(pd, None)

@cons_event depends on mn_ops || mi_ops@
identifier cfn : script:python () { cfn in consumers };
identifier r;
position pd;
@@

cfn@pd(..., const struct mmu_notifier_range *r, ...)
{
  <+... r->event ...+>
}

@script:python@
pd << cons_event.pd;
@@

consumer_use(pd, 'event')

@cons_flags depends on mn_ops || mi_ops@
identifier cfn : script:python () { cfn in consumers };
identifier r;
position pd;
@@

cfn@pd(..., const struct mmu_notifier_range *r, ...)
{
  <+...
(
  r->flags
|
  mmu_notifier_range_perm_upgrade(r)
|
  mmu_notifier_range_wrprotect(r)
|
  mmu_notifier_range_new_prot(r)
)
  ...+>
}

@script:python@
pd << cons_flags.pd;
@@

consumer_use(pd, 'flags')

@cons_direct depends on mn_ops || mi_ops@
identifier cfn : script:python () { cfn in consumers };
identifier r;
position pd;
@@

cfn@pd(..., const struct mmu_notifier_range *r, ...)
{
  <+...
  r->flags & \(MMU_NOTIFIER_RANGE_PERM_UPGRADE\|MMU_NOTIFIER_RANGE_WRPROTECT\|MMU_NOTIFIER_RANGE_HAS_PROT\|MMU_NOTIFIER_RANGE_PROT_READ\|MMU_NOTIFIER_RANGE_PROT_WRITE\|MMU_NOTIFIER_RANGE_PROT_EXEC\|MMU_NOTIFIER_RANGE_PROT_MASK\)
  ...+>
}

@script:python@
pd << cons_direct.pd;
@@

consumer_use(pd, 'direct')

@cons_forward depends on mn_ops || mi_ops@
identifier cfn : script:python () { cfn in consumers };
identifier r;
identifier g != {mmu_notifier_range_blockable, mmu_notifier_range_perm_upgrade,
		 mmu_notifier_range_wrprotect, mmu_notifier_range_new_prot};
position pd;
@@

cfn@pd(..., const struct mmu_notifier_range *r, ...)
{
  <+... g(..., r, ...) ...+>
}

@script:python@
pd << cons_forward.pd;
@@

consumer_use(pd, 'forward')

@script:python depends on report@
fn << mn_ops.fn;
ops << mn_ops.ops;
p << mn_ops.p;
@@

coccilib.report.print_report(p[0],
	consumer_msg('invalidate_range_start', p, fn, ops))

@script:python depends on org@
fn << mn_ops.fn;
ops << mn_ops.ops;
p << mn_ops.p;
@@

coccilib.org.print_todo(p[0],
	consumer_msg('invalidate_range_start', p, fn, ops))

@script:python depends on report@
fn << mi_ops.fn;
ops << mi_ops.ops;
p << mi_ops.p;
@@

coccilib.report.print_report(p[0], consumer_msg('invalidate', p, fn, ops))

@script:python depends on org@
fn << mi_ops.fn;
ops << mi_ops.ops;
p << mi_ops.p;
@@

coccilib.org.print_todo(p[0], consumer_msg('invalidate', p, fn, ops))

@ctx_cons depends on context && (mn_ops || mi_ops)@
identifier cfn : script:python () { cfn in consumers };
identifier r;
@@

* cfn(..., const struct mmu_notifier_range *r, ...)
  {
  ...
  }

// -------------------------------------------------------------------------
// c. struct kvm_gfn_range variables must be zero-initialised.
// -------------------------------------------------------------------------

// Functions that assign a whole struct kvm_gfn_range through a pointer.
@gfn_out_builder@
identifier fn, p;
expression E;
@@

fn(..., struct kvm_gfn_range *p, ...)
{
  ...
(
  *p = E;
|
  memset(p, 0, ...);
)
  ...
}

@script:python@
fn << gfn_out_builder.fn;
@@

gfn_out_builders.add(fn)

@gfn_init@
identifier r;
initializer I;
position p;
@@

struct kvm_gfn_range r@p = I;

@gfn_decl@
identifier r;
position p;
@@

struct kvm_gfn_range r@p;

// The first thing each path does with the variable, if anything.
@gfn_use exists@
identifier gfn_decl.r;
position gfn_decl.p;
identifier g;
identifier outfn : script:python () { outfn in gfn_out_builders };
expression E, E2;
position pu, pa, pm, po;
@@

struct kvm_gfn_range r@p;
...
(
r@pa = E
|
memset@pm(&r, 0, ...)
|
outfn@po(..., &r, ...)
|
 &r@pu
|
E2 = r@pu
|
g(..., r@pu, ...)
)

@gfn_set@
identifier gfn_decl.r;
position gfn_decl.p;
identifier fld = {mn_event, mn_flags};
expression E;
position ps;
@@

struct kvm_gfn_range r@p;
<+... r.fld@ps = E ...+>

@script:python@
p << gfn_decl.p;
fld << gfn_set.fld;
ps << gfn_set.ps;
@@
gfn_fields_set.setdefault(key(p), {}).setdefault(fld, ps[0].line)

@script:python@
p << gfn_decl.p;
pu << gfn_use.pu;
@@

k = key(p)
if k not in gfn_first_use or int(pu[0].line) < int(gfn_first_use[k]):
	gfn_first_use[k] = pu[0].line

@script:python@
p << gfn_decl.p;
e << gfn_use.E;
pa << gfn_use.pa;
@@

gfn_zeroed_by.setdefault(key(p), 'assign=' + squash(e))

@script:python@
p << gfn_decl.p;
pm << gfn_use.pm;
@@

gfn_zeroed_by.setdefault(key(p), 'memset')

@script:python@
p << gfn_decl.p;
po << gfn_use.po;
@@

gfn_zeroed_by.setdefault(key(p), 'out-param')

@script:python depends on report@
r << gfn_decl.r;
p << gfn_decl.p;
@@

coccilib.report.print_report(p[0], gfn_decl_msg(p, r))

@script:python depends on org@
r << gfn_decl.r;
p << gfn_decl.p;
@@

coccilib.org.print_todo(p[0], gfn_decl_msg(p, r))

@script:python depends on report@
r << gfn_init.r;
i << gfn_init.I;
p << gfn_init.p;
@@

coccilib.report.print_report(p[0], gfn_init_msg(r, i))

@script:python depends on org@
r << gfn_init.r;
i << gfn_init.I;
p << gfn_init.p;
@@

coccilib.org.print_todo(p[0], gfn_init_msg(r, i))

// Allocated and not zeroed.
@gfn_alloc exists@
identifier x;
identifier alloc = {kmalloc, kmalloc_array, kmalloc_node, kvmalloc,
		    kvmalloc_array, kmem_cache_alloc, vmalloc};
position p;
@@

struct kvm_gfn_range *x;
...
x = alloc@p(...)

@script:python depends on report@
x << gfn_alloc.x;
alloc << gfn_alloc.alloc;
p << gfn_alloc.p;
@@

coccilib.report.print_report(p[0],
	'kvm_gfn_range: var=%s init=%s zeroed=no verdict=FAIL:not-zeroed' %
	(squash(x), alloc))

@script:python depends on org@
x << gfn_alloc.x;
alloc << gfn_alloc.alloc;
p << gfn_alloc.p;
@@

coccilib.org.print_todo(p[0],
	'kvm_gfn_range: var=%s init=%s zeroed=no verdict=FAIL:not-zeroed' %
	(squash(x), alloc))

@ctx_gfn depends on context@
identifier r;
position p : script:python () { key(p) in gfn_first_use };
@@

* struct kvm_gfn_range r@p;
