/* Items: callbacks: sigaction's handler (through the struct) may be called. */
#define _GNU_SOURCE
#include "alias.h"
#include <signal.h>
#include <string.h>
int x;
int *touched;
void handler(int s) { touched = &x; }
int main(void) { struct sigaction sa, old; memset(&sa, 0, sizeof sa); sa.sa_handler = handler;
  sigaction(SIGINT, &sa, &old);
  MAYALIAS(touched, &x); MAYALIAS((void *)old.sa_handler, (void *)handler); return 0; }
