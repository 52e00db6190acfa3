/* Items: memcpy copies every pointer-carrying field slot (field by field). */
#include "alias.h"
#include <string.h>
struct S { int *a; int *b; };
int x, y;
int main(void) { struct S s = { &x, &y }, t; memcpy(&t, &s, sizeof s);
  MAYALIAS(t.a, &x); MAYALIAS(t.b, &y); NOALIAS(t.a, &y); return 0; }
