/* Items: libstdc++'s own members (std::string is an extern template, the red-black tree's
   node helpers and iostreams live in the shared library): a string's characters are in the
   string (short) or in a block of its own; a copy has its own, a move takes the other's; a
   std::map's and a std::list's nodes hold what was inserted and iteration reaches them. Unmodelled, each of
   these calls made its result unknown (may alias everything). */
#include "alias.h"
#include <iostream>
#include <list>
#include <map>
#include <string>
#include <utility>
int x, y;
int main() {
  std::string a("a string too long for the short buffer of a std::string");
  std::string b = "short";
  std::string c = a;
  MAYALIAS((void *)b.c_str(), (void *)&b);
  NOALIAS((void *)a.c_str(), (void *)c.c_str());
  NOALIAS((void *)a.c_str(), (void *)&x);
  NOALIAS((void *)b.data(), (void *)&c);
  const char *before = a.c_str();
  std::string d = std::move(a);
  MAYALIAS((void *)d.c_str(), (void *)before);
  c += " and more";
  NOALIAS((void *)c.c_str(), (void *)b.c_str());

  std::map<int, int *> m;
  m[1] = &x;
  m[2] = &y;
  auto it = m.begin();
  ++it;
  MAYALIAS(it->second, &y);
  MAYALIAS(m.begin()->second, &x);
  /* the root's parent is the header inside m; the nodes (one block per allocation site, of a
     type known only by use) do not keep that link apart from the values they hold */
  EXPECTEDFAIL_NOALIAS(it->second, (void *)&m);
  std::list<int *> l;
  l.push_back(&x);
  l.push_front(&y);
  MAYALIAS(l.back(), &x);
  MAYALIAS(l.front(), &y);
  MAYALIAS(*++l.begin(), &x);
  std::cout << b << d.size() << std::endl;
  return 0;
}
