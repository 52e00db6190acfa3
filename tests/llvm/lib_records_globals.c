/* Items: issue 19: readdir's struct dirent has its slots (d_name is field 4); the
   strings environ points to exist; getgrgid's record has glibc's slots also when the
   program reads it through a struct of its own; glob fills gl_pathv with strings. */
#define _GNU_SOURCE
#include "alias.h"
#include <dirent.h>
#include <glob.h>
#include <grp.h>
#include <stddef.h>
#include <string.h>
extern char **environ;
struct my_group { char *name; char *passwd; unsigned gid; char **mem; };
int x;
int main(void) {
  DIR *d = opendir(".");
  struct dirent *e = readdir(d);
  MAYALIAS(e->d_name, (char *)e + offsetof(struct dirent, d_name));
  NOALIAS(e->d_name, &x);
  char *eq = strchr(environ[0], '=');
  MAYALIAS(eq, environ[0]);
  NOALIAS(environ[0], &x);
  struct my_group *g = (struct my_group *)getgrgid(0);
  MAYALIAS(g->mem, g->name);
  glob_t gl;
  glob("*", 0, 0, &gl);
  MAYALIAS(gl.gl_pathv[0], gl.gl_pathv[1]);
  NOALIAS(gl.gl_pathv[0], &x);
  return 0;
}
