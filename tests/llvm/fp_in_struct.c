/* Items: call (indirect) through a function pointer stored in a struct field. */
#include "alias.h"
int x, y;
struct Ops { int *(*get)(void); int *data; };
int *getx(void) { return &x; }
int main(void) { struct Ops o = { getx, &y }; int *r = o.get();
  MAYALIAS(r, &x); NOALIAS(r, o.data); return 0; }
