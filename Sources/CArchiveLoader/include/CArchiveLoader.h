#ifndef BRADOS_CARCHIVE_LOADER_H
#define BRADOS_CARCHIVE_LOADER_H

/// Whether libarchive could be loaded (it is opened on first use, not at start-up).
int carchive_available(void);

/// Why libarchive could not be loaded (`dlerror()`), or NULL when it was.
const char *carchive_load_error(void);

/// `syncfs(2)`: flushes the file system that holds `fd` (a GNU extension Swift's Glibc
/// module does not import). Used by `cache import` before it swaps folders in.
int brados_syncfs(int fd);
/// memfd_create(name, MFD_CLOEXEC): an anonymous file in memory; -1 on failure.
int brados_memfd(const char *name);

#endif
