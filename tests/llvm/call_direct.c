/* Items: call (direct): actuals copied to formals, the return copied back. */
#include "alias.h"
int x, y;
int *id(int *p) { return p; }
int main(void) { int *a = id(&x); int *b = &y;
  MAYALIAS(a, &x); NOALIAS(a, b); return 0; }
