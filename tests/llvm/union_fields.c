/* Items: getelementptr into a union (all members share slot 0). */
#include "alias.h"
union U { int *p; long *q; };
int x;
int main(void) { union U u; u.p = &x; MAYALIAS(u.q, &x); return 0; }
