/* Flags and deadlines written by the protocol thread and read by the searching thread.
 * Relaxed atomics: the reader only needs to see the write eventually (it polls every
 * few thousand nodes), never in a particular order with other memory. */
#ifndef USI_ENGINE_ATOMICS_H
#define USI_ENGINE_ATOMICS_H
#include <stdint.h>
#include <time.h>
static inline int atomic_load_int(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void atomic_store_int(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline int64_t atomic_load_i64(const int64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void atomic_store_i64(int64_t *p, int64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
#endif
