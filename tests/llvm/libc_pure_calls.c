/* Items: libc table: printf/strlen/free change no points-to set. */
#include "alias.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int x, y;
int main(void) { int *p = &x; char s[4] = "ab"; printf("%zu %p\n", strlen(s), (void *)p); int *q = malloc(4); free(q);
  NOALIAS(p, &y); NOALIAS(q, p); return 0; }
