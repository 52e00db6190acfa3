/* Items: external model: mmap returns a fresh object. */
#include "alias.h"
#include <sys/mman.h>
int x;
int main(void) { void *m = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void *n = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  NOALIAS(m, n); NOALIAS(m, &x); return 0; }
