"""External-function models added for the corpus, and reading bitcode from a newer LLVM.

The alias-assertion programs that exercise each model's effect live in
``tests/llvm/`` (lib_static_self_linked.c, iconv_advances.c, getaddrinfo_list.c,
pthread_specific.c, obstack_alloc.c, zlib_stream.c) and run in test_llvm_aliases.
"""

from __future__ import annotations

import shutil

import pytest

from andersen_gpu.cli import ExitCode, main
from constraints.llvm import extract_with_stats
from constraints.llvm.externals import model_for

# every external function the corpus programs (bash, gawk, git, gzip, make, sqlite3)
# called without a model before these were added
CORPUS_EXTERNALS = """
__fpurge __freading _obstack_begin _obstack_newchunk arc4random compress compressBound confstr crc32 deflate
deflateBound deflateEnd deflateInit2_ deflateInit_ deflateSetHeader eaccess endservent fcntl64 fdatasync
freeaddrinfo ftruncate64 futimens futimesat getaddrinfo getloadavg getnameinfo getpeername getrandom
getrlimit64 getservent gnu_get_libc_version grantpt iconv iconv_open imaxdiv inflate inflateEnd
inflateInit2_ inflateInit_ mbsnrtowcs mbsrtowcs memmem mkdtemp mktemp mtrace obstack_free posix_openpt
posix_spawn posix_spawn_file_actions_adddup2 posix_spawn_file_actions_destroy posix_spawn_file_actions_init
posix_spawnattr_destroy posix_spawnattr_init posix_spawnattr_setflags posix_spawnattr_setsigmask pread64
pselect pthread_getspecific pthread_setcancelstate pthread_setspecific ptsname setitimer setresgid setresuid
setservent sigsegv_install_handler stackoverflow_install_handler statvfs64 sync_file_range sysinfo tgetent
tgetflag tgetnum tgetstr tgoto tputs uncompress unlinkat unlockpt wcschr wcscmp wcscoll wcsdup wcsncmp
wcsrtombs wmemchr zlibVersion
""".split()


@pytest.mark.parametrize("name", CORPUS_EXTERNALS)
def test_corpus_external_has_a_model(name):
    assert model_for(name) is not None, f"{name} has no model"


LIB_IR = """
declare ptr @getservent()
declare i32 @tputs(ptr, i32, ptr)
declare ptr @tgetstr(ptr, ptr)
@area = global [64 x i8] zeroinitializer
@ap = global ptr @area
define i32 @out(i32 %c) {
  ret i32 %c
}
define i32 @main() {
  %s = call ptr @getservent()
  %name = load ptr, ptr %s
  %cap = call ptr @tgetstr(ptr null, ptr @ap)
  %r = call i32 @tputs(ptr %cap, i32 1, ptr @out)
  ret i32 0
}
"""


def test_static_object_points_into_itself_and_callbacks(tmp_path):
    """A library-owned struct's pointer fields point into that struct (not
    nowhere); tgetstr returns a pointer into *area; tputs' callback is reached."""
    from andersen_gpu.backends.reference import solve

    path = tmp_path / "lib.ll"
    path.write_text(LIB_IR)
    cs, stats = extract_with_stats([path])
    assert not stats.unmodelled_calls
    sol = solve(cs)
    sol.names = cs.names
    assert "*getservent()" in sol.points_to_names("main:%name")
    assert "*@area" in sol.points_to_names("main:%cap")
    assert sol.points_to_names("main:%cap") != []


needs_tools = pytest.mark.skipif(shutil.which("llvm-dis-19") is None, reason="llvm-dis-19 not installed")

NEWER_IR = """
define ptr @f(ptr captures(none) %p) {
  ret ptr null
}
define i32 @main() {
  %x = alloca i32
  %r = call ptr @f(ptr %x)
  ret i32 0
}
"""


@needs_tools
def test_bitcode_newer_than_llvm_dis_reads_through_llvmlite(tmp_path):
    """llvmlite's LLVM writes an attribute (captures) that llvm-dis-19 does not
    know: the tools reject the file, the newer in-process reader takes it."""
    import subprocess

    import llvmlite.binding as llvm

    if llvm.llvm_version_info[0] < 21:
        pytest.skip("llvmlite's LLVM is not newer than 19 here")
    bc = tmp_path / "newer.bc"
    bc.write_bytes(llvm.parse_assembly(NEWER_IR).as_bitcode())
    res = subprocess.run(["llvm-dis-19", "-o", "-", str(bc)], capture_output=True, text=True)
    assert res.returncode != 0 and "Unknown attribute kind" in res.stderr
    cs, stats = extract_with_stats([bc])
    assert stats.instructions == 4 and cs.node_id("main:%x") >= 0


def test_unreadable_bitcode_names_the_readers_and_exits_2(tmp_path, capsys):
    """Bitcode no reader here takes (corrupt, or from an LLVM newer than every
    reader): exit 2, one line that names the file and says which readers failed."""
    import llvmlite.binding as llvm

    good = llvm.parse_assembly(NEWER_IR).as_bitcode()
    bad = tmp_path / "future.bc"
    bad.write_bytes(good[: len(good) // 2])
    out = tmp_path / "future.acs"
    assert main(["extract", str(bad), "-o", str(out), "--no-progress"]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "future.bc" in err and "newer LLVM than" in err
    assert "Traceback" not in err and not out.exists()


TEXT_IR = """
%struct.passwd = type { ptr, ptr, i32, i32, ptr, ptr, ptr }
%struct.big = type { ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr }
@table = global %struct.big zeroinitializer
declare ptr @getenv(ptr)
declare ptr @getpwnam(ptr)
@name = global [5 x i8] c"HOME\\00"
define i32 @main() {
  %e = call ptr @getenv(ptr @name)
  %w = load ptr, ptr %e
  %p = call ptr @getpwnam(ptr @name)
  %d = load ptr, ptr %p
  %dir = getelementptr %struct.passwd, ptr %p, i32 0, i32 5
  ret i32 0
}
"""


def test_library_strings_hold_no_pointer(tmp_path):
    """getenv's string is one slot that points nowhere (no self-links to spread
    through memcpy and string loops); getpwnam's record keeps its self-links and
    has the slots of the program's struct passwd."""
    from andersen_gpu.backends.reference import solve

    path = tmp_path / "text.ll"
    path.write_text(TEXT_IR)
    cs, _ = extract_with_stats([path])
    sol = solve(cs)
    sol.names = cs.names
    assert cs.obj_size[cs.node_id("*getenv()")] == 1
    assert sol.points_to_names("main:%e") == ["*getenv()"]
    assert sol.points_to_names("main:%w") == []
    assert "*getpwnam()" in sol.points_to_names("main:%d")
    # a record has the slots of its C type (struct passwd: 7), not the largest struct's (16)
    assert cs.obj_size[cs.node_id("*getpwnam()")] == 7
