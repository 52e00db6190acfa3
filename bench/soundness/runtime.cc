// The run-time half of bench/soundness/run.py: which object each instrumented access touched.
//
// The instrumented program (run.py's `instrument`) calls these hooks:
//   t = __ag_enter() / __ag_leave(t)     at a defined function's entry / before each of its `ret`s
//   __ag_alloca(node, p, elem_bytes, n)  after an `alloca` whose object is `node`
//   __ag_heap(node, p, kind, bytes, a0, a1)  after a call whose result is the heap object `node`
//                                        (a0, a1: its first two pointer arguments);
//                                        kind 1: p comes from glibc's malloc (its extent is
//                                        malloc_usable_size(p)); 2: `bytes` (mmap's length);
//                                        0: unknown extent: p's one
//                                        byte, unless p is a0 or a1 or lies in an object already
//                                        registered (a call that returns its buffer argument, as getcwd)
//   __ag_global(node, p, bytes)          from __ag_register_globals(), the module's globals
//   __ag_access(site, p, bytes)          before each load, store, atomic and memory intrinsic
//                                        (`site`: the index of the access site in the facts;
//                                        `bytes`: the size of the type, or the intrinsic's length;
//                                        a zero-length one is counted apart, not traced)
// Objects are address intervals [p, p + bytes); registering one drops every interval it
// overlaps (that memory was freed or its frame returned), and free and realloc, which this file
// defines for the whole process, drop a heap object's. A stack object lives until its
// frame's __ag_leave (which also pops frames above it: an inlined callee's), or until a frame
// above it in the stack enters (a longjmp or an exception skipped the leave). An access whose
// address lies in no registered interval is
// counted as unresolved (memory of libc, argv, string literals...). Hooks that run in a signal
// handler while its thread is inside a hook are skipped (the lock is the interrupted hook's).
//
// At exit the distinct (site, node) pairs are appended to the file named by $AG_LOG (read at the
// first hook; one block
// per process: "# pid P accesses A unresolved U empty E", then per pair "site node count more" and the
// first RANGES distinct byte ranges it touched as "offset:bytes"; more is 1 when there were
// others). A process that ends by _exit, exec or a signal writes nothing; a forked child reports
// only what it did after the fork. A signal handler that calls exit() inside a hook writes
// nothing either (the lock is taken).
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <map>
#include <unordered_map>
#include <vector>

namespace {

struct Object {
  uintptr_t end;
  uint32_t node;
  bool stack;
};

struct Frame {
  uintptr_t sp;                    // the hook's frame address at the function's entry
  std::vector<uintptr_t> allocas;  // starts of the stack objects registered in this frame
};

// What one site did to one object: how often, and the first RANGES distinct byte ranges
// (offset from the object's start, bytes) it touched; `more` when there were others.
constexpr int RANGES = 16;
struct Touch {
  uint64_t count = 0;
  int n = 0;
  bool more = false;
  uint64_t off[RANGES], len[RANGES];
};

struct State {
  std::map<uintptr_t, Object> objects;
  std::unordered_map<uint64_t, Touch> seen;  // site << 32 | node
  uint64_t accesses = 0, unresolved = 0, empty = 0;  // empty: zero-length intrinsics (not traced)
};

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
State *state = nullptr;
thread_local std::vector<Frame> *frames = nullptr;
bool registering = false;
// Set while this thread runs a hook: a signal handler of the program that runs meanwhile (its own
// hooks) is not traced, instead of waiting forever for the lock its thread holds.
thread_local volatile int in_hook = 0;

struct Guard {
  bool entered;
  Guard() : entered(in_hook == 0) { in_hook++; }
  ~Guard() { in_hook--; }
};

const char *log_path = nullptr;  // $AG_LOG as it was at the first hook (nginx clears its environment)

void dump() {
  const char *path = log_path;
  if (path == nullptr || state == nullptr)
    return;
  // exit() from a signal handler that interrupted a hook: the lock may be this thread's
  bool nested = in_hook != 0;
  if (nested ? pthread_mutex_trylock(&lock) != 0 : pthread_mutex_lock(&lock) != 0)
    return;
  Guard g;  // the string's own mallocs and frees do not come back here
  std::string out = "# pid " + std::to_string(getpid()) + " accesses " + std::to_string(state->accesses) +
                    " unresolved " + std::to_string(state->unresolved) + " empty " + std::to_string(state->empty) +
                    "\n";
  for (auto &[key, t] : state->seen) {
    out += std::to_string(key >> 32) + " " + std::to_string((uint32_t)key) + " " + std::to_string(t.count) + " " +
           (t.more ? "1" : "0");
    for (int k = 0; k < t.n; ++k)
      out += " " + std::to_string(t.off[k]) + ":" + std::to_string(t.len[k]);
    out += "\n";
  }
  // one write with O_APPEND: processes that exit together do not interleave their blocks
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    for (size_t at = 0; at < out.size();) {
      ssize_t n = write(fd, out.data() + at, out.size() - at);
      if (n <= 0)
        break;
      at += (size_t)n;
    }
    close(fd);
  }
  pthread_mutex_unlock(&lock);
}

// the registered objects, made on first use (hooks can run before static constructors)
State &st() {
  if (state == nullptr) {
    state = new State();
    const char *path = getenv("AG_LOG");
    log_path = path != nullptr ? strdup(path) : nullptr;
    atexit(dump);
    // a fork while another thread holds the lock must not leave the child's lock taken; the child
    // reports only what it does itself (the parent reports the rest)
    pthread_atfork([] { pthread_mutex_lock(&lock); }, [] { pthread_mutex_unlock(&lock); },
                   [] {
                     Guard g;  // clear's frees go straight through
                     state->seen.clear();
                     state->accesses = state->unresolved = state->empty = 0;
                     pthread_mutex_unlock(&lock);
                   });
  }
  return *state;
}

void drop_overlapping(State &s, uintptr_t start, uintptr_t end) {
  auto it = s.objects.upper_bound(start);
  if (it != s.objects.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > start)
      s.objects.erase(prev);
  }
  it = s.objects.lower_bound(start);
  while (it != s.objects.end() && it->first < end)
    it = s.objects.erase(it);
}

void put(State &s, uintptr_t start, uintptr_t bytes, uint32_t node, bool stack) {
  uintptr_t end = start + (bytes ? bytes : 1);
  drop_overlapping(s, start, end);
  s.objects[start] = Object{end, node, stack};
}

std::vector<Frame> &my_frames() {
  if (frames == nullptr)
    frames = new std::vector<Frame>();
  return *frames;
}

// A heap object at p is gone (p freed, or moved by realloc).
void forget(void *p) {
  if (p == nullptr || state == nullptr)
    return;
  pthread_mutex_lock(&lock);
  auto it = state->objects.find((uintptr_t)p);
  if (it != state->objects.end() && !it->second.stack)
    state->objects.erase(it);
  pthread_mutex_unlock(&lock);
}

void pop_frame(State &s, std::vector<Frame> &fs) {
  for (uintptr_t a : fs.back().allocas) {
    auto it = s.objects.find(a);
    if (it != s.objects.end() && it->second.stack)
      s.objects.erase(it);
  }
  fs.pop_back();
}

}  // namespace

extern "C" {

void __ag_register_globals(void) __attribute__((weak));

static void ensure_globals() {
  static bool done = false;
  if (!done && !registering) {
    done = registering = true;
    if (__ag_register_globals)
      __ag_register_globals();
    registering = false;
  }
}

void __ag_global(uint32_t node, void *p, uint64_t bytes) {  // from ensure_globals, inside a hook
  pthread_mutex_lock(&lock);
  put(st(), (uintptr_t)p, bytes, node, false);
  pthread_mutex_unlock(&lock);
}

// Returns this frame's token for __ag_leave (0: not traced).
__attribute__((noinline)) uint64_t __ag_enter(void) {
  Guard g;
  if (!g.entered)
    return 0;
  ensure_globals();
  if (log_path == nullptr && getenv("AG_LOG") != nullptr)  // the first hooks ran before the environment was set
    log_path = strdup(getenv("AG_LOG"));                   // (an ifunc resolver)
  uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
  auto &fs = my_frames();
  pthread_mutex_lock(&lock);
  State &s = st();
  while (!fs.empty() && fs.back().sp < sp)  // deeper frames a longjmp or an exception left
    pop_frame(s, fs);
  pthread_mutex_unlock(&lock);
  fs.push_back(Frame{sp, {}});
  return fs.size();
}

// Pops the frame of `token` and every frame above it (one an inlined callee left, say).
void __ag_leave(uint64_t token) {
  Guard g;
  if (!g.entered || token == 0)
    return;
  auto &fs = my_frames();
  pthread_mutex_lock(&lock);
  while (fs.size() >= token)
    pop_frame(st(), fs);
  pthread_mutex_unlock(&lock);
}

void __ag_alloca(uint32_t node, void *p, uint64_t elem_bytes, uint64_t n) {
  Guard g;
  if (!g.entered)
    return;
  auto &fs = my_frames();
  pthread_mutex_lock(&lock);
  put(st(), (uintptr_t)p, elem_bytes * n, node, true);
  if (!fs.empty())
    fs.back().allocas.push_back((uintptr_t)p);
  pthread_mutex_unlock(&lock);
}

void __ag_heap(uint32_t node, void *p, uint32_t kind, uint64_t bytes, void *a0, void *a1) {
  Guard g;
  if (!g.entered)
    return;
  if (p == nullptr || (kind == 0 && (p == a0 || p == a1)))  // it returned its buffer argument (getcwd)
    return;
  pthread_mutex_lock(&lock);
  State &s = st();
  uintptr_t a = (uintptr_t)p;
  auto it = s.objects.upper_bound(a);
  bool inside = it != s.objects.begin() && a < std::prev(it)->second.end;
  if (kind == 1)
    put(s, a, malloc_usable_size(p), node, false);
  else if (kind == 2)
    put(s, a, bytes, node, false);
  else if (!inside)  // not memory of another object (getcwd's buffer argument, say)
    put(s, a, 1, node, false);
  pthread_mutex_unlock(&lock);
}

void __ag_access(uint32_t site, void *p, uint64_t bytes) {
  Guard g;
  if (!g.entered)
    return;
  ensure_globals();
  uintptr_t a = (uintptr_t)p;
  pthread_mutex_lock(&lock);
  State &s = st();
  if (bytes == 0) {  // memcpy(buf + len, s, 0): touches nothing, may point one past an object
    s.empty++;
    pthread_mutex_unlock(&lock);
    return;
  }
  s.accesses++;
  auto it = s.objects.upper_bound(a);
  if (it != s.objects.begin() && a < (--it)->second.end) {
    Touch &t = s.seen[(uint64_t)site << 32 | it->second.node];
    t.count++;
    uint64_t off = a - it->first;
    int k = 0;
    while (k < t.n && (t.off[k] != off || t.len[k] != bytes))
      ++k;
    if (k == t.n) {
      if (t.n < RANGES) {
        t.off[t.n] = off;
        t.len[t.n++] = bytes;
      } else {
        t.more = true;
      }
    }
  } else
    s.unresolved++;
  pthread_mutex_unlock(&lock);
}

// free and realloc of every caller, libc's and libstdc++'s included (the executable's definitions
// come first): memory freed where no hook sees it must not keep its object's name, or the next
// allocation at that address, made where no hook sees it either, would be taken for that object.
// The runtime's own frees (inside a hook) go straight through.
static void *(*real_realloc)(void *, size_t) = nullptr;
static void (*real_free)(void *) = nullptr;
static bool resolving = false;

static void resolve() {
  if (real_free == nullptr && !resolving) {
    resolving = true;
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    resolving = false;
  }
}

void free(void *p) {
  resolve();
  if (real_free == nullptr)  // a free from inside dlsym: leaked, harmlessly
    return;
  if (p != nullptr && in_hook == 0) {
    Guard g;
    forget(p);
  }
  real_free(p);
}

void *realloc(void *p, size_t n) {
  resolve();
  void *q = real_realloc(p, n);
  if (p != nullptr && q != p && (q != nullptr || n == 0) && in_hook == 0) {
    Guard g;
    forget(p);
  }
  return q;
}

}  // extern "C"
