/* Items: callbacks reached through memory: a function that unknown (unmodelled) code can reach
   through what it was given (here a table of callbacks) may be called by it, with anything it can
   reach (before, only a function passed as an argument itself was: `seen` then held &y alone and
   NoAlias with &x was claimed). */
#include "alias.h"
int x, y;
void *seen = &y;
struct ops { void (*visit)(void *); void *data; };
void visit(void *p) { seen = p; }
void run_unknown(struct ops *o);   /* defined nowhere */
int main(void) {
  struct ops o = {visit, &x};
  run_unknown(&o);
  MAYALIAS(seen, &x);
  MAYALIAS(seen, &y);
  return 0;
}
