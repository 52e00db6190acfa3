// Items: call (indirect) through a captureless lambda converted to a function pointer.
#include "alias.h"
int x;
int main() { int *(*fp)(int *) = [](int *p) { return p; }; int *r = fp(&x);
  MAYALIAS(r, &x); return 0; }
