/* Items: constant expressions as operands (gep into a global in an initializer and an instruction). */
#include "alias.h"
struct S { int *a; int *b; };
int x, y;
struct S s = { &x, &y };
int **pb = &s.b;
int main(void) { MAYALIAS(*pb, &y); NOALIAS(*pb, &x); MAYALIAS(pb, &s.b); NOALIAS(pb, &s.a); return 0; }
