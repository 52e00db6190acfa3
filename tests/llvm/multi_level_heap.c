/* Items: load/store through heap objects holding pointers to heap objects. */
#include "alias.h"
#include <stdlib.h>
struct N { struct N *next; int *val; };
int a, b;
int main(void) { struct N *h = malloc(sizeof *h); h->next = malloc(sizeof *h); h->val = &a; h->next->val = &b; h->next->next = 0;
  NOALIAS(h->val, h->next->val); NOALIAS(h, h->next); MAYALIAS(h->next->val, &b); return 0; }
