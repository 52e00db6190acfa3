/* Items: issue 19: the large-file names (glob64, readdir64: _FILE_OFFSET_BITS=64) and
   __sysv_signal share the models of their plain names. */
#define _FILE_OFFSET_BITS 64
#include "alias.h"
#include <dirent.h>
#include <glob.h>
#include <signal.h>
#include <stddef.h>
typedef void (*handler)(int);
extern handler __sysv_signal(int, handler);
void on_int(int s) { (void)s; }
void on_term(int s) { (void)s; }
int x;
int main(void) {
  glob_t gl;
  glob("*", 0, 0, &gl);
  MAYALIAS(gl.gl_pathv[0], gl.gl_pathv[1]);
  DIR *d = opendir(".");
  struct dirent *e = readdir(d);
  MAYALIAS(e->d_name, (char *)e + offsetof(struct dirent, d_name));
  __sysv_signal(SIGINT, on_int);
  handler old = __sysv_signal(SIGINT, on_term);
  MAYALIAS(old, on_int);
  NOALIAS(old, &x);
  return 0;
}
