/* Items: ptrtoint/inttoptr: an integer traced back to its pointer. */
#include "alias.h"
#include <stdint.h>
int x, y;
int main(void) { int *p = &x; uintptr_t i = (uintptr_t)p; int *q = (int *)i; int *r = &y;
  MAYALIAS(q, p); NOALIAS(q, r); return 0; }
