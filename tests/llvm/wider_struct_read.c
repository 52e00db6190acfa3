/* Items: issue 22 item 2, issue 19: storage read through a wider struct type than the
   one it was declared with lands in the object: a sockaddr_storage read as a
   sockaddr_in6 (field 3, past its 3 slots), an int table read through a header
   struct, alloca(n) memory used as a struct, a char buffer holding a struct. */
#include "alias.h"
#include <alloca.h>
#include <netinet/in.h>
#include <sys/socket.h>
struct hdr { short log, fast; int *table; };
struct s { int *a, *b, *c; };
struct sockaddr_storage ss;
int x, y, z;
unsigned *scope_of(struct sockaddr_in6 *s6) { return &s6->sin6_scope_id; }
int *table_of(void *t) { return ((struct hdr *)t)->table; }
int main(void) {
  struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
  MAYALIAS(&s6->sin6_scope_id, scope_of((struct sockaddr_in6 *)&ss));
  NOALIAS(&s6->sin6_scope_id, &x);
  int tbl[4097];
  ((struct hdr *)tbl)->table = &x;
  MAYALIAS(table_of(tbl), &x);
  NOALIAS(table_of(tbl), &y);
  struct s *q = alloca(sizeof *q);
  q->c = &y;
  MAYALIAS(q->c, &y);
  NOALIAS(q->c, &z);
  char buf[64];
  ((struct s *)buf)->b = &z;
  MAYALIAS(((struct s *)buf)->b, &z);
  return 0;
}
