/* Items: a pointer into a heap object moved back by a byte offset (container_of, a variable offset) reaches every field: the object collapses to one node. */
#include "alias.h"
#include <stdlib.h>
#include <stddef.h>
struct S { int *a; int *b; };
int x, y;
int main(int argc, char **argv) {
  struct S *s = malloc(argc * sizeof *s);
  s->a = &x; s->b = &y;
  int **pb = &s->b;
  struct S *t = (struct S *)((char *)pb - offsetof(struct S, b));  /* container_of: s */
  int **q = (int **)((char *)pb - (argc - 1) * sizeof(int *));    /* &s->b or before it */
  MAYALIAS(t->a, &x); MAYALIAS(t, s); MAYALIAS(*q, &x); MAYALIAS(*q, &y);
  return 0;
}
