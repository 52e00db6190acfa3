/* Items: libc table: a library-owned static object (getpwnam's struct passwd)
   whose pointer fields point into library memory, modelled as the same object. */
#include "alias.h"
#include <pwd.h>
#include <stdlib.h>
int main(void) {
  struct passwd *p = getpwnam("root");
  char *heap = malloc(8);
  MAYALIAS(p->pw_name, p->pw_dir);   /* both strings live in the library's buffer */
  MAYALIAS(p->pw_name, p);
  NOALIAS(p->pw_name, heap);
  return 0; }
