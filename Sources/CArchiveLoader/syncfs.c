// syncfs(2) is a GNU extension that Swift's Glibc module does not import.
#define _GNU_SOURCE
#include <unistd.h>
#include "CArchiveLoader.h"

int brados_syncfs(int fd) { return syncfs(fd); }
