#include "ReadOnlyVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

const char *const cdstore_read_only_vfs_name = "cdstore-read-only";

/// The WAL index may not grow past this many 32 KiB regions (2 GiB of index, a WAL of about
/// 256 GiB): a bound on memory that file contents cannot push further.
enum { maximumRegions = 65536 };

/// The file object: SQLite allocates `szOsFile` bytes, this header followed by the wrapped
/// default-VFS file.
typedef struct ReadOnlyFile {
    sqlite3_file base;
    /// The default VFS's file, or NULL for a `-wal` that does not exist: SQLite opens the WAL of
    /// a database whose header says WAL mode even when there is none, and would create it; an
    /// empty file that exists only here says the same (no frames) without creating anything.
    sqlite3_file *wrapped;
    void **regions;
    int regionCount;
    /// For a `-wal` opened with the URI parameter `walbytes=N`: SQLite sees only its first N
    /// bytes, so its recovery stops there and the store reads as of the commit that ends there.
    /// -1: the whole file.
    sqlite3_int64 limit;
} ReadOnlyFile;

static sqlite3_vfs readOnlyVFS;
static sqlite3_vfs *defaultVFS;
static int registration = SQLITE_ERROR;
static pthread_once_t registrationOnce = PTHREAD_ONCE_INIT;

static sqlite3_file *wrapped(sqlite3_file *file) { return ((ReadOnlyFile *)file)->wrapped; }

static void releaseRegions(ReadOnlyFile *file) {
    for (int index = 0; index < file->regionCount; index++) sqlite3_free(file->regions[index]);
    sqlite3_free(file->regions);
    file->regions = NULL;
    file->regionCount = 0;
}

static int fileClose(sqlite3_file *file) {
    releaseRegions((ReadOnlyFile *)file);
    if (wrapped(file) == NULL) return SQLITE_OK;
    return wrapped(file)->pMethods->xClose(wrapped(file));
}

static int fileRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    sqlite3_int64 limit = ((ReadOnlyFile *)file)->limit;
    if (wrapped(file) == NULL || (limit >= 0 && offset >= limit)) {
        memset(buffer, 0, (size_t)amount);
        return SQLITE_IOERR_SHORT_READ;
    }
    if (limit >= 0 && offset + amount > limit) {
        int visible = (int)(limit - offset);
        int result = wrapped(file)->pMethods->xRead(wrapped(file), buffer, visible, offset);
        memset((char *)buffer + visible, 0, (size_t)(amount - visible));
        return result == SQLITE_OK ? SQLITE_IOERR_SHORT_READ : result;
    }
    return wrapped(file)->pMethods->xRead(wrapped(file), buffer, amount, offset);
}

static int fileWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    (void)file; (void)buffer; (void)amount; (void)offset;
    return SQLITE_READONLY;
}

static int fileTruncate(sqlite3_file *file, sqlite3_int64 size) {
    (void)file; (void)size;
    return SQLITE_READONLY;
}

static int fileSync(sqlite3_file *file, int flags) {
    (void)file; (void)flags;
    return SQLITE_OK;
}

static int fileSize(sqlite3_file *file, sqlite3_int64 *size) {
    if (wrapped(file) == NULL) {
        *size = 0;
        return SQLITE_OK;
    }
    int result = wrapped(file)->pMethods->xFileSize(wrapped(file), size);
    sqlite3_int64 limit = ((ReadOnlyFile *)file)->limit;
    if (result == SQLITE_OK && limit >= 0 && *size > limit) *size = limit;
    return result;
}

/// Locks are no-ops: taking the app's locks could block it, and a read-only descriptor cannot
/// take a write lock anyway. A concurrent writer is detected by the caller instead, which
/// compares the files before and after reading.
static int fileLock(sqlite3_file *file, int level) {
    (void)file; (void)level;
    return SQLITE_OK;
}

static int fileCheckReservedLock(sqlite3_file *file, int *reserved) {
    (void)file;
    *reserved = 0;
    return SQLITE_OK;
}

/// Only questions are answered; every control that could change a file (size hints, chunk
/// sizes, persistent-WAL settings) is declined.
static int fileControl(sqlite3_file *file, int operation, void *argument) {
    switch (operation) {
    case SQLITE_FCNTL_VFSNAME:
        *(char **)argument = sqlite3_mprintf("%s", cdstore_read_only_vfs_name);
        return SQLITE_OK;
    case SQLITE_FCNTL_HAS_MOVED:
        if (wrapped(file) == NULL) {
            *(int *)argument = 0;
            return SQLITE_OK;
        }
        return wrapped(file)->pMethods->xFileControl(wrapped(file), operation, argument);
    default:
        return SQLITE_NOTFOUND;
    }
}

static int fileSectorSize(sqlite3_file *file) {
    if (wrapped(file) == NULL) return 4096;
    return wrapped(file)->pMethods->xSectorSize(wrapped(file));
}

static int fileDeviceCharacteristics(sqlite3_file *file) {
    if (wrapped(file) == NULL) return 0;
    return wrapped(file)->pMethods->xDeviceCharacteristics(wrapped(file));
}

/// The WAL index in process memory: zeroed regions, so SQLite finds no valid index header and
/// rebuilds it from the `-wal` (recovery only reads the `-wal`).
static int fileShmMap(sqlite3_file *file, int region, int regionSize, int extend, void volatile **pointer) {
    (void)extend;
    ReadOnlyFile *readOnly = (ReadOnlyFile *)file;
    *pointer = NULL;
    if (region < 0 || region >= maximumRegions || regionSize <= 0) return SQLITE_IOERR_SHMMAP;
    if (region >= readOnly->regionCount) {
        void **regions = sqlite3_realloc64(readOnly->regions, (sqlite3_uint64)(region + 1) * sizeof(void *));
        if (regions == NULL) return SQLITE_NOMEM;
        for (int index = readOnly->regionCount; index <= region; index++) regions[index] = NULL;
        readOnly->regions = regions;
        readOnly->regionCount = region + 1;
    }
    if (readOnly->regions[region] == NULL) {
        void *memory = sqlite3_malloc(regionSize);
        if (memory == NULL) return SQLITE_NOMEM;
        memset(memory, 0, (size_t)regionSize);
        readOnly->regions[region] = memory;
    }
    *pointer = readOnly->regions[region];
    return SQLITE_OK;
}

static int fileShmLock(sqlite3_file *file, int offset, int count, int flags) {
    (void)file; (void)offset; (void)count; (void)flags;
    return SQLITE_OK;
}

static void fileShmBarrier(sqlite3_file *file) {
    (void)file;
    __sync_synchronize();
}

static int fileShmUnmap(sqlite3_file *file, int deleteFlag) {
    (void)deleteFlag;
    releaseRegions((ReadOnlyFile *)file);
    return SQLITE_OK;
}

static const sqlite3_io_methods readOnlyMethods = {
    2, fileClose, fileRead, fileWrite, fileTruncate, fileSync, fileSize, fileLock, fileLock,
    fileCheckReservedLock, fileControl, fileSectorSize, fileDeviceCharacteristics,
    fileShmMap, fileShmLock, fileShmBarrier, fileShmUnmap, NULL, NULL,
};

static int vfsOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outputFlags) {
    (void)vfs;
    int ownFile = SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL;
    if (name == NULL || (flags & ownFile) == 0) {
        // A temporary file of SQLite's own (sorting, a transient table): not the user's.
        return defaultVFS->xOpen(defaultVFS, name, file, flags, outputFlags);
    }
    ReadOnlyFile *readOnly = (ReadOnlyFile *)file;
    memset(readOnly, 0, sizeof(ReadOnlyFile));
    readOnly->wrapped = (sqlite3_file *)(readOnly + 1);
    readOnly->limit = -1;
    if (flags & SQLITE_OPEN_WAL) {
        readOnly->limit = sqlite3_uri_int64(name, "walbytes", -1);
        int exists = 0;
        int result = defaultVFS->xAccess(defaultVFS, name, SQLITE_ACCESS_EXISTS, &exists);
        if (result != SQLITE_OK) return result;
        if (!exists) {
            readOnly->wrapped = NULL;
            readOnly->base.pMethods = &readOnlyMethods;
            if (outputFlags != NULL) *outputFlags = SQLITE_OPEN_WAL | SQLITE_OPEN_READONLY;
            return SQLITE_OK;
        }
    }
    int readOnlyFlags = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE
                                   | SQLITE_OPEN_DELETEONCLOSE)) | SQLITE_OPEN_READONLY;
    int wrappedFlags = 0;
    int result = defaultVFS->xOpen(defaultVFS, name, readOnly->wrapped, readOnlyFlags, &wrappedFlags);
    if (result != SQLITE_OK) {
        readOnly->base.pMethods = NULL;
        return result;
    }
    readOnly->base.pMethods = &readOnlyMethods;
    if (outputFlags != NULL) *outputFlags = (wrappedFlags & ~SQLITE_OPEN_READWRITE) | SQLITE_OPEN_READONLY;
    return SQLITE_OK;
}

static int vfsDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs; (void)name; (void)syncDirectory;
    return SQLITE_IOERR_DELETE;
}

static int vfsAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return defaultVFS->xAccess(defaultVFS, name, flags, result);
}

static int vfsFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return defaultVFS->xFullPathname(defaultVFS, name, size, output);
}

static void *vfsDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return defaultVFS->xDlOpen(defaultVFS, name);
}

static void vfsDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    defaultVFS->xDlError(defaultVFS, size, message);
}

static void (*vfsDlSym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    (void)vfs;
    return defaultVFS->xDlSym(defaultVFS, library, symbol);
}

static void vfsDlClose(sqlite3_vfs *vfs, void *library) {
    (void)vfs;
    defaultVFS->xDlClose(defaultVFS, library);
}

static int vfsRandomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return defaultVFS->xRandomness(defaultVFS, size, output);
}

static int vfsSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return defaultVFS->xSleep(defaultVFS, microseconds);
}

static int vfsCurrentTime(sqlite3_vfs *vfs, double *time) {
    (void)vfs;
    return defaultVFS->xCurrentTime(defaultVFS, time);
}

static int vfsGetLastError(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return defaultVFS->xGetLastError ? defaultVFS->xGetLastError(defaultVFS, size, output) : 0;
}

static int vfsCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *time) {
    (void)vfs;
    if (defaultVFS->iVersion >= 2 && defaultVFS->xCurrentTimeInt64 != NULL) {
        return defaultVFS->xCurrentTimeInt64(defaultVFS, time);
    }
    double days = 0;
    int result = defaultVFS->xCurrentTime(defaultVFS, &days);
    *time = (sqlite3_int64)(days * 86400000.0);
    return result;
}

static void registerOnce(void) {
    // URI file names (`file:…?vfs=…`) must be on; this succeeds only before SQLite is first
    // used, and SQLite builds that enable URIs at compile time (Debian's, Apple's) need no call.
    sqlite3_config(SQLITE_CONFIG_URI, 1);
    defaultVFS = sqlite3_vfs_find(NULL);
    if (defaultVFS == NULL) return;
    readOnlyVFS.iVersion = 2;
    readOnlyVFS.szOsFile = (int)sizeof(ReadOnlyFile) + defaultVFS->szOsFile;
    readOnlyVFS.mxPathname = defaultVFS->mxPathname;
    readOnlyVFS.zName = cdstore_read_only_vfs_name;
    readOnlyVFS.xOpen = vfsOpen;
    readOnlyVFS.xDelete = vfsDelete;
    readOnlyVFS.xAccess = vfsAccess;
    readOnlyVFS.xFullPathname = vfsFullPathname;
    readOnlyVFS.xDlOpen = vfsDlOpen;
    readOnlyVFS.xDlError = vfsDlError;
    readOnlyVFS.xDlSym = vfsDlSym;
    readOnlyVFS.xDlClose = vfsDlClose;
    readOnlyVFS.xRandomness = vfsRandomness;
    readOnlyVFS.xSleep = vfsSleep;
    readOnlyVFS.xCurrentTime = vfsCurrentTime;
    readOnlyVFS.xGetLastError = vfsGetLastError;
    readOnlyVFS.xCurrentTimeInt64 = vfsCurrentTimeInt64;
    registration = sqlite3_vfs_register(&readOnlyVFS, 0);
}

int cdstore_read_only_vfs_register(void) {
    pthread_once(&registrationOnce, registerOnce);
    return registration;
}

int cdstore_read_only_vfs_in_use(void *database) {
    sqlite3_vfs *vfs = NULL;
    if (sqlite3_file_control((sqlite3 *)database, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK) return 0;
    return vfs == &readOnlyVFS;
}
