/* Items: callbacks: pthread_create calls its start routine with its argument. */
#include "alias.h"
#include <pthread.h>
int x;
void *seen;
void *worker(void *arg) { seen = arg; return arg; }
int main(void) { pthread_t t; pthread_create(&t, 0, worker, &x); pthread_join(t, 0);
  MAYALIAS(seen, &x); return 0; }
