/* Items: ptrtoint/inttoptr with arithmetic: anywhere inside the object. */
#include "alias.h"
#include <stdint.h>
struct S { int *a; int *b; };
int x, y;
int main(void) { struct S s; s.a = &x; s.b = &y;
  int **q = (int **)((uintptr_t)&s + sizeof(int *));
  MAYALIAS(q, &s.b); MAYALIAS(*q, &y); return 0; }
