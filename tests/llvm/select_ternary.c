/* Items: select (a ternary whose operands are plain values). */
#include "alias.h"
int x, y, z;
int *pick(int c, int *a, int *b) { return c ? a : b; }
int main(int argc, char **argv) { int *p = argc ? &x : &y;
  MAYALIAS(p, &x); MAYALIAS(p, &y); NOALIAS(p, &z); MAYALIAS(pick(argc, &x, &z), &z); return 0; }
