/* Items: issue 22 item 1: a modelled external called through a function pointer
   applies its model, as a direct call does (calloc through a stored allocator, as
   curl's Curl_ccalloc; malloc handed to a constructor, as lighttpd's
   configparserAlloc(malloc)): the result points to a heap object, so what is
   stored into the block is found again. */
#include "alias.h"
#include <stdlib.h>
#include <string.h>
struct node { struct node *next; int *val; };
typedef void *(*calloc_fn)(size_t, size_t);
calloc_fn my_calloc = calloc;
void *make(void *(*alloc)(size_t)) { return alloc(32); }
char *(*dup)(const char *) = strdup;
int x, y;
int main(void) {
  struct node *a = my_calloc(1, sizeof *a), *b = my_calloc(1, sizeof *b);
  a->next = b;
  a->val = &x;
  MAYALIAS(a->next, b);
  MAYALIAS(a->val, &x);
  NOALIAS(a->val, &y);
  NOALIAS(a, &x);
  int **p = make(malloc), **q = make(malloc);
  *p = &y;
  MAYALIAS(*q, &y);   /* one heap object per allocator called through a pointer */
  NOALIAS(p, &y);
  char *s = dup("abc");
  MAYALIAS(s, dup("def"));
  return 0;
}
