"""Models of external functions: what a call does to points-to sets.

Each model is a short tuple of effects, applied by the extractor at a direct
call to a function the program does not define. In an effect, an integer
``a`` is the call's 0-based argument ``a``, ``"*a"`` is what argument ``a``
points to (one load), ``"+a"`` is any address inside the objects argument
``a`` points to (an element of an array), ``"*+a"`` is what any slot of those
objects holds (a field past the first: sigevent's notify function) and
``"*a.k"`` is what slot ``k`` of those objects holds (glob's directory functions) and
``"ret"`` is the call's result.

========================  ==========================================================
effect                    meaning
========================  ==========================================================
``("alloc",)``            the result points to a fresh heap object of this call site (with
                          the slots of its C record where the library fixes its type:
                          :data:`STATIC_RECORDS`: fopen's FILE)
``("alloc_out", a)``      ``*arg[a]`` receives a fresh heap object (posix_memalign);
                          ``("alloc_out", a, "linked")``: one whose every slot may point
                          anywhere inside it (getaddrinfo's list of nodes)
``("alloc_into", a)``     every slot of ``*arg[a]`` may receive a fresh heap object
                          (obstack chunks, zlib's internal state); ``("alloc_into", a,
                          "linked")``: one whose every slot may point anywhere inside it
                          (glob's ``gl_pathv`` array with its strings)
``("text_into", a, key)`` every slot of ``*arg[a]`` may point to the library's text object
                          named ``key``, which holds no pointer (localtime_r's tm_zone: a
                          zone name)
``("smear_fields", a)``   every pointer in ``*arg[a]`` may be advanced anywhere inside
                          what it points to (z_stream's next_in/next_out after deflate)
``("static",)``           the result points to one object per callee (getpwnam, localtime,
                          ...), whose slots may point anywhere inside it (library memory)
``("static_text",)``      the result points to one object per callee that holds no
                          pointer: a library-owned string or plain record (getenv,
                          strerror, readdir); one slot, like a ``char`` array, or the
                          slots of its C record (:data:`STATIC_RECORDS`: readdir's dirent)
``("keep", a[, key])``    that per-callee object (or the one named ``key``) receives
                          ``arg[a]`` (signal's handler, pthread_setspecific's value)
``("ret_kept"[, key])``   the result may be what that object holds
``("store_kept", a[, key])`` ``*arg[a]`` receives what that object holds (sigaction's old
                          action: a handler installed before)
``("ret_exported", a)``   when argument ``a`` is null, the result may be any function the
                          program exports (not ``internal`` or ``private``): ``dlsym(NULL,
                          name)`` finds the program's own functions
``("store_exported", a)`` when argument ``a`` is null, ``*ret`` receives every function the
                          program exports (``dlopen(NULL)``: the program's own handle)
``("ret_arg", a)``        the result may be ``a``
``("ret_into", a)``       the result may point anywhere inside the objects ``a`` points to
``("copy", d, s)``        every slot of ``*s`` flows to the same slot of ``*d``
``("store_into", d, s)``  ``*d`` receives pointers anywhere inside ``s``'s objects (strtol)
``("call", f, args)``     ``f`` is called with ``args``; an argument ``"int"`` passes no
                          pointer, ``"static"`` passes the per-callee object, ``"kept:KEY"``
                          what the object named ``KEY`` holds; ``("call", f, args, KEY)``:
                          ``f``'s result is kept in that object (glob's gl_opendir stream,
                          passed on to gl_readdir and gl_closedir)
``("call_reached", a)``   every function that memory reachable from ``a`` holds (a table of
                          callbacks, an object's virtual table) is called with anything
                          reachable from ``a`` as each argument (std::thread's state; what an
                          unmodelled function does to what it is given)
``("throw", a)``          ``a`` becomes the in-flight exception
``("va_start", a)``       ``*arg[a]`` (a va_list) is set to this function's varargs
``("va_copy", d, s)``     va_list copy
``()``                    no effect on pointers (printf, strlen, free, ...)
========================  ==========================================================

:func:`model_for` also understands ``llvm.*`` intrinsics by their base name. The
large-file and checking variants of a modelled name (``glob64``, ``__fgets_chk``,
``__isoc99_sscanf``, ``__exp_finite``) share its model (:func:`_variants`, applied
to the table once it is complete), unless the table models them itself.

A modelled function whose address the program takes applies its model to the slots
of its function object, once per function, so that a call through a pointer gets it
too (``calloc`` passed as an allocator). Anything without a model is reported by the
extractor when it can move pointers (a pointer parameter, result or varargs), never
dropped silently: its pointer result, and every slot of the memory it is given (an
out parameter), may point to an object of its own and anywhere into what it was
given, and the functions handed to it may be called with that; so may every function
that memory reachable from its arguments holds, with anything reachable from them.
"""

from __future__ import annotations

ALLOC = (("alloc",),)
STATIC = (("static",),)
STATIC_TEXT = (("static_text",),)
NONE = ()
RET0 = (("ret_arg", 0),)
RET_INTO0 = (("ret_into", 0),)
MEMCPY = (("copy", 0, 1), ("ret_arg", 0))

MODELS: dict[str, tuple] = {}


def _linked(*refs) -> tuple:
    """Every slot of the objects each ref points to may point anywhere inside the objects every
    ref points to: the model of library code that relinks nodes among themselves (a list's or a
    tree's), whichever allocation sites the nodes come from."""
    return tuple(("store_into", d, s) for d in refs for s in refs)


def _add(names: str, model: tuple) -> None:
    for name in names.split():
        MODELS[name] = model


# allocation
_add("freopen64 tmpfile64 malloc calloc valloc pvalloc aligned_alloc memalign strdup strndup __strdup __strndup "
     "_Znwm _Znam _ZnwmRKSt9nothrow_t _ZnamRKSt9nothrow_t _ZnwmSt11align_val_t _ZnamSt11align_val_t "
     "_ZnwmSt11align_val_tRKSt9nothrow_t _ZnamSt11align_val_tRKSt9nothrow_t _Znwj _Znaj "
     "__cxa_allocate_exception mmap mmap64 fopen fopen64 fdopen freopen tmpfile popen opendir fdopendir "
     "open_memstream fmemopen tempnam get_current_dir_name newlocale duplocale", ALLOC)
_add("realloc reallocarray", (("alloc",), ("copy", "ret", 0), ("ret_arg", 0)))  # may grow in place
MODELS["mremap"] = MODELS["realloc"]   # a mapping moved or grown with its contents (sqlite3's VFS takes its address)
_add("posix_memalign", (("alloc_out", 0),))
_add("asprintf vasprintf", (("alloc_out", 0),))
_add("getline getdelim", (("alloc_out", 0),))
_add("scandir", (("alloc_out", 1),))
_add("realpath", (("alloc",), ("ret_arg", 1)))
_add("getcwd", (("alloc",), ("ret_arg", 0)))

# objects owned by the library: records whose pointers point into library memory
# (struct tm's tm_zone, struct passwd's strings, the ctype tables' pointer) ...
_add("localtime gmtime localtime_r gmtime_r getpwnam getpwuid getgrnam getgrgid getpwent getgrent "
     "__ctype_b_loc __ctype_tolower_loc __ctype_toupper_loc gethostbyname gethostbyaddr getservbyname "
     "getprotobyname localeconv __environ_location getmntent", STATIC)
# dlsym: a library's symbol, or, with a null handle (RTLD_DEFAULT), one of the program's
# own (lighttpd's built-in plugins' init functions are found by name that way)
# or through the handle dlopen(NULL) returns, which holds them
_add("dlsym dlvsym", (("static",), ("ret_exported", 0), ("ret_arg", "*0")))
MODELS["dlopen"] = (("alloc",), ("store_exported", 0))
# ... and strings or records that hold no pointer: the library never writes a
# pointer into them, so they need neither the self-links nor more than one slot
_add("getenv secure_getenv strerror ctime asctime setlocale nl_langinfo tmpnam ttyname readdir readdir64 "
     "__errno_location __h_errno_location inet_ntoa dlerror getlogin strsignal ctermid getpass cuserid "
     "gai_strerror hstrerror textdomain bindtextdomain gettext dgettext dcgettext ngettext dngettext "
     "dcngettext __libc_current_sigrtmin __libc_current_sigrtmax strerror_l", STATIC_TEXT)
# the C record each of those returns: its object gets the slots of the program's
# type of that name, not the largest struct's, and at least those of glibc's
# x86-64 layout (RECORD_SLOTS: the program may name the type differently, or read
# the record through a type of its own); one slot for a record not in RECORD_SLOTS
# that the program never names (so never reaches a field by it)
STATIC_RECORDS = {
    "localtime": "tm", "gmtime": "tm", "getpwnam": "passwd", "getpwuid": "passwd", "getpwent": "passwd",
    "getgrnam": "group", "getgrgid": "group", "getgrent": "group", "gethostbyname": "hostent",
    "gethostbyaddr": "hostent", "getservbyname": "servent", "getservent": "servent", "getservbyport": "servent",
    "getprotobyname": "protoent", "getprotobynumber": "protoent", "getprotoent": "protoent",
    "localeconv": "lconv", "getmntent": "mntent",
    "__ctype_b_loc": None, "__ctype_tolower_loc": None, "__ctype_toupper_loc": None,  # one pointer
    "__environ_location": None,
    "readdir": "dirent", "readdir64": "dirent64",
    # and the records external globals point to (ModuleExtractor.library_global)
    "stdin": "_IO_FILE", "stdout": "_IO_FILE", "stderr": "_IO_FILE",
    # and the heap records of ("alloc",) models whose type the library fixes: a FILE, glibc's opaque
    # DIR (a type the program never names: one slot) and dlopen's handle (one pointer)
    "fopen": "_IO_FILE", "fdopen": "_IO_FILE", "freopen": "_IO_FILE", "tmpfile": "_IO_FILE", "popen": "_IO_FILE",
    "fmemopen": "_IO_FILE", "open_memstream": "_IO_FILE", "opendir": "__dirstream", "fdopendir": "__dirstream",
    "dlopen": None,
}
# slots of glibc's records (x86-64), as the extractor's types flatten them
RECORD_SLOTS = {"tm": 11, "passwd": 7, "group": 4, "hostent": 5, "servent": 4, "protoent": 3, "mntent": 6,
                "lconv": 24, "dirent": 5, "dirent64": 5, "_IO_FILE": 29}
# the library's zone names: one text object, "tzname", that tm_zone points to wherever the library
# fills a struct tm (localtime's own, the caller's in localtime_r and mktime) and that the tzname
# array holds (LIBRARY_GLOBAL_TEXT)
MODELS["localtime"] = (("static",), ("text_into", "ret", "tzname"))
MODELS["gmtime"] = MODELS["localtime"]
MODELS["localtime_r"] = (("ret_arg", 1), ("text_into", 1, "tzname"))
MODELS["gmtime_r"] = MODELS["localtime_r"]
_add("mktime timegm timelocal", (("text_into", 0, "tzname"),))
# library globals whose pointers point to a library text object of that key, not into a record of their own
LIBRARY_GLOBAL_TEXT = {"tzname": "tzname", "__tzname": "tzname"}
MODELS["ctime_r"] = (("ret_arg", 1),)
MODELS["asctime_r"] = (("ret_arg", 1),)
MODELS["gettext"] = (("static_text",), ("ret_arg", 0))
MODELS["dgettext"] = (("static_text",), ("ret_arg", 1))
MODELS["dcgettext"] = (("static_text",), ("ret_arg", 1))
MODELS["ngettext"] = (("static_text",), ("ret_arg", 0), ("ret_arg", 1))
MODELS["strerror_r"] = (("static_text",), ("ret_arg", 1))
MODELS["__xpg_strerror_r"] = NONE

# copying and returning an argument
_add("memcpy memmove __memcpy_chk __memmove_chk llvm.memcpy llvm.memmove llvm.memcpy.inline "
     "llvm.memcpy.element.unordered.atomic llvm.memmove.element.unordered.atomic", MEMCPY)
MODELS["bcopy"] = (("copy", 1, 0),)
MODELS["mempcpy"] = (("copy", 0, 1), ("ret_into", 0))
MODELS["__mempcpy"] = MODELS["mempcpy"]
MODELS["memccpy"] = (("copy", 0, 1), ("ret_into", 0))
_add("strcpy strncpy strcat strncat __strcpy_chk __strncpy_chk __strcat_chk __strncat_chk memset "
     "__memset_chk fgets fgets_unlocked gets strlwr strupr strrev", RET0)
_add("stpcpy stpncpy __stpcpy_chk", RET_INTO0)
_add("strchr strrchr strstr strcasestr strpbrk memchr memrchr rawmemchr strchrnul index rindex "
     "basename", RET_INTO0)
# dirname and POSIX basename: a pointer into the path, or a static "." (a null or slash-less path)
_add("dirname __xpg_basename", (("ret_into", 0), ("static_text",)))
MODELS["strsep"] = (("ret_into", "*0"),)
_add("strtok", (("static",), ("ret_into", 0)))
MODELS["strtok_r"] = (("ret_into", 0), ("store_into", 2, 0), ("ret_into", "*2"))
_add("strtol strtoul strtoll strtoull strtod strtof strtold strtoimax strtoumax strtol_l strtoul_l "
     "strtod_l __strtol_internal __strtoul_internal __isoc23_strtol __isoc23_strtoul __isoc23_strtoll "
     "__isoc23_strtoull", (("store_into", 1, 0),))
_add("llvm.ptrmask llvm.launder.invariant.group llvm.strip.invariant.group llvm.threadlocal.address "
     "llvm.preserve.array.access.index llvm.preserve.struct.access.index llvm.preserve.union.access.index "
     "llvm.expect.with.probability.ptr", RET0)

# callbacks
# what a thread's start routine returns, or gives pthread_exit, is what pthread_join gives back
MODELS["pthread_create"] = (("call", 2, (3,), "pthread.result"),)
MODELS["pthread_exit"] = (("keep", 0, "pthread.result"),)
_add("pthread_join pthread_tryjoin_np pthread_timedjoin_np pthread_clockjoin_np",
     (("store_kept", 1, "pthread.result"),))
MODELS["qsort"] = (("call", 3, ("+0", "+0")),)
MODELS["qsort_r"] = (("call", 3, ("+0", "+0", 4)),)
MODELS["bsearch"] = (("call", 4, (0, "+1")), ("ret_into", 1))
MODELS["lfind"] = (("call", 4, (0, "+1")), ("ret_into", 1))
MODELS["lsearch"] = MODELS["lfind"]
MODELS["tsearch"] = (("call", 2, (0, 0)), ("alloc",))
MODELS["tfind"] = (("call", 2, (0, 0)), ("static",))
MODELS["tdelete"] = (("call", 2, (0, 0)), ("static",))
MODELS["twalk"] = (("call", 1, ()),)
MODELS["atexit"] = (("call", 0, ()),)
MODELS["at_quick_exit"] = (("call", 0, ()),)
MODELS["__cxa_atexit"] = (("call", 0, (1,)),)
MODELS["on_exit"] = (("call", 0, ("int", 1)),)
MODELS["pthread_once"] = (("call", 1, ()),)
MODELS["pthread_key_create"] = (("call", 1, ("kept:pthread_specific",)),)  # the destructor gets the value
MODELS["pthread_atfork"] = (("call", 0, ()), ("call", 1, ()), ("call", 2, ()))
MODELS["signal"] = (("call", 1, ("int",)), ("keep", 1, "signal"), ("ret_kept", "signal"))
MODELS["sigset"] = MODELS["signal"]
MODELS["bsd_signal"] = MODELS["signal"]
MODELS["sysv_signal"] = MODELS["signal"]
MODELS["__sysv_signal"] = MODELS["signal"]
# sigaction installs act's handler and returns in *oact the one installed before (by
# signal or sigaction: one kept object)
MODELS["sigaction"] = (("copy", 2, 1), ("keep", "*1", "signal"), ("store_kept", 2, "signal"),
                       ("call", "*1", ("int", "static", "static")))
# sigaltstack returns in *old_ss the stack installed before (ss_sp, slot 0): one kept object
MODELS["sigaltstack"] = (("keep", "*0", "sigaltstack"), ("store_kept", 1, "sigaltstack"))
MODELS["ftw"] = (("call", 1, ("static", "static")),)
MODELS["nftw"] = (("call", 1, ("static", "static", "int", "static")),)

# glob fills *pglob: gl_pathv, an array of strings the library allocates, and calls
# errfunc(path, errno) on a directory it cannot read; with GLOB_ALTDIRFUNC it reads
# directories through the functions in *pglob (glibc's x86-64 glob_t: gl_closedir 4,
# gl_readdir 5, gl_opendir 6, gl_lstat 7, gl_stat 8), the stream gl_opendir returns
# passed to the other two, paths and stat buffers its own (make reads its cache so)
MODELS["glob"] = (("alloc_into", 3, "linked"), ("call", 2, ("static", "int")),
                  ("call", "*3.6", ("static",), "glob.dir"), ("call", "*3.5", ("kept:glob.dir",)),
                  ("call", "*3.4", ("kept:glob.dir",)), ("call", "*3.7", ("static", "static")),
                  ("call", "*3.8", ("static", "static")))
# libevent: a registered callback is later called with the fd, the events and its
# argument (a bufferevent's callbacks with the bufferevent first)
MODELS["event_set"] = (("call", 3, ("int", "int", 4)),)
MODELS["event_assign"] = (("call", 4, ("int", "int", 5)), ("keep", 1, "event.base"))
MODELS["event_new"] = (("alloc",), ("call", 3, ("int", "int", 4)), ("keep", 0, "event.base"))
MODELS["event_once"] = (("call", 2, ("int", "int", 3)),)
MODELS["event_base_once"] = (("call", 3, ("int", "int", 4)),)
MODELS["bufferevent_new"] = (("alloc",), ("call", 1, ("ret", 4)), ("call", 2, ("ret", 4)),
                             ("call", 3, ("ret", "int", 4)))
MODELS["bufferevent_setcb"] = (("call", 1, (0, 4)), ("call", 2, (0, 4)), ("call", 3, (0, "int", 4)))
MODELS["evbuffer_add_cb"] = (("call", 1, (0, "static", 2)),)
_add("event_base_new event_init event_base_new_with_config", (("alloc",), ("keep", "ret", "event.base")))
MODELS["evbuffer_new"] = ALLOC
MODELS["bufferevent_socket_new"] = (("alloc",), ("keep", 0, "event.base"))
_add("""
event_add event_del event_free event_base_dispatch event_base_loop event_base_loopbreak event_base_loopexit
event_base_free event_pending event_initialized event_active event_dispatch event_loop event_loopexit
event_reinit bufferevent_enable bufferevent_disable bufferevent_free bufferevent_write bufferevent_write_buffer
bufferevent_setwatermark bufferevent_settimeout evbuffer_add evbuffer_add_printf evbuffer_add_vprintf
evbuffer_drain evbuffer_free evbuffer_get_length evbuffer_add_buffer
""", NONE)

# exceptions (C++ ABI)
MODELS["__cxa_throw"] = (("throw", 0), ("call", 2, (0,)), ("keep", 0, "exception"))   # (current_exception)
MODELS["_Unwind_Resume"] = (("throw", 0),)
# a caught pointer is the thrown pointer itself: the object or what it holds
MODELS["__cxa_begin_catch"] = (("ret_arg", 0), ("ret_arg", "*0"))
MODELS["__cxa_get_exception_ptr"] = MODELS["__cxa_begin_catch"]
MODELS["__cxa_current_exception_type"] = STATIC

# variable arguments
_add("llvm.va_start", (("va_start", 0),))
_add("llvm.va_copy", (("va_copy", 0, 1),))

# no effect on points-to sets
_add("""
free cfree _ZdlPv _ZdaPv _ZdlPvm _ZdaPvm _ZdlPvSt11align_val_t _ZdaPvSt11align_val_t _ZdlPvmSt11align_val_t
__cxa_free_exception __cxa_end_catch __cxa_rethrow __cxa_guard_acquire __cxa_guard_release __cxa_guard_abort
__cxa_pure_virtual __cxa_deleted_virtual __cxa_bad_cast __cxa_bad_typeid __cxa_call_unexpected _ZSt9terminatev
__gxx_personality_v0 __cxa_finalize __cxa_thread_atexit
printf fprintf sprintf snprintf vprintf vfprintf vsprintf vsnprintf dprintf vdprintf __printf_chk __fprintf_chk
__sprintf_chk __snprintf_chk __vfprintf_chk __vsnprintf_chk __vsprintf_chk __vprintf_chk
scanf fscanf sscanf vscanf vfscanf vsscanf __isoc99_scanf __isoc99_fscanf __isoc99_sscanf __isoc99_vfscanf
__isoc99_vsscanf __isoc23_scanf __isoc23_fscanf __isoc23_sscanf __isoc23_vfscanf __isoc23_vsscanf
puts fputs fputc putc putchar fputs_unlocked fputc_unlocked putc_unlocked putchar_unlocked getc getchar fgetc
getc_unlocked getchar_unlocked fgetc_unlocked ungetc fread fwrite fread_unlocked fwrite_unlocked fflush
fflush_unlocked fclose pclose fseek fseeko fseeko64 ftell ftello ftello64 rewind feof ferror clearerr fileno
feof_unlocked ferror_unlocked clearerr_unlocked fileno_unlocked setvbuf setbuf setlinebuf fgetpos fsetpos
perror remove rename unlink rmdir mkdir chdir fchdir chmod fchmod chown fchown lchown access faccessat
open open64 openat close read write pread pwrite lseek lseek64 dup dup2 dup3 pipe pipe2 fcntl ioctl fsync
stat stat64 fstat fstat64 lstat lstat64 fstatat __xstat __fxstat __lxstat __xstat64 __fxstat64 __lxstat64
statfs fstatfs statvfs fstatvfs truncate ftruncate link symlink readlink umask utime utimes futimes utimensat
isatty tcgetattr tcsetattr tcgetpgrp tcsetpgrp cfgetospeed cfsetospeed cfgetispeed cfsetispeed tcflush
tcdrain tcflow tcsendbreak ttyslot
strlen strnlen strcmp strncmp strcasecmp strncasecmp strcoll strxfrm memcmp bcmp strspn strcspn strverscmp
bzero explicit_bzero __explicit_bzero_chk wcslen
atoi atol atoll atof abs labs llabs div ldiv rand srand random srandom rand_r drand48 srand48 lrand48 mrand48
erand48 nrand48 jrand48 seed48 lcong48
exit _exit _Exit abort quick_exit assert __assert_fail __assert_perror_fail __stack_chk_fail
time clock gettimeofday clock_gettime clock_getres nanosleep sleep usleep alarm times difftime
strftime tzset settimeofday getrusage getrlimit setrlimit getpriority setpriority
getpid getppid getuid geteuid getgid getegid setuid setgid seteuid setegid setreuid setregid getpgrp setpgid
getpgid setsid getsid getgroups setgroups kill raise killpg wait waitpid wait3 wait4 fork vfork execv execve
execvp execl execlp execle system sigemptyset sigfillset sigaddset sigdelset sigismember sigprocmask
pthread_sigmask sigsuspend sigpending siginterrupt sigsetjmp setjmp _setjmp longjmp siglongjmp
__sigsetjmp _longjmp
toupper tolower isalpha isdigit isalnum isspace isupper islower isprint isgraph ispunct iscntrl isxdigit
isascii isblank toascii towupper towlower iswalpha iswdigit iswspace iswalnum iswupper iswlower iswprint
sqrt sqrtf sqrtl pow powf powl exp expf expl exp2 log logf logl log10 log2 log1p expm1 sin sinf cos cosf tan
tanf asin acos atan atan2 sinh cosh tanh floor floorf floorl ceil ceilf ceill fabs fabsf fabsl fmod fmodf fmodl
round roundf lround llround trunc truncf rint nearbyint ldexp frexp modf hypot cbrt fmin fmax copysign
isnan isinf finite __isnan __isinf __finite __fpclassify __signbit nan nanf
pthread_detach pthread_self pthread_equal pthread_mutex_init pthread_mutex_lock
pthread_mutex_unlock pthread_mutex_trylock pthread_mutex_destroy pthread_cond_init pthread_cond_wait
pthread_cond_timedwait pthread_cond_signal pthread_cond_broadcast pthread_cond_destroy pthread_attr_init
pthread_attr_destroy pthread_attr_setstacksize pthread_attr_setdetachstate pthread_mutexattr_init
pthread_mutexattr_settype pthread_mutexattr_destroy pthread_rwlock_init pthread_rwlock_rdlock
pthread_rwlock_wrlock pthread_rwlock_unlock pthread_rwlock_destroy pthread_key_delete pthread_cancel
pthread_kill sched_yield
socket bind listen accept connect send recv sendto recvfrom shutdown setsockopt getsockopt htons htonl ntohs
ntohl inet_addr inet_pton select poll epoll_create epoll_ctl epoll_wait
munmap mprotect madvise msync mlock munlock
dlclose closedir rewinddir telldir seekdir dirfd
wctomb mbtowc mbrtowc wcrtomb mbstowcs wcstombs mblen mbrlen mbsinit btowc wctob wcwidth wcswidth iswctype
wctype towctrans wctrans __ctype_get_mb_cur_max
getopt getopt_long getopt_long_only
setenv unsetenv putenv clearenv
uname gethostname sethostname sysconf pathconf fpathconf getpagesize getdtablesize
regcomp regexec regfree regerror fnmatch globfree wordexp wordfree
sigreturn syscall prctl
freelocale iconv_close
endpwent setpwent endgrent setgrent
flockfile funlockfile ftrylockfile mkstemp mkstemp64 mkostemp
__fdelt_chk __read_chk __open_2 __open64_2 __poll_chk __longjmp_chk
__sprintf_chk __memcpy_chk_fail __chk_fail __builtin_unreachable
""", NONE)
for _i in ("lifetime.start lifetime.end dbg.declare dbg.value dbg.label dbg.assign va_end assume expect "
           "objectsize trap debugtrap donothing prefetch stacksave stackrestore memset memset.inline "
           "memset.element.unordered.atomic invariant.start invariant.end fabs sqrt pow exp log floor ceil "
           "trunc round rint nearbyint copysign minnum maxnum minimum maximum fma fmuladd bswap ctpop ctlz "
           "cttz fshl fshr abs smax smin umax umin sadd.with.overflow uadd.with.overflow ssub.with.overflow "
           "usub.with.overflow smul.with.overflow umul.with.overflow sadd.sat uadd.sat ssub.sat usub.sat "
           "is.constant is.fpclass bitreverse lrint llrint lround llround frameaddress returnaddress "
           "eh.typeid.for experimental.noalias.scope.decl pseudoprobe sideeffect codeview.annotation "
           "var.annotation ptr.annotation annotation clear_cache readcyclecounter get.rounding set.rounding "
           "vector.reduce.add vector.reduce.or vector.reduce.and vector.reduce.umax vector.reduce.smax "
           "vector.reduce.umin vector.reduce.smin vector.reduce.xor vector.reduce.mul").split():
    MODELS["llvm." + _i] = NONE
MODELS["llvm.stacksave"] = (("static",),)

# -- seen unmodelled in the corpus (bash, gawk, git, gzip, make, sqlite3) --
# wide strings, multibyte conversion, iconv: results inside an argument; the
# conversions advance the caller's source pointer inside its buffer
_add("wcschr wcsrchr wcsstr wcspbrk wmemchr wcschrnul memmem", RET_INTO0)
_add("wcscpy wcsncpy wcscat wcsncat wmemset mkdtemp mktemp", RET0)
_add("wmemcpy wmemmove", MEMCPY)
MODELS["wcpcpy"] = RET_INTO0
MODELS["wcsdup"] = ALLOC
_add("mbsrtowcs mbsnrtowcs wcsrtombs wcsnrtombs", (("store_into", 1, "*1"),))
MODELS["iconv"] = (("store_into", 1, "*1"), ("store_into", 3, "*3"))
MODELS["iconv_open"] = STATIC
# network: getaddrinfo builds a linked list (ai_next, ai_addr, ai_canonname)
MODELS["getaddrinfo"] = (("alloc_out", 3, "linked"),)
_add("getservent getservbyport getprotobynumber getprotoent", STATIC)
_add("gnu_get_libc_version zlibVersion ptsname", STATIC_TEXT)
MODELS["inet_ntop"] = (("ret_arg", 2),)
# termcap: tgetstr copies into *area, returns where and advances *area; tputs
# calls its output function with characters
MODELS["tgetstr"] = (("static",), ("ret_into", "*1"), ("store_into", 1, "*1"))
MODELS["tgoto"] = STATIC_TEXT
MODELS["tputs"] = (("call", 2, ("int",)),)
# thread-specific data: one object shared by set and get
MODELS["pthread_setspecific"] = (("keep", 1, "pthread_specific"),)
MODELS["pthread_getspecific"] = (("ret_kept", "pthread_specific"),)
# uselocale installs its argument and returns the locale installed before: one an earlier
# call installed, or LC_GLOBAL_LOCALE ((locale_t)-1, no object)
MODELS["uselocale"] = (("keep", 0), ("ret_kept",))
# obstack chunks (the allocation macros then read h's fields): the chunk
# function may be called; h's fields receive the chunk
MODELS["_obstack_begin"] = (("call", 3, ("int",)), ("alloc_into", 0))
MODELS["_obstack_begin_1"] = (("call", 3, (5, "int")), ("alloc_into", 0))
MODELS["_obstack_newchunk"] = (("alloc_into", 0),)
# zlib: the stream's state is library memory; deflate/inflate advance next_in/next_out
_add("deflateInit_ deflateInit2_ inflateInit_ inflateInit2_ inflateBackInit_", (("alloc_into", 0),))
_add("deflate inflate inflateBack", (("smear_fields", 0),))
# libsigsegv: handlers called later with a fault address / context
MODELS["sigsegv_install_handler"] = (("call", 0, ("static", "int")),)
MODELS["stackoverflow_install_handler"] = (("call", 0, ("int", "static")),)
_add("""
__fpurge __freading __fwriting __fsetlocking arc4random arc4random_uniform arc4random_buf getrandom getentropy
confstr eaccess euidaccess endservent setservent endprotoent setprotoent getpeername getsockname
imaxdiv imaxabs wcscmp wcsncmp wcscoll wcscasecmp wcsncasecmp wcsxfrm wcstol wcstoul wcstod wcswidth
fcntl64 ftruncate64 fdatasync futimens futimesat unlinkat renameat mkdirat fchmodat fchownat readlinkat
getloadavg pread64 pwrite64 lseek64 getrlimit64 setrlimit64 statvfs64 fstatvfs64 sync_file_range sysinfo
setitimer getitimer setresuid setresgid getresuid getresgid pselect ppoll
posix_spawn posix_spawnp posix_spawn_file_actions_init posix_spawn_file_actions_destroy
posix_spawn_file_actions_adddup2 posix_spawn_file_actions_addopen posix_spawn_file_actions_addclose
posix_spawnattr_init posix_spawnattr_destroy posix_spawnattr_setflags posix_spawnattr_setsigmask
posix_spawnattr_setsigdefault posix_spawnattr_setpgroup
posix_openpt grantpt unlockpt mtrace muntrace pthread_setcancelstate pthread_setcanceltype
freeaddrinfo getnameinfo obstack_free _obstack_free _obstack_memory_used
tgetent tgetflag tgetnum
crc32 crc32_z adler32 compress compress2 compressBound uncompress uncompress2 deflateBound deflateEnd
inflateEnd deflateReset inflateReset deflateSetHeader deflateParams
""", NONE)

# -- seen unmodelled in the corpus (vim, perl, python3.11) --
# reentrant lookups f(..., struct *res, char *buf, size_t n, struct **result[, int *h_errnop]):
# *result receives the caller's struct, whose pointer fields (pw_name, h_aliases, ...)
# point into the caller's buffer; the records with lists (h_aliases, h_addr_list,
# gr_mem, n_aliases, p_aliases, s_aliases) keep those arrays in the buffer too,
# so the buffer's slots may point into itself. *h_errnop is an int.


def _lookup_r(res: int, buf: int, result: int, lists: bool = True) -> tuple:
    effects = (("store_into", result, res), ("store_into", "+%d" % res, buf))
    return effects + ((("store_into", "+%d" % buf, buf),) if lists else ())


for _names, _where, _lists in (
        ("getpwnam_r getpwuid_r getspnam_r", (1, 2, 4), False),
        ("getpwent_r", (0, 1, 3), False),
        ("getgrnam_r getgrgid_r gethostbyname_r getnetbyname_r getprotobyname_r getprotobynumber_r",
         (1, 2, 4), True),
        ("getgrent_r gethostent_r getnetent_r getprotoent_r getservent_r", (0, 1, 3), True),
        ("getservbyname_r getservbyport_r getnetbyaddr_r", (2, 3, 5), True),
        ("gethostbyaddr_r", (3, 4, 6), True)):
    _add(_names, _lookup_r(*_where, _lists))
# shared memory attached like mmap; the glibc CPU-set allocator
_add("shmat __sched_cpualloc", ALLOC)
# crypt_r's hash lies in its struct crypt_data (or, on some failures, a static string)
MODELS["crypt_r"] = (("ret_into", 2), ("static_text",))
# wcstok(s, delim, saveptr): like strtok_r
MODELS["wcstok"] = MODELS["strtok_r"]
# strptime returns where it stopped parsing its input
MODELS["strptime"] = RET_INTO0
_add("nl_langinfo_l bind_textdomain_codeset", STATIC_TEXT)
# POSIX ACLs: an opaque library object (like iconv_open's)
MODELS["acl_get_file"] = STATIC
# timer_create(clock, sigevent, timer_t *id): *id receives an opaque library object
# (glibc's timer_t is a void *); with SIGEV_THREAD the library later calls
# sigev_notify_function (not the first field) with sigev_value, the sigevent's first field
MODELS["timer_create"] = (("alloc_out", 2), ("call", "*+1", ("*1",)))
# readv/writev and relatives move bytes between a file and the buffers of the
# iovec array, like read/write: no pointer changes (as for the rest below)
_add("""
readv writev preadv pwritev preadv2 pwritev2 preadv64v2 pwritev64v2 sendfile64 splice copy_file_range
timer_settime timer_delete acl_free acl_set_file flock sync chroot pause truncate64 linkat symlinkat
mkostemp64 socketpair accept4 getlogin_r ttyname_r endhostent endnetent sethostent setnetent
semctl semget semop shmctl shmdt shmget msgctl msgget msgrcv msgsnd
__sched_cpufree __sched_cpucount __sysconf clock_settime clock_nanosleep fstatat64 openat64 close_range
eventfd eventfd_read eventfd_write fexecve getauxval getgrouplist initgroups
fgetxattr flistxattr fremovexattr fsetxattr getxattr lgetxattr listxattr llistxattr lremovexattr lsetxattr
removexattr setxattr gnu_dev_major gnu_dev_makedev gnu_dev_minor forkpty openpty login_tty lockf64
memfd_create mkfifo mkfifoat mknod mknodat nice posix_fadvise64 posix_fallocate64
posix_spawnattr_setschedparam posix_spawnattr_setschedpolicy pthread_attr_setscope pthread_condattr_init
pthread_condattr_setclock pthread_getcpuclockid sched_get_priority_max sched_get_priority_min
sched_getaffinity sched_getparam sched_getscheduler sched_rr_get_interval sched_setaffinity sched_setparam
sched_setscheduler sem_clockwait sem_destroy sem_init sem_post sem_trywait sem_wait setpgrp
sigtimedwait sigwait sigwaitinfo waitid wcsftime wmemcmp
""", NONE)

# -- seen unmodelled in tmux, nginx, memcached and rsync (outside the corpus: bench/corpus/recipes) --
# libevent: a line the buffer hands out is the caller's to free; the buffers a bufferevent owns, and
# the contiguous bytes pullup exposes, are library memory; the log callback gets a library message
_add("evbuffer_readline evbuffer_readln", ALLOC)
_add("bufferevent_get_input bufferevent_get_output", STATIC)
_add("bufferevent_get_base event_get_base", (("ret_kept", "event.base"),))
_add("event_get_method event_get_version event_base_get_method", STATIC_TEXT)
# pullup's bytes may be the data the program handed to evbuffer_add_reference
MODELS["evbuffer_pullup"] = (("static_text",), ("ret_kept", "evbuffer.data"))
MODELS["evbuffer_add_reference"] = (("keep", 1, "evbuffer.data"), ("call", 3, (1, "int", 4)))
MODELS["evbuffer_search"] = (("text_into", 0, "evbuffer_search"),)   # an evbuffer_ptr, in arg 0 (sret)
MODELS["event_set_log_callback"] = (("call", 0, ("int", "static")),)
_add("""
evbuffer_read evbuffer_write evbuffer_write_atmost evbuffer_remove evbuffer_copyout
evbuffer_expand evbuffer_prepend bufferevent_read bufferevent_get_enabled event_get_fd
event_priority_set event_base_priority_init event_get_events event_base_loopcontinue event_del_noblock
""", NONE)
# terminfo (ncurses): strings of the loaded entry, and tparm's expansion in a static buffer
_add("tparm tiparm tigetstr", STATIC_TEXT)
MODELS["set_curterm"] = (("static",), ("keep", 0, "curterm"), ("ret_kept", "curterm"))
_add("setupterm del_curterm tigetflag tigetnum putp tcsetattr cfmakeraw", NONE)
# the next control message: inside the control buffer the current one points into (or null)
MODELS["__cmsg_nxthdr"] = (("ret_into", 1),)
# base64 of resolv (bytes in, bytes out), BSD's err/warn family (messages), sockets' messages (bytes
# into the buffers of the msghdr's iovec and control array, like readv)
_add("""
__b64_ntop __b64_pton b64_ntop b64_pton err errx verr verrx warn warnx vwarn vwarnx error error_at_line
recvmsg sendmsg recvmmsg sendmmsg
""", NONE)
_add("strerrordesc_np strerrorname_np sigdescr_np sigabbrev_np", STATIC_TEXT)
# ... and in memcached and rsync: libevent's configuration objects; getsubopt advances *optionp
# inside the option string and points *valuep into it; syslog keeps the ident for later messages
_add("event_config_new", ALLOC)
_add("event_config_free event_config_set_flag event_config_avoid_method", NONE)
MODELS["event_base_set"] = (("keep", 0, "event.base"),)
MODELS["getsubopt"] = (("store_into", 0, "*0"), ("store_into", 2, "*0"))
_add("pthread_setname_np pthread_getname_np innetgr lchmod lutimes mallinfo mallinfo2 openlog syslog vsyslog "
     "closelog setlogmask llvm.x86.sse3.ldu.dq inotify_add_watch", NONE)   # (lighttpd: the path is only read)

# -- libstdc++ (seen unmodelled in ninja-build, a C++ program): the members of std::string that the
# library instantiates itself (basic_string<char> is an extern template), the red-black tree's
# node helpers of std::map and std::set, iostreams. A string's first slot (_M_p) points to its
# characters: into the string itself (the short-string buffer) or to a block the library allocates.
_STR = "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE"    # std::string::
_CSTR = "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE"  # std::string:: ... const
# may give the string a buffer of its own (a fresh block, or its short buffer), and return *this
_STR_WRITE = (("alloc_into", 0), ("store_into", 0, 0), ("ret_arg", 0))
# a std::string (or a stream, a path) given its own buffer in argument 0 (an sret result, a `this`)
_SRET_STRING = (("alloc_into", 0), ("store_into", 0, 0))
# a stream operator that fills the string in argument 1 and returns the stream (getline, >>)
_READ_STRING = (("ret_arg", 0), ("alloc_into", 1), ("store_into", 1, 1))
# takes the other string's buffer (moves, swaps): both sides may hold either's
_STR_MOVE = (("copy", 0, 1), ("copy", 1, 0), ("store_into", 0, 0), ("store_into", 1, 1), ("ret_arg", 0))
_add(" ".join(_STR + m for m in (
    "C1Ev C2Ev C1EPKcRKS3_ C2EPKcRKS3_ C1ERKS4_ C2ERKS4_ C1EPKcmRKS3_ C2EPKcmRKS3_ C1ERKS3_ C2ERKS3_ "
    "C1EmcRKS3_ C2EmcRKS3_ C1ERKS4_mm C2ERKS4_mm C1ERKS4_mmRKS3_ C2ERKS4_mmRKS3_ "
    "aSEPKc aSERKS4_ aSEc pLEPKc pLERKS4_ pLEc 6appendERKS4_ 6appendEPKc 6appendEPKcm 6appendEmc "
    "6appendERKS4_mm 6assignEPKc 6assignEPKcm 6assignERKS4_ 6assignEmc 6resizeEm 6resizeEmc 7reserveEm "
    "7reserveEv 9push_backEc 5clearEv 5eraseEmm 6insertEmPKc 6insertEmRKS4_ 6insertEmmc 6insertEmPKcm "
    "7replaceEmmRKS4_ 7replaceEmmPKc 7replaceEmmPKcm 7replaceEmmmc "
    "7replaceEN9__gnu_cxx17__normal_iteratorIPKcS4_EES9_S9_S9_ 10_M_replaceEmmPKcm 9_M_mutateEmmPKcm "
    "14_M_replace_auxEmmmc 9_M_appendEPKcm 9_M_assignERKS4_ 12_M_constructEmc 8pop_backEv").split()), _STR_WRITE)
_add(" ".join(_STR + m for m in "C1EOS4_ C2EOS4_ aSEOS4_ 6assignEOS4_ 4swapERS4_".split()), _STR_MOVE)
# pointers into the characters: whatever _M_p points into
_add(" ".join(p + m for p in (_STR, _CSTR) for m in (
    "5c_strEv 4dataEv 5beginEv 3endEv 6cbeginEv 4cendEv ixEm 2atEm 4backEv "
    "5frontEv 7_M_dataEv").split()), (("ret_into", "*0"),))
_add(" ".join(p + m for p in (_STR, _CSTR) for m in "6rbeginEv 4rendEv 7crbeginEv 5crendEv".split()),
     (("store_into", 0, "*1"),))   # a reverse_iterator, returned in arg 0 (sret)
MODELS[_STR + "13_M_local_dataEv"] = RET_INTO0
MODELS[_CSTR + "13_M_local_dataEv"] = RET_INTO0
MODELS[_STR + "9_M_createERmm"] = ALLOC
MODELS[_STR + "7_M_dataEPc"] = (("store_into", 0, 1),)
MODELS[_STR + "12_Alloc_hiderC1EPcRKS3_"] = (("store_into", 0, 1),)
MODELS[_STR + "12_Alloc_hiderC2EPcRKS3_"] = (("store_into", 0, 1),)
MODELS[_CSTR + "6substrEmm"] = _STR_WRITE          # (the new string is the sret argument 0)
_add(" ".join(_STR + m for m in (
    "D1Ev D2Ev 10_M_disposeEv 10_M_destroyEm 13_M_set_lengthEm 11_M_capacityEm 10_M_lengthEm "
    "13_S_copy_charsEPcPKcS7_ 13_S_copy_charsEPcS5_S5_ 7_S_copyEPcPKcm 7_S_moveEPcPKcm 9_S_assignEPcmc").split())
     + " " + " ".join(_CSTR + m for m in (
    "4sizeEv 6lengthEv 5emptyEv 8capacityEv 8max_sizeEv 13get_allocatorEv 4findEcm 4findEPKcm "
    "4findEPKcmm 4findERKS4_m 5rfindEcm 5rfindEPKcm 5rfindEPKcmm 5rfindERKS4_m 12find_last_ofEPKcm "
    "12find_last_ofEPKcmm 12find_last_ofEcm 13find_first_ofEPKcm 13find_first_ofEPKcmm 13find_first_ofEcm "
    "17find_first_not_ofEPKcm 17find_first_not_ofEcm 16find_last_not_ofEPKcm 16find_last_not_ofEcm "
    "7compareEPKc 7compareERKS4_ 7compareEmmPKc 7compareEmmPKcm 7compareEmmRKS4_ 4copyEPcmm "
    "11_M_is_localEv 15_M_check_lengthEmmPKc 8_M_checkEmPKc 15_M_limit_lengthEmm 11_M_disjunctEPKc").split()), NONE)
def _wide(name: str) -> str | None:
    """The std::wstring member of a std::string member's mangled name (the same shape: ``char``
    ``c`` becomes ``wchar_t`` ``w`` in the parameters), or None where the name is not that plain
    (a parameter of a nested type: an iterator)."""
    narrow = "IcSt11char_traitsIcESaIcEE"
    for prefix in (_STR, _CSTR):
        if name.startswith(prefix):
            head, sep, params = name[len(prefix):].partition("E")
            if not sep or "N" in params:
                return None
            return prefix.replace(narrow, "IwSt11char_traitsIwESaIwEE") + head + sep + params.replace("c", "w")
    return None


# std::wstring (also an extern template of the library): the same members, the same models
for _name in [n for n in MODELS if n.startswith((_STR, _CSTR))]:
    _w = _wide(_name)
    if _w is not None:
        MODELS.setdefault(_w, MODELS[_name])


# std::allocator<char>, the exceptions the library throws (a message copied into the exception)
_add("_ZNSaIcEC1Ev _ZNSaIcEC2Ev _ZNSaIcED1Ev _ZNSaIcED2Ev _ZNSaIcEC1ERKS_ _ZNSaIcEC2ERKS_ "
     "_ZSt20__throw_length_errorPKc _ZSt19__throw_logic_errorPKc _ZSt20__throw_out_of_rangePKc "
     "_ZSt24__throw_out_of_range_fmtPKcz _ZSt24__throw_invalid_argumentPKc _ZSt17__throw_bad_allocv "
     "_ZSt28__throw_bad_array_new_lengthv _ZSt25__throw_bad_function_callv _ZSt16__throw_bad_castv "
     "_ZSt21__throw_runtime_errorPKc _ZSt19__throw_range_errorPKc _ZSt20__throw_system_errori "
     "_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm _ZNKSt8__detail20_Prime_rehash_policy11_M_next_bktEm "
     "_ZNSt8ios_base4InitC1Ev _ZNSt8ios_base4InitD1Ev", NONE)
# the red-black tree: insertion and erasure relink the node, its parent, the header and what they
# hold (rotations may link any two nodes of a tree, from any allocation sites); stepping gives a
# node the argument holds (after the relinking, every node of the tree)
MODELS["_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_"] = _linked(1, 2, 3, "*+1", "*+2", "*+3")
MODELS["_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_"] = (("ret_arg", 0),) + _linked(0, 1, "*+0", "*+1")
_add("_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base _ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base "
     "_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base _ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base",
     (("ret_arg", 0), ("ret_arg", "*+0")))
# iostreams: the operators return their stream; getline fills the string; a file stream's buffer
# is the library's, kept inside the stream
_add("_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc _ZNSolsEi _ZNSolsEj _ZNSolsEl _ZNSolsEm "
     "_ZNSolsEx _ZNSolsEy _ZNSolsEd _ZNSolsEb _ZNSolsEPKv _ZNSirsERi _ZNSirsERl _ZNSirsERm _ZNSirsERd "
     "_ZStlsIcSt11char_traitsIcESaIcEERSt13basic_ostreamIT_T0_ES7_RKNSt7__cxx1112basic_stringIS4_S5_T1_EE "
     "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_c _ZNSo5flushEv _ZNSo3putEc "
     "_ZNSo5writeEPKcl", RET0)
_add("_ZSt7getlineIcSt11char_traitsIcESaIcEERSt13basic_istreamIT_T0_ES7_RNSt7__cxx1112basic_stringIS4_S5_T1_EE "
     "_ZSt7getlineIcSt11char_traitsIcESaIcEERSt13basic_istreamIT_T0_ES7_RNSt7__cxx1112basic_stringIS4_S5_T1_EES4_ "
     "_ZStrsIcSt11char_traitsIcESaIcEERSt13basic_istreamIT_T0_ES7_RNSt7__cxx1112basic_stringIS4_S5_T1_EE", _READ_STRING)
_add("_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode "
     "_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1ERKNSt7__cxx1112basic_stringIcS1_SaIcEEESt13_Ios_Openmode "
     "_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode "
     "_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1Ev _ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1Ev",
     _SRET_STRING)
_add("_ZNSt14basic_ifstreamIcSt11char_traitsIcEED1Ev _ZNSt14basic_ofstreamIcSt11char_traitsIcEED1Ev "
     "_ZNSt14basic_ifstreamIcSt11char_traitsIcEE7is_openEv _ZNSt14basic_ifstreamIcSt11char_traitsIcEE5closeEv "
     "_ZNSt14basic_ofstreamIcSt11char_traitsIcEE5closeEv _ZNKSt9basic_iosIcSt11char_traitsIcEE3eofEv "
     "_ZNKSt9basic_iosIcSt11char_traitsIcEE4goodEv _ZNKSt9basic_iosIcSt11char_traitsIcEE4failEv "
     "_ZNKSt9basic_iosIcSt11char_traitsIcEE3badEv _ZNKSt9basic_iosIcSt11char_traitsIcEEcvbEv "
     "_ZNKSt9basic_iosIcSt11char_traitsIcEEntEv", NONE)

# ... and in btop (C++20): the library's exceptions keep a copy of their message; stream
# manipulators (std::endl) are called with the stream; locales and facets are library objects;
# std::filesystem's paths are a string and a list the library allocates; a directory iterator
# holds the library's directory state, its entry inside it
# a path's components: one block the library allocates, each component's string inside it
_PATH_WRITE = (("alloc_into", 0, "linked"), ("store_into", 0, 0), ("ret_arg", 0))
_add("_ZNSt14overflow_errorC1EPKc _ZNSt13runtime_errorC1EPKc _ZNSt13runtime_errorC2EPKc _ZNSt12out_of_rangeC1EPKc "
     "_ZNSt11logic_errorC1EPKc _ZNSt16invalid_argumentC1EPKc _ZNSt12length_errorC1EPKc _ZNSt11range_errorC1EPKc "
     "_ZNSt13runtime_errorC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE "
     "_ZNSt13runtime_errorC2ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE "
     "_ZNSt12out_of_rangeC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE "
     "_ZNSt16invalid_argumentC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", (("alloc_into", 0),))
MODELS["_ZNKSt13runtime_error4whatEv"] = (("ret_into", "*+0"),)
_add("_ZNSolsEPFRSoS_E _ZNSirsEPFRSiS_E", (("call", 1, (0,), "manipulator"), ("ret_kept", "manipulator"),
                                          ("ret_arg", 0)))
_add("_ZNSolsEPFRSt8ios_baseS0_E _ZNSirsEPFRSt8ios_baseS0_E", (("call", 1, ("+0",), "manipulator"),
                                                              ("ret_kept", "manipulator"), ("ret_arg", 0)))
_add("_ZNSi6ignoreEli _ZNSi6ignoreEl _ZNSi6ignoreEv _ZNSirsERf _ZNSirsERj _ZNSi3getERc _ZNSi4readEPcl "
     "_ZNSo9_M_insertImEERSoT_ _ZNSo9_M_insertIdEERSoT_ _ZNSo9_M_insertIlEERSoT_", RET0)
_add("_ZSt9use_facetISt5ctypeIcEERKT_RKSt6locale _ZSt9use_facetINSt7__cxx117collateIcEEERKT_RKSt6locale "
     "_ZNSt3_V215system_categoryEv _ZNSt3_V216generic_categoryEv", STATIC)
_add("_ZNSt6localeC1ERKS_ _ZNSt6localeC2ERKS_", (("copy", 0, 1),))
MODELS["_ZNSt6localeaSERKS_"] = (("copy", 0, 1), ("ret_arg", 0))
_add("_ZNSt6localeC1Ev _ZNSt6localeC2Ev", (("text_into", 0, "locale"),))
_add("_ZNKSt6locale4nameB5cxx11Ev _ZNKSt7__cxx117collateIcE9transformEPKcS3_ "
     "_ZNKRSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEE3strEv "
     "_ZNKSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEE3strEv "
     "_ZNKSt7__cxx1119basic_ostringstreamIcSt11char_traitsIcESaIcEE3strEv "
     "_ZNSt10filesystem9canonicalERKNS_7__cxx114pathE _ZNSt10filesystem9canonicalERKNS_7__cxx114pathERSt10error_code "
     "_ZNSt10filesystem12read_symlinkERKNS_7__cxx114pathERSt10error_code "
     "_ZNSt10filesystem12read_symlinkERKNS_7__cxx114pathE _ZNSt10filesystem12current_pathB5cxx11Ev "
     "_ZNSt14basic_ifstreamIcSt11char_traitsIcEE4openEPKcSt13_Ios_Openmode", _SRET_STRING)
_add("_ZNSt10filesystem7__cxx114pathaSERKS1_ _ZNSt10filesystem7__cxx114pathdVERKS1_ "
     "_ZNSt10filesystem7__cxx114path9_M_concatESt17basic_string_viewIcSt11char_traitsIcEE "
     "_ZNSt10filesystem7__cxx114path9_M_appendESt17basic_string_viewIcSt11char_traitsIcEE "
     "_ZNSt10filesystem7__cxx114path15remove_filenameEv _ZNSt10filesystem7__cxx114path17replace_extensionERKS1_",
     _PATH_WRITE)
_add("_ZNSt10filesystem7__cxx114path5_ListC1ERKS2_ _ZNSt10filesystem7__cxx114path14_M_split_cmptsEv", _PATH_WRITE)
MODELS["_ZNKSt10filesystem7__cxx114path17_M_find_extensionEv"] = (("ret_into", 0), ("ret_into", "*+0"))
_add("_ZNKSt10filesystem7__cxx114path5_List5beginEv _ZNKSt10filesystem7__cxx114path5_List3endEv "
     "_ZNKSt10filesystem7__cxx1118directory_iteratordeEv _ZNKSt9basic_iosIcSt11char_traitsIcEE5rdbufEv",
     (("ret_into", "*+0"),))
MODELS["_ZNSt10filesystem7__cxx1118directory_iteratorppEv"] = RET0
_add("_ZNSt10filesystem7__cxx1118directory_iteratorC1ERKNS0_4pathENS_17directory_optionsEPSt10error_code "
     "_ZNSt10filesystem7__cxx1118directory_iteratorC2ERKNS0_4pathENS_17directory_optionsEPSt10error_code",
     (("alloc_into", 0, "linked"),))
MODELS["_ZNSt12__shared_ptrINSt10filesystem7__cxx114_DirELN9__gnu_cxx12_Lock_policyE2EEC1EOS5_"] = (("copy", 0, 1),)
MODELS["_ZNSt9basic_iosIcSt11char_traitsIcEE3tieEPSo"] = (("ret_arg", "*+0"), ("store_into", 0, 1))
MODELS["_ZNKSt8time_putIcSt19ostreambuf_iteratorIcSt11char_traitsIcEEE3putES3_RSt8ios_basecPK2tmPKcSB_"] = (
    ("ret_arg", 1),)
# std::thread runs its state's virtual _M_run on the new thread; getifaddrs builds a linked list
# (__dynamic_cast stays unmodelled: a downcast from a later base points before its argument)
MODELS["_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE"] = (
    ("call_reached", 1),)
_add("_ZNSt6thread6_StateD2Ev _ZNSt6thread4joinEv _ZNSt6thread6detachEv "
     "_ZNSt6thread20hardware_concurrencyEv", NONE)
MODELS["getifaddrs"] = (("alloc_out", 0, "linked"),)
MODELS["freeifaddrs"] = NONE
MODELS["_ZNSo6sentryC1ERSo"] = (("store_into", 0, 1),)
MODELS["_ZNSi6sentryC1ERSib"] = (("store_into", 0, 1),)
_add("""
_ZSt21__glibcxx_assert_failPKciS0_S0_ _ZNSi4peekEv _ZNSt6localeD1Ev _ZNSt6localeD2Ev _ZNSaIwEC1Ev _ZNSaIwEC2Ev
_ZNSaIwEC1ERKS_ _ZNSaIwEC2ERKS_ _ZNSaIwED1Ev _ZNSaIwED2Ev _ZNKSt6locale2id5_M_idEv _ZNKSt5ctypeIcE13_M_widen_initEv
_ZNSo6sentryD1Ev _ZNSi6sentryD1Ev _ZNKSo6sentrycvbEv _ZNKSt9basic_iosIcSt11char_traitsIcEE4fillEv
_ZNSt9basic_iosIcSt11char_traitsIcEE11_M_setstateESt12_Ios_Iostate _ZNSt9basic_iosIcSt11char_traitsIcEE5clearESt12_Ios_Iostate
_ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEED1Ev _ZNSt7__cxx1119basic_istringstreamIcSt11char_traitsIcESaIcEED1Ev
_ZNSt7__cxx1119basic_ostringstreamIcSt11char_traitsIcESaIcEED1Ev
_ZNSt10filesystem7__cxx114path5_ListC1Ev _ZNKSt10filesystem7__cxx114path5_List13_Impl_deleterclEPNS2_5_ImplE
_ZNKSt10filesystem7__cxx114path7compareERKS1_ _ZNSt10filesystem15last_write_timeERKNS_7__cxx114pathE
_ZNSt10filesystem6statusERKNS_7__cxx114pathE _ZNSt10filesystem6statusERKNS_7__cxx114pathERSt10error_code
_ZNSt10filesystem9file_sizeERKNS_7__cxx114pathERSt10error_code _ZNSt10filesystem9file_sizeERKNS_7__cxx114pathE
_ZNSt10filesystem6removeERKNS_7__cxx114pathERSt10error_code _ZNSt10filesystem6removeERKNS_7__cxx114pathE
_ZNSt10filesystem6renameERKNS_7__cxx114pathES3_RSt10error_code _ZNSt10filesystem6renameERKNS_7__cxx114pathES3_
_ZNSt10filesystem16create_directoryERKNS_7__cxx114pathERSt10error_code _ZNSt10filesystem16create_directoryERKNS_7__cxx114pathE
_ZNSt10filesystem18create_directoriesERKNS_7__cxx114pathERSt10error_code _ZNSt10filesystem18create_directoriesERKNS_7__cxx114pathE
_ZNSt10filesystem6existsERKNS_7__cxx114pathE _ZNSt10filesystem12is_directoryERKNS_7__cxx114pathE
_ZNSt12__shared_ptrINSt10filesystem7__cxx114_DirELN9__gnu_cxx12_Lock_policyE2EEC1Ev
""", NONE)

# ... and in cppcheck: std::list's node helpers relink a node, its neighbours and what they hold
# (from any allocation sites), string streams own a string buffer, file streams open into their
# own buffer, exception_ptr holds the in-flight exception
_LIST = "_ZNSt8__detail15_List_node_base"
MODELS[_LIST + "7_M_hookEPS0_"] = _linked(0, 1, "*+0", "*+1")
MODELS[_LIST + "9_M_unhookEv"] = _linked(0, "*+0")
MODELS[_LIST + "11_M_transferEPS0_S1_"] = _linked(0, 1, 2, "*+0", "*+1", "*+2")
MODELS[_LIST + "4swapERS0_S1_"] = _linked(0, 1, "*+0", "*+1")
_add("_ZNSt7__cxx1119basic_ostringstreamIcSt11char_traitsIcESaIcEEC1Ev "
     "_ZNSt7__cxx1119basic_istringstreamIcSt11char_traitsIcESaIcEEC1Ev "
     "_ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEEC1Ev "
     "_ZNSt7__cxx1119basic_istringstreamIcSt11char_traitsIcESaIcEEC1ERKNS_12basic_stringIcS2_S3_EESt13_Ios_Openmode "
     "_ZNSt7__cxx1119basic_istringstreamIcSt11char_traitsIcESaIcEEC1EONS_12basic_stringIcS2_S3_EESt13_Ios_Openmode "
     "_ZNSt7__cxx1119basic_istringstreamIcSt11char_traitsIcESaIcEE3strERKNS_12basic_stringIcS2_S3_EE "
     "_ZNSt7__cxx1119basic_ostringstreamIcSt11char_traitsIcESaIcEE3strERKNS_12basic_stringIcS2_S3_EE "
     "_ZNKSt7__cxx1119basic_istringstreamIcSt11char_traitsIcESaIcEE3strEv "
     "_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1ERKNSt7__cxx1112basic_stringIcS1_SaIcEEESt13_Ios_Openmode "
     "_ZNSt14basic_ofstreamIcSt11char_traitsIcEE4openERKNSt7__cxx1112basic_stringIcS1_SaIcEEESt13_Ios_Openmode "
     "_ZNSt14basic_ifstreamIcSt11char_traitsIcEE4openERKNSt7__cxx1112basic_stringIcS1_SaIcEEESt13_Ios_Openmode "
     "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC1ESt16initializer_listIcERKS3_ "
     "_ZNSt11logic_errorC2ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE "
     "_ZNSt13__future_base12_Result_baseC2Ev", _SRET_STRING)
_add("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE5eraseEN9__gnu_cxx17__normal_iteratorIPKcS4_EE "
     "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE5eraseEN9__gnu_cxx17__normal_iteratorIPKcS4_EES9_",
     (("ret_into", "*0"),))
_add("_ZStlsIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_St12_Setiosflags "
     "_ZStlsIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_St14_Resetiosflags "
     "_ZStlsIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_St13_Setprecision "
     "_ZStlsIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_St5_Setw "
     "_ZStlsIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_St8_Setbase "
     "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_h _ZNSirsERt _ZNSirsERx _ZNSirsERy _ZNSi5ungetEv "
     "", RET0)
MODELS["_ZNSt9basic_iosIcSt11char_traitsIcEE5imbueERKSt6locale"] = (
    ("text_into", 0, "locale"), ("store_into", 0, "*+1"), ("store_into", 1, "*+2"))
_add("_ZNSt6locale7classicEv _ZSt15future_categoryv", STATIC)
MODELS["_ZNSt11logic_errorC2ERKS_"] = (("copy", 0, 1),)
MODELS["_ZSt17current_exceptionv"] = (("store_kept", 0, "exception"),)   # in arg 0 (sret): what was thrown
MODELS["_ZNSt15__exception_ptr13exception_ptrC1EPv"] = (("store_into", 0, 1),)
_add("""
_ZNSi3getEv _ZNSt14basic_ofstreamIcSt11char_traitsIcEE7is_openEv
_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE7compareEmmRKS4_mm
_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE17find_first_not_ofERKS4_m
_ZNSt28__atomic_futex_unsigned_base19_M_futex_notify_allEPj
_ZNSt28__atomic_futex_unsigned_base19_M_futex_wait_untilEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE
_ZNSt12future_errorD1Ev _ZNSt13__future_base12_Result_baseD2Ev _ZNSt13runtime_errorD2Ev _ZNSt13runtime_errorD1Ev
_ZNSt15__exception_ptr13exception_ptr10_M_releaseEv _ZNSt15__exception_ptr13exception_ptr9_M_addrefEv
_ZNSt15basic_streambufIcSt11char_traitsIcEE5sgetcEv _ZNSt15basic_streambufIcSt11char_traitsIcEE6sbumpcEv
_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE13_S_copy_charsEPcN9__gnu_cxx17__normal_iteratorIPKcS4_EESA_
_ZNSt9basic_iosIcSt11char_traitsIcEE8setstateESt12_Ios_Iostate _ZSt11_Hash_bytesPKvmm
_ZNSt19__codecvt_utf8_baseIwED2Ev
""", NONE)
MODELS["_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE"] = (("throw", "*0"),)
# ... and what btop and cppcheck only take the address of (a call through the pointer gets the
# model): the destructors __cxa_throw is handed, the manipulators passed to operator<<, and the
# members of the std::codecvt_utf8 a program instantiates (in its virtual table), whose in and out
# conversions leave from_next and to_next inside the buffers given (this is argument 0)
_add("_ZNSt12out_of_rangeD1Ev _ZNSt14overflow_errorD1Ev _ZNSt11regex_errorD1Ev _ZNSt9bad_allocD1Ev "
     "_ZNKSt19__codecvt_utf8_baseIwE11do_encodingEv _ZNKSt19__codecvt_utf8_baseIwE13do_max_lengthEv "
     "_ZNKSt19__codecvt_utf8_baseIwE16do_always_noconvEv "
     "_ZNKSt19__codecvt_utf8_baseIwE9do_lengthER11__mbstate_tPKcS4_m", NONE)
_add("_ZSt4endlIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_ "
     "_ZSt5flushIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_ "
     "_ZSt2wsIcSt11char_traitsIcEERSt13basic_istreamIT_T0_ES6_", (("ret_arg", 0),))
_add("_ZNKSt19__codecvt_utf8_baseIwE6do_outER11__mbstate_tPKwS4_RS4_PcS6_RS6_ "
     "_ZNKSt19__codecvt_utf8_baseIwE5do_inER11__mbstate_tPKcS4_RS4_PwS6_RS6_",
     (("store_into", 4, 2), ("store_into", 7, 5)))
MODELS["_ZNKSt19__codecvt_utf8_baseIwE10do_unshiftER11__mbstate_tPcS3_RS3_"] = (("store_into", 4, 2),)
_add("_ZNSt6localeC1EPKc _ZNSt6localeC2EPKc _ZNSt7codecvtIwc11__mbstate_tEC2Em "
     "_ZNSt7codecvtIwc11__mbstate_tEC1Em", (("text_into", 0, "locale"),))
MODELS["_ZSt9use_facetISt8time_putIcSt19ostreambuf_iteratorIcSt11char_traitsIcEEEERKT_RKSt6locale"] = STATIC
# cppcheck's crash handler and exception_ptr: backtrace fills its buffer with code addresses (no
# object), backtrace_symbols returns one block whose strings lie inside it; readdir_r sets *result
# to the entry it was given; __cxa_demangle returns the buffer given, grown, or a block of its own;
# __cxa_init_primary_exception returns the header of the exception it is given (just before it,
# in the same block) and calls the destructor given with that exception when the last reference goes
_add("backtrace backtrace_symbols_fd", NONE)
MODELS["backtrace_symbols"] = (("alloc",), ("store_into", "ret", "ret"))
_add("readdir_r readdir64_r", (("store_into", 2, 1),))
MODELS["__cxa_demangle"] = (("alloc",), ("ret_arg", 1))
MODELS["__cxa_init_primary_exception"] = (("ret_into", 0), ("call", 2, (0,)))
MODELS["_ZStlsIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_St8_SetfillIS3_E"] = RET0

# -- CUDA (constraints/llvm/cuda.py links host and device into one module) --
# host: the runtime API. Allocations write a fresh object of the call site into *arg;
# stream, event and array handles are opaque objects made the same way
_add("cudaMalloc cudaMallocManaged cudaMallocHost cudaHostAlloc cudaMallocPitch cudaMallocAsync "
     "cudaMallocAsync_ptsz cudaMallocFromPoolAsync cudaMalloc3D cudaMallocArray cudaMalloc3DArray "
     "cudaStreamCreate cudaStreamCreateWithFlags cudaStreamCreateWithPriority cudaEventCreate "
     "cudaEventCreateWithFlags cudaGraphCreate cudaMemPoolCreate", (("alloc_out", 0),))
# copies of contents between host and device memory, and to or from a __device__/__constant__ symbol
_add("cudaMemcpy cudaMemcpyAsync cudaMemcpy_ptds cudaMemcpyAsync_ptsz cudaMemcpyToSymbol "
     "cudaMemcpyToSymbolAsync cudaMemcpyFromSymbol cudaMemcpyFromSymbolAsync cudaMemcpyToSymbol_ptds "
     "cudaMemcpyFromSymbol_ptds cudaMemcpyToSymbolAsync_ptsz cudaMemcpyFromSymbolAsync_ptsz", (("copy", 0, 1),))
_add("cudaMemcpy2D cudaMemcpy2DAsync cudaMemcpy2D_ptds cudaMemcpy2DAsync_ptsz cudaMemcpyPeer "
     "cudaMemcpyPeerAsync", (("copy", 0, 2),))
# *arg0 receives a pointer into arg1's object (mapped host memory, a symbol's device address)
_add("cudaHostGetDevicePointer cudaGetSymbolAddress", (("store_into", 0, 1),))
_add("cudaGetErrorString cudaGetErrorName", STATIC_TEXT)
_add("__cudaRegisterFatBinary", STATIC)
# cudaLaunchKernel has no model on purpose: cuda_link turns each launch of a known kernel
# into a call of it, and a launch it cannot resolve stays an unmodelled call (unknown effects)
_add("""
cudaFree cudaFreeHost cudaFreeAsync cudaFreeAsync_ptsz cudaFreeArray cudaMemset cudaMemsetAsync cudaMemset2D
cudaMemset_ptds cudaMemsetAsync_ptsz cudaMemset2DAsync cudaHostRegister cudaHostUnregister
cudaDeviceSynchronize cudaThreadSynchronize cudaDeviceReset cudaGetLastError cudaPeekAtLastError cudaSetDevice
cudaGetDevice cudaGetDeviceCount cudaGetDeviceProperties cudaGetDeviceProperties_v2 cudaDeviceGetAttribute
cudaSetDeviceFlags cudaGetDeviceFlags cudaDeviceSetCacheConfig cudaDeviceSetSharedMemConfig cudaDeviceSetLimit
cudaDeviceGetLimit cudaDeviceCanAccessPeer cudaDeviceEnablePeerAccess cudaDeviceDisablePeerAccess
cudaMemGetInfo cudaMemPrefetchAsync cudaMemAdvise cudaDriverGetVersion cudaRuntimeGetVersion
cudaStreamSynchronize cudaStreamDestroy cudaStreamWaitEvent cudaStreamQuery cudaEventRecord
cudaEventRecord_ptsz cudaEventSynchronize cudaEventElapsedTime cudaEventDestroy cudaEventQuery
cudaFuncSetCacheConfig cudaFuncSetAttribute cudaFuncGetAttributes cudaFuncSetSharedMemConfig
cudaOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
cudaProfilerStart cudaProfilerStop cudaMemPoolDestroy cudaGraphDestroy
__cudaPushCallConfiguration __cudaPopCallConfiguration cudaConfigureCall __cudaRegisterFunction
__cudaRegisterVar __cudaRegisterManagedVar __cudaRegisterFatBinaryEnd __cudaUnregisterFatBinary
__cudaInitModule
vprintf __assertfail __nvvm_reflect
""", NONE)
# device: NVVM intrinsics by family (llvm.nvvm.fma.rn.ftz.f is found as llvm.nvvm.fma).
# Address-space conversions and the pointer forms of ldg/ldu/move/mapa carry pointers;
# cp.async copies global memory into shared memory; every other family moves numbers only
# (special registers, barriers, votes and shuffles of integers, atomics on numbers, math,
# conversions, matrix and texture operations on numbers and integer handles)
_add("llvm.nvvm.ptr llvm.nvvm.move.ptr llvm.nvvm.mapa", RET0)
_add("llvm.nvvm.ldg.global.p llvm.nvvm.ldu.global.p", (("ret_arg", "*0"),))
_add("llvm.nvvm.cp.async.ca llvm.nvvm.cp.async.cg", (("copy", 0, 1),))
for _f in """
read.ptx.sreg barrier0 barrier bar membar fence shfl vote match activemask redux atomic ldg.global.i
ldg.global.f ldu.global.i ldu.global.f move.i16 move.i32 move.i64 move.float move.double isspacep istypep
cp.async.commit.group cp.async.wait cp.async.mbarrier cp.async.bulk mbarrier nanosleep prefetch exit
compiler reflect setmaxnreg getctarank is_explicit_cluster wmma mma ldmatrix tex tld4 txq suld sust suq
texsurf fabs fmin fmax fma sqrt rsqrt rcp ex2 lg2 sin cos saturate trunc round floor ceil neg abs add mul
div mul24 mulhi sad prmt fns lohi swap rotate bitcast d2i d2ui d2ll d2ull d2f i2d ui2d ll2d ull2d i2f ui2f
ll2f ull2f f2i f2ui f2ll f2ull f2h f2bf16 f2tf32 bf2h ff2bf16x2 ff2f16x2 popc clz brev
""".split():
    MODELS["llvm.nvvm." + _f] = NONE


def _variants(name: str) -> tuple[str, ...]:
    """The names glibc gives variants of ``name`` with the same arguments in the same
    places: large-file (``glob64``), fortified (``__fgets_chk``: extra size arguments
    come last, or are flags in printf-like functions that move no pointer), C99/C23
    scanf and strtol (``__isoc99_sscanf``) and finite-math (``__exp_finite``)."""
    return (name + "64", f"__{name}_chk", f"__isoc99_{name}", f"__isoc23_{name}", f"__{name}_finite")


for _base in list(MODELS):
    if not _base.startswith("llvm."):
        for _v in _variants(_base):
            MODELS.setdefault(_v, MODELS[_base])
for _base in list(STATIC_RECORDS):
    for _v in _variants(_base):
        STATIC_RECORDS.setdefault(_v, STATIC_RECORDS[_base])

# C++-mangled and plain alias-assertion functions handled by the extractor
ALIAS_CHECKS = ("MAYALIAS", "NOALIAS", "MUSTALIAS", "PARTIALALIAS", "EXPECTEDFAIL_MAYALIAS",
                "EXPECTEDFAIL_NOALIAS")


def intrinsic_base(name: str) -> str:
    """``llvm.memcpy.p0.p0.i64`` → ``llvm.memcpy`` (strip overload suffixes)."""
    parts = name.split(".")
    while len(parts) > 2 and (parts[-1][:1] in ("p", "i", "f", "v", "s") and parts[-1][1:2].isdigit()
                              or parts[-1] in ("f32", "f64", "f80", "f128", "isVoid") or parts[-1].startswith("nxv")):
        parts.pop()
    return ".".join(parts)


def model_for(name: str):
    """The model of external function ``name`` or None when there is none."""
    m = MODELS.get(name)
    if m is None and name.startswith("llvm."):
        base = intrinsic_base(name)
        m = MODELS.get(base)
        if m is None:
            # overloaded math / vector intrinsics: llvm.fabs.f64, llvm.umax.i32, ...
            head = base
            while m is None and "." in head[5:]:
                head = head.rsplit(".", 1)[0]
                m = MODELS.get(head)
    return m

# arguments whose product bounds an allocation's size in bytes (when constant)
ALLOC_SIZE_ARGS = {
    "malloc": (0,), "calloc": (0, 1), "_Znwm": (0,), "_Znam": (0,), "_Znwj": (0,), "_Znaj": (0,),
    "_ZnwmRKSt9nothrow_t": (0,), "_ZnamRKSt9nothrow_t": (0,), "realloc": (1,), "reallocarray": (1, 2),
    "aligned_alloc": (1,), "memalign": (1,), "__cxa_allocate_exception": (0,),
}
