/* Items: call (direct, recursive), ret, phi: building and walking a list. */
#include "alias.h"
#include <stdlib.h>
struct L { struct L *next; int *v; };
int a;
struct L *push(struct L *h, int *v) { struct L *n = malloc(sizeof *n); n->next = h; n->v = v; return n; }
int *nth(struct L *l, int k) { return k ? nth(l->next, k - 1) : l->v; }
int main(void) { struct L *l = push(push(0, &a), &a); int *v = nth(l, 1);
  MAYALIAS(v, &a); MAYALIAS(l, l->next); return 0; }
