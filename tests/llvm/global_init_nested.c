/* Items: globals with initializers (nested structs). */
#include "alias.h"
int a, b, c;
struct In { int *p; int *q; };
struct Out { struct In in; int *r; };
struct Out g = { { &a, &b }, &c };
int *gp = &c;
int main(void) { MAYALIAS(g.in.p, &a); MAYALIAS(g.in.q, &b); NOALIAS(g.in.p, g.r); MAYALIAS(gp, g.r); return 0; }
