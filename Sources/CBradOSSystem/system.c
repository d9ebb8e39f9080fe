// syncfs(2) is a GNU extension that Swift's Glibc module does not import.
#define _GNU_SOURCE
#include <unistd.h>
#include "CBradOSSystem.h"

int brados_syncfs(int fd) { return syncfs(fd); }

// memfd_create(2) is a GNU extension too: an anonymous file in memory, for what must never
// reach a disk (an encrypted export's database copies).
#include <sys/mman.h>
int brados_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }
