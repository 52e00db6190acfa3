/* Items: read-only globals of plain data (string literals, const tables of numbers) are one
   object, <constant data>: nothing read from them is a pointer, nothing may be written to them.
   A read-only table that holds addresses keeps its own object and its pointers; a writable
   array of numbers keeps its own object; a pointer into constant data never aliases
   writable memory. */
#include "alias.h"
#include <stdint.h>
static const int squares[] = { 0, 1, 4, 9, 16 };
static const double scales[] = { 0.5, 2.0 };
static int counters[4];
static int x, y;
static int *const slots[] = { &x, &y };                   /* addresses: not plain data */
static const uintptr_t words[] = { (uintptr_t)&x, 0 };      /* an address as an integer: not plain */
int main(int argc, char **argv) {
  const int *s = &squares[argc];
  const char *lit = argc ? "yes" : "no";
  MAYALIAS((void *)s, (void *)scales);                      /* both are <constant data> */
  MAYALIAS((void *)lit, (void *)s);
  NOALIAS((void *)s, counters);                             /* writable: its own object */
  NOALIAS((void *)lit, (void *)argv);
  int *p = slots[argc];
  MAYALIAS(p, &x); MAYALIAS(p, &y); NOALIAS(p, (void *)s); NOALIAS(p, counters);
  int *q = (int *)words[argc];
  MAYALIAS(q, &x); NOALIAS(q, &y); NOALIAS(q, (void *)lit);
  return counters[argc] + (int)*s;
}
