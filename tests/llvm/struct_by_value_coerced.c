/* Items: a small struct passed and returned in registers through clang's { i64, ptr } view of it
   (the pointer is slot 1 of the view and slot 4 of the struct): the view's geps, loads and stores
   land on the struct's own slots, which its field geps (v.u.p) read; through a pointer of unknown
   type (read_at's pv), the view's slot 1 reads any of slots 1 to 8. */
#include "alias.h"
struct V { char kind; char pad; short off; int size; union { int *p; double d; } u; };
int x, y, z;
struct V box(int *p) { struct V v = { 1, 0, 0, 0, { p } }; return v; }
int *unbox(struct V v) { return v.u.p; }
struct V pass(struct V v) { return v; }
int *field(struct V v) { return v.u.p; }
int *read_at(struct V *pv) { return field(*pv); }
int main(void) {
  struct V a = box(&x), b = { 2, 0, 0, 0, { &y } }, c;
  c.kind = 3;
  c.u.p = &z;
  int *pa = unbox(a), *pb = pass(b).u.p, *pc = read_at(&c);
  MAYALIAS(pa, &x); MAYALIAS(pb, &y); MAYALIAS(pc, &z);
  NOALIAS(pa, pb); NOALIAS(pa, pc); NOALIAS(pb, pc);
  return 0;
}
