/* Items: libc table: localtime_r and gmtime_r fill the caller's struct tm, whose tm_zone points
   to the library's zone name (python's time module reads it); dirname and POSIX basename return
   a static "." for a path without a slash, else a pointer into the path. */
#define _GNU_SOURCE
#include "alias.h"
#include <libgen.h>
#include <string.h>
#include <time.h>
int x;
int main(int argc, char **argv) {
  time_t t = 0;
  struct tm a, b;
  localtime_r(&t, &a);
  gmtime_r(&t, &b);
  MAYALIAS((void *)a.tm_zone, (void *)b.tm_zone);  /* both may be one of the library's names */
  NOALIAS((void *)a.tm_zone, &x);
  NOALIAS((void *)a.tm_zone, &a);
  MAYALIAS((void *)a.tm_zone, tzname[0]);  /* glibc: the same pointer */
  struct tm *l = localtime(&t);
  MAYALIAS((void *)l->tm_zone, (void *)a.tm_zone);
  struct tm m;
  memset(&m, 0, sizeof m);
  m.tm_year = 100;
  m.tm_mday = 1;
  mktime(&m);  /* normalises m and sets its zone */
  MAYALIAS((void *)m.tm_zone, (void *)a.tm_zone);
  NOALIAS((void *)m.tm_zone, &x);
  char path[32];
  strcpy(path, argc > 1 ? argv[1] : "file");
  char *dir = dirname(path);
  MAYALIAS(dir, path);
  NOALIAS(dir, &x);
  char *dot = dirname((char *)0), *base = basename((char *)0);  /* libgen.h: POSIX's basename */
  MAYALIAS(dot, dot);  /* the static ".": never nothing */
  MAYALIAS(base, base);
  NOALIAS(dot, &x);
  return dir[0] == '.' && dot[0] == '.' && base[0] == '.' ? 0 : 1;
}
