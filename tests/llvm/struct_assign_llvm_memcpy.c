/* Items: llvm.memcpy intrinsic (struct assignment) copies field slots. */
#include "alias.h"
struct S { int *a; int *b; int n; };
int x, y;
int main(void) { struct S s = { &x, &y, 1 }; struct S t; t = s;
  MAYALIAS(t.a, &x); NOALIAS(t.a, t.b); return 0; }
