// Items: std::thread runs its callable on the new thread: the library calls the state's virtual
// _M_run, whose `this` holds the lambda's captures (libstdc++'s _M_start_thread: call_reached on
// the state it is given).
#include "alias.h"
#include <thread>
int x, y;
int *seen = &y;
int main() {
  int *p = &x;
  std::thread t([p] { seen = p; });
  t.join();
  MAYALIAS(seen, &x);
  MAYALIAS(seen, &y);
  return 0;
}
