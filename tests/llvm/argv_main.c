/* Items: main's argv points to a model of the argument vector. */
#include "alias.h"
int x;
int main(int argc, char **argv) { char *a0 = argv[0], *a1 = argv[1];
  MAYALIAS(a0, a1); NOALIAS(argv, &x); return 0; }
