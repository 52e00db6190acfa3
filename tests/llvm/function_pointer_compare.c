/* Items: function objects: function pointers alias exactly when they may name one function. */
#include "alias.h"
void f(void) {} void g(void) {}
int main(int argc, char **argv) { void (*a)(void) = f, (*b)(void) = argc ? f : g, (*c)(void) = g;
  MAYALIAS((void *)a, (void *)b); NOALIAS((void *)a, (void *)c); return 0; }
