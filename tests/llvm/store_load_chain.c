/* Items: store, load (through two levels of pointers). */
#include "alias.h"
int x, y;
int main(void) { int *p = &x; int **pp = &p; int ***ppp = &pp; int *q = **ppp;
  int *r = &y; *pp = r;   /* flow-insensitive: p may now point to y as well */
  MAYALIAS(q, &x); MAYALIAS(p, &y); NOALIAS(r, &x); return 0; }
