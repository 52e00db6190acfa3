/* Items: va_start/va_arg/varargs (x86-64 lowers va_arg inline: the va_list object). */
#include "alias.h"
#include <stdarg.h>
int x, y, z;
int *last(int n, ...) { va_list ap; va_start(ap, n); int *r = 0;
  for (int i = 0; i < n; i++) r = va_arg(ap, int *);
  va_end(ap); return r; }
int main(void) { int *r = last(2, &x, &y);
  MAYALIAS(r, &x); MAYALIAS(r, &y); NOALIAS(r, &z); return 0; }
