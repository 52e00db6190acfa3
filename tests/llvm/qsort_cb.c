/* Items: callbacks: qsort passes pointers into the array to the comparator. */
#include "alias.h"
#include <stdlib.h>
int x, y;
const void *seen_a;
int cmp(const void *a, const void *b) { seen_a = a; return 0; }
int main(void) { int *arr[2] = { &x, &y }; qsort(arr, 2, sizeof arr[0], cmp);
  MAYALIAS((void *)seen_a, arr); NOALIAS((void *)seen_a, &x); return 0; }
