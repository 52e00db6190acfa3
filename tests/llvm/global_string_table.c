/* Items: globals with initializers: arrays of strings (constant expressions). */
#include "alias.h"
const char *names[] = { "one", "two" };
const char *other = "three";
int main(int argc, char **argv) { MAYALIAS((void *)names[argc], (void *)names[0]);
  NOALIAS((void *)names[0], (void *)other); return 0; }
