/* What one FUTEX_WAKE costs in a process whose other threads wait on futexes of their own, as
 * a debuggee's parked threads do (docs/performance.md, "Many threads"): on Linux 6.16 and later a process's
 * futexes hash into a private table sized by the CPUs (16 slots on 2 CPUs), and a wake walks
 * its slot's waiters, whichever futex they wait on.
 *
 *   gcc -O2 -o futex_wake_cost bench/futex_wake_cost.c -lpthread
 *   ./futex_wake_cost <threads> [<slots>]
 *
 * <slots>: the process's hash size to set first (PR_FUTEX_HASH; 0 = the kernel's global hash);
 * without it, the kernel's default. Prints the slots in force and the mean cost of a wake on a
 * futex nobody waits on. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH 78
#define PR_FUTEX_HASH_SET_SLOTS 1
#define PR_FUTEX_HASH_GET_SLOTS 2
#endif

static void* park_forever(void* arg) {
  int* word = arg;
  for (;;) syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  return NULL;
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <threads> [<slots>]\n", argv[0]);
    return 2;
  }
  int threads = atoi(argv[1]);
  if (argc > 2 && prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, atoi(argv[2]), 0, 0) != 0) {
    perror("prctl(PR_FUTEX_HASH)");
    return 1;
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  int* words = calloc((size_t)threads, 64); /* a cache line each, as separate objects would be */
  int started = 0;
  for (int i = 0; i < threads; i++) {
    pthread_t t;
    if (pthread_create(&t, &attr, park_forever, (char*)words + (size_t)i * 64) == 0) started++;
  }
  usleep(300 * 1000); /* until they are all asleep (a measurement tool, not a test) */
  static int nobody_waits;
  const int wakes = 200000;
  double start = seconds_now();
  for (int i = 0; i < wakes; i++) syscall(SYS_futex, &nobody_waits, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  double each = (seconds_now() - start) / wakes;
  printf("threads %d, futex hash slots %d (0: global): FUTEX_WAKE %.2f us\n", started,
         prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0), each * 1e6);
  return 0;
}
