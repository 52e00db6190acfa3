/* Items: an external function without a model may write into the memory it is given
   (curl's getifaddrs(&head) and BIO_get_mem_data(bio, &ptr), OpenSSL's out parameters):
   what it leaves there is an object of its own or anywhere into what it was given,
   never nothing. */
#include "alias.h"
struct node { struct node *next; char *name; };
extern int unknown_list(struct node **head);
extern long unknown_ctrl(void *handle, int cmd, long larg, void *parg);
int x;
char buf[16];
int main(void) {
  struct node *head = 0;
  unknown_list(&head);
  MAYALIAS(head, head->next);  /* the library's own list */
  NOALIAS(head, &x);
  char *data = 0;
  unknown_ctrl(buf, 3, 0, &data);
  MAYALIAS(data, buf);  /* into what it was given */
  NOALIAS(data, &x);
  return 0;
}
