/* Items: libc table: obstack chunks: _obstack_begin/_obstack_newchunk store a
   fresh chunk in the obstack's fields, obstack_alloc (a macro) returns pointers into it. */
#include "alias.h"
#include <obstack.h>
#include <stdlib.h>
#define obstack_chunk_alloc malloc
#define obstack_chunk_free free
int x;
int main(void) {
  struct obstack ob; obstack_init(&ob);
  char *a = obstack_alloc(&ob, 8), *b = obstack_alloc(&ob, 100000);
  MAYALIAS(a, b); NOALIAS(a, &x);
  obstack_free(&ob, 0); return 0; }
