/* The classic bitboard N-queens counter: the peer of bench/nqueens.py.
 *
 *   nqueens N [-t THREADS]        prints: "N COUNT SECONDS THREADS"
 *
 * One row at a time; cols / ld / rd are the columns and the two diagonal directions attacked in the current
 * row, and the free squares are taken lowest bit first (avail & -avail).  Symmetry: the mirror image of a solution
 * is a solution, so the row-0 queen only goes in the left half (each counted twice) and, for odd N, in the middle
 * column (counted once: its mirror is searched too).
 *
 * Threads (OpenMP): the work items are the (row 0, row 1) placements of that half, taken from a shared queue
 * (schedule dynamic, 1 at a time); each thread counts its items sequentially.  -t 1 runs the same items on one
 * thread.  SECONDS is the wall time of the count alone (omp_get_wtime, or clock_gettime without OpenMP).
 *
 * Built by bench/peers/build_nqueens.sh (cc -O3 -march=native -fopenmp).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#else
#include <time.h>
#endif

static uint32_t full;  /* (1 << N) - 1 */

static uint64_t solve(uint32_t cols, uint32_t ld, uint32_t rd)
{
    if (cols == full)
        return 1;
    uint64_t count = 0;
    uint32_t avail = ~(cols | ld | rd) & full;
    while (avail) {
        uint32_t bit = avail & -avail;
        avail ^= bit;
        count += solve(cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
    }
    return count;
}

typedef struct {
    uint32_t cols, ld, rd; /* the board after the item's rows */
    int weight;            /* 2: row-0 queen in the left half; 1: the middle column of an odd board */
} item_t;

static double now(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
#endif
}

int main(int argc, char **argv)
{
    int n = 0, threads = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else
            n = atoi(argv[i]);
    }
    if (n < 1 || n > 31 || threads < 1) {
        fprintf(stderr, "usage: %s N [-t THREADS]   (1 <= N <= 31)\n", argv[0]);
        return 2;
    }
    full = (n == 32) ? 0xffffffffu : ((1u << n) - 1);
    double t0 = now();

    /* The work items: row 0 in the left half (+ middle), then every legal row-1 square (N = 1: row 0 alone). */
    int n_items = 0;
    item_t *items = malloc(sizeof(item_t) * (size_t)n * (size_t)n);
    for (int c0 = 0; c0 < (n + 1) / 2; c0++) {
        int w = (2 * c0 < n - 1) ? 2 : 1;
        uint32_t b0 = 1u << c0, cols = b0, ld = (b0 << 1) & full, rd = b0 >> 1;
        if (n == 1) {
            items[n_items++] = (item_t){cols, ld, rd, w};
            continue;
        }
        uint32_t avail = ~(cols | ld | rd) & full;
        while (avail) {
            uint32_t bit = avail & -avail;
            avail ^= bit;
            items[n_items++] = (item_t){cols | bit, ((ld | bit) << 1) & full, (rd | bit) >> 1, w};
        }
    }

    uint64_t total = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : total) num_threads(threads)
#endif
    for (int i = 0; i < n_items; i++)
        total += (uint64_t)items[i].weight * solve(items[i].cols, items[i].ld & full, items[i].rd);

    double seconds = now() - t0;
    printf("%d %llu %.6f %d\n", n, (unsigned long long)total, seconds, threads);
    free(items);
    return 0;
}
