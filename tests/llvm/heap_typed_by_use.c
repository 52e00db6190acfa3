/* Items: a heap object of unknown size takes the layout of the struct it is used as; a constant byte offset lands on its field. */
#include "alias.h"
#include <stdlib.h>
struct S { int *a; int *b; };
struct Big { int *p0, *p1, *p2, *p3, *p4, *p5, *p6, *p7; };  /* the program's largest struct */
struct Big big;
int x, y;
int main(int argc, char **argv) {
  struct S *s = malloc(argc * sizeof *s);  /* variable size: no byte count bounds it */
  s->a = &x; s->b = &y;
  int **pb = (int **)((char *)s + sizeof(int *));  /* &s->b */
  NOALIAS(*pb, &x); MAYALIAS(*pb, &y); NOALIAS(pb, &s->a); MAYALIAS(pb, &s->b);
  big.p0 = &x;
  return 0;
}
