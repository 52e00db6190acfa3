/* Items: getelementptr with a constant byte offset (i8 gep): exact on an object of known type; a
   negative offset from an interior pointer (container_of) is an unknown offset (a smear, a
   positive-weight cycle), so the object it moves in is collapsed to one field-insensitive node
   (constraints.model, collapse_cycles): `back` points to `m`, whose two fields are then one. */
#include "alias.h"
#include <stddef.h>
struct Node { int *payload; int *link; };
int x, y;
struct Node gn;
int main(void) { struct Node n, m; n.payload = &x; n.link = &y; gn.link = &y;
  int **fwd = (int **)((char *)&n + offsetof(struct Node, link));
  MAYALIAS(*fwd, &y); NOALIAS(*fwd, &x);
  int **gl = (int **)((char *)&gn + sizeof(int *));
  MAYALIAS(gl, &gn.link); NOALIAS(gl, &gn.payload);
  m.payload = &x; m.link = &y;
  int **lp = &m.link;
  struct Node *back = (struct Node *)((char *)lp - offsetof(struct Node, link));
  MAYALIAS(back, &m); MAYALIAS(back->payload, &x); MAYALIAS(m.payload, &y); return 0; }
