/* Items: a heap block of unknown size and use (it leaves its function) is one field-insensitive object: a struct field, a byte offset, a variable index and a struct copy from or into it all land on it. */
#include "alias.h"
#include <stdlib.h>
#include <string.h>
struct S { int *a; int *b; int *c[4]; };
int x, y, z, w;
struct S *keep;
void *xmalloc(size_t n) { void *p = malloc(n); if (!p) abort(); return p; }
int main(int argc, char **argv) {
  struct S *s = xmalloc(argc * sizeof *s);  /* unknown size, and the block escapes: no layout */
  keep = s;
  s->a = &x; s->b = &y; s->c[argc] = &z;
  int **pb = (int **)((char *)s + argc * sizeof(int *));  /* any field */
  MAYALIAS(*pb, &x); MAYALIAS(*pb, &y); MAYALIAS(*pb, &z);
  MAYALIAS(&s->b, pb); MAYALIAS(&s->c[1], pb); MAYALIAS(s->b, &y);
  struct S loc;
  memcpy(&loc, s, sizeof loc);              /* out of the block: every field of loc gets all of it */
  MAYALIAS(loc.b, &y); MAYALIAS(loc.c[0], &z); MAYALIAS(loc.a, &z);
  struct S in = { &w, &w, { 0 } };
  memcpy(keep + 1, &in, sizeof in);         /* into the block past its first element */
  MAYALIAS(s->a, &w); MAYALIAS(*pb, &w);
  EXPECTEDFAIL_NOALIAS(s->a, s->b);         /* one node for all its fields: sound, not precise */
  return 0;
}
