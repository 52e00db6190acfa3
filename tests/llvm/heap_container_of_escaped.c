/* Items: a known miss: a pointer moved back by a byte offset (container_of) in a function the field's address is passed to reaches only the slots after the field it started from (no collapse outside the allocating function). */
#include "alias.h"
#include <stdlib.h>
#include <stddef.h>
struct S { int *a; int *b; };
int x, y;
struct S *outer(int **pb) { return (struct S *)((char *)pb - offsetof(struct S, b)); }
int main(int argc, char **argv) {
  struct S *s = malloc(argc * sizeof *s);
  s->a = &x; s->b = &y;
  struct S *t = outer(&s->b);
  EXPECTEDFAIL_MAYALIAS(t->a, &x); EXPECTEDFAIL_MAYALIAS(t, s); EXPECTEDFAIL_MAYALIAS(t->b, &y);
  return 0;
}
