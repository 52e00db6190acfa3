/* Items: external model: malloc inside a wrapper (context-insensitive: one object). */
#include "alias.h"
#include <stdlib.h>
void *xmalloc(size_t n) { return malloc(n); }
int main(void) { int *p = xmalloc(4), *q = xmalloc(4);
  EXPECTEDFAIL_NOALIAS(p, q); return 0; }
