// Items: getelementptr with a constant byte offset (this-adjustment of a second base). C's constructor
// moves `this` by a byte offset of unknown target type (a smear: a positive-weight cycle), so c is one
// field-insensitive node when solving (collapse_cycles) and pb, which points into it, aliases &c.
#include "alias.h"
int x, y;
struct A { int *a; virtual ~A() {} };
struct B { int *b; virtual ~B() {} };
struct C : A, B { };
int main() { C c; c.a = &x; c.b = &y; B *pb = &c;
  MAYALIAS(pb->b, &y);
  MAYALIAS(pb, &c);
  return 0; }
