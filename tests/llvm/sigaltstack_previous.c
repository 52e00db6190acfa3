/* Items: libc table: sigaltstack's second argument receives the stack installed before, by an
   earlier call at another site (python's faulthandler frees the stack it reads back so). */
#include "alias.h"
#include <signal.h>
#include <stdlib.h>
int x;
void *mine;
static void install(void) {
  stack_t ss;
  ss.ss_sp = malloc(1 << 16);
  ss.ss_size = 1 << 16;
  ss.ss_flags = 0;
  mine = ss.ss_sp;
  sigaltstack(&ss, 0);
}
int main(void) {
  stack_t old;
  install();
  sigaltstack(0, &old);  /* a query: the stack installed now */
  MAYALIAS(old.ss_sp, mine);
  NOALIAS(old.ss_sp, &x);
  return 0;
}
