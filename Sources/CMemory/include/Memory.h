#ifndef CDSTORE_MEMORY_H
#define CDSTORE_MEMORY_H

/// Gives the heap memory the process has freed back to the system: glibc's `malloc_trim(0)`
/// (every arena, not only the main one), Darwin's `malloc_zone_pressure_relief` on every zone.
///
/// A long-running `serve` frees a store's sessions when they go idle, but glibc keeps freed
/// blocks in the arena of the thread that freed them, so the resident size stays at its peak
/// until this is called. Swift's Glibc module does not export `malloc.h`, hence this shim.
/// Returns 1 when memory was given back (glibc); 0 otherwise.
int cdstore_release_free_memory(void);

#endif
