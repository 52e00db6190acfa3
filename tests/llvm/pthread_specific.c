/* Items: callbacks and libc table: pthread_getspecific returns what
   pthread_setspecific stored (one object shared by both). */
#include "alias.h"
#include <pthread.h>
int x, y;
int main(void) {
  pthread_key_t key; pthread_key_create(&key, 0);
  pthread_setspecific(key, &x);
  int *p = pthread_getspecific(key);
  MAYALIAS(p, &x); NOALIAS(p, &y);
  return 0; }
