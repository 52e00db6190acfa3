/* Items: getelementptr, a variable index into a struct (byte arithmetic) is a sound over-approximation. */
#include "alias.h"
struct S { int *a; int *b; };
int x, y;
int main(int argc, char **argv) { struct S s; s.a = &x; s.b = &y;
  char *c = (char *)&s + argc * 8;   /* may be &s.a or &s.b */
  int **f = (int **)c;
  MAYALIAS(*f, &x); MAYALIAS(*f, &y); MAYALIAS(f, &s.b); return 0; }
