"""Build step of the install: compile ``read_bitcode``, the LLVM front end's C++ helper.

The package's metadata is in pyproject.toml. ``pip install .``, ``pip install -e .``
and wheel builds compile ``constraints/llvm/reader/*.cpp`` against LLVM 19
(``constraints/llvm/build_reader.py``) when ``g++`` and ``llvm-19-dev`` are
installed: into the build tree for wheels, beside the sources for editable
installs. Without them the install still succeeds (one warning); the front end
then says what to install when it is given an LLVM input.
"""

import importlib.util
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
READER = Path("constraints", "llvm", "reader")


def _build_reader_module():
    spec = importlib.util.spec_from_file_location("build_reader", HERE / "constraints" / "llvm" / "build_reader.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildReader(build_ext):
    """``build_ext`` that compiles read_bitcode (the package has no Python extension)."""

    def run(self):
        br = _build_reader_module()
        in_place = self.inplace or getattr(self, "editable_mode", False)
        target = HERE / READER if in_place else Path(self.build_lib) / READER
        print(f"building read_bitcode (LLVM 19 front end) into {target}", file=sys.stderr)
        why = br.install(target, HERE / READER)
        self._outputs = [] if why or in_place else [str(target / br.INSTALLED), str(target / br.STAMP)]
        if why:
            print(f"WARNING: read_bitcode not built: {why}; LLVM inputs (.bc, .ll, .c, ...) need it: "
                  f"{br.INSTALL_HINT}, then install again", file=sys.stderr)

    def get_outputs(self):
        return list(getattr(self, "_outputs", []))


class BinaryDistribution(Distribution):
    """The wheel holds a compiled helper: tag it for the platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_ext": BuildReader}, distclass=BinaryDistribution)
