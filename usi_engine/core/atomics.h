/* Flags and deadlines written by the protocol thread and read by the searching thread.
 * Relaxed atomics: the reader only needs to see the write eventually (it polls every
 * few thousand nodes), never in a particular order with other memory.  GCC, Clang and
 * clang-cl all provide the __atomic built-ins.
 *
 * monotonic_ns: a clock that never goes back, in nanoseconds.  POSIX has
 * clock_gettime(CLOCK_MONOTONIC); Microsoft's C runtime has none (mingw's comes only
 * with libwinpthread), so Windows reads the performance counter, whose resolution is
 * well under a microsecond (GetTickCount's 15.6 ms would not do for deadlines). */
#ifndef USI_ENGINE_ATOMICS_H
#define USI_ENGINE_ATOMICS_H
#include <stdint.h>

static inline int atomic_load_int(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void atomic_store_int(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline int64_t atomic_load_i64(const int64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void atomic_store_i64(int64_t *p, int64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN       /* (no RPC, sockets or GDI) */
#endif
#ifndef NOMINMAX
#define NOMINMAX                  /* (no min/max macros in our C) */
#endif
#include <windows.h>
static inline int64_t monotonic_ns(void) {
    static int64_t frequency = 0;     /* ticks a second; fixed at boot */
    LARGE_INTEGER now;
    if (frequency == 0) {
        LARGE_INTEGER f;
        QueryPerformanceFrequency(&f);
        frequency = (int64_t)f.QuadPart;
    }
    QueryPerformanceCounter(&now);
    /* whole seconds and the remainder apart: ticks * 1e9 would overflow after
     * about 15 minutes of uptime at a 10 MHz counter */
    return (int64_t)(now.QuadPart / frequency) * 1000000000LL
           + (int64_t)(now.QuadPart % frequency) * 1000000000LL / frequency;
}
#else
#include <time.h>
static inline int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
#endif
#endif
