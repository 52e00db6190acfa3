/* Items: external model: strdup/strndup return fresh objects. */
#include "alias.h"
#include <string.h>
int main(void) { char buf[8] = "abc"; char *p = strdup(buf), *q = strndup(buf, 2);
  NOALIAS(p, q); NOALIAS(p, buf); return 0; }
