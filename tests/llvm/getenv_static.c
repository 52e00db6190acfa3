/* Items: libc table: getenv returns a library-owned object. */
#include "alias.h"
#include <stdlib.h>
int x;
int main(void) { char *a = getenv("A"), *b = getenv("B");
  EXPECTEDFAIL_NOALIAS(a, b);  /* one object per library function */
  NOALIAS(a, &x); return 0; }
