/* Items: atomicrmw (xchg of a pointer) and cmpxchg. */
#include "alias.h"
int x, y, z;
int *shared;
int main(void) { shared = &x;
  int *old = __atomic_exchange_n(&shared, &y, __ATOMIC_SEQ_CST);
  int *expected = &y;
  __atomic_compare_exchange_n(&shared, &expected, &z, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  MAYALIAS(old, &x); MAYALIAS(shared, &y); MAYALIAS(shared, &z); MAYALIAS(expected, &x);
  NOALIAS(old, &old); return 0; }
