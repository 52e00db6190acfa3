/* Items: getelementptr with a constant byte offset (i8 gep): exact on an object of known type;
   a negative offset from an interior pointer (container_of) is a documented limitation: gep offsets
   only move forward inside an object, so `back` is not known to point to `n`. */
#include "alias.h"
#include <stddef.h>
struct Node { int *payload; int *link; };
int x, y;
struct Node gn;
int main(void) { struct Node n; n.payload = &x; n.link = &y; gn.link = &y;
  int **fwd = (int **)((char *)&n + offsetof(struct Node, link));
  MAYALIAS(*fwd, &y); NOALIAS(*fwd, &x);
  int **gl = (int **)((char *)&gn + sizeof(int *));
  MAYALIAS(gl, &gn.link); NOALIAS(gl, &gn.payload);
  int **lp = &n.link;
  struct Node *back = (struct Node *)((char *)lp - offsetof(struct Node, link));
  EXPECTEDFAIL_MAYALIAS(back, &n); return 0; }
