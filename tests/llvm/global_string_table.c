/* Items: globals with initializers: arrays of strings (constant expressions). String literals
   are read-only data holding no address: they are one object, <constant data> (as SVF's one
   constant object), so two of them may alias; writable memory stays apart from them. */
#include "alias.h"
const char *names[] = { "one", "two" };
const char *other = "three";
char buffer[8];
const char *table[] = { "four", buffer };
int main(int argc, char **argv) { MAYALIAS((void *)names[argc], (void *)names[0]);
  MAYALIAS((void *)names[0], (void *)other);
  NOALIAS((void *)names[0], buffer);
  MAYALIAS((void *)table[argc], buffer);
  NOALIAS((void *)table[0], (void *)argv); return 0; }
