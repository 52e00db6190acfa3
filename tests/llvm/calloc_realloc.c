/* Items: external model: calloc, realloc (contents move to the new object), reallocarray. */
#define _GNU_SOURCE
#include "alias.h"
#include <stdlib.h>
int x;
int main(void) { int **a = calloc(2, sizeof *a); a[0] = &x;
  int **b = realloc(a, 4 * sizeof *b); int **c = calloc(1, sizeof *c);
  int **d = reallocarray(c, 2, sizeof *d);
  MAYALIAS(b[0], &x); NOALIAS(b, c); MAYALIAS(d, c); NOALIAS(d, a); return 0; }
