/* Items: libc table: uselocale returns the locale installed before (perl saves it and
   puts it back, and duplocale's it): what an earlier call installed, never nothing. */
#define _GNU_SOURCE
#include "alias.h"
#include <locale.h>
int x;
int main(void) {
  locale_t mine = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  locale_t other = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  uselocale(mine);
  locale_t old = uselocale((locale_t)0);  /* a query: the current one */
  MAYALIAS(old, mine);
  locale_t before = uselocale(other);
  MAYALIAS(before, mine);
  MAYALIAS(uselocale(LC_GLOBAL_LOCALE), other);
  NOALIAS(old, &x);
  return 0;
}
