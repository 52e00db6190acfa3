/* Items: phi (after mem2reg, a variable set on two paths). */
#include "alias.h"
int x, y, z;
int main(int argc, char **argv) { int *p;
  if (argc > 1) p = &x; else p = &y;
  MAYALIAS(p, &x); MAYALIAS(p, &y); NOALIAS(p, &z); return 0; }
