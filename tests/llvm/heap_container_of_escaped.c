/* Items: a pointer moved back by a byte offset (container_of) in a function the field's address is passed to: into a block of unknown size (field-insensitive) it reaches the whole block; into a block of constant size too: the backward offset is an unknown one (a positive-weight cycle), so the block it reaches is collapsed to one node when solving (collapse_cycles). */
#include "alias.h"
#include <stdlib.h>
#include <stddef.h>
struct S { int *a; int *b; };
int x, y;
struct S *outer(int **pb) { return (struct S *)((char *)pb - offsetof(struct S, b)); }
struct S *outer2(int **pb) { return (struct S *)((char *)pb - offsetof(struct S, b)); }
int main(int argc, char **argv) {
  struct S *s = malloc(argc * sizeof *s);
  s->a = &x; s->b = &y;
  struct S *t = outer(&s->b);
  MAYALIAS(t->a, &x); MAYALIAS(t, s); MAYALIAS(t->b, &y);
  struct S *k = malloc(sizeof *k);
  k->a = &x; k->b = &y;
  struct S *u = outer2(&k->b);
  MAYALIAS(u->a, &x); MAYALIAS(u, k);
  return 0;
}
