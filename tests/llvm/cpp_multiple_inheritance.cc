// Items: getelementptr with a constant byte offset (this-adjustment of a second base).
#include "alias.h"
int x, y;
struct A { int *a; virtual ~A() {} };
struct B { int *b; virtual ~B() {} };
struct C : A, B { };
int main() { C c; c.a = &x; c.b = &y; B *pb = &c;
  MAYALIAS(pb->b, &y);
  EXPECTEDFAIL_MAYALIAS(pb, &c);  // field-sensitive: pb points to the B sub-object (a later slot of c), not to c itself
  return 0; }
