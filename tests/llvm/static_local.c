/* Items: globals (function-local statics) with initializers. */
#include "alias.h"
int x;
int **get(void) { static int *cell = &x; return &cell; }
int main(void) { int **c = get(); MAYALIAS(*c, &x); MUSTALIAS(c, get()); return 0; }
