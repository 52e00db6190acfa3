// Items: external model: C++ new / new[] (one object per site); mangled assertion names.
#include "alias.h"
struct T { int *p; };
int x;
int main() { T *a = new T; T *b = new T; int *arr = new int[4]; a->p = &x;
  NOALIAS(a, b); NOALIAS(arr, a); MAYALIAS(a->p, &x); delete a; delete b; delete[] arr; return 0; }
