/* Large zeroed tables (the search and mate hash tables).
 *
 * A table of hundreds of megabytes is read at random: with 4 KB pages nearly every
 * probe misses the TLB as well as the cache.  On Linux the table is aligned to 2 MB
 * and marked for transparent huge pages (when the system allows them on request);
 * elsewhere it is plain calloc.  Every page is touched here, so that the cost of
 * zero-filling is paid when the table is sized (isready), not during the search.
 */
#ifndef USI_ENGINE_BIGMEM_H
#define USI_ENGINE_BIGMEM_H

#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#define BIGMEM_ALIGN ((size_t)2 << 20)

static void *big_zalloc(size_t bytes) {
    void *p = NULL;
    size_t rounded = (bytes + BIGMEM_ALIGN - 1) / BIGMEM_ALIGN * BIGMEM_ALIGN;
    if (rounded == 0 || posix_memalign(&p, BIGMEM_ALIGN, rounded) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE);
#endif
    memset(p, 0, rounded);
    return p;
}
#else
static void *big_zalloc(size_t bytes) {
    void *p = calloc(1, bytes ? bytes : 1);
    if (p != NULL)
        memset(p, 0, bytes);
    return p;
}
#endif

static void big_free(void *p) { free(p); }

#endif
