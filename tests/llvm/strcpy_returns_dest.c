/* Items: strcpy/strcat/... return their destination. */
#include "alias.h"
#include <string.h>
int main(void) { char a[16], b[16] = "xy"; char *r = strcpy(a, b); char *s = strcat(a, b); char *t = strncpy(b, a, 2);
  MUSTALIAS(r, a); MAYALIAS(s, a); NOALIAS(r, b); MAYALIAS(t, b); return 0; }
