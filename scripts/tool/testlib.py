# SPDX-License-Identifier: GPL-2.0
"""What the unit tests (*_test.py) share: the fixtures of test_data/ (see
its README), logs read the way the verdict reads them (ktap), report
inputs, and temporary directories.  Not a test module itself."""

import io
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from typing import Callable, Iterable, List, Tuple, TypeVar

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ktap  # noqa: E402
import report  # noqa: E402
import splat  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "test_data")
# The repository's own guest suites.
SUITES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "guest", "suites")


def data(name: str) -> str:
    """The path of a fixture."""
    return os.path.join(DATA, name)


def lines(name: str) -> List[str]:
    """A fixture's lines, as the harness reads a console log."""
    return splat.read_lines(data(name))


def read(path: str, kunit: bool = False) -> ktap.Log:
    """A log read once, as the verdict reads it; a bare name is a fixture."""
    return ktap.read(path if os.sep in path else data(path), kunit)


def inputs(specs: Iterable[Tuple[str, str, str]], boot: str = "") -> List[report.Input]:
    """Report inputs from (kernel, mode, log) specs; a bare log name is a
    fixture."""
    return [report.Input(k, m, boot, read(p)) for k, m, p in specs]


def as_runner(text: List[str]) -> List[str]:
    """A log's payload as runner.sh prints it: every line after "GUEST:
    kernel" that the kernel did not print gets the runner's "# "."""
    out = []
    payload = False
    for line in text:
        if payload and not line.startswith("["):
            line = "# " + line
        if line.startswith(ktap.START_PREFIX):
            payload = True
        out.append(line)
    return out


def write(path: str, text: str) -> str:
    with open(path, "w") as f:
        f.write(text)
    return path


T = TypeVar("T")


def run(fn: Callable[[], T]) -> Tuple[T, str, str]:
    """fn()'s return value, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = fn()
    return rc, out.getvalue(), err.getvalue()


class TmpTest(unittest.TestCase):
    """A test case with a temporary directory, self.tmp."""

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def path(self, name: str) -> str:
        return os.path.join(self.tmp, name)

    def text(self, name: str) -> str:
        with open(self.path(name)) as f:
            return f.read()
