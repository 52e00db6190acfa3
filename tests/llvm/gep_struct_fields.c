/* Items: getelementptr, field-sensitive through struct layouts. */
#include "alias.h"
struct S { int *a; int *b; };
int x, y;
int main(void) { struct S s; s.a = &x; s.b = &y;
  NOALIAS(s.a, s.b); MAYALIAS(s.a, &x); NOALIAS(&s.a, &s.b); MAYALIAS(&s, &s.a); return 0; }
