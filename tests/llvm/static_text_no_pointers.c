/* Items: libc table: getenv/strerror/readdir return library-owned strings or
   records that hold no pointer (one object per function, no self-links); what
   the program itself stores there is still seen. */
#include "alias.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
int x;
struct box { char *s; };
int main(void) {
  char *e = getenv("HOME"), *f = getenv("PATH"), *m = strerror(2);
  struct box *b = malloc(sizeof *b);
  memcpy(b, e, sizeof *b);            /* bytes of a string: no pointer moves */
  NOALIAS(b->s, e);
  NOALIAS(*(char **)m, m);            /* the message holds no pointer */
  MAYALIAS(e, f);                     /* one object per function */
  NOALIAS(e, m);
  struct dirent *d = readdir(opendir("."));
  NOALIAS(*(char **)d, d);
  *(int **)e = &x;                    /* the program's own store is modelled */
  MAYALIAS(*(int **)f, &x);
  return 0; }
