/* Items: models of library functions first met outside the corpus (tmux, nginx, memcached,
   rsync): a terminfo
   string and tparm's expansion are library text, not the caller's argument; a line libevent
   hands out is a fresh block per call site, and a bufferevent's buffers are library memory, not
   the bufferevent; the next control message lies in the control buffer the current one points
   into, not in the msghdr; libevent's configurations are blocks of their call sites; getsubopt
   points the option and the value into the option string, not into the token table. Without the models each result pointed anywhere into its arguments
   (the sound default for an unmodelled function: tests/llvm/unmodelled_result.c). (libevent's
   and ncurses' declarations are written out: no library is linked.) */
#include "alias.h"
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>
struct evbuffer;
struct bufferevent;
char *tparm(const char *, ...);
char *tigetstr(const char *);
char *evbuffer_readln(struct evbuffer *, size_t *, int);
struct evbuffer *bufferevent_get_output(struct bufferevent *);
struct evbuffer *bufferevent_get_input(struct bufferevent *);
struct bufferevent *bufferevent_socket_new(void *, int, int);
struct event_config *event_config_new(void);
const char *seen_msg;
void on_log(int severity, const char *msg) { (void)severity; seen_msg = msg; }
void event_set_log_callback(void (*)(int, const char *));
int main(void) {
  char cap[] = "\033[%p1%d;%p2%dH";
  char *move = tparm(cap, 1, 2), *clear = tigetstr("clear");
  NOALIAS(move, cap);
  MAYALIAS(move, tparm(cap, 3, 4));     /* one static buffer */
  NOALIAS(clear, cap);

  struct bufferevent *bev = bufferevent_socket_new(0, 3, 0);
  struct evbuffer *out = bufferevent_get_output(bev), *in = bufferevent_get_input(bev);
  NOALIAS(out, bev);
  size_t n;
  char *line1 = evbuffer_readln(in, &n, 0), *line2 = evbuffer_readln(in, &n, 0);
  NOALIAS(line1, line2);                /* the caller's blocks, one per call site */
  NOALIAS(line1, in);
  NOALIAS(line1, &n);

  union { char buf[CMSG_SPACE(sizeof(int)) * 2]; struct cmsghdr align; } ctrl;
  char data[8];
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctrl.buf;
  msg.msg_controllen = sizeof ctrl.buf;
  struct cmsghdr *first = CMSG_FIRSTHDR(&msg);
  first->cmsg_len = CMSG_LEN(sizeof(int));
  struct cmsghdr *next = CMSG_NXTHDR(&msg, first);
  MAYALIAS(next, ctrl.buf);
  NOALIAS(next, &msg);
  NOALIAS(next, data);

  struct event_config *cfg1 = event_config_new(), *cfg2 = event_config_new();
  NOALIAS(cfg1, cfg2);

  char opts[] = "ro,size=10";
  char *o = opts, *val = 0;
  char *const tokens[] = {"ro", "size", 0};
  getsubopt(&o, tokens, &val);
  MAYALIAS(o, opts);
  MAYALIAS(val, opts);
  NOALIAS(val, (void *)tokens);

  event_set_log_callback(on_log);
  NOALIAS((void *)seen_msg, cap);       /* a library message */
  return 0;
}
