// Items: invoke, landingpad/resume: a thrown pointer reaches the catch.
#include "alias.h"
int x, y;
void thrower(int *p) { throw p; }
int main() { int *caught = nullptr;
  try { thrower(&x); } catch (int *q) { caught = q; }
  MAYALIAS(caught, &x); NOALIAS(caught, &y); return 0; }
