/* Items: dlsym may return one of the program's own exported functions (lighttpd finds
   its built-in plugins' init functions with dlsym(NULL, name)): a call through its
   result reaches them; internal functions are not found. */
#include "alias.h"
#include <dlfcn.h>
int x, y;
int *seen, *seen_static;
void plugin_init(int *p) { seen = p; }
static void hidden_init(int *p) { seen_static = p; }
void (*keep)(int *) = hidden_init;
int main(void) {
  void (*init)(int *) = (void (*)(int *))dlsym(0, "plugin_init");
  init(&x);
  keep(&y);
  MAYALIAS(seen, &x);
  NOALIAS(seen_static, &x);
  return 0;
}
