/* Items: call (direct); context-insensitive: two calls of id() merge. */
#include "alias.h"
int x, y;
int *id(int *p) { return p; }
int main(void) { int *a = id(&x); int *b = id(&y);
  EXPECTEDFAIL_NOALIAS(a, b);   /* context-insensitive merge */
  MAYALIAS(a, &y); return 0; }
