/* cfloor: the select-only loop of bench/floor/gofloor in C, to tell what the
 * loop costs from what a Go client costs ("The floor of a Go client" in bench/README.md
 * at 13fc635). libpq connects and prepares P_0; then each thread drives its
 * clients with raw protocol messages on the sockets, as pgbench's libpq calls do.
 *
 *   gcc -O2 -pthread -I/usr/include/postgresql -o cfloor bench/floor/cfloor.c -lpq
 *   cfloor URL CLIENTS THREADS SECONDS          prints "tps N" and "transactions N"
 *
 * WAIT=epoll (default): edge-triggered epoll, no read until the reply is there
 * (fairbench's loop). WAIT=ppoll: ppoll over the thread's sockets in client
 * order and a read right after each send (pgbench's loop). Thread 0 is the main
 * thread, as in pgbench. The database must hold pgbench's tables at scale 10. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ACCOUNTS 1000000L /* pgbench_accounts rows at scale 10 */
#define MAXC 64

typedef struct { int fd; unsigned long long rng; char in[16384]; int inlen; } client;

static const char *url;
static int nclients, nthreads, seconds, use_epoll;
static atomic_long total;
static atomic_int stop;

static void die(const char *what) { fprintf(stderr, "cfloor: %s\n", what); exit(1); }

static void put32(char **p, int v) { v = htonl(v); memcpy(*p, &v, 4); *p += 4; }

/* send writes Bind, Describe portal, Execute, Sync in one send, as PQsendQueryPrepared. */
static void send_next(client *c) {
  char b[128], v[16], *p = b, *len;
  c->rng = c->rng * 6364136223846793005ULL + 1442695040888963407ULL;
  int vl = snprintf(v, sizeof v, "%ld", (long)((c->rng >> 33) % ACCOUNTS) + 1);
  *p++ = 'B'; len = p; p += 4;
  memcpy(p, "\0P_0\0\0\0\0\1", 9); p += 9;
  put32(&p, vl); memcpy(p, v, vl); p += vl;
  *p++ = 0; *p++ = 0;
  put32(&len, (int)(p - len));
  memcpy(p, "D\0\0\0\6P\0E\0\0\0\x09\0\0\0\0\0S\0\0\0\4", 22); p += 22;
  if (send(c->fd, b, p - b, MSG_NOSIGNAL) != p - b) die("send failed");
}

/* receive reads what is there; 1 once a whole reply (up to ReadyForQuery) is in. */
static int receive(client *c) {
  int n = recv(c->fd, c->in + c->inlen, sizeof c->in - c->inlen, 0);
  if (n < 0 && errno == EAGAIN) return 0;
  if (n <= 0) die("recv failed or connection closed");
  c->inlen += n;
  for (int off = 0; c->inlen - off >= 5;) {
    int l; memcpy(&l, c->in + off + 1, 4);
    int end = off + 1 + ntohl(l);
    if (end > c->inlen) break;
    if (c->in[off] == 'E') die("server error");
    if (c->in[off] == 'Z') { memmove(c->in, c->in + end, c->inlen - end); c->inlen -= end; return 1; }
    off = end;
  }
  return 0;
}

/* step handles a ready socket: a complete reply sends the next request; in
 * pgbench's mode a read follows each send at once. Returns transactions done. */
static long step(client *c) {
  long done = 0;
  while (receive(c)) { done++; send_next(c); if (use_epoll) break; }
  return done;
}

static void *run(void *arg) {
  int id = (int)(long)arg, n = nclients / nthreads, ep = -1;
  client *cs = calloc(n, sizeof *cs);
  for (int i = 0; i < n; i++) {
    PGconn *pc = PQconnectdb(url);
    if (PQstatus(pc) != CONNECTION_OK) die(PQerrorMessage(pc));
    PGresult *r = PQprepare(pc, "P_0", "SELECT abalance FROM pgbench_accounts WHERE aid = $1;", 1, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) die(PQerrorMessage(pc));
    PQclear(r);
    cs[i].fd = PQsocket(pc); /* pc stays open: it owns the socket */
    fcntl(cs[i].fd, F_SETFL, fcntl(cs[i].fd, F_GETFL) | O_NONBLOCK);
    cs[i].rng = id * 1000 + i + 1;
  }
  if (use_epoll) {
    if ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0) die("epoll_create1");
    for (int i = 0; i < n; i++) {
      struct epoll_event e = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.u32 = i };
      if (epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &e)) die("epoll_ctl");
    }
  }
  long done = 0;
  for (int i = 0; i < n; i++) { send_next(&cs[i]); if (!use_epoll) done += step(&cs[i]); }
  struct epoll_event ev[MAXC];
  struct pollfd pf[MAXC];
  while (!atomic_load(&stop)) {
    if (use_epoll) {
      int k = epoll_wait(ep, ev, MAXC, 100);
      for (int j = 0; j < k; j++)
        if (ev[j].events & EPOLLIN) done += step(&cs[ev[j].data.u32]);
    } else {
      struct timespec to = { 0, 100000000 };
      for (int i = 0; i < n; i++) { pf[i].fd = cs[i].fd; pf[i].events = POLLIN; pf[i].revents = 0; }
      if (ppoll(pf, n, &to, NULL) < 0 && errno != EINTR) die("ppoll");
      for (int i = 0; i < n; i++)
        if (pf[i].revents & POLLIN) done += step(&cs[i]);
    }
  }
  atomic_fetch_add(&total, done);
  return NULL;
}

static void *timer(void *arg) { (void)arg; sleep(seconds); atomic_store(&stop, 1); return NULL; }

int main(int argc, char **argv) {
  if (argc != 5) die("usage: cfloor URL CLIENTS THREADS SECONDS");
  url = argv[1]; nclients = atoi(argv[2]); nthreads = atoi(argv[3]); seconds = atoi(argv[4]);
  if (nthreads < 1 || nclients % nthreads || nclients / nthreads > MAXC || seconds < 1)
    die("CLIENTS must be a multiple of THREADS (at most 64 per thread), SECONDS at least 1");
  use_epoll = !getenv("WAIT") || strcmp(getenv("WAIT"), "ppoll") != 0;
  pthread_t t[MAXC], tt;
  for (int i = 1; i < nthreads; i++) pthread_create(&t[i], NULL, run, (void *)(long)i);
  pthread_create(&tt, NULL, timer, NULL);
  run(0);
  for (int i = 1; i < nthreads; i++) pthread_join(t[i], NULL);
  printf("tps %.0f\ntransactions %ld\n", (double)atomic_load(&total) / seconds, atomic_load(&total));
  return 0;
}
