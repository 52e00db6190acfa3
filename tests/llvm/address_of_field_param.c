/* Items: call (direct) with a pointer to a field; gep on an argument. */
#include "alias.h"
struct S { int *a; int *b; };
int x, y;
void setb(int **slot, int *v) { *slot = v; }
int main(void) { struct S s = { 0, 0 }; setb(&s.b, &y); s.a = &x;
  MAYALIAS(s.b, &y); NOALIAS(s.a, s.b); return 0; }
