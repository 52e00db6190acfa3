"""External-function models: every model's effects on a generated call, corpus models, newer bitcode.

:func:`test_every_model_has_its_effects` calls one function of each distinct model
of :mod:`constraints.llvm.externals` in one generated module (arguments point to
records whose slots point to records of their own; callbacks store their parameters
into globals) and checks each effect of the model in the solution. Alias-assertion
programs that exercise models in C live in ``tests/llvm/`` (lib_static_self_linked.c,
iconv_advances.c, getaddrinfo_list.c, pthread_specific.c, obstack_alloc.c,
zlib_stream.c, lib_records_globals.c, libevent_callbacks.c) and run in test_llvm_aliases.
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


def test_corpus_externals_have_models():
    """Every external the corpus called without a model before these were added, and
    the variants glibc's headers call instead (large-file, fortified, C99 scanf)."""
    variants = "glob64 globfree64 statfs64 pwritev64 readdir64 scandir64 nftw64 __fgets_chk __realpath_chk " \
               "__asprintf_chk __isoc99_sscanf __exp_finite __sysv_signal".split()
    outside = ["inotify_add_watch"]   # lighttpd's one, built outside the corpus's default list
    missing = [n for n in CORPUS_EXTERNALS + CORPUS_EXTERNALS_2 + variants + outside if model_for(n) is None]
    assert not missing, f"no model: {missing}"
    assert model_for("__realpath_chk") == model_for("realpath") and model_for("glob64") == model_for("glob")


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


# ------------------------------------------------------- every model, table-driven
NARGS = 8  # the highest argument index any model names (codecvt's do_in and do_out: 7) + 1
RECORD_SLOTS = 9  # the most slots a model reads a callback from (glob_t's gl_stat, slot 8) + 1


def _models_by_effects():
    """``{model: representative name}`` for every distinct model with a callable
    representative (not an intrinsic: those need their own signatures; va_start and
    va_copy, intrinsic-only, are covered by tests/llvm/varargs_*.c)."""
    from constraints.llvm.externals import MODELS

    out = {}
    for name, model in MODELS.items():
        if model not in out and not name.startswith("llvm.") and name not in ("alloca",):
            out[model] = name
    return out


def _fp_refs(model):
    """Items naming the function a ``call`` effect calls (for ``call_reached`` on argument a: the
    module puts a function in slot 0 of a's record)."""
    return [e[1] for e in model if e[0] == "call"] + [f"*{e[1]}" for e in model if e[0] == "call_reached"]


def _module(models):
    """One ``.ll`` module: call ``i`` of each model's representative, its own arguments."""
    lines = ["%rec = type { " + ", ".join(["ptr"] * RECORD_SLOTS) + " }"]
    body = []
    for i, (model, name) in enumerate(models):
        fps = _fp_refs(model)
        for k in range(NARGS):
            for j in range(2):
                lines.append(f"@T{i}_{k}_{j} = global %rec zeroinitializer")
            slot0 = f"@cb{i}" if f"*{k}" in fps else f"@T{i}_{k}_0"
            slot1 = f"@cb{i}" if f"*+{k}" in fps else f"@T{i}_{k}_1"
            rest = [f"ptr @cb{i}" if f"*{k}.{j}" in fps else "ptr null" for j in range(2, RECORD_SLOTS)]
            lines.append(f"@A{i}_{k} = global %rec {{ " + ", ".join([f"ptr {slot0}", f"ptr {slot1}"] + rest) + " }")
        if fps:
            params = ", ".join(f"ptr %p{j}" for j in range(6))
            for j in range(6):
                lines.append(f"@S{i}_{j} = global ptr null")
            stores = "".join(f"  store ptr %p{j}, ptr @S{i}_{j}\n" for j in range(6))
            lines.append(f"define void @cb{i}({params}) {{\n{stores}  ret void\n}}")
        lines.append(f"declare ptr @{name}({', '.join(['ptr'] * NARGS)})")
        args = ", ".join(f"ptr @cb{i}" if k in fps else f"ptr @A{i}_{k}" for k in range(NARGS))
        body.append(f"  %r{i} = call ptr @{name}({args})")
    lines.append("define i32 @main() {\n" + "\n".join(body) + "\n  ret i32 0\n}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def every_model(tmp_path_factory):
    from andersen_gpu.backends.reference import solve

    models = sorted(_models_by_effects().items(), key=lambda kv: kv[1])
    with_effects = [(m, n) for m, n in models if m]
    path = tmp_path_factory.mktemp("models") / "every_model.ll"
    path.write_text(_module(with_effects))
    cs, stats = extract_with_stats([path])
    sol = solve(cs)
    sol.names = cs.names
    return with_effects, cs, stats, sol


def _slot(i, k, j, fps):
    """What slot ``j`` (0 or 1) of argument ``k``'s record of call ``i`` holds at first."""
    return f"@cb{i}" if (j == 0 and f"*{k}" in fps) or (j == 1 and f"*+{k}" in fps) else f"*@T{i}_{k}_{j}"


def _expect(r, i, sol, fps=()):
    """Names some of whose pointees ``r`` must hold (a subset is enough: effects add more)."""
    if r == "ret":
        return set(sol.points_to_names(f"main:%r{i}"))
    if isinstance(r, int):
        return {f"@cb{i}" if r in fps else f"*@A{i}_{r}"}
    if r.startswith("kept:"):  # what a callback's result left in the object named so
        return _content(sol, {f"*{r[5:]}()"})
    if r.startswith("*") and "." in r:  # slot j of the record: the callback the module put there
        return {f"@cb{i}"} if r in fps else set()
    if r.startswith("*+"):
        k = int(r[2:])
        return {_slot(i, k, 0, fps), _slot(i, k, 1, fps)}
    if r.startswith("*"):
        return {_slot(i, int(r[1:]), 0, fps)}
    k = int(r[1:])
    return {f"*@A{i}_{k}"} | {f"*@A{i}_{k}#{j}" for j in range(1, 4)}


def _content(sol, objs):
    out = set()
    for o in objs:
        out |= set(sol.points_to_names(o))
    return out


def _check(model, name, i, sol):
    """The problems of call ``i`` of ``name`` against each effect of ``model``."""
    res = set(sol.points_to_names(f"main:%r{i}"))
    fps = _fp_refs(model)
    bad = []
    for eff in model:
        kind = eff[0]
        if kind == "alloc":
            if not any(n.startswith(f"*main:%r{i}") for n in res):
                bad.append("no heap object")
        elif kind in ("alloc_out", "alloc_into"):
            got = _content(sol, _expect(eff[1], i, sol, fps))
            tag = ".out" if kind == "alloc_out" else ".into"
            fresh = [n for n in got if n.startswith(f"*main:%r{i}{tag}")]
            if not fresh:
                bad.append(f"{kind}: nothing fresh in {sorted(got)}")
            elif eff[2:] == ("linked",) and fresh[0] not in sol.points_to_names(fresh[0]):
                bad.append(f"{kind}: {fresh[0]} does not point into itself")
        elif kind == "text_into":
            if f"*{eff[2]}()" not in _content(sol, _expect(eff[1], i, sol, fps)):
                bad.append(f"text_into: the argument's record misses *{eff[2]}()")
        elif kind == "smear_fields":
            if f"*@T{i}_{eff[1]}_0#1" not in _content(sol, {f"*@A{i}_{eff[1]}"}):
                bad.append("smear_fields: pointer not advanced")
        elif kind in ("static", "static_text"):
            if f"*{name}()" not in res:
                bad.append(f"{kind}: result misses *{name}()")
        elif kind == "keep":
            key = eff[2] if len(eff) > 2 else name
            if not _expect(eff[1], i, sol, fps) <= _content(sol, {f"*{key}()"}):
                bad.append("keep: the kept object misses the argument")
        elif kind == "ret_kept":
            key = eff[1] if len(eff) > 1 else name
            if not _content(sol, {f"*{key}()"}) <= res:
                bad.append("ret_kept: result misses the kept pointers")
        elif kind == "store_kept":
            key = eff[2] if len(eff) > 2 else name
            if not _content(sol, {f"*{key}()"}) <= _content(sol, _expect(eff[1], i, sol, fps)):
                bad.append("store_kept: the argument misses the kept pointers")
        elif kind in ("ret_arg", "ret_into"):
            if not _expect(eff[1], i, sol, fps) <= res:
                bad.append(f"{kind}: result misses {eff[1]}")
        elif kind == "copy":
            d = sorted(_expect(eff[1], i, sol, fps))[0] if eff[1] != "ret" else \
                next(n for n in res if n.startswith(f"*main:%r{i}"))
            # a destination of unknown layout (a result block) is one field-insensitive node
            d1 = d + "#1" if d + "#1" in sol.names else d
            if _slot(i, eff[2], 0, fps) not in sol.points_to_names(d) or \
                    _slot(i, eff[2], 1, fps) not in sol.points_to_names(d1):
                bad.append(f"copy: {d} misses the source's slots")
        elif kind == "store_into":
            want = _expect(eff[2], i, sol, fps)
            for o in _expect(eff[1], i, sol, fps) if not isinstance(eff[1], str) or eff[1][0] != "+" else \
                    [sorted(_expect(eff[1], i, sol, fps))[0]]:
                if not want <= set(sol.points_to_names(o)):
                    bad.append(f"store_into: {o} misses {sorted(want - set(sol.points_to_names(o)))}")
        elif kind == "call":
            for j, r in enumerate(eff[2]):
                seen = set(sol.points_to_names(f"*@S{i}_{j}"))
                want = {f"*{name}()"} if r == "static" else set() if r == "int" else _expect(r, i, sol, fps)
                if not want <= seen:
                    bad.append(f"call: parameter {j} misses {sorted(want - seen)}")
        elif kind == "call_reached":  # the function in the argument's record gets the record and itself
            seen = set(sol.points_to_names(f"*@S{i}_0"))
            want = {f"*@A{i}_{eff[1]}", f"@cb{i}"}
            if not want <= seen:
                bad.append(f"call_reached: parameter 0 misses {sorted(want - seen)}")
        elif kind == "ret_exported":  # the generated call passes a handle: the library's symbols only
            if {"@main", f"@cb{i}"} & res:
                bad.append("ret_exported: a handle's symbol is one of the program's functions")
        elif kind == "store_exported":  # the generated call passes a name: no program handle
            if any(n.startswith("@") for n in _content(sol, {r for r in res if r.startswith("*main:")})):
                bad.append("store_exported: a library's handle holds the program's functions")
        elif kind == "throw":
            if not _expect(eff[1], i, sol, fps) <= set(sol.points_to_names("<exception>")):
                bad.append("throw: not in flight")
        else:
            bad.append(f"no check for effect {kind}")
    return bad


def test_every_model_has_its_effects(every_model):
    """Each distinct model (its first name in the table) on a generated call: every
    effect it lists is visible in the solution (see :func:`_check`)."""
    models, cs, stats, sol = every_model
    assert not stats.unmodelled_calls
    assert len(models) >= 60
    problems = {name: p for i, (model, name) in enumerate(models) if (p := _check(model, name, i, sol))}
    assert not problems, problems


def test_models_without_effects_add_nothing(tmp_path):
    """Every name whose model is ``()``, called with pointers, adds not one constraint:
    the module extracts to the constraints of the same module without the calls."""
    from constraints.llvm.externals import MODELS

    names = [n for n, m in MODELS.items() if m == () and not n.startswith("llvm.")]
    decls = "".join(f"declare ptr @{n}(ptr, ptr)\n" for n in names)
    calls = "".join(f"  %r{k} = call ptr @{n}(ptr @a, ptr @b)\n" for k, n in enumerate(names))
    head = "@t = global i32 0\n@a = global ptr @t\n@b = global ptr @a\n" + decls
    with_calls, without = tmp_path / "with.ll", tmp_path / "without.ll"
    with_calls.write_text(head + "define i32 @main() {\n" + calls + "  ret i32 0\n}\n")
    without.write_text(head + "define i32 @main() {\n  ret i32 0\n}\n")
    cs1, st1 = extract_with_stats([with_calls])
    cs2, st2 = extract_with_stats([without])
    assert len(names) > 500 and not st1.unmodelled_calls
    assert st1.constraints == st2.constraints


UNMODELLED_IR = """
@g = global i32 0
declare double @mystery_math(double)
declare void @llvm.ubsantrap(i8 immarg)
declare ptr @mystery_ptr(ptr)
declare void @register_cb(ptr, ptr)
define void @cb(ptr %x) {
  ret void
}
define i32 @main() {
  %a = call double @mystery_math(double 1.0)
  call void @llvm.ubsantrap(i8 3)
  %p = call ptr @mystery_ptr(ptr @g)
  call void @register_cb(ptr @cb, ptr @g)
  ret i32 0
}
"""


def test_unmodelled_functions_that_move_pointers_are_reported(tmp_path):
    """Only externals that can move a pointer (a pointer argument or result) are listed
    as unmodelled (not math or llvm.ubsantrap); a function handed to one is listed as a
    callback and receives what the call was given, and what that reaches (g holds what
    the two unmodelled calls wrote into it); the pointer result points to an object of the
    function's own and into its arguments."""
    from andersen_gpu.backends.reference import solve

    path = tmp_path / "unmodelled.ll"
    path.write_text(UNMODELLED_IR)
    cs, stats = extract_with_stats([path])
    assert dict(stats.unmodelled_calls) == {"mystery_ptr": 1, "register_cb": 1}
    assert dict(stats.callbacks) == {("register_cb", "cb"): 1}
    assert "  register_cb <- @cb x1" in stats.lines()
    sol = solve(cs)
    sol.names = cs.names
    assert set(sol.points_to_names("cb:%x")) == {"*@g", "@cb", "*mystery_ptr()", "*register_cb()"}
    assert set(sol.points_to_names("main:%p")) == {"*mystery_ptr()", "*@g"}


TAKEN_IR = """
@table = global [2 x ptr] [ptr @mystery_taken, ptr @sqrt]
declare ptr @mystery_taken(ptr)
declare double @sqrt(double)
declare double @mystery_math(double)
@math = global ptr @mystery_math
define i32 @main() {
  ret i32 0
}
"""


def test_address_taken_unmodelled_functions_are_reported(tmp_path):
    """An external with no model whose address is taken (a table of function pointers) is
    listed as unmodelled as a direct call to it would be, where it can move a pointer; one
    with no pointer in or out is not."""
    path = tmp_path / "taken.ll"
    path.write_text(TAKEN_IR)
    _, stats = extract_with_stats([path])
    assert dict(stats.unmodelled_calls) == {"mystery_taken": 1}


CPP_LIBRARY_MEMBERS_TAKEN = r"""
#include <codecvt>
#include <iostream>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <string>
template <class F> struct deletable : F {
  using F::F;
  ~deletable() {}
};
int main(int argc, char **argv) {
  std::ostringstream os;
  os << argc << std::endl << std::flush;
  std::istringstream is(" 1");
  is >> std::ws;
  std::wstring_convert<deletable<std::codecvt_utf8<wchar_t>>> conv;
  std::string bytes = conv.to_bytes(L"abc");
  std::wstring wide = conv.from_bytes(bytes);
  std::locale loc(argc > 1 ? argv[1] : "C");
  if (argc > 5) throw std::out_of_range("x");
  if (argc > 6) throw std::overflow_error("y");
  return (int)wide.size() + (int)os.str().size() + (loc.name().empty() ? 1 : 0);
}
"""


def test_cpp_library_members_a_program_takes_the_address_of_have_models(tmp_path):
    """What a C++ program hands the library by address (the manipulators std::endl, std::flush
    and std::ws; the destructors __cxa_throw receives; the std::codecvt_utf8 members in the virtual
    table of a facet it derives) and std::wstring's members all have models: none is reported."""
    src = tmp_path / "taken.cc"
    src.write_text(CPP_LIBRARY_MEMBERS_TAKEN)
    _, stats = extract_with_stats([src])
    assert not stats.unmodelled_calls, dict(stats.unmodelled_calls)


LOADED_CODE_C = r"""
#include <dlfcn.h>
#include <stdio.h>
int plugin_api(int *p) { return *p; }
int main(int argc, char **argv) {
  void *h = dlopen(argc > 1 ? argv[1] : "libm.so.6", RTLD_NOW);
  double (*f)(double) = (double (*)(double))dlsym(h, "cos");
  int (*self)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "plugin_api");
  void *next = dlsym(RTLD_NEXT, "malloc");
  int x = 1;
  printf("%f %d %p\n", f(0.0), self(&x), next);
  return 0;
}
"""


def test_dlsym_into_code_loaded_at_run_time_is_reported(tmp_path):
    """dlsym with a library handle (and RTLD_NEXT) finds code outside the program, whose effects on
    what a call through the pointer passes are not modelled: counted and reported; with a null
    handle (RTLD_DEFAULT) it finds the program's own functions, which are modelled."""
    src = tmp_path / "dl.c"
    src.write_text(LOADED_CODE_C)
    _, stats = extract_with_stats([src])
    assert stats.loaded_code_lookups == 2
    assert "dlsym calls into code loaded at run time (modelled as unknown code): 2" in stats.lines()


LOADED_CALL_IR = """
@plugin_name = global [5 x i8] c"init\\00"
@x = global i32 0
@y = global i32 0
@cb_seen = global ptr null
declare ptr @dlopen(ptr, i32)
declare ptr @dlsym(ptr, ptr)
define void @callback(ptr %p) {
  store ptr %p, ptr @cb_seen
  ret void
}
define i32 @main() {
  %h = call ptr @dlopen(ptr @plugin_name, i32 2)
  %f = call ptr @dlsym(ptr %h, ptr @plugin_name)
  %out = alloca ptr
  %ret = call ptr %f(ptr @x, ptr %out, ptr @callback)
  %got = load ptr, ptr %out
  %self = call ptr @dlsym(ptr null, ptr @plugin_name)
  ret i32 0
}
"""


def test_a_call_into_code_loaded_at_run_time_is_unknown_code(tmp_path):
    """A symbol dlsym finds in a library is a function of unknown effect (the unmodelled default):
    a call through it may return what it was given and write it into what it was given, and calls
    back the functions it can reach, with what it was given. With a null handle dlsym finds the
    program's own functions only (not the loaded code)."""
    from andersen_gpu.backends.reference import solve

    path = tmp_path / "m.ll"
    path.write_text(LOADED_CALL_IR)
    cs, stats = extract_with_stats([path])
    sol = solve(cs)
    sol.names = cs.names
    assert stats.loaded_code_lookups == 1
    assert "@dlsym.loaded" in sol.points_to_names("main:%f")
    assert "@dlsym.loaded" not in sol.points_to_names("main:%self")
    for v in ("main:%ret", "main:%got"):
        assert {"*@x", "*dlsym.loaded()"} <= set(sol.points_to_names(v)), v
    assert "*@y" not in sol.points_to_names("main:%got")
    assert "*@x" in sol.points_to_names("*@cb_seen")         # the callback was called with &x


def test_loaded_code_is_unknown_code_to_the_alias_facts(tmp_path):
    """The alias facts give unknown code's results the int-to-pointer object U: a pointer loaded code
    returns or writes into the program's memory may be anything, like an unmodelled call's."""
    from andersen_gpu import solve
    from andersen_gpu.aliasfacts.facts import with_unknown_externals

    path = tmp_path / "m.ll"
    path.write_text(LOADED_CALL_IR)
    cs, stats = extract_with_stats([path], record_sites=True)
    assert stats.access_sites.function_class["dlsym.loaded"] == "unmodelled"
    full = with_unknown_externals(cs, stats.access_sites)
    sol = solve(full, backend="reference")
    u = full.int_to_pointer
    index = {name: v for v, name in enumerate(full.names)}
    for v in ("main:%ret", "main:%got"):
        assert u in sol.points_to(index[v]).tolist(), v


HEAP_LAYOUT_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <dlfcn.h>
struct S { int *a; int *b; };
struct Big { int *p[1]; int *q0, *q1, *q2, *q3, *q4, *q5, *q6, *q7, *q8, *q9; } big;
int x;
struct S *kept;
int main(int argc, char **argv) {
  struct S *typed = malloc(argc * sizeof *typed);            /* used as struct S only */
  typed->b = &x;
  struct S *moved = malloc(argc * sizeof *moved);            /* a pointer moved back into it */
  moved->b = &x;
  int **before = (int **)((char *)&moved->b - sizeof(int *));
  *before = &x;
  kept = malloc(argc * sizeof *kept);                        /* escapes: field-insensitive */
  FILE *f = fopen(argv[0], "r");
  DIR *d = opendir(".");
  void *h = dlopen(0, RTLD_NOW);
  return typed->a == 0 && f && d && h;
}
"""


def test_heap_objects_take_the_layout_of_their_use(tmp_path):
    """An allocation whose pointers never leave its function has the slots its uses reach (two:
    struct S); one moved back by a byte offset is one field-insensitive node; one of unknown size
    that escapes is a field-insensitive object of the model (where it took the largest struct's
    slots); a FILE has its record's, a DIR and dlopen's handle one; a function's parameter slots
    take no offset."""
    src = tmp_path / "heap.c"
    src.write_text(HEAP_LAYOUT_C)
    cs, _ = extract_with_stats([src])
    size = {name: int(cs.obj_size[cs.node_id(name)]) for name in
            ("*main:%call", "*main:%call3", "*main:%call8", "*main:%call9", "*main:%call10", "*main:%call11")}
    assert size == {"*main:%call": 2, "*main:%call3": 1, "*main:%call8": 1, "*main:%call9": 29,
                    "*main:%call10": 1, "*main:%call11": 1}
    assert [cs.names[z] for z in cs.field_insensitive if cs.names[z].startswith("*main:%call")] == ["*main:%call8"]
    # a function's slots are not memory: an offset applies from @main only
    main = cs.node_id("@main")
    assert [int(x) for x in cs.obj_size[main:main + 4]] == [4, 1, 1, 1]
    assert [cs.names[main + k] for k in range(4)] == ["@main", "@main#ret", "@main#arg0", "@main#arg1"]
