/* Items: libc table: zlib deflate advances the stream's next_in/next_out inside
   the caller's buffers, past a field (declared here: zlib.h need not be installed). */
#include "alias.h"
typedef struct { const unsigned char *next_in; unsigned avail_in; unsigned long total_in;
                 unsigned char *next_out; unsigned avail_out; unsigned long total_out;
                 const char *msg; void *state; void *zalloc, *zfree, *opaque;
                 int data_type; unsigned long adler, reserved; } stream;
int deflateInit_(stream *, int, const char *, int);
int deflate(stream *, int);
int deflateEnd(stream *);
struct buf { unsigned char head[8]; void *link; unsigned char tail[56]; } in, out;
unsigned char other[4];
int main(void) {
  stream s = {0}; deflateInit_(&s, 6, "1.2.13", (int)sizeof s);
  s.next_in = in.head; s.next_out = out.head;
  deflate(&s, 4);
  MAYALIAS((void *)s.next_in, in.tail); MAYALIAS(s.next_out, out.tail);
  NOALIAS((void *)s.next_in, other); NOALIAS(s.next_out, other);
  deflateEnd(&s); return 0; }
