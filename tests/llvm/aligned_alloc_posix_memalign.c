/* Items: external model: aligned_alloc, posix_memalign (result through an out parameter). */
#include "alias.h"
#include <stdlib.h>
int main(void) { void *a = aligned_alloc(16, 32); void *b = 0; posix_memalign(&b, 16, 32); void *c = b;
  NOALIAS(a, b); MUSTALIAS(b, c); return 0; }
