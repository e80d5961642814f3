/*
 * wakegen RATE SECONDS — one thread that sleeps 1/RATE s at a time for SECONDS
 * seconds: RATE wake-ups a second and no work. Started beside bench/floor's
 * cfloor, it asks whether a client process's idle threads waking up (as the Go
 * runtime's sysmon and locked-thread hand-offs do, a few hundred times a second)
 * cost the throughput on a 2-vCPU VM ("The Go runtime's wake-ups,
 * tested" in bench/README.md at 13fc635).
 *
 *   gcc -O2 -o wakegen bench/floor/wakegen.c
 *   (./wakegen 600 5 &); ./cfloor URL 8 2 5
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
  double rate = argc == 3 ? atof(argv[1]) : 0;
  int secs = argc == 3 ? atoi(argv[2]) : 0;
  if (rate < 1 || rate > 1e6 || secs < 1) {
    fprintf(stderr, "usage: wakegen RATE SECONDS (RATE wake-ups a second, 1..1000000)\n");
    return 2;
  }
  long long period = (long long)(1e9 / rate), end = now_ns() + secs * 1000000000LL;
  struct timespec d = { period / 1000000000LL, period % 1000000000LL };
  while (now_ns() < end) nanosleep(&d, NULL);
  return 0;
}
