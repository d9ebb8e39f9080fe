// syncfs(2) is a GNU extension that Swift's Glibc module does not import.
#define _GNU_SOURCE
#include <unistd.h>
#include "CBradOSSystem.h"

int brados_syncfs(int fd) { return syncfs(fd); }

// memfd_create(2) is a GNU extension too: an anonymous file in memory, for what must never
// reach a disk (an encrypted export's database copies).
#include <sys/mman.h>
int brados_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

// fstatfs(2)'s f_type (sys/vfs.h, which Swift's Glibc module does not import): which file
// system holds `fd` (FUSE: syncfs reaches no daemon); -1 when it cannot be told.
#include <sys/vfs.h>
long brados_fs_type(int fd) {
    struct statfs info;
    return fstatfs(fd, &info) == 0 ? (long)info.f_type : -1;
}
