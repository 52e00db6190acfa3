/* Items: issue 22 item 3: the pointer result of an external function without a model
   (tmux's tigetstr, openssh's __res_state()) points to an object of its own, one per
   function, and anywhere into what it was given; never nowhere. */
#include "alias.h"
extern char *unknown_lookup(const char *name);
extern void *unknown_state(void);
extern char *unknown_scan(char *s, int c);
int x;
int main(void) {
  char *a = unknown_lookup("a"), *b = unknown_lookup("b");
  MAYALIAS(a, b);
  NOALIAS(a, &x);
  void *st = unknown_state();
  MAYALIAS(st, unknown_state());
  NOALIAS(st, a);
  char buf[16];
  char *p = unknown_scan(buf, 'x');
  MAYALIAS(p, buf);
  return 0;
}
