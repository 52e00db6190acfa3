/* Items: inttoptr of an integer of no pointer origin (an external's result): the int-to-pointer
   object only, not every object whose address became an integer; an integer passed through a
   call and returned keeps its pointer. */
#include "alias.h"
#include <stdint.h>
int x, y;
uintptr_t hide(uintptr_t v) { return v ^ 0; }
uintptr_t opaque(void);
int main(void) { uintptr_t h = hide((uintptr_t)&x); uintptr_t g = (uintptr_t)&y;
  int *p = (int *)opaque(); int *q = (int *)h;
  NOALIAS(p, &x);        /* opaque() is given no pointer */
  MAYALIAS(q, &x);       /* through hide's argument and result */
  NOALIAS(q, &y);        /* &y became an integer, but not this one */
  return (int)g; }
