/* Items: store/load through a global; flow-insensitive: a later store is seen by an earlier load. */
#include "alias.h"
int x, y;
int *g;
int main(void) { g = &x; int *before = g; g = &y;
  EXPECTEDFAIL_NOALIAS(before, &y);  /* the order of statements is ignored */
  MAYALIAS(before, &x); return 0; }
