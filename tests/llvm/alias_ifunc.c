/* Items: aliases and ifuncs: an alias is its aliasee; a call through an ifunc calls what its resolver returns. */
#include "alias.h"
int x, y, z;
int *get_x(int *p) { return &x; }
int *get_x_alias(int *p) __attribute__((alias("get_x")));
extern int y_alias __attribute__((alias("y")));
static int *impl_a(int *p) { return p; }
static int *impl_b(int *p) { return &z; }
int pick;
static void *resolve(void) { return pick ? (void *)impl_a : (void *)impl_b; }
int *get_i(int *p) __attribute__((ifunc("resolve")));
int main(void) {
  int *a = get_x_alias(&y);
  MAYALIAS(a, &x);
  NOALIAS(a, &y);
  int *ya = &y_alias;
  MAYALIAS(ya, &y);
  NOALIAS(ya, &x);
  int *(*fp)(int *) = get_x_alias;
  MAYALIAS(fp(0), &x);
  int *b = get_i(&y);
  MAYALIAS(b, &y);
  MAYALIAS(b, &z);
  NOALIAS(b, &x);
  return 0;
}
