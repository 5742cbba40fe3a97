#include "Memory.h"

#if defined(__APPLE__)
#include <malloc/malloc.h>
#elif defined(__GLIBC__)
#include <malloc.h>
#endif

int cdstore_release_free_memory(void) {
#if defined(__APPLE__)
    malloc_zone_pressure_relief(NULL, 0);
    return 0;
#elif defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
