/* Items: call (indirect): through a function pointer, resolved while solving. */
#include "alias.h"
int x, y;
int *fx(int *p) { return &x; }
int *fy(int *p) { return p; }
int main(int argc, char **argv) { int *(*fp)(int *) = argc > 1 ? fx : fy;
  int *r = fp(&y);
  MAYALIAS(r, &x); MAYALIAS(r, &y); return 0; }
