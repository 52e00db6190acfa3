"""Build step of the install: compile the LLVM front end's C++ helpers.

The package's metadata is in pyproject.toml. ``pip install .``, ``pip install -e .``
and wheel builds compile ``read_bitcode`` and ``cuda_link`` (``constraints/llvm/reader/*.cpp``)
against LLVM 19
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
    """``build_ext`` that compiles the helpers (the package has no Python extension)."""

    def run(self):
        br = _build_reader_module()
        in_place = self.inplace or getattr(self, "editable_mode", False)
        target = HERE / READER if in_place else Path(self.build_lib) / READER
        print(f"building the LLVM front end's helpers ({', '.join(br.HELPERS)}) into {target}", file=sys.stderr)
        self._outputs = []
        for name, why in br.install(target, HERE / READER).items():
            if why is None:
                if not in_place:
                    self._outputs += [str(target / name), str(target / br.stamp_name(name))]
            else:
                print(f"WARNING: {name} not built: {why}; LLVM inputs (.bc, .ll, .c, .cu, ...) need it: "
                      f"{br.INSTALL_HINT}, then install again", file=sys.stderr)

    def get_outputs(self):
        return list(getattr(self, "_outputs", []))


class BinaryDistribution(Distribution):
    """The wheel holds a compiled helper: tag it for the platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_ext": BuildReader}, distclass=BinaryDistribution)
