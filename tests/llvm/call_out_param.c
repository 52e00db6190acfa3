/* Items: call (direct), store through a parameter. */
#include "alias.h"
int x, y;
void set(int **out, int *v) { *out = v; }
int main(void) { int *p = 0, *q = &y; set(&p, &x);
  MAYALIAS(p, &x); NOALIAS(p, q); return 0; }
