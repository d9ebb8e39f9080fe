// A shared library brados opens with dlopen on its first use, once (thread-safe), and the ELF
// note that says so: what CArchiveLoader, CArtLoader and CSecretLoader share.
//
// Only the versioned soname of the ABI brados was built against is opened: never the
// unversioned development symlink (another ABI, or whatever a writable directory on the
// search path provides under that name). The loader searches only the system's trusted paths
// for it (plus LD_LIBRARY_PATH, which the user controls anyway).
#ifndef BRADOS_LOAD_ONCE_H
#define BRADOS_LOAD_ONCE_H

#include <pthread.h>
#include <stdint.h>

typedef struct {
    const char *soname;
    pthread_mutex_t lock;
    int tried;
    void *handle;
    char error[512];
} brados_library;

#define BRADOS_LIBRARY(soname) {(soname), PTHREAD_MUTEX_INITIALIZER, 0, NULL, {0}}

/// The library's handle, opened on the first call; NULL when it could not be opened.
void *brados_library_handle(brados_library *library);
/// Why the library could not be opened (dlerror's words), or NULL when it is open.
const char *brados_library_error(brados_library *library);
/// A function of the library (or of what it links), or NULL.
void *brados_library_symbol(brados_library *library, const char *name);

// The binary says which libraries it opens at run time, in the ELF dlopen metadata note
// (https://systemd.io/ELF_DLOPEN_METADATA/): owner "FDO", type 0x407c0c0a, a JSON array of
// features (each with its sonames and a priority: required, recommended). Packaging reads it
// (packaging/depends.py) to put each library's package in the .deb's Depends or Recommends
// beside what dpkg-shlibdeps finds from DT_NEEDED, so it is computed from the built binary
// rather than typed by hand. One per loader, in its .c file.
#define BRADOS_DLOPEN_NOTE(json)                                        \
    __attribute__((used, section(".note.dlopen"), aligned(4)))          \
    static const struct {                                               \
        uint32_t name_size, description_size, type;                     \
        char name[4];                                                   \
        _Alignas(4) char description[sizeof(json)];                     \
    } brados_dlopen_note = {4, sizeof(json), 0x407c0c0a, "FDO", json}

#endif
