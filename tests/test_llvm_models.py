"""External-function models added for the corpus, and bitcode from a newer LLVM.

The alias-assertion programs that exercise each model's effect live in
``tests/llvm/`` (lib_static_self_linked.c, iconv_advances.c, getaddrinfo_list.c,
pthread_specific.c, obstack_alloc.c, zlib_stream.c) and run in test_llvm_aliases.
"""

from __future__ import annotations


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
    cs, _, sol = _solve_ir(tmp_path, LIB_IR)
    assert "*getservent()" in sol.points_to_names("main:%name")
    assert "*@area" in sol.points_to_names("main:%cap")
    assert sol.points_to_names("main:%cap") != []


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


def _newer_bitcode() -> bytes:
    """Bitcode from an LLVM newer than 19 (llvmlite's, which numba brings): it writes an
    attribute (captures) LLVM 19 does not know."""
    llvm = pytest.importorskip("llvmlite.binding")
    if llvm.llvm_version_info[0] < 21:
        pytest.skip("llvmlite's LLVM is not newer than 19 here")
    return llvm.parse_assembly(NEWER_IR).as_bitcode()


@pytest.mark.parametrize("cut", [False, True])
def test_bitcode_from_a_newer_llvm_is_bad_input_and_exits_2(tmp_path, capsys, reader, cut):
    """Bitcode LLVM 19 cannot read (from a newer LLVM, or cut short): exit 2, one line that
    names the file and says what may be wrong with it, no traceback and no output."""
    data = _newer_bitcode()
    bad = tmp_path / "future.bc"
    bad.write_bytes(data[: len(data) // 2] if cut else data)
    out = tmp_path / "future.acs"
    assert main(["extract", str(bad), "-o", str(out), "--no-progress"]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "future.bc" in err and "newer than 19" in err
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


# every external function vim, perl and python3.11 called without a model
# before these were added
CORPUS_EXTERNALS_2 = """
timer_settime timer_create timer_delete acl_free acl_get_file acl_set_file flock strptime sync
mkostemp64 socketpair accept4 getgrent_r getgrgid_r getgrnam_r gethostbyaddr_r gethostbyname_r gethostent_r
getnetbyaddr_r getnetbyname_r getnetent_r getprotobyname_r getprotobynumber_r getprotoent_r getpwent_r
getpwnam_r getpwuid_r getservbyname_r getservbyport_r getservent_r getspnam_r semctl shmctl chroot crypt_r
endhostent endnetent getlogin_r linkat msgctl msgget msgrcv msgsnd nl_langinfo_l pause semget semop
sethostent setnetent shmat shmdt shmget truncate64
__sched_cpufree __sched_cpualloc __sysconf clock_settime fstatat64 sendfile64 wcstok __sched_cpucount
bind_textdomain_codeset clock_nanosleep close_range copy_file_range eventfd eventfd_read eventfd_write
fexecve fgetxattr flistxattr forkpty fremovexattr fsetxattr getauxval getgrouplist getxattr gnu_dev_major
gnu_dev_makedev gnu_dev_minor initgroups lgetxattr listxattr llistxattr lockf64 login_tty lremovexattr
lsetxattr memfd_create mkfifo mkfifoat mknod mknodat nice openat64 openpty posix_fadvise64
posix_fallocate64 posix_spawnattr_setschedparam posix_spawnattr_setschedpolicy preadv64v2
pthread_attr_setscope pthread_condattr_init pthread_condattr_setclock pthread_getcpuclockid pwritev64v2
readv removexattr sched_get_priority_max sched_get_priority_min sched_getaffinity sched_getparam
sched_getscheduler sched_rr_get_interval sched_setaffinity sched_setparam sched_setscheduler sem_clockwait
sem_destroy sem_init sem_post sem_trywait sem_wait setpgrp setxattr sigtimedwait sigwait sigwaitinfo splice
symlinkat waitid wcsftime wmemcmp writev
""".split()


@pytest.mark.parametrize("name", CORPUS_EXTERNALS_2)
def test_corpus_external_has_a_model_2(name):
    assert model_for(name) is not None, f"{name} has no model"


def _solve_ir(tmp_path, text):
    from andersen_gpu.backends.reference import solve

    path = tmp_path / "m.ll"
    path.write_text(text)
    cs, stats = extract_with_stats([path])
    assert not stats.unmodelled_calls
    sol = solve(cs)
    sol.names = cs.names
    return cs, stats, sol


LOOKUP_R_IR = """
%struct.passwd = type { ptr, ptr, i32, i32, ptr, ptr, ptr }
%struct.hostent = type { ptr, ptr, i32, i32, ptr }
@name = global [5 x i8] c"root\\00"
declare i32 @getpwnam_r(ptr, ptr, ptr, i64, ptr)
declare i32 @gethostbyname_r(ptr, ptr, ptr, i64, ptr, ptr)
define i32 @main() {
  %pw = alloca %struct.passwd
  %buf = alloca [256 x i8]
  %res = alloca ptr
  %r = call i32 @getpwnam_r(ptr @name, ptr %pw, ptr %buf, i64 256, ptr %res)
  %got = load ptr, ptr %res
  %pw_name = load ptr, ptr %got
  %dirp = getelementptr %struct.passwd, ptr %got, i32 0, i32 5
  %pw_dir = load ptr, ptr %dirp
  %he = alloca %struct.hostent
  %hbuf = alloca [64 x ptr]
  %hres = alloca ptr
  %herr = alloca i32
  %r2 = call i32 @gethostbyname_r(ptr @name, ptr %he, ptr %hbuf, i64 512, ptr %hres, ptr %herr)
  %hgot = load ptr, ptr %hres
  %aliasp = getelementptr %struct.hostent, ptr %hgot, i32 0, i32 1
  %aliases = load ptr, ptr %aliasp
  %alias0 = load ptr, ptr %aliases
  ret i32 0
}
"""


def test_reentrant_lookup_result_is_callers_struct_pointing_into_buffer(tmp_path):
    """getpwnam_r: *result points to the caller's struct, whose pw_name and
    pw_dir point into the caller's buffer; gethostbyname_r: h_aliases points
    into the buffer, and so do the alias strings the buffer's list holds."""
    cs, _, sol = _solve_ir(tmp_path, LOOKUP_R_IR)
    assert "*main:%pw" in sol.points_to_names("main:%got")
    assert all(n.startswith("*main:%pw") for n in sol.points_to_names("main:%got"))
    for field in ("main:%pw_name", "main:%pw_dir"):
        pts = sol.points_to_names(field)
        assert "*main:%buf" in pts and all(n.startswith("*main:%buf") for n in pts)
    assert "*main:%he" in sol.points_to_names("main:%hgot")
    for v in ("main:%aliases", "main:%alias0"):
        pts = sol.points_to_names(v)
        assert "*main:%hbuf" in pts and all(n.startswith("*main:%hbuf") for n in pts)
    # the int *h_errnop receives nothing
    assert sol.points_to_names("*main:%herr") == []


MISC_IR = """
%struct.sigevent = type { ptr, i32, i32, { ptr, ptr, [32 x i8] } }
@flag = global i32 0
@timer_id = global ptr null
@s = global [16 x i32] zeroinitializer
@delim = global [2 x i32] zeroinitializer
@save = global ptr null
@data = global [32 x i8] zeroinitializer
@seen = global ptr null
declare ptr @shmat(i32, ptr, i32)
declare ptr @wcstok(ptr, ptr, ptr)
declare ptr @crypt_r(ptr, ptr, ptr)
declare ptr @strptime(ptr, ptr, ptr)
declare ptr @__sched_cpualloc(i64)
declare ptr @acl_get_file(ptr, i32)
declare i32 @timer_create(i32, ptr, ptr)
define void @notify(ptr %v) {
  store ptr %v, ptr @seen
  ret void
}
define i32 @main() {
  %a = call ptr @shmat(i32 1, ptr null, i32 0)
  %b = call ptr @shmat(i32 2, ptr null, i32 0)
  %t1 = call ptr @wcstok(ptr @s, ptr @delim, ptr @save)
  %t2 = call ptr @wcstok(ptr null, ptr @delim, ptr @save)
  %c = call ptr @crypt_r(ptr @data, ptr @data, ptr @data)
  %p = call ptr @strptime(ptr @s, ptr @delim, ptr null)
  %set = call ptr @__sched_cpualloc(i64 64)
  %acl = call ptr @acl_get_file(ptr @data, i32 32768)
  %ev = alloca %struct.sigevent
  store ptr @flag, ptr %ev
  %un = getelementptr %struct.sigevent, ptr %ev, i32 0, i32 3
  store ptr @notify, ptr %un
  %r = call i32 @timer_create(i32 1, ptr %ev, ptr @timer_id)
  %tid = load ptr, ptr @timer_id
  ret i32 0
}
"""


def test_pointer_effects_of_corpus_models(tmp_path):
    """shmat and __sched_cpualloc return fresh objects (one per call site);
    wcstok returns into its string, also when it continues from *saveptr;
    crypt_r returns into its data; strptime into its input; acl_get_file an
    opaque object; timer_create stores an opaque timer into *timerid and its
    SIGEV_THREAD function is called with sigev_value."""
    cs, _, sol = _solve_ir(tmp_path, MISC_IR)
    a, b = sol.points_to_names("main:%a"), sol.points_to_names("main:%b")
    assert len(a) == 1 and len(b) == 1 and a != b
    assert a[0].startswith("*main:") and b[0].startswith("*main:")
    assert sol.points_to_names("main:%set") and sol.points_to_names("main:%set")[0].startswith("*main:")
    for v in ("main:%t1", "main:%t2", "main:%p"):
        pts = sol.points_to_names(v)
        assert "*@s" in pts and all(n.startswith("*@s") for n in pts), (v, pts)
    assert "*@data" in sol.points_to_names("main:%c")
    assert sol.points_to_names("main:%acl") == ["*acl_get_file()"]
    tid = sol.points_to_names("main:%tid")
    assert len(tid) == 1 and tid[0].startswith("*main:")
    assert "*@flag" in sol.points_to_names("notify:%v")
    assert "*@flag" in sol.points_to_names("*@seen")


NO_EFFECT_IR = """
%struct.iovec = type { ptr, i64 }
@buf = global [64 x i8] zeroinitializer
@iov = global %struct.iovec { ptr @buf, i64 64 }
@name = global [4 x i8] c"abc\\00"
declare i64 @readv(i32, ptr, i32)
declare i64 @writev(i32, ptr, i32)
declare i32 @sem_init(ptr, i32, i32)
declare i32 @sched_getaffinity(i32, i64, ptr)
declare i64 @getxattr(ptr, ptr, ptr, i64)
declare i32 @ttyname_r(i32, ptr, i64)
declare i32 @socketpair(i32, i32, i32, ptr)
declare i32 @forkpty(ptr, ptr, ptr, ptr)
declare i32 @msgrcv(i32, ptr, i64, i64, i32)
declare i32 @semctl(i32, i32, i32, ...)
declare i32 @sigwaitinfo(ptr, ptr)
declare i32 @timer_settime(ptr, i32, ptr, ptr)
declare i64 @wcsftime(ptr, i64, ptr, ptr)
define i32 @main() {
  %x = alloca [8 x ptr]
CALLS
  ret i32 0
}
"""

NO_EFFECT_CALLS = """
  %1 = call i64 @readv(i32 0, ptr @iov, i32 1)
  %2 = call i64 @writev(i32 1, ptr @iov, i32 1)
  %3 = call i32 @sem_init(ptr %x, i32 0, i32 1)
  %4 = call i32 @sched_getaffinity(i32 0, i64 64, ptr %x)
  %5 = call i64 @getxattr(ptr @name, ptr @name, ptr @buf, i64 64)
  %6 = call i32 @ttyname_r(i32 0, ptr @buf, i64 64)
  %7 = call i32 @socketpair(i32 1, i32 1, i32 0, ptr %x)
  %8 = call i32 @forkpty(ptr %x, ptr @buf, ptr null, ptr null)
  %9 = call i32 @msgrcv(i32 0, ptr %x, i64 64, i64 0, i32 0)
  %10 = call i32 (i32, i32, i32, ...) @semctl(i32 0, i32 0, i32 2, ptr %x)
  %11 = call i32 @sigwaitinfo(ptr @buf, ptr %x)
  %12 = call i32 @timer_settime(ptr null, i32 0, ptr %x, ptr %x)
  %13 = call i64 @wcsftime(ptr %x, i64 8, ptr @name, ptr @buf)
"""


def test_no_effect_models_add_no_constraints(tmp_path):
    """readv, writev, sem_init, getxattr, semctl, ... are modelled (not reported)
    and add not one constraint: the module extracts to the same constraints as
    one without the calls."""
    from constraints.llvm import extract_with_stats as ews

    with_calls = tmp_path / "with.ll"
    with_calls.write_text(NO_EFFECT_IR.replace("CALLS", NO_EFFECT_CALLS))
    without = tmp_path / "without.ll"
    without.write_text(NO_EFFECT_IR.replace("CALLS", ""))
    cs1, st1 = ews([with_calls])
    cs2, st2 = ews([without])
    assert not st1.unmodelled_calls
    assert st1.constraints == st2.constraints
    assert sum(st1.constraints.values()) > 0
