/* Items: bitcast/addrspacecast (pointer casts keep the points-to set). */
#include "alias.h"
struct A { int *f; }; struct B { int *g; };
int x;
int main(void) { struct A a; a.f = &x; struct B *b = (struct B *)&a; void *v = b; long *l = (long *)v;
  MAYALIAS(b->g, &x); MAYALIAS(l, &a); MUSTALIAS(v, &a); return 0; }
