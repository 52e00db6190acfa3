/* Items: arithmetic on an integer keeps its pointers (p + k, p & mask, p | bits, p ^ q,
   (p - k) + r carries p's and r's), anywhere at or after them; through a call too. The
   difference of two pointers (both converted in the subtraction, C's p - q) is a distance and
   carries neither: (y - x) + z points into z's object only. */
#include "alias.h"
#include <stdint.h>
struct S { int *a; int *b; };
int x, y, z, other;
uintptr_t pass(uintptr_t v) { return v; }
uintptr_t pass2(uintptr_t v) { return v; }
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
  uintptr_t back = pass((uintptr_t)&y - 16);
  int *q4 = (int *)(back + (uintptr_t)&z);
  MAYALIAS(q4, &y); MAYALIAS(q4, &z); NOALIAS(q4, &other);
  uintptr_t distance = (uintptr_t)&y - (uintptr_t)&x;
  int *q5 = (int *)pass2(distance + (uintptr_t)&z);
  MAYALIAS(q5, &z); NOALIAS(q5, &y); NOALIAS(q5, &x);
  return (int)noise;
}
