/* Items: callbacks: bsearch calls the comparator with the key and array elements; returns an element. */
#include "alias.h"
#include <stdlib.h>
int key = 3, table[4];
const void *k_seen, *e_seen;
int cmp(const void *k, const void *e) { k_seen = k; e_seen = e; return 0; }
int main(void) { int *r = bsearch(&key, table, 4, sizeof table[0], cmp);
  MAYALIAS((void *)k_seen, &key); MAYALIAS((void *)e_seen, table); MAYALIAS(r, table); NOALIAS(r, &key); return 0; }
