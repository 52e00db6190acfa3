/* Items: integers wider than 64 bits (__int128, _BitInt(200)) beside pointers; a pointer kept in one. A
   variable byte offset into a copy of the table collapses that copy alone (collapse_cycles). */
#include <stdint.h>
#include "alias.h"
struct rec { __int128 big; int *p; _BitInt(200) huge; int *q; };
struct rec table[2] = { { (__int128)1 << 100, 0, 0, 0 } }, copy[2];
int x, y;
static const _BitInt(200) LARGE = (_BitInt(200))1000000000000000000 * 1000000000000;
int main(int argc, char **argv) {
  table[0].p = &x;
  table[1].q = &y;
  table[1].huge = LARGE * argc;
  unsigned __int128 bits = (uintptr_t)&y;
  bits = bits * 3 / 3;
  int *back = (int *)(uintptr_t)bits;
  MAYALIAS(back, &y);
  MAYALIAS(table[argc & 1].p, &x);
  NOALIAS(table[0].p, table[1].q);
  copy[0].p = &x;
  char *base = (char *)&copy[0];
  __int128 off = (__int128)argc * 16;
  MAYALIAS(*(int **)(base + (long)off), &x);
  return 0;
}
