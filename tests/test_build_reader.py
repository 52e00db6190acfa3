"""Building read_bitcode: by the install (setup.py), else on first use into the cache.

The compiler and llvm-config are stand-ins here (shell scripts), so these tests
check the plumbing, not LLVM: which binary the front end runs, when it builds
one, and that a missing tool is one line naming what to install.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from constraints.llvm import build_reader, inputs

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fake_tools(tmp_path, monkeypatch):
    """A g++ that writes a script to its -o argument, and an llvm-config with LLVM headers."""
    bin_dir, include = tmp_path / "bin", tmp_path / "include"
    (include / "llvm" / "Linker").mkdir(parents=True)
    (include / "llvm" / "Linker" / "Linker.h").write_text("")
    bin_dir.mkdir()
    cxx = bin_dir / "fake-g++"
    cxx.write_text('#!/bin/sh\nwhile [ "$1" != "-o" ]; do shift; done\n'
                   f'echo "$@" >> {tmp_path}/compiles\nprintf "#!/bin/sh\\necho fake\\n" > "$2"\n')
    config = bin_dir / "fake-llvm-config"
    config.write_text(f'#!/bin/sh\ncase "$1" in --includedir) echo {include};; *) echo;; esac\n')
    for f in (cxx, config):
        f.chmod(0o755)
    monkeypatch.setenv("ANDERSEN_CXX", str(cxx))
    monkeypatch.setenv("ANDERSEN_LLVM_CONFIG", str(config))
    monkeypatch.setenv("ANDERSEN_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _sources(tmp_path) -> Path:
    reader_dir = tmp_path / "reader"
    reader_dir.mkdir()
    for name in build_reader.HELPERS:
        for src in build_reader.sources_of(name):
            shutil.copy(src, reader_dir / src.name)
    return reader_dir


def test_install_builds_every_helper_and_its_stamp(fake_tools):
    reader_dir = _sources(fake_tools)
    assert build_reader.install(reader_dir, reader_dir) == {name: None for name in build_reader.HELPERS}
    assert set(build_reader.HELPERS) == {"read_bitcode", "cuda_link"}
    for name in build_reader.HELPERS:
        exe = reader_dir / name
        assert os.access(exe, os.X_OK)
        digest = build_reader.source_digest(build_reader.sources_of(name, reader_dir))
        assert (reader_dir / build_reader.stamp_name(name)).read_text().strip() == digest
        assert build_reader.installed(name, reader_dir) == str(exe)
    # a source edited after the install: that helper's binary is stale, the other's is not
    with open(reader_dir / "extract.cpp", "a") as f:
        f.write("// edited\n")
    assert build_reader.installed("read_bitcode", reader_dir) is None
    assert build_reader.installed("cuda_link", reader_dir) == str(reader_dir / "cuda_link")


def test_install_without_a_compiler_says_what_to_install(fake_tools, monkeypatch):
    reader_dir = _sources(fake_tools)
    monkeypatch.setenv("ANDERSEN_CXX", "g++-that-is-not-installed")
    why = build_reader.install(reader_dir, reader_dir)
    assert why == {name: "no C++ compiler (g++-that-is-not-installed)" for name in build_reader.HELPERS}
    assert not (reader_dir / "read_bitcode").exists() and build_reader.installed("read_bitcode", reader_dir) is None
    assert "llvm-19-dev" in build_reader.INSTALL_HINT and "g++" in build_reader.INSTALL_HINT


def test_without_an_installed_binary_one_is_built_once_and_said_so(fake_tools, monkeypatch, capsys):
    monkeypatch.setattr(build_reader, "installed", lambda name="read_bitcode", reader_dir=None: None)
    monkeypatch.setattr(inputs, "_reader_cache", {})
    exe, why = inputs.reader()
    assert why is None and exe.startswith(str(fake_tools / "cache"))
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "building read_bitcode" in err[0]
    monkeypatch.setattr(inputs, "_reader_cache", {})
    assert inputs.reader() == (exe, None)  # built once: the cached binary, no second build
    assert capsys.readouterr().err == ""
    assert len((fake_tools / "compiles").read_text().splitlines()) == 1


def test_the_installed_binary_comes_first(fake_tools, monkeypatch):
    monkeypatch.setattr(build_reader, "installed", lambda name="read_bitcode", reader_dir=None: f"/installed/{name}")
    assert inputs.reader() == ("/installed/read_bitcode", None)
    assert not (fake_tools / "compiles").exists()


def test_ci_installs_the_compiler_before_the_package():
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.index("llvm-19-dev") < ci.index("pip install -e")
    assert ci.index("apt-get install") < ci.index("pip install -e")
    assert "installed(" in ci  # and fails when the install did not build the helpers
