/* Items: callbacks: a function pointer passed to unknown (unmodelled) code is called with what it was given. */
#include "alias.h"
int x;
void *seen;
void visit(void *p) { seen = p; }
void foreach_unknown(void (*f)(void *), void *data);   /* defined nowhere */
int main(void) { foreach_unknown(visit, &x);
  MAYALIAS(seen, &x); return 0; }
