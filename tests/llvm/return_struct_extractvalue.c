/* Items: ret, extractvalue, load of an aggregate (a two-pointer struct returned in registers). */
#include "alias.h"
struct Pair { int *a; int *b; };
int x, y;
struct Pair make(void) { struct Pair p = { &x, &y }; return p; }
int main(void) { struct Pair r = make();
  MAYALIAS(r.a, &x); MAYALIAS(r.b, &y); return 0; }
