/* Items: ptrtoint/inttoptr of an integer of unknown origin: every escaped object. */
#include "alias.h"
#include <stdint.h>
int x, y;
uintptr_t hide(uintptr_t v) { return v ^ 0; }
uintptr_t opaque(void);
int main(void) { uintptr_t h = hide((uintptr_t)&x); int *p = (int *)opaque();
  MAYALIAS(p, &x);       /* &x escaped to an integer */
  NOALIAS(p, &y);        /* &y never did */
  return (int)h; }
