/* Items: libc table: iconv advances *inbuf and *outbuf inside their buffers
   (past a field: any later slot); mbsrtowcs advances *src the same way. */
#include "alias.h"
#include <iconv.h>
#include <wchar.h>
struct buf { char head[8]; char *link; char tail[8]; };
int main(void) {
  struct buf in = {"abc"}, out;
  char other[4];
  char *ip = in.head, *op = out.head; size_t il = 3, ol = 16;
  iconv_t cd = iconv_open("UTF-8", "LATIN1");
  iconv(cd, &ip, &il, &op, &ol);
  MAYALIAS(ip, in.tail); MAYALIAS(op, out.tail);
  NOALIAS(ip, &out); NOALIAS(op, other);
  const char *src = in.head; wchar_t w[4]; mbstate_t st = {0};
  mbsrtowcs(w, &src, 4, &st);
  MAYALIAS((void *)src, in.tail); NOALIAS((void *)src, other);
  return 0; }
