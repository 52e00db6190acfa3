/* Items: libc table: pthread_join's second argument receives what the thread's start routine
   returned, or the value it gave pthread_exit (git's tloop_join reads its worker's result so). */
#include "alias.h"
#include <pthread.h>
#include <stdlib.h>
int g, other;
int *made;
static void *work(void *arg) {
  int *p = malloc(sizeof *p);
  *p = *(int *)arg;
  made = p;
  return p;
}
static void *quit(void *arg) {
  (void)arg;
  pthread_exit(&g);
  return 0;
}
int main(void) {
  pthread_t t, u;
  int in = 1;
  void *res = 0, *res2 = 0;
  pthread_create(&t, 0, work, &in);
  pthread_create(&u, 0, quit, 0);
  pthread_join(t, &res);
  pthread_join(u, &res2);
  MAYALIAS(res, made);
  MAYALIAS(res2, &g);
  NOALIAS(res, &other);
  NOALIAS(res2, &in);
  return *(int *)res == 1 ? 0 : 1;
}
