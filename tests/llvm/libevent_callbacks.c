/* Items: issue 19: libevent's callback registration (event_set, event_assign,
   bufferevent_setcb) calls the callback later with its own argument, and a
   bufferevent's callbacks with the bufferevent: each parameter receives exactly that
   (the declarations are libevent's; no library is linked). */
#include "alias.h"
struct event { char opaque[128]; };
struct event_base;
struct bufferevent;
typedef void (*event_cb)(int, short, void *);
typedef void (*bev_data_cb)(struct bufferevent *, void *);
typedef void (*bev_event_cb)(struct bufferevent *, short, void *);
void event_set(struct event *, int, short, event_cb, void *);
int event_assign(struct event *, struct event_base *, int, short, event_cb, void *);
void bufferevent_setcb(struct bufferevent *, bev_data_cb, bev_data_cb, bev_event_cb, void *);
struct bufferevent *bufferevent_socket_new(struct event_base *, int, int);
void *seen_arg, *seen_arg2, *seen_bev, *seen_ctx;
void on_read(int fd, short ev, void *arg) { (void)fd; (void)ev; seen_arg = arg; }
void on_timer(int fd, short ev, void *arg) { (void)fd; (void)ev; seen_arg2 = arg; }
void on_data(struct bufferevent *bev, void *ctx) { seen_bev = bev; seen_ctx = ctx; }
void on_event(struct bufferevent *bev, short what, void *ctx) { (void)what; seen_bev = bev; seen_ctx = ctx; }
int data1, data2, data3;
int main(void) {
  struct event ev, ev2;
  event_set(&ev, 0, 2, on_read, &data1);
  event_assign(&ev2, 0, -1, 0, on_timer, &data2);
  MAYALIAS(seen_arg, &data1);
  NOALIAS(seen_arg, &ev);
  MAYALIAS(seen_arg2, &data2);
  NOALIAS(seen_arg2, &ev2);
  struct bufferevent *bev = bufferevent_socket_new(0, 3, 0);
  bufferevent_setcb(bev, on_data, 0, on_event, &data3);
  MAYALIAS(seen_bev, bev);
  MAYALIAS(seen_ctx, &data3);
  NOALIAS(seen_ctx, bev);
  return 0;
}
