#ifndef BRADOS_CBRADOSSYSTEM_H
#define BRADOS_CBRADOSSYSTEM_H
/// `syncfs(2)`: flushes the file system that holds `fd` (a GNU extension Swift's Glibc
/// module does not import). Used by `cache import` before it swaps folders in.
int brados_syncfs(int fd);
/// memfd_create(name, MFD_CLOEXEC): an anonymous file in memory; -1 on failure.
int brados_memfd(const char *name);
/// fstatfs(2)'s f_type for `fd` (the file system's magic number); -1 on failure.
long brados_fs_type(int fd);
#endif
