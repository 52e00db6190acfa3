/* Items: library functions first met as cppcheck's crash handler and exception_ptr, and btop's
   stream manipulators, each with a model of its own. backtrace_symbols returns one block whose
   strings lie inside it (not the caller's buffer); readdir_r points *result at the entry it was
   given; __cxa_demangle returns the buffer given (grown) or a block of its own, never its status
   or length; __cxa_init_primary_exception returns a header inside the exception's block and calls
   the destructor given with the exception. Without a model each result pointed anywhere into its
   arguments and nothing was called back (tests/llvm/unmodelled_result.c), and the last one's
   destructor never received the exception. (The C++ runtime's declarations are written out.) */
#include "alias.h"
#include <dirent.h>
#include <execinfo.h>
#include <stdlib.h>
char *__cxa_demangle(const char *, char *, size_t *, int *);
void *__cxa_init_primary_exception(void *, void *, void (*)(void *));
void *destroyed;
void destroy(void *p) { destroyed = p; }
int main(void) {
  void *frames[8];
  int n = backtrace(frames, 8);
  char **names = backtrace_symbols(frames, n);
  MAYALIAS(names, names[0]);            /* the strings inside the block */
  NOALIAS(names, frames);
  NOALIAS(names[0], frames);

  DIR *d = opendir(".");
  struct dirent entry, *got;
  readdir_r(d, &entry, &got);
  MAYALIAS(got, &entry);
  NOALIAS(got, d);

  size_t len = 64;
  int status;
  char *buf = malloc(len);
  char *out = __cxa_demangle("_Z1fv", buf, &len, &status);
  MAYALIAS(out, buf);
  NOALIAS(out, &len);
  NOALIAS(out, &status);

  void *thrown = malloc(32), *tinfo = malloc(8);
  void *header = __cxa_init_primary_exception(thrown, tinfo, destroy);
  MAYALIAS(header, thrown);
  NOALIAS(header, tinfo);
  MAYALIAS(destroyed, thrown);
  return names && got && out && header;
}
