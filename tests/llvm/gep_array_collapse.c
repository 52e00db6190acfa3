/* Items: getelementptr, array elements collapsed to one slot. */
#include "alias.h"
int x, y;
int main(int argc, char **argv) { int *arr[4]; arr[0] = &x; arr[3] = &y;
  EXPECTEDFAIL_NOALIAS(arr[0], arr[3]);   /* one slot for all elements */
  MAYALIAS(arr[argc], &y); MAYALIAS(&arr[1], &arr[2]); return 0; }
