#ifndef MATTERFLOW_CMALLOCSTATS_SHIM_H
#define MATTERFLOW_CMALLOCSTATS_SHIM_H
#include <malloc.h>

/// Bytes the C allocator has handed out and not had back, over all its arenas (glibc's mallinfo2: in-use chunks
/// plus mmapped ones). For benchmarks: unlike the resident set, it does not count memory freed but kept.
static inline size_t matterflow_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#endif
