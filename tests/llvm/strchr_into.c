/* Items: libc table: strchr/strstr point into their argument. */
#include "alias.h"
#include <string.h>
int main(void) { char a[16] = "hello", b[4] = "l"; char *p = strchr(a, 'l'); char *q = strstr(a, b);
  MAYALIAS(p, a); MAYALIAS(q, a); NOALIAS(q, b); return 0; }
