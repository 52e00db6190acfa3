/* Items: getelementptr, arrays of structs: elements collapsed, fields kept apart. */
#include "alias.h"
struct P { int *k; int *v; };
int x, y;
int main(int argc, char **argv) { struct P t[8]; t[argc].k = &x; t[2].v = &y;
  NOALIAS(t[1].k, t[5].v); MAYALIAS(t[7].k, &x); MAYALIAS(t[0].v, &y); return 0; }
