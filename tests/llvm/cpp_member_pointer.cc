// Items: extractvalue/insertvalue-free member-function pointers: call (indirect) through { i64, i64 }.
#include "alias.h"
int x, y;
struct K { int *fx() { return &x; } int *fy() { return &y; } };
int main(int argc, char **) { int *(K::*m)() = argc > 1 ? &K::fx : &K::fy; K k; int *r = (k.*m)();
  MAYALIAS(r, &x); MAYALIAS(r, &y); return 0; }
