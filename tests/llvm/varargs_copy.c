/* Items: va_start/va_arg/varargs with va_copy, and a va_list handed to a helper. */
#include "alias.h"
#include <stdarg.h>
int x, y;
int *first(va_list ap) { return va_arg(ap, int *); }
int *get(int n, ...) { va_list ap, aq; va_start(ap, n); va_copy(aq, ap); int *r = first(aq);
  va_end(aq); va_end(ap); return r; }
int main(void) { int *r = get(1, &x);
  MAYALIAS(r, &x); NOALIAS(r, &y); return 0; }
