/* Items: libc table: getaddrinfo stores a fresh library-built list into *res
   (ai_next, ai_addr and ai_canonname point inside it). */
#include "alias.h"
#include <netdb.h>
#include <stdlib.h>
int main(void) {
  struct addrinfo *res = 0, *other = malloc(sizeof *other);
  if (getaddrinfo("localhost", "80", 0, &res) == 0) {
    MAYALIAS(res->ai_next, res);
    MAYALIAS(res->ai_next->ai_addr, res->ai_addr);
    NOALIAS(res, other); NOALIAS(res->ai_next, other);
    freeaddrinfo(res); }
  return 0; }
