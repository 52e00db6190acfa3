/* Items: libc table: glob with GLOB_ALTDIRFUNC calls the directory functions stored in
   its glob_t (make reads its directory cache so): the stream gl_opendir returns reaches
   gl_readdir and gl_closedir, the entry gl_readdir returns is the program's own. */
#define _GNU_SOURCE
#include "alias.h"
#include <dirent.h>
#include <glob.h>
#include <stdlib.h>
#include <sys/stat.h>
struct stream { struct dirent entry; int pos; };
int x;
struct stream *opened, *read_from, *closed;
const char *asked;
struct stat *statbuf;
static void *my_opendir(const char *path) {
  asked = path;
  return calloc(1, sizeof(struct stream));
}
static struct dirent *my_readdir(void *s) {
  read_from = s;
  return &read_from->entry;
}
static void my_closedir(void *s) { closed = s; }
static int my_stat(const char *path, struct stat *st) { statbuf = st; return path == 0; }
int main(int argc, char **argv) {
  glob_t g;
  g.gl_opendir = my_opendir;
  g.gl_readdir = (struct dirent *(*)(void *))my_readdir;
  g.gl_closedir = my_closedir;
  g.gl_stat = my_stat;
  g.gl_lstat = my_stat;
  glob(argc > 1 ? argv[1] : "*", GLOB_ALTDIRFUNC, 0, &g);
  opened = my_opendir("warm");
  MAYALIAS(read_from, opened);
  MAYALIAS(closed, opened);
  NOALIAS(read_from, &x);
  MAYALIAS(statbuf, statbuf);
  NOALIAS(statbuf, &x);
  return 0;
}
