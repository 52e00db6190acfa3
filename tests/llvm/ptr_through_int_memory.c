/* Items: ptrtoint/inttoptr through memory: a pointer stored as an integer, read back. */
#include "alias.h"
#include <stdint.h>
int x;
int main(void) { uintptr_t slot; slot = (uintptr_t)&x; int *p = (int *)slot;
  MAYALIAS(p, &x); return 0; }
