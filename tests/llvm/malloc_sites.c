/* Items: external model: malloc (one object per call site). */
#include "alias.h"
#include <stdlib.h>
int main(void) { int *p = malloc(4), *q = malloc(4); int *r = p;
  NOALIAS(p, q); MUSTALIAS(p, r); free(p); free(q); return 0; }
