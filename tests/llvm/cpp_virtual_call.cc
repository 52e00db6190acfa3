// Items: globals with initializers: vtables; call (indirect) through a vtable slot.
#include "alias.h"
int x, y;
struct Base { virtual int *get() { return &x; } virtual ~Base() {} };
struct Derived : Base { int *get() override { return &y; } };
int main(int argc, char **) { Base *b = argc > 1 ? (Base *)new Derived : new Base; int *r = b->get();
  MAYALIAS(r, &x); MAYALIAS(r, &y); delete b; return 0; }
