/* Items: alloca, load, store. Two stack slots are distinct objects. */
#include "alias.h"
int main(void) { int a, b; int *p = &a, *q = &b, *r = p;
  int **pp = &p; *pp = &a; int *s = *pp;
  NOALIAS(p, q); MUSTALIAS(p, r); MAYALIAS(s, p); NOALIAS(s, q); return 0; }
