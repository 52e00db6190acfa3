/* Items: allocation wrappers (heap cloning): each direct call of a wrapper of
   malloc/calloc/realloc, or of another wrapper, gets its own object; realloc
   wrappers move contents and may return the old block; a wrapper that keeps the
   block elsewhere, and calls through a function pointer, keep one object. */
#include "../alias.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int x, y;
void oom(void);
void *xmalloc(size_t n) { void *p = malloc(n); if (!p) { fprintf(stderr, "oom %zu\n", n); oom(); } return p; }
void *xmalloc2(size_t n) { return xmalloc(n); }
void *xcalloc(size_t k, size_t n) { void *p = calloc(k, n); if (p == NULL) oom(); memset(p, 0, k * n); return p; }
void *xrealloc(void *old, size_t n) { void *p = old ? realloc(old, n) : malloc(n); if (!p) oom(); return p; }
void *keep;
void *kept_malloc(size_t n) { void *p = malloc(n); keep = p; return p; }  /* escapes: not a wrapper */
void *(*alloc_fn)(size_t) = xmalloc;
int main(void) {
  int **a = xmalloc(sizeof *a), **b = xmalloc(sizeof *b), **c = xmalloc2(8), **d = xcalloc(1, 8);
  *a = &x; *b = &y;
  NOALIAS(a, b); NOALIAS(a, c); NOALIAS(c, d); NOALIAS(*a, *b); MAYALIAS(*a, &x);
  int **e = xrealloc(a, 16);
  MAYALIAS(e, a); NOALIAS(e, b); MAYALIAS(e[0], &x); NOALIAS(e[0], &y);
  int **f = kept_malloc(8), **g = kept_malloc(8);
  MAYALIAS(f, g); MAYALIAS(f, keep);
  int **h = alloc_fn(8), **i = alloc_fn(8);   /* through a pointer: the wrapper's own object */
  EXPECTEDFAIL_NOALIAS(h, i); NOALIAS(h, a);
  return 0; }
