/* Items: getelementptr, nested structs flattened to field slots. */
#include "alias.h"
struct In { int *p; int *q; };
struct Out { int *h; struct In in; int *t; };
int a, b, c, d;
int main(void) { struct Out o; o.h = &a; o.in.p = &b; o.in.q = &c; o.t = &d;
  struct In *ip = &o.in;
  NOALIAS(o.in.p, o.in.q); MAYALIAS(ip->q, &c); NOALIAS(ip->p, o.t); NOALIAS(o.h, ip->q);
  MAYALIAS(&ip->p, &o.in.p); NOALIAS(&ip->q, &o.t); return 0; }
