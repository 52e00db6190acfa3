/* Items: phi in a loop (pointer walking a list). */
#include "alias.h"
struct L { struct L *next; int *v; };
int a, b;
int main(void) { struct L n2 = {0, &b}; struct L n1 = {&n2, &a}; struct L *it = &n1; int *last = 0;
  while (it) { last = it->v; it = it->next; }
  MAYALIAS(last, &a); MAYALIAS(last, &b); MAYALIAS(it, &n2); NOALIAS(last, &n1); return 0; }
