/* Items: external model: malloc; heap objects are field-sensitive. */
#include "alias.h"
#include <stdlib.h>
struct S { int *a; int *b; };
int x, y;
int main(void) { struct S *s = malloc(sizeof *s); s->a = &x; s->b = &y;
  NOALIAS(s->a, s->b); MAYALIAS(s->a, &x); NOALIAS(&s->a, &s->b); return 0; }
