/* Items: arithmetic on an integer keeps its pointers (p + k, p & mask, p | bits, p ^ q, and
   (p - q) + r carries p's, q's and r's), anywhere at or after them; through a call too. */
#include "alias.h"
#include <stdint.h>
struct S { int *a; int *b; };
int x, y, z, other;
uintptr_t pass(uintptr_t v) { return v; }
int main(void) {
  struct S s; s.a = &x; s.b = &y;
  uintptr_t noise = (uintptr_t)&other;
  int **q1 = (int **)pass((uintptr_t)&s + sizeof(int *));
  MAYALIAS(q1, &s.b); MAYALIAS(*q1, &y); NOALIAS(q1, &other);
  int *q2 = (int *)pass(((uintptr_t)&x | 1) & ~(uintptr_t)1);
  MAYALIAS(q2, &x); NOALIAS(q2, &other);
  uintptr_t link = (uintptr_t)&x ^ (uintptr_t)&y;   /* an xor-linked list's link */
  int *q3 = (int *)pass(link ^ (uintptr_t)&x);
  MAYALIAS(q3, &y); NOALIAS(q3, &other);
  uintptr_t delta = pass((uintptr_t)&y - (uintptr_t)&x);
  int *q4 = (int *)(delta + (uintptr_t)&z);
  MAYALIAS(q4, &x); MAYALIAS(q4, &y); MAYALIAS(q4, &z); NOALIAS(q4, &other);
  return (int)noise;
}
