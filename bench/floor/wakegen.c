/*
 * wakegen RATE SECONDS — one thread that sleeps 1/RATE s at a time for SECONDS
 * seconds: RATE wake-ups a second and no work. Started beside bench/floor's
 * cfloor, it asks whether a client process's idle threads waking up (as the Go
 * runtime's sysmon and locked-thread hand-offs do, a few hundred times a second)
 * cost the throughput on a 2-vCPU VM (bench/README.md, "The Go runtime's
 * wake-ups, tested").
 *
 *   gcc -O2 -o wakegen bench/floor/wakegen.c
 *   (./wakegen 600 5 &); ./cfloor URL 8 2 5
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  double rate = argc == 3 ? atof(argv[1]) : 0;
  int secs = argc == 3 ? atoi(argv[2]) : 0;
  if (rate < 1 || rate > 1e6 || secs < 1) {
    fprintf(stderr, "usage: wakegen RATE SECONDS (RATE wake-ups a second, 1..1000000)\n");
    return 2;
  }
  struct timespec d = { 0, (long)(1e9 / rate) }, now, end;
  if (rate < 1.0001) d = (struct timespec){ 1, 0 };
  clock_gettime(CLOCK_MONOTONIC, &end);
  end.tv_sec += secs;
  do {
    nanosleep(&d, NULL);
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
  return 0;
}
