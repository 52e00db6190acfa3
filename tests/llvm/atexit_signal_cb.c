/* Items: callbacks: atexit and signal call their functions; signal returns the old handler. */
#include "alias.h"
#include <signal.h>
#include <stdlib.h>
int x;
int *touched;
void bye(void) { touched = &x; }
void on_int(int s) { touched = &x; }
int main(void) { atexit(bye); void (*old)(int) = signal(SIGINT, on_int); signal(SIGINT, old);
  MAYALIAS(touched, &x); MAYALIAS((void *)old, (void *)on_int); return 0; }
