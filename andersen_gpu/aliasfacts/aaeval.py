"""Run LLVM's alias-analysis evaluator on IR and read its load/store verdicts.

``opt -passes=aa-eval -evaluate-aa-metadata`` asks the chosen alias analyses
about every (load, store) and (store, store) pair of each function, using the
instructions' metadata; with ``-print-all-alias-modref-info`` it prints one
line per pair::

    NoAlias:   %a = load i32, ptr %p, align 4, !noalias !3 <->   store i32 ...

This module runs it and returns the pairs, so that the tests can check the
annotated IR against our facts and the benchmark can count NoAlias answers.
It needs ``opt-19`` (``ANDERSEN_OPT`` overrides).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass

from constraints.errors import InputError

OPT = os.environ.get("ANDERSEN_OPT", "opt-19")
VERDICTS = ("NoAlias", "MayAlias", "PartialAlias", "MustAlias")
_PAIR = re.compile(r"^  (NoAlias|MayAlias|PartialAlias|MustAlias)(?: \(off -?\d+\))?:\s+(.*?) <->\s+(.*)$")
_FUNCTION = re.compile(r"^Function: (.*): \d+ pointers, \d+ call sites$")


def printed_name(name: str) -> str:
    """A function's name as the IR text writes it after ``@`` (LLVM's AsmWriter): quoted when it
    starts with a digit or holds a character other than a letter, a digit, ``-``, ``.`` or ``_``
    (a lambda's ``$``), with LLVM's escapes inside (``printEscapedString``: a backslash doubled,
    ``"`` and unprintable bytes as ``\\XX``); aa-eval prints it bare."""
    if name and not name[0].isdigit() and all(c.isascii() and (c.isalnum() or c in "-._") for c in name):
        return name
    out = []
    for byte in name.encode():
        c = chr(byte)
        out.append("\\\\" if c == "\\" else c if 0x20 <= byte < 0x7F and c != '"' else f"\\{byte:02X}")
    return '"' + "".join(out) + '"'


@dataclass(frozen=True)
class Pair:
    """One evaluated (load, store) or (store, store) pair: instruction texts as opt printed them,
    the function's name as the IR text writes it (:func:`printed_name`)."""

    function: str
    verdict: str
    a: str
    b: str


def strip_metadata(instruction: str) -> str:
    """An instruction's text without its metadata attachments (opt renumbers them)."""
    k = instruction.find(", !")
    return (instruction[:k] if k > 0 else instruction).strip()


def _command(path, aa_pipeline: str, print_which: str) -> list[str]:
    opt = shutil.which(OPT)
    if opt is None:
        raise InputError(f"{OPT} not found on PATH (Debian: apt-get install llvm-19)")
    return [opt, "-disable-output", "-passes=aa-eval", f"-aa-pipeline={aa_pipeline}", "-evaluate-aa-metadata",
            print_which, str(path)]


def load_store_pairs(path: "str | os.PathLike", aa_pipeline: str = "scoped-noalias-aa") -> list[Pair]:
    """Every (load, store) and (store, store) verdict of ``aa_pipeline`` on the IR at ``path``.

    Raises
    ------
    InputError
        opt is missing or rejects the file (its first error line is quoted).
    """
    res = subprocess.run(_command(path, aa_pipeline, "-print-all-alias-modref-info"), capture_output=True,
                         text=True)
    if res.returncode != 0:
        raise InputError(f"{OPT} aa-eval failed: {(res.stderr.strip().splitlines() or ['?'])[0]}", str(path))
    out, function = [], ""
    for line in (res.stdout + res.stderr).splitlines():
        m = _FUNCTION.match(line)
        if m:
            function = printed_name(m.group(1))
            continue
        m = _PAIR.match(line)
        if m and " <-> " in line and ("load " in m.group(2) or "store " in m.group(2)):
            out.append(Pair(function, m.group(1), m.group(2).strip(), m.group(3).strip()))
    return out


def load_store_verdicts(path: "str | os.PathLike", aa_pipeline: str, timeout: float | None = None) -> bytes:
    """The verdict of every (load, store) and (store, store) pair, in opt's order, one
    letter each (``N``o, ``M``ay, ``P``artial, m``U``st), streamed from opt's output
    (large programs print millions of pairs). Two runs on one file list the same
    pairs in the same order, so their verdicts can be compared position by position.

    Raises
    ------
    InputError
        opt is missing or fails.
    subprocess.TimeoutExpired
        ``timeout`` seconds passed.
    """
    code = {"NoAlias": "N", "MayAlias": "M", "PartialAlias": "P", "MustAlias": "U"}
    out = []
    with subprocess.Popen(_command(path, aa_pipeline, "-print-all-alias-modref-info"), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as proc:
        try:
            for line in proc.stdout:
                if " <-> " not in line or line.startswith("  Both") or "Ptr:" in line:
                    continue
                m = _PAIR.match(line.rstrip("\n"))
                if m:
                    out.append(code[m.group(1)])
            proc.wait(timeout=timeout)
        except BaseException:
            proc.kill()
            raise
    if proc.returncode != 0:
        raise InputError(f"{OPT} aa-eval failed (exit {proc.returncode})", str(path))
    return "".join(out).encode()


def count_load_store_verdicts(path: "str | os.PathLike", aa_pipeline: str, timeout: float | None = None
                              ) -> Counter:
    """Verdict counts (``NoAlias``, ``MayAlias``, ...) over :func:`load_store_verdicts`."""
    names = {"N": "NoAlias", "M": "MayAlias", "P": "PartialAlias", "U": "MustAlias"}
    return Counter({names[k]: v for k, v in Counter(load_store_verdicts(path, aa_pipeline, timeout).decode()).items()})
