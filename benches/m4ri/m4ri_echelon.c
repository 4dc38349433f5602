/* Timing harness for M4RI's reduced row echelon form (benchmark only; see benches/peers/gf2.py).
 *
 * Built against the system's libm4ri (GPL) at benchmark time; never linked into privlearn.
 *
 *   m4ri_echelon N REPEATS SEED [ALGO]
 *
 * fills an N x N matrix with the words of a splitmix64 stream started at SEED (row-major, word
 * w of row i is draw i*ceil(N/64)+w, the last word of each row masked to N % 64 bits: the same
 * matrix privlearn's benchmark builds), reduces a fresh copy REPEATS times with ALGO
 * ("echelonize" = mzd_echelonize(A, 1) by default, "pluq" = mzd_echelonize_pluq(A, 1),
 * "m4ri" = mzd_echelonize_m4ri(A, 1, 0), "mul" = mzd_mul(C, A, B, 0) with B the next N x N
 * words of the same stream), and prints one line:
 *
 *   n=N algo=ALGO rank=R best_s=T times_s=T1,T2,...
 */
#include <m4ri/m4ri.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s N REPEATS SEED [echelonize|pluq|m4ri]\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[1]);
  int repeats = atoi(argv[2]);
  uint64_t seed = strtoull(argv[3], NULL, 10);
  const char *algo = argc > 4 ? argv[4] : "echelonize";
  if (n <= 0 || repeats <= 0) return 2;

  mzd_t *src = mzd_init(n, n);
  int words = (n + 63) / 64;
  uint64_t mask = (n % 64) ? ((UINT64_C(1) << (n % 64)) - 1) : ~UINT64_C(0);
  uint64_t state = seed;
  for (int i = 0; i < n; i++) {
    word *row = mzd_row(src, i);
    for (int w = 0; w < words; w++) {
      uint64_t v = splitmix64(&state);
      row[w] = (w == words - 1) ? (v & mask) : v;
    }
  }

  mzd_t *other = NULL;
  if (strcmp(algo, "mul") == 0) {
    other = mzd_init(n, n);
    for (int i = 0; i < n; i++) {
      word *row = mzd_row(other, i);
      for (int w = 0; w < words; w++) {
        uint64_t v = splitmix64(&state);
        row[w] = (w == words - 1) ? (v & mask) : v;
      }
    }
  }

  double best = 1e300;
  rci_t rank = 0;
  printf("n=%d algo=%s", n, algo);
  char times[4096] = "";
  for (int r = 0; r < repeats; r++) {
    mzd_t *a = mzd_copy(NULL, src);
    double t0 = now();
    if (other != NULL) {
      mzd_t *c = mzd_mul(NULL, a, other, 0);
      rank = 0;
      mzd_free(c);
    } else if (strcmp(algo, "pluq") == 0) {
      rank = mzd_echelonize_pluq(a, 1);
    } else if (strcmp(algo, "m4ri") == 0) {
      rank = mzd_echelonize_m4ri(a, 1, 0);
    } else {
      rank = mzd_echelonize(a, 1);
    }
    double t = now() - t0;
    if (t < best) best = t;
    char buf[64];
    snprintf(buf, sizeof buf, "%s%.6f", r ? "," : "", t);
    strncat(times, buf, sizeof times - strlen(times) - 1);
    mzd_free(a);
  }
  printf(" rank=%d best_s=%.6f times_s=%s\n", (int)rank, best, times);
  mzd_free(src);
  if (other != NULL) mzd_free(other);
  return 0;
}
