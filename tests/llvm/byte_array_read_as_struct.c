/* Items: a byte array read as a struct (git's packet_buffer as a pc_item_fixed_portion): a
   field of a field beyond the array's one declared slot lands in the object's tail, so a
   pointer stored there through a callee is read back through another (the tail's first slot
   took no offset before: the store went nowhere and the load found nothing). */
#include "alias.h"
struct in { long a; char *p; };
struct s { long id; struct in in; };
char buf[65520];
int x;
__attribute__((noinline)) void put(struct in *i) { i->p = (char *)&x; }
__attribute__((noinline)) char *get(struct in *i) { return i->p; }
int main(void) {
  struct s *s = (struct s *)buf;
  put(&s->in);
  char *q = get(&s->in);
  MAYALIAS(q, &x);
  NOALIAS(q, buf);
  return *q;
}
