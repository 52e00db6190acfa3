/* Items: address spaces: pointers of every address space are pointers; addrspacecast copies. */
#include "alias.h"
#define GLOBAL __attribute__((address_space(1)))
#define SHARED __attribute__((address_space(3)))
int GLOBAL g1, g2;
int GLOBAL *SHARED slot;
struct pair { int GLOBAL *a; int *b; };
struct pair SHARED pairs[4];
int x;
static int GLOBAL *pick(int GLOBAL *p, int GLOBAL *q, int k) { return k ? p : q; }
int main(int argc, char **argv) {
  slot = &g1;
  int GLOBAL *q = slot;
  int *gen = (int *)q;
  MAYALIAS(gen, (int *)&g1);
  NOALIAS(gen, (int *)&g2);
  pairs[argc & 3].a = pick(&g2, q, argc);
  pairs[1].b = &x;
  int GLOBAL *r = pairs[2].a;
  MAYALIAS((int *)r, (int *)&g2);
  MAYALIAS((int *)r, (int *)&g1);
  NOALIAS((int *)r, pairs[0].b);
  MAYALIAS(pairs[3].b, &x);
  return 0;
}
