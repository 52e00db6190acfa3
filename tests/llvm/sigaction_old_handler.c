/* Items: libc table: sigaction's old action holds the handler installed before, by an
   earlier sigaction or signal call at another site (perl's rsignal_state reads it so). */
#define _GNU_SOURCE
#include "alias.h"
#include <signal.h>
#include <string.h>
int x;
static void on_term(int sig) { x = sig; }
static void on_hup(int sig) { x = -sig; }
static void install(void) {
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_handler = on_term;
  sigaction(SIGTERM, &act, 0);
  signal(SIGHUP, on_hup);
}
int main(void) {
  struct sigaction old;
  install();
  sigaction(SIGTERM, 0, &old);  /* a query: what is installed now */
  MAYALIAS((void *)old.sa_handler, (void *)on_term);
  MAYALIAS((void *)old.sa_handler, (void *)on_hup);  /* one kept object for every signal */
  NOALIAS((void *)old.sa_handler, &x);
  return 0;
}
