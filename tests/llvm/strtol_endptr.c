/* Items: libc table: strtol stores a pointer into its string through endptr. */
#include "alias.h"
#include <stdlib.h>
int main(void) { char s[8] = "12x"; char *end = 0; long v = strtol(s, &end, 10);
  MAYALIAS(end, s); return (int)v; }
