// Items: call (direct) with `this`; field-sensitive members.
#include "alias.h"
int x, y;
struct Box { int *a; int *b; void set(int *p, int *q) { a = p; b = q; } };
int main() { Box box; box.set(&x, &y);
  NOALIAS(box.a, box.b); MAYALIAS(box.a, &x); return 0; }
