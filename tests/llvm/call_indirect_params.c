/* Items: call (indirect) passes actuals to the formals of every target. */
#include "alias.h"
int x, y;
int *seen;
void take(int *p) { seen = p; }
void other(int *p) { }
int main(void) { void (*fp)(int *) = take; fp(&x);
  MAYALIAS(seen, &x); NOALIAS(seen, &y); return 0; }
