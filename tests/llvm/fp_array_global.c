/* Items: globals with initializers: arrays of function pointers; indirect call. */
#include "alias.h"
int x, y;
int *gx(void) { return &x; }
int *gy(void) { return &y; }
int *(*table[2])(void) = { gx, gy };
int main(int argc, char **argv) { int *r = table[argc & 1]();
  MAYALIAS(r, &x); MAYALIAS(r, &y); return 0; }
