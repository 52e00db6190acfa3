/* Items: memmove copies pointers (and returns its destination). */
#include "alias.h"
#include <string.h>
int x;
int main(void) { int *src[2] = { &x, &x }, *dst[2]; void *r = memmove(dst, src, sizeof src);
  MAYALIAS(dst[1], &x); MUSTALIAS(r, dst); return 0; }
