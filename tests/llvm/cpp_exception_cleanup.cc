// Items: invoke, landingpad/resume (a destructor runs during unwinding, then resume).
#include "alias.h"
int x;
int *log_slot;
struct Guard { int *p; ~Guard() { log_slot = p; } };
void may_throw(int c) { if (c) throw 1; }
void work(int c) { Guard g{&x}; may_throw(c); }
int main(int argc, char **) { try { work(argc); } catch (...) {}
  MAYALIAS(log_slot, &x); return 0; }
