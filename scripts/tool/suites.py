# SPDX-License-Identifier: GPL-2.0
"""The guest suites: guest/suites read into Suite objects, and the plan
that scripts/guest-suite.sh carries out.

A guest suite is one entry of guest/suites:

    suite NAME
        kernels K...      guest kernels in boot order (guest-kernel.sh kinds;
                          an arm64 suite's are built as arm64-K)
        arch A            x86_64 (default) or arm64
        modes M...        run-guest.sh modes: each kernel boots once per mode
        payload P         what the guest runs: kselftest (default), bench,
                          e2e or rdma (scripts/guest-suite.sh builds it)
        var NAME DEFAULT  ${NAME} in a test's command; KPU_<NAME> overrides,
                          "random" is a random 32-bit number
        boot NAME K=V...  a boot of its own, for the tests that name it:
                          thread= (TCG), modes=, kernels=
        append ARGS       more guest kernel arguments
        timeout SECS      the limit of one boot (KPU_TIMEOUT overrides)
        mem GIB           guest memory
        cpu MODEL         the x86_64 guest's -cpu
        config NAME       x86_64: guest/NAME.config on top of every kernel but
                          prior, built as KIND-NAME (guest-kernel.sh), e.g. timing:
                          the same config for base and patched, without
                          KVM_PROVE_MMU's checks
        kunit             the KUnit results the kernel prints at boot count
        compare KERNEL    a test passes when its result on a kernel is not
                          worse than on KERNEL (instead of expected results)
        report NAME       what --results writes (verdict.REPORTS)
        test NAME CMD... [; K=V...]
                          a test: NAME is its KTAP name, CMD runs from the
                          suite's directory in the guest.  A first word
                          COLLECTION:PATH is a selftest that its Makefile
                          builds (COLLECTION: kvm, mm or rdma), run as
                          ./BASENAME; the rest of the line is shell text.
                          Options after " ; ": KERNEL=pass|fail|skip (the
                          expected result there; default pass), kernels=,
                          modes=, boot=, timeout= (seconds, in the guest),
                          hugepages=, gigantic= (2M, 1G hugetlb pages
                          while it runs, as they were after), compare=
                          (as the suite's compare, for this test), needs=
                          (a word the source has in trees that have the
                          test: KPU_TESTS=available)
        skip KERNEL MODE REASON...
                          KERNEL is not booted in MODE, for REASON (a
                          known bug of that kernel that stops the boot)
        include SUITE KERNEL
                          the tests of SUITE that run on its KERNEL in its
                          own boots, expected to give what they give there
        build COLLECTION:PATH...
                          more selftests to build into the payload

Every boot runs its tests through kselftest's runner (runner.sh), which
prints KTAP: one "ok N selftests: SUITE: NAME" or "not ok ..." per test,
the test's own output before it as "# " lines.  The bench, e2e and rdma
payloads print their data lines the same way.  runner.sh limits a test
only through /usr/bin/timeout, which the initramfs does not have (its
"timeout set to 45" line is moot): a test's timeout= and the boot's
timeout are the limits.
"""

import os
import random
import shlex
from typing import Dict, Iterator, List, NamedTuple, Optional, Tuple

RESULTS = ("pass", "fail", "skip")
PAYLOADS = ("kselftest", "bench", "e2e", "rdma")
# guest/NAME.config files that a suite's config may name.
CONFIGS = ("timing",)
COLLECTIONS = ("kvm", "mm", "rdma")
ARCHS = ("x86_64", "arm64")
HUGEPAGES_2M = "/proc/sys/vm/nr_hugepages"
HUGEPAGES_1G = "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
MODES = {"x86_64": ("1", "0"), "arm64": ("vhe", "nvhe", "protected", "a57", "mte", "mte-nvhe")}
TEST_OPTS = ("kernels", "modes", "boot", "timeout", "hugepages", "gigantic", "compare",
             "needs")


class Test(NamedTuple):
    name: str
    prog: str                       # COLLECTION:PATH, or a file of the payload
    args: str                       # shell text
    expect: Dict[str, str]          # kernel -> pass, fail or skip
    kernels: Optional[List[str]]
    modes: Optional[List[str]]
    boot: str                       # "" for the suite's own boots
    timeout: Optional[int]
    hugepages: Optional[int]
    gigantic: Optional[int]
    compare: Optional[str]          # judged against this kernel's result
    needs: Optional[str]            # a word its source has where the tree has it

    def build(self) -> Optional[Tuple[str, str]]:
        """(COLLECTION, PATH) of a selftest that its Makefile builds."""
        coll, sep, path = self.prog.partition(":")
        return (coll, path) if sep and coll in COLLECTIONS else None

    def expected(self, kernel: str) -> str:
        return self.expect.get(kernel, "pass")


class Boot(NamedTuple):
    name: str
    kernels: List[str]
    modes: List[str]
    thread: str


class Run(NamedTuple):
    """One boot of one kernel in one mode: its id names its log."""
    id: str
    kernel: str
    mode: str
    boot: Boot
    tests: List[Test]


class Suite:
    def __init__(self, name: str) -> None:
        self.name = name
        self.arch = "x86_64"
        self.kernels: List[str] = []
        self.modes: List[str] = []
        self.payload = "kselftest"
        self.vars: Dict[str, str] = {}
        self.boots: Dict[str, Boot] = {}
        self.append = ""
        self.timeout = 900
        self.mem: Optional[int] = None
        self.cpu: Optional[str] = None
        self.config: Optional[str] = None
        self.kunit = False
        self.compare: Optional[str] = None
        self.report: Optional[str] = None
        self.tests: List[Test] = []
        self.builds: List[Tuple[str, str]] = []
        self.skips: Dict[Tuple[str, str], str] = {}

    def boot(self, name: str) -> Boot:
        if name:
            return self.boots[name]
        return Boot("", self.kernels, self.modes, "single")

    def runs(self) -> List[Run]:
        """Every boot, in order: each kernel, each of its boots (the
        suite's own first), each mode."""
        out = []
        for k in self.kernels:
            for b in [self.boot("")] + list(self.boots.values()):
                if k not in b.kernels:
                    continue
                for m in b.modes:
                    if (k, m) in self.skips:
                        continue
                    tests = [t for t in self.tests if t.boot == b.name
                             and (t.kernels is None or k in t.kernels)
                             and (t.modes is None or m in t.modes)]
                    if not tests and not self.kunit:
                        continue
                    rid = "-".join(x for x in (k, b.name, m) if x)
                    out.append(Run(rid, k, m, b, tests))
        return out


class SuiteError(ValueError):
    pass


def _words(text: str, where: str) -> List[str]:
    try:
        return shlex.split(text, comments=False)
    except ValueError as e:
        raise SuiteError("%s: %s" % (where, e))


def _int(v: str, where: str) -> int:
    if not v.isdigit():
        raise SuiteError("%s: %r is not a number" % (where, v))
    return int(v)


def _opts(words: List[str], allowed: Tuple[str, ...], where: str) -> Dict[str, str]:
    out = {}
    for w in words:
        k, sep, v = w.partition("=")
        if not sep or k not in allowed:
            raise SuiteError("%s: %r is not one of %s=..." % (where, w, "=, ".join(allowed)))
        out[k] = v
    return out


def _test(s: Suite, text: str, opts: List[str], where: str) -> Test:
    words = text.split(None, 2)
    if len(words) < 2:
        raise SuiteError("%s: test needs a NAME and a command" % where)
    name, prog = words[0], words[1]
    args = words[2] if len(words) > 2 else ""
    if not all(c.isalnum() or c in "._-+" for c in name):
        raise SuiteError("%s: test name %r: letters, digits, '.', '_', '+' and '-' only"
                         % (where, name))
    expect: Dict[str, str] = {}
    o: Dict[str, str] = {}
    for w in opts:
        k, sep, v = w.partition("=")
        if sep and k in s.kernels:
            if v not in RESULTS:
                raise SuiteError("%s: %s=%s: expected %s" % (where, k, v, ", ".join(RESULTS)))
            expect[k] = v
        else:
            o.update(_opts([w], TEST_OPTS, where))
    kernels = o["kernels"].split(",") if "kernels" in o else None
    modes = o["modes"].split(",") if "modes" in o else None
    for k in (kernels or []) + ([o["compare"]] if "compare" in o else []):
        if k not in s.kernels:
            raise SuiteError("%s: kernel %r is not the suite's" % (where, k))
    boot = o.get("boot", "")
    if boot and boot not in s.boots:
        raise SuiteError("%s: no boot %r (a boot line comes before its tests)" % (where, boot))
    for m in modes or []:
        if m not in s.boot(boot).modes:
            raise SuiteError("%s: mode %r is not one of the boot's" % (where, m))
    t = Test(name, prog, args, expect, kernels, modes, boot,
             _int(o["timeout"], where) if "timeout" in o else None,
             _int(o["hugepages"], where) if "hugepages" in o else None,
             _int(o["gigantic"], where) if "gigantic" in o else None,
             o.get("compare", s.compare), o.get("needs"))
    if t.build() is None and ":" in prog:
        raise SuiteError("%s: %r: a selftest is COLLECTION:PATH with COLLECTION one of %s"
                         % (where, prog, ", ".join(COLLECTIONS)))
    if any(x.name == name for x in s.tests):
        raise SuiteError("%s: a second test %r" % (where, name))
    return t


def _include(s: Suite, other: Suite, kernel: str, where: str) -> None:
    """The tests of another suite that run on its KERNEL in its own boots,
    with KERNEL's expected result on each of this suite's kernels."""
    if kernel not in other.kernels:
        raise SuiteError("%s: %s has no kernel %r" % (where, other.name, kernel))
    for t in other.tests:
        if t.boot or (t.kernels is not None and kernel not in t.kernels):
            continue
        modes = None if t.modes is None else [m for m in t.modes if m in s.modes]
        if modes == []:
            continue
        s.tests.append(t._replace(expect={k: t.expected(kernel) for k in s.kernels},
                                  kernels=None, modes=modes, compare=None))

def parse(text: str, path: str = "guest/suites") -> Dict[str, Suite]:
    suites: Dict[str, Suite] = {}
    starts: Dict[str, str] = {}     # suite -> FILE:LINE of its suite line
    cur: Optional[Suite] = None
    for n, raw in enumerate(text.splitlines(), 1):
        where = "%s:%d" % (path, n)
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, rest = line.partition(" ")
        rest = rest.strip()
        if key == "suite":
            if not rest or " " in rest:
                raise SuiteError("%s: suite needs one NAME" % where)
            if rest in suites:
                raise SuiteError("%s: a second suite %r" % (where, rest))
            cur = suites[rest] = Suite(rest)
            starts[rest] = where
            continue
        if cur is None:
            raise SuiteError("%s: %r before the first suite line" % (where, key))
        s = cur
        if key == "test":
            cmd, _, opts = rest.partition(" ; ")
            s.tests.append(_test(s, cmd, _words(opts, where), where))
            continue
        w = _words(rest, where)
        if key == "kernels" and w:
            s.kernels = w
        elif key == "arch" and len(w) == 1 and w[0] in ARCHS:
            s.arch = w[0]
        elif key == "modes" and w:
            bad = [m for m in w if m not in MODES[s.arch]]
            if bad:
                raise SuiteError("%s: modes of %s are %s, not %s" % (
                    where, s.arch, " ".join(MODES[s.arch]), " ".join(bad)))
            s.modes = w
        elif key == "payload" and len(w) == 1 and w[0] in PAYLOADS:
            s.payload = w[0]
        elif key == "var" and len(w) == 2:
            s.vars[w[0]] = w[1]
        elif key == "boot" and w:
            o = _opts(w[1:], ("thread", "modes", "kernels"), where)
            b = Boot(w[0], o["kernels"].split(",") if "kernels" in o else s.kernels,
                     o["modes"].split(",") if "modes" in o else s.modes,
                     o.get("thread", "single"))
            if b.thread not in ("single", "multi"):
                raise SuiteError("%s: thread=%s: single or multi" % (where, b.thread))
            for k in b.kernels:
                if k not in s.kernels:
                    raise SuiteError("%s: kernel %r is not the suite's" % (where, k))
            for m in b.modes:
                if m not in MODES[s.arch]:
                    raise SuiteError("%s: mode %r is not one of %s's" % (where, m, s.arch))
            s.boots[b.name] = b
        elif key == "append":
            s.append = rest
        elif key == "timeout" and len(w) == 1:
            s.timeout = _int(w[0], where)
        elif key == "mem" and len(w) == 1:
            s.mem = _int(w[0], where)
        elif key == "cpu" and len(w) == 1:
            s.cpu = w[0]
        elif key == "config" and len(w) == 1 and w[0] in CONFIGS and s.arch == "x86_64":
            s.config = w[0]
        elif key == "kunit" and not w:
            s.kunit = True
        elif key == "compare" and len(w) == 1:
            s.compare = w[0]
        elif key == "report" and len(w) == 1:
            s.report = w[0]
        elif key == "include" and len(w) == 2:
            if w[0] not in suites:
                raise SuiteError("%s: no suite %r above" % (where, w[0]))
            _include(s, suites[w[0]], w[1], where)
        elif key == "skip" and len(w) >= 3:
            if w[0] not in s.kernels or w[1] not in s.modes:
                raise SuiteError("%s: skip %s %s: not a kernel and a mode of suite %s"
                                 % (where, w[0], w[1], s.name))
            s.skips[(w[0], w[1])] = " ".join(w[2:])
        elif key == "build" and w:
            for item in w:
                coll, sep, p = item.partition(":")
                if not sep or coll not in COLLECTIONS:
                    raise SuiteError("%s: build %r: COLLECTION:PATH" % (where, item))
                s.builds.append((coll, p))
        else:
            raise SuiteError("%s: cannot read %r" % (where, line))
    for s in suites.values():
        if not s.kernels or not s.modes:
            raise SuiteError("%s: suite %s needs kernels and modes" % (starts[s.name], s.name))
        if s.compare and s.compare not in s.kernels:
            raise SuiteError("%s: suite %s compares with %r, not one of its kernels"
                             % (starts[s.name], s.name, s.compare))
    return suites


def load(path: str) -> Dict[str, Suite]:
    with open(path) as f:
        return parse(f.read(), path)


def values(s: Suite, env: Dict[str, str]) -> Dict[str, str]:
    """The suite's variables: KPU_<NAME> from env, else the default."""
    out = {}
    for k, d in s.vars.items():
        v = env.get("KPU_" + k, d)
        if v == "random":
            v = str(random.SystemRandom().getrandbits(32))
        if not v or any(c.isspace() or c in "'\"\\$`;&|<>" for c in v):
            raise SuiteError("KPU_%s: %r is not a plain word" % (k, v))
        out[k] = v
    return out


def expand(text: str, vals: Dict[str, str]) -> str:
    for k, v in vals.items():
        text = text.replace("${%s}" % k, v)
    i = text.find("${")
    if i >= 0:
        raise SuiteError("%r: no such variable" % text[i:].split("}")[0])
    return text


def available(s: Suite, tree: str) -> List[str]:
    """The tests a kernel tree has: its selftest's source is there, with the
    case that "-r FIXTURE.VARIANT.CASE" runs and the word of needs= in it
    (KPU_TESTS=available, for a posting that has only some of the
    series)."""
    out = []
    for t in s.tests:
        b = t.build()
        if b:
            d = os.path.join(tree, "tools", "testing", "selftests", b[0])
            src = os.path.join(d, b[1] + ".c")
            if not os.path.exists(src):
                # protection_keys_64 and the like: one source, two builds
                src = os.path.join(d, b[1].rsplit("_", 1)[0] + ".c")
            if not os.path.exists(src):
                continue
            words = t.args.split()
            need = [t.needs] if t.needs else []
            if "-r" in words[:-1] and "." in words[words.index("-r") + 1]:
                need.append(words[words.index("-r") + 1].rsplit(".", 1)[-1])
            with open(src) as f:
                text = f.read()
            if any(n not in text for n in need):
                continue
        out.append(t.name)
    return out


def select(s: Suite, names: List[str], kernels: List[str], modes: List[str],
           prior: bool = False) -> None:
    """Narrow a suite to some tests, kernels and modes (KPU_TESTS,
    KPU_KERNELS, KPU_MODES); unknown names are an error.  A kernel named
    prior is booted only when there is one (KPU_PRIOR_KERNEL)."""
    if names:
        known = {t.name for t in s.tests}
        bad = [n for n in names if n not in known]
        if bad:
            raise SuiteError("%s has no test %s (it has: %s)" % (
                s.name, " ".join(bad), " ".join(t.name for t in s.tests)))
        s.tests = [t for t in s.tests if t.name in names]
    if kernels:
        bad = [k for k in kernels if k not in s.kernels]
        if bad:
            raise SuiteError("%s has no kernel %s" % (s.name, " ".join(bad)))
        s.kernels = [k for k in s.kernels if k in kernels]
    if "prior" in s.kernels and not prior:
        if "prior" in kernels:
            raise SuiteError("the prior kernel needs KPU_PRIOR_KERNEL (a bzImage)")
        s.kernels.remove("prior")
    for t in s.tests:
        if t.compare and t.compare not in s.kernels:
            raise SuiteError("%s: %s is judged against the %s kernel: keep it"
                             % (s.name, t.name, t.compare))
    if modes:
        bad = [m for m in modes if m not in s.modes]
        if bad:
            raise SuiteError("%s has no mode %s" % (s.name, " ".join(bad)))
        s.modes = [m for m in s.modes if m in modes]
        s.boots = {n: b._replace(modes=[m for m in b.modes if m in modes])
                   for n, b in s.boots.items()}


def select_env(s: Suite, env: Dict[str, str]) -> None:
    names = env.get("KPU_TESTS", "").split()
    if names == ["available"]:
        names = available(s, env.get("KPU_TREE", "build/linux"))
        if not names:
            s.tests = []
    select(s, names, env.get("KPU_KERNELS", "").split(), env.get("KPU_MODES", "").split(),
           bool(env.get("KPU_PRIOR_KERNEL")))


def kernel_kind(s: Suite, kernel: str) -> str:
    """guest-kernel.sh's KIND for a suite's kernel: arm64-KERNEL for arm64,
    KERNEL-rdma (with networking and rxe) for the rdma payload, KERNEL-NAME
    for the suite's config NAME."""
    if s.arch == "arm64":
        return "arm64-" + kernel
    if kernel == "prior":
        return kernel
    if s.payload == "rdma":
        kernel += "-rdma"
    if s.config:
        kernel += "-" + s.config
    return kernel


def wrapper(t: Test, vals: Dict[str, str]) -> str:
    """The script that runs one test in the guest: runner.sh's test."""
    b = t.build()
    prog = "./" + os.path.basename(b[1]) if b else t.prog
    line = " ".join(x for x in (prog, expand(t.args, vals)) if x)
    if t.timeout:
        line = "timeout -s KILL %d %s" % (t.timeout, line)
    out = ["#!/bin/sh", "# %s" % t.name, "cd /suite"]
    pools = [(n, p) for n, p in ((t.hugepages, HUGEPAGES_2M), (t.gigantic, HUGEPAGES_1G))
             if n is not None]
    if not pools:
        out.append("%s </dev/null" % line)
        return "\n".join(out) + "\n"
    for i, (n, p) in enumerate(pools):
        out += ["old%d=$(cat %s)" % (i, p), "echo %d >%s" % (n, p)]
    out += ["%s </dev/null" % line, "rc=$?"]
    for i, (n, p) in enumerate(pools):
        out.append('echo "$old%d" >%s' % (i, p))
    out.append("exit $rc")
    return "\n".join(out) + "\n"


def run_script(s: Suite) -> str:
    """/suite/run: the boot's tests (kpu.run=ID on the kernel command line)
    through kselftest's runner, KTAP on the console."""
    out = ["#!/bin/sh", "# Written by guest-suite.sh for the %s suite." % s.name,
           "run=", "for w in $(cat /proc/cmdline); do",
           "\tcase $w in kpu.run=*) run=${w#kpu.run=} ;; esac", "done",
           "BASE_DIR=/suite", "export BASE_DIR",
           "# What the payload sets up (guest-suite.sh), if anything.",
           "[ ! -f /suite/setup ] || . /suite/setup",
           ". /suite/kselftest/runner.sh",
           "cd /suite/%s" % s.name, 'case "$run" in']
    for r in s.runs():
        names = " ".join("./" + t.name for t in r.tests)
        out += ["%s)" % r.id, "\tktap_print_header", "\tktap_set_plan %d" % len(r.tests),
                "\trun_many %s" % names, "\tktap_finished ;;"]
    out += ['*) echo "no kpu.run=ID for this suite: \'$run\'"; exit 2 ;;', "esac"]
    return "\n".join(out) + "\n"


def plan(s: Suite, vals: Dict[str, str]) -> Iterator[str]:
    """What guest-suite.sh does, a line each:
        var NAME VALUE
        kernel KIND
        skip KERNEL-MODE REASON
        build COLLECTION PATH
        boot ID KIND MODE THREAD TIMEOUT MEM CPU APPEND..."""
    for k, v in vals.items():
        yield "var %s %s" % (k, v)
    for k in s.kernels:
        yield "kernel %s" % kernel_kind(s, k)
    for (k, m), why in s.skips.items():
        yield "skip %s-%s %s" % (k, m, why)
    seen = set()
    run_tests = {t.name for r in s.runs() for t in r.tests}
    for b in [t.build() for t in s.tests if t.name in run_tests] + s.builds:
        if b and b not in seen:
            seen.add(b)
            yield "build %s %s" % b
    for r in s.runs():
        append = " ".join(x for x in (s.append, "kpu.kernel=%s kpu.run=%s" % (r.kernel, r.id)) if x)
        yield "boot %s %s %s %s %d %s %s %s" % (
            r.id, kernel_kind(s, r.kernel), r.mode, r.boot.thread, s.timeout,
            s.mem or "-", s.cpu or "-", append)


def write_payload(s: Suite, vals: Dict[str, str], outdir: str) -> None:
    """OUTDIR/run and a wrapper per test in OUTDIR/NAME/."""
    d = os.path.join(outdir, s.name)
    os.makedirs(d, exist_ok=True)
    for t in s.tests:
        p = os.path.join(d, t.name)
        with open(p, "w") as f:
            f.write(wrapper(t, vals))
        os.chmod(p, 0o755)
    p = os.path.join(outdir, "run")
    with open(p, "w") as f:
        f.write(run_script(s))
    os.chmod(p, 0o755)


def main(args: List[str], env: Dict[str, str]) -> int:
    """plan SUITES NAME OUTDIR: the payload's scripts into OUTDIR, the plan
    on stdout."""
    if len(args) != 3:
        raise ValueError("usage: plan SUITES NAME OUTDIR")
    path, name, outdir = args
    all_suites = load(path)
    if name not in all_suites:
        raise ValueError("%s: no suite %r (there are: %s)" % (path, name, " ".join(all_suites)))
    s = all_suites[name]
    select_env(s, env)
    if not s.runs() and env.get("KPU_TESTS") != "available":
        raise ValueError("%s: no test to run" % name)
    vals = values(s, env)
    write_payload(s, vals, outdir)
    print("suite %s %s %s" % (s.name, s.arch, s.payload))
    if s.config:
        print("config %s" % s.config)
    for line in plan(s, vals):
        print(line)
    return 0
