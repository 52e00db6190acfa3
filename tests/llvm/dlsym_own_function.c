/* Items: dlsym with a null handle, or with the handle dlopen(NULL) returns, may return
   one of the program's own exported functions (lighttpd finds its built-in plugins'
   init functions with dlsym(NULL, name)): a call through its result reaches them;
   internal functions are not found, nor the program's through a library's handle. */
#include "alias.h"
#include <dlfcn.h>
int x, y, z;
int *seen, *seen_static;
void plugin_init(int *p) { seen = p; }
static void hidden_init(int *p) { seen_static = p; }
void (*keep)(int *) = hidden_init;
int main(void) {
  void (*init)(int *) = (void (*)(int *))dlsym(0, "plugin_init");
  void *lib = dlopen("libplugin.so", RTLD_NOW);
  void (*other)(int *) = (void (*)(int *))dlsym(lib, "plugin_init");
  other(&y);
  init(&x);
  keep(&y);
  MAYALIAS(seen, &x);
  NOALIAS(seen_static, &x);
  NOALIAS(seen, &y);  /* a handle from dlopen: the library's functions, not the program's */
  void (*self)(int *) = (void (*)(int *))dlsym(dlopen(0, RTLD_NOW), "plugin_init");
  self(&z);
  MAYALIAS(seen, &z);
  return 0;
}
