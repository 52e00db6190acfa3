/* Items: pointer-sized integers carry their pointers like pointers do: through memory (a
   uintptr_t field), arguments, results, function pointers, varargs, a struct of integers
   returned in registers ({ i64, i64 }) and a union passed by value (coerced to an i64: its first
   member is a long). The NOALIAS object's address becomes an integer too, so without the rule
   (an inttoptr of an argument or a result holding every such object) those fail. */
#include "alias.h"
#include <stdarg.h>
#include <stdint.h>
int a, b, c, d, e, f, g, other;
struct box { uintptr_t word; };
struct pair { uintptr_t lo, hi; };
union any { long l; void *p; };
uintptr_t id(uintptr_t v) { return v; }
uintptr_t (*fp)(uintptr_t) = id;
uintptr_t via_field(struct box *bx) { return bx->word; }
uintptr_t first_vararg(int n, ...) { va_list ap; va_start(ap, n); uintptr_t v = va_arg(ap, uintptr_t); va_end(ap);
  return v; }
struct pair make_pair(uintptr_t lo, uintptr_t hi) { struct pair p = {lo, hi}; return p; }
void *from_union(union any u) { return u.p; }
int main(void) {
  uintptr_t noise = (uintptr_t)&other;
  int *p1 = (int *)id((uintptr_t)&a);
  MAYALIAS(p1, &a); NOALIAS(p1, &other);
  int *p2 = (int *)fp((uintptr_t)&b);
  MAYALIAS(p2, &b); NOALIAS(p2, &other);
  struct box bx; bx.word = (uintptr_t)&c;
  int *p3 = (int *)via_field(&bx);
  MAYALIAS(p3, &c); NOALIAS(p3, &other);
  int *p4 = (int *)first_vararg(1, (uintptr_t)&d);
  MAYALIAS(p4, &d); NOALIAS(p4, &other);
  struct pair pr = make_pair((uintptr_t)&e, (uintptr_t)&f);
  int *p5 = (int *)pr.hi;
  MAYALIAS(p5, &f); NOALIAS(p5, &other);
  union any u; u.p = &g;
  int *p6 = from_union(u);
  MAYALIAS(p6, &g); NOALIAS(p6, &other);
  return (int)noise;
}
